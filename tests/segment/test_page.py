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


def _web_chart_with_a_pale_panel() -> np.ndarray:
    """A web chart as a JPEG: nodes on a grey page, the upper half of them on a pale panel with
    a thin outline (a subgraph box): four-sided, lighter, near-neutral, a step all round."""
    import io

    import cv2
    from PIL import Image

    img, _ = draw_chart("single_color", columns=2)
    img = img.copy()
    h, w = img.shape[:2]
    page = (img == 255).all(-1)
    panel = np.zeros_like(page)
    panel[int(0.08 * h):int(0.55 * h), int(0.05 * w):int(0.95 * w)] = True
    img[page] = 221
    img[page & panel] = 247
    cv2.rectangle(img, (int(0.05 * w), int(0.08 * h)), (int(0.95 * w), int(0.55 * h)), (200, 200, 200), 1)
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="JPEG", quality=75)
    return np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGB"))


def test_a_web_chart_whose_page_shows_between_its_nodes_is_no_photo_of_a_sheet():
    # the chart's own page colour fills much of the image's middle: no desk lies round a sheet
    # there, so the search stops before it can take the panel for one
    assert find_page(_web_chart_with_a_pale_panel()) is None
    for seed in range(2):
        photo, _ = _photo("black_white", seed)
        assert find_page(photo) is not None


def test_a_subgraph_frame_taken_for_a_node_gives_way_to_the_nodes_inside_it():
    import cv2

    from flowpath.segment.page import _open_frames

    chart, boxes = draw_chart("black_white", shapes=("rect", "round", "rect"), edge_label=False)
    h, w = chart.shape[:2]
    m = 60
    sheet = np.full((h + 2 * m, w + 2 * m, 3), 255, np.uint8)
    sheet[m:m + h, m:m + w] = chart
    cv2.rectangle(sheet, (m // 2, m // 2), (w + m + m // 2, h + m + m // 2), (0, 0, 0), 2)
    x0, y0, x1, y1 = m // 2, m // 2, w + m + m // 2, h + m + m // 2
    frame = Region((x0, y0, x1, y1), polygon=[(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
    seg = ClassicalSegmenter()
    found = _open_frames(seg, sheet, [frame], passes=True)
    gold = [Region((bx0 + m, by0 + m, bx1 + m, by1 + m)) for bx0, by0, bx1, by1 in boxes]
    row = SegmentationMetric().update(found, gold)
    assert row["recall@0.7"] == 1.0 and row["precision@0.7"] == 1.0, [r.bbox for r in found]

    # a large node holding only text is a node: it stays
    big = np.full((500, 700, 3), 255, np.uint8)
    cv2.rectangle(big, (40, 40), (660, 460), (0, 0, 0), 2)
    for i, line in enumerate(("Check every answer", "before you send it", "to the customer")):
        cv2.putText(big, line, (120, 180 + 60 * i), cv2.FONT_HERSHEY_SIMPLEX, 1.1, (0, 0, 0), 2)
    node = Region((40, 40, 660, 460), polygon=[(40, 40), (660, 40), (660, 460), (40, 460)])
    assert [r.bbox for r in _open_frames(seg, big, [node], passes=True)] == [node.bbox]


def _grid_sheet(h: int, w: int, step: int = 20, paper: int = 240, line: float = 0.12) -> np.ndarray:
    """A rectified squared-paper sheet: faint 1-px grid lines every ``step`` px, edge to edge."""
    img = np.full((h, w), float(paper), np.float32)
    img[step // 2::step, :] *= 1 - line
    img[:, step // 2::step] *= 1 - line
    return img


def _as_rgb(grey: np.ndarray, blur: float = 0.8) -> np.ndarray:
    import cv2

    grey = cv2.GaussianBlur(grey.astype(np.float32), (0, 0), blur)
    return np.repeat(np.clip(grey, 0, 255).astype(np.uint8)[..., None], 3, axis=2)


def test_a_faint_outline_crossing_the_grid_keeps_no_gap_where_the_lines_cross():
    from flowpath.segment.page import clean_page

    sheet = _grid_sheet(300, 600)
    # a thin grey node outline (a 1-px black line after downscaling and blur: about twice as
    # dark as the grid) between grid rows and columns
    x0, y0, x1, y1 = 203, 103, 383, 197
    for y in (y0, y1):
        sheet[y, x0:x1 + 1] = 240 * 0.55
    for x in (x0, x1):
        sheet[y0:y1 + 1, x] = 240 * 0.55
    sheet[145:152, 250:330] = 60  # a word
    out = clean_page(_as_rgb(sheet))[..., 0]
    # the outline is ink all the way round, also where vertical grid lines cross its top and
    # bottom (and horizontal ones its sides): a gap there lets the node's inside leak out
    top, bottom = out[y0, x0 + 3:x1 - 2], out[y1, x0 + 3:x1 - 2]
    left, right = out[y0 + 3:y1 - 2, x0], out[y0 + 3:y1 - 2, x1]
    for name, side in (("top", top), ("bottom", bottom), ("left", left), ("right", right)):
        assert side.max() < 250, f"{name} side has gaps at {np.flatnonzero(side >= 250)[:5]}"
    # and the grid itself is gone away from the drawing
    assert (out[20:80, 20:580] > 240).mean() > 0.99


def test_node_sides_across_a_narrow_plain_sheet_are_not_taken_for_ruling():
    from flowpath.segment.page import clean_page

    # a narrow top-down chart on plain paper: each box spans over half of the sheet's width,
    # like a ruling line, but stops inside the margins
    sheet = np.full((850, 360), 240.0, np.float32)
    for top in range(60, 800, 130):
        sheet[top, 55:305] = 150
        sheet[top + 60, 55:305] = 150
        sheet[top:top + 61, 55] = 150
        sheet[top:top + 61, 305] = 150
        sheet[top + 25:top + 35, 120:240] = 30
    out = clean_page(_as_rgb(sheet))[..., 0]
    for top in range(60, 800, 130):
        assert out[top, 70:290].max() < 250, f"top side of the box at y={top} was erased"
        assert out[top + 60, 70:290].max() < 250, f"bottom side of the box at y={top} was erased"


def test_only_sheets_with_small_text_are_enlarged():
    import cv2

    from flowpath.segment.page import MAX_ZOOM, sheet_zoom, text_height

    def sheet_with_text(font_scale: float) -> np.ndarray:
        img = np.full((400, 900, 3), 255, np.uint8)
        for i in range(8):
            cv2.putText(img, "Measure the oven and", (30, 40 + 45 * i), cv2.FONT_HERSHEY_SIMPLEX,
                        font_scale, (0, 0, 0), 1)
        return img

    small, large = sheet_with_text(0.3), sheet_with_text(0.6)
    assert text_height(small) < text_height(large)
    assert 1.0 < sheet_zoom(small, 6_000_000) <= MAX_ZOOM
    assert sheet_zoom(large, 6_000_000) == 1.0
    # never past the segmenter's pixel budget
    assert sheet_zoom(small, 400 * 900) == 1.0


def test_photo_stages_switch_off_one_degradation_and_keep_the_geometry():
    from data_gen.photo import PHOTO_STAGES, photo_scan

    img, boxes = draw_chart("black_white", shapes=SHAPES)
    ann = {"nodes": {str(i): {"bbox": list(b), "polygon": [[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]]}
                     for i, b in enumerate(boxes)}, "edges": [], "clusters": []}
    full, full_ann = photo_scan(img, ann, random.Random(0))
    again, _ = photo_scan(img, ann, random.Random(0), stages=PHOTO_STAGES)
    assert np.array_equal(full, again)
    plain, plain_ann = photo_scan(img, ann, random.Random(0), stages=frozenset())
    assert plain_ann == full_ann  # same sheet, same place, same nodes
    assert plain.shape == full.shape and not np.array_equal(plain, full)
    # without ruling, light and camera the paper inside the sheet is one flat tone
    page = find_page(full)
    assert page is not None
    from flowpath.segment.page import rectify

    inner = rectify(plain, page)[10:40, 10:-10].astype(float)
    assert inner.std() < 2.0
    assert rectify(full, page)[10:40, 10:-10].astype(float).std() > inner.std()


def _hard_photo(style: str, seed: int):
    """A synthetic chart through the generator's hard photo pass: a mottled grey desk near the
    paper's lightness, a strong shadow across the sheet, the sheet filling the frame."""
    from data_gen.photo import photo_scan

    img, boxes = draw_chart(style, shapes=SHAPES)
    nodes = {str(i): {"bbox": list(b), "polygon": [[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]]}
             for i, b in enumerate(boxes)}
    return photo_scan(img, {"nodes": nodes, "edges": [], "clusters": []}, random.Random(seed), hard=True)


@pytest.fixture(scope="module")
def hard_photo(tmp_path_factory):
    """One generated chart (a Mermaid render) through the generator's hard photo pass: squared
    paper filling the frame, a mottled grey desk, a strong shadow; benchmark layout."""
    out = tmp_path_factory.mktemp("hard") / "bench"
    generate_in_child_process([str(out), "--count", "1", "--styles", "black_white", "--photo", "1.0",
                               "--photo-hard", "--split", "train", "--seed", "9200", "--min-nodes", "4",
                               "--max-nodes", "6", "--scale", "1.0", "--max-width", "700", "--workers", "0"])
    return out


@require_chromium
def test_grid_cells_of_a_photo_without_a_sheet_are_dropped_and_its_nodes_kept(hard_photo):
    from flowpath.datasets.febench import Benchmark
    from flowpath.io import load_image
    from flowpath.metrics.matching import match_regions
    from flowpath.segment.classical import _drop_grid_cells
    from flowpath.segment.page import ruling_period

    (chart,) = Benchmark(hard_photo).charts()
    photo = load_image(chart.image_path)
    assert find_page(photo) is None  # the case the sheet step cannot help with
    rows, cols = ruling_period(photo)
    assert rows is not None and cols is not None and abs(rows - cols) <= 0.15 * rows  # squares
    (regions,) = ClassicalSegmenter()([photo])
    gold = list(chart.regions.values())
    nodes = [regions[p] for p, _, _ in match_regions(regions, gold, 0.5)]
    assert nodes, "no drawn node found"
    # no region is one grid cell in size
    assert not [r.bbox for r in regions if r.bbox[2] - r.bbox[0] < 1.2 * cols and r.bbox[3] - r.bbox[1] < 1.2 * rows]
    # a region one cell in size (a cell's inside: the period less the line) goes, nodes stay
    x0, y0 = 0.05 * photo.shape[1], 0.9 * photo.shape[0]
    cell = Region((x0, y0, x0 + 0.85 * cols, y0 + 0.85 * rows))
    kept = _drop_grid_cells([*regions, cell], photo, 1.0, 1.0)
    assert cell not in kept and all(n in kept for n in nodes)


@pytest.mark.parametrize("style", ["black_white", "default"])
def test_squared_paper_filling_the_frame_under_a_shadow_gives_nodes_and_no_grid_cell(style):
    photo, ann = _hard_photo(style, 0)
    assert ann["photo"]["ruling"] == "squared" and ann["photo"]["hard"]
    assert find_page(photo) is None  # the case the sheet step cannot help with
    (regions,) = ClassicalSegmenter()([photo])
    gold = [Region(tuple(n["bbox"])) for n in ann["nodes"].values()]
    row = SegmentationMetric().update(regions, gold)
    assert row["recall@0.5"] == 1.0 and row["precision@0.5"] == 1.0, [r.bbox for r in regions]


def _tilted_ruled_frame(h: int = 600, w: int = 900, step: float = 22.0, tilt_deg: float = 3.0,
                        line: float = 0.08, shade: bool = True) -> np.ndarray:
    """A frame filled by lined paper (no desk, so no sheet edge), the lines tilted and faint
    (a blurred 1-px line of pale ruling), under a soft shadow, with a pen-drawn box whose top
    and bottom sides run beside the lines and a word inside."""
    import cv2

    img = np.full((h, w), 235.0, np.float32)
    slope = np.tan(np.deg2rad(tilt_deg))
    y = -w * slope
    while y < h + w * slope:
        cv2.line(img, (0, round(y)), (w - 1, round(y + slope * (w - 1))), 235.0 * (1 - line), 1, cv2.LINE_AA)
        y += step
    cv2.rectangle(img, (300, 250), (600, 350), 60.0, 2)
    word = np.zeros((h, w), np.uint8)
    cv2.putText(word, "Check the oven", (330, 307), cv2.FONT_HERSHEY_SIMPLEX, 0.8, 255, 2)
    img[word > 0] = 40.0
    if shade:  # a hand's soft shadow across a third of the frame
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        img *= 1 - 0.35 * np.exp(-(((xx - 0.15 * w) / (0.25 * w)) ** 2))
    return _as_rgb(img, blur=0.9)


def test_a_frame_of_tilted_faint_ruling_is_cleaned_over_the_whole_frame():
    from flowpath.segment.page import clean_frame, ruling_period

    frame = _tilted_ruled_frame()
    assert find_page(frame) is None  # no desk: the sheet fills the frame
    rows, cols = ruling_period(frame)
    assert rows is not None and abs(rows - 22) <= 1.5 and cols is None  # lined, not squared
    out = clean_frame(frame)
    assert out is not None and out.shape == frame.shape
    grey = out[..., 0]
    # the ruling is gone, in the light and in the shadow alike ...
    assert (grey[20:220, 20:880] > 240).mean() > 0.99
    assert (grey[380:580, 20:280] > 240).mean() > 0.99
    # ... and the box is ink all the way round, its word too
    for side in (grey[250, 310:590], grey[350, 310:590], grey[260:340, 300], grey[260:340, 600]):
        assert side.max() < 128 or (side < 128).mean() > 0.9
    assert (grey[290:312, 330:570] < 128).sum() > 200


def test_frames_without_ruling_are_left_to_the_plain_path():
    from flowpath.segment.page import clean_frame, ruling_period

    plain = _tilted_ruled_frame(line=0.0)
    assert ruling_period(plain) == (None, None)
    assert clean_frame(plain) is None
    # a chart's own page (a web chart): no periodic ruling either
    img, _ = draw_chart("default", shapes=SHAPES)
    assert ruling_period(img) == (None, None)
    assert clean_frame(img) is None


@require_chromium
def test_a_generated_photo_of_squared_paper_filling_the_frame_is_segmented_on_the_cleaned_frame(hard_photo):
    from flowpath.datasets.febench import Benchmark
    from flowpath.io import load_image
    from flowpath.metrics.matching import match_regions
    from flowpath.segment.page import clean_frame, ruling_period

    (chart,) = Benchmark(hard_photo).charts()
    photo = load_image(chart.image_path)
    assert find_page(photo) is None
    rows, cols = ruling_period(photo)
    sheet = clean_frame(photo)
    assert sheet is not None
    # the cleaned frame has no grid left: its rows and columns of paper away from the drawing
    # hold no periodic ink
    assert ruling_period(sheet) == (None, None)
    found = segment_page(ClassicalSegmenter(), photo)
    assert found is not None
    regions, _ = found
    gold = list(chart.regions.values())
    matched = len(match_regions(regions, gold, 0.5))
    # half the nodes or more are found, and more nodes than anything else
    assert matched >= len(gold) / 2 and matched > len(regions) - matched, [r.bbox for r in regions]
    assert not [r.bbox for r in regions if r.bbox[2] - r.bbox[0] < 1.2 * cols and r.bbox[3] - r.bbox[1] < 1.2 * rows]
