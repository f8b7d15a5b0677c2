"""Small-print spelling on a real render (issue 14, eleventh stretch): a word of code (``config``)
that the English frequency list lacks was read right and then "mended" to ``confirm``. Real
``dot`` (drawn at 96 dpi and scaled down as a page shows it: ~10-px text, the small-print path),
real tesseract, the node boxes from dot."""

from __future__ import annotations

from tests.transcribe.markers import require_tesserocr
from tests.transcribe.test_ocr_small_print import require_symspellpy
from tests.transcribe.test_tight_graphviz_boxes import render_dot, require_dot

CHART = """digraph G {
  graph [rankdir=TB, pad=0.1, bgcolor=white, dpi=96];
  node [fontname="DejaVu Sans", fontsize=14, shape=box];
  A [label="Load the config"]; B [label="Write the config"]; C [label="Print the result"];
  A -> B -> C;
}
"""


@require_dot
@require_tesserocr
@require_symspellpy
def test_a_code_word_read_right_in_small_print_stays(tmp_path):
    from flowpath.geometry import Region
    from flowpath.labeller import draw_labels
    from flowpath.models.base import LabelledChart
    from flowpath.transcribe.ocr import OCRTranscriber
    from flowpath.transcribe.ocr.crops import SMALL_LINE

    image, boxes = render_dot(tmp_path, CHART, scale=0.686)
    labelled, regions = draw_labels(image, [Region(bbox=b) for b in boxes.values()], names=list(boxes))
    result = OCRTranscriber(engine="tesseract", learned=False)([LabelledChart(image, labelled, regions)])[0]
    assert result.meta["line_height"] < SMALL_LINE  # small print: its words go through spelling
    texts = {k: result.chart.nodes[k].text for k in boxes}
    assert texts["A"] == "Load the config" and texts["B"] == "Write the config", texts
