"""Where a chart shows its arrowheads nowhere, the inky end of a connector upstream along the
flow is no head (`connectors.unseen_head_upstream`).

On wild flowchart.js a 3x2-px head on a 1.5-px line passes no thickness test, while the end a
branch leaves holds its label's glyphs, a decision's vertex wedge or a switch's outline: twice
the ink on many more pixels (docs/transcription.md, eleventh stretch)."""

from __future__ import annotations

from flowpath.geometry import Region
from flowpath.transcribe.ocr import connectors as cx


def _box(x: float, y: float) -> Region:
    return Region.from_polygon([(x, y), (x + 120, y), (x + 120, y + 40), (x, y + 40)])


def _branch(upper_mass: float, upper_count: int, arrow_elsewhere: bool = False) -> dict[int, cx.Component]:
    """Node 0 above node 1 (an inky upper end, a compact lower one); node 2 right of node 1,
    joined to it by a piece whose end at 2 is a thick head where ``arrow_elsewhere``."""
    up = cx.Contact(0, upper_count, (60.0, 44.0), 0.95, mass=upper_mass)
    down = cx.Contact(1, 6, (60.0, 96.0), 0.95, mass=450.0)
    left = cx.Contact(1, 6, (124.0, 120.0), 0.95, mass=400.0)
    right = cx.Contact(2, 9, (196.0, 120.0), 2.9, arrow=arrow_elsewhere, mass=900.0)
    return {1: cx.Component(1, [up, down], label_boxes=[0]), 2: cx.Component(2, [left, right])}


def test_an_inky_upstream_end_is_no_head_where_the_chart_shows_none():
    regions = [_box(0, 0), _box(0, 100), _box(200, 100)]
    components = _branch(upper_mass=1200.0, upper_count=50)
    assert not cx.heads_confirmed(components, frozenset())
    flow = cx.Flow(1, 1)
    edges, _ = cx.component_edges(components[1], regions, list("ABC"), flow, frozenset(),
                                  heads_seen=cx.heads_confirmed(components, frozenset()))
    assert edges == [(0, 1)]


def test_an_inky_upstream_end_stays_a_head_where_the_chart_shows_its_heads():
    # a loop back drawn with visible heads elsewhere in the chart: its ink keeps its say
    regions = [_box(0, 0), _box(0, 100), _box(200, 100)]
    components = _branch(upper_mass=1200.0, upper_count=50, arrow_elsewhere=True)
    assert cx.heads_confirmed(components, frozenset())
    edges, _ = cx.component_edges(components[1], regions, list("ABC"), cx.Flow(1, 1), frozenset(),
                                  heads_seen=True)
    assert edges == [(1, 0)]


def test_an_inky_downstream_end_is_the_head_either_way():
    regions = [_box(0, 0), _box(0, 100)]
    up = cx.Contact(0, 6, (60.0, 44.0), 0.95, mass=450.0)
    down = cx.Contact(1, 50, (60.0, 96.0), 0.95, mass=1200.0)
    c = cx.Component(1, [up, down])
    for seen in (True, False):
        assert cx.component_edges(c, regions, list("AB"), cx.Flow(1, 1), heads_seen=seen)[0] == [(0, 1)]
