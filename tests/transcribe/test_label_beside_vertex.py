"""Which labels count as standing beside a decision's line (`connectors.beside_vertex_labels`):
flowchart.js's "yes"/"no" beside the line just past the vertex, never a label set on the line
(Mermaid's and D2's), nor one at the middle of a longer edge."""

from __future__ import annotations

import numpy as np

from flowpath.geometry import Region
from flowpath.transcribe.ocr import connectors as cx


def _piece(box: tuple[int, int, int, int], glyphs: list[tuple[int, int, int, int]]):  # type: ignore[no-untyped-def]
    """A diamond (top, its bottom vertex at (60, 40)) and a box below joined by a 3-px vertical
    line; a label box with ``glyphs`` (ink rectangles) filled into the piece."""
    regions = [Region.from_polygon([(20, 20), (60, 0), (100, 20), (60, 40)]),
               Region.from_polygon([(20, 160), (100, 160), (100, 200), (20, 200)])]
    comp = np.zeros((220, 160), np.int32)
    comp[40:160, 59:62] = 1
    comp[box[1] - 2:box[3] + 2, box[0] - 2:box[2] + 2] = 1
    ink = np.zeros(comp.shape)
    ink[40:160, 59:62] = 100.0
    for x0, y0, x1, y1 in glyphs:
        ink[y0:y1, x0:x1] = 150.0
    c = cx.Component(1, [cx.Contact(0, 40, (60.0, 43.0), 1.0), cx.Contact(1, 10, (60.0, 157.0), 1.0)], [0])
    return c, comp, [box], ink, regions


def test_a_label_beside_the_line_past_the_vertex_is_found():
    c, comp, boxes, ink, regions = _piece((64, 44, 84, 56), [(65, 45, 70, 55), (73, 45, 78, 55)])
    hit = cx.beside_vertex_labels(c, comp, boxes, ink, regions, frozenset({0}), 14.0)
    assert hit is not None and hit[0].region == 0


def test_a_label_on_the_line_is_left_alone():
    c, comp, boxes, ink, regions = _piece((50, 44, 71, 56), [(51, 45, 56, 55), (65, 45, 70, 55)])
    assert cx.beside_vertex_labels(c, comp, boxes, ink, regions, frozenset({0}), 14.0) is None


def test_a_label_far_down_the_line_or_beside_no_decision_is_left_alone():
    c, comp, boxes, ink, regions = _piece((64, 90, 84, 102), [(65, 91, 70, 101), (73, 91, 78, 101)])
    assert cx.beside_vertex_labels(c, comp, boxes, ink, regions, frozenset({0}), 14.0) is None
    c, comp, boxes, ink, regions = _piece((64, 44, 84, 56), [(65, 45, 70, 55), (73, 45, 78, 55)])
    assert cx.beside_vertex_labels(c, comp, boxes, ink, regions, frozenset(), 14.0) is None
