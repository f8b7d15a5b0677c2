"""The readers of a small-print node vote on its words (issue 14, thirteenth stretch): where two or
more other readers of the same crop agree on a word, it replaces the kept reading's; identifiers,
numbers and words only one reader saw stay as the kept reader read them (real readings recorded on
the wild PlantUML tuning sets; a real blurred render read by the real engines)."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowpath.transcribe.ocr.text import frequency_words, vote_words
from tests.markers import require_torch
from tests.transcribe.markers import require_tesserocr
from tests.transcribe.small_print import green_node_chart
from tests.transcribe.test_grey_print import _SERIF, needs_serif

needs_words = pytest.mark.skipif(not frequency_words(), reason="needs symspellpy's word list (flowpath[ocr])")


@needs_words
def test_a_word_two_other_readers_agree_on_replaces_the_kept_one():
    # pumlword10_a: rapidocr was kept (the surest), tesseract and both learned readers read "node"
    assert vote_words("Merge mode into cache", ["Merge node inte cache", "Merge node into cache",
                                                 "S4erpe node into cache"]) == "Merge node into cache"
    # textrec10_puml: the grey reading was kept; the cleaned-crop reader and rapidocr read the line
    # right; tesseract's garbage agrees with nothing. Case and punctuation are the kept reader's
    assert vote_words("Con a connection to the dacacucup", [
        "Coen 6 Corrects te dastew", "Open a corvection to the database",
        "Open a connection to the database"]) == "Open a connection to the database"
    assert vote_words("Top sticky?", ["Too sticky?", "Too snaky?", "Too sticky?"]) == "Too sticky?"


@needs_words
def test_the_kept_reader_counts_and_a_tie_keeps_its_word():
    # textrec10_puml: "count" read by the kept reader and one other, "court" by two: a tie
    assert vote_words("Spit count into tokens", ["Spit court into tokens", "Spit court into tokens",
                                                 "Spit count into tokens"]) == "Spit count into tokens"
    # one other reader is not a vote
    assert vote_words("Release the lock om token", ["Release the lock on token"]) == "Release the lock om token"
    # a word cased as no word is written is no vote (textrec9_hand: both learned readers read a
    # hand-drawn "LOG" as "Lot" / "LOt"; rapidocr, kept, read it right)
    assert vote_words("LOG FiLE", ["Loe FILE", "Lot F(LE", "LOt F(LE"]) == "LOG FiLE"
    # two readers split between two words: neither wins
    assert vote_words("Keep a prof", ["Keep a copy", "Keep a cope"]) == "Keep a prof"


@needs_words
def test_identifiers_numbers_and_unknown_words_are_neither_replaced_nor_voted_for():
    # a call, an attribute and a number stay as the kept reader read them
    kept = "Call send_requestirecord) with self.itemis 10"
    others = ["Call send_request(record) with self.items to", "Call send_request(record) with self.items to"]
    assert vote_words(kept, others) == kept
    # a word out of the frequency list is no candidate (pumlword10_b: "tokems" agreed on twice)
    assert vote_words("split path into tokens?", ["split path into tokems?", "split path imto tokems?"]) \
        == "split path into tokens?"


def _small_chart(texts: list[str], sigma: float):
    """Two nodes of 10-px Liberation Serif on a green fill, blurred by ``sigma`` and saved as JPEG 70."""
    return green_node_chart(texts, _SERIF, 10, (420, 60), [(10, 10, 200, 46), (220, 10, 410, 46)], sigma)


@require_torch
@require_tesserocr
@needs_serif
@needs_words
def test_the_transcriber_lets_the_other_readers_mend_the_kept_readings_slip():
    from dataclasses import replace

    from flowpath.transcribe.ocr import OCRTranscriber

    assert Path(_SERIF).is_file()

    class Slipping(OCRTranscriber):
        """The real engines read the chart; the kept reading of node A then slips on one word,
        as a reader does on blurred print (``node`` -> ``mode``), its alternates as read."""

        def grey_read(self, grey_crops, readings, margin=0.0, specialist=False):  # type: ignore[no-untyped-def]
            out = super().grey_read(grey_crops, readings, margin, specialist)
            first = out[0]
            self.alternates = first.alternates
            out[0] = replace(first, words=[(w[0], w[1], w[2], w[3].replace("node", "mode")) for w in first.words])
            return out

    chart = _small_chart(["Merge node into cache", "Open a connection"], 0.4)
    voting = Slipping(workers=1)
    text = voting([chart])[0].chart.nodes["A"].text
    # every other reader of the node read "node" (tesseract, rapidocr where asked, the other learned reader)
    assert sum("node" in a.split() for a in voting.alternates) >= 2
    assert text.split() == ["Merge", "node", "into", "cache"]
    kept = Slipping(workers=1, vote=False)([chart])[0].chart.nodes["A"].text
    assert kept.split() == ["Merge", "mode", "into", "cache"]
