"""Connector recovery on drawn charts (PIL, real tesseract): drop shadows beside nodes, labels set
beside their connector, long-dashed arrows that stop short of their node, elbowed back-edges that
loop up the page."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from flowpath.geometry import Region
from flowpath.models.base import LabelledChart
from tests.markers import require_tesseract

pytestmark = require_tesseract

TOP, BOTTOM = (100, 40, 320, 100), (100, 260, 320, 320)


@pytest.fixture(scope="module")
def transcriber():
    from flowpath.transcribe import make_transcriber

    return make_transcriber("ocr", engine="tesseract")


def _font(size: int = 22) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.truetype("DejaVuSans.ttf", size)
    except OSError:
        return ImageFont.load_default()


def _chart(draw_connectors, *, shadow: bool = False, fill: str = "white", border: str = "black") -> LabelledChart:  # type: ignore[no-untyped-def]
    """Two boxes (``TOP`` = A, ``BOTTOM`` = B) on an off-white page, connectors drawn by
    ``draw_connectors(ImageDraw)``; with ``shadow`` each box casts a soft grey drop shadow."""
    img = Image.new("RGB", (440, 380), (239, 239, 239))
    if shadow:
        layer = Image.new("L", img.size, 0)
        ld = ImageDraw.Draw(layer)
        for (x0, y0, x1, y1) in (TOP, BOTTOM):
            ld.rectangle((x0 + 8, y0 + 8, x1 + 8, y1 + 8), fill=170)
        layer = layer.filter(ImageFilter.GaussianBlur(3))
        img = Image.composite(Image.new("RGB", img.size, (60, 60, 60)), img, layer)
    d = ImageDraw.Draw(img)
    for box, text in ((TOP, "Read the order"), (BOTTOM, "Ship the parcel")):
        d.rectangle(box, fill=fill, outline=border, width=3)
        d.text((box[0] + 14, box[1] + 18), text, fill="black", font=_font())
    draw_connectors(d)
    arr = np.array(img)
    regions = {name: Region((float(x0), float(y0), float(x1), float(y1)))
               for name, (x0, y0, x1, y1) in (("A", TOP), ("B", BOTTOM))}
    return LabelledChart(arr, arr, regions)


def _head_down(d: ImageDraw.ImageDraw, x: int, tip_y: int) -> None:
    d.polygon([(x, tip_y), (x - 8, tip_y - 14), (x + 8, tip_y - 14)], fill="black")


def _edges(tr) -> set[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return {(e.source, e.target) for e in tr.chart.edges}


def test_drop_shadows_do_not_turn_the_source_end_into_an_arrowhead(transcriber):
    def draw(d: ImageDraw.ImageDraw) -> None:
        d.line(((210, 102), (210, 246)), fill="black", width=2)
        _head_down(d, 210, 258)

    tr = transcriber([_chart(draw, shadow=True, fill=(200, 20, 110), border=(120, 0, 60))])[0]
    assert _edges(tr) == {("A", "B")}


def test_a_label_beside_its_connector_is_that_edge_s_label(transcriber):
    def draw(d: ImageDraw.ImageDraw) -> None:
        d.line(((210, 102), (210, 246)), fill="black", width=2)
        _head_down(d, 210, 258)
        d.text((226, 166), "No", fill="black", font=_font(20))

    tr = transcriber([_chart(draw)])[0]
    assert [(e.source, e.target, e.condition) for e in tr.chart.edges] == [("A", "B", "no")]


def test_a_long_dashed_arrow_that_stops_short_of_its_node_is_followed(transcriber):
    def draw(d: ImageDraw.ImageDraw) -> None:
        # dashes 12 px long with 30 px gaps, the head's tip 7 px above B's border
        for y in range(104, 220, 42):
            d.line(((210, y), (210, y + 12)), fill="black", width=3)
        _head_down(d, 210, 252)

    tr = transcriber([_chart(draw)])[0]
    assert _edges(tr) == {("A", "B")}


def test_an_elbowed_back_edge_up_the_page_is_traced(transcriber):
    def draw(d: ImageDraw.ImageDraw) -> None:
        d.line(((210, 102), (210, 246)), fill="black", width=2)
        _head_down(d, 210, 258)
        # B's right side -> right -> up the page -> left into A's right side
        d.line(((322, 290), (390, 290), (390, 70), (336, 70)), fill="black", width=2, joint="curve")
        d.polygon([(322, 70), (336, 62), (336, 78)], fill="black")

    tr = transcriber([_chart(draw)])[0]
    assert _edges(tr) == {("A", "B"), ("B", "A")}


# -- sketches (issue 21): heads drawn as an open 'v' or left out, arrows stopping short ----------

def _sketch(boxes: dict[str, tuple[int, int, int, int]], size: tuple[int, int],
            draw_connectors, texts: dict[str, str] | None = None) -> LabelledChart:  # type: ignore[no-untyped-def]
    """Pen-drawn boxes (wobbly outlines, "step a" or ``texts[name]`` in each) on off-white
    paper; connectors drawn by ``draw_connectors(ImageDraw, rng)``."""
    rng = np.random.default_rng(7)
    img = Image.new("RGB", size, (250, 249, 244))
    d = ImageDraw.Draw(img)
    for name, (x0, y0, x1, y1) in boxes.items():
        corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        for a, b in zip(corners, corners[1:] + corners[:1], strict=True):
            _pen(d, a, b, rng)
        text = (texts or {}).get(name, f"step {name.lower()}")
        d.text((x0 + 16, y0 + 18), text, fill=(20, 20, 30), font=_font(20))
    draw_connectors(d, rng)
    arr = np.array(img)
    regions = {name: Region((x0 - 2.0, y0 - 2.0, x1 + 2.0, y1 + 2.0)) for name, (x0, y0, x1, y1) in boxes.items()}
    return LabelledChart(arr, arr, regions)


def _pen(d: ImageDraw.ImageDraw, a: tuple[float, float], b: tuple[float, float], rng: np.random.Generator,
         width: int = 2) -> None:
    """A pen stroke from a to b drifting a pixel or two sideways (both ends stay put)."""
    t = np.linspace(0, 1, 9)
    pts = np.outer(1 - t, a) + np.outer(t, b)
    normal = np.array([a[1] - b[1], b[0] - a[0]], float)
    normal /= max(float(np.hypot(*normal)), 1e-6)
    drift = np.cumsum(rng.normal(0, 0.5, len(t)))
    drift -= np.linspace(drift[0], drift[-1], len(t))
    pts = pts + np.outer(drift, normal)
    d.line([tuple(p) for p in pts], fill=(20, 20, 30), width=width, joint="curve")


def _open_v(d: ImageDraw.ImageDraw, tip: tuple[float, float], frm: tuple[float, float]) -> None:
    """An open 'v' arrowhead at ``tip`` for a line coming from ``frm``: two short strokes."""
    v = np.subtract(tip, frm)
    v = v / np.hypot(*v)
    n = np.array([-v[1], v[0]])
    for side in (1, -1):
        d.line([tip, tuple(np.asarray(tip) - 12 * v + side * 7 * n)], fill=(20, 20, 30), width=2)


def test_a_sketched_left_right_chart_without_arrowheads_reads_left_to_right(transcriber):
    # four boxes in a row, as drawn by hand (not quite aligned), joined by plain lines: no
    # head anywhere, so the chart's flow (left to right) gives every direction
    boxes = {"A": (20, 70, 150, 130), "B": (230, 52, 360, 112), "C": (440, 80, 570, 140), "D": (650, 60, 780, 120)}

    def draw(d: ImageDraw.ImageDraw, rng: np.random.Generator) -> None:
        for (_, a), (_, b) in zip(list(boxes.items()), list(boxes.items())[1:], strict=False):
            y = (max(a[1], b[1]) + min(a[3], b[3])) / 2
            _pen(d, (a[2] + 3, y), (b[0] - 3, y), rng)

    tr = transcriber([_sketch(boxes, (800, 200), draw)])[0]
    assert _edges(tr) == {("A", "B"), ("B", "C"), ("C", "D")}


def test_a_bottom_to_top_chart_reads_upwards_where_a_head_is_missing(transcriber):
    # Mermaid's BT: two arrows with heads point up the page; the third has lost its head
    boxes = {"A": (120, 420, 300, 480), "B": (120, 260, 300, 320), "C": (120, 100, 300, 160), "D": (120, 10, 300, 60)}

    def draw(d: ImageDraw.ImageDraw, rng: np.random.Generator) -> None:
        for lo, hi, head in (("A", "B", True), ("B", "C", True), ("C", "D", False)):
            x, y0, y1 = 210, boxes[lo][1] - 3, boxes[hi][3] + 3
            _pen(d, (x, y0), (x, y1 + (14 if head else 0)), rng)
            if head:
                d.polygon([(x, y1), (x - 8, y1 + 14), (x + 8, y1 + 14)], fill=(20, 20, 30))

    tr = transcriber([_sketch(boxes, (420, 500), draw)])[0]
    assert _edges(tr) == {("A", "B"), ("B", "C"), ("C", "D")}


@pytest.mark.parametrize("terminals", [True, False])
def test_start_and_end_nodes_give_the_flow_of_a_chart_without_arrowheads(transcriber, terminals):
    # a bottom-to-top chart drawn without a single arrowhead: read top-down by default, read
    # upwards once its bottom node says "Start" and its top node "End"
    boxes = {"A": (120, 420, 300, 480), "B": (120, 260, 300, 320), "C": (120, 100, 300, 160)}

    def draw(d: ImageDraw.ImageDraw, rng: np.random.Generator) -> None:
        for lo, hi in (("A", "B"), ("B", "C")):
            _pen(d, (210, boxes[lo][1] - 3), (210, boxes[hi][3] + 3), rng)

    texts = {"A": "Start", "C": "End"} if terminals else None
    tr = transcriber([_sketch(boxes, (420, 500), draw, texts)])[0]
    upwards = {("A", "B"), ("B", "C")}
    assert _edges(tr) == (upwards if terminals else {(b, a) for a, b in upwards})


def test_an_arrow_that_starts_well_short_of_its_source_is_followed(transcriber):
    # the pen starts 26 px below A (more than a text line) and runs into B
    boxes = {"A": (120, 20, 300, 80), "B": (120, 220, 300, 280)}

    def draw(d: ImageDraw.ImageDraw, rng: np.random.Generator) -> None:
        _pen(d, (210, 108), (210, 214), rng)
        _open_v(d, (210, 217), (210, 108))

    tr = transcriber([_sketch(boxes, (420, 320), draw)])[0]
    assert _edges(tr) == {("A", "B")}


def test_a_hand_drawn_render_of_a_known_graph_comes_back_with_every_edge(transcriber):
    # a decision with two branches that meet again and a loop back: open 'v' heads, a missing
    # head, a line that stops short of its source, wobbly strokes throughout
    boxes = {"A": (230, 20, 390, 80), "B": (230, 170, 390, 230), "C": (40, 330, 200, 390),
             "D": (420, 330, 580, 390), "E": (230, 490, 390, 550)}
    gold = {("A", "B"), ("B", "C"), ("B", "D"), ("C", "E"), ("D", "E"), ("E", "B")}

    def draw(d: ImageDraw.ImageDraw, rng: np.random.Generator) -> None:
        _pen(d, (310, 83), (310, 166), rng)                       # A -> B, open head
        _open_v(d, (310, 167), (310, 83))
        _pen(d, (240, 233), (130, 326), rng)                      # B -> C, open head
        _open_v(d, (130, 327), (240, 233))
        _pen(d, (380, 233), (490, 327), rng)                      # B -> D, no head at all
        _pen(d, (120, 393 + 24), (280, 486), rng)                 # C -> E, starts short of C
        _open_v(d, (280, 487), (120, 417))
        _pen(d, (500, 393), (340, 486), rng)                      # D -> E, open head
        _open_v(d, (340, 487), (500, 393))
        # E -> B: out of E's right side, up the page, into B's right side, open head
        _pen(d, (393, 520), (620, 520), rng)
        _pen(d, (620, 520), (620, 200), rng)
        _pen(d, (620, 200), (394, 200), rng)
        _open_v(d, (393, 200), (620, 200))

    tr = transcriber([_sketch(boxes, (660, 580), draw)])[0]
    assert _edges(tr) == gold


@pytest.mark.parametrize("head", ["ring", "dot"])
def test_heads_drawn_as_rings_or_dots_give_the_direction(transcriber, head):
    # a bottom-to-top chart whose every head is a small circle (or a dot) where the line meets
    # the box above: the layout alone would read it top-down, so only the circled ends can
    # turn every edge up the page
    boxes = {"A": (120, 420, 300, 480), "B": (120, 260, 300, 320), "C": (120, 100, 300, 160)}

    def draw(d: ImageDraw.ImageDraw, rng: np.random.Generator) -> None:
        r = 6
        for lo, hi in (("A", "B"), ("B", "C")):
            x, y0, y1 = 210, boxes[lo][1] - 3, boxes[hi][3] + 3
            _pen(d, (x, y0), (x, y1 + 2 * r), rng)
            d.ellipse((x - r, y1, x + r, y1 + 2 * r), outline=(20, 20, 30), width=2,
                      fill=(20, 20, 30) if head == "dot" else None)

    tr = transcriber([_sketch(boxes, (420, 500), draw)])[0]
    assert _edges(tr) == {("A", "B"), ("B", "C")}


def test_a_flat_open_head_outweighs_a_pen_blot_where_the_line_leaves_its_source(transcriber):
    # a back-edge up the page (B -> A) whose pen pressed hard as it left B (a short thick
    # stroke that passes the arrowhead thickness test) while its real head, a thin flat 'v'
    # against A, holds more than twice the ink there: the 'v' end is the head
    boxes = {"A": (120, 40, 300, 100), "B": (120, 260, 300, 320)}

    def draw(d: ImageDraw.ImageDraw, rng: np.random.Generator) -> None:
        x, tip, blot = 210, boxes["A"][3] + 7, boxes["B"][1] - 6
        _pen(d, (x, boxes["B"][1] - 3), (x, tip), rng)
        d.line(((x, blot), (x, blot - 4)), fill=(20, 20, 30), width=6)
        for side in (1, -1):
            d.line(((x, tip), (x + side * 20, tip + 3)), fill=(20, 20, 30), width=2)

    tr = transcriber([_sketch(boxes, (420, 360), draw)])[0]
    assert _edges(tr) == {("B", "A")}


@pytest.mark.parametrize("diamond_found", [True, False])
def test_connectors_through_a_node_the_segmenter_missed_give_no_skipping_edge(transcriber, diamond_found):
    # A -> B -> C with B a sketched diamond: when B is a region both edges come back; when the
    # segmenter missed B, its outline joins both connectors into one piece whose ends are A
    # and C, and A -> C (an edge that skips B) must not be reported
    boxes = {"A": (120, 20, 300, 80), "C": (120, 400, 300, 460)}
    cx, cy, rx, ry = 210, 240, 90, 60
    diamond = [(cx, cy - ry), (cx + rx, cy), (cx, cy + ry), (cx - rx, cy)]

    def draw(d: ImageDraw.ImageDraw, rng: np.random.Generator) -> None:
        for a, b in zip(diamond, diamond[1:] + diamond[:1], strict=True):
            _pen(d, a, b, rng)
        d.text((cx - 30, cy - 12), "check", fill=(20, 20, 30), font=_font(20))
        _pen(d, (210, 83), (210, cy - ry - 1), rng)
        _open_v(d, (210, cy - ry - 1), (210, 83))
        _pen(d, (210, cy + ry + 1), (210, 396), rng)
        _open_v(d, (210, 397), (210, cy + ry + 1))

    chart = _sketch(boxes, (420, 480), draw)
    if diamond_found:
        b = Region((float(cx - rx - 2), float(cy - ry - 2), float(cx + rx + 2), float(cy + ry + 2)))
        chart = LabelledChart(chart.image, chart.labelled_image,
                              {"A": chart.regions["A"], "B": b, "C": chart.regions["C"]})
    tr = transcriber([chart])[0]
    if diamond_found:
        assert {("A", "B"), ("B", "C")} <= _edges(tr)
    else:
        assert ("A", "C") not in _edges(tr)
        assert any("not a node" in p for p in tr.problems)


def test_a_pen_pressed_dark_where_it_leaves_its_source_is_no_head_against_the_flow(transcriber):
    # top-down: A -> B has a filled head; B -> C lost its head and its pen, pressed hard as it
    # left B, laid the same few pixels twice as dark there as where it meets C. Twice the ink
    # on no more pixels is a darker stroke, not a head: the flow gives B -> C
    boxes = {"A": (120, 20, 300, 80), "B": (120, 200, 300, 260), "C": (120, 380, 300, 440)}

    def draw(d: ImageDraw.ImageDraw, rng: np.random.Generator) -> None:
        x = 210
        _pen(d, (x, boxes["A"][3] + 3), (x, boxes["B"][1] - 14), rng)
        d.polygon([(x, boxes["B"][1] - 1), (x - 8, boxes["B"][1] - 14), (x + 8, boxes["B"][1] - 14)],
                  fill=(20, 20, 30))
        y0, y1 = boxes["B"][3] + 3, boxes["C"][1] - 3
        d.line(((x, y0), (x, y1)), fill=(150, 150, 150), width=2)
        d.line(((x, y0), (x, y0 + 40)), fill=(20, 20, 30), width=2)

    tr = transcriber([_sketch(boxes, (420, 470), draw)])[0]
    assert _edges(tr) == {("A", "B"), ("B", "C")}
