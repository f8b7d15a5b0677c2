"""Drawing attributions on the original image (PIL only).

`draw_attribution` tints the attributed node regions, outlines them, numbers them in path order
and draws the path's edges as arrows between the nodes. Node labels (the letters a reasoner
reads) are drawn by `flowpath.labeller.draw_labels` alone, in real and oracle runs alike.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from flowpath.geometry import Region

#: attributed regions: a strong blue that stays visible on the benchmark's pastel node fills
HIGHLIGHT = (0, 102, 255)
PATH_COLOR = (255, 64, 0)


def _scale(h: int, w: int) -> float:
    # line widths and fonts grow with the chart: a 600 px thumbnail and an 8000 px tall chart
    return max(1.0, min(h, w) / 500.0)


def draw_attribution(image: np.ndarray, regions: Sequence[Region], labels: Sequence[str],
                     edges: Sequence[tuple[str, str]] = ()) -> np.ndarray:
    """Draw attributed regions and the path between them.

    Args:
        image: original RGB ``uint8`` image ``(H, W, 3)``.
        regions: the attributed regions, in path order (original-image pixels).
        labels: one label (node id / letter) per region.
        edges: ``(source, target)`` label pairs to draw as arrows; when empty and there are
            several regions, consecutive regions are joined with dashed lines instead.

    Returns:
        A new RGB array of the same size.

    >>> img = np.full((100, 200, 3), 255, np.uint8)
    >>> out = draw_attribution(img, [Region((10, 10, 60, 40)), Region((10, 60, 60, 90))],
    ...                        ["A", "B"], [("A", "B")])
    >>> out.shape, bool((out != 255).any())
    ((100, 200, 3), True)
    """
    from PIL import Image, ImageDraw

    from flowpath.labeller import load_font

    if len(regions) != len(labels):
        raise ValueError(f"draw_attribution needs one label per region, got {len(regions)} "
                         f"regions and {len(labels)} labels")
    arr = np.asarray(image, dtype=np.uint8)
    if arr.ndim != 3 or arr.shape[2] != 3:
        raise ValueError(f"draw_attribution needs an (H, W, 3) RGB image, got shape {arr.shape}")
    h, w = arr.shape[:2]
    s = _scale(h, w)
    base = Image.fromarray(arr).convert("RGBA")
    tint = Image.new("RGBA", base.size, (0, 0, 0, 0))
    dt = ImageDraw.Draw(tint)
    for r in regions:
        dt.polygon([tuple(p) for p in r.polygon], fill=(*HIGHLIGHT, 70))
    out = Image.alpha_composite(base, tint)
    d = ImageDraw.Draw(out)
    lw = max(2, int(round(3 * s)))
    for r in regions:
        pts = [tuple(p) for p in r.polygon]
        d.line([*pts, pts[0]], fill=(*HIGHLIGHT, 255), width=lw, joint="curve")

    centers = {lab: r.center for lab, r in zip(labels, regions, strict=True)}
    by_label = dict(zip(labels, regions, strict=True))
    if edges:
        for a, b in edges:
            if a in by_label and b in by_label:
                _arrow(d, _border_point(by_label[a], centers[b]), _border_point(by_label[b], centers[a]),
                       (*PATH_COLOR, 255), lw)
    elif len(regions) > 1:
        for ra, rb in zip(regions, regions[1:], strict=False):
            _dashed(d, ra.center, rb.center, (*PATH_COLOR, 200), max(1, lw // 2), 8 * s)

    font = load_font(int(14 * s))
    for i, (lab, r) in enumerate(zip(labels, regions, strict=True), 1):
        text = f"{i}:{lab}"
        x0, y0 = _badge_anchor(r)
        tb = d.textbbox((0, 0), text, font=font)
        tw, th = tb[2] - tb[0], tb[3] - tb[1]
        pad = 2 * s
        bx0 = min(max(0.0, x0 - pad), max(0.0, w - tw - 2 * pad))
        by0 = min(max(0.0, y0 - th - 2 * pad), max(0.0, h - th - 2 * pad))
        d.rectangle([bx0, by0, bx0 + tw + 2 * pad, by0 + th + 2 * pad], fill=(*HIGHLIGHT, 255))
        d.text((bx0 + pad - tb[0], by0 + pad - tb[1]), text, fill=(255, 255, 255, 255), font=font)
    return np.asarray(out.convert("RGB"))


def _badge_anchor(r: Region) -> tuple[float, float]:
    """Left end of the region's top edge: the top-left corner of a box, the top vertex of a
    rhombus, so the badge sits on the outline rather than in the bounding box's empty corner."""
    tol = max(2.0, 0.05 * r.height)
    top = min(y for _, y in r.polygon)
    return (min(x for x, y in r.polygon if y <= top + tol), top)


def _border_point(r: Region, toward: tuple[float, float]) -> tuple[float, float]:
    """Where the segment from the region's centre toward ``toward`` crosses its outline, so
    arrows start and end on node borders (also for rhombi) rather than in the text."""
    cx, cy = r.center
    dx, dy = toward[0] - cx, toward[1] - cy
    if dx == 0 and dy == 0:
        return (cx, cy)
    best = math.inf
    pts = r.polygon
    for (ax, ay), (bx, by) in zip(pts, pts[1:] + pts[:1], strict=True):
        ex, ey = bx - ax, by - ay
        den = dx * ey - dy * ex
        if abs(den) < 1e-12:
            continue
        t = ((ax - cx) * ey - (ay - cy) * ex) / den  # along the centre ray
        u = ((ax - cx) * dy - (ay - cy) * dx) / den  # along the edge
        if 0.0 <= u <= 1.0 and 0.0 < t < best:
            best = t
    if best == math.inf or best > 1.0:
        best = 0.0
    return (cx + dx * best, cy + dy * best)


def _arrow(d, p: tuple[float, float], q: tuple[float, float], color, width: int) -> None:
    d.line([p, q], fill=color, width=width)
    ang = math.atan2(q[1] - p[1], q[0] - p[0])
    size = 4 * width
    left = (q[0] - size * math.cos(ang - 0.45), q[1] - size * math.sin(ang - 0.45))
    right = (q[0] - size * math.cos(ang + 0.45), q[1] - size * math.sin(ang + 0.45))
    d.polygon([q, left, right], fill=color)


def _dashed(d, p: tuple[float, float], q: tuple[float, float], color, width: int,
            dash: float) -> None:
    length = math.dist(p, q)
    if length == 0:
        return
    n = max(1, int(length // (2 * dash)))
    for i in range(n):
        a, b = (2 * i) * dash / length, min(1.0, (2 * i + 1) * dash / length)
        d.line([(p[0] + (q[0] - p[0]) * a, p[1] + (q[1] - p[1]) * a),
                (p[0] + (q[0] - p[0]) * b, p[1] + (q[1] - p[1]) * b)], fill=color, width=width)

