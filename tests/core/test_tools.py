"""flowpath.graph.tools: results on a chart with decisions, a loop and a join; bad arguments."""

from __future__ import annotations

import json

import networkx as nx
import pytest

from flowpath.graph import Edge, FlowChart, Node
from flowpath.graph import tools as gt
from flowpath.graph.tools import ToolInputError
from flowpath.mermaid import parse_mermaid

SRC = """flowchart TD
    A(["Start"]) --> B[/"Read order"/]
    B --> C{"Is the order valid?"}
    C -->|Yes| D{"In stock?"}
    C -->|No| E["Ask customer to fix"]
    E --> B
    D -->|Yes| F["Ship order"]
    D -->|"Out of stock"| G["Back-order item"]
    F --> H(["End"])
    G --> H
"""


@pytest.fixture()
def chart() -> FlowChart:
    return parse_mermaid(SRC)


def test_get_statement(chart):
    assert gt.get_statement(chart, "C") == "Is the order valid?"


@pytest.mark.parametrize("fn, node, levels, expected", [
    (gt.get_ancestors, "H", None, ["F", "G", "D", "C", "B", "A", "E"]),
    (gt.get_ancestors, "H", 1, ["F", "G"]),
    (gt.get_ancestors, "H", 2, ["F", "G", "D"]),
    (gt.get_ancestors, "H", 0, []),
    (gt.get_ancestors, "A", None, []),
    (gt.get_ancestors, "B", None, ["A", "E", "C"]),  # the loop: B is not its own ancestor
    (gt.get_descendants, "C", None, ["D", "E", "F", "G", "B", "H"]),
    (gt.get_descendants, "C", 1, ["D", "E"]),
    (gt.get_descendants, "H", None, []),
])
def test_ancestors_and_descendants(chart, fn, node, levels, expected):
    assert fn(chart, node, levels=levels) == expected
    with_text = fn(chart, node, levels=levels, include_statements=True)
    assert list(with_text) == expected
    assert all(with_text[n] == chart.nodes[n].text for n in expected)


def test_neighbours_are_outgoing(chart):
    assert gt.get_neighbours(chart, "C") == ["D", "E"]
    assert gt.get_neighbours(chart, "E", include_statements=True) == {"B": "Read order"}
    assert gt.get_neighbours(chart, "H") == []


def test_degrees(chart):
    assert [gt.in_degree(chart, n) for n in "ABCH"] == [0, 2, 1, 2]
    assert [gt.out_degree(chart, n) for n in "ABCH"] == [1, 1, 2, 0]
    assert gt.max_in_degree(chart) == {"degree": 2, "nodes": ["B", "H"]}
    assert gt.max_out_degree(chart) == {"degree": 2, "nodes": ["C", "D"]}
    # results are copies: editing one does not corrupt the cache
    gt.max_in_degree(chart)["nodes"].append("Z")
    assert gt.max_in_degree(chart)["nodes"] == ["B", "H"]


def test_max_degree_on_empty_chart():
    assert gt.max_in_degree(FlowChart()) == {"degree": 0, "nodes": []}
    assert gt.start_nodes(FlowChart()) == []


@pytest.mark.parametrize("fn, start, conditions, expected", [
    (gt.bfs, None, None, ["A", "B", "C", "D", "E", "F", "G", "H"]),
    (gt.bfs, "C", {"C": "no"}, ["C", "E", "B"]),
    (gt.bfs, "A", {"C": "yes", "D": "yes"}, ["A", "B", "C", "D", "F", "H"]),
    (gt.bfs, "A", {"C": True, "D": "out of stock"}, ["A", "B", "C", "D", "G", "H"]),
    (gt.bfs, "A", {"D": "stock"}, ["A", "B", "C", "D", "E", "G", "H"]),  # part of a label
    (gt.bfs, "A", {"C": "E"}, ["A", "B", "C", "E"]),  # the target id as the branch
    (gt.dfs, None, None, ["A", "B", "C", "D", "F", "H", "G", "E"]),
    (gt.dfs, "A", {"C": "Yes", "D": "No"}, ["A", "B", "C", "D", "G", "H"]),
])
def test_traversals(chart, fn, start, conditions, expected):
    assert fn(chart, start, conditions) == expected
    assert list(fn(chart, start, conditions, include_statements=True)) == expected


@pytest.mark.parametrize("start, end, conditions, expected", [
    ("A", "H", None, ["A", "B", "C", "D", "F", "H"]),
    ("A", "H", {"D": "no"}, ["A", "B", "C", "D", "G", "H"]),
    ("E", "D", None, ["E", "B", "C", "D"]),
    ("A", "H", {"C": "no"}, []),  # the "no" branch loops back and never reaches the end
    ("H", "A", None, []),
    ("C", "C", None, ["C"]),
])
def test_path_between(chart, start, end, conditions, expected):
    assert gt.path_between(chart, start, end, conditions) == expected


def test_shortest_path(chart):
    assert gt.shortest_path(chart, "A", "H") == ["A", "B", "C", "D", "F", "H"]
    assert gt.shortest_path(chart, "E", "C", include_statements=True) == {
        "E": "Ask customer to fix", "B": "Read order", "C": "Is the order valid?"}
    assert gt.shortest_path(chart, "H", "A") == []


def test_execution_tools(chart):
    assert gt.get_out_edges(chart, "D") == [
        {"target": "F", "label": "Yes", "condition": "yes"},
        {"target": "G", "label": "Out of stock", "condition": "out of stock"}]
    assert gt.get_out_edges(chart, "A") == [{"target": "B", "label": None, "condition": None}]
    assert gt.next_hop(chart, "A") == "B"
    assert gt.next_hop(chart, "C", "no") == "E"
    assert gt.next_hop(chart, "C", False) == "E"
    assert gt.next_hop(chart, "D", "Out of stock") == "G"
    assert gt.next_hop(chart, "H") is None
    assert gt.is_terminal(chart, "H") and not gt.is_terminal(chart, "C")
    assert gt.start_nodes(chart) == ["A"]


def test_start_nodes_when_the_chart_starts_in_a_loop():
    fc = FlowChart.from_edges([("A", "B"), ("B", "A")])
    assert gt.start_nodes(fc) == ["A"]
    fc2 = parse_mermaid('flowchart TD\n X --> S(["Start"])\n S --> X')
    assert gt.start_nodes(fc2) == ["S"]
    assert gt.bfs(fc2) == ["S", "X"]


def test_results_are_json_serialisable(chart):
    for name, fn in gt.TOOL_FUNCTIONS.items():
        if name in ("max_in_degree", "max_out_degree", "start_nodes", "bfs", "dfs"):
            out = fn(chart)
        elif name in ("path_between", "shortest_path"):
            out = fn(chart, "A", "H")
        else:
            out = fn(chart, "A")
        json.dumps(out)


def test_forgiving_id_spelling():
    fc = FlowChart.from_edges([("A", "B")])
    assert gt.get_statement(fc, " 'a' ") == "A"
    assert gt.in_degree(fc, "b") == 1
    assert gt.get_statement(fc, "Node B") == "B"
    assert gt.get_statement(fc, "B: the second step") == "B"
    assert gt.get_statement(fc, "(A)") == "A"
    with pytest.raises(ToolInputError):
        gt.get_statement(fc, "Node Z")
    both = FlowChart.from_edges([("a", "A")])
    with pytest.raises(ToolInputError):
        gt.get_statement(both, "  ")


@pytest.mark.parametrize("call, fragments", [
    (lambda c: gt.get_statement(c, "Z"), ["Unknown node id 'Z'", "Valid node ids are: A, B, C, D, E, F, G, H"]),
    (lambda c: gt.get_ancestors(c, "Q9"), ["'Q9'", "Valid node ids"]),
    (lambda c: gt.in_degree(c, None), ["node id string"]),
    (lambda c: gt.get_descendants(c, "A", levels=-1), ["levels must be a non-negative"]),
    (lambda c: gt.get_descendants(c, "A", levels="two"), ["levels"]),
    (lambda c: gt.bfs(c, "A", {"C": "maybe"}), ["no branch matching 'maybe'", "'Yes' -> D", "'No' -> E"]),
    (lambda c: gt.bfs(c, "A", {"ZZ": "yes"}), ["Unknown node id 'ZZ'", "conditions key"]),
    (lambda c: gt.bfs(c, "A", ["C", "yes"]), ["conditions must be an object"]),
    (lambda c: gt.path_between(c, "A", "nope"), ["end_id"]),
    (lambda c: gt.next_hop(c, "C"), ["branches; give the condition", "'Yes' -> D"]),
    (lambda c: gt.next_hop(c, "C", "perhaps"), ["no branch matching"]),
])
def test_bad_arguments_raise_readable_tool_input_errors(chart, call, fragments):
    with pytest.raises(ToolInputError) as info:
        call(chart)
    assert isinstance(info.value, ValueError)
    for frag in fragments:
        assert frag in str(info.value)


def test_close_ids_are_suggested():
    fc = FlowChart.from_edges([("step_1", "step_2"), ("step_2", "done")])
    with pytest.raises(ToolInputError, match="Did you mean 'step_2', 'step_1'|Did you mean 'step_1', 'step_2'"):
        gt.get_statement(fc, "step_3")


def test_ambiguous_partial_branch_is_an_error():
    fc = FlowChart.from_edges([("A", "B", "cheap price"), ("A", "C", "high price")])
    with pytest.raises(ToolInputError, match="ambiguous"):
        gt.next_hop(fc, "A", "price")
    assert gt.next_hop(fc, "A", "cheap") == "B"


def _every_answer(chart: FlowChart) -> dict:
    """One call of every cached tool, as a fresh chart would answer it."""
    return {
        "anc": gt.get_ancestors(chart, "H", include_statements=True),
        "desc": gt.get_descendants(chart, "A", levels=2),
        "max_in": gt.max_in_degree(chart), "max_out": gt.max_out_degree(chart),
        "bfs": gt.bfs(chart, None, {"C": "yes", "D": "out of stock"}, include_statements=True),
        "dfs": gt.dfs(chart), "path": gt.path_between(chart, "A", "H", {"D": "yes"}),
        "short": gt.shortest_path(chart, "A", "H"), "starts": gt.start_nodes(chart),
        "out": gt.get_out_edges(chart, "D"), "hop": gt.next_hop(chart, "D", "no"),
    }


@pytest.mark.parametrize("change", [
    lambda c: c.add_edge(Edge("A", "F")),  # a shortcut: shorter paths, a new in-degree maximum
    lambda c: c.replace_edge(Edge("D", "F", "Yes"), Edge("D", "G", "Yes")),  # a relabelled branch
    lambda c: c.replace_edge(Edge("D", "G", "Out of stock"), Edge("D", "G", "No")),
    lambda c: c.remove_node("G"),
    lambda c: c.add_node(Node("H", "Finished", "stadium")),  # new text only
    lambda c: c.add_node(Node("Z", "Start", "stadium")),  # a second start node
    lambda c: c.graph.add_edge("E", "H", label="give up"),  # networkx's own mutator
    lambda c: nx.set_edge_attributes(c.graph, {("D", "G", k): "No" for k in c.graph["D"]["G"]}, "label"),
])
def test_kept_answers_follow_every_change(chart, change):
    """The stale-cache check: ask everything (so it is kept), change the chart, ask again: the
    answers equal those of a chart built fresh with the change."""
    _every_answer(chart)
    change(chart)
    fresh = FlowChart.from_dict(chart.to_dict())
    try:
        expected = _every_answer(fresh)
    except ToolInputError:  # the change removed a node the questions name
        with pytest.raises(ToolInputError):
            _every_answer(chart)
        return
    assert _every_answer(chart) == expected


def test_answers_are_copies(chart):
    gt.bfs(chart).append("Z")
    gt.get_ancestors(chart, "H").clear()
    gt.start_nodes(chart).append("Z")
    assert gt.bfs(chart) == ["A", "B", "C", "D", "E", "F", "G", "H"]
    assert gt.get_ancestors(chart, "H") == ["F", "G", "D", "C", "B", "A", "E"]
    assert gt.start_nodes(chart) == ["A"]


def test_equal_keys_of_other_types_are_not_confused():
    fc = FlowChart.from_edges([("1", "2"), ("2", "3")])
    assert gt.bfs(fc, "1", {"1": "2"}) == ["1", "2", "3"]
    assert gt.bfs(fc, 1, {1: "2"}) == ["1", "2", "3"]  # an int id is read as its string
    with pytest.raises(ToolInputError):
        gt.bfs(fc, "1", {True: "2"})  # True == 1, yet a bool is no node id
