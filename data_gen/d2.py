"""Fifth renderer: D2 (terrastruct's text-to-diagram language; npm ``@terrastruct/d2`` 0.1.33,
D2 v0.7 compiled to WebAssembly, pinned in ``package.json``), drawn in the same Chromium page as
Mermaid, offline: the package's browser build carries the WASM inside it and runs it in a
module worker.

D2 lays a chart out with dagre (curved connectors) or ELK (orthogonal connectors with rounded
elbows), both drawn at random, and draws it in its own look: bold node text, italic edge labels
set *on* the connector (the line is masked under them), its own drop shadows, gradients and
double borders. What it can carry decides the gold (`d2_chart`, the chart *as drawn*):

- shapes: rect, round (border radius 4), stadium (D2's ``oval``, an ellipse: dagre's arrows
  stop off the ends of a pill-shaped rectangle), subroutine (double border), cylinder, circle, double_circle (double-bordered circle), rhombus (``diamond``),
  hexagon, lean_right (``parallelogram``); D2 has no left-leaning parallelogram, trapezoid or
  flag: lean_left is drawn as lean_right, trapezoid, trapezoid_alt and asymmetric as rect;
- edges: every edge with its label, dotted (stroke-dash) and thick ones; heads arrow, none or
  circle and a tail arrow (``<->``), a cross head becomes an arrow; invisible links are not
  drawn (dropped);
- subgraphs: D2 containers (nested ones too), the record's clusters;
- all four directions.

Node ids are keys ``n0``, ``n1``... (``c0.n3`` inside container ``c0``); the page
(``fpRenderD2``) finds every shape and connection in D2's own SVG by the base64 id D2 writes as
its first class, and ends each connector at its arrowhead's tip (D2 stops the path at the
marker's reference point). Sketch mode (D2's hand-drawn look) is not used: the handdrawn family
is refused (kept for later hand-drawn work).
"""

from __future__ import annotations

import functools
import random
import re
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from data_gen.graphviz import _shade_of, _wrap
from data_gen.styles import StyleSpec, _text_on, gradient_stops
from flowpath.graph.core import FlowChart, Subgraph

REPO_ROOT = Path(__file__).resolve().parents[1]
D2_JS = REPO_ROOT / "node_modules" / "@terrastruct" / "d2" / "dist" / "browser" / "index.js"

#: our shape -> (D2 shape, extra D2 style, the shape as drawn: the gold)
SHAPE_MAP: dict[str, tuple[str, dict[str, str], str]] = {
    "rect": ("rectangle", {}, "rect"),
    # dagre aims arrows at a shape's box: on a pill (radius 999) or a large radius they stop
    # up to a fifth of its height off the rounded corner, so round keeps a small radius and
    # stadium is D2's oval (an ellipse, traced exactly), the terminal shape people draw
    "round": ("rectangle", {"border-radius": "4"}, "round"),
    "stadium": ("oval", {}, "stadium"),
    "subroutine": ("rectangle", {"double-border": "true"}, "subroutine"),
    "cylinder": ("cylinder", {}, "cylinder"),
    "circle": ("circle", {}, "circle"),
    "double_circle": ("circle", {"double-border": "true"}, "double_circle"),
    "rhombus": ("diamond", {}, "rhombus"),
    "hexagon": ("hexagon", {}, "hexagon"),
    "lean_right": ("parallelogram", {}, "lean_right"),
    "lean_left": ("parallelogram", {}, "lean_right"),
    "trapezoid": ("rectangle", {}, "rect"),
    "trapezoid_alt": ("rectangle", {}, "rect"),
    "asymmetric": ("rectangle", {}, "rect"),
}
_DIRECTION = {"TD": "down", "TB": "down", "BT": "up", "LR": "right", "RL": "left"}
#: (head, tail) -> D2 connection operator
_OPERATOR = {("arrow", "none"): "->", ("none", "none"): "--", ("arrow", "arrow"): "<->",
             ("none", "arrow"): "<-", ("circle", "none"): "->", ("circle", "arrow"): "<->"}
#: D2's own font roles and the fontconfig style that fills each
FONT_ROLES = {"fontRegular": "Regular", "fontBold": "Bold", "fontItalic": "Italic", "fontSemibold": "Bold"}


def browser_module() -> str:
    """The package's browser build as a module script that sets ``window.D2`` (the build ends in
    an ES ``export``, which a page cannot import from a ``file:`` URL).

    Raises:
        FileNotFoundError: ``@terrastruct/d2`` is not installed.
        ValueError: the build does not end in the export this code expects (another version).
    """
    if not D2_JS.is_file():
        raise FileNotFoundError(f"{D2_JS} missing: run 'npm ci' in {REPO_ROOT}")
    text = D2_JS.read_text(encoding="utf-8")
    out, n = re.subn(r"export\s*\{\s*([\w$]+)\s+as\s+D2\s*\}\s*;?\s*$", r"window.D2 = \1;", text)
    if n != 1:
        raise ValueError(f"{D2_JS}: no 'export {{... as D2}}' at its end; expected @terrastruct/d2 0.1.33")
    return out


@functools.lru_cache(maxsize=64)
def font_file(family: str, style: str = "Regular") -> Path:
    """The TTF/OTF file fontconfig has for ``family`` in ``style`` (the regular face when the
    family has no such style).

    Raises:
        FileNotFoundError: the family is not installed (fontconfig would substitute another).
    """
    found = subprocess.run(["fc-match", "-f", "%{family}|%{style}|%{file}", f"{family}:style={style}"],
                           capture_output=True, text=True, timeout=30).stdout
    families, styles, path = (found.split("|") + ["", "", ""])[:3]
    if family.lower() not in [f.strip().lower() for f in families.split(",")]:
        raise FileNotFoundError(f"font {family!r} is not installed (fontconfig offers {families!r})")
    if style != "Regular" and style.lower() not in styles.lower():
        return font_file(family, "Regular")
    return Path(path)


@dataclass
class D2Plan:
    """One chart as D2 will draw it.

    Attributes:
        chart: the chart drawn (the record's gold): shapes and edges as drawn.
        keys: node id -> its D2 key (``n3`` or, inside containers, ``c0.n3``).
        containers: subgraph id -> its D2 key (``c0``, nested ``c0.c1``).
    """

    chart: FlowChart
    keys: dict[str, str]
    containers: dict[str, str]


def d2_chart(chart: FlowChart) -> D2Plan:
    """The chart as D2 draws it (see the module docstring for the rules) and the D2 keys of its
    nodes and containers.

    Raises:
        ValueError: the chart has no node.
    """
    if not chart.nodes:
        raise ValueError("d2: the chart has no node")
    out = FlowChart(chart.direction if chart.direction in _DIRECTION else "TD")
    for nid, node in chart.nodes.items():
        out.add_node(replace(node, text=node.text or nid, shape=SHAPE_MAP[node.shape][2]))
    for e in chart.edges:
        if e.stroke == "invisible":
            continue
        head = e.head if e.head in ("arrow", "none", "circle") else "arrow"
        tail = "arrow" if e.tail == "arrow" else "none"
        out.add_edge(replace(e, head=head, tail=tail))
    # containers: every subgraph keyed by its chain of ancestors (a loop in the chain is cut)
    by_id = {sg.id: sg for sg in chart.subgraphs}
    own = {sg.id: f"c{i}" for i, sg in enumerate(chart.subgraphs)}

    def chain_key(sg: Subgraph) -> str:
        chain = [sg.id]
        parent = by_id.get(sg.parent or "")
        while parent is not None and parent.id not in chain:
            chain.append(parent.id)
            parent = by_id.get(parent.parent or "")
        return ".".join(own[s] for s in reversed(chain))

    containers = {sg.id: chain_key(sg) for sg in chart.subgraphs}
    keys = {nid: f"n{i}" for i, nid in enumerate(out.nodes)}
    for sg in chart.subgraphs:
        for n in sg.nodes:  # a node listed by two subgraphs goes into the first
            if n in keys and "." not in keys[n]:
                keys[n] = f"{containers[sg.id]}.{keys[n]}"
    used = {k.rsplit(".", 1)[0] for k in keys.values() if "." in k}
    # a container is drawn when it or one of its sub-containers holds a node
    drawn = {sid: k for sid, k in containers.items() if any(u == k or u.startswith(k + ".") for u in used)}
    out.subgraphs = [replace(sg, nodes=[n for n in sg.nodes if n in keys]) for sg in chart.subgraphs if sg.id in drawn]
    return D2Plan(out, keys, drawn)


def _q(text: str) -> str:
    """A D2 double-quoted string: backslash, quote, ``$`` (a substitution) and newlines escaped."""
    text = text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")
    return '"' + text.replace("\r", "").replace("\n", "\\n") + '"'


def _block(attrs: dict[str, str]) -> str:
    return " {" + "; ".join(f"{k}: {v}" for k, v in attrs.items()) + "}" if attrs else ""


def edge_width(style: StyleSpec) -> int:
    """D2's line width (whole px) of a normal edge in ``style``; a thick edge gets twice that."""
    return 2 if style.family == "default" else max(1, round(style.edge_width))


def to_d2(plan: D2Plan, style: StyleSpec, rng: random.Random,
          layout: str | None = None) -> tuple[str, dict[str, Any]]:
    """D2 source and compile options for ``plan`` in ``style``, with random layout knobs
    (``layout`` ``dagre`` or ``elk`` unless given, label wrap width).

    The default family keeps D2's own look (its default theme's colours, bold node text, grey
    italic edge labels); every other family sets fills (a gradient: D2's own
    ``linear-gradient``), borders (same-hue darker for the wild family), border and line
    widths, text colours, D2's own drop shadows and the paper colour. All families use the
    style's font (its TTF files, `font_file`) and size.

    Raises:
        ValueError: the handdrawn family (D2's sketch mode is not used), or an unknown layout.
    """
    if layout not in (None, "dagre", "elk"):
        raise ValueError(f"d2: layout must be 'dagre' or 'elk', got {layout!r}")
    if style.family == "handdrawn":
        raise ValueError("d2: the handdrawn family is not drawn with D2 (its sketch mode is kept for later)")
    chart = plan.chart
    flat = style.family == "default"
    wrap = rng.choice((18, 22, 26, 30))
    lines = [f"direction: {_DIRECTION[chart.direction]}"]
    if style.background and not flat:
        lines.append(f"style.fill: {_q(style.background)}")
    members: dict[str, list[str]] = {}
    for nid, key in plan.keys.items():
        if "." in key:
            members.setdefault(key.rsplit(".", 1)[0], []).append(nid)
    for sg in chart.subgraphs:
        attrs = {"label": _q(sg.title or sg.id)}
        if not flat:
            attrs.update({"style.fill": _q("#f7f7f7"), "style.stroke": _q("#999999"),
                          "style.font-color": _q(_text_on(style.text or "#1a1a1a", "#f7f7f7"))})
        lines.append(f"{plan.containers[sg.id]}{_block(attrs)}")
    for nid, node in chart.nodes.items():
        shape, extra, _ = SHAPE_MAP[node.shape]
        attrs = {"label": _q(_wrap(node.text, wrap)), "shape": shape}
        attrs.update({f"style.{k}": v for k, v in extra.items()})
        attrs["style.font-size"] = str(style.font_size)
        if not flat:
            colour = style.node_colours.get(nid) or (style.fills[0] if style.fills else None)
            if colour:
                if style.gradient:  # D2 runs a linear gradient top to bottom
                    attrs["style.fill"] = _q("linear-gradient({})".format(", ".join(gradient_stops(colour))))
                else:
                    attrs["style.fill"] = _q(colour)
                border = _shade_of(colour) if style.family == "wild" else style.stroke
                if border:
                    attrs["style.stroke"] = _q(border)
            elif style.stroke:
                attrs["style.stroke"] = _q(style.stroke)
            attrs["style.stroke-width"] = str(max(1, round(style.stroke_width)))
            if style.text:
                attrs["style.font-color"] = _q(style.text)
            if style.shadow:
                attrs["style.shadow"] = "true"
        lines.append(f"{plan.keys[nid]}{_block(attrs)}")
    width = edge_width(style)
    for e in chart.edges:
        attrs = {}
        if e.label:
            attrs["label"] = _q(e.label)
        attrs["style.font-size"] = str(style.font_size)  # WILD_MIN_TEXT_PX holds for edge labels too
        if e.stroke == "dotted":
            attrs["style.stroke-dash"] = str(rng.choice((3, 4, 5)))
        if not flat:
            if style.edge:
                attrs["style.stroke"] = _q(style.edge)
            attrs["style.font-color"] = _q(_text_on(style.text or "#1a1a1a", style.background or "#ffffff"))
        attrs["style.stroke-width"] = str(width * 2 if e.stroke == "thick" else width)
        if e.head == "circle":
            attrs["target-arrowhead.shape"] = "circle"
            attrs["target-arrowhead.style.filled"] = "true"
        op = _OPERATOR[(e.head, e.tail)]
        lines.append(f"{plan.keys[e.source]} {op} {plan.keys[e.target]}{_block(attrs)}")
    options = {"layout": layout or rng.choice(("dagre", "elk")), "themeID": 0, "sketch": False}
    return "\n".join(lines) + "\n", options


def draw_d2(renderer: Any, chart: FlowChart, style: StyleSpec, rng: random.Random,
            layout: str | None = None) -> tuple[D2Plan, Any]:
    """Draw ``chart`` with D2 in the renderer's page and measure it.

    Args:
        renderer: a started `data_gen.render.MermaidRenderer`.
        chart: the chart to draw; style: its look; rng: the layout knobs' generator.
        layout: ``dagre`` or ``elk`` (default: drawn from ``rng``).

    Returns:
        ``(plan, render)``: `D2Plan` (``plan.chart`` is the gold) and the page's `RenderOutput`,
        nodes, edge ends and clusters named by ``plan.chart``'s ids.

    Raises:
        ValueError: D2 did not draw every node and edge of the plan, or the style cannot be drawn.
    """
    from data_gen.verify import drawn_problem

    plan = d2_chart(chart)
    source, options = to_d2(plan, style, rng, layout)
    fonts = {role: font_file(style.font, face) for role, face in FONT_ROLES.items()}
    r = renderer.render_d2(source, options, nodes=list(plan.keys.values()), clusters=list(plan.containers.values()),
                           fonts=fonts, pad=rng.choice((12, 20, 30)),
                           edge_width=edge_width(style))
    node_of = {k: nid for nid, k in plan.keys.items()}
    cluster_of = {k: sid for sid, k in plan.containers.items()}
    for n in r.nodes:
        n["id"] = node_of[n["id"]]
    for e in r.edges:
        e["source"], e["target"] = node_of.get(e["source"], e["source"]), node_of.get(e["target"], e["target"])
    for c in r.clusters:
        c["id"] = cluster_of[c["id"]]
    problem = drawn_problem(plan.chart, r)
    if problem:
        raise ValueError(f"d2: {problem}")
    _meet_outlines(r)
    r.meta["layout"] = options["layout"]
    return plan, r


#: farthest (root units) an edge end is moved onto its node's outline
GAP = 6.0


def _meet_outlines(r: Any) -> None:
    """D2 starts a connector a stroke width or so off its source's outline, and its arrow tips
    touch the outer edge of the target's border (half a border width off the outline, whose
    polygon runs along the stroke's middle): each end is carried on along its line onto the
    outline, at most `GAP` units, so the gold edge starts and ends on its nodes."""
    import cv2
    import numpy as np

    from data_gen.geometry import node_outline, ray_to_outline

    outline = {n["id"]: node_outline(n["shapes"]) for n in r.nodes}

    def onto(end: list[float], prev: list[float], nid: str) -> list[float] | None:
        poly = np.asarray(outline[nid], dtype=np.float32).reshape(-1, 1, 2)
        if cv2.pointPolygonTest(poly, (float(end[0]), float(end[1])), False) >= 0:
            return None  # already on or inside the outline
        hit = ray_to_outline(end, [2 * end[0] - prev[0], 2 * end[1] - prev[1]], outline[nid], GAP)
        return list(hit) if hit else None

    for e in r.edges:
        pts = e["points"]
        if len(pts) < 2:
            continue
        start = onto(pts[0], pts[1], e["source"])
        if start:
            pts.insert(0, start)
        end = onto(pts[-1], pts[-2], e["target"])
        if end:
            pts.append(end)
