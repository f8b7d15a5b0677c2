"""Graphviz's subroutine box in its default look (real ``dot``, real Chromium, real OCR): the
generator draws a subroutine with ``peripheries=2``, a filled inner box and a second outline a
few points outside it with the page between, and connectors end at the outer outline. The
node is the outer box. Found as its inner box, a small subroutine misses its gold region at
IoU 0.7, and the outer outline, left outside the node, joins the connector entering the box to
the one leaving it (main lost the chain's first three edges).

(The file name sorts after test_pipeline.py, as test_renderer_flowchartjs.py does.)"""

from __future__ import annotations

import numpy as np
import pytest

from tests.markers import require_chromium, require_tesseract

#: two subroutines in a row, a plain box and a short subroutine (a small double box)
CHAIN = """flowchart TD
    A(["Start"]) --> B[["Execute cleanup routine"]]
    B --> C[["Run the count subroutine"]]
    C --> D["Release the lock on node"]
    D --> E[["Call send()"]]
    E --> F(["End"])
"""


@require_chromium
@require_tesseract
@pytest.mark.chromium
def test_graphviz_subroutines_are_their_outer_boxes_and_keep_their_edges(renderer, tmp_path):
    from data_gen.geometry import raster_size
    from data_gen.pipeline import ChartJob, GenConfig, _render_job
    from data_gen.raster import annotate, rasterize_svg
    from data_gen.styles import StyleSpec
    from flowpath.geometry import Region, box_iou_matrix
    from flowpath.labeller import draw_labels
    from flowpath.mermaid import parse_mermaid, to_mermaid
    from flowpath.models.base import LabelledChart
    from flowpath.segment import ClassicalSegmenter
    from flowpath.transcribe import make_transcriber

    chart = parse_mermaid(CHAIN)
    # the generator's default look (tuning chart gvprint7_s7703/gen000009: same style and id,
    # so the same dot layout knobs)
    style = StyleSpec(family="default", theme="neutral", font="Liberation Sans", font_size=16)
    job = ChartJob(id="gen000009", mermaid=to_mermaid(chart), style=style, chart=chart, renderer="graphviz")
    task = _render_job(renderer, job, GenConfig(out=tmp_path), raster_size)
    ann = annotate(task["render"], task["width"], task["height"], tuple(task["scale"]))
    image = rasterize_svg(task["svg"], task["width"], task["height"])
    ids = list(chart.nodes)
    gold = [Region.from_polygon(ann["nodes"][n]["polygon"]) for n in ids]

    regions, reason = ClassicalSegmenter().segment(image)
    assert regions, reason
    iou = box_iou_matrix(np.array([g.bbox for g in gold]), np.array([r.bbox for r in regions]))
    found = {n: int(row.argmax()) for n, row in zip(ids, iou, strict=True) if row.max() >= 0.7}
    assert set(found) == set(ids), {n: round(float(r.max()), 2) for n, r in zip(ids, iou, strict=True)}
    assert len(regions) == len(ids)

    names = [f"R{i}" for i in range(len(regions))]
    node_of = {names[i]: n for n, i in found.items()}
    labelled, letter_regions = draw_labels(image, regions, names=names)
    tr = make_transcriber("ocr", engine="tesseract")([LabelledChart(image, labelled, letter_regions)])[0]
    got = {(node_of.get(e.source, e.source), node_of.get(e.target, e.target)) for e in tr.chart.edges}
    want = {(e.source, e.target) for e in chart.edges}
    assert got == want, (got ^ want, tr.problems)
