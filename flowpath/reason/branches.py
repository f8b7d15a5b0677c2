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

import functools
import json
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from flowpath.reason.text import STOPWORDS, stem, tokens

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
