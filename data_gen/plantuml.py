"""Third renderer: PlantUML activity diagrams (Debian ``plantuml``, run headless and offline).

The chart is written in PlantUML's activity syntax with explicit links (``"text" as N3 -->[label]
N5``), which draws any graph (loops, early exits, many-way branches) where the newer structured
syntax cannot; PlantUML lays it out with Graphviz and draws it itself: rounded activity boxes,
labels set beside the connectors, its own drop shadows and gradients. Every node is drawn as an
activity box and subgraphs are not drawn, so the job's chart is rewritten to say so
(`plantuml_chart`) before it becomes the record's gold Mermaid.

PlantUML's SVG has no node groups: entities come first, in the order their aliases first appear
in the source, each as one shape followed by its text lines; then every link as a ``<path
id="N3->N5">``, its arrowhead polygon and its label texts. ``page.js`` (``fpMeasurePlantuml``)
measures that with the browser's own geometry, and the texts are checked against the chart.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from dataclasses import replace

from data_gen.graphviz import _wrap
from data_gen.styles import StyleSpec, gradient_stops
from flowpath.graph.core import FlowChart

#: id of the start pseudo-state's dot in the measured entity order (not a node of the chart)
START = "(*)"


def plantuml_chart(chart: FlowChart) -> FlowChart:
    """The chart as PlantUML draws it: every node a rounded activity box, solid links, no
    subgraphs."""
    out = FlowChart(chart.direction)
    for node in chart.nodes.values():
        out.add_node(replace(node, shape="round"))
    for edge in chart.edges:
        out.add_edge(replace(edge, stroke="normal", head="arrow", tail="none"))
    return out


def _q(text: str) -> str:
    # PlantUML quoted activity text: a newline is the two characters \n, quotes are not escapable
    return '"' + text.replace('"', "'").replace("\n", "\\n") + '"'


def _colour(c: str | None) -> str | None:
    return c.upper() if c else None


def to_puml(chart: FlowChart, style: StyleSpec, rng: random.Random) -> tuple[str, list[str], list[int]]:
    """PlantUML source for ``chart`` in ``style``.

    Returns:
        ``(source, node_order, edge_order)``: the ids of the entities in the order PlantUML
        draws them (`START`, then the nodes by first mention), and the chart's edge indices in
        the order their links are drawn (after the start link).

    Raises:
        ValueError: a node has no edge (this syntax declares activities only through links).
    """
    alias = {nid: f"N{i}" for i, nid in enumerate(chart.nodes)}
    first = next(iter(chart.nodes))
    lonely = [nid for nid in chart.nodes
              if nid != first and not chart.out_edges(nid) and not chart.in_edges(nid)]
    if lonely:
        raise ValueError(f"PlantUML activity links cannot draw unconnected nodes {lonely}")
    fill = style.node_colours.get(next(iter(chart.nodes)), None) or (style.fills[0] if style.fills else None)
    fill = _colour(fill)
    if fill and style.gradient:
        top, _, bottom = gradient_stops(fill.lower())
        fill = f"{top.upper()}-{bottom.upper()}"
    lines = ["@startuml",
             f"skinparam shadowing {'true' if style.shadow or (style.family == 'default') else 'false'}",
             f"skinparam defaultFontName {style.font}",
             f"skinparam defaultFontSize {max(10, style.font_size - 3)}",
             f"skinparam backgroundColor {(style.background or '#FFFFFF').upper()}",
             f"skinparam ArrowColor {_colour(style.edge) or '#A80036'}",
             f"skinparam ArrowThickness {style.edge_width * 0.75:.1f}",
             "skinparam activity {",
             f"  FontName {style.font}",
             f"  FontSize {style.font_size - 2}"]
    if fill:
        lines.append(f"  BackgroundColor {fill}")
    if style.stroke:
        lines.append(f"  BorderColor {_colour(style.stroke)}")
    if style.text:
        lines.append(f"  FontColor {_colour(style.text)}")
    lines.append("}")
    if chart.direction in ("LR", "RL") or rng.random() < 0.15:
        lines.append("left to right direction")
    seen: set[str] = set()
    order: list[str] = []

    def ref(nid: str) -> str:
        if nid in seen:
            return alias[nid]
        seen.add(nid)
        order.append(nid)
        return f"{_q(_wrap(chart.nodes[nid].text or nid))} as {alias[nid]}"

    # the start pseudo-state makes PlantUML read the file as an activity diagram: without it a
    # file of plain quoted links can be taken for a sequence diagram. It is drawn first.
    lines.append(f"(*) --> {ref(first)}")
    order.insert(0, START)
    edge_order = []
    for k, e in enumerate(chart.edges):
        # PlantUML's own label placement: beside the connector, as on many web charts
        arrow = "-->" + (f"[{e.label.replace(']', ')')}]" if e.label else "")
        lines.append(f"{ref(e.source)} {arrow} {ref(e.target)}")
        edge_order.append(k)
    lines.append("@enduml")
    return "\n".join(lines), order, edge_order


def plantuml_svg(source: str, timeout: float = 120.0) -> str:
    """Run ``plantuml -tsvg -pipe``; raise ValueError with PlantUML's message if it fails."""
    exe = shutil.which("plantuml")
    if exe is None:
        raise FileNotFoundError("PlantUML not found: install Debian 'plantuml' (scripts/setup.sh)")
    proc = subprocess.run([exe, "-tsvg", "-pipe", "-nometadata", "-charset", "UTF-8"],
                          input=source.encode("utf-8"), capture_output=True, timeout=timeout,
                          env={"JAVA_TOOL_OPTIONS": "-Djava.awt.headless=true", "PATH": "/usr/bin:/bin"})
    text = proc.stdout.decode("utf-8", "replace")
    if proc.returncode != 0 or "<svg" not in text:
        msg = (proc.stderr.decode("utf-8", "replace") or text).strip()
        raise ValueError(f"plantuml failed: {msg[:500]}")
    return text[text.index("<svg"):]
