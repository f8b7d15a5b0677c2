"""The flowchart graph model and graph queries (no torch)."""

from flowpath.graph.core import (
    DIRECTIONS,
    KINDS,
    SHAPES,
    Edge,
    FlowChart,
    Node,
    Subgraph,
    infer_kind,
    normalize_condition,
)

__all__ = ["DIRECTIONS", "KINDS", "SHAPES", "Edge", "FlowChart", "Node", "Subgraph",
           "infer_kind", "normalize_condition"]
