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
