"""Loops back in rendered sketches (issue 21 item 5): Mermaid's rough.js look through real
Chromium, read by the real OCR transcriber. A loop back runs against the chart's flow, and its
head (a small open 'v', a ring, or none at all) shows less ink than the pen pressed down where
the line leaves the decision, so the flow and the ink both point the wrong way."""

from __future__ import annotations

import json
import random

import pytest

from flowpath.models.base import LabelledChart
from tests.markers import generate_in_child_process, require_chromium, require_tesseract

pytestmark = [require_chromium, require_tesseract, pytest.mark.chromium, pytest.mark.slow]

#: two decisions, each with a labelled loop back up the page
LOOPS = """flowchart TD
    A[Collect the samples] --> B[Weigh each sample]
    B --> C{Weight in range?}
    C -->|No| B
    C -->|Yes| D[Label the jars]
    D --> E{All jars sealed?}
    E -->|No| D
    E -->|Yes| F[Ship the crate]
"""

#: chart id -> the head the hand-drawn style must draw (`data_gen.styles`: "circle" is a ring)
HEADS = {"open": "open", "ring": "circle", "none": "missing"}


def seed_drawing(mermaid: str, heads: dict[str, str], min_pen: float = 0.0) -> int:
    """A generator seed whose hand-drawn style draws each chart id's head as asked for the chart
    ``mermaid``, with every line starting at its source (lines that stop short are another
    test's matter) and outlines drawn with a pen at least ``min_pen`` px wide: the style of a
    user chart depends only on (seed, chart id), as `data_gen.pipeline` draws it."""
    from data_gen.styles import sample_style
    from flowpath.mermaid import parse_mermaid

    chart = parse_mermaid(mermaid)
    ids, kinds = list(chart.nodes), {n.id: n.kind for n in chart.nodes.values()}
    for seed in range(5000):
        styles = {cid: sample_style("handdrawn", "train", random.Random(f"{seed}:{cid}"), ids, kinds)
                  for cid in heads}
        if all(styles[cid].hand["head"] == head and styles[cid].hand["short"] == 0
               and styles[cid].stroke_width >= min_pen for cid, head in heads.items()):
            return seed
    raise AssertionError(f"no seed below 5000 draws the heads {heads}")


def draw_sketches(tmp, mermaid: str, heads: dict[str, str], min_pen: float = 0.0):  # type: ignore[no-untyped-def]
    """``mermaid`` drawn by the real generator (hand-drawn style, in a child process) once per
    chart id of ``heads``, each with the head asked for (`seed_drawing`), in folder ``tmp``:
    chart id -> the benchmark chart."""
    from flowpath.datasets.febench import Benchmark

    src = tmp / "charts.jsonl"
    src.write_text("".join(json.dumps({"id": cid, "mermaid": mermaid}) + "\n" for cid in heads))
    out = tmp / "bench"
    generate_in_child_process([str(out), "--input", str(src), "--styles", "handdrawn", "--split", "train",
                               "--workers", "0", "--seed", str(seed_drawing(mermaid, heads, min_pen)),
                               "--scale", "1.5"])
    bench = Benchmark(out)
    return {cid: bench.chart(cid) for cid in bench.chart_ids}


@pytest.fixture(scope="module")
def sketches(tmp_path_factory):  # type: ignore[no-untyped-def]
    return draw_sketches(tmp_path_factory.mktemp("sketch_loops"), LOOPS, HEADS)


@pytest.mark.parametrize("cid", list(HEADS))
def test_loops_back_from_decisions_keep_their_direction_whatever_the_head(sketches, cid):
    from flowpath.io import load_image
    from flowpath.mermaid import parse_mermaid
    from flowpath.transcribe import make_transcriber

    chart = sketches[cid]
    record = json.loads(chart.image_path.with_suffix(".json").read_text())
    assert record["style"]["hand"]["head"] == HEADS[cid]
    image = load_image(chart.image_path)
    tr = make_transcriber("ocr")([LabelledChart(image, image, dict(chart.regions))])[0]
    gold = {(e.source, e.target) for e in parse_mermaid(chart.mermaid).edges}
    assert {("C", "B"), ("E", "D")} <= gold
    assert {(e.source, e.target) for e in tr.chart.edges} == gold, tr.problems
