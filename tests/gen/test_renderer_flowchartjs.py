"""The flowchart.js renderer: what the engine can carry becomes the gold (no browser needed),
and a real Chromium drawing of a known graph comes back with every node, its text and every
edge, regions on the engine's own pixels. (flowchart.js was the held-out renderer of
configs/gen_wild5_eval.yaml; it may now be tuned on, on new seeds: test_renderer_d2.py guards
the held-out renderer of gen_wild6_eval.yaml.)

(The file name sorts after test_pipeline.py on purpose: that module runs the generator CLI in
this process, which cannot start its sync Playwright once the session page of conftest.py
owns the process's asyncio loop.)"""

from __future__ import annotations

import io
import random
from pathlib import Path

import numpy as np
import pytest

from tests.markers import require_chromium

REPO_ROOT = Path(__file__).resolve().parents[2]
require_flowchartjs = pytest.mark.skipif(
    not (REPO_ROOT / "node_modules" / "flowchart.js" / "index.js").is_file()
    or not (REPO_ROOT / "node_modules" / "raphael" / "raphael.min.js").is_file(),
    reason="needs the npm flowchart.js + raphael install (scripts/setup.sh)")

# a loop back up, a yes/no decision, input/output, a subroutine, a data store (drawn as a plain
# operation) and texts with flowchart.js syntax in them ("|" starts a flow state, "->" a flow)
KNOWN = """flowchart TD
    A(["Start"]) --> B[/"Read the order form"/]
    B --> C{"Is the order complete?"}
    C -->|No| D["Ask the customer | wait -> retry"]
    D --> B
    C -->|Yes| E[["Pack the parcel"]]
    E --> F[("Orders table")]
    F --> G(["End"])
"""


def test_gold_is_the_chart_flowchartjs_can_draw():
    from data_gen.flowchartjs import flowchartjs_chart
    from flowpath.graph.core import Edge, FlowChart, Node, Subgraph

    chart = FlowChart("LR")
    for nid, shape in (("A", "stadium"), ("S", "rhombus"), ("B1", "rect"), ("B2", "rect"),
                       ("B3", "rect"), ("B4", "rect"), ("H", "hexagon"), ("C", "rhombus"),
                       ("Z", "stadium")):
        chart.add_node(Node(nid, f"text {nid}", shape))
    chart.add_edge(Edge("A", "S", "go"))  # a label on a plain edge: not drawable
    for k, b in enumerate(("B1", "B2", "B3", "B4")):  # a four-way switch
        chart.add_edge(Edge("S", b, f"case {k}"))
    for b in ("B1", "B2", "B3"):
        chart.add_edge(Edge(b, "H"))
    chart.add_edge(Edge("B4", "Z"))
    chart.add_edge(Edge("H", "C"))  # a hexagon step with one way on: an operation
    chart.add_edge(Edge("C", "Z"))  # an unlabelled two-way condition: the engine's yes/no
    chart.add_edge(Edge("C", "A", stroke="dotted"))
    chart.subgraphs = [Subgraph(id="SG1", title="Cases", nodes=["B1", "B2"])]

    plan = flowchartjs_chart(chart)
    drawn = plan.chart
    # three paths at most: the fourth branch and what only it reached are not drawn
    assert set(drawn.nodes) == {"A", "S", "B1", "B2", "B3", "H", "C", "Z"}
    assert plan.types["S"] == "parallel" and drawn.nodes["S"].shape == "rect"
    assert plan.types["H"] == "operation" and drawn.nodes["H"].shape == "rect"
    assert plan.types["C"] == "condition" and drawn.nodes["C"].shape == "rhombus"
    assert plan.types["A"] == "start" and plan.types["Z"] == "end"
    assert not drawn.subgraphs and drawn.direction == "TD"
    labels = {(e.source, e.target): e.label for e in drawn.edges}
    assert labels[("A", "S")] is None
    assert [labels[("S", b)] for b in ("B1", "B2", "B3")] == ["case 0", "case 1", "case 2"]
    assert {labels[("C", "Z")], labels[("C", "A")]} == {"yes", "no"}
    assert next(e for e in drawn.edges if e.target == "A").stroke == "dotted"


@require_chromium
@require_flowchartjs
@pytest.mark.chromium
@pytest.mark.parametrize("family", ["wild", "single_color", "default"])
def test_flowchartjs_render_of_a_known_graph_keeps_every_node_and_edge(renderer, tmp_path, family):
    from data_gen.geometry import raster_size
    from data_gen.pipeline import ChartJob, GenConfig, _render_job
    from data_gen.raster import annotate, decode_png
    from data_gen.styles import sample_style
    from data_gen.verify import record_problems
    from flowpath.mermaid import parse_mermaid, to_mermaid

    chart = parse_mermaid(KNOWN)
    style = sample_style(family, "eval", random.Random(4), list(chart.nodes),
                         {n.id: n.kind for n in chart.nodes.values()})
    if family == "single_color":
        style.fills, style.stroke = ["#ffcc00"], "#7a5c00"  # a fill no other ink has
    job = ChartJob(id="f1", mermaid=to_mermaid(chart), style=style, chart=chart, renderer="flowchartjs")
    task = _render_job(renderer, job, GenConfig(out=tmp_path), raster_size)
    W, H = task["width"], task["height"]
    ann = annotate(task["render"], W, H, tuple(task["scale"]))
    gold = parse_mermaid(task["mermaid"])
    assert task["style"]["renderer"] == "flowchartjs"
    assert set(ann["nodes"]) == set(gold.nodes) == set(chart.nodes)
    for nid, node in gold.nodes.items():
        assert ann["nodes"][nid]["text"].split() == node.text.split(), nid
    # D's "|" and "->" are not read as flowchart.js syntax (a flow state, a flow): no word lost
    assert {"customer", "wait", "retry"} <= set(ann["nodes"]["D"]["text"].split())
    got = sorted((e["source"], e["target"], e["label"]) for e in ann["edges"])
    assert got == sorted((e.source, e.target, e.label) for e in gold.edges)
    assert sorted((e.source, e.target) for e in gold.edges) == sorted((e.source, e.target) for e in chart.edges)
    assert {gold.nodes[n].shape for n in "BCE"} == {"lean_right", "rhombus", "subroutine"}
    # every text inside its region, every edge end on its nodes
    assert record_problems(ann) == []

    from PIL import Image

    assert Image.open(io.BytesIO(task["png"])).size == (W, H)
    if family != "single_color":
        return
    from tests.gen.test_wild import fill_ious

    ious = fill_ious(decode_png(task["png"], W, H), (255, 204, 0), ann["nodes"])
    assert min(ious) >= 0.8 and np.mean(ious) >= 0.85, [round(v, 3) for v in ious]
