"""The handwriting engine on real renders: rapidocr's detector reads touching handwritten lines in
order, and `choice`'s engine rule tells a handwritten chart from a printed one (no mocks)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from flowpath.transcribe.ocr.choice import CHART_BELOW, CROP_BELOW, HAND_KEEP_AT, choose_engines
from tests.transcribe.markers import require_rapidocr, require_tesserocr

#: a handwriting face of data_gen's train fonts (fonts-bwht), never the eval set's held-out ones
_HAND = "/usr/share/fonts/opentype/bwht/BecauseWeLearn-Regular.otf"
needs_hand_font = pytest.mark.skipif(not Path(_HAND).is_file(), reason="needs the Debian font fonts-bwht")


def test_a_chart_tesseract_doubts_goes_to_rapidocr_whole():
    plan = choose_engines([0.5, 0.7, None, 0.4, 0.9])
    assert plan.handwritten and plan.second == (0, 1, 3, 4)  # every inked crop, even a sure one
    # tesseract's confidence does not count on handwriting, rapidocr's own does
    assert plan.keep_second(0.95, HAND_KEEP_AT, True) and not plan.keep_second(0.1, HAND_KEEP_AT - 0.05, True)
    assert not plan.keep_second(0.1, 0.99, False)


def test_a_print_chart_asks_rapidocr_only_for_doubtful_crops():
    sure = min(1.0, CHART_BELOW + 0.2)
    plan = choose_engines([sure, sure, CROP_BELOW - 0.1, 0.0, None, sure])
    assert not plan.handwritten and plan.second == (2, 3)
    assert plan.keep_second(0.2, 0.5, True) and not plan.keep_second(0.5, 0.2, True)
    assert choose_engines([None, None]) == choose_engines([])


def _touching_lines(text: str, size: int = 40) -> np.ndarray:
    """Two handwritten lines set so close that descenders and capitals meet (no blank row)."""
    font = ImageFont.truetype(_HAND, size)
    img = Image.new("RGB", (560, 150), "white")
    ImageDraw.Draw(img).multiline_text((20, 15), text, fill="black", font=font, spacing=-int(size * 0.2))
    return np.asarray(img)


@require_rapidocr
@needs_hand_font
def test_rapidocr_reads_touching_handwritten_lines_top_to_bottom():
    from flowpath.transcribe.ocr.crops import to_text_crop
    from flowpath.transcribe.ocr.engines import RapidOCREngine, split_lines
    from flowpath.transcribe.ocr.text import join_lines

    crop = to_text_crop(_touching_lines("Pay the Invoice\nship your Parcel"), None, line_height=40)
    assert crop is not None and len(split_lines(crop.image)) == 1  # no blank row between them
    reading = RapidOCREngine().read([crop])[0]
    words = join_lines(reading.words).lower().split()
    assert len(reading.words) == 2, reading.words
    first, second = {"pay", "the", "invoice"}, {"ship", "your", "parcel"}
    assert len(first & set(words)) >= 2 and len(second & set(words)) >= 2, words
    # top line first
    assert max(words.index(w) for w in first & set(words)) < min(words.index(w) for w in second & set(words))


@require_tesserocr
@require_rapidocr
@needs_hand_font
def test_choice_rule_on_rendered_charts_hands_handwriting_to_rapidocr():
    from flowpath.models.base import LabelledChart
    from flowpath.transcribe.ocr import OCRTranscriber
    from tests.transcribe.handwriting import render_chart
    from tests.transcribe.test_engines import _yes_no_chart

    img, regions, gold = render_chart(_HAND, seed=11, nodes=5)
    chart = LabelledChart(img, img, regions)
    tr = OCRTranscriber(engine="auto")
    out = tr([chart])[0]
    engines = list(out.meta["node_engines"].values())
    # the chart as a whole goes to rapidocr (tesseract keeps a node only where rapidocr is unsure)
    assert engines.count("rapidocr") > len(engines) / 2, out.meta["node_engines"]
    tess = OCRTranscriber(engine="tesseract")([chart])[0]
    assert _word_f1(out, gold, regions) >= _word_f1(tess, gold, regions)
    printed = tr([_yes_no_chart()])[0]
    assert set(printed.meta["node_engines"].values()) == {"tesseract"}


def _word_f1(out, gold, regions) -> float:  # type: ignore[no-untyped-def]
    from flowpath.metrics.transcription import TranscriptionMetric

    metric = TranscriptionMetric()
    metric.update(out.chart, regions, gold, regions)
    return float(metric.summary()["overall"]["word_f1"])
