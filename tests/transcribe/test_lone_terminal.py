"""A lone Start or End at the edge of a chart orients its flow (`connectors.lone_terminal_sign`).

On wild flowchart.js tuning charts whose End the OCR misses, one thick end read as a head (a
decision's vertex, a shadow) out-voted every other connector and the chart came back upwards
while its Start sat at the top (docs/transcription.md, ninth stretch)."""

from __future__ import annotations

from flowpath.geometry import Region
from flowpath.transcribe.ocr import connectors as cx


def _column(n: int) -> list[Region]:
    """``n`` boxes 120x40 one under the other, 60 px apart (a top-down chain)."""
    return [Region.from_polygon([(0, 100 * i), (120, 100 * i), (120, 100 * i + 40), (0, 100 * i + 40)])
            for i in range(n)]


def _chain(regions: list[Region], head_upstream_at: int) -> dict[int, cx.Component]:
    """One two-ended piece between each pair of neighbours, no head told apart, except the piece
    leaving ``head_upstream_at`` whose upper end passes the thickness test (a vertex's ink)."""
    out = {}
    for i in range(len(regions) - 1):
        up = cx.Contact(i, 12, (60.0, 100 * i + 44.0), 1.9, arrow=i == head_upstream_at, mass=1400.0)
        down = cx.Contact(i + 1, 12, (60.0, 100 * (i + 1) - 4.0), 1.9, mass=1450.0)
        out[i + 1] = cx.Component(i + 1, [up, down])
    return out


def test_a_lone_start_at_the_top_orients_the_chart_against_one_upward_head():
    regions = _column(6)
    components = _chain(regions, head_upstream_at=3)
    assert cx.chart_flow(components, regions).sign == -1  # the vote alone: one "head" upwards
    flow = cx.chart_flow(components, regions, ([0], []))
    assert (flow.axis, flow.sign) == (1, 1)
    # only the sign: the rules that need both Start and End stay off
    assert not flow.from_terminals
    letters = [chr(65 + i) for i in range(len(regions))]
    guessed = [cx.component_edges(components[k], regions, letters, flow)[0] for k in (1, 2, 5)]
    assert guessed == [[(0, 1)], [(1, 2)], [(4, 5)]]


def test_a_lone_end_at_the_bottom_orients_the_chart():
    regions = _column(6)
    flow = cx.chart_flow(_chain(regions, head_upstream_at=2), regions, ([], [5]))
    assert (flow.axis, flow.sign) == (1, 1)


def test_a_lone_terminal_in_the_middle_of_the_chart_says_nothing():
    regions = _column(6)
    components = _chain(regions, head_upstream_at=3)
    assert cx.chart_flow(components, regions, ([], [2])) == cx.chart_flow(components, regions)
    assert cx.lone_terminal_sign(regions, ([], [2]), 1) is None
    assert cx.lone_terminal_sign(regions, ([0], [5]), 1) is None  # both known: chart_flow's own rule
