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
candidate (ranked with a small weight on its corpus frequency, `LexiconSetting.prior`) replaces
the word when its log-likelihood is within `LexiconSetting.margin` of the greedy line's; otherwise the word stays as read (names, unknown words) and spelling sees it as
before.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from flowpath.transcribe.ocr.text import (
    ACRONYM,
    BARE_TWO_LETTER,
    SPELLABLE_WORD,
    as_cased,
    frequency_words,
    near_words,
)

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
        prior: weight of a candidate's log corpus frequency added to its log-likelihood when
            candidates are ranked (0: the network alone ranks them).
    """

    margin: float = 5.0
    candidates: int = 24
    prior: float = 0.0
    two_letter: bool = False


def replaceable(token: str, two_letter: bool = False) -> re.Match[str] | None:
    """The match of ``token`` (word group 2) when it is an unknown plain word the decoding may
    replace; None for known words, identifiers, numbers, acronyms and short words (with
    ``two_letter``, a bare lower-case two-letter word as spelling mends them, `text.BARE_TWO_LETTER`,
    may be replaced too)."""
    m = SPELLABLE_WORD.fullmatch(token) or (BARE_TWO_LETTER.fullmatch(token) if two_letter else None)
    if m is None:
        return None
    word = m.group(2)
    if _HUMP.search(word) or ACRONYM.fullmatch(word) or word.lower() in frequency_words():
        return None
    return m


def _shortlist(word: str, setting: LexiconSetting) -> list[str]:
    """Candidate words for ``word`` (cased like it), nearest first, then most frequent."""
    freq = frequency_words()
    hits = [h for h in near_words(word.lower()) if h[0] != word.lower()]
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

    def prior(word: str) -> float:
        return setting.prior * math.log(freq.get(word.lower(), 1))

    # (line, token index, candidate words, candidate texts of the whole line) per unknown word
    asks: list[tuple[int, int, list[str], list[str]]] = []
    for b, text in enumerate(greedy):
        toks = text.split(" ")
        for j, tok in enumerate(toks):
            m = replaceable(tok, setting.two_letter)
            if m is None:
                continue
            words = _shortlist(m.group(2), setting)
            if words:
                lines = [" ".join([*toks[:j], m.group(1) + w + m.group(3), *toks[j + 1:]]) for w in words]
                asks.append((b, j, words, lines))
    if not asks:
        return list(greedy)
    asked_lines = sorted({b for b, *_ in asks})
    line_of = [*asked_lines, *(b for b, _, words, _ in asks for _ in words)]
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
        if got[best] >= base[b] - setting.margin:
            m = SPELLABLE_WORD.fullmatch(out[b][j]) or BARE_TWO_LETTER.fullmatch(out[b][j])
            assert m is not None
            out[b][j] = m.group(1) + words[best] + m.group(3)
    return [" ".join(toks) for toks in out]


#: the setting the learned readers (cleaned and grey crops) decode with. Margin 10 since the thirteenth
#: stretch (re-swept with prior 0.5, the reader vote on, `eval/ctc_lexicon_sweep.py`, margins 3/5/7/10,
#: two-letter words too): margin 5 -> 10 textrec10_puml 0.8704 -> 0.8704, pumlword10_a 0.9310 -> 0.9317,
#: pumlword10_b 0.8903 -> 0.8903, pumlread13_puml 0.9248 -> 0.9263, textrec10_gv 0.9236 -> 0.9245; guards
#: gvword9_mp 0.9233 -> 0.9251, pumlword9_smallclean 0.9035 -> 0.9052, textrec9_clean 0.9380 -> 0.9392,
#: textrec9_hand 0.8921 -> 0.8921 (docs/transcription.md has the rest). The twelfth stretch chose
#: (5, 0.5) (`recogniser.LineRecogniserEngine` reads with it) on full-pipeline word F1 (margin
#: 2/3/5/7/10/20, prior 0/0.5/1, the cleaned reader alone, the grey one alone, both): greedy -> (5, 0.5) on wild tuning sets textrec10_gv 0.8702 -> 0.8847,
#: textrec10_puml 0.8323 -> 0.8381, pumlword10_a 0.9116 -> 0.9154, pumlword10_b 0.8783 -> 0.8824,
#: ctclex12_gv 0.7127 -> 0.7231, ctclex12_puml 0.9640 -> 0.9649; guards gvword9_mp 0.8798 -> 0.8898,
#: pumlword9_smallclean 0.8932 -> 0.8940, textrec9_clean 0.9337 -> 0.9350, textrec9_hand 0.8921 and
#: codeocr11_prog 0.9842 (no small print: untouched) unchanged. Margin 10 and 20 lowered textrec10_gv (0.8756, 0.8746); prior 0.5
#: (`frequency_words` ranks near ties: ``fonal`` -> ``final``, not ``tonal``) added +0.003-0.005 on
#: the Graphviz sets; the cleaned reader alone gained less on every set
SHIPPED = LexiconSetting(margin=10.0, prior=0.5)
