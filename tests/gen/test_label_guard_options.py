"""Generator options for checking rules about labels near decisions (tenth stretch):
``--branchy`` charts made mostly of decisions, with loops back into a decision, and
``--end-labels`` Graphviz labels set at one end of their edge."""

from __future__ import annotations

import random

from data_gen.graphviz import to_dot
from data_gen.procedural import random_flowchart
from data_gen.styles import sample_style


def test_branchy_charts_hold_loops_back_into_their_decisions():
    into_decision = 0
    for i in range(12):
        chart, _ = random_flowchart(random.Random(i), min_nodes=8, max_nodes=14, branchy=True)
        order = list(chart.nodes)
        for e in chart.edges:
            # an edge from a later node into an earlier decision: the loop body returning
            if chart.nodes[e.target].shape in ("rhombus", "hexagon") and order.index(e.source) > order.index(e.target):
                into_decision += 1
        assert all(e.source != e.target for e in chart.edges)
    assert into_decision > 0


def test_default_charts_are_unchanged_by_the_option():
    a, _ = random_flowchart(random.Random(3), min_nodes=8, max_nodes=14)
    b, _ = random_flowchart(random.Random(3), min_nodes=8, max_nodes=14, branchy=False)
    assert [(e.source, e.target, e.label) for e in a.edges] == [(e.source, e.target, e.label) for e in b.edges]


def test_end_labels_set_each_label_at_one_end_of_its_edge():
    chart, _ = random_flowchart(random.Random(5), min_nodes=10, max_nodes=14, branchy=True)
    style = sample_style("default", "train", random.Random(5), list(chart.nodes),
                         {n.id: n.kind for n in chart.nodes.values()})
    labelled = sum(1 for e in chart.edges if e.label)
    assert labelled
    dot = to_dot(chart, style, random.Random(1), end_labels=True)
    assert dot.count("taillabel=") + dot.count("headlabel=") == labelled
    edge_lines = [ln for ln in dot.splitlines() if " -> " in ln]
    assert not [ln for ln in edge_lines if "[label=" in ln or ", label=" in ln]
    middle = to_dot(chart, style, random.Random(1))
    assert "taillabel=" not in middle and "headlabel=" not in middle
