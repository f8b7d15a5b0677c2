"""Lexicon-aware CTC decoding of the learned recognisers (issue 14, twelfth stretch): a word
greedy decoding misreads is read from the network's own posteriors when a dictionary word is
about as likely; identifiers, numbers, acronyms and known words stay as read (real shipped
weights on a real blurred render; the rule on posteriors built for a line)."""

from __future__ import annotations

import math

import pytest

from flowpath.transcribe.ocr.ctc_lexicon import SHIPPED, LexiconSetting, lexicon_decode, replaceable
from flowpath.transcribe.ocr.text import frequency_words
from tests.markers import require_torch
from tests.transcribe.test_grey_print import _SERIF, needs_serif

needs_words = pytest.mark.skipif(not frequency_words(), reason="needs symspellpy's word list (flowpath[ocr])")


def test_only_unknown_plain_words_may_be_replaced():
    if not frequency_words():
        pytest.skip("needs symspellpy's word list (flowpath[ocr])")
    assert replaceable("ingedests,").group(2) == "ingedests"  # type: ignore[union-attr]
    for token in ("fetch_dta", "maxVal", "x2", "3500", "JSN", "len(", "the", "socket", "to"):
        assert replaceable(token) is None, token


@require_torch
@needs_words
def test_identifiers_numbers_and_known_words_survive_any_margin():
    import torch

    from flowpath.transcribe.ocr.recogniser import CHARSET

    line = "Call fetch_dta(x2) with maxVal sockt 3500 JSN"
    # posteriors that spell the line exactly, one step per character and a blank between
    steps = 2 * len(line) + 1
    log_probs = torch.full((1, steps, len(CHARSET) + 1), math.log(1e-4))
    for t in range(steps):
        log_probs[0, t, 0 if t % 2 == 0 else CHARSET.index(line[t // 2]) + 1] = 0.0
    log_probs = torch.log_softmax(log_probs, dim=-1)
    out = lexicon_decode(log_probs, [steps], [line], CHARSET, LexiconSetting(margin=1e6))[0]
    # the one unknown plain word goes to a word of the list; the rest is kept as read
    assert out.split(" ")[:4] == line.split(" ")[:4]
    assert out.split(" ")[5:] == ["3500", "JSN"]
    assert out.split(" ")[4] != "sockt" and out.split(" ")[4] in frequency_words()
    # with no margin to spend, the greedy reading stands
    assert lexicon_decode(log_probs, [steps], [line], CHARSET, LexiconSetting(margin=-1e6))[0] == line


@require_torch
@needs_serif
@needs_words
def test_the_shipped_recogniser_reads_a_blurred_word_greedy_decoding_misses():
    from flowpath.transcribe.ocr.crops import to_text_crop
    from flowpath.transcribe.ocr.recogniser import LineRecogniserEngine
    from tests.transcribe.test_grey_print import _blurred_line

    assert _SERIF
    # 10-px serif, white on a saturated red fill, blurred by 1 px and saved as JPEG 60
    crop = to_text_crop(_blurred_line("Submit the application", 10, (176, 32, 40), (255, 255, 255), 1.0),
                        None, line_height=10.0)
    assert crop is not None
    greedy = LineRecogniserEngine(lexicon=None).read([crop])[0]
    lexicon = LineRecogniserEngine().read([crop])[0]
    assert LineRecogniserEngine().lexicon == SHIPPED
    # the best path through the posteriors misspells the words; the likeliest dictionary words are them
    for word in ("Submit", "application"):
        assert word not in greedy.text.split()
        assert word in lexicon.text.split()
    # the confidence is the greedy path's (the choice rules were tuned on it)
    assert lexicon.confidence == greedy.confidence


@require_torch
@needs_serif
@needs_words
def test_the_shipped_margin_reaches_a_word_the_twelfth_stretchs_margin_left():
    from flowpath.transcribe.ocr.crops import to_text_crop
    from flowpath.transcribe.ocr.recogniser import LineRecogniserEngine
    from tests.transcribe.test_grey_print import _blurred_line

    # 10-px serif, white on red, blurred by 1.2 px and saved as JPEG 60: with the shipped weights
    # the likeliest dictionary word for the misread is 5-10 nats below the greedy line
    crop = to_text_crop(_blurred_line("Measure the ingredients", 10, (176, 32, 40), (255, 255, 255), 1.2),
                        None, line_height=10.0)
    assert crop is not None
    narrow = LineRecogniserEngine(lexicon=LexiconSetting(margin=5.0, prior=SHIPPED.prior)).read([crop])[0]
    shipped = LineRecogniserEngine().read([crop])[0]
    assert "ingredients" not in narrow.text.split()
    assert shipped.text.split()[-1] == "ingredients"
