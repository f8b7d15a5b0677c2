"""Which branch a statement takes at a decision: numbers against thresholds, negation, yes/no.

A scenario ("her credit score is 720, but her income is not verified") settles decisions of the
chart ("Is the credit score above 600?" -> yes, "Is the income verified?" -> no) without naming
the branches. `branch_taken` reads one decision against a statement:

1. a decision comparing a quantity with a number (``above 600``, ``at least 18``, ``< n`` with a
   number) is settled by the number the statement gives for that quantity;
2. otherwise by the clause of the statement that restates the decision: negated (``not``,
   ``never``, ``n't``, ``fails``, ``without``) means the ``no`` branch, an explicit ``the answer
   is yes/no`` wins, an affirmative restatement means ``yes``.

Pure text functions (no graph, no model), so the reasoner and tests share them.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable

from flowpath.reason.text import tokens

# a number as charts and stories write it: "720", "2.5", "3,000" (a comma before exactly three
# digits groups thousands; any other comma is a decimal one, "2,5")
_NUM = r"(-?(?:\d{1,3}(?:,\d{3})+(?![,\d])|\d+(?:[.,]\d+)?))"
_THOUSANDS = re.compile(r"-?\d{1,3}(?:,\d{3})+")
# where the words about one number end: a clause boundary (a number's quantity is named in its
# own clause: "the score is 720, and the income is 2,450")
_BOUNDARY = re.compile(r"[.;:!?]|,(?!\d{3})|\b(?:and|but|while|although|though|whereas|yet)\b", re.I)
# longest phrases first: "greater than or equal to" before "greater than"
_COMPARATORS: list[tuple[str, Callable[[float, float], bool]]] = [
    (r"greater than or equal to|more than or equal to|at least|no less than|>=|≥|or more", operator.ge),
    (r"less than or equal to|at most|no more than|<=|≤|or less|up to", operator.le),
    (r"greater than|more than|larger than|higher than|above|over|exceeds?|exceeding|>", operator.gt),
    (r"less than|fewer than|smaller than|lower than|below|under|<", operator.lt),
    (r"equal to|equals|==", operator.eq),
]
# a comparison right before a number: the number is a threshold ("above 600"), not a value
_COMPARISON_WORDS = "|".join(w for p, _ in _COMPARATORS for w in p.split("|") if not w.startswith("or "))
_COMPARISON_BEFORE = re.compile(rf"(?<![a-z])(?:{_COMPARISON_WORDS})\s*[$€£]?\s*$", re.I)
_NEGATION = re.compile(r"\b(not|no|never|cannot|without|fails?|failed|neither|nor|lacks?)\b|n't\b", re.I)
_EXPLICIT = re.compile(r"\b(?:answer|result|response|outcome)\s+(?:is|was|comes back|came back)\s+(yes|no|true|false)\b", re.I)
_CLAUSE = re.compile(r"(?<=[.!?;])\s+|,\s*(?:but|and|so|while|although|though|yet)\s+|\s+(?:but|although|whereas)\s+")


def threshold(decision: str) -> tuple[list[str], Callable[[float, float], bool], float] | None:
    """``(subject tokens, comparison, number)`` of a decision comparing a quantity with a
    number ("Is the credit score above 600?"), else ``None``.

    >>> subject, cmp, value = threshold("Is the credit score above 600?")
    >>> subject, cmp(720, value)
    (['credit', 'score'], True)
    """
    for phrase, cmp in _COMPARATORS:
        m = re.search(rf"(?:{phrase})\s*[$€£]?\s*{_NUM}", decision, re.I) if phrase not in ("or more", "or less") \
            else re.search(rf"{_NUM}\s*(?:{phrase})", decision, re.I)
        if m:
            return tokens(decision[: m.start()]), cmp, _value(m.group(1))
    return None


def _value(number: str) -> float:
    """The value of a number `_NUM` matched: "3,000" is 3000, "2,5" is 2.5."""
    return float(number.replace(",", "")) if _THOUSANDS.fullmatch(number) else float(number.replace(",", "."))


def _numbers(statement: str) -> list[tuple[float, set[str]]]:
    """Each number of ``statement`` that states a value, with the words that say what it
    counts: the words before it in its clause and up to three after it ("the buffer holds 206
    bytes", "151 retries logged"), stemmed content tokens. A number right after a comparison
    ("is it above 600?") restates a threshold and states no value."""
    return [(v, set(tokens(before)) | set(tokens(after))) for v, before, _, after in _value_spans(statement)]


def value_clauses(statement: str) -> list[tuple[float, str]]:
    """Each number of ``statement`` that states a value, with the text that says what it
    counts (its clause up to the number, the number, and up to three words after it): what a
    quantity named with none of its words ("has just turned 16" for an age) is matched on by
    meaning. A number right after a comparison restates a threshold and is left out.

    >>> value_clauses("It is 9 o'clock, and Ana has just turned 16.")
    [(9.0, "It is 9 o'clock"), (16.0, 'Ana has just turned 16')]
    """
    return [(v, " ".join(x for x in (before.strip(), number, after) if x)) for v, before, number, after in _value_spans(statement)]


def _value_spans(statement: str) -> list[tuple[float, str, str, str]]:
    """``(value, its clause before it, the number as written, up to three words after it)``
    for each number of ``statement`` that states a value (`_numbers`)."""
    out = []
    for m in re.finditer(_NUM, statement):
        before = statement[max(0, m.start() - 60): m.start()]
        if _COMPARISON_BEFORE.search(before):
            continue
        cuts = list(_BOUNDARY.finditer(before))
        if cuts:
            before = before[cuts[-1].end():]
        after = statement[m.end(): m.end() + 40]
        cut = _BOUNDARY.search(after)
        if cut:
            after = after[: cut.start()]
        out.append((_value(m.group(1)), before, m.group(0), " ".join(after.split()[:3])))
    return out


def _stated_value(statement: str, subject: list[str]) -> float | None:
    """The number the statement gives for ``subject``: the one whose clause names most of the
    subject's words (else its only number)."""
    nums = _numbers(statement)
    if not nums:
        return None
    subj = set(subject)
    best: tuple[float, float] | None = None
    for v, words in nums:
        hit = len(subj & words) / len(subj) if subj else 0.0
        if best is None or hit > best[0]:
            best = (hit, v)
    if best is not None and best[0] > 0:
        return best[1]
    return nums[0][0] if len(nums) == 1 else None


def states_quantity(decision: str, statement: str) -> bool:
    """Whether ``statement`` gives a number for the quantity that ``decision`` compares with a
    threshold: a word of the quantity in the number's clause ("the buffer holds 206 bytes" for
    "Is the buffer size at most 180?"; stories name a quantity by part of its name).

    >>> states_quantity("Is the water level below 10?", "It turns out the water level reads 12.")
    True
    >>> states_quantity("Is the buffer size at most 180?", "The buffer holds 206 bytes.")
    True
    >>> states_quantity("Is the water level below 10?", "The water is cold.")
    False
    """
    thr = threshold(decision)
    if thr is None or not thr[0]:
        return False
    subject = set(thr[0])
    return any(subject & words for _, words in _numbers(statement))


def branch_taken(decision: str, statement: str, *, min_overlap: float = 0.5) -> str | None:
    """``"yes"``, ``"no"`` or ``None`` (not settled): the branch ``statement`` takes at the
    decision whose text is ``decision``.

    Args:
        decision: the decision node's text.
        statement: the question (and answer) text.
        min_overlap: share of the decision's content words a clause must restate to settle it
            by negation or affirmation.

    >>> branch_taken("Is the credit score above 600?", "Her credit score is 720.")
    'yes'
    >>> branch_taken("Is the glue dry?", "She sees that the glue is not dry yet.")
    'no'
    """
    thr = threshold(decision)
    if thr is not None:
        subject, cmp, value = thr
        stated = _stated_value(statement, subject)
        if stated is not None:
            return "yes" if cmp(stated, value) else "no"
    dtoks = set(tokens(decision))
    if not dtoks:
        return None
    best, best_hit = "", 0.0
    for clause in _CLAUSE.split(statement):
        hit = len(dtoks & set(tokens(clause))) / len(dtoks)
        if hit > best_hit:
            best, best_hit = clause, hit
    if best_hit < min_overlap:
        return None
    m = _EXPLICIT.search(best)
    if m:
        return "yes" if m.group(1).lower() in ("yes", "true") else "no"
    negated = bool(_NEGATION.search(best)) != bool(_NEGATION.search(decision))
    return "no" if negated else "yes"
