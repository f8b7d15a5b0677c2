"""OCRTranscriber on real renders (the examples' charts) and on hand-drawn bad input, with the
real tesseract binary."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from flowpath.datasets.febench import Benchmark
from flowpath.geometry import Region
from flowpath.models.base import LabelledChart
from tests.markers import REPO_ROOT, require_tesseract

pytestmark = require_tesseract
EXAMPLES = REPO_ROOT / "examples"


@pytest.fixture(scope="module")
def transcriber():
    from flowpath.transcribe import make_transcriber

    return make_transcriber("ocr")


@pytest.fixture(scope="module")
def example_report(transcriber):
    from flowpath.evaluation.transcription import evaluate_transcription

    return evaluate_transcription(EXAMPLES, transcriber, gold_regions=True)


def test_examples_are_transcribed_with_text_edges_and_conditions(example_report):
    s = example_report["overall"]
    assert not example_report["failures"]
    assert s["charts"] == len(Benchmark(EXAMPLES))
    assert s["word_f1"] >= 0.9
    assert s["edge_f1"] >= 0.9
    assert s["condition_accuracy"] is not None and s["condition_accuracy"] >= 0.8


def test_decision_nodes_come_out_as_rhombus(transcriber):
    from flowpath.io import load_image
    from flowpath.labeller import draw_labels
    from flowpath.mermaid import parse_mermaid

    chart = Benchmark(EXAMPLES).chart("loan")
    gold = parse_mermaid(chart.mermaid)
    img = load_image(chart.image_path)
    ids = [k for k in gold.nodes if k in chart.regions]
    lab, regions = draw_labels(img, [chart.regions[k] for k in ids])
    tr = transcriber([LabelledChart(img, lab, regions)])[0]
    by_box = {tuple(r.bbox): letter for letter, r in regions.items()}
    for k in ids:
        letter = by_box[tuple(chart.regions[k].bbox)]
        if gold.nodes[k].shape == "rhombus":
            assert tr.chart.nodes[letter].shape == "rhombus"
            assert tr.chart.nodes[letter].kind == "decision"
            # a decision's out-edges carry yes/no
            assert {e.condition for e in tr.chart.out_edges(letter)} <= {"yes", "no"}
    assert tr.mermaid.startswith("flowchart")


def _font(size=22):
    try:
        return ImageFont.truetype("DejaVuSans.ttf", size)
    except OSError:
        return ImageFont.load_default()


def _drawn(boxes, texts, lines=(), arrows=()):
    img = Image.new("RGB", (420, 420), "white")
    d = ImageDraw.Draw(img)
    for (x0, y0, x1, y1), t in zip(boxes, texts, strict=True):
        d.rectangle((x0, y0, x1, y1), outline="black", width=2)
        if t:
            d.text((x0 + 12, y0 + 14), t, fill="black", font=_font())
    for (a, b) in lines:
        d.line((a, b), fill="black", width=2)
    for (tip, left, right) in arrows:
        d.polygon([tip, left, right], fill="black")
    arr = np.array(img)
    regions = {chr(65 + i): Region(tuple(float(v) for v in b)) for i, b in enumerate(boxes)}
    return LabelledChart(arr, arr, regions)


def test_arrow_direction_and_text_from_a_hand_drawn_chart(transcriber):
    # B (bottom) -> A (top): the arrowhead sits at A's lower edge
    chart = _drawn([(100, 40, 320, 100), (100, 260, 320, 320)], ["Top box", "Bottom box"],
                   lines=[((210, 258), (210, 112))], arrows=[((210, 102), (200, 118), (220, 118))])
    tr = transcriber([chart])[0]
    assert [(e.source, e.target) for e in tr.chart.edges] == [("B", "A")]
    assert "top" in tr.chart.nodes["A"].text.lower()
    assert "bottom" in tr.chart.nodes["B"].text.lower()


@pytest.mark.parametrize("case", ["no_regions", "blank_node", "dangling", "tiny_region"])
def test_bad_input_gives_a_graph_with_problems(transcriber, case):
    if case == "no_regions":
        arr = np.full((100, 100, 3), 255, np.uint8)
        chart = LabelledChart(arr, arr, {})
        want_nodes, needle = 0, "no node regions"
    elif case == "blank_node":
        chart = _drawn([(100, 40, 320, 100), (100, 260, 320, 320)], ["Hello world", ""],
                       lines=[((210, 102), (210, 245))], arrows=[((210, 258), (200, 242), (220, 242))])
        want_nodes, needle = 2, "node B: no readable text"
    elif case == "dangling":
        chart = _drawn([(100, 40, 320, 100), (100, 260, 320, 320)], ["Alpha", "Beta"],
                       lines=[((210, 102), (210, 180)), ((210, 180), (400, 180))])
        want_nodes, needle = 2, "leads nowhere"
    else:
        arr = np.full((100, 100, 3), 255, np.uint8)
        chart = LabelledChart(arr, arr, {"A": Region((10, 10, 11, 11)), "B": Region((50, 50, 90, 90))})
        want_nodes, needle = 2, "no readable text"
    tr = transcriber([chart])[0]
    assert len(tr.chart.nodes) == want_nodes
    assert set(tr.chart.nodes) == set(chart.regions)
    assert any(needle in p for p in tr.problems), tr.problems
    if case == "dangling":
        assert not tr.chart.edges


def test_corrupt_image_is_reported_not_raised(transcriber):
    bad = np.zeros((0, 0, 3), np.uint8)
    tr = transcriber([LabelledChart(bad, bad, {"A": Region((0, 0, 5, 5))})])[0]
    assert list(tr.chart.nodes) == ["A"]
    assert tr.problems and "failed" in tr.problems[0]
