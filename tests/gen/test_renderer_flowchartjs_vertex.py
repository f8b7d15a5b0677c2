"""A wild flowchart.js chart whose Start is not read comes back top-down (real Chromium, real
tesseract): a decision's vertex ink is no arrowhead in a chart whose heads are seen at no other
node (`connectors.drop_unconfirmed_vertex_heads`).

The chart is the ninth stretch's tuning chart fjsedge9_fjs/gen000028 (docs/transcription.md,
"Where wild flowchart.js loses its edges", cause 1): a 3x2-px head on every connector, invisible
to the thickness test, and one thick end, the decision's bottom vertex, read as a head upwards;
that one ballot turned all ten edges of the chain above the decision around.

(The file name sorts after test_pipeline.py on purpose, as test_renderer_flowchartjs.py does.)"""

from __future__ import annotations

import pytest

from tests.gen.test_renderer_flowchartjs import require_flowchartjs
from tests.gen.test_renderer_flowchartjs_edges import _render, _transcribe_on_gold_regions
from tests.markers import require_chromium, require_tesseract

CHAIN = """flowchart TD
    A(["Start"])
    B["Reset retries to None, then append config to node"]
    C(["Initialize cache to 0"])
    D[/"Print queue"/]
    E["Release"]
    F[/"Write result<br>to disk"/]
    G["Set path = index + 1"]
    H[/"Receive result as input"/]
    I[["Call load_config()"]]
    J{"Has more data?"}
    K["Call load_config()"]
    L(["Set"])
    M(["End"])
    A --> B
    B --> C
    C --> D
    D --> E
    E --> F
    F ==> G
    G --> H
    H --> I
    I --> J
    J -->|"Timeout"| K
    J -->|"Error"| L
    K --> M
    L --> M
"""


@require_chromium
@require_flowchartjs
@require_tesseract
@pytest.mark.chromium
def test_a_decision_vertex_does_not_turn_a_chart_without_terminals_read_upwards(renderer, tmp_path):
    from data_gen.pipeline import _degrade
    from data_gen.raster import decode_png
    from data_gen.styles import StyleSpec
    from flowpath.mermaid import parse_mermaid

    chart = parse_mermaid(CHAIN)
    style = StyleSpec(family="wild", theme="base", curve="basis", font="Liberation Sans Narrow", font_size=16,
                      fills=["#9ef04c"], stroke="#5fbe00", text="#1a1a1a", edge="#000000", stroke_width=3.0,
                      edge_width=2.5, background="#f7f7f2", gradient=True, shadow=True, raster_width=358)
    task, ann, gold = _render(renderer, tmp_path, chart, style, "v1")
    image = decode_png(task["png"], task["width"], task["height"])
    text_px = style.font_size * sum(task["scale"]) / 2
    image, ann = _degrade(image, ann, {"kind": "wild", "seed": 196054986}, task["style"], text_px)
    tr = _transcribe_on_gold_regions(image, ann, gold)
    got = {(e.source, e.target) for e in tr.chart.edges}
    # the chain above the decision: every edge in its direction, none turned around
    chain = {(e.source, e.target) for e in gold.edges if e.source < "J"}
    assert not {(t, s) for s, t in chain} & got, (sorted(got), tr.problems)
    assert len(chain & got) >= len(chain) - 1, (sorted(got), tr.problems)
