"""Shapes that hold no label are not nodes (issue 14): an activity diagram's filled start dot
with its drop shadow, on a JPEG web raster, at the size where the flat pass sees it and at the
size where only the small-chart blob pass does."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from flowpath.geometry import Region
from flowpath.metrics import SegmentationMetric
from flowpath.segment import ClassicalSegmenter
from flowpath.segment.postprocess import holds_text


def _jpeg(img: np.ndarray, quality: int, noise: float) -> np.ndarray:
    """``img`` with a web raster's sensor-like noise, through a JPEG round trip."""
    grain = np.random.default_rng(0).normal(0.0, noise, img.shape)
    img = np.clip(img.astype(np.float32) + grain, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", img[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)[:, :, ::-1].copy()


def _shadowed(img: np.ndarray, draw, offset: int, blur: int) -> None:
    """Draw a shape with ``draw(canvas, colour)`` over its own soft grey drop shadow."""
    shadow = np.zeros(img.shape[:2], np.uint8)
    draw(shadow, 255)
    shadow = np.roll(shadow, (offset, offset), axis=(0, 1))
    shadow = cv2.GaussianBlur(shadow, (0, 0), blur).astype(np.float32) / 255.0 * 0.45
    img[:] = (img.astype(np.float32) * (1.0 - shadow[..., None])).astype(np.uint8)


def _activity_chart(s: float, noise: float, quality: int) -> tuple[np.ndarray, list[tuple[int, int, int, int]]]:
    """A start dot over two labelled, tinted, shadowed boxes, drawn at scale ``s`` on grey
    paper, with ``noise`` and saved as a JPEG of ``quality``; returns the image and the two labelled boxes (the gold nodes)."""
    img = np.full((int(260 * s), int(300 * s), 3), (226, 226, 226), np.uint8)
    cx, r = int(150 * s), int(14 * s)
    dot = (cx, int(30 * s))
    boxes = [(int(70 * s), int(90 * s), int(230 * s), int(135 * s)),
             (int(70 * s), int(185 * s), int(230 * s), int(230 * s))]

    def draw_dot(canvas: np.ndarray, colour) -> None:
        cv2.circle(canvas, dot, r, colour, -1, cv2.LINE_AA)

    _shadowed(img, draw_dot, max(2, int(3 * s)), max(1.0, 2 * s))
    draw_dot(img, (0, 0, 0))
    cv2.line(img, (cx, dot[1] + r), (cx, boxes[0][1]), (40, 40, 40), max(1, int(2 * s)))
    cv2.line(img, (cx, boxes[0][3]), (cx, boxes[1][1]), (40, 40, 40), max(1, int(2 * s)))
    for (x0, y0, x1, y1), word in zip(boxes, ("Begin", "Load the orders"), strict=True):
        def draw_box(canvas: np.ndarray, colour, box=(x0, y0, x1, y1)) -> None:
            cv2.rectangle(canvas, box[:2], box[2:], colour, -1)

        _shadowed(img, draw_box, max(2, int(3 * s)), max(1.0, 2 * s))
        cv2.rectangle(img, (x0, y0), (x1, y1), (200, 73, 242), -1)
        cv2.rectangle(img, (x0, y0), (x1, y1), (120, 20, 150), max(1, int(2 * s)))
        scale = 0.5 * s
        (tw, th), _ = cv2.getTextSize(word, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        cv2.putText(img, word, ((x0 + x1 - tw) // 2, (y0 + y1 + th) // 2), cv2.FONT_HERSHEY_SIMPLEX, scale,
                    (0, 0, 0), max(1, int(s)), cv2.LINE_AA)
    return _jpeg(img, quality, noise), boxes


@pytest.mark.parametrize(("s", "noise", "quality"), [(1.0, 2.0, 60), (2.0, 6.0, 40)],
                         ids=["small-chart blobs", "flat interiors"])
def test_a_start_dot_with_its_shadow_on_a_jpeg_is_not_a_node(s, noise, quality):
    """Found as a node before the label test (both sizes), as PlantUML's wild renders showed."""
    img, boxes = _activity_chart(s, noise, quality)
    (found,) = ClassicalSegmenter()([img])
    row = SegmentationMetric().update(found, [Region(b) for b in boxes])
    assert row["recall@0.7"] == 1.0, f"labelled nodes missed: {[r.bbox for r in found]}"
    assert row["precision@0.7"] == 1.0, f"the start dot was taken for a node: {[r.bbox for r in found]}"


def test_holds_text_tells_glyph_ink_from_compression_specks():
    specks = np.zeros((20, 20), np.int16)
    specks[3, 4] = specks[10, 11] = specks[15, 2] = 25  # JPEG specks in a one-colour fill
    assert not holds_text(specks)
    glyphs = np.zeros((20, 20), np.uint8)
    cv2.putText(glyphs, "Go", (1, 15), cv2.FONT_HERSHEY_SIMPLEX, 0.4, 200, 1)
    assert holds_text(glyphs.astype(np.int16))
