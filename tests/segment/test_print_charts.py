"""Printed web-style charts (issue 14 item 3): the classic flowchart.js look. Its yes/no branches
loop round the page and close pockets of it holding only edge labels; its charts are cropped
tight, so a thick-bordered end node touches the image's edge."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from flowpath.geometry import Region
from flowpath.metrics import SegmentationMetric
from flowpath.segment import ClassicalSegmenter
from flowpath.segment.classical import EDGE_CHORD
from flowpath.segment.colour import colour_regions
from flowpath.segment.postprocess import touches_like_node
from tests.markers import generate_in_child_process, require_chromium

REPO_ROOT = Path(__file__).resolve().parents[2]
require_flowchartjs = pytest.mark.skipif(
    not (REPO_ROOT / "node_modules" / "flowchart.js" / "index.js").is_file(),
    reason="needs the npm flowchart.js + raphael install (scripts/setup.sh)")

def _jpeg(img: np.ndarray, quality: int = 75) -> np.ndarray:
    ok, buf = cv2.imencode(".jpg", img[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)[:, :, ::-1].copy()


@require_chromium
@require_flowchartjs
@pytest.mark.chromium
@pytest.mark.slow
def test_flowchartjs_tuning_charts_come_back_with_every_node_and_no_pocket(tmp_path):
    """The first four charts of the printseg6_fcjs tuning command (seed 6101; wild, default,
    wild, default), rendered afresh. Before this stretch's rules two wild end nodes whose thick
    border meets the tight crop's bottom edge were missed (charts 0 and 2), and a pocket of page
    closed by the "Y"/"N" branches of chart 3 came back as a node."""
    from flowpath.datasets.febench import Benchmark
    from flowpath.io import load_image

    generate_in_child_process([str(tmp_path / "bench"), "--styles", "wild,default", "--renderers", "flowchartjs",
                               "--split", "train", "--count", "4", "--seed", "6101", "--min-nodes", "5",
                               "--max-nodes", "16", "--workers", "0"])
    charts = list(Benchmark(tmp_path / "bench").charts())
    assert len(charts) == 4
    for chart in charts:
        gold = list(chart.regions.values())
        (found,) = ClassicalSegmenter()([load_image(chart.image_path)])
        row = SegmentationMetric().update(found, gold)
        assert (row["recall@0.7"], row["precision@0.7"]) == (1.0, 1.0), (
            f"{chart.id}: found {[r.bbox for r in found]}, gold {[r.bbox for r in gold]}")


def _end_node_chart() -> tuple[np.ndarray, list[tuple[int, int, int, int]]]:
    """A wild flowchart.js end: a box, then a yellow ellipse with a thick darker border cropped
    so tight that the border runs into the bottom edge (10 of 24 wild flowchart.js tuning
    charts ended so), on paper through JPEG. Returns the image and the two gold boxes."""
    img = np.full((200, 300, 3), (236, 232, 222), np.uint8)
    box = (60, 20, 240, 70)
    cv2.rectangle(img, box[:2], box[2:], (60, 110, 200), -1)
    cv2.rectangle(img, box[:2], box[2:], (20, 50, 120), 3)
    cv2.putText(img, "Pack it", (110, 52), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1, cv2.LINE_AA)
    cv2.line(img, (150, 70), (150, 150), (60, 60, 60), 2)
    centre, axes = (150, 175), (40, 24)  # the ellipse's outer edge at row 199: the last row
    cv2.ellipse(img, centre, axes, 0, 0, 360, (150, 140, 20), -1, cv2.LINE_AA)
    cv2.ellipse(img, centre, (axes[0] - 3, axes[1] - 3), 0, 0, 360, (245, 230, 40), -1, cv2.LINE_AA)
    cv2.putText(img, "Stop", (128, 182), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (30, 30, 30), 1, cv2.LINE_AA)
    end = (centre[0] - axes[0] + 1, centre[1] - axes[1] + 1, centre[0] + axes[0] - 1, 199)
    return _jpeg(img), [box, end]


def test_the_colour_layer_keeps_a_node_whose_border_meets_the_image_edge():
    """With ``edge_run`` the end node comes back from the colour layer (the print path passes
    `EDGE_CHORD`); without it (photos) only the box above does."""
    img, (box, end) = _end_node_chart()

    def found(edge_run: float) -> list[Region]:
        return colour_regions(img, 1.0, 1.0, img.shape[:2], edge_run=edge_run, with_masks=False)

    assert SegmentationMetric().update(found(EDGE_CHORD), [Region(box), Region(end)])["recall@0.7"] == 1.0
    assert SegmentationMetric().update(found(0.0), [Region(end)])["recall@0.7"] == 0.0


def test_an_ellipse_meets_the_edge_along_a_chord_a_cut_shape_along_its_side():
    ellipse = np.zeros((40, 60), np.uint8)
    cv2.ellipse(ellipse, (30, 20), (29, 19), 0, 0, 360, 1, -1)
    assert ellipse[-1].sum() > 0
    assert touches_like_node(ellipse, (100, 60), (100, 300), EDGE_CHORD)  # bottom row on the edge
    box = np.ones((30, 60), np.uint8)  # a rectangle cut by the image's bottom edge
    assert not touches_like_node(box, (100, 70), (100, 300), EDGE_CHORD)
    assert not touches_like_node(ellipse, (0, 60), (100, 300), EDGE_CHORD)  # and the left: two sides
