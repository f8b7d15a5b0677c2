"""Graphviz boxes that hug their text at ~10 px (issue 14): a two-line label whose first line
sits 2-3 px under the border and whose second line is short and close under it. The node
interior's shrink must not cut the first line's top rows, and the tesseract mosaic must not
merge the two lines. Real ``dot`` (drawn at 96 dpi and scaled down as a page shows it), real
tesseract, the node boxes from dot itself."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests.transcribe.markers import require_tesserocr

require_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="needs Debian graphviz (dot)")

PAD = 0.1  # inches
DPI = 96
#: the page scale: DejaVu Sans 14 pt lines come out ~10 px high
SCALE = 0.686
LABELS = {"A": "Paint the baking soda in a\ncool place", "B": "Place the hinges"}
CHART = """digraph G {
  graph [rankdir=LR, pad=%s, bgcolor=white, dpi=%s];
  node [fontname="DejaVu Sans", fontsize=14, shape=box, fixedsize=true, width=3.6, height=0.44];
  A [label="%s"]; B [label="%s"]; A -> B;
}
"""


def render_dot(tmp_path: Path, source: str, scale: float = SCALE,
               ) -> tuple[np.ndarray, dict[str, tuple[float, float, float, float]]]:
    """A ``dot`` chart (``source`` sets ``pad`` = `PAD` and ``dpi`` = `DPI`) rendered to PNG and
    scaled by ``scale`` (RGB), and its nodes' boxes in its pixels."""
    from PIL import Image

    src = tmp_path / "chart.dot"
    src.write_text(source, encoding="utf-8")
    subprocess.run(["dot", "-Tpng", str(src), "-o", str(tmp_path / "chart.png")], check=True, timeout=60)
    plain = subprocess.run(["dot", "-Tplain", str(src)], check=True, capture_output=True, text=True,
                           timeout=60).stdout.splitlines()
    height = float(plain[0].split()[3])  # "graph scale width height", inches
    boxes = {}
    for line in plain:
        f = line.split()
        if f[0] == "node":  # centre and size in inches, y up
            x, y, w, h = map(float, f[2:6])
            boxes[f[1]] = tuple(v * DPI * scale for v in (x - w / 2 + PAD, height - y - h / 2 + PAD,
                                                         x + w / 2 + PAD, height - y + h / 2 + PAD))
    im = Image.open(tmp_path / "chart.png").convert("RGB")
    if scale != 1:
        im = im.resize((round(im.width * scale), round(im.height * scale)), Image.LANCZOS)
    return np.asarray(im), boxes


@require_dot
@require_tesserocr
def test_a_tight_two_line_graphviz_box_reads_both_whole_lines(tmp_path):
    from flowpath.geometry import Region
    from flowpath.labeller import draw_labels
    from flowpath.models.base import LabelledChart
    from flowpath.transcribe.ocr import OCRTranscriber

    image, boxes = render_dot(tmp_path, CHART % (PAD, DPI, *(t.replace("\n", "\\n") for t in LABELS.values())))
    assert set(boxes) == set(LABELS)
    labelled, regions = draw_labels(image, [Region(bbox=b) for b in boxes.values()], names=list(boxes))
    chart = OCRTranscriber(engine="tesseract")([LabelledChart(image, labelled, regions)])[0].chart
    for name, gold in LABELS.items():
        assert chart.nodes[name].text.split() == gold.split(), (name, chart.nodes[name].text)


def _two_lines(gap: int) -> np.ndarray:
    """A 30-px-line crop (0 ink, 255 paper): a long line and a short centred one ``gap`` rows
    under it."""
    image = np.full((2 * 30 + gap + 8, 300), 255, np.uint8)
    image[4:34, 10:290] = 0
    image[34 + gap:64 + gap, 120:180] = 0
    return image


def test_the_mosaic_moves_only_close_lines_apart():
    from flowpath.transcribe.ocr.engines import _MIN_LINE_GAP, _spread_lines, split_lines

    wide = _two_lines(12)
    assert _spread_lines(wide) is wide
    close = _two_lines(3)
    spread = _spread_lines(close)
    (_, b0), (a1, _) = split_lines(spread, min_gap=1)
    assert a1 - b0 >= _MIN_LINE_GAP * 30
    # the lines themselves are untouched, only paper rows are added between them
    assert (spread < 128).sum() == (close < 128).sum()
    single = _two_lines(3)[:34]
    assert _spread_lines(single) is single
