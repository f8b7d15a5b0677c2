"""Lexicon-aware CTC decoding of the learned line recogniser's readings (issue 14, twelfth stretch).

The recogniser (`flowpath.transcribe.ocr.recogniser`) decodes each line greedily: the best class
per output step. On blurred ~10-px print its character error rate is ~0.2, a slip in most words,
while the right word is often the second-best path through the same posteriors. Spelling
(`text.correct_spelling`) mends a misread afterwards on the string alone, by edit distance and
word frequency; here the network's own probabilities choose instead.

For each word of a greedy line that no word list knows (a plain word of three letters or more:
never one with digits, underscores or a CamelCase hump, never a short all-capital acronym),
`lexicon_decode` shortlists English and programming words within a few edits (`text.near_words`,
the list spelling uses) and scores the line with each candidate in the word's place by its CTC
likelihood under the line's per-step log-probabilities (`torch.nn.functional.ctc_loss`: the sum
over every alignment, so a candidate can even beat the greedy string itself). The likeliest
candidate replaces the word when its log-likelihood is within `LexiconSetting.margin` of the
greedy line's; otherwise the word stays as read (names, unknown words) and spelling sees it as
before.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from flowpath.transcribe.ocr.text import ACRONYM, as_cased, frequency_words, near_words

#: a word the decoding may replace, with the punctuation around it: letters only, three or more
#: (spelling's own token rule, `text.correct_spelling`; ``fetch_data``, ``x2``, ``len(`` never)
_TOKEN = re.compile(r"([^A-Za-z0-9_]*)([A-Za-z]{3,})([^A-Za-z0-9_(]*)")
#: a CamelCase hump: an identifier (``ValueError``, ``maxVal``), never replaced
_HUMP = re.compile(r"[a-z][A-Z]")


@dataclass(frozen=True)
class LexiconSetting:
    """How far the decoding may move from the greedy reading.

    Attributes:
        margin: a candidate word replaces an unknown greedy word when the line's CTC
            log-likelihood with it is at least the greedy line's minus this (nats).
        candidates: at most this many shortlisted words are scored per unknown word (the nearest
            first, then the most frequent).
        extra_edits: edits allowed beyond spelling's own (`text.near_words`) when shortlisting.
        prior: weight of a candidate's log corpus frequency added to its log-likelihood when
            candidates are ranked (0: the network alone ranks them).
        known_gain: when not None, a known greedy word is replaced too, by a candidate whose
            score (log-likelihood plus prior) beats the greedy word's by at least this.
        chart_bonus: added to the score of a candidate that another line of the batch (the
            chart's other nodes) reads as it.
    """

    margin: float = 5.0
    candidates: int = 24
    extra_edits: int = 0
    prior: float = 0.0
    known_gain: float | None = None
    chart_bonus: float = 0.0


def replaceable(token: str, known_too: bool = False) -> re.Match[str] | None:
    """The match of ``token`` (word group 2) when it is a plain word the decoding may replace:
    an unknown one (or, ``known_too``, any); None for identifiers, numbers, acronyms and short
    words."""
    m = _TOKEN.fullmatch(token)
    if m is None:
        return None
    word = m.group(2)
    if _HUMP.search(word) or ACRONYM.fullmatch(word) or not known_too and word.lower() in frequency_words():
        return None
    return m


def _shortlist(word: str, setting: LexiconSetting) -> list[str]:
    """Candidate words for ``word`` (cased like it), nearest first, then most frequent."""
    freq = frequency_words()
    hits = [h for h in near_words(word.lower(), extra_edits=setting.extra_edits) if h[0] != word.lower()]
    hits.sort(key=lambda h: (h[1], -freq.get(h[0], 0)))
    return [as_cased(word, w) for w, _ in hits[:setting.candidates]]


def line_log_likelihoods(log_probs: Any, steps: Sequence[int], lines: Sequence[int], texts: Sequence[str],
                         charset: str) -> list[float]:
    """CTC log-likelihood of each ``texts[k]`` under line ``lines[k]``'s log-probabilities
    (``log_probs`` ``(B, T, classes)``, class 0 the blank, ``steps`` valid steps per line);
    -inf where a text cannot be aligned in the line's steps or holds a character outside
    ``charset``."""
    import torch
    import torch.nn.functional as F

    index = {ch: i + 1 for i, ch in enumerate(charset)}
    ok = [bool(t) and all(ch in index for ch in t) for t in texts]
    rows = [k for k, good in enumerate(ok) if good]
    out = [-math.inf] * len(texts)
    if not rows:
        return out
    targets = torch.tensor([index[ch] for k in rows for ch in texts[k]], dtype=torch.long)
    picked = log_probs[torch.tensor([lines[k] for k in rows])].transpose(0, 1)  # (T, N, C)
    loss = F.ctc_loss(picked.float(), targets, torch.tensor([steps[lines[k]] for k in rows]),
                      torch.tensor([len(texts[k]) for k in rows]), blank=0, reduction="none", zero_infinity=False)
    for k, v in zip(rows, loss.tolist(), strict=True):
        out[k] = -v
    return out


def lexicon_decode(log_probs: Any, steps: Sequence[int], greedy: Sequence[str], charset: str,
                   setting: LexiconSetting) -> list[str]:
    """The greedy readings ``greedy`` of a batch of lines with their unknown words replaced
    where a dictionary word is about as likely under the network's own posteriors (module
    docstring). ``log_probs`` ``(B, T, classes)`` and ``steps`` are the recogniser's output.

    Returns:
        One text per line; a line with nothing to replace comes back as read.
    """
    freq = frequency_words()
    if not freq:
        return list(greedy)
    known_too = setting.known_gain is not None
    chart = {w.lower() for text in greedy for w in re.findall(r"[A-Za-z]{3,}", text) if w.lower() in freq}

    def prior(word: str) -> float:
        low = word.lower()
        return setting.prior * math.log(freq.get(low, 1)) + (setting.chart_bonus if low in chart else 0.0)

    # (line, token index, candidate words, candidate texts of the whole line) per word asked about
    asks: list[tuple[int, int, list[str], list[str]]] = []
    for b, text in enumerate(greedy):
        toks = text.split(" ")
        for j, tok in enumerate(toks):
            m = replaceable(tok, known_too)
            if m is None:
                continue
            words = _shortlist(m.group(2), setting)
            if words:
                lines = [" ".join([*toks[:j], m.group(1) + w + m.group(3), *toks[j + 1:]]) for w in words]
                asks.append((b, j, words, lines))
    if not asks:
        return list(greedy)
    asked_lines = sorted({b for b, *_ in asks})
    line_of = [b for b in asked_lines] + [b for b, _, words, _ in asks for _ in words]
    texts = [greedy[b] for b in asked_lines] + [t for *_, lines in asks for t in lines]
    scores = line_log_likelihoods(log_probs, steps, line_of, texts, charset)
    base = dict(zip(asked_lines, scores, strict=False))
    out = [text.split(" ") for text in greedy]
    k = len(asked_lines)
    for b, j, words, _lines in asks:
        got = scores[k:k + len(words)]
        k += len(words)
        best = max(range(len(words)), key=lambda i: got[i] + prior(words[i]))
        if got[best] == -math.inf:
            continue
        m = _TOKEN.fullmatch(out[b][j])
        assert m is not None
        read = m.group(2)
        if read.lower() in freq:  # a known word: the candidate must beat it
            take = known_too and got[best] + prior(words[best]) >= base[b] + prior(read) + setting.known_gain
        else:
            take = got[best] >= base[b] - setting.margin
        if take:
            out[b][j] = m.group(1) + words[best] + m.group(3)
    return [" ".join(toks) for toks in out]


#: the setting the learned readers decode with (`recogniser.LineRecogniserEngine`)
SHIPPED = LexiconSetting()
