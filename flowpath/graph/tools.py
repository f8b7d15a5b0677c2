"""Graph tools: the queries a reasoner (rule-based or an LLM agent) asks of a `FlowChart`.

Pure functions, first argument the chart, named and shaped after FlowPathAgent's twelve tools
plus FloCA's graph-execution tools. Results are JSON-friendly: ``str``, ``int``, ``bool``,
``None``, lists of node ids, or dicts. With ``include_statements=True`` a node list becomes an
ordered ``{node_id: statement}`` dict.

A bad argument (unknown node id, a branch a decision does not have, a negative ``levels``)
raises `ToolInputError` whose message is written for a language model: it names the bad value
and lists the valid ones. `flowpath.agent.tools` returns that message to the agent as the
observation instead of a traceback.

Each tool is a thin call into networkx on the chart's ``MultiDiGraph`` (`FlowChart.graph`):
shortest-path lengths for ancestors/descendants, ``generic_bfs_edges`` for BFS and paths, the
degree views; branch conditions are an edge filter handed to the traversal as its neighbour
function. What a walk or a degree table computes is kept with `FlowChart.derived`, in networkx's
per-graph cache that every change to the graph empties: asking again (an agent re-reading a
path, the reasoner's next question on the same chart) is a lookup, and a changed chart is
walked afresh. Results are copies, so a caller may edit them.
See ``eval/bench_tools.py`` for timings on a 44-node chart, first calls and repeated ones.

>>> from flowpath.graph import FlowChart
>>> fc = FlowChart.from_edges([("A", "B"), ("B", "C", "Yes"), ("B", "D", "No")],
...                           {"A": "Start", "B": "Valid?", "C": "Save", "D": "Reject"})
>>> bfs(fc, "A", conditions={"B": "no"})
['A', 'B', 'D']
>>> get_out_edges(fc, "B")
[{'target': 'C', 'label': 'Yes', 'condition': 'yes'}, {'target': 'D', 'label': 'No', 'condition': 'no'}]
"""

from __future__ import annotations

import difflib
import re
import string
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import networkx as nx

from flowpath.graph.core import FlowChart, normalize_condition

__all__ = [
    "ToolInputError",
    "TOOL_FUNCTIONS",
    "get_statement",
    "get_ancestors",
    "get_descendants",
    "get_neighbours",
    "in_degree",
    "out_degree",
    "max_in_degree",
    "max_out_degree",
    "bfs",
    "dfs",
    "path_between",
    "shortest_path",
    "get_out_edges",
    "next_hop",
    "is_terminal",
    "start_nodes",
    "resolve_node_id",
    "induces_connected_subgraph",
]

NodeList = list[str] | dict[str, str]


class ToolInputError(ValueError):
    """A graph tool was called with an argument that does not fit the chart. The message names
    the bad value and the valid choices; it is meant to be shown to the caller (an LLM)."""


# -- argument checking -----------------------------------------------------------------------------
def _list_ids(chart: FlowChart, limit: int = 80) -> str:
    ids = list(chart.nodes)
    shown = ", ".join(ids[:limit])
    return shown + (f", ... ({len(ids)} nodes)" if len(ids) > limit else "")


_ID_IN_PROSE = re.compile(r"^(?:node\s+|\()?([^\s:.,()\[\]]+)(?:\)|[:.,]?\s.*|[:.,])?$", re.I | re.S)


def resolve_node_id(chart: FlowChart, node_id: Any, arg: str = "node_id") -> str:
    """The chart's id for ``node_id``, forgiving surrounding whitespace/quotes, letter case when
    unambiguous and prose around an exact id (``"Node C"``, ``"C: Is it valid?"``); otherwise
    `ToolInputError` listing close and valid ids."""
    if isinstance(node_id, str) and node_id in chart.graph:
        return node_id
    if node_id is None or isinstance(node_id, bool) or not isinstance(node_id, (str, int)):
        raise ToolInputError(f"{arg} must be a node id string such as {next(iter(chart.nodes), 'A')!r}, "
                             f"got {node_id!r}. Valid node ids are: {_list_ids(chart)}.")
    text = str(node_id).strip().strip("\"'`").strip()
    if text in chart.nodes:
        return text
    folded = [n for n in chart.nodes if n.casefold() == text.casefold()]
    if len(folded) == 1:
        return folded[0]
    m = _ID_IN_PROSE.match(text)  # "Node C", "C: Is the input valid?", "(C)"
    if m is not None and m.group(1) in chart.nodes:
        return m.group(1)
    if not chart.nodes:
        raise ToolInputError(f"Unknown node id {node_id!r}: the flowchart has no nodes.")
    close = difflib.get_close_matches(text, list(chart.nodes), n=5, cutoff=0.5)
    hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
    raise ToolInputError(f"Unknown node id {node_id!r} for {arg}.{hint} "
                         f"Valid node ids are: {_list_ids(chart)}.")


def _levels(levels: Any) -> int | None:
    if levels is None:
        return None
    if isinstance(levels, str) and levels.strip().lstrip("-").isdigit():
        levels = int(levels.strip())
    if isinstance(levels, float) and levels.is_integer():
        levels = int(levels)
    if isinstance(levels, bool) or not isinstance(levels, int) or levels < 0:
        raise ToolInputError(f"levels must be a non-negative whole number of edges or null for "
                             f"unlimited, got {levels!r}.")
    return levels


def _statements(chart: FlowChart, ids: list[str], include: bool) -> NodeList:
    if include:
        # straight from networkx's own {id: attributes} dict: no per-chart table to build on a
        # first call, and the NodeView lookups cost ~4x more
        node_attrs = chart.graph._node
        return {n: node_attrs[n]["text"] for n in ids}
    return list(ids)


#: one outgoing edge as the branch helpers see it: (edge key, target, label)
_Branch = tuple[int, str, "str | None"]


def _out_branches(chart: FlowChart, node_id: str) -> list[_Branch]:
    """The edges leaving ``node_id`` in the order they were added (edge keys count up); shared,
    do not modify."""
    # networkx's own {target: {key: attributes}} dict of the node, read without a view: ~5x quicker
    succ = chart.graph._succ
    return chart.derived(("out_branches", node_id), lambda: sorted(
        (k, v, attrs["label"]) for v, keyed in succ[node_id].items() for k, attrs in keyed.items()))


def _branches(chart: FlowChart, node_id: str) -> str:
    edges = _out_branches(chart, node_id)
    if not edges:
        return f"node {node_id!r} has no outgoing edges"
    parts = [f"{label!r} -> {v}" if label is not None else f"(unlabelled) -> {v}" for _, v, label in edges]
    return f"its branches are: {'; '.join(parts)}"


def _match_branch(chart: FlowChart, node_id: str, wanted: Any) -> list[_Branch]:
    """The outgoing edges of ``node_id`` that the branch ``wanted`` selects.

    ``wanted`` may be a condition (``"yes"``, ``True``, ``"No"``), the edge label text or part of
    it, or the target node id. At a two-way decision with one ``yes``/``no`` label, the opposite
    answer selects the other branch (``"no"`` at ``Yes``/``Out of stock``).
    """
    edges = [(k, v, normalize_condition(label)) for k, v, label in _out_branches(chart, node_id)]
    if isinstance(wanted, bool):
        wanted = "yes" if wanted else "no"
    if wanted is None or not str(wanted).strip():
        raise ToolInputError(f"empty branch for node {node_id!r}; {_branches(chart, node_id)}.")
    want = normalize_condition(str(wanted))
    hit = [e for e in edges if e[2] == want]
    if not hit:  # the target id given as the branch
        hit = [e for e in edges if e[1] == str(wanted).strip()]
    if not hit and want:  # part of a longer label: "over" for "Over budget"
        hit = [e for e in edges if e[2] and (want in e[2] or e[2] in want)]
        if len({e[1] for e in hit}) > 1:
            raise ToolInputError(f"branch {wanted!r} of node {node_id!r} is ambiguous; "
                                 f"{_branches(chart, node_id)}.")
    if not hit and want in ("yes", "no") and len({e[1] for e in edges}) == 2:
        # a two-way decision labelled "Yes" / "Out of stock": "no" is the branch that is not "yes"
        opposite = "no" if want == "yes" else "yes"
        other = [e for e in edges if e[2] != opposite]
        if len(other) < len(edges) and len({e[1] for e in other}) == 1:
            hit = other
    if not hit:
        raise ToolInputError(f"node {node_id!r} has no branch matching {wanted!r}; "
                             f"{_branches(chart, node_id)}.")
    return hit


Neighbours = Callable[[str], Iterable[str]]


def _successors(graph: nx.MultiDiGraph) -> Neighbours:
    """The unfiltered neighbour function: a lookup in networkx's own successor dict (its keys are
    the targets, in edge order). A bound ``dict.__getitem__`` runs no Python frame per visited
    node, where ``graph.neighbors`` runs one: traversals on a 44-node chart run ~30 % quicker."""
    return graph._succ.__getitem__


def _conditions_key(conditions: Any) -> Any:
    """``conditions`` as part of a `FlowChart.derived` key: order kept (a later entry for the
    same decision wins) and types kept (``True`` is refused as a node id where ``1`` is not, yet
    the two are equal keys); a non-mapping is kept as is and refused by `_branch_filter`."""
    if not isinstance(conditions, Mapping):
        return conditions
    return tuple((type(k), k, type(v), v) for k, v in conditions.items())


def _branch_filter(chart: FlowChart, conditions: Any) -> Neighbours | None:
    """The edge filter that ``conditions`` (``{decision id: branch}``) stand for, as a
    neighbour function for networkx traversals: at each listed decision only the targets of the
    branch taken, elsewhere every successor (in edge order); ``None`` without conditions.

    A neighbour function rather than ``nx.subgraph_view``: on a 44-node chart a filtered view made
    traversals ~15x slower (eval/bench_tools.py), past the 20 us budget of a tool call.
    """
    if conditions is None:
        return None
    if not isinstance(conditions, Mapping):
        raise ToolInputError(f"conditions must be an object mapping decision node ids to the branch "
                             f"taken, e.g. {{\"C\": \"yes\"}}, got {conditions!r}.")
    if not conditions:
        return _successors(chart.graph)
    # every node's successors, the listed decisions' replaced by the branch taken: a plain dict
    # lookup per visited node (see `_successors`)
    neighbours: dict[str, Iterable[str]] = dict(chart.graph._succ)
    for key, value in conditions.items():
        nid = resolve_node_id(chart, key, "a conditions key")
        neighbours[nid] = list(dict.fromkeys(v for _, v, _ in _match_branch(chart, nid, value)))
    return neighbours.__getitem__


def _bfs_order(graph: nx.MultiDiGraph, roots: list[str], neighbours: Neighbours | None) -> list[str]:
    """Breadth-first visiting order from each root in turn (a later root adds only what the
    earlier ones did not reach). Unfiltered, the BFS behind shortest-path lengths is the
    quicker networkx walk (its dict is in visiting order)."""
    order: dict[str, None] = {}
    for root in roots:
        if root in order:
            continue
        if neighbours is None:
            order.update(nx.single_source_shortest_path_length(graph, root))
        else:
            order[root] = None
            order.update(dict.fromkeys(v for _, v in nx.generic_bfs_edges(graph, root, neighbours)))
    return list(order)


def _dfs_order(graph: nx.MultiDiGraph, roots: list[str], neighbours: Neighbours | None) -> list[str]:
    """Depth-first pre-order from each root in turn, children in edge order. networkx's DFS
    takes no neighbour filter (``sort_neighbors`` does not see the parent), so this one traversal
    is written out, the way `nx.dfs_edges` walks: a stack of child iterators."""
    neighbours = neighbours or _successors(graph)
    seen: dict[str, None] = {}
    for root in roots:
        if root in seen:
            continue
        seen[root] = None
        stack = [iter(neighbours(root))]
        while stack:
            for child in stack[-1]:
                if child not in seen:
                    seen[child] = None
                    stack.append(iter(neighbours(child)))
                    break
            else:
                stack.pop()
    return list(seen)


def _bfs_path(graph: nx.MultiDiGraph, start: str, end: str, neighbours: Neighbours | None) -> list[str]:
    """The first path BFS finds from ``start`` to ``end`` (fewest edges, ties by edge order)."""
    parent = {start: start}
    for u, v in nx.generic_bfs_edges(graph, start, neighbours or _successors(graph)):
        parent[v] = u
        if v == end:
            break
    if end not in parent:
        return []
    path = [end]
    while path[-1] != start:
        path.append(parent[path[-1]])
    return path[::-1]


def _reach(chart: FlowChart, start: str, levels: int | None, forward: bool) -> list[str]:
    """Nodes reachable from ``start`` (against the arrows unless ``forward``) in at most
    ``levels`` steps, nearest first, then in edge order; ``start`` itself is left out. Shared:
    callers copy it."""
    find = nx.single_source_shortest_path_length if forward else nx.single_target_shortest_path_length
    return chart.derived(("reach", start, levels, forward),
                         lambda: list(find(chart.graph, start, cutoff=levels))[1:])


def _walk(chart: FlowChart, order: str, start_id: Any, conditions: Any) -> list[str]:
    """The ``order`` (``"bfs"``/``"dfs"``) visiting order from ``start_id`` (default: the
    start nodes) under ``conditions``. Shared: callers copy it."""
    roots = _roots(chart, start_id)
    walk = _bfs_order if order == "bfs" else _dfs_order
    return chart.derived((order, tuple(roots), _conditions_key(conditions)),
                         lambda: walk(chart.graph, roots, _branch_filter(chart, conditions)))


#: Argument descriptions several tools share, written once; `_prompt` puts them into the
#: docstrings (``$name``), which smolagents then reads as the tools' prompts.
_ARG_DOCS = {
    "node_id": "a node id exactly as in the Mermaid graph, e.g. 'C'.",
    "include_statements": ("if true, return an ordered {node_id: statement} object instead of a "
                           "list of ids. Default false."),
    "conditions": ("branches to take at decision nodes, as {decision_node_id: branch}, e.g. "
                   "{'C': 'yes', 'F': 'no'}. A branch is 'yes'/'no', the edge label (or a "
                   "distinctive part of it), or the id of the target node. Decisions not listed "
                   "are not restricted. Default none."),
    "start_id": "the node to start from. Omit to start at the flowchart's start node(s).",
    "path_start": "the first node of the path, e.g. 'A'.",
    "path_end": "the last node of the path, e.g. 'H'.",
}

_F = TypeVar("_F", bound=Callable[..., Any])


def _prompt(fn: _F) -> _F:
    """Fill the shared argument descriptions into ``fn``'s docstring."""
    fn.__doc__ = string.Template(fn.__doc__ or "").substitute(_ARG_DOCS)
    return fn


# -- the paper's tools -------------------------------------------------------------------------------
# Each docstring is also the prompt the agent reads (`flowpath.agent.tools` builds the smolagents
# tools from these signatures and docstrings), so it speaks to the caller and gives an example.
@_prompt
def get_statement(chart: FlowChart, node_id: str) -> str:
    """Return the text (statement) written inside one node of the flowchart.
    Example: get_statement(node_id='C') -> 'Is the input valid?'.

    Args:
        chart: the flowchart.
        node_id: $node_id

    Returns:
        The node's statement (newlines where the label had line breaks).
    """
    return str(chart.graph.nodes[resolve_node_id(chart, node_id)]["text"])


@_prompt
def get_ancestors(chart: FlowChart, node_id: str, levels: int | None = None,
                  include_statements: bool = False) -> NodeList:
    """Return the nodes from which node_id can be reached (everything upstream of it), nearest
    first. node_id itself is not included, even when it lies on a loop.

    Args:
        chart: the flowchart.
        node_id: $node_id
        levels: how many edges to follow backwards at most (1 = direct predecessors only). Omit
            or null for no limit.
        include_statements: $include_statements

    Returns:
        list | dict: ancestor ids ordered by distance, then edge order.
    """
    nid = resolve_node_id(chart, node_id)
    return _statements(chart, _reach(chart, nid, _levels(levels), forward=False), include_statements)


@_prompt
def get_descendants(chart: FlowChart, node_id: str, levels: int | None = None,
                    include_statements: bool = False) -> NodeList:
    """Return the nodes reachable from node_id (everything downstream of it), nearest first.
    node_id itself is not included, even when it lies on a loop.

    Args:
        chart: the flowchart.
        node_id: $node_id
        levels: how many edges to follow at most (1 = direct successors only). Omit or null for
            no limit.
        include_statements: $include_statements

    Returns:
        list | dict: descendant ids ordered by distance, then edge order.
    """
    nid = resolve_node_id(chart, node_id)
    return _statements(chart, _reach(chart, nid, _levels(levels), forward=True), include_statements)


@_prompt
def get_neighbours(chart: FlowChart, node_id: str, include_statements: bool = False) -> NodeList:
    """Return the direct successors of a node (the nodes its outgoing arrows point to), in edge
    order, each once. Use get_out_edges to see which branch leads where.

    Args:
        chart: the flowchart.
        node_id: $node_id
        include_statements: $include_statements

    Returns:
        list | dict: the successor ids.
    """
    nid = resolve_node_id(chart, node_id)
    return _statements(chart, list(chart.graph.succ[nid]), include_statements)


@_prompt
def in_degree(chart: FlowChart, node_id: str) -> int:
    """Return the number of arrows entering a node (how many steps lead into it).

    Args:
        chart: the flowchart.
        node_id: $node_id

    Returns:
        The number of incoming edges (two edges between the same nodes count twice).
    """
    return int(chart.graph.in_degree(resolve_node_id(chart, node_id)))


@_prompt
def out_degree(chart: FlowChart, node_id: str) -> int:
    """Return the number of arrows leaving a node (2 or more at a decision).

    Args:
        chart: the flowchart.
        node_id: $node_id

    Returns:
        The number of outgoing edges, parallel ones included.
    """
    return int(chart.graph.out_degree(resolve_node_id(chart, node_id)))


def _max_degree(chart: FlowChart, direction: str) -> dict[str, Any]:
    """The largest in- or out-degree (``direction``) and its nodes in chart order, as a fresh dict."""
    def compute() -> tuple[int, list[str]]:
        # networkx's own {node: {neighbour: {key: attributes}}} dicts: a degree counts the keys.
        # Read without the degree views, which cost ~2x more
        adjacency = chart.graph._pred if direction == "in" else chart.graph._succ
        pairs = [(n, sum(map(len, keyed.values()))) for n, keyed in adjacency.items()]
        best = max((d for _, d in pairs), default=0)
        return best, [n for n, d in pairs if d == best]
    best, nodes = chart.derived(("max_degree", direction), compute)
    return {"degree": best, "nodes": list(nodes)}


def max_in_degree(chart: FlowChart) -> dict[str, Any]:
    """Return the largest number of arrows entering any node and the nodes that have it.
    Useful for 'which step do most paths lead to?'.

    Args:
        chart: the flowchart.

    Returns:
        dict: {'degree': 3, 'nodes': ['F']}, the nodes in chart order; {'degree': 0, 'nodes': []}
        for an empty chart.
    """
    return _max_degree(chart, "in")


def max_out_degree(chart: FlowChart) -> dict[str, Any]:
    """Return the largest number of arrows leaving any node and the nodes that have it.
    Useful for 'which decision has the most options?'.

    Args:
        chart: the flowchart.

    Returns:
        dict: {'degree': 3, 'nodes': ['C']}, shaped as max_in_degree returns it.
    """
    return _max_degree(chart, "out")


def _roots(chart: FlowChart, start_id: Any) -> list[str]:
    if start_id is None or (isinstance(start_id, str) and not start_id.strip()):
        return start_nodes(chart)
    return [resolve_node_id(chart, start_id, "start_id")]


@_prompt
def bfs(chart: FlowChart, start_id: str | None = None, conditions: dict | None = None,
        include_statements: bool = False) -> NodeList:
    """Breadth-first traversal of the flowchart from start_id, taking only the chosen branch at
    each decision listed in conditions. Use it to see everything that can happen in a scenario,
    e.g. bfs(start_id='A', conditions={'C': 'no'}).

    Args:
        chart: the flowchart.
        start_id: $start_id
        conditions: $conditions
        include_statements: $include_statements

    Returns:
        list | dict: every node visited, in visiting order, each once.
    """
    return _statements(chart, _walk(chart, "bfs", start_id, conditions), include_statements)


@_prompt
def dfs(chart: FlowChart, start_id: str | None = None, conditions: dict | None = None,
        include_statements: bool = False) -> NodeList:
    """Depth-first traversal (follows each branch to its end before the next, in edge order) from
    start_id, taking only the chosen branch at each decision listed in conditions.

    Args:
        chart: the flowchart.
        start_id: $start_id
        conditions: $conditions
        include_statements: $include_statements

    Returns:
        list | dict: the visited nodes in pre-order, each once.
    """
    return _statements(chart, _walk(chart, "dfs", start_id, conditions), include_statements)


@_prompt
def path_between(chart: FlowChart, start_id: str, end_id: str, conditions: dict | None = None,
                 include_statements: bool = False) -> NodeList:
    """Return the path from start_id to end_id that takes the given branches at decisions (the
    shortest such path, both ends included, loops not repeated). This is usually the best tool
    to ground a scenario: give the decisions the scenario fixes in conditions.

    Args:
        chart: the flowchart.
        start_id: $path_start
        end_id: $path_end
        conditions: $conditions
        include_statements: $include_statements

    Returns:
        list | dict: the path's node ids; empty when end_id cannot be reached that way.
    """
    s = resolve_node_id(chart, start_id, "start_id")
    e = resolve_node_id(chart, end_id, "end_id")
    ids = chart.derived(("path", s, e, _conditions_key(conditions)),
                        lambda: _bfs_path(chart.graph, s, e, _branch_filter(chart, conditions)))
    return _statements(chart, ids, include_statements)


@_prompt
def shortest_path(chart: FlowChart, start_id: str, end_id: str, include_statements: bool = False) -> NodeList:
    """Return the shortest directed path (fewest edges) from start_id to end_id, both ends
    included, ignoring branch conditions.

    Args:
        chart: the flowchart.
        start_id: $path_start
        end_id: $path_end
        include_statements: $include_statements

    Returns:
        list | dict: the path's node ids; empty when there is no path.
    """
    return path_between(chart, start_id, end_id, None, include_statements)


# -- FloCA's graph-execution tools --------------------------------------------------------------------
@_prompt
def get_out_edges(chart: FlowChart, node_id: str) -> list[dict[str, str | None]]:
    """Return the outgoing edges of a node with their branch conditions, in edge order, e.g. for
    a decision [{'target': 'D', 'label': 'Yes', 'condition': 'yes'}, {'target': 'E', 'label':
    'No', 'condition': 'no'}]. A Yes and a No edge to the same node are two entries.

    Args:
        chart: the flowchart.
        node_id: $node_id

    Returns:
        list: one object per edge; 'condition' is 'yes', 'no', the lower-cased label text, or
        null for an unlabelled edge.
    """
    nid = resolve_node_id(chart, node_id)
    return [{"target": v, "label": label, "condition": normalize_condition(label)}
            for _, v, label in _out_branches(chart, nid)]


@_prompt
def next_hop(chart: FlowChart, node_id: str, condition: str | None = None) -> str | None:
    """Execute one step of the flowchart: return the id of the node reached from node_id, taking
    the given branch at a decision. Example: next_hop(node_id='C', condition='no') -> 'E'.

    Args:
        chart: the flowchart.
        node_id: $node_id
        condition: the branch taken, 'yes', 'no', the edge label or the target id. May be
            omitted when the node has a single successor.

    Returns:
        The next node id, or null at a terminal node (no outgoing edges).

    Raises:
        ToolInputError: unknown node, or a branching node without a condition that selects
            exactly one successor.
    """
    nid = resolve_node_id(chart, node_id)
    succ = list(chart.graph.succ[nid])
    if condition is None or (isinstance(condition, str) and not condition.strip()):
        if not succ:
            return None
        if len(succ) == 1:
            return succ[0]
        branches = _branches(chart, nid)
        raise ToolInputError(f"node {nid!r} branches; give the condition taken. {branches[0].upper()}{branches[1:]}.")
    if not succ:
        return None
    return _match_branch(chart, nid, condition)[0][1]


@_prompt
def is_terminal(chart: FlowChart, node_id: str) -> bool:
    """Return true if the node has no outgoing arrows (the flow ends there), else false.

    Args:
        chart: the flowchart.
        node_id: $node_id

    Returns:
        Whether execution ends at this node.
    """
    return next(chart.graph.successors(resolve_node_id(chart, node_id)), None) is None


def start_nodes(chart: FlowChart) -> list[str]:
    """Return the ids of the nodes where the flowchart begins (nodes no arrow enters), e.g. ['A'].
    When every node has an incoming arrow (the chart starts inside a loop), the nodes of kind
    start, failing that the first node.

    Args:
        chart: the flowchart.

    Returns:
        The start node ids in chart order.
    """
    def compute() -> list[str]:
        ids = chart.sources() or [n for n, kind in chart.graph.nodes(data="kind") if kind == "start"]
        return ids or list(chart.graph)[:1]
    return list(chart.derived("start_nodes", compute))


# -- not an agent tool ----------------------------------------------------------------------------------
def induces_connected_subgraph(node_ids: Iterable[str], edges: Iterable[tuple[str, str]]) -> bool:
    """True when ``node_ids`` induce a weakly connected subgraph of the directed ``edges``: one
    node is connected, an empty selection is not. (A grounding path that falls apart into pieces
    usually means a missed intermediate node.)

    >>> induces_connected_subgraph(["A", "C"], [("A", "B"), ("B", "C")])
    False
    """
    chosen = set(node_ids)
    if not chosen:
        return False
    graph = nx.Graph()
    graph.add_nodes_from(chosen)
    graph.add_edges_from((s, t) for s, t in edges if s in chosen and t in chosen)
    return nx.is_connected(graph)


#: name -> function, in the order tools are presented to an agent.
TOOL_FUNCTIONS = {f.__name__: f for f in (
    get_statement, get_neighbours, get_out_edges, next_hop, get_ancestors, get_descendants,
    bfs, dfs, path_between, shortest_path, in_degree, out_degree, max_in_degree, max_out_degree,
    is_terminal, start_nodes)}
