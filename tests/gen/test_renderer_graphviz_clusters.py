"""Graphviz's clusters in the generator's default look (real ``dot``, real Chromium, real OCR):
a subgraph is drawn as a filled frame with rounded corners (``style="rounded,filled"``), and
connectors cross its outline. The frame is no connector: each connector crossing it stays its
own edge. Its rounded corners leave the four straight sides unjoined, so the frame was not
found, and it joined the connector entering the cluster, the ones leaving it and the one
running inside along it into one piece (main lost C->F and D->E and drew D->C).

(The file name sorts after test_pipeline.py, as test_renderer_flowchartjs.py does.)"""

from __future__ import annotations

import numpy as np
import pytest

from tests.markers import require_chromium, require_tesseract

#: a cluster holding a decision and its two branches; the flow enters it from above, leaves it
#: from its bottom and from its side, and one branch runs back out to the end
CLUSTER = """flowchart TD
    A(["Start"]) --> B{"Is the surface smooth?"}
    subgraph SG1["Cleanup"]
        B
        C(("Pour"))
        D["Sand the board"]
    end
    B -->|"No"| C
    B -->|"Yes"| D
    D --> E[("Config store")]
    C --> F(["Stop"])
    E --> F
"""


@require_chromium
@require_tesseract
@pytest.mark.chromium
def test_graphviz_cluster_frame_joins_no_connectors(renderer, tmp_path):
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

    chart = parse_mermaid(CLUSTER)
    # the generator's default look (tuning chart gvedge9_s9912/gen000017: same style and id)
    style = StyleSpec(family="default", theme="neutral", font="DejaVu Sans Mono", font_size=16)
    job = ChartJob(id="gen000017", mermaid=to_mermaid(chart), style=style, chart=chart, renderer="graphviz")
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

    names = [f"R{i}" for i in range(len(regions))]
    node_of = {names[i]: n for n, i in found.items()}
    labelled, letter_regions = draw_labels(image, regions, names=names)
    tr = make_transcriber("ocr", engine="tesseract")([LabelledChart(image, labelled, letter_regions)])[0]
    got = {(node_of.get(e.source, e.source), node_of.get(e.target, e.target)) for e in tr.chart.edges}
    want = {(e.source, e.target) for e in chart.edges}
    assert got == want, (got ^ want, tr.problems)
