"""Text cleanup of OCR output: word lines, cut-off line ends, branch words, specks.

Pure string work on what an engine read (`flowpath.transcribe.ocr.engines`); nothing here
touches pixels.
"""

from __future__ import annotations

import bisect
import math
import os
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import lru_cache

from rapidfuzz.distance import Levenshtein

#: one word an engine read: (top, left, height, text), pixel units of the image it was read in
Word = tuple[int, int, int, str]

_FIXES = [
    (re.compile(r"[‘’`´]"), "'"),
    (re.compile(r"[“”]"), '"'),
    (re.compile(r"[—–]"), "-"),
    (re.compile(r"\s+"), " "),
]

#: the branch words an edge label snaps to, lower case -> as written
_CANON = {"yes": "Yes", "no": "No", "true": "True", "false": "False"}


def clean_text(text: str) -> str:
    """Normalise OCR output: typographic quotes to ASCII, stray edge punctuation dropped.

    >>> clean_text("“Start”  |")
    '"Start"'
    """
    for pat, rep in _FIXES:
        text = pat.sub(rep, text)
    # tokens with no letter/digit and characters outside plain ASCII punctuation are specks
    # (arrow tips, border corners) read as symbols
    toks = [t for t in text.split() if re.search(r"[A-Za-z0-9]", t)
            or re.fullmatch(r"[-+*/=<>%:()'\"\[\]{}&|!?.,;#$^~]+", t)]
    text = " ".join(toks).strip()
    # stray bars/underscores from border remnants at either end
    text = re.sub(r"^[|_~=]+\s*|\s*[|_~=]+$", "", text)
    return text.strip()


def clean_label(text: str) -> str:
    """Clean an edge label; OCR slips on the common branch words (``Yés``, ``N0``, ``Yes'``) are
    snapped to the word when one character away.

    >>> clean_label("Nlo"), clean_label("Y¥"), clean_label("Timeout")
    ('No', 'Y', 'Timeout')
    """
    text = clean_text(text)
    plain = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))
    toks = [t for t in plain.split() if re.search(r"[A-Za-z0-9]", t)]
    if len(toks) > 1:
        # one branch word among specks ("f No", "No va", "2 Yes"): the line through the label
        # box is read as stray short tokens around the word
        snapped = [c for c in (branch_word(t) for t in toks) if c]
        short = [t for t in toks if branch_word(t) is None]
        if len(snapped) == 1 and all(len(re.sub(r"[^A-Za-z0-9]", "", t)) <= 2 for t in short):
            return snapped[0]
    letters = re.sub(r"[^A-Za-z0-9]", "", plain)
    if letters.lower() in ("y", "n") and len(plain.replace(" ", "")) <= 2:
        # the one-letter branch words, with a speck of the line through them ("Y¥", "y:")
        return letters.upper()
    keep = [t for t in plain.split() if re.search(r"[A-Za-z0-9<>=%+*/]", t)]  # drop "---" specks
    return branch_word(plain) or " ".join(keep) or plain


def branch_word(text: str) -> str | None:
    """The branch word (Yes/No/True/False) ``text`` is within one OCR slip of, else None.

    >>> branch_word("yas"), branch_word("Wo"), branch_word("Yellow")
    ('Yes', 'No', None)
    """
    low = re.sub(r"[^a-z0-9]", "", text.lower().replace("0", "o"))
    if not low:
        return None
    for word, canon in _CANON.items():
        # one slip, keeping the first letter ("nlo", "yas"), or any one slip in a word of at
        # most three letters ("Wo")
        if low == word or (len(low) >= 2 and Levenshtein.distance(low, word, score_cutoff=1) <= 1
                           and (low[0] == word[0] or len(low) == len(word) <= 3)):
            return canon
    return None


def join_lines(words: list[Word]) -> str:
    """Group words into lines (`group_lines`), order lines top-down and words left-right, and
    clean the result (Mermaid wraps labels at spaces, so lines join with a space)."""
    return clean_text(" ".join(" ".join(v[3] for v in sorted(line, key=lambda v: v[1])) for line in group_lines(words)))


def group_lines(words: list[Word]) -> list[list[Word]]:
    """The words of one crop grouped into text lines by vertical overlap, top line first."""
    words = sorted(words, key=lambda w: (w[0] + w[2] / 2, w[1]))
    lines: list[list[Word]] = []
    for w in words:
        cy = w[0] + w[2] / 2
        if lines:
            last = lines[-1]
            ly = sum(v[0] + v[2] / 2 for v in last) / len(last)
            lh = sorted(v[2] for v in last)[len(last) // 2]
            if abs(cy - ly) < 0.6 * max(lh, w[2]):
                last.append(w)
                continue
        lines.append([w])
    return lines


def complete_line_ends(words: list[Word], seen: Iterable[str], lang: str = "eng") -> list[Word]:
    """Complete the last word of each line when a node's border cut it (``intege!`` ->
    ``integer``): from the words read elsewhere in the same chart (``seen``), else from
    tesseract's own dictionary for ``lang``.

    Mermaid sizes a label's box with one font and the rasteriser draws it with another, so a
    line's last word is sometimes clipped a few px inside the border.
    """
    dictionary = dictionary_words(lang)
    if not dictionary:
        return words
    seen_set = {w.lower().strip(".,:;!?'\"()") for w in seen}
    lines: dict[int, int] = {}  # line key -> index of its right-most word
    for i, w in enumerate(words):
        key = round((w[0] + w[2] / 2) / max(w[2], 1))
        if key not in lines or w[1] > words[lines[key]][1]:
            lines[key] = i
    out = list(words)
    for i in lines.values():
        top, left, height, word = out[i]
        m = re.fullmatch(r"([A-Za-z]{5,})([^A-Za-z0-9'\"`)\]]{0,2})", word)
        if not m or _in_sorted(dictionary, m.group(1).lower()):
            continue
        stem = m.group(1)
        best = None
        for prefix in (stem.lower(), stem.lower()[:-1]):  # the last glyph may be a cut one misread
            cands = [w for w in seen_set if w.startswith(prefix) and len(stem) < len(w) <= len(stem) + 3 and w.isalpha()]
            if not cands:
                j = bisect.bisect_left(dictionary, prefix)
                while j < len(dictionary) and dictionary[j].startswith(prefix):
                    if len(dictionary[j]) <= len(stem) + 2 and dictionary[j] != prefix:
                        cands.append(dictionary[j])
                    j += 1
            if cands:
                best = min(cands, key=lambda w: (len(w), w))
                break
        if best:
            best = best[0].upper() + best[1:] if stem[0].isupper() else best
            out[i] = (top, left, height, best)
    return out


def _in_sorted(words: list[str], word: str) -> bool:
    j = bisect.bisect_left(words, word)
    return j < len(words) and words[j] == word


@lru_cache(maxsize=4)
def dictionary_words(lang: str = "eng") -> list[str]:
    """Sorted lower-case word list of tesseract's own language model (its LSTM word DAWG).

    Extracted once with the Debian ``tesseract-ocr`` tools ``combine_tessdata`` and
    ``dawg2wordlist`` and cached under ``$XDG_CACHE_HOME/flowpath``; empty when the tools or the
    language data are missing (line ends are then left as read).
    """
    import shutil
    import subprocess
    import tempfile
    from pathlib import Path

    from flowpath.transcribe.ocr.tessdata import find_tessdata

    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "flowpath" / f"tesseract_words_{lang}.txt"
    try:
        if not cache.exists():
            tessdata = find_tessdata(lang)
            if tessdata is None or not shutil.which("combine_tessdata") or not shutil.which("dawg2wordlist"):
                return []
            with tempfile.TemporaryDirectory() as tmp:
                prefix = str(Path(tmp) / f"{lang}.")
                subprocess.run(["combine_tessdata", "-u", str(tessdata / f"{lang}.traineddata"), prefix],
                               check=True, capture_output=True, timeout=60)
                out = Path(tmp) / "words.txt"
                subprocess.run(["dawg2wordlist", prefix + "lstm-unicharset", prefix + "lstm-word-dawg", str(out)],
                               check=True, capture_output=True, timeout=60)
                cache.parent.mkdir(parents=True, exist_ok=True)
                tmp_cache = cache.with_suffix(".tmp")
                tmp_cache.write_text(out.read_text(encoding="utf-8", errors="ignore"), encoding="utf-8")
                tmp_cache.replace(cache)
        return sorted({w.strip().lower() for w in cache.read_text(encoding="utf-8").split() if w.strip().isalpha()})
    except (OSError, subprocess.SubprocessError):
        return []


#: letter pairs a handwriting recogniser confuses (a hand-drawn C closed like a G, a U drawn as
#: a V, ...): a misread that one of them explains wins over other one-letter corrections
_HAND_SLIPS = frozenset({("g", "c"), ("c", "g"), ("v", "u"), ("u", "v"),
                         ("a", "o"), ("o", "a"), ("l", "i"), ("i", "l"), ("e", "c"), ("t", "f")})


def fix_letter_slips(text: str, lang: str = "eng") -> str:
    """Correct one misread letter per word of a handwriting reading: an alphabetic word of 4+
    letters outside tesseract's dictionary becomes the dictionary word one `_HAND_SLIPS`
    substitution away, when there is exactly one (``INSPEGT`` -> ``INSPECT``, ``PLAGE`` ->
    ``PLACE``); case is kept. Any other one-letter change is not trusted (the dictionary lacks
    many inflections: ``retries`` is not in it). Left as read without the dictionary.

    >>> fix_letter_slips("Inspegt the QUEVE") if dictionary_words() else "Inspect the QUEUE"
    'Inspect the QUEUE'
    """
    known = _word_set(lang)
    if not known:
        return text

    def fix(m: re.Match[str]) -> str:
        word = m.group(0)
        low = word.lower()
        if len(low) < 4 or low in known:
            return word
        cands = {(low[:i] + ch + low[i + 1:], (low[i], ch)) for i in range(len(low))
                 for ch in "abcdefghijklmnopqrstuvwxyz" if ch != low[i] and low[:i] + ch + low[i + 1:] in known}
        cands = {c for c in cands if c[1] in _HAND_SLIPS}
        if len(cands) != 1:
            return word
        new = next(iter(cands))[0]
        return "".join(n.upper() if o.isupper() else n for o, n in zip(word, new, strict=True))

    return re.sub(r"(?<![A-Za-z0-9_])[A-Za-z]+(?![A-Za-z0-9_])", fix, text)


@lru_cache(maxsize=4)
def _word_set(lang: str) -> frozenset[str]:
    return frozenset(dictionary_words(lang))


#: words read in small print that are in no dictionary are replaced by the most frequent
#: English word within this many edits (one for short words, where two edits reach anything;
#: two-letter words are weighed apart, `_TWO_LETTER_EDIT_COST`)
_MAX_EDITS = {2: 2, 3: 1, 4: 1, 5: 1, 6: 2, 7: 2}
#: a two-letter misread goes to the likeliest word within two edits, not the nearest: each edit
#: costs this much log corpus frequency. Small serif print draws `th` as `f`: `fe` is one edit
#: from `be` but two from `the`, ten times as frequent (tenth stretch, gvword10_a/_b records
#: replayed with spelling: 0.768 -> 0.773, 0.833 -> 0.834; guards gvword9_hand 0.919 and
#: gvword9_dgv 0.974 unchanged, gvword9_mp 0.860 -> 0.862; cost 1.5 measured the same, 2.5 and
#: up as before)
_TWO_LETTER_EDIT_COST = 2.0
#: words of eight letters or more: three edits (was two; tenth stretch, on wild Graphviz tuning
#: sets gvword10_a/_b, records replayed with spelling: 0.765 -> 0.768, 0.831 -> 0.833;
#: guards gvword9_hand 0.919, gvword9_dgv 0.974 unchanged, gvword9_mp 0.859 -> 0.860: `instucsons` ->
#: `instructions`, `diaonary` -> `dictionary`, `canetslly` -> `carefully`; from six letters it
#: lowered gvword9_mp)
_LONG_EDITS = 3
#: a word in capitals this short is an acronym (JSON, HTTP, CSV), not a misread English word;
#: longer ones (``SMOOTHH``, a title in capitals) are still corrected
ACRONYM = re.compile(r"[A-Z]{3,5}")
#: a token spelling may mend (and `ctc_lexicon` may decode again): a plain word of three letters or
#: more (group 2) with the punctuation around it; never one with digits or underscores, nor a call
#: (``fetch_data``, ``x2``, ``len(``)
SPELLABLE_WORD = re.compile(r"([^A-Za-z0-9_]*)([A-Za-z]{3,})([^A-Za-z0-9_(]*)")
#: a two-letter word spelling may mend (``te``, ``om``): only bare, in lower case, with closing
#: punctuation (``'pq'`` in a code chart is an identifier, ``DB`` and ``Ok`` are as meant)
BARE_TWO_LETTER = re.compile(r"()([a-z]{2})([?.,:;!]*)")
#: words of two letters or one a run-together reading may hold between the chart's words
#: (`_run_together`): function words; a longer piece must be one of the chart's own words
_SHORT_PIECES = frozenset({"a", "i", "an", "as", "at", "be", "by", "do", "if", "in", "is", "it", "no", "of",
                           "on", "or", "so", "to", "up", "we"})
#: a run-together token is cut into at most this many words
_MAX_PIECES = 3
#: the parts of a CamelCase identifier (``ValueError``, ``RalseValueEror``)
_CAMEL_PART = re.compile(r"[A-Z][a-z]+|[a-z]+|[A-Z]+(?![a-z])")


def chart_words(texts: Iterable[str]) -> Counter[str]:
    """The English words of one chart's readings (lower case, three letters or more, known to the
    frequency list of `correct_spelling`) and how often each was read: every engine's reading
    of every node, the kept ones and their `engines.Reading.alternates`. Charts repeat their
    words (``the dough`` in three nodes), and an engine that misread a word in one node often
    read it right in another, or another engine did in the same node."""
    freq = frequency_words()
    return Counter(w for t in texts for w in (m.lower() for m in re.findall(r"[A-Za-z]{3,}", t)) if w in freq)


def correct_spelling(text: str, lang: str = "eng", chart: Counter[str] | None = None, *,
                     keep_acronyms: bool = True) -> str:
    """Replace the words of ``text`` that no dictionary knows by the most frequent English
    word within one edit (two for words of six or seven letters, three from eight).

    Small print (5-7 px letters in a JPEG) loses thin strokes: ``deadine``, ``finshed``,
    ``matenals``; ``the`` loses its ``h`` (``te``: the most frequent slip on the wild tuning
    sets). A word the English frequency list knows is left alone, and so is anything that is
    not a plain word of three letters or more, or of two lower-case letters (identifiers,
    numbers, ``fetch_data()``, ``os.environ``, ``'pq'``, ``Ok``, ``DB``), so only
    out-of-vocabulary words change. With ``chart`` (`chart_words` of the chart's readings), a
    word of three letters or more is first mended to the nearest of the chart's own words
    within the same edits (``mxaure`` -> ``mixture`` read in another node, not the more
    frequent ``mature``; measured on wild Graphviz tuning sets, docs/transcription.md, ninth
    stretch). Acronyms (`ACRONYM`: ``JSON``, ``HTTP``) are left alone
    too: the list is of lower-case words and has none of them, and ``JSON`` read right became
    ``SON`` (wild PlantUML tuning sets ``pumlword9_a``/``_b``: 7 words lost, none of the
    corrected all-capital words of 3-5 letters was right); ``keep_acronyms=False`` corrects them
    too, for text read as handwriting (written in capitals, where ``STAT`` is a slip). (Tesseract's own word list,
    `dictionary_words`, is not used here: it holds OCR-like junk such as ``finshed``; measured
    on the wild tuning set it protected more misreads than names.) Needs the frequency list of ``symspellpy`` (``flowpath[ocr]``);
    without it the text is returned as read.

    >>> correct_spelling("Is the deadine past?")  # doctest: +SKIP
    'Is the deadline past?'
    """
    freq = frequency_words() if lang == "eng" else {}
    if not freq:
        return text
    out = []
    for tok in text.split(" "):
        # a two-letter word only bare (`'pq'` in a code chart is an identifier)
        m = SPELLABLE_WORD.fullmatch(tok) or BARE_TWO_LETTER.fullmatch(tok)
        if m is None or m.group(2).lower() in freq or keep_acronyms and ACRONYM.fullmatch(m.group(2)):
            out.append(tok)
            continue
        word = m.group(2)
        if re.search(r"[a-z][A-Z]", word):
            out.append(m.group(1) + _mend_camel(word, freq, chart) + m.group(3))
            continue
        pieces = _run_together(word.lower(), chart) if chart and not word.isupper() else None
        if pieces:
            out.append(m.group(1) + " ".join([as_cased(word, pieces[0]), *pieces[1:]]) + m.group(3))
            continue
        best = (_nearest_word(word.lower(), chart) if chart and len(word) >= 3 else None) \
            or _nearest_word(word.lower(), freq)
        if best is not None:
            tok = m.group(1) + as_cased(word, best) + m.group(3)
        out.append(tok)
    return " ".join(out)


#: a token the reader vote (`vote_words`) may replace, or take from another reader: letters only,
#: with the punctuation around them (group 2 the word); never an identifier, a number or a call
_VOTED_TOKEN = re.compile(r"([^A-Za-z0-9_]*)([A-Za-z]+)([^A-Za-z0-9_(]*)")
#: other readers that must agree on a word before it replaces the kept reader's
VOTE_AGREE = 2


def vote_words(kept: str, others: Iterable[str], *, agree: int = VOTE_AGREE) -> str:
    """``kept`` (the node text of the reading the choice rule kept) with a plain word replaced
    where the other readers of the same crop (``others``: their texts, `engines.Reading.alternates`)
    agree on another word: at least ``agree`` of them, more than read the kept word (the kept
    reader counts as one), no other word as many, and it a word of the frequency list.

    On small print each reader slips on other words (the kept grey reading ``Con a connection to
    the dacacucup`` where the cleaned-crop reader and rapidocr both read ``Open`` and
    ``database``; rapidocr's ``Merge mode into cache`` where tesseract and both learned readers
    read ``node``), and the choice rule keeps one reading per node. The readings are aligned
    word by word (an edit alignment of their lower-case letters and digits, so a reader that
    lost or split a word shifts nothing else); identifiers, numbers and calls are never touched
    and never voted for, nor is a word cased as no word is written (``LOt``: both learned readers
    read a hand-drawn ``LOG`` so, textrec9_hand). Measured on the wild PlantUML tuning sets (docs/transcription.md,
    thirteenth stretch)."""
    toks = kept.split(" ")
    keys = [_vote_key(t) for t in toks]
    if not any(keys):
        return kept
    freq = frequency_words()
    support = [1] * len(toks)
    votes: list[Counter[str]] = [Counter() for _ in toks]
    for other in others:
        theirs = other.split()
        their_keys = [_vote_key(t) for t in theirs]
        for a, b in _aligned(keys, their_keys):
            if their_keys[b] == keys[a]:
                support[a] += 1
                continue
            m = _VOTED_TOKEN.fullmatch(theirs[b])
            if m is not None and _word_cased(m.group(2)):
                votes[a][m.group(2).lower()] += 1
    out = []
    for a, tok in enumerate(toks):
        m = _VOTED_TOKEN.fullmatch(tok)
        if m is not None and votes[a]:
            (word, n), *rest = votes[a].most_common(2)
            if n >= agree and n > support[a] and (not rest or rest[0][1] < n) and word in freq:
                tok = m.group(1) + as_cased(m.group(2), word) + m.group(3)
        out.append(tok)
    return " ".join(out)


def _word_cased(word: str) -> bool:
    """Whether ``word`` is cased as words are written: lower case, capitalised or all capitals
    (``LOt``, ``tHe`` are misreads)."""
    return word.islower() or word.isupper() or (word[0].isupper() and word[1:].islower())


def _vote_key(token: str) -> str:
    """What the metric sees of a token: its letters and digits, lower case."""
    return re.sub(r"[^a-z0-9]", "", token.lower())


def _aligned(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    """Index pairs of ``a`` and ``b`` (token lists) an edit alignment puts together: equal tokens
    and substitutions; a token inserted or deleted pairs with nothing."""
    pairs = []
    i = j = 0
    for op in Levenshtein.editops(a, b):
        while i < op.src_pos and j < op.dest_pos:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        if op.tag == "replace":
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif op.tag == "delete":
            i += 1
        else:
            j += 1
    while i < len(a) and j < len(b):
        pairs.append((i, j))
        i, j = i + 1, j + 1
    return pairs


def as_cased(word: str, new: str) -> str:
    """``new`` in the case of ``word`` (all capitals, a capital first, or lower case)."""
    if word.isupper() and len(word) > 1:
        return new.upper()
    if word[0].isupper():
        return new[0].upper() + new[1:]
    return new


def _mend_camel(word: str, freq: Mapping[str, int], chart: Counter[str] | None) -> str:
    """A CamelCase identifier with each unknown part of three letters or more mended on its own
    (``ValurError`` -> ``ValueError``); as read when a part is shorter (``EnJ``: a misread, not an
    identifier; mended whole like any word). Mended whole, an identifier became the nearest long
    English word (``ValueErtor`` -> ``Valuator``)."""
    parts = _CAMEL_PART.findall(word)
    if "".join(parts) != word or any(len(p) < 3 for p in parts):
        best = (_nearest_word(word.lower(), chart) if chart else None) or _nearest_word(word.lower(), freq)
        return word if best is None else as_cased(word, best)
    mended = []
    for p in parts:
        low = p.lower()
        best = None if low in freq else (_nearest_word(low, chart) if chart else None) or _nearest_word(low, freq)
        mended.append(p if best is None else as_cased(p, best))
    return "".join(mended)


def _run_together(word: str, chart: Counter[str]) -> list[str] | None:
    """``word`` (lower case, in no dictionary) cut into two or three of the chart's own words, or
    None. Small print set tight loses the space between words (``thenincrement``,
    ``requestbody`` for ``request.body``, ``mixthe``); the line recognisers then read them as
    one, and spelling mended the run to the nearest long word (``Collectthe`` -> ``Collective``).
    Every piece of three letters or more must have been read in the chart (`chart_words`), a
    shorter one be a function word (`_SHORT_PIECES`); a word one edit from an English word is a
    misread, not a run (``atend`` is ``attend``, not ``at end``). Of the cuts, the fewest pieces
    and then the most frequent words win."""
    n = len(word)
    if n < 5:
        return None
    freq = frequency_words()
    # best[j]: (score, pieces) of the best cut of word[:j]; a piece costs more than any word's
    # log frequency gains, so fewer pieces always win
    best: list[tuple[float, list[str]] | None] = [None] * (n + 1)
    best[0] = (0.0, [])
    for j in range(1, n + 1):
        for i in range(j):
            prev = best[i]
            piece = word[i:j]
            if prev is None or len(prev[1]) >= _MAX_PIECES:
                continue
            if not (piece in _SHORT_PIECES if len(piece) <= 2 else piece in chart):
                continue
            score = prev[0] + math.log(freq.get(piece, 1)) - 30.0
            if best[j] is None or score > best[j][0]:  # type: ignore[index]
                best[j] = (score, [*prev[1], piece])
    found = best[n]
    # the edit search last: it costs ~1 ms, and most unknown words have no cut
    if found is None or len(found[1]) < 2 or _within_one_edit(word):
        return None
    return found[1]


def _within_one_edit(word: str) -> bool:
    """Whether a word of the frequency list is at most one edit from ``word``."""
    from rapidfuzz import process

    return process.extractOne(word, _by_length(len(word), 1), scorer=Levenshtein.distance,
                              score_cutoff=1) is not None


def _nearest_word(word: str, freq: Mapping[str, int]) -> str | None:
    """The most frequent word of ``freq`` (the frequency list, or a chart's `chart_words`) at the
    fewest edits (at most the allowed) from ``word``; None when there is none."""
    hits = near_words(word, freq)
    if not hits:
        return None
    if len(word) == 2:
        return max(hits, key=lambda h: math.log(freq[h[0]]) - _TWO_LETTER_EDIT_COST * h[1])[0]
    fewest = min(h[1] for h in hits)
    return max((h[0] for h in hits if h[1] == fewest), key=lambda w: freq[w])


def near_words(word: str, freq: Mapping[str, int] | None = None) -> list[tuple[str, int]]:
    """``(word, edits)`` of every word of ``freq`` (default: the frequency list) within the edits
    spelling allows for a word of ``word``'s length (`_MAX_EDITS`, `_LONG_EDITS`); ``word``
    itself among them when ``freq`` has it."""
    if freq is None or freq is frequency_words():
        return list(_near_listed_words(word))
    return _near(word, list(freq))


@lru_cache(maxsize=4096)
def _near_listed_words(word: str) -> tuple[tuple[str, int], ...]:
    """`near_words` in the frequency list, once per word: the learned readers' lexicon decoding
    (`ctc_lexicon`) shortlists a misread, and spelling looks the same word up again when the
    decoding left it (the search is most of either's cost)."""
    return tuple(_near(word, _by_length(len(word), _MAX_EDITS.get(len(word), _LONG_EDITS))))


def _near(word: str, pool: list[str]) -> list[tuple[str, int]]:
    from rapidfuzz import process

    edits = _MAX_EDITS.get(len(word), _LONG_EDITS)
    return [(h[0], int(h[1])) for h in process.extract(word, pool, scorer=Levenshtein.distance,
                                                       score_cutoff=edits, limit=None)]


@lru_cache(maxsize=64)
def _by_length(n: int, edits: int) -> list[str]:
    """The frequency list's words within ``edits`` letters of length ``n``."""
    return [w for w in frequency_words() if abs(len(w) - n) <= edits]


#: programming words the English frequency list lacks (it is of running text: ``confirm``,
#: not ``config``): spelling took them for misreads and "mended" them when read right
#: (``config`` -> ``confirm``, ``args`` -> ``arts``), and could not mend a misread of one toward
#: it when the chart wrote it elsewhere (`chart_words` holds known words only). They count as
#: rare words (`_CODE_WORD_COUNT`), so an English word at the same edits still wins a tie
_CODE_WORDS = ("args kwargs argv config configs json yaml toml csv xml html http https url urls uri api sql "
               "repo bool enum async idx num nums param params env tmp src dst utf ascii stdin stdout "
               "stderr cli gpu cpu sys npm oauth jwt uuid sha libs func const cls attr attrs iter dtype "
               "ndarray numpy ctx cfg util utils calc buf ptr addr cnt vals elems").split()
_CODE_WORD_COUNT = 100_000


@lru_cache(maxsize=1)
def frequency_words() -> dict[str, int]:
    """Lower-case English word -> corpus count, from the frequency list shipped in the
    ``symspellpy`` wheel (82,765 words), with the programming words of `_CODE_WORDS`; empty when
    ``symspellpy`` is not installed."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("symspellpy")  # the data file only: importing costs 0.3 s
    if spec is None or not spec.submodule_search_locations:
        return {}
    path = Path(list(spec.submodule_search_locations)[0]) / "frequency_dictionary_en_82_765.txt"
    if not path.is_file():
        return {}
    toks = path.read_text(encoding="utf-8").split()  # "word count" lines
    words = {w: int(n) for w, n in zip(toks[0::2], toks[1::2], strict=False) if w.isalpha()}
    return {**dict.fromkeys(_CODE_WORDS, _CODE_WORD_COUNT), **words}
