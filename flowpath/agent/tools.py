"""The graph tools as smolagents `Tool`s bound to one chart (the agent's view of the flowchart).

Each ``*Tool`` wraps one function of `flowpath.graph.tools`; its ``description`` and input docs
are the prompt the agent LLM reads, so they say what comes back and give an example call. A bad
argument (unknown node id, a branch the decision does not have) is answered with a readable
message string listing the valid choices instead of raising, so the agent can correct itself in
the next step.

>>> from flowpath.graph import FlowChart
>>> tools = make_graph_tools(FlowChart.from_edges([("A", "B")], {"A": "Start", "B": "End"}))
>>> {t.name: t for t in tools}["get_neighbours"](node_id="A")
['B']
"""

from __future__ import annotations

from typing import Any

from flowpath.errors import require

require("smolagents", "agent", "the smolagents graph tools (flowpath.agent.tools)")

from smolagents import Tool  # noqa: E402  (after the dependency check, on purpose)

from flowpath.graph import tools as gt  # noqa: E402
from flowpath.graph.core import FlowChart  # noqa: E402

__all__ = ["GRAPH_TOOL_CLASSES", "make_graph_tools", "GraphTool"]

_NODE_ID = {"type": "string", "description": "A node id exactly as in the Mermaid graph, e.g. 'C'."}
_INCLUDE = {"type": "boolean", "nullable": True,
            "description": "If true, return an ordered {node_id: statement} object instead of a list "
                           "of ids. Default false."}
_CONDITIONS = {"type": "object", "nullable": True,
               "description": "Branches to take at decision nodes, as {decision_node_id: branch}, e.g. "
                              "{\"C\": \"yes\", \"F\": \"no\"}. A branch is 'yes'/'no', the edge label "
                              "(or a distinctive part of it), or the id of the target node. Decisions "
                              "not listed follow all their branches. Default: none."}
_LEVELS = {"type": "integer", "nullable": True,
           "description": "How many edges to follow at most (1 = direct neighbours only). Omit or "
                          "null for no limit."}


class GraphTool(Tool):
    """Base of the graph tools: holds the chart and turns `ToolInputError` into a message."""

    def __init__(self, chart: FlowChart) -> None:
        if not isinstance(chart, FlowChart):
            raise TypeError(f"{type(self).__name__} needs a FlowChart, got {type(chart).__name__}")
        self.chart = chart
        super().__init__()

    def _run(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(self.chart, *args, **kwargs)
        except gt.ToolInputError as exc:
            return f"Error: {exc}"


class GetStatementTool(GraphTool):
    name = "get_statement"
    description = ("Return the text (statement) written inside one node of the flowchart. "
                   "Example: get_statement(node_id='C') -> 'Is the input valid?'.")
    inputs = {"node_id": _NODE_ID}
    output_type = "string"

    def forward(self, node_id: str) -> str:
        return self._run(gt.get_statement, node_id)


class GetNeighboursTool(GraphTool):
    name = "get_neighbours"
    description = ("Return the direct successors of a node (the nodes its outgoing arrows point to), "
                   "in edge order. Returns a list of node ids, or {id: statement} with "
                   "include_statements=true. Use get_out_edges to see which branch leads where.")
    inputs = {"node_id": _NODE_ID, "include_statements": _INCLUDE}
    output_type = "any"

    def forward(self, node_id: str, include_statements: bool | None = None) -> Any:
        return self._run(gt.get_neighbours, node_id, bool(include_statements))


class GetOutEdgesTool(GraphTool):
    name = "get_out_edges"
    description = ("Return the outgoing edges of a node with their branch conditions, e.g. for a "
                   "decision: [{'target': 'D', 'label': 'Yes', 'condition': 'yes'}, "
                   "{'target': 'E', 'label': 'No', 'condition': 'no'}]. 'condition' is 'yes', 'no', "
                   "the lower-cased label text, or null for an unlabelled edge.")
    inputs = {"node_id": _NODE_ID}
    output_type = "array"

    def forward(self, node_id: str) -> Any:
        return self._run(gt.get_out_edges, node_id)


class NextHopTool(GraphTool):
    name = "next_hop"
    description = ("Execute one step of the flowchart: return the id of the node reached from "
                   "node_id, taking the given branch at a decision. Returns null at a terminal node. "
                   "Example: next_hop(node_id='C', condition='no') -> 'E'.")
    inputs = {"node_id": _NODE_ID,
              "condition": {"type": "string", "nullable": True,
                            "description": "The branch taken: 'yes', 'no', the edge label or the target "
                                           "id. May be omitted when the node has a single successor."}}
    output_type = "any"

    def forward(self, node_id: str, condition: str | None = None) -> Any:
        return self._run(gt.next_hop, node_id, condition)


class GetAncestorsTool(GraphTool):
    name = "get_ancestors"
    description = ("Return the nodes from which node_id can be reached (everything upstream of it), "
                   "nearest first. 'levels' limits how many edges back to go (1 = direct "
                   "predecessors). Returns a list of ids, or {id: statement} with include_statements=true.")
    inputs = {"node_id": _NODE_ID, "levels": _LEVELS, "include_statements": _INCLUDE}
    output_type = "any"

    def forward(self, node_id: str, levels: int | None = None, include_statements: bool | None = None) -> Any:
        return self._run(gt.get_ancestors, node_id, levels, bool(include_statements))


class GetDescendantsTool(GraphTool):
    name = "get_descendants"
    description = ("Return the nodes reachable from node_id (everything downstream of it), nearest "
                   "first. 'levels' limits how many edges to follow (1 = direct successors). Returns a "
                   "list of ids, or {id: statement} with include_statements=true.")
    inputs = {"node_id": _NODE_ID, "levels": _LEVELS, "include_statements": _INCLUDE}
    output_type = "any"

    def forward(self, node_id: str, levels: int | None = None, include_statements: bool | None = None) -> Any:
        return self._run(gt.get_descendants, node_id, levels, bool(include_statements))


class BfsTool(GraphTool):
    name = "bfs"
    description = ("Breadth-first traversal of the flowchart from start_id (default: the start "
                   "node(s)), taking only the chosen branch at each decision listed in 'conditions'. "
                   "Returns every node visited, in order, each once: a list of ids, or "
                   "{id: statement} with include_statements=true. Use it to see everything that can "
                   "happen in a scenario, e.g. bfs(start_id='A', conditions={'C': 'no'}).")
    inputs = {"start_id": {"type": "string", "nullable": True,
                           "description": "Node to start from. Omit to start at the flowchart's start node(s)."},
              "conditions": _CONDITIONS, "include_statements": _INCLUDE}
    output_type = "any"

    def forward(self, start_id: str | None = None, conditions: dict | None = None,
                include_statements: bool | None = None) -> Any:
        return self._run(gt.bfs, start_id, conditions, bool(include_statements))


class DfsTool(GraphTool):
    name = "dfs"
    description = ("Depth-first traversal (follows each branch to its end before the next) from "
                   "start_id (default: the start node(s)), taking only the chosen branch at each "
                   "decision listed in 'conditions'. Returns the visited nodes in order: a list of ids, "
                   "or {id: statement} with include_statements=true.")
    inputs = {"start_id": {"type": "string", "nullable": True,
                           "description": "Node to start from. Omit to start at the flowchart's start node(s)."},
              "conditions": _CONDITIONS, "include_statements": _INCLUDE}
    output_type = "any"

    def forward(self, start_id: str | None = None, conditions: dict | None = None,
                include_statements: bool | None = None) -> Any:
        return self._run(gt.dfs, start_id, conditions, bool(include_statements))


class PathBetweenTool(GraphTool):
    name = "path_between"
    description = ("Return the path from start_id to end_id that takes the given branches at "
                   "decisions (the shortest such path; both ends included). This is usually the best "
                   "tool to ground a scenario: give the decisions the scenario fixes in 'conditions'. "
                   "Returns a list of ids (empty if end_id cannot be reached that way), or "
                   "{id: statement} with include_statements=true.")
    inputs = {"start_id": {"type": "string", "description": "First node of the path, e.g. 'A'."},
              "end_id": {"type": "string", "description": "Last node of the path, e.g. 'H'."},
              "conditions": _CONDITIONS, "include_statements": _INCLUDE}
    output_type = "any"

    def forward(self, start_id: str, end_id: str, conditions: dict | None = None,
                include_statements: bool | None = None) -> Any:
        return self._run(gt.path_between, start_id, end_id, conditions, bool(include_statements))


class ShortestPathTool(GraphTool):
    name = "shortest_path"
    description = ("Return the shortest directed path (fewest edges) from start_id to end_id, both "
                   "ends included, ignoring branch conditions. Returns a list of ids (empty if there is "
                   "no path), or {id: statement} with include_statements=true.")
    inputs = {"start_id": {"type": "string", "description": "First node of the path, e.g. 'A'."},
              "end_id": {"type": "string", "description": "Last node of the path, e.g. 'H'."},
              "include_statements": _INCLUDE}
    output_type = "any"

    def forward(self, start_id: str, end_id: str, include_statements: bool | None = None) -> Any:
        return self._run(gt.shortest_path, start_id, end_id, bool(include_statements))


class InDegreeTool(GraphTool):
    name = "in_degree"
    description = "Return the number of arrows entering a node (how many steps lead into it)."
    inputs = {"node_id": _NODE_ID}
    output_type = "integer"

    def forward(self, node_id: str) -> Any:
        return self._run(gt.in_degree, node_id)


class OutDegreeTool(GraphTool):
    name = "out_degree"
    description = "Return the number of arrows leaving a node (2 or more at a decision)."
    inputs = {"node_id": _NODE_ID}
    output_type = "integer"

    def forward(self, node_id: str) -> Any:
        return self._run(gt.out_degree, node_id)


class MaxInDegreeTool(GraphTool):
    name = "max_in_degree"
    description = ("Return the largest number of arrows entering any node and the nodes that have it, "
                   "as {'degree': 3, 'nodes': ['F']}. Useful for 'which step do most paths lead to?'.")
    inputs: dict[str, Any] = {}
    output_type = "object"

    def forward(self) -> Any:
        return self._run(gt.max_in_degree)


class MaxOutDegreeTool(GraphTool):
    name = "max_out_degree"
    description = ("Return the largest number of arrows leaving any node and the nodes that have it, "
                   "as {'degree': 3, 'nodes': ['C']}. Useful for 'which decision has the most options?'.")
    inputs: dict[str, Any] = {}
    output_type = "object"

    def forward(self) -> Any:
        return self._run(gt.max_out_degree)


class IsTerminalTool(GraphTool):
    name = "is_terminal"
    description = "Return true if the node has no outgoing arrows (the flow ends there), else false."
    inputs = {"node_id": _NODE_ID}
    output_type = "boolean"

    def forward(self, node_id: str) -> Any:
        return self._run(gt.is_terminal, node_id)


class StartNodesTool(GraphTool):
    name = "start_nodes"
    description = ("Return the ids of the nodes where the flowchart begins (nodes no arrow enters), "
                   "e.g. ['A'].")
    inputs: dict[str, Any] = {}
    output_type = "array"

    def forward(self) -> Any:
        return self._run(gt.start_nodes)


#: The tool classes in the order they are offered to the agent.
GRAPH_TOOL_CLASSES: list[type[GraphTool]] = [
    GetStatementTool, GetNeighboursTool, GetOutEdgesTool, NextHopTool, GetAncestorsTool,
    GetDescendantsTool, BfsTool, DfsTool, PathBetweenTool, ShortestPathTool, InDegreeTool,
    OutDegreeTool, MaxInDegreeTool, MaxOutDegreeTool, IsTerminalTool, StartNodesTool,
]


def make_graph_tools(chart: FlowChart, names: list[str] | None = None) -> list[Tool]:
    """Instantiate the graph tools bound to ``chart``.

    Args:
        chart: the flowchart the agent reasons over.
        names: only these tools (by ``name``), in this order; default all sixteen.

    Returns:
        smolagents ``Tool`` instances, ready for ``ToolCallingAgent(tools=...)``/``CodeAgent``.

    Raises:
        ValueError: an unknown tool name.
    """
    by_name = {cls.name: cls for cls in GRAPH_TOOL_CLASSES}
    if names is None:
        return [cls(chart) for cls in GRAPH_TOOL_CLASSES]
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise ValueError(f"unknown graph tool(s) {unknown}; available: {sorted(by_name)}")
    return [by_name[n](chart) for n in names]
