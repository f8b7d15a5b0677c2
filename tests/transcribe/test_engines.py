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
    from flowpath.transcribe.ocr import engines, tessdata

    monkeypatch.setenv("TESSDATA_PREFIX", str(tmp_path))  # a folder without eng.traineddata
    monkeypatch.setattr(tessdata, "TESSDATA_DIRS", (str(tmp_path / "nowhere"),))
    assert tessdata.find_tessdata("eng") is None
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


def _word_f1(out, gold) -> float:  # type: ignore[no-untyped-def]
    from flowpath.evaluation.transcription import TranscriptionMetric

    metric = TranscriptionMetric()
    regions = {k: out.meta["regions"][k] for k in gold.nodes}
    metric.update(out.chart, regions, gold, regions)
    return float(metric.summary()["overall"]["word_f1"])


@require_tesserocr
@require_rapidocr
def test_auto_engine_reads_rendered_handwriting_with_rapidocr_and_print_with_tesseract():
    from flowpath.transcribe.ocr import OCRTranscriber
    from tests.transcribe.handwriting import available_fonts, render_chart

    fonts = available_fonts()
    if "fonts-dkg-handwriting" not in fonts:
        pytest.skip("needs the Debian handwriting font fonts-dkg-handwriting")
    img, regions, gold = render_chart(fonts["fonts-dkg-handwriting"], seed=5, nodes=4)
    chart = LabelledChart(img, img, regions)
    tess = OCRTranscriber(engine="tesseract")([chart])[0]
    auto = OCRTranscriber(engine="auto")([chart])[0]
    for out in (tess, auto):
        out.meta["regions"] = regions
    # handwriting: tesseract is unsure of it, the auto rule hands those nodes to rapidocr
    assert "rapidocr" in auto.meta["node_engines"].values()
    assert _word_f1(auto, gold) > _word_f1(tess, gold)
    # print: tesseract is sure of it and keeps every node
    printed = _yes_no_chart()
    out = OCRTranscriber(engine="auto")([printed])[0]
    assert set(out.meta["node_engines"].values()) == {"tesseract"}
    assert "late" in out.chart.nodes["A"].text.lower()


@require_rapidocr
def test_rapidocr_reads_a_two_line_handwritten_node_line_by_line():
    from flowpath.transcribe.ocr.crops import to_text_crop
    from flowpath.transcribe.ocr.engines import RapidOCREngine, split_lines
    from tests.transcribe.handwriting import available_fonts

    fonts = available_fonts()
    if not fonts:
        pytest.skip("needs a Debian handwriting font (fonts-dkg-handwriting, fonts-humor-sans)")
    img = Image.new("RGB", (300, 120), "white")
    ImageDraw.Draw(img).multiline_text((20, 15), "send email\nto customer", fill="black",
                                       font=ImageFont.truetype(next(iter(fonts.values())), 32), spacing=10)
    crop = to_text_crop(np.asarray(img), None, line_height=40)
    assert crop is not None and len(split_lines(crop.image)) == 2
    reading = RapidOCREngine().read([crop])[0]
    # one reading per line, top line first; a slip inside a word may happen (handwriting)
    assert len(reading.words) == 2 and reading.words[0][0] < reading.words[1][0]
    read = [set(w[3].lower().split()) for w in reading.words]
    assert len(read[0] & {"send", "email"}) + len(read[1] & {"to", "customer"}) >= 3, reading.words


@require_rapidocr
@pytest.mark.skipif(__import__("shutil").which("dot") is None, reason="needs Debian graphviz (dot)")
def test_rapidocr_keeps_lines_it_read_with_accented_letters(tmp_path):
    """rapidocr's recogniser knows accented Latin letters: a line read with one (a real accent,
    or small print misread as ``éxen``) keeps its words, the accent dropped, instead of being
    thrown away whole as a non-Latin reading (real ``dot`` render, real rapidocr)."""
    from flowpath.labeller import draw_labels
    from flowpath.metrics.transcription import words
    from flowpath.transcribe.ocr import OCRTranscriber
    from tests.transcribe.test_tight_graphviz_boxes import DPI, PAD, render_dot

    labels = {"A": "Vérifier le café", "B": "Déjà réglé ?", "C": "Envoyer à l'équipe"}
    source = (f"digraph G {{\n  graph [pad={PAD}, bgcolor=white, dpi={DPI}];\n"
              '  node [fontname="DejaVu Sans", fontsize=14, shape=box];\n'
              + "".join(f'  {k} [label="{t}"];\n' for k, t in labels.items()) + "  A -> B -> C;\n}\n")
    image, boxes = render_dot(tmp_path, source, scale=1.0)
    labelled, regions = draw_labels(image, [Region(bbox=b) for b in boxes.values()], names=list(boxes))
    chart = OCRTranscriber(engine="rapidocr")([LabelledChart(image, labelled, regions)])[0].chart
    want = {"A": "Verifier le cafe", "B": "Deja regle ?", "C": "Envoyer a l'equipe"}
    for k, text in want.items():
        assert words(chart.nodes[k].text) == words(text), (k, chart.nodes[k].text)
