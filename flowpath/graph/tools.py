"""Graph tools: the queries a reasoner (rule-based or an LLM agent) asks of a `FlowChart`.

Pure functions, first argument the chart, named and shaped after FlowPathAgent's twelve tools
plus FloCA's graph-execution tools. Results are JSON-friendly: ``str``, ``int``, ``bool``,
``None``, lists of node ids, or dicts. With ``include_statements=True`` a node list becomes an
ordered ``{node_id: statement}`` dict.

A bad argument (unknown node id, a branch a decision does not have, a negative ``levels``)
raises `ToolInputError` whose message is written for a language model: it names the bad value
and lists the valid ones. `flowpath.agent.tools` returns that message to the agent as the
observation instead of a traceback.

Speed: every query uses the chart's in/out edge indexes; results that do not depend on node text
are cached on the chart and dropped on any change (`FlowChart.invalidate`). See
``eval/bench_tools.py`` for timings on a 44-node chart.

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
from collections import deque
from collections.abc import Mapping
from typing import Any

from flowpath.graph.core import Edge, FlowChart, normalize_condition

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
    if isinstance(node_id, str) and node_id in chart.nodes:
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
        nodes = chart.nodes
        return {n: nodes[n].text for n in ids}
    return list(ids)


def _cache(chart: FlowChart) -> dict[Any, Any]:
    cache = getattr(chart, "_cache", None)
    if cache is None:  # a FlowChart unpickled from an older flowpath
        cache = chart._cache = {}
    return cache


def _branches(chart: FlowChart, node_id: str) -> str:
    edges = chart.out_edges(node_id)
    if not edges:
        return f"node {node_id!r} has no outgoing edges"
    parts = [f"{e.label!r} -> {e.target}" if e.label is not None else f"(unlabelled) -> {e.target}"
             for e in edges]
    return f"its branches are: {'; '.join(parts)}"


def _match_branch(chart: FlowChart, node_id: str, wanted: Any) -> list[Edge]:
    """The outgoing edges of ``node_id`` that the branch ``wanted`` selects.

    ``wanted`` may be a condition (``"yes"``, ``True``, ``"No"``), the edge label text or part of
    it, or the target node id. At a two-way decision with one ``yes``/``no`` label, the opposite
    answer selects the other branch (``"no"`` at ``Yes``/``Out of stock``).
    """
    edges = chart.out_edges(node_id)
    if isinstance(wanted, bool):
        wanted = "yes" if wanted else "no"
    if wanted is None or not str(wanted).strip():
        raise ToolInputError(f"empty branch for node {node_id!r}; {_branches(chart, node_id)}.")
    want = normalize_condition(str(wanted))
    hit = [e for e in edges if e.condition == want]
    if not hit:  # the target id given as the branch
        hit = [e for e in edges if e.target == str(wanted).strip()]
    if not hit and want:  # part of a longer label: "over" for "Over budget"
        hit = [e for e in edges if e.condition and (want in e.condition or e.condition in want)]
        if len({e.target for e in hit}) > 1:
            raise ToolInputError(f"branch {wanted!r} of node {node_id!r} is ambiguous; "
                                 f"{_branches(chart, node_id)}.")
    if not hit and want in ("yes", "no") and len({e.target for e in edges}) == 2:
        # a two-way decision labelled "Yes" / "Out of stock": "no" is the branch that is not "yes"
        opposite = "no" if want == "yes" else "yes"
        other = [e for e in edges if e.condition != opposite]
        if len(other) < len(edges) and len({e.target for e in other}) == 1:
            hit = other
    if not hit:
        raise ToolInputError(f"node {node_id!r} has no branch matching {wanted!r}; "
                             f"{_branches(chart, node_id)}.")
    return hit


def _conditions(chart: FlowChart, conditions: Any) -> dict[str, frozenset[str]]:
    """Validate ``{decision id: branch}`` -> ``{decision id: allowed targets}``."""
    if conditions is None:
        return {}
    if not isinstance(conditions, Mapping):
        raise ToolInputError(f"conditions must be an object mapping decision node ids to the branch "
                             f"taken, e.g. {{\"C\": \"yes\"}}, got {conditions!r}.")
    out: dict[str, frozenset[str]] = {}
    for key, value in conditions.items():
        nid = resolve_node_id(chart, key, "a conditions key")
        out[nid] = frozenset(e.target for e in _match_branch(chart, nid, value))
    return out


def _reach(chart: FlowChart, start: str, levels: int | None, forward: bool) -> list[str]:
    """Nodes reachable from ``start`` (against the arrows unless ``forward``) in at most
    ``levels`` steps, nearest first, without ``start``. Walks the chart's edge indexes directly:
    no per-call adjacency lists to build."""
    index = chart._out if forward else chart._in
    seen = {start}
    order: list[str] = []
    frontier = [start]
    depth = 0
    while frontier and (levels is None or depth < levels):
        nxt = []
        for n in frontier:
            for e in index[n]:
                m = e.target if forward else e.source
                if m not in seen:
                    seen.add(m)
                    order.append(m)
                    nxt.append(m)
        frontier = nxt
        depth += 1
    return order


# -- the paper's tools -------------------------------------------------------------------------------
def get_statement(chart: FlowChart, node_id: str) -> str:
    """The text written in a node.

    Args:
        chart: the flowchart.
        node_id: a node id, e.g. ``"C"``.

    Returns:
        The node's statement (newlines where the label had line breaks).
    """
    node = chart.nodes.get(node_id) if isinstance(node_id, str) else None
    if node is None:
        node = chart.nodes[resolve_node_id(chart, node_id)]
    return node.text


def get_ancestors(chart: FlowChart, node_id: str, levels: int | None = None,
                  include_statements: bool = False) -> NodeList:
    """Nodes from which ``node_id`` can be reached, nearest first.

    Args:
        chart: the flowchart.
        node_id: the node whose ancestors are wanted.
        levels: follow at most this many edges backwards (1 = direct predecessors);
            ``None`` for all ancestors.
        include_statements: return ``{id: statement}`` instead of a list of ids.

    Returns:
        Ancestor ids ordered by distance then edge order; ``node_id`` itself is not included even
        when it lies on a loop.
    """
    nid = resolve_node_id(chart, node_id)
    lv = _levels(levels)
    cache = _cache(chart)
    key = ("anc", nid, lv)
    ids = cache.get(key)
    if ids is None:
        ids = cache[key] = _reach(chart, nid, lv, forward=False)
    return _statements(chart, ids, include_statements)


def get_descendants(chart: FlowChart, node_id: str, levels: int | None = None,
                    include_statements: bool = False) -> NodeList:
    """Nodes reachable from ``node_id``, nearest first (see `get_ancestors` for arguments)."""
    nid = resolve_node_id(chart, node_id)
    lv = _levels(levels)
    cache = _cache(chart)
    key = ("desc", nid, lv)
    ids = cache.get(key)
    if ids is None:
        ids = cache[key] = _reach(chart, nid, lv, forward=True)
    return _statements(chart, ids, include_statements)


def get_neighbours(chart: FlowChart, node_id: str, include_statements: bool = False) -> NodeList:
    """The direct successors of ``node_id`` (targets of its outgoing edges), in edge order.

    Args:
        chart: the flowchart.
        node_id: the node.
        include_statements: return ``{id: statement}`` instead of a list of ids.

    Returns:
        Successor ids (each once).
    """
    nid = resolve_node_id(chart, node_id)
    return _statements(chart, chart.successors(nid), include_statements)


def in_degree(chart: FlowChart, node_id: str) -> int:
    """Number of edges entering ``node_id`` (O(1): the chart indexes incoming edges)."""
    nid = node_id if isinstance(node_id, str) and node_id in chart.nodes else resolve_node_id(chart, node_id)
    return chart.in_degree(nid)


def out_degree(chart: FlowChart, node_id: str) -> int:
    """Number of edges leaving ``node_id``."""
    nid = node_id if isinstance(node_id, str) and node_id in chart.nodes else resolve_node_id(chart, node_id)
    return chart.out_degree(nid)


def _max_degree(chart: FlowChart, which: str) -> dict[str, Any]:
    cache = _cache(chart)
    hit = cache.get(which)
    if hit is None:
        index = chart._in if which == "max_in" else chart._out
        best = max((len(v) for v in index.values()), default=0)
        hit = cache[which] = {"degree": best,
                              "nodes": [n for n, v in index.items() if len(v) == best] if index else []}
    return {"degree": hit["degree"], "nodes": list(hit["nodes"])}


def max_in_degree(chart: FlowChart) -> dict[str, Any]:
    """The largest in-degree in the chart and the nodes that have it.

    Returns:
        ``{"degree": int, "nodes": [ids with that in-degree, in node order]}``; on an empty
        chart ``{"degree": 0, "nodes": []}``.
    """
    return _max_degree(chart, "max_in")


def max_out_degree(chart: FlowChart) -> dict[str, Any]:
    """The largest out-degree in the chart and the nodes that have it (see `max_in_degree`)."""
    return _max_degree(chart, "max_out")


def _roots(chart: FlowChart, start_id: Any) -> list[str]:
    if start_id is None or (isinstance(start_id, str) and not start_id.strip()):
        return start_nodes(chart)
    return [resolve_node_id(chart, start_id, "start_id")]


def _cond_key(conditions: Any) -> Any:
    if not conditions:
        return None
    try:
        return frozenset((str(k), str(v)) for k, v in conditions.items())
    except AttributeError:
        return "invalid"


def bfs(chart: FlowChart, start_id: str | None = None, conditions: Mapping[str, Any] | None = None,
        include_statements: bool = False) -> NodeList:
    """Breadth-first traversal, following only the chosen branch at the decisions in ``conditions``.

    Args:
        chart: the flowchart.
        start_id: where to start; ``None`` starts from every start node (`start_nodes`).
        conditions: ``{decision node id: branch taken}``, the branch given as ``"yes"``/``"no"``,
            the edge label (or part of it) or the target id. Other decisions follow all branches.
        include_statements: return ``{id: statement}`` instead of a list of ids.

    Returns:
        Every node visited, in visiting order, each once.
    """
    return _traverse(chart, start_id, conditions, include_statements, depth_first=False)


def dfs(chart: FlowChart, start_id: str | None = None, conditions: Mapping[str, Any] | None = None,
        include_statements: bool = False) -> NodeList:
    """Depth-first (pre-order, edge order) traversal; arguments as in `bfs`."""
    return _traverse(chart, start_id, conditions, include_statements, depth_first=True)


def _traverse(chart: FlowChart, start_id: Any, conditions: Any, include: bool, depth_first: bool) -> NodeList:
    cache = _cache(chart)
    key: Any = ("dfs" if depth_first else "bfs", start_id, _cond_key(conditions))
    try:
        ids = cache.get(key)
    except TypeError:  # unhashable arguments: no caching
        key, ids = None, None
    if ids is None:
        roots = _roots(chart, start_id)
        allowed = _conditions(chart, conditions)
        ids = _dfs(chart, roots, allowed) if depth_first else _bfs(chart, roots, allowed)
        if key is not None:
            cache[key] = ids
    return _statements(chart, ids, include)


def _bfs(chart: FlowChart, roots: list[str], allowed: dict[str, frozenset[str]]) -> list[str]:
    seen = set(roots)
    order = list(dict.fromkeys(roots))
    queue = deque(order)
    out = chart._out
    while queue:
        n = queue.popleft()
        only = allowed.get(n)
        for e in out[n]:
            m = e.target
            if m not in seen and (only is None or m in only):
                seen.add(m)
                order.append(m)
                queue.append(m)
    return order


def _dfs(chart: FlowChart, roots: list[str], allowed: dict[str, frozenset[str]]) -> list[str]:
    seen: set[str] = set()
    order: list[str] = []
    out = chart._out
    stack = list(reversed(roots))
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        order.append(n)
        only = allowed.get(n)
        for e in reversed(out[n]):
            m = e.target
            if m not in seen and (only is None or m in only):
                stack.append(m)
    return order


def _shortest(chart: FlowChart, start: str, end: str, allowed: dict[str, frozenset[str]]) -> list[str]:
    if start == end:
        return [start]
    parent = {start: start}
    queue = deque([start])
    out = chart._out
    while queue:
        n = queue.popleft()
        only = allowed.get(n)
        for e in out[n]:
            m = e.target
            if m in parent or (only is not None and m not in only):
                continue
            parent[m] = n
            if m == end:
                path = [m]
                while path[-1] != start:
                    path.append(parent[path[-1]])
                return path[::-1]
            queue.append(m)
    return []


def path_between(chart: FlowChart, start_id: str, end_id: str, conditions: Mapping[str, Any] | None = None,
                 include_statements: bool = False) -> NodeList:
    """The path from ``start_id`` to ``end_id`` that takes the given branches at decisions.

    Args:
        chart: the flowchart.
        start_id: first node of the path.
        end_id: last node of the path.
        conditions: ``{decision node id: branch taken}`` as in `bfs`; decisions not listed may
            take any branch.
        include_statements: return ``{id: statement}`` instead of a list of ids.

    Returns:
        The shortest such path, both ends included (loops are not repeated); an empty list when
        ``end_id`` cannot be reached that way.
    """
    s = resolve_node_id(chart, start_id, "start_id")
    e = resolve_node_id(chart, end_id, "end_id")
    cache = _cache(chart)
    key: Any = ("path", s, e, _cond_key(conditions))
    try:
        ids = cache.get(key)
    except TypeError:
        key, ids = None, None
    if ids is None:
        ids = _shortest(chart, s, e, _conditions(chart, conditions))
        if key is not None:
            cache[key] = ids
    return _statements(chart, ids, include_statements)


def shortest_path(chart: FlowChart, start_id: str, end_id: str, include_statements: bool = False) -> NodeList:
    """The shortest directed path from ``start_id`` to ``end_id`` (fewest edges; ties broken by
    edge order), both ends included; an empty list when there is none."""
    return path_between(chart, start_id, end_id, None, include_statements)


# -- FloCA's graph-execution tools --------------------------------------------------------------------
def get_out_edges(chart: FlowChart, node_id: str) -> list[dict[str, str | None]]:
    """The outgoing edges of a node with their branch conditions.

    Returns:
        ``[{"target": id, "label": edge text or None, "condition": "yes"/"no"/lower-case text or
        None}, ...]`` in edge order.
    """
    nid = resolve_node_id(chart, node_id)
    cache = _cache(chart)
    key = ("oute", nid)
    rows = cache.get(key)
    if rows is None:
        rows = cache[key] = [{"target": e.target, "label": e.label, "condition": e.condition}
                             for e in chart.out_edges(nid)]
    return [dict(r) for r in rows]


def next_hop(chart: FlowChart, node_id: str, condition: str | bool | None = None) -> str | None:
    """The node that execution moves to from ``node_id``.

    Args:
        chart: the flowchart.
        node_id: the current node.
        condition: the branch taken at a decision (``"yes"``, ``"no"``, label text or target id);
            may be ``None`` when the node has a single successor.

    Returns:
        The next node id, or ``None`` at a terminal node (no outgoing edges).

    Raises:
        ToolInputError: unknown node, or a branching node without a ``condition`` that selects
            exactly one successor.
    """
    nid = resolve_node_id(chart, node_id)
    succ = chart.successors(nid)
    if condition is None or (isinstance(condition, str) and not condition.strip()):
        if not succ:
            return None
        if len(succ) == 1:
            return succ[0]
        branches = _branches(chart, nid)
        raise ToolInputError(f"node {nid!r} branches; give the condition taken. {branches[0].upper()}{branches[1:]}.")
    if not succ:
        return None
    hit = _match_branch(chart, nid, condition)
    return hit[0].target


def is_terminal(chart: FlowChart, node_id: str) -> bool:
    """True when ``node_id`` has no outgoing edges (execution ends there)."""
    nid = node_id if isinstance(node_id, str) and node_id in chart.nodes else resolve_node_id(chart, node_id)
    return not chart._out[nid]


def start_nodes(chart: FlowChart) -> list[str]:
    """Where execution begins: nodes without incoming edges; if every node has one (the chart
    starts inside a loop), the nodes of kind ``start``; failing that, the first node."""
    cache = _cache(chart)
    ids = cache.get("start")
    if ids is None:
        ids = chart.sources() or [n.id for n in chart.nodes.values() if n.kind == "start"]
        if not ids and chart.nodes:
            ids = [next(iter(chart.nodes))]
        cache["start"] = ids
    return list(ids)


#: name -> function, in the order tools are presented to an agent.
TOOL_FUNCTIONS = {f.__name__: f for f in (
    get_statement, get_neighbours, get_out_edges, next_hop, get_ancestors, get_descendants,
    bfs, dfs, path_between, shortest_path, in_degree, out_degree, max_in_degree, max_out_degree,
    is_terminal, start_nodes)}
