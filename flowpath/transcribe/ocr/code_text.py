"""Code-aware cleanup of the node texts of program flowcharts (``i < n?``, ``x = arr[i]``).

Tesseract reads code in a sans-serif face with slips that English cleanup cannot mend and
that spelling makes worse (code charts, eleventh stretch; tuning sets `codeocr11_prog`,
`codeocr11_codevocab`, `codeocr11_wild`, docs/transcription.md):

* capital ``I`` and small ``l`` are one glyph: ``curIndex`` read ``curlndex``, ``nextItem``
  read ``nextltem`` (the largest bucket); a one read as ``l`` (``i = l``), a zero as ``O``;
* ``[`` read as ``f``, ``j``, ``l`` or ``{`` (``valuesfleft_idx]``), ``++`` as ``t+``;
* the space after ``Is``/``Set`` lost (``Isi >= 1?``), a one-letter name read twice (``xX``);
* small print: the English spelling pass turned identifiers into words (``maxVal`` ->
  ``manual``, ``nums`` -> ``nuts``) and statement words into others (``Retum`` -> ``Rectum``).

`mend_node_texts` is the one entry point (`OCRTranscriber` calls it on every chart): charts
that do not read as code (`is_code_chart`) get the spelling pass alone, exactly as before;
code charts get it on their English words only, then `mend_code` on each node. The chart's own
identifiers (`chart_identifiers`: names seen in code positions in any node) tell a name from a
misread.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from rapidfuzz.distance import Levenshtein

from flowpath.transcribe.ocr.text import frequency_words

__all__ = ["chart_identifiers", "is_code_chart", "mend_code", "mend_node_texts"]

#: a node text reads as code when it holds one of these: a comparison or assignment operator,
#: a call or index (``f(``, ``a[``), an attribute (``self.x``), snake_case or camelCase
_CODE_SIGN = re.compile(r"==|!=|<=|>=|\+=|-=|\+\+|--|%|\s=\s|\w=\w|[A-Za-z_]\w*[\[(]|[a-z]\.[a-z]"
                        r"|[a-z]_[a-z]|[a-z][A-Z][a-z]")
#: share of a chart's non-empty node texts with a code sign from which the chart is code:
#: on gold texts, program charts (codeocr11_prog) have 0.42-0.92, procedural code-vocabulary
#: charts (codeocr11_codevocab, gvword10_a, pumlword10_a, reasonocr10_proc) median 0.17-0.21,
#: how-to and wiki charts of those sets at most 0.14
CODE_SHARE = 0.2

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
#: a name in a code position: before an operator, call, index or attribute, or after one
_IDENT_BEFORE = re.compile(rf"({_IDENT})(?=\s*(?:[-+*/%]?=|==|!=|<=?|>=?|\[|\(|\+\+|--|[-+*/%]\s))")
_IDENT_AFTER = re.compile(rf"(?:[-+*/%<>=!]=?|[(\[,])\s*({_IDENT})")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
#: a lone character in an operand's place: after an operator, comma or "(", before the end,
#: an operator or a closing bracket
_OPERAND = r"(?:(?<=[-+*/%<>=,(])|(?<=[-+*/%<>=,(]\s)){}(?=\s*(?:$|[-+*/%<>=?:,;)\]]))"
#: statement words a reading runs into the name after them (``Isi``, ``Setj``)
_LEADS = ("Is", "Set", "Read", "Print", "Return", "return", "print", "while", "if", "Call")


def is_code_chart(texts: Sequence[str]) -> bool:
    """True when at least `CODE_SHARE` of the chart's non-empty node texts read as code.

    >>> is_code_chart(["Start", "i = 0", "i < n?", "x = arr[i]", "End"])
    True
    >>> is_code_chart(["Start", "Mix the flour", "Is the dough dry?", "End"])
    False
    """
    filled = [t for t in texts if t.strip()]
    return bool(filled) and sum(1 for t in filled if _CODE_SIGN.search(t)) >= CODE_SHARE * len(filled)


def chart_identifiers(texts: Iterable[str]) -> Counter[str]:
    """Names the chart's texts use in code positions (``x`` in ``x = 1``, ``arr`` and ``i`` in
    ``arr[i]``, ``nums`` in ``len(nums)``) and any name written in snake_case, camelCase or with
    a dot, with how many times each was read.

    >>> sorted(chart_identifiers(["x = arr[i]", "Read nums", "len(nums) - 1", "total_sum"]))
    ['arr', 'i', 'len', 'nums', 'total_sum', 'x']
    """
    seen: Counter[str] = Counter()
    for t in texts:
        found = {m.group(1) for m in _IDENT_BEFORE.finditer(t)} | {m.group(1) for m in _IDENT_AFTER.finditer(t)}
        found |= {w for w in _WORD.findall(t) if re.search(r"[a-z]_[a-z]|[a-z][A-Z]|[a-z]\.[a-z]", w)}
        seen.update(w.rstrip(".") for w in found)
    return seen


def _known(word: str) -> bool:
    return word.lower() in frequency_words()


def _split_camel_l(tok: str) -> str:
    """``curlndex`` -> ``curIndex``: a small ``l`` inside a lower-case run that is a capital
    ``I`` starting the next part of a camelCase name, when that part is an English word and the
    part as read is not, and the whole run is no English word."""
    def fix(m: re.Match[str]) -> str:
        run = m.group(0)
        if _known(run):
            return run
        for i in range(1, len(run) - 2):
            if run[i] != "l":
                continue
            tail = re.match(r"[a-z]+", run[i + 1:])
            part = "i" + (tail.group(0) if tail else "")
            if len(part) >= 4 and _known(part) and not _known("l" + part[1:]):
                return run[:i] + "I" + run[i + 1:]
        return run

    return re.sub(r"(?<![A-Za-z])[a-z]+l[a-z]+(?=[A-Z_\d]|\b)", fix, tok) if "l" in tok else tok


def _nearest_identifier(tok: str, names: Counter[str]) -> str | None:
    """The chart identifier one edit from ``tok`` (4+ characters) that was read at least twice,
    when there is exactly one and ``tok`` itself is neither a name read as often nor a word."""
    if len(tok) < 4 or _known(tok) or names.get(tok, 0) >= 2:
        return None
    near = [n for n, k in names.items() if k >= 2 and k > names.get(tok, 0) and abs(len(n) - len(tok)) <= 1
            and n != tok and Levenshtein.distance(n, tok, score_cutoff=1) <= 1]
    return near[0] if len(near) == 1 else None


def mend_code(text: str, names: Counter[str]) -> str:
    """Mend the code slips of one node text (module docstring), given the chart's identifiers.

    >>> names = Counter({"curIndex": 3, "i": 4, "values": 2, "left_idx": 3, "x": 3})
    >>> mend_code("curlndex = i+l", names)
    'curIndex = i+1'
    >>> mend_code("elem = valuesfleft_idx]", names), mend_code("y = numsli]", names)
    ('elem = values[left_idx]', 'y = nums[i]')
    >>> mend_code("Isi >= 1?", names), mend_code("xX % 2 == 0?", names), mend_code("while i > O", names)
    ('Is i >= 1?', 'x % 2 == 0?', 'while i > 0')
    >>> mend_code("it+", names), mend_code("left idx = leftidx+1", names), mend_code("cur Index", names)
    ('i++', 'left_idx = left_idx+1', 'curIndex')
    """
    # a one-letter name read twice in two cases: "xX" (the glyph's two sizes)
    text = re.sub(r"(?<![A-Za-z0-9_])([A-Za-z])([A-Za-z])(?![A-Za-z0-9_])",
                  lambda m: m.group(1).lower() if m.group(1).lower() == m.group(2).lower()
                  and m.group(1) != m.group(2) and m.group(1).lower() in names else m.group(0), text)
    # l/I and O as operands: "i = l", "i+l", "> O"
    text = re.sub(_OPERAND.format("[lI|]"), "1", text)
    text = re.sub(_OPERAND.format("O"), "0", text)
    # a statement word run into the name after it: "Isi", "Setj"
    text = re.sub(rf"(?<![A-Za-z0-9_])({'|'.join(_LEADS)})([A-Za-z_]\w*)",
                  lambda m: f"{m.group(1)} {m.group(2)}" if m.group(2) in names and not _known(m.group(0))
                  else m.group(0), text)
    # "[" read as a letter or brace between a known name and the index: "valuesfleft_idx]"
    text = re.sub(r"[A-Za-z_][\w.{(|]*\]", lambda m: _open_bracket(m.group(0), names), text)
    # "++" read as "t+": "it+", "row_it++"
    text = re.sub(r"(?<![A-Za-z0-9_.])([A-Za-z_]\w*?)t\++(?![\w+])",
                  lambda m: f"{m.group(1)}++" if m.group(1) in names and f"{m.group(1)}t" not in names
                  else m.group(0), text)
    # an underscore or a camelCase join read as a space ("row i" for the chart's row_i,
    # "running Total" for runningTotal)
    for name in names:
        parts = name.split("_")
        if len(parts) == 2 and all(parts):
            text = re.sub(rf"(?<![\w.]){re.escape(parts[0])}(?: _ ?| ){re.escape(parts[1])}(?!\w)", name, text)
        camel = re.fullmatch(r"([a-z]+)([A-Z][A-Za-z0-9]*)", name)
        if camel:
            text = re.sub(rf"(?<![\w.]){camel.group(1)} {camel.group(2)}(?!\w)", name, text)

    def mend_name(m: re.Match[str]) -> str:
        name = _split_camel_l(m.group(0))
        return _nearest_identifier(name, names) or name

    return re.sub(r"(?<![\w.])[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*", mend_name, text)


def _open_bracket(tok: str, names: Counter[str]) -> str:
    """``valuesfleft_idx]`` -> ``values[left_idx]``: an index whose ``[`` was read as a letter
    or brace, put back after the longest chart identifier the token starts with, or else
    before the one chart identifier the index can be."""
    cuts = [i for i in range(len(tok) - 2, 0, -1)
            if tok[i] in "fjl1I|{(t" and re.fullmatch(r"[\w.]*\]", tok[i + 1:])]
    cut = next((i for i in cuts if tok[:i] in names), None)
    if cut is None:
        inside = [i for i in cuts if tok[i + 1:-1] in names]
        cut = inside[0] if len(inside) == 1 else None
    return tok if cut is None else f"{tok[:cut]}[{tok[cut + 1:]}"


#: the statement words of program charts: on a code chart a misread of one of them is mended to
#: it before the English pass sees it (``Retum`` became ``Rectum``, ``Retrn`` ``Retard``)
_KEYWORDS = ("return", "print", "read", "while", "start", "stop", "end", "input", "output",
             "initialize", "increment", "append", "raise", "break", "continue", "true", "false",
             "none", "len", "range", "self", "begin", "call", "yield", "else")


def _keyword(tok: str, names: Counter[str]) -> str:
    """``tok`` snapped to the one statement word (`_KEYWORDS`) within one edit (two from six
    letters), case kept; unchanged when it is a word, a chart name or near no keyword."""
    m = re.fullmatch(r"([^A-Za-z]*)([A-Za-z]{3,})((?:[^A-Za-z_].*)?)", tok)  # "Retum-1"
    if m is None or m.group(2) in names or _known(m.group(2)):
        return tok
    word = m.group(2)
    low = word.lower()
    near = [k for k in _KEYWORDS if Levenshtein.distance(low, k, score_cutoff=2) <= (2 if len(k) >= 6 else 1)]
    if len(near) != 1:
        return tok
    new = near[0].upper() if word.isupper() else near[0].capitalize() if word[0].isupper() else near[0]
    return m.group(1) + new + m.group(3)


def _looks_like_code(tok: str, names: Counter[str]) -> bool:
    """A token the English spelling pass must leave alone: a chart identifier, or a name in
    snake_case, camelCase or with digits."""
    word = tok.strip("?.,:;!()[]'\"")
    return word in names or bool(re.search(r"[a-z][A-Z]|_|\d", word))


def mend_node_texts(texts: Sequence[str], spell: Sequence[Callable[[str], str]] | None = None) -> list[str]:
    """The chart's node texts after spelling (``spell``: one corrector per node, or None for no
    spelling pass) and, on a code chart (`is_code_chart`), code mending: spelling then touches
    only the tokens that are not code (`_looks_like_code`), and `mend_code` runs on every node
    with the chart's identifiers."""
    if not is_code_chart(texts):
        return [s(t) for s, t in zip(spell, texts, strict=True)] if spell else list(texts)
    names = chart_identifiers(texts)
    texts = [" ".join(_keyword(tok, names) for tok in t.split(" ")) for t in texts]
    if spell:
        texts = [" ".join(tok if _looks_like_code(tok, names) else s(tok) for tok in t.split(" "))
                 for s, t in zip(spell, texts, strict=True)]
    # camelCase capitals first, so that the chart's names are counted as mended ("curlndex"
    # read in five nodes must not pull a sixth "curIndex" back to it)
    texts = [re.sub(r"[A-Za-z_][A-Za-z0-9_]*", lambda m: _split_camel_l(m.group(0)), t) for t in texts]
    names = chart_identifiers(texts)
    return [mend_code(t, names) for t in texts]
