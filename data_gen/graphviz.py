"""Second renderer: Graphviz ``dot`` (Debian graphviz), for layouts Mermaid never makes
(orthogonal/polyline splines, different ranking and spacing, Graphviz's own shapes and fonts).

The DOT text is built from the `FlowChart`; ``dot -Tsvg`` draws it; the browser page measures
the SVG exactly like a Mermaid one (`MermaidRenderer.measure_graphviz`).
"""

from __future__ import annotations

import random
import shutil
import subprocess

from data_gen.styles import StyleSpec, gradient_stops
from flowpath.graph.core import FlowChart

_SHAPES = {
    "rect": ("box", ""), "round": ("box", "rounded"), "stadium": ("box", "rounded"),
    "subroutine": ("box", ""), "cylinder": ("cylinder", ""), "circle": ("circle", ""),
    "double_circle": ("doublecircle", ""), "rhombus": ("diamond", ""), "hexagon": ("hexagon", ""),
    "lean_right": ("parallelogram", ""), "lean_left": ("polygon", ""), "trapezoid": ("trapezium", ""),
    "trapezoid_alt": ("invtrapezium", ""), "asymmetric": ("cds", ""),
}
_RANKDIR = {"TD": "TB", "TB": "TB", "BT": "BT", "LR": "LR", "RL": "RL"}


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(chart: FlowChart, style: StyleSpec, rng: random.Random, end_labels: bool = False) -> str:
    """DOT source for ``chart`` in ``style`` (colours, font), with random Graphviz layout knobs.

    ``end_labels``: each edge label is set beside one end of its edge (``taillabel``, by the
    source, two in three; else ``headlabel``, by the target) rather than at its middle: the
    placement flowchart.js gives a branch label beside the decision it leaves, and its mirror.
    """
    splines = rng.choice(("spline", "ortho", "polyline", "spline"))
    lines = [
        "digraph G {",
        f'  graph [rankdir={_RANKDIR.get(chart.direction, "TB")}, splines={splines}, '
        f'nodesep={rng.uniform(0.25, 0.7):.2f}, ranksep={rng.uniform(0.3, 0.8):.2f}, '
        f'bgcolor={_q(style.background or "white")}, pad=0.2];',
        f'  node [fontname={_q(style.font)}, fontsize={style.font_size - 2}, style="filled", '
        f'fillcolor={_q(style.fills[0] if style.fills else "#ececff")}, color={_q(style.stroke or "#333333")}, '
        f'fontcolor={_q(style.text or "#000000")}, '
        f'penwidth={style.stroke_width}, margin="0.15,0.08"];',
        f'  edge [fontname={_q(style.font)}, fontsize={style.font_size - 3}, color={_q(style.edge or "#333333")}, '
        f'penwidth={style.edge_width * 0.75:.2f}, arrowsize=0.8];',
    ]
    in_sub = {n for sg in chart.subgraphs for n in sg.nodes}
    for i, sg in enumerate(chart.subgraphs):
        lines.append(f"  subgraph cluster_{i} {{ label={_q(sg.title or sg.id)}; style=\"rounded,filled\"; "
                     f"fillcolor=\"#f7f7f7\"; color=\"#999999\";")
        for nid in sg.nodes:
            lines.append(f"    {_q(nid)};")
        lines.append("  }")
    for node in chart.nodes.values():
        shape, extra = _SHAPES.get(node.shape, ("box", ""))
        attrs = [f"label={_q(_wrap(node.text))}", f"shape={shape}"]
        st = ["filled"] + ([extra] if extra else [])
        attrs.append(f'style="{",".join(st)}"')
        if node.shape == "subroutine":
            attrs.append("peripheries=2")
        if node.shape == "lean_left":
            attrs += ["sides=4", "skew=-0.3"]
        colour = style.node_colours.get(node.id)
        if colour and style.gradient:  # Graphviz's own linear gradient, light at the top
            top, _, bottom = gradient_stops(colour)
            attrs += [f"fillcolor={_q(top + ':' + bottom)}", "gradientangle=270"]
        elif colour:
            attrs.append(f"fillcolor={_q(colour)}")
        if colour and style.family == "wild":
            attrs.append(f"color={_q(_shade_of(colour))}")
        lines.append(f"  {_q(node.id)} [{', '.join(attrs)}];")
    for e in chart.edges:
        attrs = []
        if e.label and end_labels:
            attrs.append(f"{'taillabel' if rng.random() < 2 / 3 else 'headlabel'}={_q(e.label)}")
        elif e.label:
            attrs.append(f"label={_q(e.label)}")
        if e.stroke == "dotted":
            attrs.append("style=dashed")
        elif e.stroke == "thick":
            attrs.append("penwidth=2.5")
        lines.append(f"  {_q(e.source)} -> {_q(e.target)}{' [' + ', '.join(attrs) + ']' if attrs else ''};")
    lines.append("}")
    del in_sub
    return "\n".join(lines)


def _shade_of(colour: str) -> str:
    from data_gen.styles import _shade

    return _shade(colour, 0.55)


def _wrap(text: str, width: int = 28) -> str:
    out = []
    for para in text.split("\n"):
        line = ""
        for w in para.split():
            if line and len(line) + 1 + len(w) > width:
                out.append(line)
                line = w
            else:
                line = f"{line} {w}".strip()
        out.append(line)
    return "\n".join(out)


def dot_svg(dot: str, timeout: float = 60.0) -> str:
    """Run ``dot -Tsvg``; raise ValueError with dot's message if it fails."""
    exe = shutil.which("dot")
    if exe is None:
        raise FileNotFoundError("Graphviz 'dot' not found: install Debian 'graphviz' (scripts/setup.sh)")
    proc = subprocess.run([exe, "-Tsvg"], input=dot.encode("utf-8"), capture_output=True, timeout=timeout)
    if proc.returncode != 0:
        raise ValueError(f"dot failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    text = proc.stdout.decode("utf-8")
    # drop the XML prolog/doctype: the page inserts the <svg> element itself
    return text[text.index("<svg"):]
