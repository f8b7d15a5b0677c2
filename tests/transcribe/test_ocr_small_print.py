"""Small print (issue 14): 9-10 px text on a saturated fill, blurred and JPEG-compressed, as the
wild family draws it. Its crop keeps the letters apart, and words that lost a thin stroke are
spelled back from the English frequency list. Real tesseract, real rendered text."""

from __future__ import annotations

import io
from importlib.util import find_spec

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from tests.transcribe.markers import require_tesserocr

require_symspellpy = pytest.mark.skipif(find_spec("symspellpy") is None,
                                        reason="needs symspellpy's frequency list (flowpath[ocr])")

_TEXTS = ["Is the deadline past?", "Output the finished materials", "Collect the leaves",
          "Sand the frame in a cool place", "Fold the soil until smooth"]


def _small_node(text: str, size: int, fill: tuple[int, int, int] = (150, 190, 40)) -> np.ndarray:
    """A 200 x 40 node, black ``text`` at ``size`` px, blurred a little and saved as JPEG."""
    pil = Image.new("RGB", (200, 40), fill)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", size)
    ImageDraw.Draw(pil).text((100, 20), text, fill=(0, 0, 0), font=font, anchor="mm")
    buf = io.BytesIO()
    pil.filter(ImageFilter.GaussianBlur(0.6)).save(buf, format="JPEG", quality=50)
    return np.asarray(Image.open(buf).convert("RGB"))


@require_symspellpy
@pytest.mark.parametrize(("read", "want"), [
    ("Is the deadine past?", "Is the deadline past?"),      # a lost thin letter
    ("Output the finshed matenals", "Output the finished materials"),
    ("SMOOTHH", "SMOOTH"),                                   # case kept
    ("Cool te bowl", "Cool the bowl"),                       # "the" lost its h
    ("Trim fe edges", "Trim the edges"),                     # "th" read as one "f": not "be"
])
def test_spelling_restores_words_that_lost_a_stroke(read, want):
    from flowpath.transcribe.ocr.text import correct_spelling

    assert correct_spelling(read) == want


@require_symspellpy
@pytest.mark.parametrize("text", [
    "Call fetch_data()", "x = x42 + 1", "Stat the file", "Is the queue empty?", "Run qzxv",
    "Response Ok?", "Read os.environ", "Is the DB up?", "Set 'pq' to 0",
    "Decode the cache from JSON", "Send the HTTP request",  # acronyms ("JSON" became "SON")
])
def test_spelling_leaves_known_words_and_identifiers(text):
    from flowpath.transcribe.ocr.text import correct_spelling

    # known words (even a wrong one: "Stat"), identifiers, numbers and words no dictionary
    # word is near are left as read
    assert correct_spelling(text) == text


@require_symspellpy
def test_spelling_mends_against_the_charts_own_words_first():
    from flowpath.transcribe.ocr.choice import learned_opinion
    from flowpath.transcribe.ocr.crops import TextCrop
    from flowpath.transcribe.ocr.engines import Reading
    from flowpath.transcribe.ocr.text import chart_words, correct_spelling

    # "mxaure" is one edit from the frequent "mature" and two from "mixture"; an engine read
    # "mixture" elsewhere in the chart (a node's other reading, noted by the choice rule)
    crop = TextCrop(np.zeros((30, 30), np.uint8))

    class Learned:
        def read(self, crops):
            return [Reading([(0, 0, 9, "Trim thc mixture")], 0.5, "textrec"),
                    Reading([(0, 0, 9, "Stir the mixture")], 0.5, "textrec")]

    kept = learned_opinion([crop, crop], [Reading([(0, 0, 9, "Trim the mxaure")], 0.9, "rapidocr"),
                                          Reading([(0, 0, 9, "Stir the mixtune")], 0.9, "rapidocr")],
                           lambda: Learned(), 10.0)
    assert [r.text for r in kept] == ["Trim the mxaure", "Stir the mixtune"]  # rapidocr surer: kept
    chart = chart_words([r.text for r in kept] + [a for r in kept for a in r.alternates])
    assert chart["mixture"] == 2 and "thc" not in chart and "mxaure" not in chart  # English words only
    assert correct_spelling("Trim the mxaure") == "Trim the mature"
    assert correct_spelling("Trim the mxaure", chart=chart) == "Trim the mixture"
    # words the chart has nothing near still go to the frequency list; known words stay
    assert correct_spelling("Is the deadine past?", chart=chart) == "Is the deadline past?"


@require_symspellpy
def test_spelling_only_for_english():
    from flowpath.transcribe.ocr.text import correct_spelling

    assert correct_spelling("Is the deadine past?", lang="deu") == "Is the deadine past?"


@require_tesserocr
def test_small_print_on_a_saturated_fill_reads():
    from flowpath.metrics.transcription import words
    from flowpath.transcribe.ocr.crops import SMALL_LINE, to_text_crop
    from flowpath.transcribe.ocr.engines import TesseractEngine
    from flowpath.transcribe.ocr.text import correct_spelling, join_lines

    size = 9
    assert size * 1.2 < SMALL_LINE  # the small-print path
    crops = [to_text_crop(_small_node(t, size), None, line_height=size * 1.2) for t in _TEXTS]
    assert all(c is not None for c in crops)
    readings = TesseractEngine("eng", workers=1).read(crops)
    gold = [w for t in _TEXTS for w in words(t)]
    read = [w for r in readings for w in words(correct_spelling(join_lines(r.words)))]
    hits = sum(min(read.count(w), gold.count(w)) for w in set(gold))
    assert hits >= 0.8 * len(gold), read


@require_symspellpy
def test_capitals_are_acronyms_in_print_and_slips_in_handwriting():
    from flowpath.transcribe.ocr.text import correct_spelling

    # a print engine's "JSON" is an acronym; the handwriting engine's "CHEK" is a slip
    assert correct_spelling("Decode the data from JSON") == "Decode the data from JSON"
    assert correct_spelling("CHEK THE DOOR", keep_acronyms=False) == "CHECK THE DOOR"


@require_symspellpy
def test_words_run_together_are_cut_into_the_charts_words():
    from flowpath.transcribe.ocr.text import chart_words, correct_spelling

    chart = chart_words(["Collect the bowl", "then increment index", "Read request.body"])
    # the line recognisers lose a tight space; mended whole, the run became a long word
    assert correct_spelling("Collectthe bowl") == "Collective bowl"
    assert correct_spelling("Collectthe bowl", chart=chart) == "Collect the bowl"
    assert correct_spelling("thenincrement index", chart=chart) == "then increment index"
    assert correct_spelling("Retrieve requestbody", chart=chart) == "Retrieve request body"
    # a word one edit from an English word is a misread, not a run ("atend" is not "at end")
    assert correct_spelling("Atend", chart=chart_words(["the end"])) == "Attend"
    # pieces the chart never read are no cut
    assert correct_spelling("deanup", chart=chart) == correct_spelling("deanup")


@require_symspellpy
def test_a_camel_case_identifier_is_mended_part_by_part():
    from flowpath.transcribe.ocr.text import correct_spelling

    assert correct_spelling("raise ValueError") == "raise ValueError"
    # mended whole it was the nearest long English word ("Valuator")
    assert correct_spelling("raise ValueErtor") == "raise ValueError"
    assert correct_spelling("Raise ValurError") == "Raise ValueError"


@require_symspellpy
def test_programming_words_are_no_misreads():
    from flowpath.transcribe.ocr.text import chart_words, correct_spelling

    # the English frequency list has "confirm", not "config": a right reading was "mended"
    assert correct_spelling("Return config, args") == "Return config, args"
    # and a misread of one goes to it when the chart wrote it elsewhere
    assert correct_spelling("Release the lock on canfig", chart=chart_words(["Yield the next config"])) \
        == "Release the lock on config"
