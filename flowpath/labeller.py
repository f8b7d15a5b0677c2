"""Letter labels drawn beside node regions (the "labelled image" of the paper).

Every later stage refers to nodes by these letters: the transcriber writes Mermaid whose node ids
are the letters, and the reasoner answers with letters. So the letters must be (1) assigned in a
stable reading order, (2) easy to read, and (3) never hide the node text they label.

Placement follows the paper (letters just outside each node's top-left corner). When that spot is
taken by ink (another node, an edge, text), other spots around the node are tried and the one that
covers the least is used; a label is never drawn over another label when any free spot exists.

>>> import numpy as np
>>> from flowpath.geometry import Region
>>> img = np.full((200, 300, 3), 255, np.uint8)
>>> labelled, by_letter = draw_labels(img, [Region((100, 120, 200, 180)), Region((100, 20, 200, 80))])
>>> list(by_letter), by_letter["A"].bbox
(['A', 'B'], (100.0, 20.0, 200.0, 80.0))
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from flowpath.geometry import Region, polygon_area, reading_order
from flowpath.labels import index_to_letters

#: Red as in the paper's labelled images.
LABEL_COLOR = (255, 0, 0)

#: Bold sans fonts tried in order (Debian fonts-dejavu-core, then other common locations);
#: PIL's built-in scalable font is the last resort.
FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/TTF/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
    "/Library/Fonts/Arial Bold.ttf",
    "C:/Windows/Fonts/arialbd.ttf",
)


@functools.lru_cache(maxsize=32)
def load_font(size: int, path: str | None = None):  # -> PIL.ImageFont.FreeTypeFont | ImageFont
    """A TrueType font of ``size`` px: ``path`` if given, else the first of `FONT_CANDIDATES`
    that exists, else PIL's default font."""
    from PIL import ImageFont

    for cand in (path,) if path else FONT_CANDIDATES:
        if os.path.exists(cand):
            try:
                return ImageFont.truetype(cand, size)
            except OSError:  # unreadable font file: try the next
                continue
    if path:
        raise ValueError(f"label font {path!r} does not exist or is not a TrueType font")
    return ImageFont.load_default(size=size)


def label_font_size(image_shape: Sequence[int], regions: Sequence[Region]) -> int:
    """Letter height in px, scaled to the chart: ~40% of the median node height, bounded by the
    image size so tiny thumbnails and 8000 px tall charts both get readable labels."""
    h, w = int(image_shape[0]), int(image_shape[1])
    if regions:
        node_h = float(np.median([max(r.height, 1.0) for r in regions]))
        size = 0.4 * node_h
    else:
        size = 0.03 * min(h, w)
    short = min(h, w)
    return int(np.clip(size, max(8, 0.012 * short), max(10, 0.08 * short)))


@dataclass
class _Ink:
    """Summed-area table of 'non-background' pixels, for O(1) ink counts in any box."""

    sat: np.ndarray
    h: int
    w: int

    @classmethod
    def of(cls, image: np.ndarray) -> _Ink:
        import cv2

        image = np.ascontiguousarray(image)
        h, w = image.shape[:2]
        border = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]]).astype(np.int16)
        # the chart background is the most common border colour (white for Mermaid renders, but
        # not always)
        vals, counts = np.unique(border // 8, axis=0, return_counts=True)
        bg = np.empty_like(image)
        bg[:] = (vals[np.argmax(counts)] * 8 + 4).astype(np.uint8)
        # OpenCV's saturating |a - b|, channel max and integral image: the same counts as numpy's
        # int16 difference and two cumsums over the page, at a tenth of the CPU (that was ~0.2
        # CPU s per 2-3 Mpx chart, as much as the whole classical segmenter)
        diff = cv2.absdiff(image, bg)
        ink = (cv2.max(cv2.max(diff[..., 0], diff[..., 1]), diff[..., 2]) > 40).astype(np.uint8)
        return cls(cv2.integral(ink, sdepth=cv2.CV_32S), h, w)

    def count(self, x0: float, y0: float, x1: float, y1: float) -> int:
        xa, ya = int(np.clip(x0, 0, self.w)), int(np.clip(y0, 0, self.h))
        xb, yb = int(np.clip(x1, 0, self.w)), int(np.clip(y1, 0, self.h))
        if xb <= xa or yb <= ya:
            return 0
        s = self.sat
        return int(s[yb, xb] - s[ya, xb] - s[yb, xa] + s[ya, xa])


def _overlap(a: Sequence[float], b: Sequence[float]) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def _candidates(box: Sequence[float], w: float, h: float, gap: float,
                corner_empty: bool = False) -> list[tuple[float, float]]:
    """Top-left corners of label boxes around a node, in order of preference (paper first).

    ``corner_empty``: the node does not fill its box corners (diamond, circle), so a label at
    the box corner would float away from the shape; its left vertex comes first instead.
    """
    x0, y0, x1, y1 = box
    cy = (y0 + y1) / 2
    if corner_empty:
        return [(x0 - w - gap, cy - h / 2), (x0 - w - gap, cy - h - gap)] + _candidates(box, w, h, gap)
    return [
        (x0 - w - gap, y0),              # left of the top-left corner (the paper's spot)
        (x0 - w - gap, y0 - h - gap),    # diagonally outside the top-left corner
        (x0, y0 - h - gap),              # above the top-left corner
        (x0 - w - gap, cy - h / 2),      # left, middle
        (x1 + gap, y0),                  # right of the top-right corner
        (x1 - w, y0 - h - gap),          # above the top-right corner
        (x1 + gap, cy - h / 2),          # right, middle
        (x0 - w - gap, y1 - h),          # left of the bottom-left corner
        (x0, y1 + gap),                  # below the bottom-left corner
        (x0 + gap, y0 + gap),            # inside the top-left corner (last resort)
    ]


def draw_labels(
    image: np.ndarray,
    regions: Sequence[Region],
    *,
    names: Sequence[str] | None = None,
    color: tuple[int, int, int] = LABEL_COLOR,
    font_size: int | None = None,
    font_path: str | None = None,
) -> tuple[np.ndarray, dict[str, Region]]:
    """Draw letter labels A, B, ..., Z, AA, ... beside node regions, in reading order.

    The one labeller of flowpath: real runs label segmented regions with new letters; oracle
    runs pass the gold node ids as ``names``, so an image-reading reasoner sees labels drawn the
    same way (same font, colour and ink-avoiding placement, placed in the same reading order)
    in both modes.

    Args:
        image: RGB ``uint8`` array ``(H, W, 3)`` (anything `flowpath.io.load_image` accepts).
        regions: node regions in original-image pixels, any order.
        names: the label of each region (same order as ``regions``) instead of new letters.
        color: label colour (red, as in the paper).
        font_size: letter size in px; default scales with the median node height and image size.
        font_path: a TrueType font; default DejaVu Sans Bold, else PIL's built-in font.

    Returns:
        ``(labelled_image, {label: region})``: a copy of the image with the labels drawn (same
        size, so region coordinates stay valid) and the label -> region map in reading order.

    Raises:
        flowpath.errors.ImageLoadError: the image is not a usable RGB image.
        ValueError: ``regions`` holds something that is not a `Region`, or ``names`` is not one
            distinct, non-empty name per region.
    """
    from PIL import Image, ImageDraw

    from flowpath.io import load_image

    arr = load_image(image, name="draw_labels image")
    for i, r in enumerate(regions):
        if not isinstance(r, Region):
            raise ValueError(f"draw_labels: regions[{i}] is a {type(r).__name__}, not a Region")
    if names is not None and (len(names) != len(regions) or len(set(names)) != len(names)
                              or not all(isinstance(n, str) and n for n in names)):
        raise ValueError(f"draw_labels: names must be one distinct non-empty string per region "
                         f"({len(regions)} regions), got {list(names)!r}")
    order = reading_order(list(regions))
    mapping = {(names[i] if names is not None else index_to_letters(k)): regions[i]
               for k, i in enumerate(order)}
    if not regions:
        return arr.copy(), mapping

    size = int(font_size) if font_size else label_font_size(arr.shape, regions)
    font = load_font(max(size, 1), font_path)
    ink = _Ink.of(arr)
    img_h, img_w = arr.shape[:2]
    boxes = [r.bbox for r in regions]
    gap = max(2.0, 0.15 * size)
    stroke = max(1, size // 12)
    pil = Image.fromarray(arr.copy())
    draw = ImageDraw.Draw(pil)
    placed: list[tuple[float, float, float, float]] = []

    for letter, region in mapping.items():
        tb = draw.textbbox((0, 0), letter, font=font, stroke_width=stroke)
        tw, th = tb[2] - tb[0], tb[3] - tb[1]
        best, best_cost = None, float("inf")
        corner_empty = polygon_area(region.polygon) < 0.8 * max(region.area, 1e-9)
        for rank, (cx, cy) in enumerate(_candidates(region.bbox, tw, th, gap, corner_empty)):
            # keep the label inside the image: clamp rather than drop, then pay for the shift
            x = float(np.clip(cx, 0, max(img_w - tw, 0)))
            y = float(np.clip(cy, 0, max(img_h - th, 0)))
            lb = (x, y, x + tw, y + th)
            area = max(tw * th, 1)
            cost = 0.05 * rank + (abs(x - cx) + abs(y - cy)) / max(tw, th)
            cost += 4.0 * ink.count(*lb) / area                       # covers text, edges, fills
            cost += 6.0 * sum(_overlap(lb, b) for b in boxes) / area   # covers a node
            cost += 50.0 * sum(_overlap(lb, p) for p in placed) / area  # covers another label
            if cost < best_cost:
                best, best_cost = lb, cost
        assert best is not None
        placed.append(best)
        draw.text((best[0] - tb[0], best[1] - tb[1]), letter, font=font, fill=tuple(color),
                  stroke_width=stroke, stroke_fill=(255, 255, 255))
    return np.asarray(pil), mapping
