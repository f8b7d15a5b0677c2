"""The cheaper paths of the OCR transcriber compute what the plain numpy versions did: histogram
medians, the background distance, the rejoin pass working inside the loose pieces' box, and the
per-step CPU record. Real tesseract for the chart-level checks (no mocks)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from flowpath.geometry import Region
from flowpath.models.base import LabelledChart
from tests.transcribe.markers import require_tesserocr


@pytest.mark.parametrize("seed", range(6))
def test_fill_color_is_numpy_s_median(seed):
    from flowpath.transcribe.ocr.crops import fill_color

    rng = np.random.default_rng(seed)
    page = rng.integers(0, 256, (90, 140, 3)).astype(np.uint8)
    page[::3] //= 64  # repeated values, as on flat fills
    for _ in range(20):
        y0, x0 = rng.integers(0, 40, 2)
        rgb = page[y0:y0 + rng.integers(1, 50), x0:x0 + rng.integers(1, 100)]  # a strided view
        mask = rng.random(rgb.shape[:2]) < rng.uniform(0.05, 1.0)
        mask.flat[0] = True
        expected = np.median(rgb.astype(np.float32)[mask], axis=0)
        got = fill_color(rgb, mask)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)  # odd and even counts alike


def test_fill_color_averages_the_two_middle_values_of_an_even_count():
    from flowpath.transcribe.ocr.crops import fill_color

    rgb = np.array([[[10, 0, 7], [11, 255, 7]]], np.uint8)
    np.testing.assert_array_equal(fill_color(rgb, np.ones((1, 2), bool)), [10.5, 127.5, 7.0])


def test_background_distance_is_the_largest_channel_difference():
    from flowpath.transcribe.ocr.connectors import background_distance

    img = np.random.default_rng(3).integers(0, 256, (37, 53, 3)).astype(np.uint8)
    bg = np.array([250.4, 3.6, 128.0])
    expected = np.abs(img.astype(np.int16) - np.round(bg).astype(np.int16)).max(axis=2)
    np.testing.assert_array_equal(background_distance(img, bg), expected)


def _font(size: int = 22) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.truetype("DejaVuSans.ttf", size)
    except OSError:
        return ImageFont.load_default()


def _far_chart() -> LabelledChart:
    """Two boxes far from the page's top-left corner joined by a long-dashed arrow (gaps too
    wide for the first closing, so only the rejoin pass links it), plus a solid arrow near the
    origin between two other boxes: the rejoin box lies well inside the page. The dashes are
    thick, so only the line width measured inside the rejoined piece's own box tells the
    arrowhead from the dash that leaves A."""
    img = Image.new("RGB", (900, 760), "white")
    d = ImageDraw.Draw(img)
    boxes = {"A": (520, 300, 740, 360), "B": (520, 560, 740, 620), "C": (40, 30, 260, 90), "D": (40, 200, 260, 260)}
    for name, box in boxes.items():
        d.rectangle(box, fill="white", outline="black", width=3)
        d.text((box[0] + 14, box[1] + 18), f"Step {name}", fill="black", font=_font())
    for y in range(364, 520, 42):  # A -> B: thick dashes 12 px long, 30 px gaps
        d.line(((630, y), (630, y + 12)), fill="black", width=6)
    d.polygon([(630, 552), (616, 530), (644, 530)], fill="black")
    d.line(((150, 94), (150, 186)), fill="black", width=3)  # C -> D, solid
    d.polygon([(150, 196), (142, 182), (158, 182)], fill="black")
    arr = np.array(img)
    regions = {k: Region(tuple(float(v) for v in b)) for k, b in boxes.items()}
    return LabelledChart(arr, arr, regions)


@require_tesserocr
def test_a_dashed_arrow_far_from_the_origin_is_rejoined_and_steps_are_timed():
    from flowpath.transcribe import make_transcriber

    tr = make_transcriber("ocr", engine="tesseract")([_far_chart()])[0]
    assert {(e.source, e.target) for e in tr.chart.edges} == {("A", "B"), ("C", "D")}
    assert [tr.chart.node(k).text for k in "AB"] == ["Step A", "Step B"]
    cpu = tr.meta["cpu_s"]
    assert set(cpu) == {"foreground", "nodes", "edge_labels", "connectors", "graph", "node_crops"}
    assert all(v >= 0 for v in cpu.values())
    assert cpu["node_crops"] > 0  # the reading thread cleaned the crops


@require_tesserocr
def test_the_rejoined_piece_measures_its_line_width_in_its_own_box():
    from flowpath.transcribe import make_transcriber

    tr = make_transcriber("ocr", engine="tesseract")
    chart = _far_chart()
    page = tr._foreground(chart.image, chart)
    nodes = tr._nodes(page)
    boxes, conn, shadowed = tr._edge_labels(page, nodes.line_h)
    components = tr._connectors(page, conn, boxes, nodes.line_h, shadowed)
    nodes.reading.result()
    ab = [c for c in components.values() if {page.letters[ct.region] for ct in c.contacts} == {"A", "B"}]
    assert len(ab) == 1
    # the thick dash leaving A is no arrowhead against the dashes' own width (a line width
    # taken from the wrong part of the page made every end look like a head)
    assert [ct.arrow for ct in ab[0].contacts if page.letters[ct.region] == "A"] == [False]
