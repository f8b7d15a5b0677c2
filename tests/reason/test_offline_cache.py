"""The offline reasoner reuses its per-chart index only while the chart is unchanged."""

from __future__ import annotations

from flowpath.graph import FlowChart, Node
from flowpath.models.base import ReasoningRequest
from flowpath.reason.offline import OfflineReasoner

QUESTION, ANSWER = "Which step heats the kettle?", "Boil the water in the kettle"


def _ask(reasoner: OfflineReasoner, chart: FlowChart) -> list[str]:
    return reasoner(ReasoningRequest(chart, QUESTION, ANSWER)).node_ids


def test_reused_reasoner_sees_node_texts_changed_in_place():
    chart = FlowChart.from_edges([("A", "B"), ("B", "C")],
                                 {"A": "Grind the beans", "B": "Boil the water in the kettle", "C": "Serve"})
    reused = OfflineReasoner()
    before = _ask(reused, chart)
    # same chart object, same node count: swap the two texts through add_node
    chart.add_node(Node("A", "Boil the water in the kettle"))
    chart.add_node(Node("B", "Grind the beans"))
    assert _ask(OfflineReasoner(), chart) != before  # the edit matters to a fresh reasoner
    assert _ask(reused, chart) == _ask(OfflineReasoner(), chart)

