"""`FlowChart` -> Mermaid text that `parse_mermaid` reads back to an equal chart."""

from __future__ import annotations

from flowpath.graph.core import FlowChart, Subgraph
from flowpath.mermaid.parser import ID_RE, RESERVED_IDS
from flowpath.mermaid.syntax import SHAPE_BRACKETS, encode_text, link_token

__all__ = ["to_mermaid"]


def _check_id(kind: str, ident: str) -> str:
    if not ID_RE.fullmatch(ident) or ident in RESERVED_IDS:
        raise ValueError(f"{kind} id {ident!r} cannot be written as a Mermaid id "
                         f"(use letters, digits, '_', inner '-'/'.', and not a keyword)")
    return ident


def to_mermaid(chart: FlowChart, *, indent: str = "    ") -> str:
    """Write a chart as Mermaid flowchart text.

    All labels are quoted and escaped (``#quot;``, ``<br>`` for newlines, ...), nodes are
    declared first in chart order, then subgraph blocks listing their members, then edges with
    ``|"label"|`` text, so ``parse_mermaid(to_mermaid(c)) == c`` for every chart whose node kinds
    are the ones `infer_kind` derives and whose subgraphs are listed parents first. Warnings are
    not exported.

    Args:
        chart: the chart to write.
        indent: the indentation of one nesting level.

    Returns:
        Mermaid text ending with a newline.

    Raises:
        ValueError: a node or subgraph id that Mermaid cannot spell (spaces, keywords such as
            ``end``).

    >>> from flowpath.graph import FlowChart
    >>> print(to_mermaid(FlowChart.from_edges([("A", "B", "Yes")], {"A": "Ok?"})), end="")
    flowchart TD
        A["Ok?"]
        B["B"]
        A -->|"Yes"| B
    """
    lines = [f"flowchart {chart.direction}"]
    for node in chart.nodes.values():
        opener, closer = SHAPE_BRACKETS[node.shape]
        lines.append(f'{indent}{_check_id("node", node.id)}{opener}"{encode_text(node.text)}"{closer}')

    children: dict[str | None, list[Subgraph]] = {}
    known = {sg.id for sg in chart.subgraphs}
    for sg in chart.subgraphs:
        parent = sg.parent if sg.parent in known and sg.parent != sg.id else None
        children.setdefault(parent, []).append(sg)

    def emit(sg: Subgraph, depth: int, seen: set[str]) -> None:
        if sg.id in seen:  # a parent cycle in hand-made data; write each group once
            return
        seen.add(sg.id)
        pad = indent * depth
        lines.append(f'{pad}subgraph {_check_id("subgraph", sg.id)}["{encode_text(sg.title)}"]')
        if sg.direction:
            lines.append(f"{pad}{indent}direction {sg.direction}")
        for nid in sg.nodes:
            if nid in chart.nodes:
                lines.append(f"{pad}{indent}{nid}")
        for child in children.get(sg.id, []):
            emit(child, depth + 1, seen)
        lines.append(f"{pad}end")

    seen: set[str] = set()
    for sg in children.get(None, []):
        emit(sg, 1, seen)

    for e in chart.edges:
        token = link_token(e.stroke, e.head, e.tail, e.length)
        label = f'|"{encode_text(e.label, pipe=True)}"|' if e.label is not None else ""
        lines.append(f"{indent}{e.source} {token}{label} {e.target}")
    return "\n".join(lines) + "\n"
