"""A sketch read by the whole pipeline (issue 21 item 5): real Chromium draws a procedural
hand-drawn chart (chart 3 of seed 9500, as in the tuning set edges_tune_hand), the default
segmenter finds its nodes and the real OCR transcriber reads it. The segmenter's box for the
hatched parallelogram "Collect the edges" sits a few px inside the drawn shape, so the shape's
bottom outline and hatching join the short connector to the decision below and, passing the
arrowhead thickness test, made the parallelogram's end look like the head: that edge came back
reversed (`connectors.Contact.outline`)."""

from __future__ import annotations

import json

import pytest

from flowpath.models.base import LabelledChart
from tests.markers import generate_in_child_process, require_chromium, require_tesseract

pytestmark = [require_chromium, require_tesseract, pytest.mark.chromium, pytest.mark.slow]

#: the generator run of edges_tune_hand, cut to its first four charts (chart i depends only on
#: (seed, i): `data_gen.pipeline.procedural_jobs`)
GENERATE = ["--styles", "handdrawn", "--split", "train", "--count", "4", "--seed", "9500",
            "--min-nodes", "5", "--max-nodes", "16", "--scale", "1.5", "--renderers", "mermaid",
            "--workers", "0", "--prefix", "eh", "--outputs", "bench"]


@pytest.fixture(scope="module")
def chart(tmp_path_factory):  # type: ignore[no-untyped-def]
    from flowpath.datasets.febench import Benchmark

    out = tmp_path_factory.mktemp("sketch_cut_boxes") / "bench"
    generate_in_child_process([str(out), *GENERATE])
    return Benchmark(out).chart("eh000003")


def test_a_hatched_shape_cut_by_its_segmented_box_gives_no_head(chart):  # type: ignore[no-untyped-def]
    from flowpath.io import load_image
    from flowpath.labeller import draw_labels
    from flowpath.mermaid import parse_mermaid
    from flowpath.metrics.matching import match_nodes
    from flowpath.metrics.transcription import directed_edges
    from flowpath.segment import default_segmenter
    from flowpath.transcribe import make_transcriber

    style = json.loads(chart.image_path.with_suffix(".json").read_text())["style"]
    assert style["look"] == "handDrawn" and style["fills"] != ["#ffffff"]  # hatched fills
    gold = parse_mermaid(chart.mermaid)
    assert ("F", "G") in directed_edges(gold) and gold.nodes["F"].shape == "lean_right"
    image = load_image(chart.image_path)
    regions = default_segmenter()([image])[0]
    labelled, letters = draw_labels(image, regions)
    tr = make_transcriber("ocr")([LabelledChart(image, labelled, letters, str(chart.image_path))])[0]
    mapping = match_nodes(dict(letters), {k: v for k, v in chart.regions.items() if k in gold.nodes})
    assert set(mapping.values()) == set(gold.nodes)  # every node found: the edges are the matter
    assert set(directed_edges(tr.chart, mapping)) == set(directed_edges(gold)), tr.problems
