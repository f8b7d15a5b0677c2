"""A wild flowchart.js chart whose arrowheads are seen nowhere keeps its branches in their
direction (real Chromium, real tesseract): the inky end of a connector upstream along the flow
is no head there (`connectors.unseen_head_upstream`).

The chart is the tenth stretch's tuning chart fjsedge10_fjs/gen000024, re-rendered with its
style and degradation seed: a 3x2-px head on a 1.5-px line passes no thickness test at any
node, and where the branch "Option B" leaves the switch G (flowchart.js's parallel symbol, a
rectangle: no decision) its label beside the line and the line's start hold over twice the ink
and the pixels of I's end, so G -> I came back I -> G.

(The file name sorts after test_pipeline.py on purpose, as test_renderer_flowchartjs.py does.)"""

from __future__ import annotations

import pytest

from tests.gen.test_renderer_flowchartjs import require_flowchartjs
from tests.gen.test_renderer_flowchartjs_edges import _render, _transcribe_on_gold_regions
from tests.markers import require_chromium, require_tesseract

SWITCH = """flowchart TD
    A(["Start"])
    B["Database, then apply the wooden board using a small brush"]
    C[/"Obtain the seeds"/]
    D["Water the mixture for 10 minutes"]
    E(["Measure the fabric in a cool place"])
    F[/"Obtain the soil, then measure the surface"/]
    G["Mixture too runny?"]
    H["Label the baking soda using a small brush"]
    I["Heat the paint until smooth"]
    J["Wash the edges with a soft cloth"]
    K(["Done"])
    A --> B
    B --> C
    C --> D
    D --> E
    E --> F
    F --> G
    G -->|"Option A"| H
    G -->|"Option B"| I
    G -->|"Option C"| J
    H --> K
    I --> K
    J --> K
"""


@require_chromium
@require_flowchartjs
@require_tesseract
@pytest.mark.chromium
def test_an_inky_branch_start_is_no_head_where_a_chart_shows_none(renderer, tmp_path):
    from data_gen.pipeline import _degrade
    from data_gen.raster import decode_png
    from data_gen.styles import StyleSpec
    from flowpath.mermaid import parse_mermaid

    chart = parse_mermaid(SWITCH)
    style = StyleSpec(family="wild", theme="base", curve="linear", font="Carlito", font_size=13,
                      fills=["#2626d9"], stroke="#0a0a8f", text="#ffffff", edge="#333333", stroke_width=4.0,
                      edge_width=1.5, background="#dcdcdc", gradient=False, shadow=False, raster_width=524)
    task, ann, gold = _render(renderer, tmp_path, chart, style, "h1")
    image = decode_png(task["png"], task["width"], task["height"])
    text_px = style.font_size * sum(task["scale"]) / 2
    image, ann = _degrade(image, ann, {"kind": "wild", "seed": 1861976278}, task["style"], text_px)
    tr = _transcribe_on_gold_regions(image, ann, gold)
    got = {(e.source, e.target) for e in tr.chart.edges}
    assert ("G", "I") in got and ("I", "G") not in got, (sorted(got), tr.problems)
