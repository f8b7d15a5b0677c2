"""Edges of a real flowchart.js drawing (real Chromium, real tesseract): orthogonal connectors
with elbows, a loop back up the page beside the nodes, yes/no labels set beside the connector
near the decision, arrowheads entering a node's side, and (wild look) drop shadows under every
node and connector. The transcriber, given the nodes' regions, must return every directed edge
with its label.

(The file name sorts after test_pipeline.py on purpose, as test_renderer_flowchartjs.py does.)"""

from __future__ import annotations

import random

import pytest

from tests.gen.test_renderer_flowchartjs import require_flowchartjs
from tests.markers import require_chromium, require_tesseract

# C's "no" leaves the decision from its right side, runs down beside D and E and back up the
# page into B (a loop back); "yes" leaves from its bottom; labels sit beside each connector
LOOP = """flowchart TD
    A(["Start"]) --> B[/"Read the order form"/]
    B --> C{"Is the order complete?"}
    C -->|yes| D["Pack the parcel"]
    C -->|no| E["Ask the customer again"]
    E --> B
    D --> F(["End"])
"""


@require_chromium
@require_flowchartjs
@require_tesseract
@pytest.mark.chromium
@pytest.mark.parametrize("family", ["default", "wild"])
def test_flowchartjs_loop_back_and_side_labels_come_back_as_directed_labelled_edges(renderer, tmp_path, family):
    from data_gen.geometry import raster_size
    from data_gen.pipeline import ChartJob, GenConfig, _render_job
    from data_gen.raster import annotate, decode_png
    from data_gen.styles import sample_style
    from flowpath.geometry import Region
    from flowpath.graph.core import normalize_condition
    from flowpath.labeller import draw_labels
    from flowpath.mermaid import parse_mermaid, to_mermaid
    from flowpath.models.base import LabelledChart
    from flowpath.transcribe import make_transcriber

    chart = parse_mermaid(LOOP)
    style = sample_style(family, "train", random.Random(7), list(chart.nodes),
                         {n.id: n.kind for n in chart.nodes.values()})
    if family == "wild":
        style.shadow = True  # the drop shadow under nodes and connectors alike
    job = ChartJob(id="e1", mermaid=to_mermaid(chart), style=style, chart=chart, renderer="flowchartjs")
    task = _render_job(renderer, job, GenConfig(out=tmp_path), raster_size)
    W, H = task["width"], task["height"]
    ann = annotate(task["render"], W, H, tuple(task["scale"]))
    gold = parse_mermaid(task["mermaid"])
    # the engine drew the loop back and both branch labels: the gold is the chart itself
    assert sorted((e.source, e.target) for e in gold.edges) == sorted((e.source, e.target) for e in chart.edges)
    image = decode_png(task["png"], W, H)
    ids = list(gold.nodes)
    regions = [Region.from_polygon(ann["nodes"][n]["polygon"]) for n in ids]
    labelled, letter_regions = draw_labels(image, regions, names=ids)
    tr = make_transcriber("ocr", engine="tesseract")([LabelledChart(image, labelled, letter_regions)])[0]
    got = {(e.source, e.target): normalize_condition(e.label) for e in tr.chart.edges}
    want = {(e.source, e.target): normalize_condition(e.label) for e in gold.edges}
    assert got == want, (got, tr.problems)
