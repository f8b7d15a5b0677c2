"""Photos of a chart on a sheet of paper (issue 21 item 4): the sheet is found, rectified and
cleaned, nodes come back in the photo's pixels, grid cells and the sheet itself are never
nodes, and clean renders never take this path."""

from __future__ import annotations

import random

import numpy as np
import pytest

from flowpath.geometry import Region, box_iou
from flowpath.metrics import SegmentationMetric
from flowpath.segment import ClassicalSegmenter
from flowpath.segment.page import _order_corners, _page_from_corners, find_page, segment_page
from tests.markers import generate_in_child_process, require_chromium
from tests.segment.synth import STYLES, draw_chart

SHAPES = ("rect", "diamond", "round", "parallelogram")


def _photo(style: str, seed: int):
    """A synthetic chart put through the data generator's own photo/scan pass (paper, ruling,
    light, perspective, desk, blur, JPEG): the photo and its annotations in photo pixels."""
    from data_gen.photo import photo_scan

    img, boxes = draw_chart(style, shapes=SHAPES)
    nodes = {str(i): {"bbox": list(b), "polygon": [[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]]}
             for i, b in enumerate(boxes)}
    return photo_scan(img, {"nodes": nodes, "edges": [], "clusters": []}, random.Random(seed))


@pytest.mark.parametrize("style", ["black_white", "default"])
@pytest.mark.parametrize("seed", [0, 1])  # squared paper; seed 0 puts the whole sheet in as a node without the page step
def test_generated_photos_give_back_their_nodes_and_no_grid_cell(style, seed):
    photo, ann = _photo(style, seed)
    assert ann["photo"]["ruling"] == "squared"
    (regions,) = ClassicalSegmenter()([photo])
    gold = [Region(tuple(n["bbox"])) for n in ann["nodes"].values()]
    row = SegmentationMetric().update(regions, gold)
    assert row["recall@0.7"] == 1.0, f"missed nodes: {[r.bbox for r in regions]}"
    # every region is a node: no grid cell, no sheet
    assert row["precision@0.5"] == 1.0, f"extra regions: {[r.bbox for r in regions]}"


@pytest.mark.parametrize("seed", range(4))
def test_the_sheet_is_found_where_the_generator_put_it(seed):
    photo, ann = _photo("black_white", seed)
    page = find_page(photo)
    assert page is not None
    gold = _order_corners(np.array(ann["photo"]["page_corners"]))
    assert np.abs(page.corners - gold).max() < 0.01 * max(photo.shape[:2])


def test_a_region_on_the_rectified_sheet_maps_back_onto_the_node_in_the_photo():
    photo, ann = _photo("single_color", 2)
    page = find_page(photo)
    assert page is not None
    # the node's outline, taken to the rectified sheet and back, is where it was
    for node in ann["nodes"].values():
        poly = np.asarray(node["polygon"], float)
        assert np.allclose(page.to_original(page.to_page(poly)), poly, atol=1e-6)
    # and what is segmented on the rectified sheet lands on the nodes of the photo
    found = segment_page(ClassicalSegmenter(), photo)
    assert found is not None
    regions, _ = found
    for nid, node in ann["nodes"].items():
        best = max((box_iou(r.bbox, tuple(node["bbox"])) for r in regions), default=0.0)
        assert best >= 0.8, f"node {nid}: best box IoU {best:.2f}"
        assert all(0 <= v <= s for r in regions for v, s in zip(r.bbox, photo.shape[1::-1] * 2, strict=True))


def test_page_maps_are_inverse_and_keep_the_rectified_size():
    corners = np.array([[40.0, 30.0], [610.0, 52.0], [590.0, 830.0], [25.0, 805.0]])
    page = _page_from_corners(corners)
    w, h = page.size
    rect = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
    assert np.allclose(page.to_original(rect), corners, atol=1e-6)
    assert np.allclose(page.to_page(corners), rect, atol=1e-6)
    assert w == round(np.linalg.norm(corners[1] - corners[0]))


@pytest.mark.parametrize("style", sorted(STYLES))
def test_clean_renders_and_plain_drawings_have_no_sheet(style):
    img, _ = draw_chart(style)
    assert find_page(img) is None
    # a drawing on paper that fills the frame (a scan) has no desk around a sheet either
    paper = (img.astype(np.int32) * 235 // 255).astype(np.uint8)
    assert find_page(paper) is None
    (with_page,) = ClassicalSegmenter()([img])
    (without,) = ClassicalSegmenter(page=False)([img])
    assert [r.bbox for r in with_page] == [r.bbox for r in without]


@pytest.fixture(scope="module")
def rendered_photos(tmp_path_factory):
    """Two small generated photo charts (Mermaid renders, hand-drawn and black-and-white,
    through the generator's photo pass), benchmark layout."""
    out = tmp_path_factory.mktemp("photos") / "bench"
    generate_in_child_process([str(out), "--count", "2", "--styles", "handdrawn,black_white", "--photo", "1.0",
                               "--split", "train", "--seed", "7801", "--min-nodes", "4", "--max-nodes", "6",
                               "--scale", "1.0", "--max-width", "700", "--workers", "0"])
    return out


@require_chromium
def test_rendered_photos_give_back_their_nodes_and_no_grid_cell(rendered_photos):
    from flowpath.datasets.febench import Benchmark
    from flowpath.io import load_image

    charts = list(Benchmark(rendered_photos).charts())
    assert len(charts) == 2
    seg = ClassicalSegmenter()
    for chart in charts:
        photo = load_image(chart.image_path)
        assert find_page(photo) is not None, chart.id
        (regions,) = seg([photo])
        row = SegmentationMetric().update(regions, list(chart.regions.values()))
        assert row["recall@0.5"] >= 0.75, f"{chart.id}: {row}"
        assert row["precision@0.5"] == 1.0, f"{chart.id}: extra regions {[r.bbox for r in regions]}"


def _box_on_page(box_rgb, page_rgb) -> np.ndarray:
    """A filled box (with a few dark lines in it) covering most of a plain page, slightly noisy."""
    import cv2

    img = np.full((600, 800, 3), page_rgb, np.uint8)
    cv2.rectangle(img, (120, 90), (680, 520), box_rgb, -1)
    for y in range(160, 480, 80):
        cv2.line(img, (200, y), (600, y + 20), (40, 40, 40), 2)
    noise = np.random.default_rng(0).integers(-3, 4, img.shape)
    return np.clip(img.astype(np.int32) + noise, 0, 255).astype(np.uint8)


def test_a_coloured_or_darker_box_on_a_chart_page_is_no_sheet():
    # a subgraph box filled pink on a light grey page is four-sided with a step all round,
    # but paper is near-neutral and lighter than the desk around it
    assert find_page(_box_on_page((225, 150, 185), (238, 238, 232))) is None
    assert find_page(_box_on_page((200, 200, 200), (238, 238, 232))) is None
    assert find_page(_box_on_page((240, 238, 232), (120, 95, 70))) is not None
