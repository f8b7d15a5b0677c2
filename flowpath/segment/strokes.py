"""Stroke pass of the classical segmenter: nodes found from their ink, not from flat interiors.

The flat-region pass (`flowpath.segment.classical`) needs a node's interior to be one flat,
closed region. Hand-drawn and photographed charts break that: an outline with a gap at a corner
leaks into the page, hachure fills cut the interior into strips, paper ruling and uneven light
split it further. This pass looks at ink instead:

1. **Ink.** The page's own brightness is estimated per pixel (a grey closing wider than any
   stroke, then a blur: uneven light, shadows and off-white paper divide out) and a pixel is ink
   when it is darker than that by ``ink_contrast`` of the local page brightness.
2. **Ruling out.** Paper ruling (lined or squared paper) is faint, thin and long: ink pixels
   that lie on long straight runs (directional openings, the page may be tilted a few degrees)
   and are fainter than the drawing's own strokes are dropped before anything else looks at them.
3. **Gaps closed.** The stroke width is measured (distance transform of the ink), and a closing
   scaled to it bridges the gaps a pen leaves at corners; holes are filled and an opening of
   about two stroke widths cuts off connectors and arrowheads.
4. **Nodes.** A solid, nearly convex blob that does not touch the image border, holds ink
   (text) inside but is mostly paper there, is outlined by ink along most of its boundary and holds no other blob is a
   node. Its region is shrunk by half a stroke to the stroke's centre line, where the renderer's
   geometry lies. On hand-drawn charts a second look with a 3-px closing adds the small nodes
   whose text the first closing joined to their outline.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from flowpath.geometry import Region, box_holds
from flowpath.segment.postprocess import (
    fill_holes,
    innermost,
    innermost_regions,
    interior_blobs,
    polygon_of_contour,
)

#: score of stroke-pass regions: below every flat-region detection, which win overlaps
STROKE_SCORE = 0.4
#: share of an extended side that must run on the pen's ink for a cut corner to be restored
#: (`sharpen_corners`)
CORNER_ON_PEN = 0.8
#: a first-look node holding a finer-look node whole that covers less than this share of its
#: box is a loop of connectors around that node (`_blocks`; like `_prefer_outlined`'s 30 %)
LOOP_HELD_SHARE = 0.3
#: ink of fewer pieces than this holds no letters (`letter_ink`: a chart of five nodes holds
#: dozens of letters; the pen's ink on a squeezed sketch with a thin font, 8)
MIN_LETTER_PIECES = 20
#: share of a node's width that the empty paper on top of it must span to be its lid (a
#: cylinder's top ellipse, `_with_lid`)
LID_SPAN = 0.6
#: share of a strip just outside a finer-closing node that may be darker than the page
#: (`_fine_node`)
FINE_MAX_TINT = 0.3


def page_contrast(image: np.ndarray, stroke_guess: int = 9) -> np.ndarray:
    """How much darker each pixel is than its local page, as a fraction of the page (0..1).

    Args:
        image: RGB uint8.
        stroke_guess: wider than the thickest stroke expected (working pixels); the page estimate
            is a closing with about twice that.
    """
    import cv2

    grey = image.min(axis=2) if image.ndim == 3 else image
    k = 2 * stroke_guess + 1
    # on a half-size copy: the page's brightness varies slowly, and this is the costly step
    small = cv2.resize(grey, (max(1, grey.shape[1] // 2), max(1, grey.shape[0] // 2)),
                       interpolation=cv2.INTER_AREA)
    page = cv2.morphologyEx(small, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    page = cv2.blur(page, (k, k))
    page = cv2.resize(page, (grey.shape[1], grey.shape[0]), interpolation=cv2.INTER_LINEAR)
    page = np.maximum(page.astype(np.float32), grey.astype(np.float32))
    return (page - grey.astype(np.float32)) / np.maximum(page, 16.0)


def _long_lines(mask: np.ndarray, length: int) -> np.ndarray:
    """Pixels of ``mask`` on straight runs at least ``length`` long, horizontal or vertical
    within +-6 degrees (a tilted photo of ruled paper)."""
    import cv2

    out = np.zeros(mask.shape, np.uint8)
    m = mask.astype(np.uint8)
    for deg in (-6, -3, 0, 3, 6):
        t = np.deg2rad(deg)
        dx, dy = np.cos(t) * (length - 1) / 2, np.sin(t) * (length - 1) / 2
        size = length + 2
        c = size // 2
        for horizontal in (True, False):
            k = np.zeros((size, size), np.uint8)
            p0 = (round(c - dx), round(c - dy)) if horizontal else (round(c - dy), round(c - dx))
            p1 = (round(c + dx), round(c + dy)) if horizontal else (round(c + dy), round(c + dx))
            cv2.line(k, p0, p1, 1, 1)
            out |= cv2.morphologyEx(m, cv2.MORPH_OPEN, k).astype(np.uint8)
    return out.astype(bool)


def ink_mask(image: np.ndarray, ink_contrast: float = 0.3, ruling_length: int = 0,
             ruling: bool = True) -> np.ndarray:
    """Ink pixels of an RGB image with paper ruling removed (see the module docstring).

    Args:
        image: RGB uint8.
        ink_contrast: darker than the local page by this fraction = ink.
        ruling_length: straight runs this long (px) count as ruling when they are fainter than
            the strokes; 0 = one twentieth of the image's longer side.
        ruling: look for paper ruling at all (a clean render has no paper: False skips the
            costliest step).
    """
    c = page_contrast(image)
    ink = c > ink_contrast
    if not ruling:
        return ink
    weak = c > 0.08
    max_pen = float(np.percentile(c, 99.5))
    length = ruling_length or max(40, max(image.shape[:2]) // 20)
    lines = _long_lines(weak, length)
    if lines.mean() > 0.01:
        # ruled or squared paper: its lines are fainter than the pen (long lines as dark as
        # the pen are the drawing's own). Keep, on the lines, only pixels clearly darker than
        # the ruling itself
        faint = float(np.median(c[lines]))
        if faint < 0.5 * max_pen:
            ink &= ~lines | (c > max(ink_contrast, 1.6 * faint))
    return ink


def stroke_width(ink: np.ndarray) -> float:
    """Typical stroke width in pixels: twice the 90th percentile of the distance from an ink
    pixel to the nearest non-ink pixel (line centres sit at half the width)."""
    import cv2

    if not ink.any():
        return 1.0
    dist = cv2.distanceTransform(ink.astype(np.uint8), cv2.DIST_L2, 3)
    return max(1.0, 2.0 * float(np.percentile(dist[ink], 90)))


def glyph_height(ink: np.ndarray) -> float:
    """Typical height of the ink's small pieces: the median height of its 8-connected
    components, most of which are letters (a chart has far more letters than outline pieces)."""
    import cv2

    n, _, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    h = stats[1:, cv2.CC_STAT_HEIGHT][stats[1:, cv2.CC_STAT_AREA] >= 4]
    return float(np.median(h)) if len(h) else 0.0


def letter_ink(pen: np.ndarray, faint: np.ndarray) -> np.ndarray:
    """The ink a sketch's letters are in: ``pen`` (the pen's ink at a high contrast threshold)
    unless it has fewer than `MIN_LETTER_PIECES` pieces, then ``faint`` (a lower threshold).
    A thin font squeezed under a pixel's width stays fainter than the pen's strokes: on a
    159-px high chart the pen's ink was 8 pieces, outlines joined by connectors, 113-150 px
    high, and no letter."""
    import cv2

    n = cv2.connectedComponentsWithStats(pen.astype(np.uint8), connectivity=8)[2]
    return pen if int((n[1:, cv2.CC_STAT_AREA] >= 4).sum()) >= MIN_LETTER_PIECES else faint


def bridge_gaps(ink: np.ndarray, length: int, min_piece: float) -> np.ndarray:
    """``ink`` (0/1 uint8) with gaps of up to ``length`` px along a stroke bridged: closings with
    a thin line in twelve directions, so a gap is bridged only between two stroke ends that
    line up (a pen lifted mid-side), not across the space between two strokes side by side.
    Only pieces of ink longer than ``min_piece`` (outline and connector pieces, not letters)
    are bridged: bridging letters to the outline would fill a node's inside."""
    import cv2

    n, lab, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    long = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]) >= min_piece
    long[0] = False
    pieces = long[lab].astype(np.uint8)
    out = ink.copy()
    size = length | 1
    c = size // 2
    for deg in range(0, 180, 15):
        t = np.deg2rad(deg)
        dx, dy = np.cos(t) * c, np.sin(t) * c
        k = np.zeros((size, size), np.uint8)
        cv2.line(k, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1, 1)
        out |= cv2.morphologyEx(pieces, cv2.MORPH_CLOSE, k)
    return out


def enclosed_blobs(closed: np.ndarray, min_size: int, grow: int
                   ) -> Iterator[tuple[int, int, int, int, int, np.ndarray]]:
    """Node-sized pieces of paper that ``closed`` (gap-closed ink) encloses, each with its holes
    (the text) filled and grown by ``grow`` px over the outline that encloses it: one blob per
    enclosed region, so a node inside a closed frame or a loop of connectors stays its own blob
    and a pocket between connectors never joins the node it touches. Yields like
    `flowpath.segment.postprocess.interior_blobs`."""
    import cv2

    height, width = closed.shape[:2]
    n, lab, stats, _ = cv2.connectedComponentsWithStats((closed == 0).astype(np.uint8), connectivity=4)
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1))
    for i in range(1, n):
        x, y, w, h, _ = (int(v) for v in stats[i])
        if w < min_size or h < min_size or x == 0 or y == 0 or x + w >= width or y + h >= height:
            continue
        x0, y0 = max(0, x - grow - 1), max(0, y - grow - 1)
        x1, y1 = min(width, x + w + grow + 1), min(height, y + h + grow + 1)
        m = cv2.dilate(fill_holes((lab[y0:y1, x0:x1] == i).astype(np.uint8)), k)
        yield x0, y0, x1 - x0, y1 - y0, int(m.sum()), m


def stroke_regions(image: np.ndarray, sx: float, sy: float, out_size: tuple[int, int], *,
                   ink_contrast: float = 0.3, gap_strokes: float = 3.0, bridge: float = 0.0,
                   enclosed: bool = False, fine_gap: int = 0, min_outline: float = 0.75,
                   min_solidity: float = 0.85, min_size: int = 10, max_inked: float = 0.3,
                   max_band_ink: float = 0.35, ink: np.ndarray | None = None,
                   with_masks: bool = True, letter: float | None = None
                   ) -> list[Region]:
    """Nodes of one working image found from its strokes (see the module docstring).

    Args:
        image: RGB uint8 working image.
        sx, sy: working pixels per original pixel (regions come back in original pixels).
        out_size: original ``(height, width)``.
        ink_contrast: see `ink_mask`.
        gap_strokes: gaps up to this many stroke widths (at least 3 px) are closed.
        bridge: also bridge gaps along a stroke up to this many letter heights (`glyph_height`)
            between pieces of ink longer than two letters (`bridge_gaps`); 0 = off. A pen's
            gaps scale with the drawing, not with the pen's width.
        enclosed: nodes are the pieces of paper the closed ink encloses (`enclosed_blobs`),
            not the closed ink's filled blobs opened by two stroke widths: with long bridges
            the filled blobs join pockets between connectors to the nodes they touch.
        fine_gap: with ``enclosed``, also look again with gaps closed only up to this many px
            (0 = not): in a small node whose text runs within a few px of its outline, the
            ``gap_strokes`` closing joins the text to the outline and the enclosed paper is no
            longer node-shaped. Nodes found this way are kept where the first look found none.
        min_outline: share of a blob's boundary that must be ink (a node is outlined; a word
            merged by the closing is not); not asked of ``enclosed`` paper, which the closed
            ink bounds all round.
        min_solidity: filled area / convex hull area below which a blob is not a node.
        min_size: smallest node side, working pixels.
        max_inked: most of a node's inside is paper (text, hachure); a blob whose inside is
            inked beyond this share is not a node.
        max_band_ink: share of the band just inside the outline that may be ink (a node has
            padding between outline and text).
        ink: the image's `ink_mask`, when the caller has it already.
        with_masks: attach COCO RLE masks.
        letter: the letter height (`glyph_height`) when the caller has it already.
    """
    import cv2

    if ink is None:
        ink = ink_mask(image, ink_contrast)
    if not ink.any():
        return []
    sw = stroke_width(ink)
    gap = int(np.clip(round(gap_strokes * sw), 3, 25))
    bridged: np.ndarray | None = None
    # letters matter only where gaps are bridged (the sketch path)
    letter = (glyph_height(ink) if letter is None else letter) if bridge > 0 else 0.0
    bridge_length = 0
    if bridge > 0:
        length = int(round(bridge * letter))
        # even when it is no longer than the disc closing: a disc seals a gap between two
        # stroke ends only where its growth from both ends overlaps by a stroke's width,
        # about half its diameter, while a line along the stroke seals its whole length (a
        # thick pen and small letters: 16-px disc and bridge, 10-20 px pen lifts left open)
        if length >= 3:
            bridged = bridge_gaps(ink.astype(np.uint8), length, 2.0 * letter)
            bridge_length = length
    gaps = [gap] + ([fine_gap] if enclosed and 0 < fine_gap < gap else [])
    found: list[tuple[tuple[int, int, int, int], list[tuple[float, float]]]] = []
    for k, size in enumerate(gaps):
        closed: np.ndarray = cv2.morphologyEx(ink.astype(np.uint8), cv2.MORPH_CLOSE,
                                              cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)))
        if bridged is not None:
            closed = closed | bridged
        more = _outlined_nodes(closed, ink, sw, enclosed=enclosed, min_outline=min_outline,
                               min_solidity=min_solidity, min_size=min_size, max_inked=max_inked,
                               max_band_ink=max_band_ink,
                               corner_reach=max(size, bridge_length) if enclosed else 0,
                               letter=letter if enclosed else 0.0)
        if k:  # a finer look only adds nodes clear of those found already (a blob around
            # others, a frame or a loop of connectors that innermost_regions drops, blocks none)
            inner = [found[j][0] for j in innermost([g[0] for g in found])]
            more = [f for f in more if not any(_blocks(g, f[0]) for g in inner)
                    and _fine_node(f[0], image, letter, sw)]
        found += more
    return innermost_regions(
        [(box, [(px / sx, py / sy) for px, py in poly]) for box, poly in found],
        out_size, STROKE_SCORE, with_mask=with_masks)


def _fine_node(box: tuple[int, int, int, int], image: np.ndarray, letter: float, sw: float) -> bool:
    """Whether a node the finer closing found (working ``box``) may be kept: at least 1.5
    letters on its shorter side (a letter's counter is smaller) and paper on all four sides
    just outside its outline. A piece of a node cut off by a hachure line the finer closing
    sealed has the rest of that fill beside it: over `FINE_MAX_TINT` of a side's strip darker
    than the page (hachure-filled nodes found whole measured 0-0.05 per side, pieces 0.7)."""
    x0, y0, x1, y1 = box
    if min(x1 - x0, y1 - y0) < 1.5 * letter:
        return False
    grey = image.min(axis=2) if image.ndim == 3 else image
    h, w = grey.shape
    dark = 0.88 * float(np.percentile(grey[::4, ::4], 75))  # the page, less a faint tint
    d, t = int(round(2 * sw)) + 1, max(3, int(round(2 * sw)))
    for ys, xs in ((slice(max(0, y0 - d - t), max(0, y0 - d)), slice(x0, x1)),
                   (slice(min(h, y1 + d), min(h, y1 + d + t)), slice(x0, x1)),
                   (slice(y0, y1), slice(max(0, x0 - d - t), max(0, x0 - d))),
                   (slice(y0, y1), slice(min(w, x1 + d), min(w, x1 + d + t)))):
        side = grey[ys, xs]
        if side.size and (side < dark).mean() > FINE_MAX_TINT:
            return False
    return True


def _blocks(coarse: tuple[int, int, int, int], fine: tuple[int, int, int, int]) -> bool:
    """Whether a node the first look found (working box ``coarse``) hides one the finer look
    found (``fine``): they overlap by over a fifth of the smaller box, unless ``coarse`` holds
    ``fine`` whole at under `LOOP_HELD_SHARE` of its area (a loop of connectors around a node
    whose text the coarse closing joined to its outline; `innermost_regions` drops the loop
    once the node is in). A node's own pieces are larger than that."""
    def area(b: tuple[int, int, int, int]) -> int:
        return (b[2] - b[0]) * (b[3] - b[1])

    if _box_overlap(coarse, fine) <= 0.2:
        return False
    return not (box_holds(coarse, fine) and area(fine) < LOOP_HELD_SHARE * area(coarse))


def _box_overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    """Intersection of two boxes over the smaller one's area."""
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    small = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return ix * iy / max(small, 1)


def _outlined_nodes(closed: np.ndarray, ink: np.ndarray, sw: float, *, enclosed: bool,
                    min_outline: float, min_solidity: float, min_size: int, max_inked: float,
                    max_band_ink: float, corner_reach: int = 0, letter: float = 0.0
                    ) -> list[tuple[tuple[int, int, int, int], list[tuple[float, float]]]]:
    """The node-like blobs of gap-closed ink ``closed``: ``(working box, working polygon)``
    each (see `stroke_regions` for the arguments and the module docstring for the tests). With
    ``corner_reach`` (px) each outline's corners that the closing cut are restored
    (`sharpen_corners`); with ``letter`` (px, `glyph_height`) a node must hold ink of at
    least half a letter's height in pixels, not merely some."""
    import cv2

    if enclosed:
        blobs = enclosed_blobs(closed, min_size, max(1, int(round(sw))))
    else:
        # fill holes: everything the border cannot reach through non-ink
        solid = fill_holes(closed)
        cut = int(max(3, round(2 * sw + 1))) | 1
        solid = cv2.morphologyEx(solid, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (cut, cut)))
        blobs = interior_blobs(solid, min_size)
    ring_k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    # enclosed paper is bounded by the closed ink (bridges included) all round by construction,
    # so it is outlined: grown by a stroke width over that ink, its rim lies on it only where
    # the outline is at least half a stroke wide, and a node drawn with a finer pen than the
    # chart's text and connectors (`stroke_width` is their 90th percentile: 1.5-px diamonds
    # at 3.8) failed the test on 42 % of its rim
    near_ink = (None if enclosed else
                cv2.dilate(ink.astype(np.uint8), ring_k, iterations=max(1, round(sw / 2))).astype(bool))
    shrink = max(0, int(round(sw / 2)))
    # a node holds a label: on a sketch, a thick pen's closing joins a small node's text to
    # its outline and cuts the paper inside into pieces that hold only specks of the letters
    # (2-3 px at 14-px letters), which hid the node the finer look finds whole; a tiny
    # chart's faint grey label keeps 4-7 px at 5-px letters
    least_held = max(1.0, letter / 2)
    found: list[tuple[tuple[int, int, int, int], list[tuple[float, float]]]] = []
    lids: list[tuple[int, int, int, int, np.ndarray]] = []  # empty enclosed paper (`_with_lid`)
    for x, y, w, h, area, m in blobs:
        cs, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        c = max(cs, key=cv2.contourArea)
        hull = cv2.contourArea(cv2.convexHull(c)) + cv2.arcLength(c, True) / 2
        if area / max(hull, 1.0) < min_solidity:
            continue
        # outlined: the blob's boundary runs along ink
        pts = c[:, 0, :]
        if near_ink is not None and near_ink[pts[:, 1] + y, pts[:, 0] + x].mean() < min_outline:
            continue
        # holds something (text) inside its outline
        inner = cv2.erode(m, ring_k, iterations=int(round(2 * sw)) + 1).astype(bool)
        held = int((ink[y:y + h, x:x + w] & inner).sum())
        if held < least_held and enclosed:
            lids.append((x, y, x + w, y + h, m))
        if held < least_held or held > max_inked * inner.sum():
            continue  # empty, or mostly ink inside (a loop of connectors around filled nodes)
        # padding: just inside the outline lies paper (a word whose letters the closing
        # joined has ink right there)
        a = int(round(1.5 * sw)) + 1
        band = cv2.erode(m, ring_k, iterations=a).astype(bool) & ~cv2.erode(
            m, ring_k, iterations=a + max(2, int(round(sw)))).astype(bool)
        if not band.any() or (ink[y:y + h, x:x + w] & band).sum() > max_band_ink * band.sum():
            continue
        if shrink:
            m = cv2.erode(m, ring_k, iterations=shrink)
            cs, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            if not cs:
                continue
            c = max(cs, key=cv2.contourArea)
        poly = np.asarray(polygon_of_contour(c), dtype=float)
        if corner_reach:
            # the tips lie outside the blob's box: they are what the closing cut off
            poly = sharpen_corners(poly + (x, y), ink, corner_reach, sw) - (x, y)
        poly = poly + 0.5 + 0.5 * np.sign(poly - poly.mean(axis=0))
        found.append(((x, y, x + w, y + h), [(px + x, py + y) for px, py in poly]))
    if lids:
        found = [_with_lid(f, lids, sw, shrink) for f in found]
    return found


def _with_lid(node: tuple[tuple[int, int, int, int], list[tuple[float, float]]],
              lids: list[tuple[int, int, int, int, np.ndarray]], sw: float, shrink: int
              ) -> tuple[tuple[int, int, int, int], list[tuple[float, float]]]:
    """``node`` (working box, polygon) joined with the empty enclosed paper right on top of it
    that spans most of its width: a cylinder (database) is drawn as a body under a closed
    ellipse, its lid, whose paper holds no text and so is no node of its own; the node's outline
    is both (the body alone is 20-30 % short of the drawn shape). The lid's lower rim is the
    body's upper one (the grown blobs overlap; the body's top corners lie level with the
    ellipse's middle, within two strokes), it lies within the body's sides and spans `LID_SPAN`
    of its width, and it is lower than the body."""
    import cv2

    (x0, y0, x1, y1), poly = node
    for lx0, ly0, lx1, ly1, m in lids:
        if (ly0 < y0 < ly1 and ly0 + ly1 <= 2 * y0 + 4 * sw + 2 and lx0 >= x0 - sw and lx1 <= x1 + sw
                and lx1 - lx0 >= LID_SPAN * (x1 - x0) and ly1 - ly0 < y1 - y0):
            cs, _ = cv2.findContours(cv2.erode(m, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)),
                                               iterations=shrink), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            pts = np.concatenate([np.asarray(poly, float)] + [c[:, 0, :] + (lx0, ly0) for c in cs]).astype(np.float32)
            hull = cv2.convexHull(pts)[:, 0, :]
            return (min(x0, lx0), ly0, max(x1, lx1), y1), [(float(px), float(py)) for px, py in hull]
    return node


def holds_ink(regions: list[Region], ink: np.ndarray, sx: float, sy: float, min_pixels: int = 10
              ) -> list[Region]:
    """The regions whose middle (their box less a fifth on every side) holds at least
    ``min_pixels`` of ink: a node holds text, a cell of squared paper (its ruling removed from
    the ink) holds nothing. Region boxes are in original pixels, ``ink`` in working pixels."""
    out = []
    for r in regions:
        x0, y0, x1, y1 = r.bbox
        dx, dy = 0.2 * (x1 - x0), 0.2 * (y1 - y0)
        xa, xb = int((x0 + dx) * sx), int(np.ceil((x1 - dx) * sx))
        ya, yb = int((y0 + dy) * sy), int(np.ceil((y1 - dy) * sy))
        if ink[max(ya, 0):max(yb, 0), max(xa, 0):max(xb, 0)].sum() >= min_pixels:
            out.append(r)
    return out


def sharpen_corners(poly: np.ndarray, ink: np.ndarray, reach: int, sw: float) -> np.ndarray:
    """``poly`` (a node's outline, ``(n, 2)`` px over the working image's ``ink``) with the
    corners that gap closing cut restored: closings fill an outline's corners from inside (a
    bridge ``reach`` px long lays a chord across a diamond's tip, a disc rounds it), so a
    diamond or parallelogram comes back with its tips cut off. Where two long sides (each over
    ``reach``) of the simplified outline are joined by short ones, the two long sides are
    extended to where they meet, when that point lies outside the outline, within ``reach`` of
    the middle of the cut (a chord ``reach`` long cuts a right-angled tip ``reach`` / 2 deep, a
    60-degree one 0.87 ``reach``) and both extensions run on the pen's ink up to it (`_on_pen`:
    the drawn sides go on to the tip); a rounded corner's pen curves away, an arrowhead touching
    the outline crosses the extension, and two parallel sides (a stadium's ends) never meet. Unchanged when no corner is."""
    import cv2

    if len(poly) < 4:
        return poly
    coarse = cv2.approxPolyDP(poly.astype(np.float32).reshape(-1, 1, 2), max(1.5, sw / 2), True).reshape(-1, 2)
    n = len(coarse)
    if n < 4:
        return poly
    side = np.hypot(*(np.roll(coarse, -1, axis=0) - coarse).T)  # side k runs from vertex k to k + 1
    long = side > reach
    if long.sum() < 3 or long.all():  # a corner needs sides on both hands; a stadium has two
        return poly
    hull = coarse.astype(np.float32).reshape(-1, 1, 2)
    tol = max(2, int(round(sw)))
    out: list[np.ndarray] = []
    changed = False
    start = int(np.argmax(long))  # walk from a long side: runs of short sides lie between long ones
    k = start
    for _ in range(n):
        nxt = (k + 1) % n
        out.append(coarse[k])
        if long[k] and not long[nxt]:
            j = nxt
            while not long[j]:
                j = (j + 1) % n
            # long side k (vertices k, k+1) and long side j (vertices j, j+1), short ones between
            a, b, c, d = coarse[k], coarse[nxt], coarse[j], coarse[(j + 1) % n]
            tip = _meet(a, b, c, d)
            if (tip is not None and cv2.pointPolygonTest(hull, (float(tip[0]), float(tip[1])), False) < 0
                    and np.hypot(*(c - b)) <= 2 * reach and np.hypot(*(tip - (b + c) / 2)) <= reach
                    and _on_pen(ink, b, tip, tol) and _on_pen(ink, tip, c, tol)):
                out.append(tip)
                changed = True
                k = j  # the short sides are replaced by the tip
                if k == start:
                    break
                continue
        k = nxt
        if k == start:
            break
    if not changed:
        return poly
    return np.asarray(out, dtype=float)


def _meet(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> np.ndarray | None:
    """Where the line through ``a``, ``b`` meets the line through ``c``, ``d`` (None: parallel)."""
    r, s = b - a, d - c
    den = float(r[0] * s[1] - r[1] * s[0])
    if abs(den) < 1e-6 * np.hypot(*r) * np.hypot(*s):
        return None
    t = float((c[0] - a[0]) * s[1] - (c[1] - a[1]) * s[0]) / den
    return a + t * r


def _on_pen(ink: np.ndarray, p: np.ndarray, q: np.ndarray, tol: int) -> bool:
    """Whether the segment from ``p`` to ``q`` runs on ink (within ``tol`` px) along
    `CORNER_ON_PEN` of its length and at ``q`` itself: a side drawn on to the tip the closing cut
    off. A rounded corner or a stadium's end curves away from the extended side, and an
    arrowhead touching the outline lies across it, not along it."""
    steps = max(2, int(np.hypot(*(q - p)) // 2))
    on = [_inked(ink, p + (q - p) * t, tol) for t in np.linspace(0.0, 1.0, steps + 1)]
    return bool(on[-1] and np.mean(on) >= CORNER_ON_PEN)


def _inked(ink: np.ndarray, p: np.ndarray, tol: int) -> bool:
    """Whether ``ink`` has a pixel within ``tol`` px (a square) of point ``p``."""
    x, y = int(round(p[0])), int(round(p[1]))
    h, w = ink.shape
    return bool(ink[max(0, y - tol):min(h, y + tol + 1), max(0, x - tol):min(w, x + tol + 1)].any())
