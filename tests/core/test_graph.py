"""FlowChart / Node / Edge: validation, the networkx graph underneath, JSON round trip, parallel
edges through parse, JSON and export."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import networkx as nx
import pytest

from flowpath.graph import Edge, FlowChart, Node, Subgraph, infer_kind, normalize_condition
from flowpath.graph import tools as gt
from flowpath.mermaid import parse_mermaid, to_mermaid
from tests.markers import FEBENCH_DEV, REPO_ROOT, require_febench


def _chart() -> FlowChart:
    return FlowChart.from_edges(
        [("A", "B"), ("B", "C", "Yes"), ("B", "D", "No"), ("C", "E"), ("D", "B"), ("D", "E")],
        {"A": "Start", "B": "Valid?", "C": "Save", "D": "Fix it", "E": "End"})


@pytest.mark.parametrize("shape, text, kind", [
    ("stadium", "Start", "start"),
    ("round", "Begin the process", "start"),
    ("stadium", "End", "end"),
    ("rect", "Stop.", "end"),
    ("stadium", "Receive order", "terminal"),
    ("rhombus", "x > 3?", "decision"),
    ("lean_right", "Read input", "io"),
    ("lean_left", "Print result", "io"),
    ("cylinder", "Orders table", "data"),
    ("subroutine", "Validate()", "subroutine"),
    ("rect", "Compute the sum", "process"),
    ("circle", "1", "connector"),
])
def test_infer_kind(shape, text, kind):
    assert infer_kind(shape, text) == kind
    assert Node("X", text, shape).kind == kind


@pytest.mark.parametrize("label, cond", [
    (None, None), ("", None), ("  ", None), ("Yes", "yes"), (" YES. ", "yes"), ('"No"', "no"),
    ("true", "yes"), ("False", "no"), ("Over budget", "over budget"),
])
def test_normalize_condition(label, cond):
    assert normalize_condition(label) == cond


@pytest.mark.parametrize("make, message", [
    (lambda: Node(""), "non-empty"),
    (lambda: Node("A", shape="blob"), "unknown shape"),
    (lambda: Node("A", kind="thing"), "unknown kind"),
    (lambda: Edge("A", "B", stroke="wavy"), "unknown stroke"),
    (lambda: Edge("A", "B", head="star"), "unknown marker"),
    (lambda: FlowChart("XY"), "unknown flowchart direction"),
])
def test_invalid_values_raise_value_error(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_degrees_follow_edits():
    fc = _chart()
    assert (fc.in_degree("B"), fc.out_degree("B")) == (2, 2)
    assert (fc.in_degree("E"), fc.out_degree("E")) == (2, 0)
    assert fc.successors("B") == ["C", "D"] and fc.predecessors("B") == ["A", "D"]
    assert fc.sources() == ["A"] and fc.sinks() == ["E"]
    fc.remove_node("D")
    assert fc.in_degree("B") == 1 and fc.in_degree("E") == 1
    assert all("D" not in (e.source, e.target) for e in fc.edges)
    fc.add_edge(Edge("E", "F"))
    assert "F" in fc and fc.nodes["F"].text == "F" and fc.sinks() == ["F"]


def test_parallel_edges_count_in_degree_but_successors_are_distinct():
    fc = FlowChart.from_edges([("A", "B", "Yes"), ("A", "B", "No")])
    assert fc.out_degree("A") == 2 and fc.successors("A") == ["B"]


def test_json_round_trip_is_stable():
    fc = _chart()
    fc.subgraphs.append(Subgraph("S", "Loop", ["B", "D"], None, "LR"))
    fc.warnings.append("line 3: something")
    d = fc.to_dict()
    assert d["format"] == "flowpath.flowchart" and d["version"] == 1
    again = FlowChart.from_dict(json.loads(json.dumps(d)))
    assert again == fc and again.to_dict() == d
    assert [e.condition for e in again.edges] == [None, "yes", "no", None, None, None]


@pytest.mark.parametrize("bad, message", [
    ({"format": "something.else"}, "not a flowpath flowchart"),
    ({"version": 99}, "newer than this flowpath reads"),
])
def test_from_dict_rejects_foreign_or_newer_data(bad, message):
    with pytest.raises(ValueError, match=message):
        FlowChart.from_dict({**_chart().to_dict(), **bad})


def test_relabel_and_copy():
    fc = _chart()
    fc.subgraphs.append(Subgraph("S", "", ["B"]))
    re = fc.relabel({"A": "N1", "B": "N2"})
    assert list(re.nodes)[:2] == ["N1", "N2"] and re.successors("N1") == ["N2"]
    assert re.subgraphs[0].nodes == ["N2"]
    assert list(fc.nodes)[:2] == ["A", "B"]  # the original is untouched
    cp = fc.copy()
    assert cp == fc and cp is not fc
    cp.add_edge(Edge("E", "A"))
    assert cp != fc


def test_networkx_view_is_live_and_read_only():
    fc = _chart()
    g = fc.to_networkx()
    assert set(g.successors("B")) == {"C", "D"} and g.nodes["B"]["text"] == "Valid?"
    fc.add_edge(Edge("E", "A"))
    fc.add_node(Node("B", "Still valid?", "rhombus"))
    assert g.has_edge("E", "A") and g.nodes["B"]["text"] == "Still valid?"  # no stale copy
    with pytest.raises(nx.NetworkXError, match="Frozen"):
        g.add_edge("A", "E")


def test_queries_follow_every_kind_of_edit():
    fc = _chart()
    assert gt.get_descendants(fc, "C") == ["E"]
    fc.add_edge(Edge("E", "F"))
    assert gt.get_descendants(fc, "C") == ["E", "F"]
    fc.add_node(Node("F", "Finish", "stadium"))
    assert gt.get_descendants(fc, "C", include_statements=True) == {"E": "End", "F": "Finish"}
    fc.remove_node("E")
    assert gt.get_descendants(fc, "C") == []
    fc.add_edge(Edge("C", "A"))
    fc.replace_edge(Edge("C", "A"), Edge("C", "A", "Yes"))
    assert gt.get_out_edges(fc, "C") == [{"target": "A", "label": "Yes", "condition": "yes"}]


def test_nodes_and_edges_are_values():
    fc = _chart()
    with pytest.raises(dataclasses.FrozenInstanceError):
        fc.nodes["A"].text = "changed"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        fc.edges[0].label = "Yes"  # type: ignore[misc]
    with pytest.raises(TypeError):
        fc.nodes["Z"] = Node("Z")  # type: ignore[index]
    assert fc.nodes["A"] == Node("A", "Start") and len(fc.nodes) == 5 and "Z" not in fc.nodes


def test_remove_and_replace_edge_keep_edge_order():
    fc = FlowChart.from_edges([("A", "B"), ("C", "D"), ("A", "B"), ("A", "B", "Yes")])
    fc.remove_edge(Edge("A", "B"))  # the later repeat goes, the first stays in place
    assert [(e.source, e.target, e.label) for e in fc.edges] == [("A", "B", None), ("C", "D", None),
                                                               ("A", "B", "Yes")]
    fc.replace_edge(Edge("A", "B"), Edge("A", "B", "No"))
    assert [e.label for e in fc.edges] == ["No", None, "Yes"]
    with pytest.raises(KeyError, match="no edge"):
        fc.remove_edge(Edge("D", "C"))
    with pytest.raises(KeyError, match="no edge"):
        fc.replace_edge(Edge("Z", "A"), Edge("A", "B"))


# -- two edges between the same two nodes (a Yes and a No to one target) ----------------------------
YES_NO_SAME_TARGET = """flowchart TD
    A["Start"] --> F{"Is it raining?"}
    F -->|Yes| I["Take the bus"]
    F -->|No| I
    I --> Z["End"]
"""


def _yes_no(chart: FlowChart) -> list[tuple[str, str, str | None]]:
    return [(e.source, e.target, e.condition) for e in chart.edges if e.source == "F"]


def test_parallel_edges_survive_mermaid_parse():
    chart = parse_mermaid(YES_NO_SAME_TARGET)
    assert _yes_no(chart) == [("F", "I", "yes"), ("F", "I", "no")]
    assert chart.out_degree("F") == 2 and chart.successors("F") == ["I"]
    assert chart.to_networkx().number_of_edges("F", "I") == 2
    assert gt.get_out_edges(chart, "F") == [{"target": "I", "label": "Yes", "condition": "yes"},
                                            {"target": "I", "label": "No", "condition": "no"}]
    assert gt.next_hop(chart, "F", "no") == "I"
    assert gt.path_between(chart, "A", "Z", {"F": "yes"}) == ["A", "F", "I", "Z"]


def test_parallel_edges_survive_json_round_trip():
    chart = parse_mermaid(YES_NO_SAME_TARGET)
    again = FlowChart.from_dict(json.loads(json.dumps(chart.to_dict())))
    assert _yes_no(again) == [("F", "I", "yes"), ("F", "I", "no")] and again == chart
    assert _yes_no(chart.copy()) == _yes_no(chart)
    assert [(e.source, e.label) for e in chart.relabel({"F": "Q"}).edges if e.target == "I"] == [
        ("Q", "Yes"), ("Q", "No")]


def test_parallel_edges_survive_mermaid_export():
    chart = parse_mermaid(YES_NO_SAME_TARGET)
    text = to_mermaid(chart)
    assert '|"Yes"| I' in text and '|"No"| I' in text
    assert _yes_no(parse_mermaid(text)) == [("F", "I", "yes"), ("F", "I", "no")]


@require_febench
@pytest.mark.parametrize("chart_id, source, target", [("wiki00687", "F", "I"), ("instruct00340", "S", "T")])
def test_benchmark_charts_keep_both_branch_labels(chart_id, source, target):
    data = json.loads((FEBENCH_DEV / "charts" / f"{chart_id}.json").read_text())
    chart = parse_mermaid(data["mermaid"])
    both = sorted(e.condition or "" for e in chart.out_edges(source) if e.target == target)
    assert both == ["no", "yes"]
    for again in (FlowChart.from_dict(json.loads(json.dumps(chart.to_dict()))), parse_mermaid(to_mermaid(chart))):
        assert again == chart
        assert sorted(e.condition or "" for e in again.out_edges(source) if e.target == target) == ["no", "yes"]


def test_graph_package_does_not_import_mermaid():
    """mermaid -> graph is one-way: importing the graph model loads no Mermaid code."""
    code = ("import sys, flowpath.graph, flowpath.graph.tools; "
            "print([m for m in sys.modules if m.startswith('flowpath.mermaid')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=REPO_ROOT).stdout
    assert out.strip() == "[]"


def test_add_node_update_flag():
    fc = FlowChart()
    fc.add_node(Node("A", "first"))
    fc.add_node(Node("A", "second", "rhombus"), update=False)
    assert fc.nodes["A"].text == "first"
    fc.add_node(Node("A", "second", "rhombus"))
    assert (fc.nodes["A"].text, fc.nodes["A"].kind) == ("second", "decision")


def test_node_lookup_error_names_the_id():
    with pytest.raises(KeyError, match="no node 'Z'"):
        _chart().node("Z")
