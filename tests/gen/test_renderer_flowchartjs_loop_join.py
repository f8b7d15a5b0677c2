"""A flowchart.js loop back joined into the line above its target, and a line crossing it, come
back as their own edges (`connectors.split_traced_pieces`; real Chromium, real tesseract).

flowchart.js draws a loop back as an orthogonal line up beside the chart that comes into the
line above its target from the side, and lines cross where they must: the whole tangle was one
connector piece whose ends were paired by ink or by the flow, so the loop came out as an edge
from the chart's first node (a loop back's source lies downstream of its target). The chart is
chart 37 of the tuning set fjsloop11_fjs (procedural, seed 11101, default look): I's "Yes" runs
up beside the chart into the line A -> B and crosses C -> D on the way; before, A -> B, C -> D
and I -> B were all lost (read A -> C, B -> D, I -> C).

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
def test_a_loop_back_joined_into_the_line_above_its_target_ends_at_that_target(renderer, tmp_path):
    from data_gen.geometry import raster_size
    from data_gen.pipeline import GenConfig, _render_job, procedural_jobs
    from data_gen.raster import annotate, decode_png
    from flowpath.mermaid import parse_mermaid

    cfg = GenConfig(out=tmp_path, seed=11101, styles=("wild", "default"), renderers=("flowchartjs",),
                    count=38, min_nodes=5, max_nodes=16)
    job = list(procedural_jobs(cfg))[37]
    gold = parse_mermaid(job.mermaid)
    # the loop under test: I's "Yes" back up to B, whose line from A it joins; C -> D crosses it
    assert [e.label for e in gold.edges if (e.source, e.target) == ("I", "B")] == ["Yes"]
    assert job.style.family == "default"
    task = _render_job(renderer, job, cfg, raster_size)
    ann = annotate(task["render"], task["width"], task["height"], tuple(task["scale"]))
    image = decode_png(task["png"], task["width"], task["height"])
    tr = _transcribe_on_gold_regions(image, ann, parse_mermaid(task["mermaid"]))
    got = {(e.source, e.target) for e in tr.chart.edges}
    assert {("A", "B"), ("I", "B"), ("C", "D")} <= got, (sorted(got), tr.problems)
    # nothing from the chart's first node but its own line
    assert {t for s, t in got if s == "A"} == {"B"}, (sorted(got), tr.problems)
