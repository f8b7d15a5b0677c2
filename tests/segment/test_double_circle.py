"""Double circles (Mermaid ``id(((text)))``) are outlined at their OUTER circle, the node's
geometry, in every style family (filled and unfilled), whether the band between the two circles
is wide enough to be a flat region of its own (large renders) or not (small ones); and nodes on
a subgraph's fill are outlined at their stroke, not grown into the fill."""

from __future__ import annotations

import pytest

from flowpath.geometry import box_iou
from flowpath.segment import ClassicalSegmenter
from tests.markers import render_in_families, require_chromium
from tests.segment.synth import SHAPES, STYLES, draw_chart


def _best_iou(regions, box):
    return max((box_iou(r.bbox, box) for r in regions), default=0.0)


@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("scale", [0.7, 1.0, 2.0])
def test_double_circle_is_outlined_at_its_outer_circle(style, scale):
    shapes = ("rect", "double_circle", "circle", "double_circle")
    img, boxes = draw_chart(style, shapes=shapes, scale=scale)
    (regions,) = ClassicalSegmenter()([img])
    assert len(regions) == len(shapes)
    for shape, box in zip(shapes, boxes, strict=True):
        assert _best_iou(regions, box) >= 0.93, f"{style} x{scale} {shape}"
        if shape == "double_circle":
            # the inner circle lies 5 px (x scale) inside the gold outer one
            g = 5 * scale
            inner = (box[0] + g, box[1] + g, box[2] - g, box[3] - g)
            best = max(regions, key=lambda r: box_iou(r.bbox, box))
            assert box_iou(best.bbox, box) > box_iou(best.bbox, inner) + 0.05, best.bbox


@pytest.mark.parametrize("style", sorted(STYLES))
def test_nodes_on_a_subgraph_fill_are_outlined_at_their_stroke(style):
    """The fill around the nodes is not their stroke, and the edge label on it is no node."""
    img, boxes = draw_chart(style, shapes=SHAPES + ("double_circle",), backdrop=(255, 255, 222))
    (regions,) = ClassicalSegmenter()([img])
    assert len(regions) == len(boxes)
    for shape, box in zip(SHAPES + ("double_circle",), boxes, strict=True):
        assert _best_iou(regions, box) >= 0.93, f"{style} {shape}"


#: double circles of short and long text, one on a subgraph's fill, among other shapes
CHART = """flowchart TD
    A(["Start"]) --> B((("Set")))
    B --> C["Compute the checksum"]
    C --> D((("Choose a path")))
    D -->|"Yes"| E{"Is it empty?"}
    D -->|"No"| F(("Loop"))
    E --> G[("cache")]
    subgraph S1["Group"]
        H((("Inside")))
    end
    F --> H
    G --> H
"""
FAMILIES = ("single_color", "multi_color", "default", "black_white")


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """The chart in the four style families (eval palettes), at 1x: the band between the two
    circles is then too thin to be a flat region of its own."""
    return render_in_families(tmp_path_factory.mktemp("double_circle"), CHART, FAMILIES, "--scale", "1")


@require_chromium
def test_rendered_double_circles_are_outlined_at_their_outer_circle(rendered):
    from flowpath.datasets.febench import Benchmark
    from flowpath.io import load_image

    bench = Benchmark(rendered)
    seg = ClassicalSegmenter()
    families = set()
    for chart in bench.charts():
        families.add(chart.style_family)
        (regions,) = seg([load_image(chart.image_path)])
        for nid in ("B", "D", "H"):
            iou = _best_iou(regions, chart.regions[nid].bbox)
            assert iou >= 0.9, f"{chart.style_family} {nid}: {iou:.3f}"
        others = [n for n in chart.regions if n not in ("B", "D", "H")]
        assert all(_best_iou(regions, chart.regions[n].bbox) >= 0.7 for n in others)
    assert families == set(FAMILIES)
