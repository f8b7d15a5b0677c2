"""A chain sketched with a thick pen and no arrowheads (issue 21 item 5): Mermaid's rough.js look
through real Chromium, read by the real OCR transcriber. Where a 2.5-3 px pen's outline
overshoots its box, the end of a connector leaving a node holds twice the ink on twice the
pixels of the end entering the next one, which read as a head turned the chain upwards; an
unlabelled connector is no loop back, so against the flow (Start above End) that ink does
not decide."""

from __future__ import annotations

import json

import pytest

from flowpath.models.base import LabelledChart
from tests.markers import require_chromium, require_tesseract
from tests.transcribe.test_sketch_back_edges import draw_sketches

pytestmark = [require_chromium, require_tesseract, pytest.mark.chromium, pytest.mark.slow]

CHAIN = """flowchart TD
    A([Start]) --> B[Check the bowl for dust]
    B --> C[Gather the mixture as the package says]
    C --> D[/Output/]
    D --> E[Apply the hinges]
    E --> F[/Collect the soil/]
    F --> G[Cool the leaves as the package says]
    G --> H([End])
"""

#: two drawings of the chain, both without heads and with a pen of 2.5 px or more
HEADS = {"thick1": "missing", "thick2": "missing"}
MIN_PEN = 2.5


@pytest.fixture(scope="module")
def sketches(tmp_path_factory):  # type: ignore[no-untyped-def]
    return draw_sketches(tmp_path_factory.mktemp("sketch_thick"), CHAIN, HEADS, MIN_PEN)


@pytest.mark.parametrize("cid", list(HEADS))
def test_a_headless_chain_drawn_with_a_thick_pen_runs_from_start_to_end(sketches, cid):
    from flowpath.io import load_image
    from flowpath.mermaid import parse_mermaid
    from flowpath.transcribe import make_transcriber

    chart = sketches[cid]
    style = json.loads(chart.image_path.with_suffix(".json").read_text())["style"]
    assert style["hand"]["head"] == "missing" and style["stroke_width"] >= MIN_PEN
    image = load_image(chart.image_path)
    tr = make_transcriber("ocr")([LabelledChart(image, image, dict(chart.regions))])[0]
    gold = {(e.source, e.target) for e in parse_mermaid(chart.mermaid).edges}
    assert {(e.source, e.target) for e in tr.chart.edges} == gold, tr.problems
