"""Fourth renderer: flowchart.js (npm ``flowchart.js`` 1.18 on ``raphael`` 2.3, pinned in
``package.json``), the classic web-flowchart look of Typora, HackMD and many blogs, drawn in the
same Chromium page as Mermaid.

flowchart.js has seven symbol types (start, end, operation, inputoutput, subroutine, condition,
parallel), lays a chart out itself by walking it from its first symbol (each ``next`` below,
a condition's yes/no branch below or to the right, orthogonal connectors routed around, hops
where lines cross) and draws it with Raphael as flat SVG. What it can carry decides the gold:

- shapes: stadium/round -> start or end (a rounded rectangle, radius 20), rhombus/hexagon with
  two branches -> condition (a diamond), lean_right/lean_left -> inputoutput (a parallelogram), subroutine ->
  subroutine, every other shape -> operation (a rectangle);
- out-edges: a condition has a yes and a no branch, a parallel symbol (a rectangle) up to three
  paths, any other symbol one ``next``; a decision with three or more branches becomes a
  parallel symbol, extra branches (and what only they reached) are dropped;
- edge labels: a condition branch always shows a text (its label, else the engine's own
  ``yes``/``no``), a parallel path its label if any; labels on plain edges cannot be drawn and
  are dropped;
- no subgraphs, always top-down; dotted and thick edges are carried (Raphael line styles).

`flowchartjs_chart` rewrites the job's chart into the one drawn, which becomes the record's
gold Mermaid; the page (``fpRenderFlowchartjs``) measures the engine's own SVG: symbol elements
by their ids (flowchart.js names them after the symbol keys), connectors and their label texts
as flowchart.js draws them (tagged in the page as each connector is drawn).

npm ships flowchart.js as CommonJS sources without a browser build; `browser_bundle` wraps them
in a minimal module table for the page (``raphael`` is the global from ``raphael.min.js``).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from data_gen.geometry import bbox_of, resolve_shape
from data_gen.graphviz import _shade_of
from data_gen.styles import StyleSpec, _text_on, gradient_stops
from flowpath.geometry import box_intersection_matrix
from flowpath.graph.core import FlowChart

REPO_ROOT = Path(__file__).resolve().parents[1]
FLOWCHART_JS_DIR = REPO_ROOT / "node_modules" / "flowchart.js"
RAPHAEL_JS = REPO_ROOT / "node_modules" / "raphael" / "raphael.min.js"

_TYPE_OF_SHAPE = {"stadium": "terminal", "round": "terminal", "rhombus": "condition",
                  "hexagon": "condition", "lean_right": "inputoutput", "lean_left": "inputoutput",
                  "subroutine": "subroutine"}
#: our shape name for what each flowchart.js symbol looks like
DRAWN_SHAPE = {"start": "stadium", "end": "stadium", "operation": "rect", "inputoutput": "lean_right",
               "subroutine": "subroutine", "condition": "rhombus", "parallel": "rect"}
_YES = {"yes", "y", "true", "ok"}


def browser_bundle() -> str:
    """flowchart.js's CommonJS sources as one script for the page: each file becomes a function
    in a module table, ``require`` resolves relative paths, ``raphael`` is ``window.Raphael``.
    Defines ``window.flowchart`` (as the package's own ``index.js`` does) and
    ``window.fpFlowchartRequire``.

    Raises:
        FileNotFoundError: flowchart.js is not installed.
    """
    files = [FLOWCHART_JS_DIR / "index.js", *sorted((FLOWCHART_JS_DIR / "src").glob("*.js"))]
    if not files[0].is_file():
        raise FileNotFoundError(f"{FLOWCHART_JS_DIR} missing: run 'npm ci' in {REPO_ROOT}")
    mods = []
    for f in files:
        name = f.relative_to(FLOWCHART_JS_DIR).with_suffix("").as_posix()
        body = f.read_text(encoding="utf-8")
        mods.append(f"{json.dumps(name)}: function (module, exports, require) {{\n{body}\n}}")
    return (
        "(function () {\n"
        "var defs = {" + ",\n".join(mods) + "};\n"
        "var cache = {};\n"
        "function load(name) {\n"
        "  if (name === 'raphael') return window.Raphael;\n"
        "  if (cache[name]) return cache[name].exports;\n"
        "  if (!defs[name]) throw new Error('flowchart.js bundle: no module ' + name);\n"
        "  var module = cache[name] = {exports: {}};\n"
        "  var dir = name.indexOf('/') >= 0 ? name.slice(0, name.lastIndexOf('/') + 1) : '';\n"
        "  defs[name](module, module.exports, function (p) {\n"
        "    return load(p.indexOf('./') === 0 ? dir + p.slice(2).replace(/\\.js$/, '') : p);\n"
        "  });\n"
        "  return module.exports;\n"
        "}\n"
        "load('index');\n"
        "window.fpFlowchartRequire = load;\n"
        "})();\n")


@dataclass
class FlowchartjsPlan:
    """One chart as flowchart.js will draw it.

    Attributes:
        chart: the chart drawn (the record's gold): shapes, edges and labels as drawn.
        types: node id -> flowchart.js symbol type.
        branch: edge index in ``chart.edges`` -> ``yes``/``no``/``path1``.. or None (``next``).
    """

    chart: FlowChart
    types: dict[str, str]
    branch: dict[int, str | None]


def _clean(text: str) -> str:
    """Text flowchart.js's line parser reads back unchanged: ``|`` starts a flow state, ``->``,
    ``=>``, ``@>``, ``:>`` and ``:$`` are syntax."""
    text = text.replace("|", "/")
    return re.sub(r"([-=@:])([>$])", r"\1 \2", text)


def _clean_label(text: str) -> str:
    # an annotation sits inside "key(yes@LABEL, right)": no parentheses, commas or @ in it
    return " ".join(re.sub(r"[(),@]", " ", _clean(text)).split())


def flowchartjs_chart(chart: FlowChart) -> FlowchartjsPlan:
    """The chart as flowchart.js draws it (see the module docstring for the rules).

    Raises:
        ValueError: the chart has no edge (flowchart.js starts a drawing at its first flow).
    """
    if not chart.edges:
        raise ValueError("flowchart.js draws a chart from its first flow: the chart has no edge")
    start = next(iter(chart.nodes))
    out_edges: dict[str, list[int]] = {nid: [] for nid in chart.nodes}
    for k, e in enumerate(chart.edges):
        out_edges[e.source].append(k)
    types: dict[str, str] = {}
    branch: dict[int, str | None] = {}
    keep: set[int] = set()
    for nid, node in chart.nodes.items():
        ks = out_edges[nid]
        kind = _TYPE_OF_SHAPE.get(node.shape, "operation")
        if kind == "condition" and len(ks) != 2:
            kind = "operation"  # a lone branch would get the engine's own "yes" written on it
        if len(ks) >= 3 or (len(ks) == 2 and kind != "condition"):
            types[nid] = "parallel"
            ks = ks[:3]
            for p, k in enumerate(ks, 1):
                branch[k] = f"path{p}"
        elif kind == "condition":
            types[nid] = "condition"
            # the yes branch: a yes-like label, else the first edge
            yes = next((k for k in ks if (chart.edges[k].label or "").strip().lower() in _YES), ks[0] if ks else None)
            for k in ks:
                branch[k] = "yes" if k == yes else "no"
        else:
            types[nid] = "terminal" if kind == "terminal" else kind
            ks = ks[:1]
            for k in ks:
                branch[k] = None
        keep.update(ks)
    # flowchart.js draws what its walk from the first symbol reaches
    seen, todo = {start}, [start]
    while todo:
        for k in out_edges[todo.pop()]:
            t = chart.edges[k].target
            if k in keep and t not in seen:
                seen.add(t)
                todo.append(t)
    out = FlowChart("TD")
    for nid, node in chart.nodes.items():
        if nid not in seen:
            continue
        t = types[nid]
        if t == "terminal":
            t = types[nid] = "start" if nid == start or out_edges[nid] else "end"
        out.add_node(replace(node, text=_clean(node.text), shape=DRAWN_SHAPE[t]))
    drawn_branch: dict[int, str | None] = {}
    for k, e in enumerate(chart.edges):
        if k not in keep or e.source not in seen:
            continue
        b = branch[k]
        label = _clean_label(e.label) if e.label and b is not None else None
        if b in ("yes", "no") and not label:
            label = b  # the engine writes its own yes/no on every condition branch
        drawn_branch[len(out.edges)] = b
        out.add_edge(replace(e, label=label or None, head="arrow", tail="none",
                             stroke=e.stroke if e.stroke in ("dotted", "thick") else "normal"))
    return FlowchartjsPlan(out, {n: types[n] for n in out.nodes}, drawn_branch)


def to_flowchartjs(plan: FlowchartjsPlan, style: StyleSpec, rng: random.Random) -> tuple[str, dict[str, Any], str]:
    """flowchart.js source, ``drawSVG`` options and page CSS for ``plan`` in ``style``, with
    random layout knobs (line length, margins, wrap width, which side a condition's yes takes).

    Symbols are keyed ``n0``, ``n1``... in node order (their SVG ids); node colours are
    flowchart.js flow states (one per colour), a gradient is Raphael's own gradient fill.
    """
    chart = plan.chart
    key = {nid: f"n{i}" for i, nid in enumerate(chart.nodes)}
    font_size = max(10, style.font_size - 2)
    edge_text = _text_on(style.text or "#000000", style.background or "#ffffff")
    opts: dict[str, Any] = {
        "line-width": round(style.edge_width * 0.75 if style.family != "default" else rng.choice((2, 3)), 2),
        "line-length": rng.choice((30, 40, 50, 50)),
        "text-margin": rng.choice((8, 10, 10, 12)),
        "font-size": font_size, "font-family": style.font,
        "font-color": edge_text if style.family != "default" else "black",
        "line-color": style.edge or "black", "element-color": style.stroke or "black",
        "fill": "white", "arrow-end": rng.choice(("block", "block", "classic")),
        "maxWidth": rng.choice((150, 170, 190, 210)), "scale": 1, "symbols": {}, "flowstate": {},
    }
    states: dict[str, str] = {}
    if style.family != "default":
        for nid in chart.nodes:
            colour = style.node_colours.get(nid) or (style.fills[0] if style.fills else None)
            if not colour:
                continue
            if colour not in states:
                fill = colour
                if style.gradient:  # Raphael: angle 90 runs bottom -> top
                    top, mid, bottom = gradient_stops(colour)
                    fill = f"90-{bottom}-{mid}-{top}"
                border = _shade_of(colour) if style.family == "wild" else (style.stroke or "black")
                states[colour] = f"c{len(states)}"
                opts["flowstate"][states[colour]] = {
                    "fill": fill, "element-color": border, "line-width": style.stroke_width,
                    "font-color": style.text or "black"}
    lines = []
    for nid, node in chart.nodes.items():
        state = states.get(style.node_colours.get(nid) or (style.fills[0] if style.fills else ""), "")
        text = node.text or nid
        # align-next=no: a condition's right branch is not pushed past the symbols below it
        params = "(align-next=no)" if plan.types[nid] == "condition" and rng.random() < 0.3 else ""
        lines.append(f"{key[nid]}{params}=>{plan.types[nid]}: {text}" + (f"|{state}" if state else ""))
    yes_right = {nid: rng.random() < 0.3 for nid, t in plan.types.items() if t == "condition"}
    for k, e in enumerate(chart.edges):
        b = plan.branch[k]
        src = key[e.source]
        if b in ("yes", "no"):
            ann = f"@{e.label}" if e.label and e.label != b else ""
            side = ("right" if b == "yes" else "bottom") if yes_right[e.source] else ("bottom" if b == "yes" else "right")
            src = f"{src}({b}{ann}, {side})"
        elif b is not None:
            ann = f"@{e.label}" if e.label else ""
            src = f"{src}({b}{ann}, {('bottom', 'right', 'left')[int(b[-1]) - 1]})"
        lines.append(f"{src}->{key[e.target]}")
        if e.stroke == "dotted":
            lines.append(f'{key[e.source]}@>{key[e.target]}({{"stroke-dasharray":"-"}})')
        elif e.stroke == "thick":
            lines.append(f'{key[e.source]}@>{key[e.target]}({{"stroke-width":{opts["line-width"] * 2}}})')
    css = ""
    if style.shadow:
        css = "#{id} .flowchart { filter: drop-shadow(3px 3px 2px rgba(0,0,0,0.45)); }"
    return "\n".join(lines), opts, css


#: layouts tried per chart before giving up on flowchart.js's naive placement
TRIES = 12


def draw_flowchartjs(renderer: Any, chart: FlowChart, style: StyleSpec,
                     rng: random.Random) -> tuple[FlowchartjsPlan, Any]:
    """Draw ``chart`` with flowchart.js in the renderer's page and measure it.

    flowchart.js places symbols and routes connectors without checking for room: a layout
    whose symbols overlap or whose connectors cross a third symbol is drawn again with other
    knobs (line length, the side of each condition's yes branch), up to `TRIES` times.

    Args:
        renderer: a started `data_gen.render.MermaidRenderer`.
        chart: the chart to draw; style: its look; rng: the layout knobs' generator.

    Returns:
        ``(plan, render)``: `FlowchartjsPlan` (``plan.chart`` is the gold) and the page's
        `RenderOutput`, node and edge ends named by ``plan.chart``'s node ids.

    Raises:
        ValueError: no usable layout in `TRIES` tries, or a chart flowchart.js cannot start.
    """
    plan = flowchartjs_chart(chart)
    alias = {f"n{i}": nid for i, nid in enumerate(plan.chart.nodes)}
    problem = ""
    for _ in range(TRIES):
        source, options, css = to_flowchartjs(plan, style, rng)
        r = renderer.render_flowchartjs(source, options, css=css, background=style.background)
        for n in r.nodes:
            n["id"] = alias[n["id"]]
        for e in r.edges:
            e["source"], e["target"] = alias[e["source"]], alias[e["target"]]
        problem = layout_problem(plan.chart, r)
        if not problem:
            return plan, r
    raise ValueError(f"flowchart.js: no usable layout in {TRIES} tries ({problem})")


def layout_problem(chart: FlowChart, r: Any) -> str:
    """What is wrong with a flowchart.js drawing of ``chart`` ("" if nothing): a node or edge
    not drawn, two symbols' boxes overlapping, or a connector running through a third symbol."""
    from data_gen.verify import drawn_problem

    problem = drawn_problem(chart, r)
    if problem:
        return problem
    boxes = []
    for n in r.nodes:
        pts = [p for s in n["shapes"] for p in resolve_shape(s)["pts"]]
        boxes.append(bbox_of(pts))
    # grown by 2 units a side: symbols closer than that would have touching strokes
    b = np.asarray(boxes) + np.array([-2.0, -2.0, 2.0, 2.0])
    hit = box_intersection_matrix(b, b) > 0
    np.fill_diagonal(hit, False)
    if hit.any():
        i, j = (int(v) for v in np.argwhere(hit)[0])
        return f"symbols {r.nodes[i]['id']!r} and {r.nodes[j]['id']!r} overlap"
    # a connector through a third symbol (over its text): its author would have moved a branch
    inner = np.asarray(boxes) + np.array([3.0, 3.0, -3.0, -3.0])
    for e in r.edges:
        p = np.asarray(e["points"], dtype=float)
        inside = ((p[:, None, 0] > inner[None, :, 0]) & (p[:, None, 0] < inner[None, :, 2])
                  & (p[:, None, 1] > inner[None, :, 1]) & (p[:, None, 1] < inner[None, :, 3]))
        for k in np.flatnonzero(inside.any(axis=0)):
            if r.nodes[k]["id"] not in (e["source"], e["target"]):
                return f"connector {e['source']}->{e['target']} crosses symbol {r.nodes[k]['id']!r}"
    return ""
