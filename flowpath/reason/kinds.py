"""A node's kind as the reasoners read it (shared by the rules and the learned node scorer)."""

from __future__ import annotations

from flowpath.graph import FlowChart


def node_kind(chart: FlowChart, nid: str) -> str:
    """The node's kind, with decisions recognised by behaviour too: a transcriber may draw a
    decision as a plain box, but a question-like text or labelled branches give it away."""
    node = chart.nodes[nid]
    if node.kind != "decision" and node.kind not in ("start", "end"):
        outs = chart.out_edges(nid)
        if (node.text or "").rstrip().endswith("?") or (len(outs) >= 2 and any(e.label for e in outs)):
            return "decision"
    return node.kind
