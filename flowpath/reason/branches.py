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

import ast
import contextvars
import functools
import json
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flowpath.reason.text import CARDINAL_WORDS, STOPWORDS, stem, tokens

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
        out.append((_value(m.group(1)), _clause_tail(before), m.group(0), _words_after(statement, m.end())))
    return out


def _clause_tail(before: str) -> str:
    """The text before a number from its clause's start (after the last clause boundary)."""
    cuts = list(_BOUNDARY.finditer(before))
    return before[cuts[-1].end():] if cuts else before


def _words_after(statement: str, end: int) -> str:
    """Up to three words after a number ending at ``end``, within its clause."""
    after = statement[end: end + 40]
    cut = _BOUNDARY.search(after)
    if cut:
        after = after[: cut.start()]
    return " ".join(after.split()[:3])


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


# -- opposites, negation scope, bounds and level words (tenth stretch) -------------------------
# A story settles a check by its opposite ("the file is missing" for "Does the file exist?"), by a
# negation whose scope matters ("the seal holds without a drop"), by a negative prefix ("the
# token is invalid"), by a number with a comparison word ("earns more than 3,000" against "at
# least 2,500") or by a level word for a quantity ("her score is low" against "above 600"). The
# sentence encoder tells such readings apart about as well as chance, so they are read here from
# a hand-written table of opposites (flowpath/resources/opposites, its README says where it
# comes from). `read_check` is what the scenario path asks (the reasoner's
# ``scenario_opposites``); `branch_taken` keeps its reading for the other paths.
_OPPOSITES_FILE = Path(__file__).resolve().parents[1] / "resources" / "opposites" / "opposites.json"
_WORD = re.compile(r"[a-z0-9]+")
# words that negate what follows them in their clause ("did not pass", "never replied", "fails
# to", "x is missing from seen"), stemmed as `_words` stems; "n't" is read as "not"
_NEGATORS = frozenset(stem(w) for w in ("not", "never", "cannot", "neither", "nor", "no", "none", "nobody", "nothing",
                                         "without", "fail", "fails", "failed", "lack", "lacks", "lacking", "missing",
                                         "absent"))


# what a level word said of a thing follows ("Mia is underage", "the oven feels cold")
_COPULAS = frozenset(stem(w) for w in ("is", "are", "was", "were", "feels", "seems", "looks", "stays", "remains", "gets"))


@dataclass(frozen=True)
class _Opposites:
    antonyms: dict[str, frozenset[str]]
    prefixes: tuple[str, ...]
    not_prefixed: frozenset[str]
    phrases: tuple[tuple[re.Pattern[str], str], ...]
    high: frozenset[str]
    low: frozenset[str]
    quantity_levels: dict[str, tuple[frozenset[str], frozenset[str]]]


@functools.lru_cache(maxsize=1)
def _opposites() -> _Opposites:
    """The table of opposites, its words stemmed as `tokens` stems them (read once)."""
    raw = json.loads(_OPPOSITES_FILE.read_text(encoding="utf-8"))
    pairs: dict[str, set[str]] = {}
    for a, b in raw["antonyms"]:
        fa, fb = _forms(a), _forms(b)
        for x in fa:
            pairs.setdefault(x, set()).update(fb)
        for x in fb:
            pairs.setdefault(x, set()).update(fa)
    phrases = tuple((re.compile(rf"\b{re.escape(k)}\b", re.I), v) for k, v in raw["phrases"].items())
    levels = {stem(k): (frozenset(stem(w) for w in v["high"]), frozenset(stem(w) for w in v["low"]))
              for k, v in raw["quantity_levels"].items()}
    return _Opposites({k: frozenset(v) for k, v in pairs.items()}, tuple(raw["negative_prefixes"]),
                      frozenset(stem(w) for w in raw["not_prefixed"]), phrases,
                      frozenset(stem(w) for w in raw["levels"]["high"]),
                      frozenset(stem(w) for w in raw["levels"]["low"]), levels)


def _forms(word: str) -> set[str]:
    """The stems of a word's inflected forms: `stem` leaves "approve" whole but cuts "approved"
    to "approv", so a table word stands for every form a story may use."""
    base = word[:-1] if word.endswith("e") else word
    return {stem(w) for w in (word, word + "s", word + "d" if word.endswith("e") else word + "ed", base + "ing")}


@functools.lru_cache(maxsize=4096)  # a story's clauses are read once for each check of the chart
def _words(text: str) -> tuple[str, ...]:
    """``text``'s words in order, stemmed, function words kept (negation scope needs positions):
    "n't" becomes "not", and the table's phrases are rewritten first ("no longer" -> "not",
    "under age" -> "underage")."""
    text = text.lower().replace("n't", " not").replace("’", "'")
    for pattern, repl in _opposites().phrases:
        text = pattern.sub(repl, text)
    return tuple(stem(w) for w in _WORD.findall(text))


def opposes(word: str, other: str) -> bool:
    """Whether two stemmed words say opposite things: a pair of the table ("dry"/"wet"), or one
    is the other with a negative prefix ("invalid"/"valid", "unsigned"/"sign").

    >>> opposes(stem("missing"), stem("exists")), opposes(stem("invalid"), stem("valid"))
    (True, True)
    >>> opposes(stem("informs"), stem("form"))
    False
    """
    table = _opposites()
    if other in table.antonyms.get(word, ()):
        return True
    for a, b in ((word, other), (other, word)):
        if a in table.not_prefixed:
            continue
        for p in table.prefixes:
            if a.startswith(p) and a[len(p):] == b and len(b) >= (3 if p in ("un", "non") else 4):
                return True
    return False


def _negated_at(words: tuple[str, ...], i: int, skip: set[int]) -> bool:
    """Whether the word at ``i`` is under a negation: a negator before it in its clause ("did
    not fail", "is no longer wet"), not one of the words at ``skip`` (read as the check's words or
    opposites). A negation after the word is about something else ("the file is missing, not
    the folder" is not read; clauses are cut at "but"/"and")."""
    return any(words[j] in _NEGATORS for j in range(i) if j not in skip)


def _restated(decision: str, statement: str, *, opposites: bool = True) -> tuple[float, str | None, bool]:
    """How a statement restates a yes/no check, clause by clause: ``(share of the check's words
    its best clause says or opposes (``opposites``), the branch it reads, whether an opposite was
    read)``."""
    # function words with an opposite count too ("Is the light on?" / "the light is off")
    dtoks = set(tokens(decision)) | {w for w in _words(decision) if w in STOPWORDS and w in _opposites().antonyms}
    if not dtoks:
        return 0.0, None, False
    best: tuple[float, str, tuple[str, ...], dict[int, bool]] | None = None
    for clause in _CLAUSE.split(statement):
        words = _words(clause)
        said: set[str] = set()
        marks: dict[int, bool] = {}  # word position -> read as an opposite (else as the word itself)
        for i, w in enumerate(words):
            if w in dtoks:
                said.add(w)
                marks[i] = False
            elif opposites:
                opp = [d for d in dtoks if opposes(w, d)]
                if opp:
                    said.update(opp)
                    marks[i] = True
        # an opposite alone is about something else ("Mia, a busy parent" for "Is the venue
        # available?") unless the check has one word ("Adult?")
        direct = any(not o for o in marks.values())
        hit = len(said) / len(dtoks) if direct or len(dtoks) == 1 else 0.0
        if best is None or hit > best[0]:
            best = (hit, clause, words, marks)
    assert best is not None
    hit, clause, words, marks = best
    if hit == 0:
        return 0.0, None, False
    m = _EXPLICIT.search(clause)
    if m:
        return hit, ("yes" if m.group(1).lower() in ("yes", "true") else "no"), False
    decision_negated = bool(_NEGATION.search(decision))
    opposite = [i for i, o in marks.items() if o]
    # a word the check itself says ("Is 'max_val' None?") or one read as an opposite ("failed"
    # for "pass") negates nothing
    said_here = set(marks)
    if opposite:
        says_no = not _negated_at(words, opposite[0], said_here)
    else:
        says_no = any(w in _NEGATORS for i, w in enumerate(words) if i not in said_here)
    return hit, ("no" if says_no != decision_negated else "yes"), bool(opposite)


def _bound_spans(statement: str) -> list[tuple[Callable[[float, float], bool], float, set[str]]]:
    """Each number the statement gives with a comparison word ("more than 3,000", "under 18",
    "not above 600", "650 or more"): ``(comparison, number, the words of its clause and up to three
    after it)``."""
    flip: dict[Callable[[float, float], bool], Callable[[float, float], bool]] = {
        operator.gt: operator.le, operator.ge: operator.lt, operator.lt: operator.ge, operator.le: operator.gt}
    out = []
    for m in re.finditer(_NUM, statement):
        before = statement[max(0, m.start() - 60): m.start()]
        after = statement[m.end(): m.end() + 40]
        cmp: Callable[[float, float], bool] | None = None
        for phrase, op in _COMPARATORS:
            if phrase.startswith("equal"):
                continue
            found = re.search(rf"(?<![a-z])(?:{phrase})\s*[$€£]?\s*$", before, re.I)
            if found and not found.group(0).lower().startswith("or "):
                cmp, before = op, before[: found.start()]
                if re.search(r"\bnot\s*$", before, re.I):
                    cmp = flip[op]
                break
        if cmp is None:
            tail = re.match(r"\s*(?:[a-z%]+\s+)?or\s+(more|above|higher|over|less|below|lower|under|fewer)\b", after, re.I)
            if tail is None:
                continue
            cmp = operator.ge if tail.group(1).lower() in ("more", "above", "higher", "over") else operator.le
        words = set(tokens(_clause_tail(before))) | set(tokens(_words_after(statement, m.end())))
        out.append((cmp, _value(m.group(1)), words))
    return out


def _interval(cmp: Callable[[float, float], bool], v: float) -> tuple[float, bool, float, bool]:
    """The values ``x`` with ``cmp(x, v)``: ``(low, low included, high, high included)``."""
    inf = float("inf")
    spans: dict[Callable[[float, float], bool], tuple[float, bool, float, bool]] = {
        operator.gt: (v, False, inf, False), operator.ge: (v, True, inf, False),
        operator.lt: (-inf, False, v, False), operator.le: (-inf, False, v, True), operator.eq: (v, True, v, True)}
    return spans[cmp]


def _bound_branch(story: tuple[Callable[[float, float], bool], float],
                  check: tuple[Callable[[float, float], bool], float]) -> str | None:
    """``yes`` when every value the story allows passes the check, ``no`` when none does."""
    slo, slo_in, shi, shi_in = _interval(*story)
    clo, clo_in, chi, chi_in = _interval(*check)
    inside = (slo > clo or (slo == clo and (clo_in or not slo_in))) and (shi < chi or (shi == chi and (chi_in or not shi_in)))
    if inside:
        return "yes"
    apart = shi < clo or (shi == clo and not (shi_in and clo_in)) or slo > chi or (slo == chi and not (slo_in and chi_in))
    return "no" if apart else None


def _subject_words(subject: list[str]) -> set[str]:
    """The words a statement names a check's quantity by: not the "s" of "applicant's"."""
    return {t for t in subject if len(t) > 1} or set(subject)


def _own_levels(subject: list[str]) -> set[str]:
    """The level words of the quantity ``subject`` names itself ("young", "adult" for an age)."""
    table = _opposites()
    out: set[str] = set()
    for t in subject:
        if t in table.quantity_levels:
            out |= table.quantity_levels[t][0] | table.quantity_levels[t][1]
    return out


def _level_branch(subject: list[str], cmp: Callable[[float, float], bool], statement: str, *,
                  unnamed: bool) -> str | None:
    """The branch a level word for the check's quantity gives ("her score is low" against
    "above 600": no): a clause naming a word of the quantity with a general level word ("high",
    "few", "short"), or a level word of the quantity itself ("young" for an age, "acidic" for a
    pH; only with ``unnamed``, as weaker evidence, and said of something: "Mia is underage", not
    the verb of "warm up the filter"); a negation before the word turns it round. A
    clause with a number states a value, not a level. ``None`` without one, or when they
    disagree."""
    if cmp is operator.eq:
        return None
    table = _opposites()
    subj = _subject_words(subject)
    own = [table.quantity_levels[t] for t in sorted(subj) if t in table.quantity_levels]
    sides: set[bool] = set()
    for clause in _BOUNDARY.split(statement):
        words = _words(clause)
        named = bool(subj & set(words))
        if re.search(r"\d", clause) or named == unnamed:
            continue
        high = set().union(*(h for h, _ in own), table.high if named else ())
        low = set().union(*(lo for _, lo in own), table.low if named else ())
        for i, w in enumerate(words):
            if (w in high or w in low) and (named or _COPULAS & set(words[:i])):
                sides.add((w in high) != _negated_at(words, i, set()))
    if len(sides) != 1:
        return None
    says_high = sides.pop()
    return "yes" if says_high == (cmp in (operator.gt, operator.ge)) else "no"


def read_check(decision: str, statement: str, *, min_overlap: float = 0.5,
               lone_number: bool = True) -> tuple[str, str] | None:
    """The branch ``statement`` takes at ``decision`` and how it says so, reading opposites,
    negation scope, bounds and level words: ``(branch, how)`` with ``how`` one of ``value`` (a
    number for the quantity), ``bound`` ("more than 3,000"), ``level`` ("her score is low"),
    ``restated`` (the check's words, negated or not), ``opposite`` (an opposite word or prefix,
    "the file is missing"); ``None`` when it does not settle it. ``lone_number``: a statement's
    only number settles a numeric check whose quantity it does not name (`branch_taken`'s
    reading).

    >>> read_check("Does the file exist?", "It turns out the file is missing.")
    ('no', 'opposite')
    >>> read_check("Did the part pass inspection?", "The part did not fail inspection.")
    ('yes', 'opposite')
    >>> read_check("Is the credit score above 600?", "Her score is low.")
    ('no', 'level')
    >>> read_check("Is the monthly income at least 2,500?", "Ana earns more than $3,000 a month.")
    ('yes', 'bound')
    """
    thr = threshold(decision)
    if thr is not None:
        subject, cmp, value = thr
        subj = _subject_words(subject)
        named = [(len(subj & words), v) for v, words in _numbers(statement) if subj & words]
        if named:
            v = max(named, key=lambda x: x[0])[1]
            return ("yes" if cmp(v, value) else "no"), "value"
        # a bound's clause names the quantity by a word of it or by a level word of its own
        # ("just under 8 levels deep" for 'depth')
        own = _own_levels(subject)
        bounds = [(len(subj & words), c, b) for c, b, words in _bound_spans(statement) if (subj | own) & words]
        if bounds:
            _, c, b = max(bounds, key=lambda x: x[0])
            got = _bound_branch((c, b), (cmp, value))
            if got is not None:
                return got, "bound"
        # a level word naming the quantity says more than a lone number that names nothing
        # ("earns little each month" beside "has 7 kids at home")
        level = _level_branch(subject, cmp, statement, unnamed=False)
        if level is not None:
            return level, "level"
        if lone_number:
            nums = _numbers(statement)
            if len(nums) == 1:
                return ("yes" if cmp(nums[0][0], value) else "no"), "value"
        level = _level_branch(subject, cmp, statement, unnamed=True)
        if level is not None:
            return level, "level"
    # a numeric check's comparison word has opposites ("'i' is less than 'n'" against "Is 'n'
    # greater than 50?") that compare other things: its value, bound and level are read above
    hit, branch, opposite = _restated(decision, statement, opposites=thr is None)
    if branch is None or hit < min_overlap:
        return None
    return branch, "opposite" if opposite else "restated"


# -- checks written as code (eleventh stretch) ------------------------------------------------
# A program's chart writes its checks as code ("self._name_ is None?", "not caps?", "k < 0?",
# "data == TRUE[1:]?") and people tracing a run state the values ("k comes out as 4", "caps is
# not empty", "rmode is None", "data equals TRUE[1:]"). The word readers above read "caps is not
# empty" against "not caps?" as a restatement with a negation, the wrong way round. `code_branch`
# parses such a check with Python's ast (nothing is executed), collects what the statement says
# about each operand (its value, a comparison, empty / set / None, true / false of the whole
# condition) and evaluates the condition three-valued: it settles the check only when what is
# left open cannot change the outcome.
_CODE_HINT = re.compile(r"[_.(\[=!%<>]|\b(?:not|is|in|and|or|None|True|False)\b")
_CODE_VALUE = r"(-?\d+(?:\.\d+)?|'[^']*'|\"[^\"]*\"|None|True|False)"
_SAYS_VALUE = re.compile(rf"^\s*(?:=|==|is now|is still|is|equals|comes out as|comes to|comes in at|comes in as|becomes|holds|has the value|"
                         rf"reads|shows|stands at|sits at|is at|hits|reaches)\s+{_CODE_VALUE}(?![\w(\[]|\.\w)")
_SAYS_TRUTH = re.compile(r"^\s*(?:is|comes out|evaluates to|turns out)\s+(not empty|non-empty|empty|set(?! to\b)|unset|true|false|"
                         r"truthy|falsy|zero|not none|none|not set)\b|^\s*(has a value|has no value|holds|fails)\b", re.I)
_SAYS_ITEMS = re.compile(r"^\s*(?:has|holds|contains)\s+(\d+)\s+(?:items?|elements?|entries|characters?|values?)\b")
_SAYS_COMPARE: list[tuple[re.Pattern[str], type[ast.cmpop]]] = [
    (re.compile(r"^\s*(?:is greater than or equal to|is at least|>=)\s+"), ast.GtE),
    (re.compile(r"^\s*(?:is less than or equal to|is at most|<=)\s+"), ast.LtE),
    (re.compile(r"^\s*(?:is greater than|is more than|is above|exceeds|>)\s+"), ast.Gt),
    (re.compile(r"^\s*(?:is less than|is below|is under|<)\s+"), ast.Lt),
    (re.compile(r"^\s*(?:does not equal|doesn't equal|is not equal to|!=|is different from)\s+"), ast.NotEq),
    (re.compile(r"^\s*(?:equals|is equal to|==|=)\s+"), ast.Eq),
    (re.compile(r"^\s*(?:is not in|isn't in)\s+"), ast.NotIn),
    (re.compile(r"^\s*(?:is in|is found in|appears in)\s+"), ast.In),
    (re.compile(r"^\s*(?:is not an instance of|is not of type)\s+"), ast.IsNot),   # an LLM's words (codeword12)
    (re.compile(r"^\s*(?:is an instance of|is of type)\s+"), ast.Is),
    (re.compile(r"^\s*(?:is not an?|isn't an?)\s+"), ast.IsNot),   # isinstance, read below
    (re.compile(r"^\s*(?:is an?)\s+"), ast.Is),
]
# sign words: "x is negative" says x < 0
_SAYS_SIGN = re.compile(r"^\s*is (negative|positive|non-negative|nonnegative)\b")
_SIGN_CMP = {"negative": ast.Lt, "positive": ast.Gt, "non-negative": ast.GtE, "nonnegative": ast.GtE}
_FALSY = frozenset({"empty", "unset", "false", "falsy", "zero", "none", "not set", "has no value", "fails"})
_UNKNOWN = object()


# a check written in words around a program's names ("Is i less than n?", "Does c equal ';'?",
# "Is items empty?", "Is key not None?"): the same condition as code
_WORDED_CHECK: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^is (\S+) (?:less than or equal to|at most) (.+)$", re.I), "{0} <= {1}"),
    (re.compile(r"^is (\S+) (?:greater than or equal to|at least) (.+)$", re.I), "{0} >= {1}"),
    (re.compile(r"^is (\S+) (?:less than|smaller than|below) (.+)$", re.I), "{0} < {1}"),
    (re.compile(r"^is (\S+) (?:greater than|more than|larger than|above) (.+)$", re.I), "{0} > {1}"),
    (re.compile(r"^(?:is (\S+) not equal to|does (\S+) not equal) (.+)$", re.I), "{0} != {1}"),
    (re.compile(r"^(?:is (\S+) equal to|does (\S+) equal) (.+)$", re.I), "{0} == {1}"),
    (re.compile(r"^is (\S+) not none$", re.I), "{0} is not None"),
    (re.compile(r"^is (\S+) none$", re.I), "{0} is None"),
    (re.compile(r"^is (\S+) (?:empty|unset)$", re.I), "not {0}"),
    (re.compile(r"^is (\S+) (?:not empty|non-empty|set)$", re.I), "{0}"),
    (re.compile(r"^is (\S+) not in (.+)$", re.I), "{0} not in {1}"),
    (re.compile(r"^is (\S+) in (.+)$", re.I), "{0} in {1}"),
    (re.compile(r"^is (\S+) not an? (\w+)$", re.I), "not isinstance({0}, {1})"),
    (re.compile(r"^is (\S+) an? (\w+)$", re.I), "isinstance({0}, {1})"),
]


def _worded_as_code(text: str) -> str | None:
    """``text`` (a check without its "?") rewritten as code when it is one of `_WORDED_CHECK`'s
    forms around names that parse as code ("Is i less than n" -> "i < n"), else ``None``."""
    for pattern, form in _WORDED_CHECK:
        m = pattern.match(text)
        if m:
            parts = [g for g in m.groups() if g is not None]
            # a program's name must be in it ("self._alive", "nums[i]", "i"), or the check asks
            # for None: "Is age above 18?" and "Is 'count' equal to zero?" (a word chart's quoted
            # name, scen10) stay checks in words
            code_like = [p for p in parts if re.search(r"[_.(\[\]]", p) or (len(p) <= 2 and p.isalpha())]
            if not code_like and "None" not in form:
                return None
            code = form.format(*parts)
            try:
                ast.parse(code, mode="eval")
            except (SyntaxError, ValueError):
                return None
            return code
    return None


# -- program checks as an LLM words them (2026-11-25, twelfth stretch, codeword12) -------------
#: whether the readers below take an LLM's wordings of code (`OfflineReasoner.code_words` sets it
#: per question; False reads code as the eleventh stretch did)
READ_LLM_WORDS: contextvars.ContextVar[bool] = contextvars.ContextVar("READ_LLM_WORDS", default=True)

# FlowVQA's code charts were drawn by an LLM from a program: a check reads "Is the length of
# payload greater than the max payload len?", "Does obj have the attribute '__func__'?", "Is it
# true that '01' does not contain dig?", "Is value an instance of list?", "Does tb have no
# value?"; a variable goes by its name in words ("the max payload len" for
# ``self._max_payload_len``). `llm_worded_as_code` rewrites such a check as code, and the
# statement readers match a name in words or in code ("the tunnel host" / ``self._tunnel_host``).
# Chosen on generated QA (``python -m data_gen.qa --style codeword``, codeword12_val).
_NAME_PHRASE = r"(?:the [a-z][a-z0-9]*(?: [a-z][a-z0-9]*){0,3}|[^\s?]+(?: [%*+/-] [^\s?]+)?)"
_EMPTY_VALUES = {"an empty string": "''", "an empty list": "[]", "an empty dictionary": "{}", "an empty set": "set()"}
#: "is" predicates: (words after the subject, code with {s} the subject and {o} the object)
_LLM_IS: list[tuple[str, str]] = [
    (r"not the same as|different from|not equal to", "{s} != {o}"),
    (r"the same as|equal to", "{s} == {o}"),
    (r"less than or equal to|at most|no more than|not greater than|not more than|not above", "{s} <= {o}"),
    (r"greater than or equal to|at least|no less than|not less than|not below", "{s} >= {o}"),
    (r"less than|smaller than|below|under", "{s} < {o}"),
    (r"greater than|more than|larger than|bigger than|above", "{s} > {o}"),
    (r"not an instance of|not of type|not an?", "not isinstance({s}, {o})"),
    (r"an instance of|of type|an?", "isinstance({s}, {o})"),
    (r"not in", "{s} not in {o}"),
    (r"in", "{s} in {o}"),
    (r"not divisible by", "{s} % {o} != 0"),
    (r"divisible by", "{s} % {o} == 0"),
]
#: "is" states without an object
_LLM_IS_STATE: list[tuple[str, str]] = [
    (r"not none", "{s} is not None"), (r"none", "{s} is None"),
    (r"empty|not set|unset", "not {s}"), (r"not empty|non-empty|set", "{s}"),
    (r"even", "{s} % 2 == 0"), (r"odd", "{s} % 2 != 0"), (r"true", "{s}"), (r"false", "not {s}"),
]
#: verb predicates: (question form after "Does S", clause form after "S", code)
_LLM_VERB: list[tuple[str, str, str]] = [
    (r"have no value", r"has no value", "{s} is None"),
    (r"have a value", r"has a value", "{s}"),
    (r"not have the attribute", r"does not have the attribute", "not hasattr({s}, {o})"),
    (r"have the attribute", r"has the attribute", "hasattr({s}, {o})"),
    (r"not contain", r"does not contain", "{o} not in {s}"),
    (r"contain", r"contains", "{o} in {s}"),
    (r"not start with", r"does not start with", "not {s}.startswith({o})"),
    (r"start with", r"starts with", "{s}.startswith({o})"),
    (r"not end with", r"does not end with", "not {s}.endswith({o})"),
    (r"end with", r"ends with", "{s}.endswith({o})"),
    (r"not equal", r"does not equal", "{s} != {o}"),
    (r"equal", r"equals", "{s} == {o}"),
]
#: forms that ask about None, a type or an attribute: code even around names in words
_TYPED_FORMS = ("None", "isinstance", "hasattr", "startswith", "endswith")


def code_name_words(name: str) -> str:
    """A program's name as words: ``self._line_buffer`` -> "line buffer", ``curIndex`` ->
    "cur index" (how an LLM says a variable: "the line buffer")."""
    base = name.split(".")[-1].strip("_")
    base = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", base)
    return base.replace("_", " ").lower() or name


def _llm_operand(text: str, loose: bool = False) -> tuple[str, bool] | None:
    """An operand of a worded check as code, and whether it looks like code by itself:
    "the length of payload" -> ("len(payload)", True), "the max payload len" ->
    ("max_payload_len", False), "zero" -> ("0", False), "obj.x" -> ("obj.x", True)."""
    t = text.strip()
    m = re.fullmatch(r"the length of (.+)", t)
    if m:
        inner = _llm_operand(m.group(1), loose)
        return (f"len({inner[0]})", True) if inner else None
    m = re.fullmatch(r"the item of (.+?) at (\S+)", t)
    if m:
        inner = _llm_operand(m.group(1), loose)
        return (f"{inner[0]}[{m.group(2)}]", True) if inner else None
    if t.lower() in CARDINAL_WORDS:
        return CARDINAL_WORDS[t.lower()], False
    if t in _EMPTY_VALUES:
        return _EMPTY_VALUES[t], False
    m = re.fullmatch(r"the ([a-z][a-z0-9]*(?: [a-z][a-z0-9]*){0,3})", t)
    if m:
        return m.group(1).replace(" ", "_"), loose
    try:
        ast.parse(t, mode="eval")
    except (SyntaxError, ValueError):
        return None
    # on a program chart (``loose``) a lower-case name is a variable: "Is start smaller than end?"
    return t, bool(re.search(r"[_.(\[\]'\"]| (?:%|//) ", t) or (len(t) <= 2 and t.isalpha())
                   or (loose and re.fullmatch(r"[a-z][a-z0-9]*", t)))


def _llm_predicate(subject: str, code: str, obj: str | None, loose: bool = False) -> tuple[str, bool] | None:
    """``code`` filled with the subject and object as code, and whether any part looks like code
    (or the form asks about None, a type or an attribute)."""
    s = _llm_operand(subject, loose)
    o = _llm_operand(obj, loose) if obj is not None else ("", False)
    if s is None or o is None:
        return None
    expr = code.format(s=s[0], o=o[0])
    return expr, s[1] or o[1] or any(f in expr for f in _TYPED_FORMS)


def _llm_clause(text: str, loose: bool = False) -> tuple[str, bool] | None:
    """One condition worded by an LLM ("Is S P", "Does S V", "S is P", "S V O"), as code."""
    for lead, clause in ((r"is ({n}) ", r"({n}) is "), ):
        for words, code in _LLM_IS:
            for pattern in (lead + rf"(?:{words}) (.+)", clause + rf"(?:{words}) (.+)"):
                m = re.fullmatch(pattern.format(n=_NAME_PHRASE), text, re.I)
                if m:
                    return _llm_predicate(m.group(1), code, m.group(2), loose)
        for words, code in _LLM_IS_STATE:
            for pattern in (lead + rf"(?:{words})", clause + rf"(?:{words})"):
                m = re.fullmatch(pattern.format(n=_NAME_PHRASE), text, re.I)
                if m:
                    return _llm_predicate(m.group(1), code, None, loose)
    for asked, said, code in _LLM_VERB:
        for pattern in (rf"does ({_NAME_PHRASE}) {asked}(?: (.+))?", rf"({_NAME_PHRASE}) {said}(?: (.+))?"):
            m = re.fullmatch(pattern, text, re.I)
            if m and (m.group(2) is None) == ("{o}" not in code):
                return _llm_predicate(m.group(1), code, m.group(2), loose)
    return None


@functools.lru_cache(maxsize=4096)
def llm_worded_as_code(text: str, loose: bool = False) -> str | None:
    """A check as an LLM words a program's condition, rewritten as code ("Is the length of
    payload greater than the max payload len" -> "len(payload) > max_payload_len", "Is it true
    that '01' does not contain dig" -> "dig not in '01'", "Does tb have no value" -> "tb is
    None"); two such conditions joined by "and" / "or" too. ``None`` unless some part looks like
    code or the form asks about None, a type or an attribute ("Is the score above 600?" and
    "Does the list contain eggs?" stay checks in words). ``loose`` (a program chart,
    `flowpath.reason.kinds.is_program_chart`): a lower-case word or a name in words ("the
    backup count") is a variable.

    >>> llm_worded_as_code("Is the length of payload greater than the max payload len")
    'len(payload) > max_payload_len'
    >>> llm_worded_as_code("Is value an instance of list")
    'isinstance(value, list)'
    >>> llm_worded_as_code("Is the score above 600") is None
    True
    """
    t = re.sub(r"^(?:is it (?:still )?true that|check if|check whether|while)\s+", "", text.strip().rstrip("?").strip(), flags=re.I)
    t = re.sub(r"\s+still true$", "", t, flags=re.I)
    if re.match(r"[A-Z][a-z0-9_]*[ .]", t) and not re.match(r"(?:is|does)\s", t, re.I):
        t = t[0].lower() + t[1:]  # "Key has a value and ...": a clause opening a box starts upper-case
    whole = _llm_clause(t, loose)
    if whole is None:
        for joint in (" and ", " or "):
            if joint in t:
                left, right = t.split(joint, 1)
                a, b = _llm_clause(left, loose), _llm_clause(right, loose)
                if a and b:
                    whole = (f"({a[0]}){joint}({b[0]})", a[1] or b[1])
                break
    if whole is None or not whole[1]:
        return None
    try:
        ast.parse(whole[0], mode="eval")
    except (SyntaxError, ValueError):
        return None
    return whole[0]


def _name_aliases(src: str) -> str:
    """A regex for the ways a statement names the operand written ``src``: the code itself, and
    for a variable or attribute its name with or without ``self.`` / leading underscores and its
    words after "the" ("the max payload len" for ``self._max_payload_len``); "the length of X"
    for ``len(X)``."""
    exact = rf"(?<![\w.\[]){re.escape(src)}(?![\w(\[])"
    m = re.fullmatch(r"(?:self\.)?_*([A-Za-z][A-Za-z0-9_]*)", src)
    if m:
        base = m.group(1)
        words = code_name_words(base).split()
        # backup_count, backupCount, self._backup_count
        joined = "_?".join(re.escape(w) for w in words)
        forms = [exact, rf"(?<![\w.\[])(?:self\.)?_*(?i:{joined})(?![\w(\[])"]
        if len(base) > 2:
            forms.append(rf"\bthe {re.escape(' '.join(words))}\b")
        return "|".join(forms)
    m = re.fullmatch(r"len\((.+)\)", src)
    if m:
        return f"{exact}|\\bthe length of (?:{_name_aliases(m.group(1))})"
    return exact


def same_operand(said: str, src: str) -> bool:
    """Whether ``said`` (an operand as a statement words it: "the length of self.field", "the
    inf") names the operand written ``src`` (``len(self.field)``, ``_inf``)."""
    said = said.strip()
    if said == src:
        return True
    if not READ_LLM_WORDS.get():
        return False
    as_code = _llm_operand(said)
    return re.fullmatch(_name_aliases(src), said) is not None or (as_code is not None and as_code[0] == src)


_ERROR_CHECK = re.compile(r"^\s*(?:did an? ([\w.]+) occur|was an? ([\w.]+) raised|([\w.]+) raised|did an error occur"
                          r"|did the attempt fail|exception raised|did an exception occur)\s*\??\s*$", re.I)


def error_check(decision: str) -> str | None:
    """The exception a try/except drawn as a check asks about ("Did a KeyError occur?",
    "ValueError raised?"), "error" for "Did an error occur?", else ``None``."""
    m = _ERROR_CHECK.match(decision)
    if not m:
        return None
    return next((g for g in m.groups() if g), "error")


def _error_branch(exc: str, statement: str) -> str | None:
    """The branch a statement takes at a check on an exception: "a KeyError occurs / is raised"
    (yes), "no KeyError occurs", "everything succeeds without an error" (no)."""
    name = r"(?:an? )?(?:error|exception)" if exc == "error" else rf"(?:an? )?{re.escape(exc)}(?: error| exception)?"
    if re.search(rf"\bno {name.replace('(?:an? )?', '')}\b|\bwithout (?:an? )?(?:error|exception)\b|\bsucceeds\b",
                 statement, re.I):
        return "no"
    if re.search(rf"\b{name} (?:occurs|occurred|is raised|was raised|is thrown|happens)\b|\bfails\b", statement, re.I):
        return "yes"
    return None


def code_condition(decision: str, program: bool = False) -> ast.expr | None:
    """The condition of a check written as code ("i < n?", "Is self._name_ is None?", "not mo?"),
    parsed by Python's ast (memoised: every rule asks it of every check; the tree is not
    changed by its readers); ``None`` for a check in words ("Is the glue dry?" does not parse,
    "Approved?" is a capitalised word) or one with nothing code-like in it. ``program``: the
    check is on a program chart, where an LLM's words around plain names are code too
    (`llm_worded_as_code`'s ``loose``).

    >>> ast.unparse(code_condition("Is x % 2 == 0?"))
    'x % 2 == 0'
    >>> code_condition("Is the glue dry?") is None
    True
    >>> ast.unparse(code_condition("Is i less than n?"))
    'i < n'
    >>> code_condition("Is the score above 600?") is None
    True
    >>> code_condition("Is 'x' in 'seen'?") is None
    True
    """
    return _code_condition(decision, program, READ_LLM_WORDS.get())


@functools.lru_cache(maxsize=4096)
def _code_condition(decision: str, program: bool, llm: bool) -> ast.expr | None:
    text = decision.strip().rstrip("?").strip()
    worded = _worded_as_code(text) or (llm_worded_as_code(text, program) if llm else None)
    for candidate in (text, re.sub(r"^(?:is|if|while|check)\s+", "", text, flags=re.I), *([worded] if worded else [])):
        try:
            expr = ast.parse(candidate, mode="eval").body
        except (SyntaxError, ValueError):
            continue
        if isinstance(expr, ast.Name):
            return expr if expr.id.islower() or "_" in expr.id else None
        # a variable to give a value to: "Is 'x' in 'seen'?" compares two quoted words
        if _CODE_HINT.search(candidate) and any(isinstance(n, ast.Name) for n in ast.walk(expr)):
            return expr
    return None


# what a story says of an operand in an LLM's words (codeword12): "args holds 15, 19 and 10"
# (three items), "holds only one item", "is the same as", "is larger than", "is no less than",
# "contains", "has the attribute", "starts with"
_LISTED = re.compile(r"^\s*(?:holds|contains|has)\s+(-?\d+(?:\.\d+)?(?:\s*,\s*-?\d+(?:\.\d+)?)*\s*,?\s+and\s+-?\d+(?:\.\d+)?)"
                     r"|^\s*(?:holds|contains|has)\s+(?:only |just )?(one|a single) (?:item|element|value|entry)\b")
_LLM_SAYS: list[tuple[re.Pattern[str], str, Any]] = [
    (re.compile(r"^\s*is not the same as\s+"), "cmp", ast.NotEq),
    (re.compile(r"^\s*is the same as\s+"), "cmp", ast.Eq),
    (re.compile(r"^\s*(?:is no less than|is not less than|is not below|is not smaller than)\s+"), "cmp", ast.GtE),
    (re.compile(r"^\s*(?:is no more than|is not greater than|is not more than|is not above|is not larger than)\s+"),
     "cmp", ast.LtE),
    (re.compile(r"^\s*(?:is larger than|is bigger than)\s+"), "cmp", ast.Gt),
    (re.compile(r"^\s*is smaller than\s+"), "cmp", ast.Lt),
    (re.compile(r"^\s*(?:does not contain|doesn't contain)\s+"), "contains", False),
    (re.compile(r"^\s*contains\s+"), "contains", True),
    (re.compile(r"^\s*(?:does not have|doesn't have|lacks) the attribute\s+"), "attr", False),
    (re.compile(r"^\s*has the attribute\s+"), "attr", True),
    (re.compile(r"^\s*(?:does not start|doesn't start) with\s+"), "startswith", False),
    (re.compile(r"^\s*starts with\s+"), "startswith", True),
    (re.compile(r"^\s*(?:does not end|doesn't end) with\s+"), "endswith", False),
    (re.compile(r"^\s*ends with\s+"), "endswith", True),
]


def _listed_items(rest: str) -> int | None:
    """How many items a story lists for a sequence: "holds 15, 19 and 10" -> 3, "holds only
    one item" -> 1; ``None`` when it lists none."""
    m = _LISTED.match(rest)
    if not m:
        return None
    return 1 if m.group(2) else len(re.findall(r"-?\d+(?:\.\d+)?", m.group(1)))


def _said_object(rest: str) -> str:
    """The object of a relation a story states, up to the clause's end."""
    other = re.split(r"[,;]\s|\.\s|\.$|\s+(?:and|but|while|so)\s+", rest, maxsplit=1)[0].strip()
    return other.rstrip(".?!")


def _says_relation(rest: str) -> tuple[str, Any] | None:
    """A relation an LLM's story states of an operand (`_LLM_SAYS`): ``("cmp", (op, other))``,
    ``("contains" | "attr" | "startswith" | "endswith", (holds, other))``."""
    for pattern, kind, what in _LLM_SAYS:
        m = pattern.match(rest)
        if m:
            other = _said_object(rest[m.end():])
            return (kind, (what, other)) if kind == "cmp" else (kind, (what, other))
    return None


def _relation_truth(kind: str, owner: ast.expr, other: ast.expr, statement: str) -> Any:
    """Truth of ``other in owner`` (``contains``), ``hasattr(owner, other)`` (``attr``),
    ``owner.startswith(other)`` / ``endswith`` from a relation the statement states of
    ``owner`` ("'01' contains dig", "obj has the attribute '__func__'"); `_UNKNOWN` else."""
    want = ast.unparse(other)
    for k, fact in _operand_facts(ast.unparse(owner), statement):
        if k == kind and same_operand(fact[1], want):
            return fact[0]
    return _UNKNOWN


def _operand_facts(src: str, statement: str) -> list[tuple[str, Any]]:
    """What ``statement`` says about the operand written ``src``: ``("value", v)``,
    ``("truth", bool)``, ``("len", n)`` or ``("cmp", (op, other source))``, for each place it is
    named (as a whole word: "i" is not found in "if")."""
    out: list[tuple[str, Any]] = []
    llm = READ_LLM_WORDS.get()
    named = _name_aliases(src) if llm else rf"(?<![\w.\[]){re.escape(src)}(?![\w(\[])"
    for m in re.finditer(named, statement):
        rest = statement[m.end():]
        listed = _listed_items(rest) if llm else None  # before a value: "holds 15, 19 and 10" lists three
        if listed is not None:
            out.append(("len", listed))
            continue
        v = _SAYS_VALUE.match(rest)
        if v:
            out.append(("value", ast.literal_eval(v.group(1))))
            continue
        t = _SAYS_TRUTH.match(rest)
        if t:
            word = (t.group(1) or t.group(2)).lower()
            if word == "none" or (word == "has no value" and llm):  # "x has no value": an LLM's None (codeword12)
                out.append(("value", None))
            elif word in ("not none",):
                out.append(("cmp", (ast.IsNot, "None")))
            else:
                out.append(("truth", word not in _FALSY))
            continue
        sign = _SAYS_SIGN.match(rest)
        if sign:
            out.append(("cmp", (_SIGN_CMP[sign.group(1)], "0")))
            continue
        n = _SAYS_ITEMS.match(rest)
        if n:
            out.append(("len", int(n.group(1))))
            continue
        said = _says_relation(rest) if llm else None
        if said is not None:
            out.append(said)
            continue
        for pattern, op in _SAYS_COMPARE:
            c = pattern.match(rest)
            if c:
                other = re.split(r"[,;]\s|\.\s|\.$|\s+(?:and|but|while|so)\s+", rest[c.end():], maxsplit=1)[0].strip()
                out.append(("cmp", (op, other.rstrip(".?!"))))
                break
    return out


#: a code comparison's operator node -> the comparison it makes
_AST_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Eq: operator.eq,
    ast.NotEq: operator.ne, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda x, y: x in y, ast.NotIn: lambda x, y: x not in y}


def _compare_known(op: type[ast.cmpop], a: Any, b: Any) -> Any:
    try:
        return _AST_COMPARE[op](a, b)
    except (KeyError, TypeError):
        return _UNKNOWN


def _implied(said: type[ast.cmpop], asked: type[ast.cmpop]) -> bool | None:
    """Whether ``x said y`` makes ``x asked y`` true (True), false (False) or leaves it open, for
    the same two operands: read off small integers (x - y in -2..2)."""
    order = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)
    if said in (ast.In, ast.NotIn) or asked in (ast.In, ast.NotIn):
        if said in (ast.In, ast.NotIn) and asked in (ast.In, ast.NotIn):
            return said is asked
        return None
    if said not in order or asked not in order:
        return None
    outcomes = {_compare_known(asked, d, 0) for d in range(-2, 3) if _compare_known(said, d, 0)}
    return outcomes.pop() if len(outcomes) == 1 else None


def _code_truth(expr: ast.expr, statement: str, whole: bool = True) -> Any:
    """Three-valued truth of ``expr`` given what ``statement`` says: True, False or `_UNKNOWN`."""
    src = ast.unparse(expr)
    if whole:
        for kind, fact in _operand_facts(src, statement):
            if kind == "truth":
                return fact
    if isinstance(expr, ast.BoolOp):
        parts = [_code_truth(v, statement) for v in expr.values]
        stop = isinstance(expr.op, ast.Or)  # an or is settled by one true part, an and by one false
        if any(p is stop for p in parts):
            return stop
        return (not stop) if all(p is (not stop) for p in parts) else _UNKNOWN
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        inner = _code_truth(expr.operand, statement)
        return _UNKNOWN if inner is _UNKNOWN else not inner
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1:
        return _compare_truth(expr.left, type(expr.ops[0]), expr.comparators[0], statement)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "isinstance" \
            and len(expr.args) == 2:
        kind = ast.unparse(expr.args[1])
        for k, fact in _operand_facts(ast.unparse(expr.args[0]), statement):
            if k == "cmp" and fact[0] in (ast.Is, ast.IsNot) and fact[1] == kind:
                return fact[0] is ast.Is
        return _UNKNOWN
    llm = READ_LLM_WORDS.get()
    if llm and isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "hasattr" \
            and len(expr.args) == 2:
        return _relation_truth("attr", expr.args[0], expr.args[1], statement)
    if llm and isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
            and expr.func.attr in ("startswith", "endswith") and len(expr.args) == 1:
        return _relation_truth(expr.func.attr, expr.func.value, expr.args[0], statement)
    value = _code_value(expr, statement)
    if value is not _UNKNOWN:
        return bool(value)
    if llm and isinstance(expr, (ast.Name, ast.Attribute)) and _stated_not_none(src, statement):
        return True
    return _UNKNOWN


def _stated_not_none(src: str, statement: str) -> bool:
    """"x is not None" said of a name asked about as "Does x have a value?" (``x``): an LLM's
    words for a value that is there (codeword12)."""
    return any(kind == "cmp" and fact == (ast.IsNot, "None") for kind, fact in _operand_facts(src, statement))


_ARITHMETIC: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Mod: operator.mod,
    ast.FloorDiv: operator.floordiv}


def _code_value(expr: ast.expr, statement: str) -> Any:
    """The value ``statement`` gives the operand ``expr`` (a constant stays itself; ``x % 2``
    is worked out from x's value)."""
    if isinstance(expr, ast.Constant):
        return expr.value
    if isinstance(expr, ast.BinOp) and type(expr.op) in _ARITHMETIC:
        a, b = _code_value(expr.left, statement), _code_value(expr.right, statement)
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not (b == 0 and type(expr.op) in (
                ast.Mod, ast.FloorDiv)):
            return _ARITHMETIC[type(expr.op)](a, b)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub) and isinstance(expr.operand, ast.Constant):
        return -expr.operand.value if isinstance(expr.operand.value, (int, float)) else _UNKNOWN
    src = ast.unparse(expr)
    facts = _operand_facts(src, statement)
    for kind, fact in facts:
        if kind == "value":
            return fact
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "len" and len(expr.args) == 1:
        for kind, fact in _operand_facts(ast.unparse(expr.args[0]), statement):
            if kind == "len":
                return fact
            if kind == "truth" and not fact:
                return 0
    for kind, fact in facts:
        if kind == "truth" and not fact and isinstance(expr, (ast.Name, ast.Attribute, ast.Subscript)):
            return _UNKNOWN
    return _UNKNOWN


def _compare_truth(left: ast.expr, op: type[ast.cmpop], right: ast.expr, statement: str) -> Any:
    a, b = _code_value(left, statement), _code_value(right, statement)
    if a is not _UNKNOWN and b is not _UNKNOWN:
        return _compare_known(op, a, b)
    lsrc, rsrc = ast.unparse(left), ast.unparse(right)
    if op in (ast.Is, ast.IsNot) and rsrc == "None":
        for kind, fact in _operand_facts(lsrc, statement):
            if kind == "cmp" and fact[0] in (ast.Is, ast.IsNot) and fact[1] == "None":
                return fact[0] is op
            if kind == "truth" and fact:  # "x is set", "x has a value"
                return op is ast.IsNot
    if isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len" \
            and isinstance(right, ast.Constant) and right.value == 0 and op in (ast.Eq, ast.Gt, ast.NotEq):
        for kind, fact in _operand_facts(ast.unparse(left.args[0]), statement):
            if kind == "truth":
                return (not fact) if op is ast.Eq else fact
    if op in (ast.In, ast.NotIn) and READ_LLM_WORDS.get():  # "'01' contains dig"
        inside = _relation_truth("contains", right, left, statement)
        if isinstance(inside, bool):
            return inside == (op is ast.In)
    # a comparison the statement states between the same two operands ("i is less than n")
    for kind, fact in _operand_facts(lsrc, statement):
        if kind == "cmp" and same_operand(fact[1], rsrc):
            got = _implied(fact[0], op)
            if got is not None:
                return got
        if kind == "cmp" and fact[0] in (ast.Eq, ast.NotEq) and same_operand(fact[1], rsrc) and op in (ast.Eq, ast.NotEq):
            return (fact[0] is op)
    if op in (ast.Eq, ast.NotEq) and a is not _UNKNOWN and isinstance(right, ast.Name | ast.Attribute) \
            and rsrc.isupper():
        return _UNKNOWN
    return _UNKNOWN


# a loop over a sequence drawn as a check: "More items in lines?", "Next x in xs?", "For each x in
# xs", "Any more items in xs?"; a story says it goes on ("there is still another line left in
# lines", "lines still has items to visit") or is over ("every line in lines has been visited",
# "the loop has run out of items in lines")
_LOOP_CHECK = re.compile(r"^\s*(?:(?:any\s+)?more\s+(?:items|elements|entries)\s+in|next\s+\S+\s+in|for\s+each\s+\S+\s+in"
                         r"|for\s+\S+\s+in)\s+(.+?)\s*\??\s*$", re.I)
# an LLM's loops (codeword12): "Loop through each x in xs", "Iterate over xs", "Are there more
# items in xs?", "For each (a, b) in xs"
_LLM_LOOP_CHECK = re.compile(r"^\s*(?:loop\s+(?:through|over)\s+each\s+(?:\([^)]*\)|\S+)\s+in|iterate\s+(?:over|through)"
                             r"|are\s+there\s+(?:any\s+)?more\s+\S+\s+in"
                             r"|(?:for\s+each|next)\s+\([^)]*\)\s+in)\s+(.+?)\s*\??\s*$", re.I)
_LOOP_GOES_ON = re.compile(r"\b(?:still|another|more|remaining|left to|next one|not (?:yet )?(?:done|finished|empty|exhausted))\b",
                           re.I)
_LOOP_IS_OVER = re.compile(r"\b(?:every|all|run out|ran out|no (?:more |items |elements )?(?:items|elements|left)|"
                           r"exhausted|finished|done|over|empty|nothing left)\b", re.I)


def loop_sequence(decision: str) -> str | None:
    """The sequence a loop check drawn as a question walks ("lines" for "More items in lines?",
    "For each x in xs"), else ``None``."""
    m = _LOOP_CHECK.match(decision) or (_LLM_LOOP_CHECK.match(decision) if READ_LLM_WORDS.get() else None)
    return m.group(1).strip() if m else None


def _loop_branch(seq: str, statement: str) -> str | None:
    """The branch a statement takes at a loop over ``seq``: a clause naming the sequence
    verbatim that says the loop goes on (``yes``) or is over (``no``)."""
    for clause in re.split(r"(?<=[.!?;])\s+", statement):
        named = _name_aliases(seq) if READ_LLM_WORDS.get() else rf"(?<![\w.\[]){re.escape(seq)}(?![\w(\[])"
        if re.search(named, clause) is None:
            continue
        over, on = _LOOP_IS_OVER.search(clause), _LOOP_GOES_ON.search(clause)
        if over and not on:
            return "no"
        if on and not over:
            return "yes"
    return None


def code_branch(decision: str, statement: str, program: bool = False) -> str | None:
    """``"yes"`` / ``"no"`` when ``statement`` settles the check written as code ``decision`` by
    the values or states it gives its operands, else ``None`` (a check in words, or a variable
    named without a value: "what is x set to?" settles nothing).

    >>> code_branch("Is k < 0?", "This time k comes out as 4.")
    'no'
    >>> code_branch("not caps?", "Here caps is not empty.")
    'no'
    >>> code_branch("self._name_ is None?", "Then self._name_ is None.")
    'yes'
    >>> code_branch("val == FILTER_SKIP?", "When it gets there, val equals FILTER_SKIP.")
    'yes'
    >>> code_branch("i < n?", "What is i set to?") is None
    True
    >>> code_branch("More items in self.filters?", "At that point every f in self.filters has been visited.")
    'no'

    """
    exc = error_check(decision) if READ_LLM_WORDS.get() else None
    if exc is not None:
        return _error_branch(exc, statement)
    expr = code_condition(decision, program)
    if expr is None:
        seq = loop_sequence(decision)
        return _loop_branch(seq, statement) if seq else None
    got = _code_truth(expr, statement)
    if got is _UNKNOWN or not isinstance(got, bool):
        return None
    return "yes" if got else "no"


# how a statement names a program's step in words: "x is set to 0" for "x = 0", "the counter i
# is incremented" for "i += 1", "foo is called" for "foo(a)", "returns x" for "Return x", "a, b
# are read in" for "Input a, b" (the reading of a code node that `code_step_named` checks)
_STEP_VERBS = re.compile(r"^(?:set|initiali[sz]e|call|return|print|display|input|read|get|raise)\s+", re.I)


def code_step_named(text: str, statement: str) -> bool:
    """Whether ``statement`` names the program step written ``text`` the way people read code
    aloud: both sides of an assignment verbatim ("nlines is set to rawdata.count(...)" for
    "nlines = rawdata.count(...)"), an update of a variable with its verb ("self._io_refs is
    decremented" for "self._io_refs -= 1"), a call by its function ("self.fill is called" for
    "self.fill()"), a return by its value, the inputs read in. A step in words names nothing.

    >>> code_step_named("i = i + 1", "After the counter i is incremented, what is checked next?")
    True
    >>> code_step_named("x = 0", "What happens after y is set to 0?")
    False
    """
    def has(piece: str) -> bool:
        return bool(piece) and re.search(rf"(?<![\w.\[]){re.escape(piece)}(?![\w(\[])", statement) is not None

    t = text.strip()
    verb = _STEP_VERBS.match(t)
    lowered = t.lower()
    if verb and verb.group(0).strip().lower() in ("input", "read", "get"):
        names = [n.strip() for n in t[verb.end():].split(",") if n.strip()]
        return bool(names) and all(has(n) for n in names) and re.search(r"\b(?:read|given|passed|taken) in\b|\bread\b", statement) is not None
    if lowered.startswith(("print", "display")):
        value = t.split(None, 1)[1] if " " in t else ""
        return re.search(r"\b(?:prints?|printed|displays?|displayed|outputs?)\b", statement, re.I) is not None \
            and (not value or has(value))
    if lowered.startswith(("return", "raise")):
        value = t.split(None, 1)[1] if " " in t else ""
        verb_word = "return" if lowered.startswith("return") else "raise"
        return re.search(rf"\b{verb_word}s?\b", statement, re.I) is not None and (not value or has(value))
    m = re.match(r"^(?:increment|decrement)\s+([\w.\[\]]+)$", t, re.I)
    if m:
        return has(m.group(1)) and re.search(r"\b(?:incremented|decremented|goes (?:up|down)|increased|decreased)\b",
                                             statement) is not None
    m = re.match(r"^(?:set|initiali[sz]e)\s+(.+?)\s+to\s+(.+)$", t, re.I) or re.match(r"^([^=]+?)\s*([-+*/]?=)\s*(.+)$", t)
    if m:
        name = m.group(1).strip()
        value = m.group(m.lastindex or 2).strip()
        op = m.group(2) if m.lastindex == 3 else "="
        if op in ("+=", "-=") or re.fullmatch(rf"{re.escape(name)}\s*[-+]\s*1", value):
            step_words = r"\b(?:incremented|decremented|goes (?:up|down)|increased|decreased|added|subtracted)\b"
            return has(name) and re.search(step_words, statement) is not None
        return has(name) and has(value)
    call = re.match(r"^(?:call\s+)?([\w.\[\]]+)\(", t, re.I)
    if call:
        return has(call.group(1)) and re.search(r"\b(?:called|invoked|calls|runs)\b", statement) is not None
    return False


# -- program steps as an LLM words them (2026-11-25, twelfth stretch, codeword12) --------------
# An LLM draws a step in words ("Call getattr and store the result in prepare", "Add one to the
# count", "Append n.id to a") and asks about it in other words ("after prepare is computed as
# the result of getattr", "once the count goes up by one", "after n.id is added to a").
# `step_named_in_words` matches the two by what the step does (its action, read from either
# wording: "increment" = "add one to" = "goes up by one") and the program names both mention
# (``self._tunnel_host`` = "the tunnel host"). Chosen on codeword12_val.
#: action -> (how a box words it, how a statement words it)
_STEP_ACTIONS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "increment": (re.compile(r"^(?:increment|add (?:1|one) to|increase \S+(?: \S+)* by (?:1|one)\b)|\+= ?1$|\+\+$"
                             r"|^(\S+) = \1 \+ 1$|^move to the next", re.I),
                  re.compile(r"\bincrement|\bgoes up by (?:1|one)\b|\b(?:one|1) is added to\b|\bincreased by (?:1|one)\b"
                             r"|\bbumped up\b", re.I)),
    "decrement": (re.compile(r"^(?:decrement|subtract (?:1|one) from|decrease \S+(?: \S+)* by (?:1|one)\b)|-= ?1$|--$"
                             r"|^(\S+) = \1 - 1$", re.I),
                  re.compile(r"\bdecrement|\bgoes down by (?:1|one)\b|\b(?:one|1) is subtracted from\b"
                             r"|\bdecreased by (?:1|one)\b", re.I)),
    "add": (re.compile(r"^(?:add|increase|update \S+(?: \S+)* by adding)\b|\+=", re.I),
            re.compile(r"\bis added to\b|\bincreased by\b|\bgrows by\b|\bis extended with\b", re.I)),
    "append": (re.compile(r"^(?:append|add \S+(?: \S+)* to the end of|extend|insert|put)\b|\.(?:append|extend|insert|add)\(",
                          re.I),
               re.compile(r"\bappended\b|\badded (?:at the end|to)\b|\binserted\b|\bput into\b|\bis extended\b", re.I)),
    "assign": (re.compile(r"^(?:set|initiali[sz]e|assign|start \S+(?: \S+)* at|store|compute|get)\b|store the result in"
                          r"|^[\w.\[\]()', ]+?\s*=\s*[^=]", re.I),
               re.compile(r"\b(?:is|are) (?:set|initiali[sz]ed|computed|stored|assigned)\b|\bgets the value\b|\bstarts at\b",
                          re.I)),
    "call": (re.compile(r"^(?:call|invoke)\b|^[\w.]+\(", re.I),
             re.compile(r"\bis called\b|\bcalls\b|\binvoked\b|\bis done\b", re.I)),
    "return": (re.compile(r"^(?:return|exit the function)\b", re.I),
               re.compile(r"\breturn(?:s|ed)?\b|\bgives back\b|\bexits without\b", re.I)),
    "print": (re.compile(r"^(?:print|display|output)\b", re.I),
              re.compile(r"\bprint(?:s|ed)?\b|\bis shown\b|\bdisplay(?:s|ed)?\b", re.I)),
    "raise": (re.compile(r"^(?:raise|throw)\b", re.I), re.compile(r"\brais(?:e|es|ed)\b|\bthrown\b", re.I)),
    "break": (re.compile(r"^(?:exit the loop|break|stop looping)", re.I),
              re.compile(r"\bbreaks? out\b|\bloop is left\b", re.I)),
    "continue": (re.compile(r"^(?:skip|continue)\b", re.I), re.compile(r"\bis skipped\b|\bskip", re.I)),
}
#: words of a box that are its action, not a program name
_ACTION_WORDS = frozenset("""set initialize initialise assign start store compute get call invoke return exit the a an
function to in at from by with and of result value values increment decrement add one increase decrease subtract update
adding append end extend insert put into print display output raise throw error exception loop break stop looping skip
continue next item move is as index counter message""".split())


def _step_actions(text: str) -> set[str]:
    """The actions a box's text does (`_STEP_ACTIONS`); an increment is also an update."""
    found = {a for a, (box, _) in _STEP_ACTIONS.items() if box.search(text.strip())}
    if found & {"increment", "decrement"}:
        found -= {"add", "assign", "append"}
    return found


def _said_actions(statement: str) -> set[str]:
    return {a for a, (_, said) in _STEP_ACTIONS.items() if said.search(statement)}


def _program_names(text: str) -> set[str]:
    """The program names a text mentions, each as its words ("tunnel host" for
    ``self._tunnel_host`` and for "the tunnel host"; "exc info" for ``record.exc_info``)."""
    names = set()
    for m in re.finditer(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*", text):
        word = m.group(0)
        if word.lower() in _ACTION_WORDS or (len(word) > 1 and word.lower() in STOPWORDS):
            continue  # (a one-letter name is a variable: "i", "a")
        names.add(code_name_words(word))
    return names


def step_named_in_words(text: str, statement: str) -> float:
    """How surely ``statement`` names the program step ``text`` in an LLM's words: 0 unless one
    of the step's actions is said (`_STEP_ACTIONS`) and the statement mentions the step's program
    names; else the number of the step's names it mentions plus half their share.

    >>> step_named_in_words("Add one to the count", "What happens just after count goes up by one?")
    1.5
    >>> step_named_in_words("Set the count to 0", "What happens just after count goes up by one?")
    0.0
    """
    actions = _step_actions(text) & _said_actions(statement)
    if not actions:
        return 0.0
    own = _program_names(text)
    if not own:
        return 0.0
    said = _program_names(statement)
    for name in said.copy():  # "the tunnel host" in a statement
        said.add(name)
    said |= {m.group(1) for m in re.finditer(r"\bthe ([a-z][a-z0-9]*(?: [a-z][a-z0-9]*){0,3}?)(?= is\b| gets\b| starts\b| goes\b| grows\b|[,.?]|$)", statement)}
    shared = len(own & said)
    share = shared / len(own)
    # the step naming more of the statement's names first ("chunks = self.iterencode(o)" over
    # "chunks = list(chunks)" for "chunks is computed as the result of self.iterencode"), then
    # the one with fewer names left unsaid
    return shared + 0.5 * share if share >= 0.34 else 0.0
