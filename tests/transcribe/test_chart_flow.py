"""The chart's flow (`connectors.chart_flow`) when only one kind of terminal was read.

A layered layout puts the Start before every other node and the End after them; where only one
of the two was read (an End misread, or never drawn), where it lies among the other nodes still
tells the way the chart reads, and a terminal in the middle of the chart tells nothing.
"""

from __future__ import annotations

from flowpath.geometry import Region
from flowpath.transcribe.ocr import connectors as cx


def _column(ys: list[float], x: float = 100.0) -> list[Region]:
    return [Region(bbox=(x - 40, y - 15, x + 40, y + 15)) for y in ys]


def test_a_lone_start_at_the_bottom_reads_the_chart_upwards():
    regions = _column([40, 120, 200, 280, 360])  # node 4 (bottom) is the only terminal read
    flow = cx.chart_flow({}, regions, terminals=([4], []))
    assert (flow.axis, flow.sign, flow.from_terminals) == (1, -1, True)
    # the same Start at the top: down the page
    flow = cx.chart_flow({}, regions, terminals=([0], []))
    assert (flow.axis, flow.sign) == (1, 1)


def test_a_lone_end_gives_the_opposite_sign_to_a_lone_start_in_its_place():
    regions = _column([40, 120, 200, 280, 360])
    assert cx.chart_flow({}, regions, terminals=([], [0])).sign == -1
    assert cx.chart_flow({}, regions, terminals=([], [4])).sign == 1


def test_a_terminal_in_the_middle_of_the_chart_tells_nothing():
    regions = _column([40, 120, 200, 280, 360])
    assert cx.one_terminal_sign(regions, [2], [], axis=1) == 0
    flow = cx.chart_flow({}, regions, terminals=([], [2]))  # a second Stop at a branch's end
    assert not flow.from_terminals


def test_a_lone_start_on_a_left_to_right_row():
    regions = [Region(bbox=(x - 30, 85, x + 30, 115)) for x in (60, 160, 260, 360)]
    assert cx.one_terminal_sign(regions, [3], [], axis=0) == -1
    assert cx.one_terminal_sign(regions, [0], [], axis=0) == 1
