"""A flowchart.js branch whose "False" stands beside the line where it leaves its decision comes
back in its direction (`connectors.discount_beside_label`; real Chromium, real tesseract).

flowchart.js sets a branch label beside the line just past the decision's vertex: the label's
box, filled into the connector piece, and its glyphs lay in the decision's contact ring and made
the source end the inky one, and the branch read backwards (wild flowchart.js tuning sets,
docs/transcription.md, tenth stretch). The chart is chart 22 of the tuning set fjsedge9_fjs
(procedural, seed 9901, wild look: drop shadows, JPEG), whose C -> E read E -> C before.

The rule is off by default (the held-out wild D2 row fell with it on): the test turns it on.

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
def test_a_branch_label_beside_the_decision_does_not_turn_the_branch_around(renderer, tmp_path):
    from data_gen.geometry import raster_size
    from data_gen.pipeline import GenConfig, _degrade, _render_job, procedural_jobs
    from data_gen.raster import annotate, decode_png
    from flowpath.mermaid import parse_mermaid

    cfg = GenConfig(out=tmp_path, seed=9901, styles=("wild", "default"), renderers=("flowchartjs",),
                    count=23, min_nodes=5, max_nodes=16)
    job = list(procedural_jobs(cfg))[22]
    gold = parse_mermaid(job.mermaid)
    # the branch under test: "False" leaves decision C from its bottom vertex towards E
    assert gold.nodes["C"].shape == "rhombus"
    assert [e.label for e in gold.edges if (e.source, e.target) == ("C", "E")] == ["False"]
    task = _render_job(renderer, job, cfg, raster_size)
    ann = annotate(task["render"], task["width"], task["height"], tuple(task["scale"]))
    image = decode_png(task["png"], task["width"], task["height"])
    text_px = float(task["style"]["font_size"]) * sum(task["scale"]) / 2
    image, ann = _degrade(image, ann, job.meta["degrade"], task["style"], text_px)
    tr = _transcribe_on_gold_regions(image, ann, parse_mermaid(task["mermaid"]), beside_labels=True)
    got = {(e.source, e.target) for e in tr.chart.edges}
    assert ("C", "E") in got, (sorted(got), tr.problems)
    assert ("E", "C") not in got
