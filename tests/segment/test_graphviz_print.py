"""Graphviz's default look at web size (issue 14): a wide left-to-right chart drawn small, as a
page squeezes it, with plain 1-px outlines, small text and spline connectors. Its flow has
cycles (three branches that meet again, a triangle of a decision, a box and the end), so its
connectors close off pockets of page between the nodes, and a three-line box's lines touch (no
empty row between them at this size). Real ``dot``, real tesseract: every node and every
directed edge must come back."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests.markers import require_tesseract

require_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="needs Debian graphviz (dot)")

#: dots per inch of the PNG: the tuning charts' node text is 6-8 px high
DPI = 60
#: the graph's pad, inches (dot's plain output is measured from inside it)
PAD = 0.1
CHART = f"""digraph G {{
  graph [rankdir=LR, splines=spline, nodesep=0.3, ranksep=0.4, pad={PAD}, bgcolor=white, dpi={DPI}];
  node [fontname="Liberation Sans", fontsize=8, style=filled, fillcolor="#ececff", color="#333333",
        shape=box, margin="0.15,0.04"];
  edge [fontname="Liberation Sans", fontsize=7, color="#333333", arrowsize=0.8];
  A [label="Begin", style="rounded,filled"];
  B [label="Check if token is valid", shape=hexagon];
  C [label="Retrieve kwargs attribute"];
  D [label="Increment", shape=doublecircle];
  E [label="Merge count into retries", shape=invtrapezium];
  F [label="Retries left?", shape=diamond];
  G [label="Update your records, then\\nprepare the fabric before\\ncontinuing"];
  H [label="Done", style="rounded,filled"];
  A -> B; B -> C [label="Option A"]; B -> D [label="Option B"]; B -> E [label="Option C"];
  C -> F; D -> F; E -> F; F -> G [label="Yes"]; F -> H [label="No"]; G -> H;
}}
"""


def _render(tmp_path: Path) -> tuple[np.ndarray, dict[str, tuple[float, float, float, float]], set[tuple[str, str]]]:
    """The chart's PNG (RGB), its nodes' boxes in pixels and its edges, all from dot itself."""
    from flowpath.io import load_image

    src = tmp_path / "chart.dot"
    src.write_text(CHART)
    subprocess.run(["dot", "-Tpng", str(src), "-o", str(tmp_path / "chart.png")], check=True, timeout=60)
    plain = subprocess.run(["dot", "-Tplain", str(src)], check=True, capture_output=True, text=True,
                           timeout=60).stdout.splitlines()
    height = float(plain[0].split()[3])  # "graph scale width height", inches
    boxes, edges = {}, set()
    for line in plain:
        f = line.split()
        if f[0] == "node":  # centre and size in inches, y up
            x, y, w, h = map(float, f[2:6])
            boxes[f[1]] = ((x - w / 2 + PAD) * DPI, (height - y - h / 2 + PAD) * DPI,
                           (x + w / 2 + PAD) * DPI, (height - y + h / 2 + PAD) * DPI)
        elif f[0] == "edge":
            edges.add((f[1], f[2]))
    return load_image(tmp_path / "chart.png"), boxes, edges


@require_dot
@require_tesseract
def test_a_small_graphviz_chart_comes_back_with_every_node_and_directed_edge(tmp_path):
    from flowpath.geometry import box_iou_matrix
    from flowpath.labeller import draw_labels
    from flowpath.models.base import LabelledChart
    from flowpath.segment import ClassicalSegmenter
    from flowpath.transcribe import make_transcriber

    image, boxes, edges = _render(tmp_path)
    assert image.shape[0] < 200 and len(boxes) == 8 and len(edges) == 10
    regions, reason = ClassicalSegmenter().segment(image)
    assert regions, reason
    iou = box_iou_matrix(np.array(list(boxes.values())), np.array([r.bbox for r in regions]))
    found = {name: int(row.argmax()) for name, row in zip(boxes, iou, strict=True) if row.max() >= 0.7}
    assert set(found) == set(boxes), {n: round(float(r.max()), 2) for n, r in zip(boxes, iou, strict=True)}
    assert len(regions) == len(boxes)  # no pocket of page between the connectors came back

    names = [f"R{i}" for i in range(len(regions))]
    node_of = {names[i]: name for name, i in found.items()}
    labelled, letter_regions = draw_labels(image, regions, names=names)
    tr = make_transcriber("ocr", engine="tesseract")([LabelledChart(image, labelled, letter_regions)])[0]
    got = {(node_of.get(e.source, e.source), node_of.get(e.target, e.target)) for e in tr.chart.edges}
    assert got == edges, (got ^ edges, tr.problems)
