"""Colour-layer pass of the classical segmenter: nodes filled with a saturated colour.

Web and Office charts fill nodes with saturated colours, often as a gradient, draw a darker
border of the same hue and cast a grey drop shadow; small JPEG rasters smear the text into the
fill. The flat-region pass then sees a fill broken into pieces (gradient bands, JPEG blocks,
text touching the border) or leaking through a border whose step to the fill is small. Here
the fill is found as a colour layer instead: pixels of clear chroma (fill, gradient and border
alike; not the grey shadow, dark text, grey connectors or off-white paper) form one blob per
node once the text's holes are filled and thin coloured connectors are opened away.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from flowpath.geometry import Region
from flowpath.segment.postprocess import (
    MIN_TEXT_PIXELS,
    fill_holes,
    holds_text,
    innermost_regions,
    interior_blobs,
    polygon_of_contour,
)

#: score of colour-layer regions: below flat-region detections, above the stroke pass
COLOUR_SCORE = 0.42
#: Lab difference between a node's inside and the page just outside it, below which a blob is a
#: speck of a pale, textured backdrop (a tinted subgraph fill on noisy paper whose chroma hovers
#: at the threshold); on the wild tuning sets (segwild_tune, ocr_tune_wild, seg_tune_wild) such
#: specks measure 1.6-18, blobs matching a node 36 and more
MIN_EDGE_CONTRAST = 20.0
#: a blob of this many squared smallest node sides may be a subgraph fill holding nodes
CONTAINER_MIN_AREA = 12
#: CIE lightness from which the colour just inside a blob's edge may be a subgraph's pale tint
#: (the subgraphs holding nodes on the wild tuning sets: 85-96; nodes' own fills and borders
#: that held coloured words: 37-53)
CONTAINER_MIN_LIGHTNESS = 75
#: a node inside a subgraph's fill keeps at least this far (working px) from the fill's edge ...
CONTAINER_PADDING = 6
#: ... and covers at most this share of it (a node's own fill inside its border covers more)
CONTAINER_MAX_SHARE = 0.6
#: ... and is at least this many smallest node sides high and wide (a word of coloured text
#: on a node's fill is one line high: 10-13 px on the wild tuning sets, held nodes 25 and more)
HELD_MIN_SIDE = 1.6
#: ... and at least this share of it is a solid core of its colour (not a word's thin strokes)
HELD_CORE = 0.3
#: share of the ring around a held node that is the subgraph's own fill colour
HELD_ON_FILL = 0.6


def chroma(image: np.ndarray) -> np.ndarray:
    """Max minus min channel of an RGB uint8 image (0 for greys, large for saturated colours)."""
    import cv2

    ch = cv2.split(image)
    hi = cv2.max(cv2.max(ch[0], ch[1]), ch[2])
    lo = cv2.min(cv2.min(ch[0], ch[1]), ch[2])
    return cv2.subtract(hi, lo)


def colour_regions(image: np.ndarray, sx: float, sy: float, out_size: tuple[int, int], *,
                   min_chroma: int = 40, min_solidity: float = 0.85, min_size: int = 10,
                   shrink: int = 2, min_coloured: float = 0.5, min_contrast: float = MIN_EDGE_CONTRAST,
                   edge_run: float = 0.0, with_masks: bool = True) -> list[Region]:
    """Nodes of one working image found as blobs of saturated colour (module docstring).

    Args:
        image: RGB uint8 working image.
        sx, sy: working pixels per original pixel (regions come back in original pixels).
        out_size: original ``(height, width)``.
        min_chroma: chroma (max - min channel) from which a pixel is coloured.
        min_solidity: filled area / convex hull area below which a blob is not a node.
        min_size: smallest node side, working pixels.
        shrink: pixels taken off the blob's outside (half a border).
        min_coloured: share of a blob that must be coloured (a fill, not an outline).
        min_contrast: Lab colour difference (CIE76) between the blob and the ring just outside it
            below which the blob is a piece of its surroundings, not a shape drawn on them.
        edge_run: keep a blob that touches one side of the image along at most this share of
            its extent there (`flowpath.segment.postprocess.touches_like_node`); 0: none.
        with_masks: attach COCO RLE masks.
    """
    import cv2

    H, W = image.shape[:2]
    col = (chroma(cv2.medianBlur(image, 3)) >= min_chroma).astype(np.uint8)
    if col.mean() < 0.002:
        return []
    # fill holes (text, icons): everything the border cannot reach through uncoloured pixels
    solid = fill_holes(col)
    holes = solid & (1 - col)
    k = max(3, int(round(min(H, W) / 150)) | 1)
    solid = cv2.morphologyEx(solid, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    grey = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY).astype(np.int16)
    ring = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))
    found: list[tuple[tuple[int, int, int, int], list[tuple[float, float]]]] = []
    blobs = [(b, False) for b in interior_blobs(solid, min_size, edge_run)]
    lab = None
    for (x, y, w, h, area, m), held in blobs:
        if not held and area >= CONTAINER_MIN_AREA * min_size * min_size:
            # a subgraph filled in the nodes' hue joins them into one blob: its nodes, a step
            # of colour inside its own fill, are tried as blobs of their own (the frame, then
            # holding them, is dropped by `innermost_regions`)
            if lab is None:
                lab = cv2.cvtColor(image, cv2.COLOR_RGB2LAB).astype(np.int16)
            blobs.extend((b, True) for b in _held_blobs(lab[y:y + h, x:x + w], col[y:y + h, x:x + w], m, x, y, k,
                                                         min_size, min_contrast))
        inner = cv2.erode(m, ring, iterations=3).astype(bool)
        text_holes = int((holes[y:y + h, x:x + w] & m).sum())
        if not inner.any() or not _holds_text(grey[y:y + h, x:x + w][inner], text_holes):
            continue
        # a filled shape: coloured over most of its area, and no uncoloured hole bigger than
        # a text line (a coloured subgraph frame around white nodes, a coloured pen's outline)
        unc = (m & (1 - col[y:y + h, x:x + w])).astype(np.uint8)
        if unc.sum() > (1 - min_coloured) * area:
            continue
        nh, _, hst, _ = cv2.connectedComponentsWithStats(unc, connectivity=4)
        if nh > 1 and hst[1:, 4].max() > 0.2 * area:
            continue
        around = _with_ring(image, m, x, y)  # one Lab crop for both tests below
        if _edge_contrast(around) < min_contrast:
            continue  # a speck of a pale, textured backdrop whose chroma hovers at the threshold
        m, x, y = _trim_surround(m, x, y, around, min_contrast)
        (h, w), area = m.shape, int(m.sum())
        cs, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        c = max(cs, key=cv2.contourArea)
        if shrink:  # the layer ends at the border's outer edge; the node at its centre line
            ms = cv2.erode(m, ring, iterations=shrink)
            cs2, _ = cv2.findContours(ms, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            if cs2:
                c = max(cs2, key=cv2.contourArea)
        hull = cv2.contourArea(cv2.convexHull(c)) + cv2.arcLength(c, True) / 2
        if area / max(hull, 1.0) < min_solidity:
            continue
        poly = np.asarray(polygon_of_contour(c), dtype=float)
        if len(poly) < 3:
            continue
        poly = poly + 0.5 + 0.5 * np.sign(poly - poly.mean(axis=0))
        found.append(((x, y, x + w, y + h), [((px + x) / sx, (py + y) / sy) for px, py in poly]))
    return innermost_regions(found, out_size, COLOUR_SCORE, with_mask=with_masks)


def _held_blobs(lab: np.ndarray, col: np.ndarray, blob: np.ndarray, x: int, y: int, k: int, min_size: int,
                min_contrast: float) -> list[tuple[int, int, int, int, int, np.ndarray]]:
    """Coloured blobs inside ``blob`` (a 0/1 crop at ``(x, y)``; ``lab``, ``col``: the same crop
    of the 8-bit Lab image and the colour layer) that differ from the colour just inside its edge
    (a subgraph's own fill) by ``min_contrast`` and keep `CONTAINER_PADDING` px clear of that
    edge: the nodes of a subgraph filled in their own hue. A node's own fill inside its darker
    border, or a band of its gradient, reaches closer to its edge or covers most of it."""
    import cv2

    dist = cv2.distanceTransform(blob, cv2.DIST_L2, 3)
    rim = (dist >= 3) & (dist <= 8)
    if rim.sum() < 50:
        return []
    fill = np.median(lab[rim], axis=0)
    if fill[0] * 100 / 255 < CONTAINER_MIN_LIGHTNESS:
        return []  # a node's own deep fill or border, not a subgraph's pale tint
    # 8-bit Lab: L scaled by 255/100, a and b offset by 128; compare in CIE76 units
    diff = (lab - fill).astype(np.float32)
    diff[..., 0] *= 100.0 / 255.0
    delta = np.sqrt((diff * diff).sum(axis=2))
    far = (delta >= min_contrast) & col.astype(bool) & (dist > 2)
    other = fill_holes(far.astype(np.uint8))
    other = cv2.morphologyEx(other, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    # a filled node keeps a solid core of its colour; a word (coloured glyphs on a node's fill,
    # their counters filled) is all thin strokes
    core = cv2.erode(far.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    total = int(blob.sum())
    out = []
    for bx, by, w, h, area, m in interior_blobs(other, min_size):
        inside = m.astype(bool)
        if (min(w, h) < HELD_MIN_SIDE * min_size or area > CONTAINER_MAX_SHARE * total or dist[by:by + h, bx:bx + w][inside].min() < CONTAINER_PADDING
                or core[by:by + h, bx:bx + w][inside].mean() < HELD_CORE):
            continue
        # ... and sits on that fill: the ring 2-4 px around it is the subgraph's colour (words on
        # a node's gradient sit on a fill that differs from the node's border)
        pad = np.zeros((h + 10, w + 10), np.uint8)
        pad[5:5 + h, 5:5 + w] = m
        around = cv2.distanceTransform(1 - pad, cv2.DIST_L2, 3)
        ring = (around >= 2) & (around <= 4)
        ya, xa = by - 5, bx - 5
        ys, xs = np.nonzero(ring)
        ys, xs = ys + ya, xs + xa
        ok = (ys >= 0) & (xs >= 0) & (ys < blob.shape[0]) & (xs < blob.shape[1])
        if not ok.any() or (delta[ys[ok], xs[ok]] < min_contrast / 2).mean() < HELD_ON_FILL:
            continue
        out.append((bx + x, by + y, w, h, area, m))
    return out


def _holds_text(grey: np.ndarray, hole_pixels: int) -> bool:
    """Whether a blob's inner pixels (grey levels, 1-D) hold text: `MIN_TEXT_PIXELS` holes in the
    colour layer (a speck or two of JPEG noise in an arrowhead is not a label), or pixels
    clearly darker or lighter than the fill (white text on a dark fill). JPEG smears small text
    into the fill, so many pixels half as far from it count too."""
    return hole_pixels >= MIN_TEXT_PIXELS or holds_text(np.abs(grey - np.median(grey)))


class _Ringed(NamedTuple):
    """A blob on a crop of the image 6 px wider each side (`_with_ring`)."""

    lab: np.ndarray  # the crop in CIE Lab units, float32
    mask: np.ndarray  # the blob, 0/1 uint8
    ring: np.ndarray  # bool: 2-5 px outside the blob
    y0: int  # the crop's origin in the image
    x0: int


def _with_ring(image: np.ndarray, blob: np.ndarray, x: int, y: int) -> _Ringed:
    """``blob`` (a 0/1 crop at ``(x, y)`` of ``image``) with its surround (`_Ringed`)."""
    import cv2

    H, W = image.shape[:2]
    h, w = blob.shape
    p = 6
    ya, yb, xa, xb = max(y - p, 0), min(y + h + p, H), max(x - p, 0), min(x + w + p, W)
    m = np.zeros((yb - ya, xb - xa), np.uint8)
    m[y - ya:y - ya + h, x - xa:x - xa + w] = blob
    dist = cv2.distanceTransform(1 - m, cv2.DIST_L2, 3)
    lab = cv2.cvtColor(image[ya:yb, xa:xb].astype(np.float32) / 255.0, cv2.COLOR_RGB2LAB)
    return _Ringed(lab, m, (dist >= 2) & (dist <= 5), ya, xa)


def _edge_contrast(around: _Ringed) -> float:
    """CIE76 Lab difference between the median colour inside the blob and the median colour of
    the ring 2-5 px outside it."""
    import cv2

    lab, m, ring, _, _ = around
    if not ring.any():
        return 0.0
    core = cv2.erode(m, np.ones((3, 3), np.uint8), iterations=2).astype(bool)
    inside = np.median(lab[core if core.any() else m.astype(bool)], axis=0)
    return float(np.linalg.norm(inside - np.median(lab[ring], axis=0)))


def _trim_surround(blob: np.ndarray, x: int, y: int, around: _Ringed, min_contrast: float
                   ) -> tuple[np.ndarray, int, int]:
    """``blob`` (a 0/1 crop at ``(x, y)``, ``around`` its `_with_ring`) less the rim of the colour around it: a pale tint
    (a subgraph's fill, tinted paper) whose chroma hovers at the colour threshold joins the
    layer in patches along a node's edge and would grow its box past the border. Pixels within
    half ``min_contrast`` (CIE76) of the ring outside the blob are dropped, holes (text, a
    gradient's pale band enclosed by the border) filled again, and the largest piece kept; the
    blob is kept whole when that would take half of it (it is not a shape on that colour).
    Returns ``(blob, x, y)``, cropped to what is left."""
    import cv2

    lab, m, ring, ya, xa = around
    if not ring.any():
        return blob, x, y
    near = np.linalg.norm(lab - np.median(lab[ring], axis=0), axis=2) < min_contrast / 2
    cut = m.astype(bool) & near
    if not cut.any():
        return blob, x, y
    keep = fill_holes((m.astype(bool) & ~cut).astype(np.uint8))
    keep = cv2.morphologyEx(keep, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, lab_ids, st, _ = cv2.connectedComponentsWithStats(keep, connectivity=4)
    if n < 2:
        return blob, x, y
    i = 1 + int(np.argmax(st[1:, 4]))
    if st[i, 4] < 0.5 * blob.sum():
        return blob, x, y
    bx, by, bw, bh = (int(v) for v in st[i, :4])
    return (lab_ids[by:by + bh, bx:bx + bw] == i).astype(np.uint8), bx + xa, by + ya
