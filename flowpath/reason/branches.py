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

_NUM = r"(-?\d+(?:[.,]\d+)?)"
# longest phrases first: "greater than or equal to" before "greater than"
_COMPARATORS: list[tuple[str, Callable[[float, float], bool]]] = [
    (r"greater than or equal to|more than or equal to|at least|no less than|>=|≥|or more", operator.ge),
    (r"less than or equal to|at most|no more than|<=|≤|or less|up to", operator.le),
    (r"greater than|more than|larger than|higher than|above|over|exceeds?|exceeding|>", operator.gt),
    (r"less than|fewer than|smaller than|lower than|below|under|<", operator.lt),
    (r"equal to|equals|==", operator.eq),
]
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
        m = re.search(rf"(?:{phrase})\s*{_NUM}", decision, re.I) if phrase not in ("or more", "or less") \
            else re.search(rf"{_NUM}\s*(?:{phrase})", decision, re.I)
        if m:
            value = float(m.group(1).replace(",", "."))
            return tokens(decision[: m.start()]), cmp, value
    return None


def _stated_value(statement: str, subject: list[str], exclude: float) -> float | None:
    """The number the statement gives for ``subject``: the one closest after a mention of the
    subject's words (else the only number that is not the threshold itself)."""
    nums = [(m.start(), float(m.group(1).replace(",", "."))) for m in re.finditer(_NUM, statement)]
    nums = [(pos, v) for pos, v in nums if v != exclude] or nums
    if not nums:
        return None
    subj = set(subject)
    best: tuple[float, float] | None = None
    for pos, v in nums:
        window = tokens(statement[max(0, pos - 60): pos])
        hit = len(subj & set(window)) / len(subj) if subj else 0.0
        if best is None or hit > best[0]:
            best = (hit, v)
    if best is not None and best[0] > 0:
        return best[1]
    return nums[0][1] if len(nums) == 1 else None


def states_quantity(decision: str, statement: str) -> bool:
    """Whether ``statement`` gives a number for the quantity that ``decision`` compares with a
    threshold: every content word of the quantity is in it, followed by a number.

    >>> states_quantity("Is the water level below 10?", "It turns out the water level reads 12.")
    True
    >>> states_quantity("Is the water level below 10?", "The water is cold.")
    False
    """
    thr = threshold(decision)
    if thr is None or not thr[0]:
        return False
    subject = set(thr[0])
    for m in re.finditer(_NUM, statement):
        if subject <= set(tokens(statement[max(0, m.start() - 60): m.start()])):
            return True
    return False


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
        stated = _stated_value(statement, subject, value)
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
