"""A check that loops back to the step right above it, in Mermaid's default look (real Chromium,
real OCR): Mermaid draws the step down and the labelled loop back up as two curved connectors
side by side, and the page between them, with the label "Yes" on one of them, is a closed flat
region holding text. It is no node, and both connectors join the two nodes."""

from __future__ import annotations

import json

import pytest

from tests.markers import generate_in_child_process, require_chromium, require_tesseract

pytestmark = [require_chromium, require_tesseract, pytest.mark.chromium, pytest.mark.slow]

#: each check loops back to the step just above it, the loop's label on the loop
LOOP_BACK = """flowchart TD
    A(["Start"]) --> B["Stir the wooden board"]
    B --> C{"Is the glue dry?"}
    C -->|"Yes"| B
    C -->|"No"| D["Cut the baking tray"]
    D --> E{"Are all screws tight?"}
    E -->|"Yes"| D
    E -->|"No"| F(["End"])
"""


@pytest.fixture(scope="module")
def chart(tmp_path_factory):  # type: ignore[no-untyped-def]
    from flowpath.datasets.febench import Benchmark

    tmp = tmp_path_factory.mktemp("loop_lens")
    src = tmp / "loops.jsonl"
    src.write_text(json.dumps({"id": "loop", "mermaid": LOOP_BACK}) + "\n")
    out = tmp / "bench"
    generate_in_child_process([str(out), "--input", str(src), "--styles", "default", "--renderers", "mermaid",
                               "--split", "train", "--workers", "0", "--seed", "7"])
    return Benchmark(out).chart("loop")


def test_loop_back_lens_is_no_node_and_both_connectors_are_read(chart):
    from flowpath.geometry import box_iou
    from flowpath.mermaid import parse_mermaid
    from flowpath.pipeline import FlowPath

    parsed = FlowPath.default().parse(chart.image_path)
    to_gold = {}
    for letter, region in parsed.regions.items():
        best = max(chart.regions, key=lambda g: box_iou(region.bbox, chart.regions[g].bbox))
        assert box_iou(region.bbox, chart.regions[best].bbox) >= 0.7, (
            f"region {letter} {region.bbox} ({parsed.graph.nodes[letter].text!r}) is no node")
        to_gold[letter] = best
    assert sorted(to_gold.values()) == sorted(chart.regions)
    edges = {(to_gold[e.source], to_gold[e.target]) for e in parsed.graph.edges}
    gold = {(e.source, e.target) for e in parse_mermaid(chart.mermaid).edges}
    assert {("B", "C"), ("C", "B"), ("D", "E"), ("E", "D")} <= gold
    assert gold <= edges, sorted(gold - edges)
