"""The symbolic flowchart graph: `Node`, `Edge`, `Subgraph` and `FlowChart`.

Pure Python (networkx only on demand). Every stage of flowpath meets here: the Mermaid parser
builds a `FlowChart`, the transcribers emit one, the graph tools and reasoners query it.

JSON form (``FlowChart.to_dict``), version 1::

    {"format": "flowpath.flowchart", "version": 1, "direction": "TD",
     "nodes": [{"id": "A", "text": "Start", "shape": "stadium", "kind": "start"}, ...],
     "edges": [{"source": "A", "target": "B", "label": null, "stroke": "normal",
                "head": "arrow", "tail": "none", "length": 1}, ...],
     "subgraphs": [{"id": "S1", "title": "Loop", "nodes": ["B", "C"], "parent": null,
                    "direction": null}],
     "warnings": []}

Node order and edge order are the order of first appearance and are preserved.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

FORMAT_NAME = "flowpath.flowchart"
FORMAT_VERSION = 1

DIRECTIONS = ("TD", "TB", "BT", "LR", "RL")

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

_START_WORDS = re.compile(r"^\s*(start|begin|begins|starting|entry)\b", re.I)
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
    if _START_WORDS.match(text or "") and len((text or "").split()) <= 3:
        return "start"
    if _END_WORDS.match(text or ""):
        return "end"
    if base == "terminal":
        return "terminal"
    return base


@dataclass
class Node:
    """One flowchart node.

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
            self.kind = infer_kind(self.shape, self.text)
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


@dataclass
class Edge:
    """A directed connection ``source -> target``.

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
            self.label = None

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


class FlowChart:
    """A directed flowchart graph with O(1) degree queries.

    Outgoing and incoming edge lists are indexed per node as edges are added, so ``in_degree``
    is as cheap as ``out_degree`` (the paper's implementation scanned every node for in-degree).

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
        self.nodes: dict[str, Node] = {}
        self.edges: list[Edge] = []
        self.subgraphs: list[Subgraph] = []
        #: what a lenient parse or a transcriber dropped or repaired, in plain words
        self.warnings: list[str] = []
        self._out: dict[str, list[Edge]] = {}
        self._in: dict[str, list[Edge]] = {}
        self._nx: nx.DiGraph | None = None
        #: bumped by every structural change; derived data (networkx view, graph-tool caches)
        #: is keyed on it. See `invalidate`.
        self._version = 0
        self._cache: dict[Any, Any] = {}

    # -- building ---------------------------------------------------------------------------
    def add_node(self, node: Node, *, update: bool = True) -> Node:
        """Add a node, or update text/shape of an existing one when ``update`` (Mermaid lets a
        later definition refine a node first seen bare in an edge)."""
        existing = self.nodes.get(node.id)
        if existing is None:
            self.nodes[node.id] = node
            self._out[node.id] = []
            self._in[node.id] = []
            self.invalidate()
            return node
        if update:
            existing.text, existing.shape, existing.kind = node.text, node.shape, node.kind
            self.invalidate()
        return existing

    def ensure_node(self, node_id: str) -> Node:
        """The node with this id, created as a bare rect (text = id) if missing."""
        node = self.nodes.get(node_id)
        return node if node is not None else self.add_node(Node(node_id, node_id))

    def add_edge(self, edge: Edge) -> Edge:
        """Add an edge; missing endpoint nodes are created bare, as Mermaid does."""
        self.ensure_node(edge.source)
        self.ensure_node(edge.target)
        self.edges.append(edge)
        self._out[edge.source].append(edge)
        self._in[edge.target].append(edge)
        self.invalidate()
        return edge

    def remove_node(self, node_id: str) -> None:
        """Remove a node and every edge touching it."""
        if node_id not in self.nodes:
            raise KeyError(node_id)
        del self.nodes[node_id]
        self.edges = [e for e in self.edges if node_id not in (e.source, e.target)]
        self._reindex()
        for sg in self.subgraphs:
            if node_id in sg.nodes:
                sg.nodes.remove(node_id)

    def _reindex(self) -> None:
        self._out = {n: [] for n in self.nodes}
        self._in = {n: [] for n in self.nodes}
        for e in self.edges:
            self._out[e.source].append(e)
            self._in[e.target].append(e)
        self.invalidate()

    def invalidate(self) -> None:
        """Drop derived data (networkx view, graph-tool caches). The mutating methods call it;
        call it yourself after editing ``nodes``/``edges``/``Node``/``Edge`` objects in place
        (and `reindex` after changing the ``edges`` list directly)."""
        self._version += 1
        self._cache.clear()
        self._nx = None

    def reindex(self) -> None:
        """Rebuild the in/out edge indexes after the ``edges`` list was edited directly."""
        self._reindex()

    # -- queries ----------------------------------------------------------------------------
    def __contains__(self, node_id: object) -> bool:
        return node_id in self.nodes

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes.values())

    def node(self, node_id: str) -> Node:
        try:
            return self.nodes[node_id]
        except KeyError:
            raise KeyError(f"no node {node_id!r} in the flowchart") from None

    def out_edges(self, node_id: str) -> list[Edge]:
        return self._out[node_id]

    def in_edges(self, node_id: str) -> list[Edge]:
        return self._in[node_id]

    def successors(self, node_id: str) -> list[str]:
        """Distinct targets of outgoing edges, in edge order."""
        return list(dict.fromkeys(e.target for e in self._out[node_id]))

    def predecessors(self, node_id: str) -> list[str]:
        return list(dict.fromkeys(e.source for e in self._in[node_id]))

    def out_degree(self, node_id: str) -> int:
        return len(self._out[node_id])

    def in_degree(self, node_id: str) -> int:
        return len(self._in[node_id])

    def sources(self) -> list[str]:
        """Nodes with no incoming edge, in node order."""
        return [n for n in self.nodes if not self._in[n]]

    def sinks(self) -> list[str]:
        return [n for n in self.nodes if not self._out[n]]

    def to_networkx(self) -> nx.DiGraph:
        """A cached ``networkx.DiGraph`` view (node attr ``text``/``shape``/``kind``, edge attr
        ``label``); invalidated when the chart changes. Parallel edges collapse into one."""
        if self._nx is None:
            import networkx as nx

            g = nx.DiGraph()
            for n in self.nodes.values():
                g.add_node(n.id, text=n.text, shape=n.shape, kind=n.kind)
            for e in self.edges:
                g.add_edge(e.source, e.target, label=e.label)
            self._nx = g
        return self._nx

    # -- (de)serialisation ------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "direction": self.direction,
            "nodes": [n.to_dict() for n in self.nodes.values()],
            "edges": [e.to_dict() for e in self.edges],
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

    def to_mermaid(self) -> str:
        from flowpath.mermaid import to_mermaid

        return to_mermaid(self)

    def copy(self) -> FlowChart:
        return FlowChart.from_dict(self.to_dict())

    def relabel(self, mapping: dict[str, str]) -> FlowChart:
        """A copy with node ids renamed by ``mapping`` (ids not in it are kept)."""
        d = self.to_dict()
        for nd in d["nodes"]:
            nd["id"] = mapping.get(nd["id"], nd["id"])
        for ed in d["edges"]:
            ed["source"] = mapping.get(ed["source"], ed["source"])
            ed["target"] = mapping.get(ed["target"], ed["target"])
        for sd in d["subgraphs"]:
            sd["nodes"] = [mapping.get(n, n) for n in sd["nodes"]]
        return FlowChart.from_dict(d)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FlowChart):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"FlowChart(direction={self.direction!r}, nodes={len(self.nodes)}, edges={len(self.edges)})"

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
