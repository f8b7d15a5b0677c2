"""The symbolic flowchart graph: `Node`, `Edge`, `Subgraph` and `FlowChart`.

Pure Python on networkx. Every stage of flowpath meets here: the Mermaid parser
builds a `FlowChart`, the transcribers emit one, the graph tools and reasoners query it.

JSON form (``FlowChart.to_dict``), version 1::

    {"format": "flowpath.flowchart", "version": 1, "direction": "TD",
     "nodes": [{"id": "A", "text": "Start", "shape": "stadium", "kind": "start"}, ...],
     "edges": [{"source": "A", "target": "B", "label": null, "stroke": "normal",
                "head": "arrow", "tail": "none", "length": 1}, ...],
     "subgraphs": [{"id": "S1", "title": "Loop", "nodes": ["B", "C"], "parent": null,
                    "direction": null}],
     "warnings": []}

Node order and edge order are the order of first appearance and are preserved; two edges between
the same pair of nodes (a ``Yes`` and a ``No`` to one target) are two entries.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, TypeVar

import networkx as nx

FORMAT_NAME = "flowpath.flowchart"
FORMAT_VERSION = 1

DIRECTIONS = ("TD", "TB", "BT", "LR", "RL")

_T = TypeVar("_T")

#: the entry of networkx's per-graph cache that `FlowChart.derived` keeps its values in
_DERIVED_KEY = "flowpath.derived"
_MISSING = object()

#: Canonical shape names. The Mermaid bracket syntax of each is in `flowpath.mermaid.syntax`.
SHAPES = (
    "rect",  # A[text]
    "round",  # A(text)
    "stadium",  # A([text])
    "subroutine",  # A[[text]]
    "cylinder",  # A[(text)]
    "circle",  # A((text))
    "double_circle",  # A(((text)))
    "rhombus",  # A{text}
    "hexagon",  # A{{text}}
    "lean_right",  # A[/text/]
    "lean_left",  # A[\text\]
    "trapezoid",  # A[/text\]
    "trapezoid_alt",  # A[\text/]
    "asymmetric",  # A>text]
)

#: Node kinds, the semantic role a reasoner cares about.
KINDS = ("start", "end", "terminal", "process", "decision", "io", "subroutine", "data", "connector")

_SHAPE_KIND = {
    "rect": "process",
    "round": "process",
    "stadium": "terminal",
    "subroutine": "subroutine",
    "cylinder": "data",
    "circle": "connector",
    "double_circle": "terminal",
    "rhombus": "decision",
    "hexagon": "process",
    "lean_right": "io",
    "lean_left": "io",
    "trapezoid": "process",
    "trapezoid_alt": "process",
    "asymmetric": "process",
}

#: a text that opens with a start word (`infer_kind` makes a start of a short one; the reasoner
#: also reads a titled Start terminal, `reason.kinds.is_titled_start`)
START_WORDS = re.compile(r"^\s*(start|begin|begins|starting|entry)\b", re.I)
_END_WORDS = re.compile(r"^\s*(end|stop|finish|finished|done|exit|terminate|return)\s*[.!]?\s*$", re.I)
_QUESTIONISH = re.compile(r"\?\s*$|^\s*(is|are|does|do|did|check|if|whether|has|have|can)\b", re.I)


def infer_kind(shape: str, text: str) -> str:
    """Derive a node's semantic kind from its Mermaid shape and its text.

    Terminal shapes (stadium, double circle) and rounded boxes whose text is "Start"/"End" become
    ``start``/``end``; rhombus is ``decision``; parallelograms are ``io``; anything else keeps
    the shape's default kind. A rect whose text is literally a start/end word also becomes a
    terminal, because many real charts draw "Start" as a plain box.
    """
    base = _SHAPE_KIND.get(shape, "process")
    if START_WORDS.match(text or "") and len((text or "").split()) <= 3:
        return "start"
    if _END_WORDS.match(text or ""):
        return "end"
    if base == "terminal":
        return "terminal"
    return base


@dataclass(frozen=True)
class Node:
    """One flowchart node, a value: the chart stores its fields as networkx node attributes.

    Attributes:
        id: the node id as written in Mermaid (``A``, ``step_1``) or a letter label.
        text: the node's label, entities decoded, ``<br>`` turned into ``\\n``.
        shape: one of `SHAPES`.
        kind: one of `KINDS`; derived from shape and text when not given.
    """

    id: str
    text: str = ""
    shape: str = "rect"
    kind: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise ValueError(f"Node id must be a non-empty string, got {self.id!r}")
        if self.shape not in SHAPES:
            raise ValueError(f"Node {self.id!r}: unknown shape {self.shape!r}; expected one of {SHAPES}")
        if not self.kind:
            object.__setattr__(self, "kind", infer_kind(self.shape, self.text))
        elif self.kind not in KINDS:
            raise ValueError(f"Node {self.id!r}: unknown kind {self.kind!r}; expected one of {KINDS}")

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "shape": self.shape, "kind": self.kind}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Node:
        return cls(id=d["id"], text=d.get("text", ""), shape=d.get("shape", "rect"), kind=d.get("kind", ""))


STROKES = ("normal", "thick", "dotted", "invisible")
HEADS = ("arrow", "none", "circle", "cross")

_YES = {"yes", "y", "true", "t", "1", "ok", "pass", "passed", "success", "valid"}
_NO = {"no", "n", "false", "f", "0", "fail", "failed", "failure", "invalid"}


@functools.lru_cache(maxsize=4096)  # pure and hot: graph tools compare conditions per edge
def normalize_condition(label: str | None) -> str | None:
    """Map an edge label to a branch condition: ``"yes"``, ``"no"``, the stripped lower-case
    free text, or ``None`` for an unlabelled edge."""
    if label is None:
        return None
    text = label.strip().strip("\"'").strip().rstrip(".!").strip()
    if not text:
        return None
    low = text.lower()
    if low in _YES:
        return "yes"
    if low in _NO:
        return "no"
    return low


@dataclass(frozen=True)
class Edge:
    """A directed connection ``source -> target``, a value: the chart stores its fields (all but
    the endpoints) as the attributes of one networkx multi-edge.

    Attributes:
        source, target: node ids.
        label: the edge text (``Yes``, ``No``, ``x > 3``) or ``None``.
        stroke: ``normal`` (``-->``), ``thick`` (``==>``), ``dotted`` (``-.->``), ``invisible`` (``~~~``).
        head: the marker at the target end: ``arrow``, ``none`` (``---``), ``circle`` (``--o``), ``cross`` (``--x``).
        tail: the marker at the source end; ``arrow`` for ``<-->``.
        length: extra link length (``--->`` is 2), layout only.
    """

    source: str
    target: str
    label: str | None = None
    stroke: str = "normal"
    head: str = "arrow"
    tail: str = "none"
    length: int = 1

    def __post_init__(self) -> None:
        if self.stroke not in STROKES:
            raise ValueError(f"Edge {self.source}->{self.target}: unknown stroke {self.stroke!r}")
        if self.head not in HEADS or self.tail not in HEADS:
            raise ValueError(f"Edge {self.source}->{self.target}: unknown marker {self.head!r}/{self.tail!r}")
        if self.label is not None and not self.label.strip():
            object.__setattr__(self, "label", None)

    @property
    def condition(self) -> str | None:
        """The branch condition this edge stands for (see `normalize_condition`)."""
        return normalize_condition(self.label)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "target": self.target,
            "label": self.label,
            "stroke": self.stroke,
            "head": self.head,
            "tail": self.tail,
            "length": self.length,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Edge:
        return cls(
            source=d["source"],
            target=d["target"],
            label=d.get("label"),
            stroke=d.get("stroke", "normal"),
            head=d.get("head", "arrow"),
            tail=d.get("tail", "none"),
            length=int(d.get("length", 1)),
        )


@dataclass
class Subgraph:
    """A Mermaid ``subgraph`` kept as a group: its direct member nodes, title and nesting."""

    id: str
    title: str = ""
    nodes: list[str] = field(default_factory=list)
    parent: str | None = None
    direction: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "nodes": list(self.nodes),
                "parent": self.parent, "direction": self.direction}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Subgraph:
        return cls(id=d["id"], title=d.get("title", ""), nodes=list(d.get("nodes", [])),
                   parent=d.get("parent"), direction=d.get("direction"))


class _NodeMap(Mapping[str, Node]):
    """``FlowChart.nodes``: a read-only ``{id: Node}`` view of the graph's nodes, in the order
    they were added. Editing goes through `FlowChart.add_node` / `FlowChart.remove_node`."""

    __slots__ = ("_graph",)

    def __init__(self, graph: nx.MultiDiGraph) -> None:
        self._graph = graph

    def __getitem__(self, node_id: str) -> Node:
        attrs = self._graph.nodes[node_id]
        return Node(node_id, attrs["text"], attrs["shape"], attrs["kind"])

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._graph

    def __iter__(self) -> Iterator[str]:
        return iter(self._graph)

    def __len__(self) -> int:
        return len(self._graph)

    def __repr__(self) -> str:
        return f"{{{', '.join(f'{n!r}: {self[n]!r}' for n in self)}}}"


def _edge_attrs(edge: Edge) -> dict[str, Any]:
    return {"label": edge.label, "stroke": edge.stroke, "head": edge.head, "tail": edge.tail,
            "length": edge.length}


class FlowChart:
    """A directed flowchart: one ``networkx.MultiDiGraph`` plus the chart's direction, subgraph
    groups and parse warnings.

    The graph (`graph`) is the only store of structure: node attributes ``text``/``shape``/``kind``,
    edge attributes ``label``/``stroke``/``head``/``tail``/``length``. It is a multigraph, so a
    ``Yes`` and a ``No`` edge between the same two nodes are two edges. Edge keys count up in the
    order edges were added, which is the order `edges` and `to_dict` list them in. Values
    derived from the structure (the graph tools' reach orders, degree tables, walks) are kept
    with `derived` in networkx's own per-graph cache, which networkx empties on every change,
    so there is nothing to keep in step after a change.

    >>> fc = FlowChart()
    >>> _ = fc.add_node(Node("A", "Start", "stadium")), fc.add_node(Node("B", "Work"))
    >>> _ = fc.add_edge(Edge("A", "B"))
    >>> fc.successors("A"), fc.in_degree("B")
    (['B'], 1)
    """

    def __init__(self, direction: str = "TD") -> None:
        if direction not in DIRECTIONS:
            raise ValueError(f"unknown flowchart direction {direction!r}; expected one of {DIRECTIONS}")
        self.direction = direction
        #: the structure; read it with networkx, change it through this class's methods
        self.graph = nx.MultiDiGraph()
        self.subgraphs: list[Subgraph] = []
        #: what a lenient parse or a transcriber dropped or repaired, in plain words
        self.warnings: list[str] = []
        self._next_key = 0  # the key of the next edge: keys give the edges their global order

    # -- building ---------------------------------------------------------------------------
    def add_node(self, node: Node, *, update: bool = True) -> Node:
        """Add a node, or update text/shape/kind of an existing one when ``update`` (Mermaid lets a
        later definition refine a node first seen bare in an edge).

        Returns:
            The node as the chart now holds it.
        """
        if node.id not in self.graph or update:
            self.graph.add_node(node.id, text=node.text, shape=node.shape, kind=node.kind)
        return self.nodes[node.id]

    def ensure_node(self, node_id: str) -> Node:
        """The node with this id, created as a bare rect (text = id) if missing."""
        if node_id in self.graph:
            return self.nodes[node_id]
        return self.add_node(Node(node_id, node_id))

    def add_edge(self, edge: Edge) -> Edge:
        """Add an edge (a second edge between the same nodes is kept); missing endpoint nodes are
        created bare, as Mermaid does."""
        self.ensure_node(edge.source)
        self.ensure_node(edge.target)
        self.graph.add_edge(edge.source, edge.target, key=self._next_key, **_edge_attrs(edge))
        self._next_key += 1
        return edge

    def _edge_keys(self, edge: Edge) -> list[int]:
        """Keys of the edges equal to ``edge`` (same ends and attributes), oldest first."""
        wanted = _edge_attrs(edge)
        keyed = self.graph.succ[edge.source].get(edge.target, {}) if edge.source in self.graph else {}
        keys = sorted(k for k, attrs in keyed.items() if attrs == wanted)
        if not keys:
            raise KeyError(f"no edge {edge} in the flowchart")
        return keys

    def remove_edge(self, edge: Edge) -> None:
        """Remove the most recently added edge equal to ``edge`` (same ends and attributes), so
        removing repeats of an edge keeps its first appearance in place.

        Raises:
            KeyError: the chart has no such edge.
        """
        self.graph.remove_edge(edge.source, edge.target, key=self._edge_keys(edge)[-1])

    def replace_edge(self, old: Edge, new: Edge) -> Edge:
        """Put ``new`` where the first edge equal to ``old`` is, keeping its place in edge order
        (edges are values: this is how an edge's label or style changes).

        Raises:
            KeyError: the chart has no edge equal to ``old``.
        """
        key = self._edge_keys(old)[0]
        self.graph.remove_edge(old.source, old.target, key=key)
        self.ensure_node(new.source)
        self.ensure_node(new.target)
        self.graph.add_edge(new.source, new.target, key=key, **_edge_attrs(new))
        return new

    def remove_node(self, node_id: str) -> None:
        """Remove a node and every edge touching it."""
        if node_id not in self.graph:
            raise KeyError(node_id)
        self.graph.remove_node(node_id)
        for sg in self.subgraphs:
            if node_id in sg.nodes:
                sg.nodes.remove(node_id)

    # -- queries ----------------------------------------------------------------------------
    def derived(self, key: Hashable, compute: Callable[[], _T]) -> _T:
        """A value computed from `graph`, computed once and kept until the graph next changes.

        The value lives in networkx's per-graph cache (``graph.__networkx_cache__``), which every
        networkx mutator empties: adding or removing a node or an edge, ``add_node`` on an
        existing node (how `add_node` updates a node), ``nx.set_node_attributes`` and
        ``nx.set_edge_attributes``. Every change this class makes goes through those, so a kept
        value cannot outlive the structure it was computed from. (Like networkx's own cache, it
        does not see a hand edit of an attribute dict, ``graph.nodes[n]["text"] = ...``: change
        the chart through its methods or networkx's.)

        Args:
            key: names the value, with the arguments it depends on; an unhashable key is
                computed every time.
            compute: makes the value from the current graph. It is shared by every caller that
                asks for ``key``: callers must not modify it (hand out copies).

        Returns:
            The kept value, or ``compute()`` now kept.
        """
        kept = self.graph.__networkx_cache__.setdefault(_DERIVED_KEY, {})
        try:
            value = kept.get(key, _MISSING)  # no KeyError on a miss: raising costs ~1 us a time
        except TypeError:  # unhashable key: a one-off value
            return compute()
        if value is _MISSING:
            value = kept[key] = compute()
        return value  # type: ignore[no-any-return]

    @property
    def nodes(self) -> Mapping[str, Node]:
        """``{id: Node}`` in the order nodes were added (a read-only view of `graph`)."""
        return _NodeMap(self.graph)

    @property
    def edges(self) -> list[Edge]:
        """Every edge, in the order added (a fresh list built from `graph`)."""
        return [Edge(u, v, **attrs) for u, v, _, attrs in self._edge_rows()]

    def _edge_rows(self) -> list[tuple[str, str, int, dict[str, Any]]]:
        """``(source, target, key, attributes)`` of every edge, in the order added."""
        return sorted(self.graph.edges(keys=True, data=True), key=itemgetter(2))

    def __contains__(self, node_id: object) -> bool:
        return node_id in self.graph

    def __len__(self) -> int:
        return len(self.graph)

    def __iter__(self) -> Iterator[Node]:
        nodes = self.nodes
        return (nodes[n] for n in self.graph)

    def node(self, node_id: str) -> Node:
        try:
            return self.nodes[node_id]
        except KeyError:
            raise KeyError(f"no node {node_id!r} in the flowchart") from None

    def _known(self, node_id: str) -> str:
        # networkx reads an unknown id as a bunch of nodes (a string as its characters): refuse it
        if node_id not in self.graph:
            raise KeyError(f"no node {node_id!r} in the flowchart")
        return node_id

    def out_edges(self, node_id: str) -> list[Edge]:
        """The edges leaving ``node_id``, in the order added (`KeyError` for an unknown id)."""
        graph = self.graph  # neighbors() + get_edge_data() read networkx's dicts without views
        rows = sorted(((k, v, attrs) for v in graph.successors(self._known(node_id))
                       for k, attrs in graph.get_edge_data(node_id, v).items()), key=itemgetter(0))
        return [Edge(node_id, v, **attrs) for _, v, attrs in rows]

    def in_edges(self, node_id: str) -> list[Edge]:
        """The edges entering ``node_id``, in the order added."""
        graph = self.graph
        rows = sorted(((k, u, attrs) for u in graph.predecessors(self._known(node_id))
                       for k, attrs in graph.get_edge_data(u, node_id).items()), key=itemgetter(0))
        return [Edge(u, node_id, **attrs) for _, u, attrs in rows]

    def successors(self, node_id: str) -> list[str]:
        """Distinct targets of outgoing edges, in edge order."""
        return list(self.graph.succ[node_id])

    def predecessors(self, node_id: str) -> list[str]:
        """Distinct sources of incoming edges, in edge order."""
        return list(self.graph.pred[node_id])

    def out_degree(self, node_id: str) -> int:
        """Number of edges leaving ``node_id`` (parallel edges count)."""
        return int(self.graph.out_degree(node_id))

    def in_degree(self, node_id: str) -> int:
        """Number of edges entering ``node_id`` (parallel edges count)."""
        return int(self.graph.in_degree(node_id))

    def sources(self) -> list[str]:
        """Nodes with no incoming edge, in node order."""
        # networkx's own {node: {source: ...}} dict, read without views (~2x quicker than
        # predecessors(), ~6x than the pred/degree views)
        return [n for n, sources in self.graph._pred.items() if not sources]

    def sinks(self) -> list[str]:
        """Nodes with no outgoing edge, in node order."""
        return [n for n, targets in self.graph._succ.items() if not targets]

    def to_networkx(self) -> nx.MultiDiGraph:
        """A read-only view of `graph` for networkx algorithms: always current, never a copy."""
        return nx.graphviews.generic_graph_view(self.graph)  # frozen by networkx

    # -- (de)serialisation ------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "direction": self.direction,
            "nodes": [{"id": n, "text": a["text"], "shape": a["shape"], "kind": a["kind"]}
                      for n, a in self.graph.nodes(data=True)],
            "edges": [{"source": u, "target": v, **attrs} for u, v, _, attrs in self._edge_rows()],
            "subgraphs": [s.to_dict() for s in self.subgraphs],
            "warnings": list(self.warnings),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FlowChart:
        if d.get("format", FORMAT_NAME) != FORMAT_NAME:
            raise ValueError(f"not a flowpath flowchart: format={d.get('format')!r}")
        if int(d.get("version", FORMAT_VERSION)) > FORMAT_VERSION:
            raise ValueError(f"flowchart format version {d['version']} is newer than this flowpath reads ({FORMAT_VERSION})")
        fc = cls(d.get("direction", "TD"))
        for nd in d.get("nodes", []):
            fc.add_node(Node.from_dict(nd))
        for ed in d.get("edges", []):
            fc.add_edge(Edge.from_dict(ed))
        fc.subgraphs = [Subgraph.from_dict(s) for s in d.get("subgraphs", [])]
        fc.warnings = list(d.get("warnings", []))
        return fc

    def _with_graph(self, graph: nx.MultiDiGraph, mapping: Mapping[str, str] | None = None) -> FlowChart:
        fc = FlowChart(self.direction)
        fc.graph, fc._next_key = graph, self._next_key
        fc.subgraphs = [Subgraph(s.id, s.title, [(mapping or {}).get(n, n) for n in s.nodes], s.parent,
                                 s.direction) for s in self.subgraphs]
        fc.warnings = list(self.warnings)
        return fc

    def copy(self) -> FlowChart:
        """An independent copy (graph, subgraph groups and warnings)."""
        return self._with_graph(self.graph.copy())

    def relabel(self, mapping: Mapping[str, str]) -> FlowChart:
        """A copy with node ids renamed by ``mapping`` (ids not in it are kept)."""
        return self._with_graph(nx.relabel_nodes(self.graph, dict(mapping), copy=True), mapping)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FlowChart):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __repr__(self) -> str:
        return (f"FlowChart(direction={self.direction!r}, nodes={len(self.graph)}, "
                f"edges={self.graph.number_of_edges()})")

    @classmethod
    def from_edges(cls, edges: Iterable[tuple[str, str] | tuple[str, str, str | None]],
                   texts: dict[str, str] | None = None, direction: str = "TD") -> FlowChart:
        """Build a chart from ``(source, target[, label])`` tuples; handy in tests and scripts."""
        fc = cls(direction)
        texts = texts or {}
        for nid, text in texts.items():
            fc.add_node(Node(nid, text))
        for e in edges:
            fc.add_edge(Edge(e[0], e[1], e[2] if len(e) > 2 else None))  # type: ignore[misc]
        return fc
