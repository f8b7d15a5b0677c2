"""FlowChart / Node / Edge: validation, indexes, JSON round trip, caches."""

from __future__ import annotations

import json

import pytest

from flowpath.graph import Edge, FlowChart, Node, Subgraph, infer_kind, normalize_condition
from flowpath.graph import tools as gt


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


def test_degree_indexes_follow_edits():
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


def test_networkx_view_is_cached_and_invalidated():
    fc = _chart()
    g = fc.to_networkx()
    assert g is fc.to_networkx()
    assert set(g.successors("B")) == {"C", "D"} and g.nodes["B"]["text"] == "Valid?"
    fc.add_edge(Edge("E", "A"))
    assert fc.to_networkx() is not g and fc.to_networkx().has_edge("E", "A")


def test_tool_cache_is_dropped_on_every_change():
    fc = _chart()
    assert gt.get_descendants(fc, "C") == ["E"]
    fc.add_edge(Edge("E", "F"))
    assert gt.get_descendants(fc, "C") == ["E", "F"]
    fc.add_node(Node("F", "Finish", "stadium"))
    assert gt.get_descendants(fc, "C", include_statements=True) == {"E": "End", "F": "Finish"}
    fc.remove_node("E")
    assert gt.get_descendants(fc, "C") == []
    # direct edits of the edge list need reindex(), which also drops the cache
    fc.edges.append(Edge("C", "A"))
    fc.reindex()
    assert gt.get_descendants(fc, "C")[0] == "A"
    fc.edges[-1].label = "Yes"
    fc.invalidate()
    assert gt.get_out_edges(fc, "C") == [{"target": "A", "label": "Yes", "condition": "yes"}]


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
