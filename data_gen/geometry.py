"""From browser measurements (root-SVG units) to PNG-pixel regions.

`page.js` returns, per node, the outline points of each shape element of its
``label-container`` (already through every transform, in viewBox units). Here they become one
polygon per node and are mapped to pixels with the raster scale:
``px = (x - viewBox.x) * sx`` with ``sx = png_width / viewBox.width``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

Point = tuple[float, float]


def convex_hull(points: Sequence[Sequence[float]]) -> list[Point]:
    """Convex hull (Andrew's monotone chain), counter-clockwise, no repeated end point."""
    pts = sorted({(float(x), float(y)) for x, y in points})
    if len(pts) <= 2:
        return pts

    def cross(o: Point, a: Point, b: Point) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[Point] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[Point] = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def shoelace(points: Sequence[Sequence[float]]) -> float:
    """Signed area of a closed polygon."""
    a = np.asarray(points, dtype=float)
    if len(a) < 3:
        return 0.0
    x, y = a[:, 0], a[:, 1]
    return float(0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def simplify(points: Sequence[Sequence[float]], eps: float) -> list[Point]:
    """Douglas-Peucker simplification of an open polyline (keeps both ends)."""
    a = np.asarray(points, dtype=float)
    if len(a) < 3:
        return [(float(x), float(y)) for x, y in a]
    keep = np.zeros(len(a), dtype=bool)
    keep[0] = keep[-1] = True
    stack = [(0, len(a) - 1)]
    while stack:
        i, j = stack.pop()
        if j <= i + 1:
            continue
        p, q = a[i], a[j]
        seg = q - p
        norm = float(np.hypot(*seg))
        mid = a[i + 1:j]
        if norm < 1e-9:
            d = np.hypot(*(mid - p).T)
        else:
            d = np.abs(seg[0] * (mid[:, 1] - p[1]) - seg[1] * (mid[:, 0] - p[0])) / norm
        k = int(np.argmax(d))
        if d[k] > eps:
            keep[i + 1 + k] = True
            stack.append((i, i + 1 + k))
            stack.append((i + 1 + k, j))
    return [(float(x), float(y)) for x, y in a[keep]]


def sample_path(d: str, m: Sequence[float], per_curve: int = 12) -> list[Point]:
    """Points along SVG path data ``d`` (all sub-paths, in order), mapped by the 2x3 matrix
    ``m = [a, b, c, d, e, f]`` (``x' = a x + c y + e``, ``y' = b x + d y + f``). Lines give their
    end points, curves and arcs ``per_curve`` points each."""
    from svgelements import Close, Line, Move, Path

    chunks = []
    for seg in Path(d):
        if isinstance(seg, Move) or seg.start is None or seg.end is None:
            continue
        k = 2 if isinstance(seg, (Line, Close)) else per_curve
        chunks.append(np.asarray(seg.npoint(np.linspace(0.0, 1.0, k)), dtype=float).reshape(-1, 2))
    if not chunks:
        return []
    p = np.concatenate(chunks)
    a, b, c, dd, e, f = (float(v) for v in m)
    x = a * p[:, 0] + c * p[:, 1] + e
    y = b * p[:, 0] + dd * p[:, 1] + f
    return list(zip(x.tolist(), y.tolist(), strict=True))


def resolve_shape(shape: dict[str, Any]) -> dict[str, Any]:
    """A measured shape with ``pts`` filled in (paths arrive as ``d`` + matrix ``m``)."""
    if shape.get("pts") or not shape.get("d"):
        return shape
    return {**shape, "pts": sample_path(shape["d"], shape["m"])}


def node_outline(shapes: list[dict[str, Any]]) -> list[Point]:
    """One outline for a node from its measured shape elements (viewBox units).

    Most flowchart shapes are convex (rect, rhombus, stadium, circle, cylinder, hexagon,
    parallelograms, trapezoids) and several are drawn as overlapping pieces (subroutine's
    doubled polygon, the cylinder's lid, rough.js fill + stroke paths), so the convex hull of all
    pieces is their exact silhouette. A truly concave shape (the asymmetric flag ``>text]``) has
    a single-piece outline clearly smaller than its hull: then the sampled outline is kept.
    """
    shapes = [resolve_shape(s) for s in shapes]
    shapes = [s for s in shapes if len(s["pts"])]
    pts_all = [p for s in shapes for p in s["pts"]]
    if len(pts_all) < 3:
        raise ValueError("node has no measurable shape")
    hull = convex_hull(pts_all)
    hull_area = abs(shoelace(hull))
    # the piece with the largest hull is the silhouette candidate (outer circle, fill path)
    best = max(shapes, key=lambda s: abs(shoelace(convex_hull(s["pts"]))) if len(s["pts"]) >= 3 else 0)
    if best["nsub"] == 1 and len(best["pts"]) >= 3 and hull_area > 0:
        raw = best["pts"]
        if best["tag"] != "polygon" or len(best["pts"]) <= 16:
            area = abs(shoelace(raw))
            if 0.5 * hull_area < area < 0.97 * hull_area and not _self_intersects(raw):
                return simplify(list(raw) + [raw[0]], 0.15)[:-1]
    if len(hull) > 16:  # sampled curves (stadium, circle, rough.js paths): drop collinear points
        hull = simplify(hull + [hull[0]], 0.1)[:-1]
    return hull


def _self_intersects(points: Sequence[Sequence[float]]) -> bool:
    """True if any two non-adjacent edges of the closed polygon cross (O(n^2), n <= ~400)."""
    a = np.asarray(points, dtype=float)
    # drop consecutive duplicates that sampling produces
    keep = np.r_[True, np.hypot(*np.diff(a, axis=0).T) > 1e-6]
    a = a[keep]
    n = len(a)
    if n < 4:
        return False
    p, q = a, np.roll(a, -1, axis=0)
    d = q - p
    # pairwise segment intersection via orientation tests, strict (touching does not count)
    def orient(o: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        return (u[..., 0] - o[..., 0]) * (v[..., 1] - o[..., 1]) - (u[..., 1] - o[..., 1]) * (v[..., 0] - o[..., 0])

    P1, Q1 = p[:, None, :], q[:, None, :]
    P2, Q2 = p[None, :, :], q[None, :, :]
    o1 = orient(P1, Q1, P2)
    o2 = orient(P1, Q1, Q2)
    o3 = orient(P2, Q2, P1)
    o4 = orient(P2, Q2, Q1)
    tol = 1e-9 * max(1.0, float(np.abs(d).max()) ** 2)
    cross = (o1 * o2 < -tol) & (o3 * o4 < -tol)
    idx = np.arange(n)
    adj = (np.abs(idx[:, None] - idx[None, :]) <= 1) | (np.abs(idx[:, None] - idx[None, :]) == n - 1)
    return bool((cross & ~adj).any())


def ray_to_outline(start: Sequence[float], towards: Sequence[float], polygon: Sequence[Sequence[float]],
                   reach: float) -> Point | None:
    """Where the ray from ``start`` in the direction of ``towards`` first meets the closed
    ``polygon``'s outline within ``reach`` units, or None."""
    p, q = np.asarray(start, dtype=float), np.asarray(towards, dtype=float)
    n = float(np.hypot(*(q - p)))
    poly = np.asarray(polygon, dtype=float)
    if n < 1e-9 or len(poly) < 3:
        return None
    d = (q - p) / n
    a, b = poly, np.roll(poly, -1, axis=0)
    e = b - a
    den = d[0] * e[:, 1] - d[1] * e[:, 0]
    ok = np.abs(den) > 1e-12
    w = a - p
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (w[:, 0] * e[:, 1] - w[:, 1] * e[:, 0]) / den  # along the ray
        u = (w[:, 0] * d[1] - w[:, 1] * d[0]) / den  # along the polygon's edge
    hit = ok & (t >= 0) & (t <= reach) & (u >= 0) & (u <= 1)
    if not hit.any():
        return None
    k = float(t[hit].min())
    return float(p[0] + k * d[0]), float(p[1] + k * d[1])


def to_pixels(points: Sequence[Sequence[float]], view_box: Sequence[float], scale: Sequence[float]) -> list[Point]:
    """Map viewBox-unit points to PNG pixels."""
    vx, vy = view_box[0], view_box[1]
    sx, sy = scale
    return [((float(x) - vx) * sx, (float(y) - vy) * sy) for x, y in points]


def box_to_pixels(box: Sequence[float] | None, view_box: Sequence[float], scale: Sequence[float]) -> list[float] | None:
    if box is None:
        return None
    (x0, y0), (x1, y1) = to_pixels([(box[0], box[1]), (box[2], box[3])], view_box, scale)
    return [round(x0, 2), round(y0, 2), round(x1, 2), round(y1, 2)]


def bbox_of(points: Sequence[Sequence[float]]) -> list[float]:
    a = np.asarray(points, dtype=float)
    return [float(a[:, 0].min()), float(a[:, 1].min()), float(a[:, 0].max()), float(a[:, 1].max())]


def raster_size(view_box: Sequence[float], *, scale: float = 2.0, max_width: int = 1600,
                min_scale: float = 0.5, max_pixels: int = 24_000_000) -> tuple[int, int, tuple[float, float]]:
    """PNG size for a viewBox, as the benchmark renders: 2x, width capped at 1600 px (but the
    scale never below ``min_scale``; the benchmark goes down to about 0.55).

    Returns:
        ``(width, height, (sx, sy))`` with ``sx = width / viewBox.width`` (rounding makes sx and
        sy differ slightly, as in the benchmark's ``scale`` field).
    """
    w, h = float(view_box[2]), float(view_box[3])
    s = min(scale, max_width / w) if max_width else scale
    # very wide LR charts would shrink to unreadable text under the width cap alone
    s = max(s, min(min_scale, scale))
    if w * h * s * s > max_pixels:
        s = (max_pixels / (w * h)) ** 0.5
    W, H = max(1, round(w * s)), max(1, round(h * s))
    return W, H, (W / w, H / h)
