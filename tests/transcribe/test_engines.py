"""The OCR engines themselves: finding tesseract's data, clear errors when it is missing,
parallel Yes/No edges, and the engine choice on real rendered handwriting (no mocks)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from flowpath.geometry import Region
from flowpath.models.base import LabelledChart
from tests.transcribe.markers import require_rapidocr, require_tesserocr


def test_missing_language_data_names_the_debian_package(monkeypatch, tmp_path):
    from flowpath.errors import MissingDependencyError
    from flowpath.transcribe.ocr import engines

    monkeypatch.setenv("TESSDATA_PREFIX", str(tmp_path))  # a folder without eng.traineddata
    monkeypatch.setattr(engines, "_TESSDATA_DIRS", (str(tmp_path / "nowhere"),))
    assert engines.find_tessdata("eng") is None
    with pytest.raises(MissingDependencyError, match="apt-get install tesseract-ocr-eng"):
        engines.TesseractEngine("eng")


@require_tesserocr
def test_debian_language_data_is_found_without_configuration(monkeypatch):
    from flowpath.transcribe.ocr.engines import TesseractEngine, find_tessdata

    monkeypatch.delenv("TESSDATA_PREFIX", raising=False)
    found = find_tessdata("eng")
    assert found is not None and (found / "eng.traineddata").is_file()
    img = Image.new("L", (260, 60), 255)
    ImageDraw.Draw(img).text((10, 10), "Hello world", fill=0, font=_font(32))
    words, confs = TesseractEngine("eng", workers=1).words(np.asarray(img))
    assert [w[3] for w in words] == ["Hello", "world"] and min(confs) > 50


def test_unknown_engine_is_a_clear_error():
    from flowpath.transcribe.ocr import OCRTranscriber

    with pytest.raises(ValueError, match="unknown OCR engine 'easyocr'"):
        OCRTranscriber(engine="easyocr")


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.truetype("DejaVuSans.ttf", size)
    except OSError:
        return ImageFont.load_default()


def _yes_no_chart() -> LabelledChart:
    """A decision with a ``Yes`` and a ``No`` connector to the same node, side by side."""
    img = Image.new("RGB", (460, 420), "white")
    d = ImageDraw.Draw(img)
    d.rectangle((130, 30, 330, 90), outline="black", width=2)
    d.text((150, 45), "Is it late?", fill="black", font=_font(24))
    d.rectangle((130, 320, 330, 380), outline="black", width=2)
    d.text((150, 335), "Go home", fill="black", font=_font(24))
    for x, word in ((170, "Yes"), (290, "No")):
        d.line(((x, 92), (x, 300)), fill="black", width=2)
        d.polygon([(x, 318), (x - 9, 298), (x + 9, 298)], fill="black")
        d.rectangle((x - 30, 170, x + 30, 205), fill=(240, 240, 240))
        d.text((x - 22, 174), word, fill="black", font=_font(22))
    arr = np.asarray(img)
    return LabelledChart(arr, arr, {"A": Region((128, 28, 332, 92)), "B": Region((128, 318, 332, 382))})


@require_tesserocr
def test_yes_and_no_edges_between_the_same_nodes_are_both_kept():
    from flowpath.transcribe.ocr import OCRTranscriber

    tr = OCRTranscriber(engine="tesseract")([_yes_no_chart()])[0]
    assert sorted((e.source, e.target, e.label) for e in tr.chart.edges) == [
        ("A", "B", "No"), ("A", "B", "Yes")], tr.problems
    assert {e.condition for e in tr.chart.edges} == {"yes", "no"}


@pytest.mark.parametrize("texts, want", [
    (["Yes", "No"], ["Yes", "No"]),            # two branch words: two parallel edges
    (["Yes"], ["Yes"]),
    (["f", "No"], ["No"]),                     # a speck box beside the label: one edge
    (["Send", "mail"], ["Send mail"]),         # a label split over two boxes: one edge
    ([], [None]),
])
def test_label_boxes_of_one_connector_make_one_edge_per_branch_word(texts, want):
    from flowpath.transcribe.ocr.transcriber import _edge_labels

    assert _edge_labels(texts) == want
