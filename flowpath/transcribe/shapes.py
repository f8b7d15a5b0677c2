"""Node shapes from pixels: the outline profile of a node inside its box.

For rows at fixed fractions of the node's height we take the left-most and right-most
non-background pixel (the border, or the fill for borderless styles). How far they sit inside
the box, and how that changes from top to bottom, tells the Mermaid shape apart:

* a straight ``V`` reaching the middle -> rhombus (decision); a shallow straight ``V`` -> hexagon
* a curved ``V`` -> stadium (circle when the node is about as wide as tall)
* both sides slanting the same way -> parallelogram (lean_right / lean_left, input/output)
* sides slanting towards each other -> trapezoid; otherwise a rectangle.

The profile is measured on the image rather than taken from the region polygon because a
segmenter (or the gold boxes of a stadium) may give only a box.
"""

from __future__ import annotations

import numpy as np

_TS = np.linspace(0.12, 0.88, 11)


def _profile(fg: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    h, w = fg.shape
    left, right = [], []
    for t in _TS:
        y = int(round(t * (h - 1)))
        band = fg[max(y - 1, 0):y + 2].any(axis=0)
        xs = np.flatnonzero(band)
        if len(xs) == 0:
            left.append(np.nan)
            right.append(np.nan)
            continue
        left.append(xs[0])
        right.append(w - 1 - xs[-1])
    lp, rp = np.array(left, float), np.array(right, float)
    if np.isnan(lp).sum() > 3:
        return None
    return lp, rp


def classify_shape(fg: np.ndarray) -> str:
    """Mermaid shape name of a node from its foreground mask cropped to the node's box.

    Args:
        fg: ``(h, w)`` bool, True for non-background pixels (border, fill, text) in the box.

    Returns:
        One of ``rect``, ``rhombus``, ``hexagon``, ``stadium``, ``circle``, ``lean_right``,
        ``lean_left``, ``trapezoid``, ``trapezoid_alt`` (``rect`` when unsure).
    """
    h, w = fg.shape
    if h < 8 or w < 8:
        return "rect"
    prof = _profile(fg)
    if prof is None:
        return "rect"
    lp, rp = prof
    # distances in units of the height: a stadium's ends are semicircles of radius h/2
    lp, rp = lp / h, rp / h
    fill = lambda a: np.where(np.isnan(a), np.nanmedian(a), a)  # noqa: E731
    lp, rp = fill(lp), fill(rp)
    mid = len(_TS) // 2
    # V-ness: how far the ends sit inside compared with the middle. A parallelogram's ends
    # average to its middle, a diamond's do not. Connectors leaving a node inside its box only
    # ever pull a profile outwards, so for the outline itself the larger of the top/bottom
    # readings ("folded") is the trustworthy one.
    vness = ((lp[0] + lp[-1]) / 2 - lp[mid] + (rp[0] + rp[-1]) / 2 - rp[mid]) / 2
    a = (max(lp[0], lp[-1]) + max(rp[0], rp[-1])) / 2
    b = (max(lp[2], lp[-3]) + max(rp[2], rp[-3])) / 2
    c = (lp[mid] + rp[mid]) / 2
    if vness > 0.06 and a - c > 0.08:
        straightness = (b - c) / max(a - c, 1e-6)
        if straightness > 0.45:  # straight sides
            return "rhombus" if (a - c) * h / w > 0.22 else "hexagon"
        return "circle" if w < 1.3 * h else "stadium"
    dl = lp[0] - lp[-1]
    dr = rp[0] - rp[-1]
    thr = 0.12
    if dl > thr and dr < -thr:
        return "lean_right"
    if dl < -thr and dr > thr:
        return "lean_left"
    if dl > thr and dr > thr:
        return "trapezoid"
    if dl < -thr and dr < -thr:
        return "trapezoid_alt"
    return "rect"
