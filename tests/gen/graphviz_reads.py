"""One chart through the generator's default Graphviz look and the offline perception (real
``dot``, real Chromium, real tesseract), for the tests of Graphviz-specific shapes: render it as
a tuning chart of that look, segment it, check every node is found at IoU 0.7, read it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np


@dataclass
class GraphvizRead:
    nodes: list[str]              # the chart's node ids
    regions: list[Any]            # the segmenter's regions
    edges: set[tuple[str, str]]   # the transcribed edges, named by the chart's node ids
    want: set[tuple[str, str]]    # the chart's own edges
    problems: list[str]           # the transcriber's notes, for assertion messages


def read_default_graphviz(renderer: Any, tmp_path: Path, mermaid: str, *, job_id: str, font: str) -> GraphvizRead:
    """``mermaid`` drawn by ``dot`` in the default look with ``font`` (``job_id`` picks the same
    layout knobs as the tuning chart of that id), segmented and read with tesseract."""
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

    chart = parse_mermaid(mermaid)
    style = StyleSpec(family="default", theme="neutral", font=font, font_size=16)
    job = ChartJob(id=job_id, mermaid=to_mermaid(chart), style=style, chart=chart, renderer="graphviz")
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
    return GraphvizRead(ids, regions, got, {(e.source, e.target) for e in chart.edges}, list(tr.problems))
