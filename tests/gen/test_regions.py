"""Region accuracy: every node's polygon (from SVG geometry) against a raster of that node's own
shape elements (`data_gen.verify`), across all style families, every shape, TD/LR/BT and the
Graphviz renderer; plus edge endpoints meeting their target shapes."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tests.markers import require_chromium

# data_gen.verify parses SVG with lxml (flowpath[gen]): skip, not a collection error, without it
pytest.importorskip("lxml", reason="needs lxml (pip install 'flowpath[gen]')")

from data_gen.verify import region_ious  # noqa: E402

pytestmark = [require_chromium, pytest.mark.chromium]

ALL_SHAPES = """flowchart TD
    A(["Start"]) --> B["Read the configuration file from disk"]
    B --> C{"Is the file valid?"}
    C -->|Yes| D[["Call parse_config()"]]
    C -->|No| E[(Error log)]
    D --> F((Join))
    E --> G(((Halt)))
    F --> H{{"Prepare output"}}
    H --> I[/"Print report"/]
    I --> J[\\"Archive copy"\\]
    J --> K[/"Compress"\\]
    K --> L[\\"Upload"/]
    L --> M>"Notify the user by e-mail"]
    M --> N("Clean up")
    subgraph S1 ["Finishing"]
      M
      N
    end
    N --> O(["End"])
    G --> O
"""


def _cases():
    from data_gen.procedural import random_flowchart
    from data_gen.styles import FAMILIES, sample_style
    from flowpath.mermaid import to_mermaid

    cases = []
    # the hand-drawn family has its own tests (tests/gen/test_wild.py): rough.js hachure is
    # not a filled silhouette, so this raster check does not apply to it
    for i, fam in enumerate(f for f in FAMILIES if f != "handdrawn"):
        for split, text, direction in (("eval", ALL_SHAPES, None), ("train", None, ("LR", "BT", "TD", "TD", "LR")[i])):
            rng = random.Random(100 + i)
            if text is None:
                chart, _ = random_flowchart(rng, 12, direction=direction)
                text = to_mermaid(chart)
                ids = list(chart.nodes)
            else:
                ids = list("ABCDEFGHIJKLMNO")
            style = sample_style(fam, split, rng, ids, {})
            cases.append((f"{fam}-{split}", text, style))
    return cases


def test_region_iou_all_styles_and_shapes(renderer):
    from data_gen.geometry import raster_size

    all_ious = []
    for name, text, style in _cases():
        out = renderer.render(text, config=style.mermaid_config(), css=style.css(), bake=True,
                              effects=style.page_options())
        assert "hsl(" not in out.svg and "var(" not in out.svg, name  # cairosvg paints them black
        W, H, scale = raster_size(out.view_box)
        ious, ann = region_ious(out, W, H, scale)
        assert len(ious) >= 10, name
        all_ious += list(ious.values())
        assert min(ious.values()) >= 0.9, (name, {k: round(v, 3) for k, v in ious.items() if v < 0.9})
        # arrows meet shapes: each edge ends within a few px of its target's polygon box
        for e in ann["edges"]:
            x0, y0, x1, y1 = ann["nodes"][e["target"]]["bbox"]
            ex, ey = e["end"]
            gap = max(x0 - ex, ex - x1, y0 - ey, ey - y1, 0)
            assert gap <= 8 * scale[0], (name, e["source"], e["target"], gap)
    assert np.mean(all_ious) >= 0.95
    assert min(all_ious) >= 0.9


def test_region_iou_graphviz(renderer):
    from data_gen.geometry import raster_size
    from data_gen.graphviz import dot_svg, to_dot
    from data_gen.procedural import random_flowchart
    from data_gen.styles import sample_style

    rng = random.Random(5)
    chart, _ = random_flowchart(rng, 16)
    style = sample_style("multi_color", "train", rng, list(chart.nodes), {})
    out = renderer.measure_graphviz(dot_svg(to_dot(chart, style, rng)))
    W, H, scale = raster_size(out.view_box)
    ious, ann = region_ious(out, W, H, scale)
    assert set(ious) == set(chart.nodes)
    assert np.mean(list(ious.values())) >= 0.95 and min(ious.values()) >= 0.9
    assert {(e["source"], e["target"]) for e in ann["edges"]} == {(e.source, e.target) for e in chart.edges}


def test_graphviz_gradient_fill_keeps_its_colours(renderer):
    """Baking the SVG once dropped Graphviz's gradient stop colours (kept in a style
    attribute): every gradient fill was painted black, under black text."""
    pytest.importorskip("coloraide", reason="needs coloraide (pip install 'flowpath[gen]')")
    from coloraide import Color

    from data_gen.geometry import raster_size
    from data_gen.graphviz import dot_svg, to_dot
    from data_gen.raster import annotate, rasterize_svg
    from data_gen.styles import gradient_stops, sample_style
    from flowpath.mermaid import parse_mermaid

    chart = parse_mermaid("flowchart TD\n  A[Read the order] --> B[Pack the parcel]")
    style = sample_style("wild", "eval", random.Random(1), list(chart.nodes), {})
    style.gradient, style.shadow = True, False
    out = renderer.measure_graphviz(dot_svg(to_dot(chart, style, random.Random(1))))
    W, H, scale = raster_size(out.view_box)
    img = rasterize_svg(out.svg, W, H)
    ann = annotate({"view_box": out.view_box, "nodes": out.nodes, "edges": out.edges,
                    "clusters": out.clusters}, W, H, scale)
    for nid, node in ann["nodes"].items():
        x0, y0, x1, y1 = node["bbox"]
        cx = int((x0 + x1) / 2)
        # a column down the node's middle, clear of the border, through the text: its median is fill
        column = img[int(y0 + 0.2 * (y1 - y0)):int(y1 - 0.2 * (y1 - y0)), cx - 2:cx + 3].reshape(-1, 3)
        seen = "#{:02x}{:02x}{:02x}".format(*np.median(column, axis=0).astype(int))
        stops = gradient_stops(style.node_colours[nid])
        closest = min(Color(seen).delta_e(Color(s), method="2000") for s in stops)
        assert closest < 25, f"node {nid} drawn {seen}, its gradient runs {stops}"


def test_pixel_regions_match_the_raster_scale(renderer):
    """The same chart at 1x and 2x: regions scale with the PNG."""
    from data_gen.geometry import raster_size
    from data_gen.raster import annotate

    out = renderer.render(ALL_SHAPES)
    r = {"view_box": out.view_box, "nodes": out.nodes, "edges": out.edges, "clusters": out.clusters}
    W1, H1, s1 = raster_size(out.view_box, scale=1.0)
    W2, H2, s2 = raster_size(out.view_box, scale=2.0)
    a1, a2 = annotate(r, W1, H1, s1), annotate(r, W2, H2, s2)
    for nid in a1["nodes"]:
        b1, b2 = np.array(a1["nodes"][nid]["bbox"]), np.array(a2["nodes"][nid]["bbox"])
        assert np.allclose(b2, b1 * np.array([s2[0] / s1[0], s2[1] / s1[1]] * 2), atol=0.05)


def test_mermaid_error_is_mermaids_own(renderer):
    from data_gen.render import MermaidError

    with pytest.raises(MermaidError) as info:
        renderer.render("flowchart TD\n  A[unclosed --> B")
    assert "Parse error" in str(info.value) or "Expecting" in str(info.value)
    # the page keeps working after an error
    assert renderer.render("flowchart LR\n  A --> B").nodes


def test_wide_chart_with_unequal_pixel_rounding(renderer):
    """A long LR chart under the 1600 px width cap: whole-pixel rounding makes sx != sy, which
    must not shift the picture against the regions (cairosvg would centre it by default)."""
    from data_gen.geometry import raster_size

    text = "flowchart LR\n" + "\n".join(f"    N{i}[\"Step number {i}\"] --> N{i + 1}" for i in range(12))
    out = renderer.render(text)
    W, H, scale = raster_size(out.view_box)
    assert W == 1600 and abs(scale[0] - scale[1]) > 1e-3  # really the unequal case
    ious, _ = region_ious(out, W, H, scale)
    assert np.mean(list(ious.values())) >= 0.95 and min(ious.values()) >= 0.9


def test_same_chart_renders_the_same_twice(renderer):
    # rough.js (behind Mermaid 11's shapes, classic look included) samples curves with
    # Math.random unless seeded: the same text must give the same geometry on every call
    first, second = renderer.render(ALL_SHAPES), renderer.render(ALL_SHAPES)
    assert [n["shapes"] for n in first.nodes] == [n["shapes"] for n in second.nodes]
    assert [e["d"] for e in first.edges] == [e["d"] for e in second.edges]
