"""The D2 renderer: what the engine can carry becomes the gold (no browser needed), and a real
Chromium drawing of a known graph, with dagre and with ELK, comes back with every node, its text,
every edge with its label and the subgraph, regions on the engine's own pixels. Also: no
training or tuning config draws with it (it is the held-out renderer of
configs/gen_wild6_eval.yaml).

(The file name sorts after test_pipeline.py on purpose: that module runs the generator CLI in
this process, which cannot start its sync Playwright once the session page of conftest.py
owns the process's asyncio loop.)"""

from __future__ import annotations

import io
import random
from pathlib import Path

import numpy as np
import pytest
import yaml

from tests.markers import require_chromium

REPO_ROOT = Path(__file__).resolve().parents[2]
HELD_OUT = "d2"
require_d2 = pytest.mark.skipif(
    not (REPO_ROOT / "node_modules" / "@terrastruct" / "d2" / "dist" / "browser" / "index.js").is_file(),
    reason="needs the npm @terrastruct/d2 install (scripts/setup.sh)")

# a loop back up, a yes/no decision, a labelled plain edge, dotted and thick edges, two edges
# between one pair, a subgraph, a left-leaning parallelogram and a trapezoid (D2 has neither),
# and texts with D2 syntax in them ("$" starts a substitution, quotes end a string)
KNOWN = """flowchart TD
    A(["Start"]) --> B[\\"Read the $order form"\\]
    B --> C{"Is the order complete?"}
    C -->|No| D["Ask the customer: 'wait' {then} retry"]
    D -.-> B
    C -->|Yes| E[["Pack the parcel"]]
    subgraph SG1 ["Shipping"]
        E ==>|to store| F[("Orders table")]
        F --> G[/"Print the label"\\]
    end
    G --> H(["End"])
    G --> H
"""


def _chart(text: str = KNOWN):
    from flowpath.mermaid import parse_mermaid

    return parse_mermaid(text)


def test_gold_is_the_chart_d2_can_draw():
    from data_gen.d2 import d2_chart, to_d2
    from data_gen.styles import sample_style
    from flowpath.graph.core import Edge, FlowChart, Node, Subgraph

    chart = FlowChart("LR")
    for nid, shape in (("A", "stadium"), ("B", "lean_left"), ("C", "trapezoid"), ("D", "rhombus"),
                       ("E", "double_circle"), ("F", "asymmetric")):
        chart.add_node(Node(nid, f"text {nid}", shape))
    chart.add_edge(Edge("A", "B", "go"))
    chart.add_edge(Edge("B", "C", head="cross"))
    chart.add_edge(Edge("C", "D", stroke="invisible"))
    chart.add_edge(Edge("D", "E", "yes", head="arrow", tail="arrow"))
    chart.add_edge(Edge("E", "F", stroke="dotted"))
    chart.subgraphs = [Subgraph(id="OUT", title="Outer", nodes=["C"]),
                       Subgraph(id="IN", title="Inner", nodes=["D", "E"], parent="OUT"),
                       Subgraph(id="NONE", title="Empty", nodes=[])]

    plan = d2_chart(chart)
    drawn = plan.chart
    assert [drawn.nodes[n].shape for n in "ABCDEF"] == ["stadium", "lean_right", "rect", "rhombus",
                                                       "double_circle", "rect"]
    assert drawn.direction == "LR"
    # every edge but the invisible one, a cross head drawn as an arrow, labels and strokes kept
    got = [(e.source, e.target, e.label, e.head, e.tail, e.stroke) for e in drawn.edges]
    assert got == [("A", "B", "go", "arrow", "none", "normal"), ("B", "C", None, "arrow", "none", "normal"),
                   ("D", "E", "yes", "arrow", "arrow", "normal"), ("E", "F", None, "arrow", "none", "dotted")]
    # nested containers keyed by their chain; an empty subgraph is not drawn
    assert [sg.id for sg in drawn.subgraphs] == ["OUT", "IN"]
    assert plan.keys["C"] == f"{plan.containers['OUT']}.n2"
    assert plan.keys["D"].startswith(plan.containers["IN"] + ".") and plan.containers["IN"].startswith(
        plan.containers["OUT"] + ".")

    style = sample_style("wild", "eval", random.Random(1), list(chart.nodes))
    source, options = to_d2(d2_chart(_chart()), style, random.Random(2), "elk")
    assert options["layout"] == "elk" and options["sketch"] is False
    assert '\\$order' in source and "direction: down" in source
    assert 'linear-gradient(' in source or 'style.fill: "#' in source
    with pytest.raises(ValueError, match="handdrawn"):
        to_d2(plan, sample_style("handdrawn", "eval", random.Random(1)), random.Random(2))
    with pytest.raises(ValueError, match="layout"):
        to_d2(plan, style, random.Random(2), "circo")


@require_chromium
@require_d2
@pytest.mark.chromium
@pytest.mark.slow  # the first D2 drawing of a session unpacks and compiles D2's WASM (~50 s at load 25)
@pytest.mark.parametrize(("family", "layout"), [("wild", "elk"), ("single_color", "dagre"), ("default", "dagre")])
def test_d2_render_of_a_known_graph_keeps_every_node_and_edge(renderer, tmp_path, family, layout):
    from data_gen.d2 import draw_d2
    from data_gen.geometry import raster_size
    from data_gen.raster import annotate, decode_png
    from data_gen.styles import sample_style
    from data_gen.verify import record_problems
    from flowpath.mermaid import parse_mermaid, to_mermaid

    chart = _chart()
    style = sample_style(family, "eval", random.Random(4), list(chart.nodes),
                         {n.id: n.kind for n in chart.nodes.values()})
    if family == "single_color":
        style.fills, style.stroke, style.gradient = ["#ffcc00"], "#7a5c00", False  # a fill no other ink has
    plan, r = draw_d2(renderer, chart, style, random.Random(7), layout)
    assert r.meta["layout"] == layout
    W, H, scale = raster_size(r.view_box)
    ann = annotate({"view_box": r.view_box, "nodes": r.nodes, "edges": r.edges, "clusters": r.clusters},
                   W, H, scale)
    gold = parse_mermaid(to_mermaid(plan.chart))
    assert set(ann["nodes"]) == set(gold.nodes) == set(chart.nodes)
    for nid, node in gold.nodes.items():
        assert ann["nodes"][nid]["text"].split() == node.text.split(), nid
    # "$" and quotes are text, not D2 syntax: no word lost
    assert ann["nodes"]["B"]["text"].split() == ["Read", "the", "$order", "form"]
    got = sorted((e["source"], e["target"], e["label"], e["stroke"]) for e in ann["edges"])
    assert got == sorted((e.source, e.target, e.label, e.stroke) for e in gold.edges)
    assert len(got) == len(chart.edges)  # both G -> H edges, the loop back up included
    assert [n.shape for n in gold.nodes.values()] == ["stadium", "lean_right", "rhombus", "rect", "subroutine",
                                                     "cylinder", "rect", "stadium"]
    [cluster] = ann["clusters"]
    assert cluster["id"] == "SG1" and cluster["title"] == "Shipping"
    cx0, cy0, cx1, cy1 = cluster["bbox"]
    for nid in ("E", "F", "G"):
        x0, y0, x1, y1 = ann["nodes"][nid]["bbox"]
        assert cx0 <= x0 and cy0 <= y0 and x1 <= cx1 and y1 <= cy1, nid
    # every text inside its region, every edge end on its nodes
    assert record_problems(ann) == []

    png = renderer.screenshot(W, H)
    from PIL import Image

    assert Image.open(io.BytesIO(png)).size == (W, H)
    if family != "single_color":
        return
    from tests.gen.test_wild import fill_ious

    ious = fill_ious(decode_png(png, W, H), (255, 204, 0), ann["nodes"])
    assert min(ious) >= 0.8 and np.mean(ious) >= 0.85, [round(v, 3) for v in ious]


def test_no_training_config_draws_with_the_held_out_renderer():
    eval_holding_it = []
    for path in sorted((REPO_ROOT / "configs").glob("gen_*.yaml")):
        cfg = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        renderers = cfg.get("renderers") or []
        if cfg.get("split", "train") != "eval":
            assert HELD_OUT not in renderers, path.name
        elif HELD_OUT in renderers:
            eval_holding_it.append(path.name)
    assert eval_holding_it == ["gen_wild6_eval.yaml"]
