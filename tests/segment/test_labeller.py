"""Labeller: letters in reading order, drawn in red beside (not over) the nodes."""

from __future__ import annotations

import numpy as np
import pytest

from flowpath.errors import ImageLoadError
from flowpath.geometry import Region
from flowpath.labeller import draw_labels, label_font_size, load_font


def _red_mask(img: np.ndarray) -> np.ndarray:
    r, g, b = (img[..., i].astype(int) for i in range(3))
    return (r > 180) & (g < 90) & (b < 90)


def _chart(boxes, size=(600, 800)):
    """A white chart with black-outlined boxes holding dark 'text' bars."""
    h, w = size
    img = np.full((h, w, 3), 255, np.uint8)
    for x0, y0, x1, y1 in boxes:
        img[y0:y1, x0:x0 + 3] = img[y0:y1, x1 - 3:x1] = 0
        img[y0:y0 + 3, x0:x1] = img[y1 - 3:y1, x0:x1] = 0
        img[(y0 + y1) // 2 - 4:(y0 + y1) // 2 + 4, x0 + 15:x1 - 15] = 60
    return img


def test_letters_follow_reading_order_and_map_to_given_regions():
    boxes = [(300, 400, 500, 460), (100, 200, 260, 260), (400, 200, 560, 260), (300, 40, 500, 100)]
    regions = [Region(b) for b in boxes]
    out, mapping = draw_labels(_chart(boxes), regions)
    assert list(mapping) == ["A", "B", "C", "D"]
    # top first, then the row of two left-to-right, then the bottom node
    assert [mapping[k].bbox[:2] for k in mapping] == [(300, 40), (100, 200), (400, 200), (300, 400)]
    assert all(any(mapping[k] is r for r in regions) for k in mapping)


def test_labels_are_red_beside_each_node_and_leave_node_interiors_alone():
    boxes = [(300, 60, 500, 140), (300, 260, 500, 340), (300, 460, 500, 540)]
    img = _chart(boxes)
    out, mapping = draw_labels(img, [Region(b) for b in boxes])
    assert out.shape == img.shape and out.dtype == np.uint8
    red = _red_mask(out)
    assert red.any()
    for x0, y0, x1, y1 in boxes:
        assert not red[y0:y1, x0:x1].any(), "label drawn over a node although free space exists"
        # some red within a label's reach of this node's top-left corner
        near = red[max(0, y0 - 60):y0 + 40, max(0, x0 - 80):x0 + 20]
        assert near.any()
    # the input is not modified
    assert not _red_mask(img).any()


def test_more_than_26_regions_get_double_letters():
    boxes = [(20 + (i % 6) * 130, 20 + (i // 6) * 90, 100 + (i % 6) * 130, 70 + (i // 6) * 90) for i in range(30)]
    _, mapping = draw_labels(_chart(boxes, size=(520, 820)), [Region(b) for b in boxes])
    assert list(mapping)[25:28] == ["Z", "AA", "AB"] and len(mapping) == 30


def test_label_size_scales_with_the_chart():
    small = label_font_size((300, 200), [Region((10, 10, 60, 40))])
    large = label_font_size((4000, 2000), [Region((100, 100, 700, 260))])
    assert 8 <= small < large


@pytest.mark.parametrize("image, regions, error", [
    (np.zeros((0, 10, 3), np.uint8), [], ImageLoadError),
    (np.zeros((5, 5, 7), np.uint8), [], ImageLoadError),
    (np.full((50, 50, 3), 255, np.uint8), [(1, 2, 3, 4)], ValueError),
])
def test_bad_input_raises_a_clear_error(image, regions, error):
    with pytest.raises(error):
        draw_labels(image, regions)


def test_no_regions_and_tiny_and_rgba_images():
    img = np.full((40, 30, 4), 255, np.uint8)
    out, mapping = draw_labels(img, [])
    assert mapping == {} and out.shape == (40, 30, 3)
    out, mapping = draw_labels(img, [Region((5, 5, 25, 30))])
    assert list(mapping) == ["A"] and _red_mask(out).any()


def test_missing_font_path_is_reported():
    with pytest.raises(ValueError, match="no-such-font"):
        load_font(20, "/no-such-font.ttf")
