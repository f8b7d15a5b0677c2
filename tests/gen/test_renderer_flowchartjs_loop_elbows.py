"""flowchart.js loops back drawn as three straight sides of a rectangle come back as edges
(`connectors.find_frames` keeps a U that holds no node; real Chromium, real tesseract).

flowchart.js brings a loop back out of a decision's vertex, along beside the chart, up, and back
into the line above its target: three long straight sides that `find_frames` took for a
subgraph's frame with one side missing and cut out of the connector mask, so the loop was lost
(its two stubs led nowhere, or the stub at the target was paired the wrong way). A subgraph's
frame holds its nodes; these U's hold none. The chart is chart 29 of the tuning set
fjsedge10_fjs (procedural, seed 10101, default look): C's "True" runs back up to B and G's "Yes"
back up to D, each crossed by the decision's other branch (a hop); before, both were lost.

(The file name sorts after test_pipeline.py on purpose, as test_renderer_flowchartjs.py does.)"""

from __future__ import annotations

import pytest

from tests.gen.test_renderer_flowchartjs import require_flowchartjs
from tests.gen.test_renderer_flowchartjs_edges import _transcribe_on_gold_regions
from tests.markers import require_chromium, require_tesseract


@require_chromium
@require_flowchartjs
@require_tesseract
@pytest.mark.chromium
def test_flowchartjs_loops_back_drawn_as_open_rectangles_are_no_frames(renderer, tmp_path):
    from data_gen.geometry import raster_size
    from data_gen.pipeline import GenConfig, _render_job, procedural_jobs
    from data_gen.raster import annotate, decode_png
    from flowpath.mermaid import parse_mermaid

    cfg = GenConfig(out=tmp_path, seed=10101, styles=("wild", "default"), renderers=("flowchartjs",),
                    count=30, min_nodes=5, max_nodes=16)
    job = list(procedural_jobs(cfg))[29]
    gold = parse_mermaid(job.mermaid)
    loops = {(e.source, e.target) for e in gold.edges if e.label in ("True", "Yes")}
    # the two loops under test: each leaves its decision's bottom vertex and runs back up
    assert {("C", "B"), ("G", "D")} <= loops
    assert job.style.family == "default"
    task = _render_job(renderer, job, cfg, raster_size)
    ann = annotate(task["render"], task["width"], task["height"], tuple(task["scale"]))
    image = decode_png(task["png"], task["width"], task["height"])
    tr = _transcribe_on_gold_regions(image, ann, parse_mermaid(task["mermaid"]), loop_backs=True)
    got = {(e.source, e.target) for e in tr.chart.edges}
    assert {("C", "B"), ("G", "D")} <= got, (sorted(got), tr.problems)
    # and the lines they cross keep their own ends
    assert {("C", "D"), ("A", "B")} <= got, (sorted(got), tr.problems)
