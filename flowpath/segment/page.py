"""Photos of a drawing on paper: find the page, rectify it, clean it, segment it, map back.

A phone photo of a hand-drawn (or printed) chart shows the sheet in perspective on a desk,
under uneven light, often on lined or squared paper. The classical segmenter's passes look for
closed, text-holding shapes, and on such a photo the sheet itself is one (a bright convex blob
holding ink), grid cells are others, and a shadow splits a node's interior. So, before
segmentation:

1. **Page.** The desk is what the image border shows; pixels whose colour is far from it (Lab
   distance, Otsu split) and bright form the sheet. Its largest blob, holes filled, must be a
   convex quadrilateral (four corners of its hull, the blob filling it) covering a good part of
   the frame; otherwise the image is not a photo of a page and nothing here applies.
2. **Rectify.** The quad is warped to an upright rectangle of its own size (OpenCV
   ``getPerspectiveTransform``), a small inset leaving out the sheet's edge.
3. **Clean.** Uneven light is divided out (a grey closing wider than any stroke, then a blur,
   is the local paper brightness), paper ruling is removed (in the rectified page it runs along
   rows or columns: long, thin, fainter than the pen), and what is left is drawn as dark ink on
   a flat white page.
4. **Segment** the cleaned page with the classical segmenter and **map back**: every region's
   outline goes through the inverse homography into the original photo's pixels, where its box
   and mask are rebuilt.

When no sheet is found (a sheet filling the frame, its corners off it, on a desk about as
light as the paper) but the paper is ruled (`ruling_period`), steps 3-4 run on the whole frame
as it is (`clean_frame`): the ruling, found at a tilt, is removed and the light flattened, so
grid cells, ruling bands and counters holding ruling never reach the segmenter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from flowpath.geometry import Region
from flowpath.segment.postprocess import region_from_polygon

if TYPE_CHECKING:
    from flowpath.segment.classical import ClassicalSegmenter

#: the long side of the copy the page is looked for on (its outline is large and smooth)
PAGE_SEARCH_SIDE = 480


@dataclass(frozen=True)
class Page:
    """A sheet of paper found in a photo.

    Attributes:
        corners: ``(4, 2)`` float array, the sheet's corners in original pixels, clockwise from
            top-left.
        size: ``(width, height)`` of the rectified page in pixels.
        homography: ``3x3`` map from original pixels to rectified-page pixels.
    """

    corners: np.ndarray
    size: tuple[int, int]
    homography: np.ndarray

    def to_original(self, points: np.ndarray) -> np.ndarray:
        """Rectified-page points ``(n, 2)`` mapped into the original photo's pixels."""
        import cv2

        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.homography)).reshape(-1, 2)

    def to_page(self, points: np.ndarray) -> np.ndarray:
        """Original-photo points ``(n, 2)`` mapped into the rectified page's pixels."""
        import cv2

        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)


def _order_corners(pts: np.ndarray) -> np.ndarray:
    """Four points ordered top-left, top-right, bottom-right, bottom-left."""
    pts = np.asarray(pts, np.float64).reshape(4, 2)
    centre = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    pts = pts[np.argsort(ang)]  # clockwise in image coordinates (y down), starting anywhere
    start = int(np.argmin(pts.sum(axis=1)))  # top-left: smallest x + y
    return np.roll(pts, -start, axis=0)


def _quad_of(blob: np.ndarray) -> np.ndarray | None:
    """Four corners of a blob that is a (convex) quadrilateral, or None.

    The hull is reduced to four vertices, then each side is refitted as a straight line through
    the blob's outline between its corners (robust to the corners a filter rounded off) and
    adjacent sides are intersected."""
    import cv2

    cs, _ = cv2.findContours(blob.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not cs:
        return None
    contour = max(cs, key=cv2.contourArea)
    hull = cv2.convexHull(contour)
    perimeter = cv2.arcLength(hull, True)
    approx = None
    for frac in (0.01, 0.02, 0.03, 0.05, 0.08):
        approx = cv2.approxPolyDP(hull, frac * perimeter, True)
        if len(approx) <= 4:
            break
    if approx is None or len(approx) != 4:
        return None
    corners = _order_corners(approx.reshape(4, 2))
    pts = contour.reshape(-1, 2).astype(np.float64)
    lines = []
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        side = b - a
        length = float(np.hypot(*side))
        if length < 4:
            return None
        # outline points near this side, away from its two corners
        t = ((pts - a) @ side) / length**2
        off = np.abs((pts - a) @ np.array([-side[1], side[0]]) / length)
        sel = pts[(t > 0.1) & (t < 0.9) & (off < max(3.0, 0.05 * length))]
        if len(sel) < 5:
            return None
        vx, vy, x0, y0 = cv2.fitLine(sel.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
    out = []
    for i in range(4):
        (p0, d0), (p1, d1) = lines[i - 1], lines[i]
        m = np.array([d0, -d1]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return None
        s, _ = np.linalg.solve(m, p1 - p0)
        out.append(p0 + s * d0)
    return np.array(out)


def _side_contrast(lab: np.ndarray, quad: np.ndarray, offset: float = 3.0) -> float:
    """The weakest of a quadrilateral's four sides, as the median Lab distance between the
    colours just inside and just outside it (a sheet's edge is a step all the way round)."""
    h, w = lab.shape[:2]
    centre = quad.mean(axis=0)
    worst = np.inf
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        side = b - a
        normal = np.array([-side[1], side[0]]) / max(float(np.hypot(*side)), 1e-6)
        if normal @ (centre - a) < 0:
            normal = -normal  # pointing inside
        t = np.linspace(0.1, 0.9, 24)[:, None]
        on = a + t * side
        inner = np.rint(on + offset * normal).astype(int)
        outer = np.rint(on - offset * normal).astype(int)
        ok = ((inner >= 0) & (inner < [w, h]) & (outer >= 0) & (outer < [w, h])).all(axis=1)
        if ok.sum() < 6:
            return 0.0  # the side runs along or off the frame: no sheet edge in view there
        step = np.linalg.norm(lab[inner[ok, 1], inner[ok, 0]] - lab[outer[ok, 1], outer[ok, 0]], axis=1)
        worst = min(worst, float(np.median(step)))
    return worst


def _otsu_sheet(small: np.ndarray, lab: np.ndarray) -> np.ndarray | None:
    """Pixels far (Otsu) from the desk colour the image border shows."""
    import cv2

    dist = np.linalg.norm(lab - _border_lab(lab), axis=2)
    _, fore = cv2.threshold(np.clip(dist * 2, 0, 255).astype(np.uint8), 0, 1,
                            cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return fore if fore.any() else None


def _grabcut_sheet(small: np.ndarray, lab: np.ndarray) -> np.ndarray | None:
    """Foreground of OpenCV's GrabCut started from "everything but a thin border" (colour
    models of desk and sheet, for desks close to the paper's colour)."""
    import cv2

    h, w = small.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    models = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    cv2.setRNGSeed(0)  # GrabCut seeds its colour models from OpenCV's global random state
    cv2.grabCut(np.ascontiguousarray(small), mask, (3, 3, w - 6, h - 6), models[0], models[1], 4,
                cv2.GC_INIT_WITH_RECT)
    fore = ((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD)).astype(np.uint8)
    return fore if fore.any() else None


def _border_lab(lab: np.ndarray) -> np.ndarray:
    """The median Lab colour of a 3 px ring round the image: the desk, in a photo of a sheet."""
    ring = np.concatenate([lab[:3].reshape(-1, 3), lab[-3:].reshape(-1, 3),
                           lab[:, :3].reshape(-1, 3), lab[:, -3:].reshape(-1, 3)])
    return np.median(ring, axis=0)


def _desk_in_the_middle(lab: np.ndarray, near: float = 6.0) -> float:
    """Share of the image's middle (the central half of each side) whose colour is within
    ``near`` (Lab) of the border's: the sheet covers the middle of a photo of a page, so there
    the desk colour is all but absent (0-0.07 on the 48 photo tuning charts), while a chart's
    own page background runs between its nodes (0.28-0.85 on 38 of the 40 web-look tuning
    charts of seg_tune_wild and ocr_tune_wild that are not clean renders; the other two, 0,
    still get the search)."""
    h, w = lab.shape[:2]
    middle = lab[h // 4:h - h // 4, w // 4:w - w // 4]
    return float((np.linalg.norm(middle - _border_lab(lab), axis=2) < near).mean())


def find_page(image: np.ndarray, *, min_area: float = 0.2, max_area: float = 0.97,
              min_fill: float = 0.93, min_step: float = 8.0, max_chroma: float = 20.0,
              max_desk_share: float = 0.1) -> Page | None:
    """The sheet of paper in a photo, or None when there is no such sheet in full view.

    The search stops at once when the border's colour also fills much of the image's middle
    (a chart's own page around its nodes, not a desk around a sheet): web charts and other
    non-photos pay for a small copy, not for the search. Otherwise two ways to split sheet
    from desk are tried, the cheap one first: pixels far from the border's colour (Otsu),
    then GrabCut. A split is accepted when its largest blob is a
    convex quadrilateral of the right size whose four sides are all colour steps, and its
    colour is near-neutral and lighter than the rest (paper on a desk).

    Args:
        image: RGB uint8.
        min_area, max_area: share of the frame the sheet's quadrilateral may cover (a page that
            fills the frame is a scan: nothing to cut away).
        min_fill: share of the quadrilateral the sheet's blob must cover, and vice versa (a
            sheet is convex and four-cornered; a chart's ink on a plain background is neither).
        min_step: least median Lab step across each of the four sides.
        max_chroma: most Lab chroma (8-bit units) of the sheet's median colour (off-white
            paper under warm or cool light stays well under it).
        max_desk_share: least share of the image's middle in the border's colour at which
            there is no sheet to look for (`_desk_in_the_middle`).
    """
    import cv2

    from flowpath.segment.postprocess import fill_holes

    H, W = image.shape[:2]
    f = PAGE_SEARCH_SIDE / max(H, W)
    small = cv2.resize(image, (max(8, round(W * f)), max(8, round(H * f))), interpolation=cv2.INTER_AREA)
    if min(small.shape[:2]) < 32:
        return None
    # strokes, text and ruling are thin at this size: a median filter leaves sheet and desk
    small = cv2.medianBlur(small, 5)
    lab = cv2.cvtColor(small, cv2.COLOR_RGB2LAB).astype(np.float32)
    h, w = lab.shape[:2]
    if _desk_in_the_middle(lab) >= max_desk_share:
        return None
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    for split in (_otsu_sheet, _grabcut_sheet):
        fore = split(small, lab)
        if fore is None:
            continue
        fore = cv2.morphologyEx(cv2.morphologyEx(fore, cv2.MORPH_CLOSE, k), cv2.MORPH_OPEN, k)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(fore, connectivity=4)
        if n < 2:
            continue
        blob = fill_holes((labels == 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))).astype(np.uint8))
        quad = _quad_of(blob)
        if quad is None:
            continue
        quad_area = cv2.contourArea(quad.astype(np.float32))
        area = float(blob.sum())
        if not (min_area * h * w <= quad_area <= max_area * h * w
                and min_fill * quad_area <= area <= quad_area / min_fill):
            continue
        if _side_contrast(lab, quad) < min_step:
            continue
        # paper: near-neutral and lighter than what lies around it (a coloured frame or
        # subgraph box on a chart's own page is neither)
        inside, outside = np.median(lab[blob > 0], axis=0), np.median(lab[blob == 0], axis=0)
        if inside[0] <= outside[0] or np.hypot(inside[1] - 128, inside[2] - 128) > max_chroma:
            continue
        return _page_from_corners(_order_corners(quad / f))
    return None


def _page_from_corners(corners: np.ndarray, scale: float = 1.0) -> Page:
    """The `Page` whose rectified size keeps the longer of each pair of opposite sides, times
    ``scale``."""
    import cv2

    tl, tr, br, bl = corners
    pw = round(scale * max(np.linalg.norm(tr - tl), np.linalg.norm(br - bl)))
    ph = round(scale * max(np.linalg.norm(bl - tl), np.linalg.norm(br - tr)))
    dst = np.array([[0, 0], [pw, 0], [pw, ph], [0, ph]], np.float32)
    hom = cv2.getPerspectiveTransform(corners.astype(np.float32), dst).astype(np.float64)
    return Page(corners=corners, size=(pw, ph), homography=hom)


def rectify(image: np.ndarray, page: Page) -> np.ndarray:
    """The sheet warped to an upright rectangle of ``page.size``."""
    import cv2

    return cv2.warpPerspective(image, page.homography, page.size, flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def _ruling(contrast: np.ndarray, weak: float, length: int, span: float = 0.5, full_span: float = 0.9,
            min_lines: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Paper ruling of a rectified page, ``(horizontal, vertical)``: faint ink on runs at least
    ``length`` long that join into lines across ``span`` of the page's width (height).

    A node's side or a connector is as straight, but it stops where the drawing does, inside the
    sheet's margins: a direction has ruling only when ``min_lines`` of its lines run across
    ``full_span`` of the page (without that, the sides of the nodes of a narrow chart stacked
    down a narrow sheet, each over half its width, were erased as ruling). Lines a blurred or
    faint stretch broke short of that are still ruling once the direction has some."""
    import cv2

    m = (contrast > weak).astype(np.uint8)
    out = []
    for kernel, axis in (((length, 1), cv2.CC_STAT_WIDTH), ((1, length), cv2.CC_STAT_HEIGHT)):
        runs = cv2.morphologyEx(m, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, kernel))
        out.append(_full_lines(runs, axis == cv2.CC_STAT_HEIGHT, span, full_span, min_lines))
    return out[0], out[1]


def _full_lines(runs: np.ndarray, vertical: bool, span: float, full_span: float, min_lines: int) -> np.ndarray:
    """Pixels of the pieces of ``runs`` (uint8) that join into lines across ``span`` of the
    image's width (height when ``vertical``); none unless ``min_lines`` of them cross
    ``full_span`` of it."""
    import cv2

    n, labels, stats, _ = cv2.connectedComponentsWithStats(runs, connectivity=8)
    axis = cv2.CC_STAT_HEIGHT if vertical else cv2.CC_STAT_WIDTH
    full = runs.shape[0] if vertical else runs.shape[1]
    keep = np.zeros(n, bool)
    keep[1:] = stats[1:, axis] >= span * full
    if (stats[1:, axis] >= full_span * full).sum() < min_lines:
        keep[:] = False
    return keep[labels]


def _carry_across(c: np.ndarray, band: np.ndarray, widest: int) -> np.ndarray:
    """``c`` with each run of ``band`` pixels along a row (a ruling line crossed) replaced by the
    lesser of the two values just beyond the run (0 past the image's edge) where the run itself
    is at least about as dark (`CARRY`): a stroke crossing the line goes on through it at both
    ends. Elsewhere the run becomes paper: paper on either side, or a faint line between two
    dark glyphs of two lines of text (filled, it would join them). A run wider than ``widest``
    is not a line crossed but something lying along it, and becomes paper too."""
    h, w = c.shape
    idx = np.broadcast_to(np.arange(w), (h, w))
    left = np.maximum.accumulate(np.where(band, -1, idx), axis=1)
    right = np.minimum.accumulate(np.where(band, w, idx)[:, ::-1], axis=1)[:, ::-1]
    rows = np.arange(h)[:, None]
    value = np.concatenate([c, np.zeros((h, 1), c.dtype)], axis=1)  # index -1 and w: 0
    fill = np.minimum(value[rows, np.where(left < 0, w, left)], value[rows, right])
    carried = (c >= CARRY * fill) & (right - left - 1 <= widest)
    return np.where(band, np.where(carried, fill, 0.0), c)


#: the widest a ruling line (grown by a pixel each side) runs across, in rectified pixels
RULING_WIDEST = 7
#: a stroke is carried across a ruling line where the line is at least this share as dark as
#: the stroke on both sides of it (stroke and ruling darken the paper together)
CARRY = 0.8


def _erase_ruling(c: np.ndarray, rows: np.ndarray, cols: np.ndarray, ruling: float) -> np.ndarray:
    """The contrast map with paper ruling taken out and the pen strokes crossing it kept.

    Each ruling line (grown by a pixel for the blur) is carried across from the pixels just
    beyond it on either side where a stroke crosses it (`_carry_across`: without this every
    grid line cut a gap into the faint outlines of black-and-white charts, and their interiors
    leaked); otherwise it is paper. Horizontal lines go first, so where two lines cross, the
    vertical one's sides are already paper. A pixel clearly darker than the ruling (a stroke
    along a line) is kept as it is.
    """
    import cv2

    k = np.ones((3, 3), np.uint8)
    near_rows = cv2.dilate(rows.astype(np.uint8), k).astype(bool)
    near_cols = cv2.dilate(cols.astype(np.uint8), k).astype(bool)
    dark = c >= np.maximum(0.3, np.where(near_rows & near_cols, 2.4 * ruling, 1.6 * ruling))
    out = _carry_across(c.T, near_rows.T, RULING_WIDEST).T
    out = _carry_across(out, near_cols, RULING_WIDEST)
    return np.where(dark, c, out)


def clean_page(page_image: np.ndarray, *, margin: float = 0.02, weak: float = 0.06,
               floor: float = 0.1) -> np.ndarray:
    """Dark ink on a flat white page: light divided out, ruling and the sheet's edge removed.

    Args:
        page_image: RGB uint8, a rectified sheet.
        margin: share of each side blanked along the sheet's edge (desk left in by the
            corner estimate, the sheet's own shadowed rim).
        weak: contrast above which a pixel may be ruling.
        floor: contrast under which a pixel is paper (JPEG and sensor noise, paper texture).
    """
    from flowpath.segment.strokes import page_contrast

    h, w = page_image.shape[:2]
    c = page_contrast(page_image)
    my, mx = max(2, round(margin * h)), max(2, round(margin * w))
    # without the rim: the sheet's edge (or desk) along a side would pass for a ruling line
    inner = c.copy()
    inner[:my] = 0.0
    inner[-my:] = 0.0
    inner[:, :mx] = 0.0
    inner[:, -mx:] = 0.0
    rows, cols = _ruling(inner, weak, max(40, min(h, w) // 6))
    lines = rows | cols
    if lines.mean() > 0.005:
        # ruled or squared paper: its lines are fainter than the pen. On them, keep only what is
        # clearly darker than the ruling itself (a pen stroke crossing a line); where two lines
        # cross, the paper is darkened twice
        ruling = float(np.median(c[lines]))
        pen = float(np.percentile(c, 99.5))
        if ruling < 0.5 * pen:
            c = _erase_ruling(c, rows, cols, ruling)
    return _ink_on_white(c, floor, rim=(my, mx))


#: tilts (degrees) the ruling of a sheet that was not rectified is looked for at, either way
#: of horizontal and of vertical: the photos' in-plane tilt (up to 4) plus what perspective
#: turns a line by across a frame-filling sheet
FRAME_RULING_TILTS = (-8, -6, -4, -2, 0, 2, 4, 6, 8)


def _tilted_runs(mask: np.ndarray, length: int, vertical: bool) -> np.ndarray:
    """Pixels of ``mask`` on straight runs at least ``length`` long, near-horizontal (or
    near-vertical) at any of `FRAME_RULING_TILTS`."""
    import cv2

    # thickened across the run (a 1-px line fits a kernel whose tilt is up to ~1.5 degrees
    # off over the run's length; the tilts are 2 degrees apart)
    m = cv2.dilate(mask.astype(np.uint8), np.ones((1, 3) if vertical else (3, 1), np.uint8))
    out = np.zeros(m.shape, np.uint8)
    size = length + 2
    c = size // 2
    for deg in FRAME_RULING_TILTS:
        t = np.deg2rad(deg)
        dx, dy = np.cos(t) * (length - 1) / 2, np.sin(t) * (length - 1) / 2
        if vertical:
            dx, dy = dy, dx
        k = np.zeros((size, size), np.uint8)
        cv2.line(k, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1, 1)
        out |= cv2.morphologyEx(m, cv2.MORPH_OPEN, k).astype(np.uint8)
    return out.astype(bool) & mask


def _frame_ruling(contrast: np.ndarray, weak: float, length: int, span: float = 0.5,
                  full_span: float = 0.8, min_lines: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Paper ruling of a photo whose sheet was not found (so not rectified):
    ``(near-horizontal, near-vertical)`` lines of faint ink, each run tilted a few degrees
    (`_tilted_runs`), joined into lines across ``span`` of the frame; a direction has ruling
    only when ``min_lines`` of them run across ``full_span`` of it (as in `_ruling`: a node's
    side or a connector stops inside the drawing). The frame may cut the sheet's corners off,
    so a full line is shorter than on a rectified sheet."""

    m = contrast > weak
    rows, cols = (_full_lines(_tilted_runs(m, length, vertical).astype(np.uint8), vertical, span, full_span,
                              min_lines) for vertical in (False, True))
    return rows, cols


def clean_frame(image: np.ndarray, *, weak: float = 0.06, floor: float = 0.1) -> np.ndarray | None:
    """A photo of ruled or squared paper whose sheet was not found, cleaned as `clean_page`
    cleans a sheet but over the whole frame and unrectified: light divided out, ruling carried
    across (`_erase_ruling`, with the lines found at a tilt, `_frame_ruling`), dark ink on flat
    white. None when no ruling is seen (`ruling_period` finds no period, as on web charts and
    plain paper, or no lines span the frame): the frame is then segmented as it is, which on
    the hard photo tuning sets finds the nodes of plain sheets.

    Args:
        image: RGB uint8 photo.
        weak: contrast above which a pixel may be ruling.
        floor: contrast under which a pixel is paper.
    """
    from flowpath.segment.strokes import page_contrast

    c = page_contrast(image)
    if ruling_period(image, contrast=c) == (None, None):
        return None  # no periodic ruling: a web chart, or plain paper
    rows, cols = _frame_ruling(c, weak, max(40, min(c.shape) // 6))
    lines = rows | cols
    if lines.mean() > 0.005:
        ruling = float(np.median(c[lines]))
        if ruling < 0.5 * float(np.percentile(c, 99.5)):  # as dark as the pen: the drawing's own
            c = _erase_ruling(c, rows, cols, ruling)
    return _ink_on_white(c, floor)


def _ink_on_white(c: np.ndarray, floor: float, rim: tuple[int, int] = (0, 0)) -> np.ndarray:
    """A contrast map drawn as grey ink on flat white: under ``floor`` is paper, the 95th
    percentile of the rest (at least 0.3) is black, and a rim of ``(rows, columns)`` along
    each side is blanked."""
    c = np.where(c < floor, 0.0, c)
    top = max(float(np.percentile(c[c > 0], 95)) if (c > 0).any() else 1.0, 0.3)
    v = np.clip((c - floor) / (top - floor), 0.0, 1.0)
    my, mx = rim
    if my:
        v[:my] = 0.0
        v[-my:] = 0.0
    if mx:
        v[:, :mx] = 0.0
        v[:, -mx:] = 0.0
    return np.repeat((255 - np.rint(v * 255)).astype(np.uint8)[..., None], 3, axis=2)


#: a sheet whose text is shorter than this (rectified pixels) is segmented enlarged ...
SMALL_TEXT = 7.0
#: ... so that its text is about this tall ...
TEXT_TARGET = 10.0
#: ... by at most this factor
MAX_ZOOM = 2.0


def text_height(sheet: np.ndarray) -> float:
    """Typical height of the letters on a cleaned sheet: the median height of its ink pieces
    of letter size (at least 12 pixels and 4 rows, at most 60 px either way: not specks, not
    outlines). 0 when there are none."""
    import cv2

    ink = (sheet[..., 0] < 128).astype(np.uint8)
    _, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    h, w, area = stats[1:, cv2.CC_STAT_HEIGHT], stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_AREA]
    letters = h[(area >= 12) & (h >= 4) & (h <= 60) & (w <= 60)]
    return float(np.median(letters)) if len(letters) else 0.0


def sheet_zoom(sheet: np.ndarray, max_pixels: int) -> float:
    """How much to enlarge a cleaned sheet before segmenting it: 1 unless its text is small
    (`SMALL_TEXT`), then enough for `TEXT_TARGET`, within `MAX_ZOOM` and ``max_pixels``.

    A wide chart squeezed onto a photo has 5-px text a blurred pixel away from the outline of
    a 17-px-high node; enlarged, the paper between them spans pixels the flat pass can follow
    round the text. Charts with larger text stay as they are: there the enlargement mostly
    grows glyph counters and hachure strips into false nodes."""
    th = text_height(sheet)
    if not 0 < th < SMALL_TEXT:
        return 1.0
    h, w = sheet.shape[:2]
    return max(1.0, min(TEXT_TARGET / th, MAX_ZOOM, float(np.sqrt(max_pixels / max(w * h, 1)))))


#: an enlarged sheet is sharpened by this many times its difference from a blur of ...
SHARPEN_AMOUNT = 20.0
#: ... this sigma, in rectified (not enlarged) pixels
SHARPEN_SIGMA = 1.0


def _sharpen(sheet: np.ndarray, zoom: float) -> np.ndarray:
    """An enlarged sheet with each pixel pushed hard away from its neighbourhood's mean (an
    unsharp mask strong enough to all but binarise it): the grey of the blur between a letter
    and the outline it nearly touches becomes paper. On the photo tuning sets, small-text
    sheets went from R 0.858 to 0.934 (black-and-white; 1.5-6x: 0.869-0.918); on every sheet
    it cost hand-drawn precision (0.977 -> 0.929), so it goes with the enlargement only."""
    import cv2

    f = sheet.astype(np.float32)
    sharp = f + SHARPEN_AMOUNT * (f - cv2.GaussianBlur(f, (0, 0), SHARPEN_SIGMA * zoom))
    return np.clip(sharp, 0, 255).astype(np.uint8)


def segment_page(segmenter: ClassicalSegmenter, image: np.ndarray, *, passes: bool = True,
                 zoom: float | None = None, open_frames: bool = True) -> tuple[list[Region], str] | None:
    """Nodes of a photographed sheet, in the photo's pixels; None when no sheet is found and
    the frame is not ruled paper either (`clean_frame`).

    Args:
        segmenter: segments the rectified, cleaned sheet.
        image: RGB uint8 photo.
        passes: run the segmenter's stroke and colour passes on the cleaned sheet (it looks
            like a clean render, but its outlines are a pen's).
        zoom: the cleaned sheet (rectified at the photo's own resolution) is enlarged by this
            factor before it is segmented; None: by `sheet_zoom` (only sheets with small
            text). Enlarging every sheet 1.5x found 18 more of the 490 nodes of the photo
            tuning sets at precision 0.938 (glyph counters and hachure strips grow into false
            nodes; see docs/segmentation.md).
        open_frames: look inside large rectangular regions for the nodes of a subgraph
            frame (`_open_frames`).
    """
    import cv2

    page = find_page(image)
    # no sheet in full view (a sheet filling the frame, its corners off it): on ruled or
    # squared paper the frame itself is cleaned, as it is
    sheet = clean_page(rectify(image, page)) if page is not None else clean_frame(image)
    if sheet is None:
        return None
    if zoom is None:
        zoom = sheet_zoom(sheet, segmenter.max_pixels)
    if zoom != 1.0:
        sheet = _sharpen(cv2.resize(sheet, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_CUBIC), zoom)
    regions, reason = segment_sheet(segmenter, sheet, passes=passes, open_frames=open_frames)
    H, W = image.shape[:2]
    back = [region_from_polygon([tuple(p) for p in _to_photo(page, np.asarray(r.polygon) / zoom)], H, W,
                                r.score, with_mask=segmenter.with_masks) for r in regions]
    return back, reason


def _to_photo(page: Page | None, points: np.ndarray) -> np.ndarray:
    """Points of the segmented sheet in the photo's pixels (the frame itself when ``page`` is
    None)."""
    return points if page is None else page.to_original(points)


def segment_sheet(segmenter: ClassicalSegmenter, sheet: np.ndarray, *, passes: bool = True,
                  open_frames: bool = True) -> tuple[list[Region], str]:
    """Nodes of a rectified, cleaned sheet (`clean_page`), in the sheet's pixels.

    Args:
        segmenter: the classical segmenter.
        sheet: RGB uint8, dark ink on white.
        passes: run the stroke and colour passes (the sheet looks like a clean render, but its
            outlines are a pen's).
        open_frames: look inside large rectangular regions for a subgraph frame's nodes.
    """
    regions, reason = segmenter.segment(sheet, passes=passes)
    if open_frames:
        regions = _open_frames(segmenter, sheet, regions, passes)
    return regions, reason


#: a region covering at least this share of the sheet, and near-rectangular, may be a
#: subgraph's frame drawn around nodes rather than a node
FRAME_MIN_SHARE = 0.06
#: ... and it holds nodes when two or more regions of at least this share of its box are found
#: inside it (a node in a frame: 0.5 % and up on the photo tuning sets; the counters of a large
#: node's letters: ~0.1 %)
FRAME_MIN_NODE_SHARE = 0.0025
#: ... and of the sheet (a node: 0.5 % and up; a letter's counter on a small photo: ~0.04 %)
FRAME_MIN_NODE_SHEET = 0.002


def _open_frames(segmenter: ClassicalSegmenter, sheet: np.ndarray, regions: list[Region],
                 passes: bool) -> list[Region]:
    """Regions of the cleaned sheet with each subgraph frame taken for a node replaced by the
    nodes inside it.

    On a sketch the stroke pass fills a closed frame whole and the nodes inside it, small
    beside it, give way to it. A large rectangular region is therefore segmented again on its
    inside alone (its outline cut away, a white margin round it): when that finds two or more
    nodes, it was a frame. A large node holding only text finds none there and stays.
    """
    sh, sw = sheet.shape[:2]
    out: list[Region] = []
    for r in regions:
        x0, y0, x1, y1 = r.bbox
        bw, bh = x1 - x0, y1 - y0
        poly = np.asarray(r.polygon, np.float64) if r.polygon else None
        rect_like = poly is not None and len(poly) >= 3 and abs(_poly_area(poly)) >= 0.9 * bw * bh
        if not rect_like or bw * bh < FRAME_MIN_SHARE * sw * sh:
            out.append(r)
            continue
        inset = max(6, round(0.02 * min(bw, bh)))
        ix0, iy0, ix1, iy1 = round(x0) + inset, round(y0) + inset, round(x1) - inset, round(y1) - inset
        if ix1 - ix0 < 32 or iy1 - iy0 < 32:
            out.append(r)
            continue
        pad = 2 * inset
        inside = np.full((iy1 - iy0 + 2 * pad, ix1 - ix0 + 2 * pad, 3), 255, np.uint8)
        inside[pad:-pad, pad:-pad] = sheet[iy0:iy1, ix0:ix1]
        found, _ = segmenter.segment(inside, passes=passes)
        # nodes, not the counters of the letters a large node's text holds, nor the node
        # itself found again inside a blurred outline the inset did not cut away
        areas = [(f.bbox[2] - f.bbox[0]) * (f.bbox[3] - f.bbox[1]) for f in found]
        least = max(FRAME_MIN_NODE_SHARE * bw * bh, FRAME_MIN_NODE_SHEET * sw * sh)
        if max(areas, default=0.0) >= 0.5 * bw * bh or sum(a >= least for a in areas) < 2:
            out.append(r)
            continue
        dx, dy = ix0 - pad, iy0 - pad
        out += [region_from_polygon([(x + dx, y + dy) for x, y in f.polygon], sh, sw, f.score,
                                    with_mask=False) for f in found]
    return out


def _poly_area(poly: np.ndarray) -> float:
    """Shoelace area of a polygon ``(n, 2)``."""
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


#: the shortest and longest ruling period looked for (working pixels): squared and ruled paper
#: photographed whole, 16-30 px a line on the tuning sets' pages
MIN_PERIOD, MAX_PERIOD = 8, 64
#: contrast (`strokes.page_contrast`) above which a pixel may be ruling: a blurred 1-px line of
#: pale ruling is 0.03-0.1 darker than its paper
RULING_WEAK = 0.03
#: least normalised autocorrelation at the period for the paper to count as ruled ...
MIN_PERIODICITY = 0.35
#: ... and least rise of the autocorrelation from its lowest point at shorter lags (a chart's
#: large inked shapes make the autocorrelation fall slowly from lag 0, with no peak). On the
#: hard photo tuning sets (photogrid5_tune1, photo6_hard1) most ruled directions peak at
#: 0.36-0.86 rising 0.28-1.4; on the web-look tuning charts (segwild_tune, seg_tune_wild) the
#: peaks of 0.35 and more rise at most 0.01
MIN_PROMINENCE = 0.2


def ruling_period(image: np.ndarray, band: int = 40, *, contrast: np.ndarray | None = None
                  ) -> tuple[float | None, float | None]:
    """The paper's ruling period along rows and along columns (px), or None where there is none.

    Faint ink (`strokes.page_contrast` above `RULING_WEAK`) is summed across narrow bands
    (``band`` px: a line tilted a few degrees stays within a few pixels of itself there) into a
    profile per band; the profiles' autocorrelations, summed, peak at the spacing of the ruling
    and its multiples. The period is the shortest lag (at most half of `MAX_PERIOD`) whose peak
    is high (`MIN_PERIODICITY`), stands out (`MIN_PROMINENCE`) and comes back at twice the lag.
    A drawing's own lines are few and irregular and give no such peak. ``contrast``: the
    image's `strokes.page_contrast`, when the caller has it already."""
    from flowpath.segment.strokes import page_contrast

    if contrast is None:
        contrast = page_contrast(image)
    weak = (contrast > RULING_WEAK).astype(np.float32)
    out: list[float | None] = []
    for m in (weak, weak.T):  # profile down the rows: horizontal lines; then vertical ones
        n, width = m.shape
        if n < 3 * MAX_PERIOD or width < band:
            out.append(None)
            continue
        acf = np.zeros(MAX_PERIOD + 1, np.float64)
        for x0 in range(0, width - band + 1, band):
            p = m[:, x0:x0 + band].mean(axis=1)
            p = p - p.mean()
            acf += np.array([float(p[:n - k] @ p[k:]) / (n - k) for k in range(MAX_PERIOD + 1)])
        if acf[0] <= 0:
            out.append(None)
            continue
        acf /= acf[0]
        period = None
        for lag in range(MIN_PERIOD + 1, MAX_PERIOD // 2):
            peak = acf[lag] > acf[lag - 1] and acf[lag] >= acf[lag + 1]
            # ruling repeats: the autocorrelation is high again at twice the period (the
            # spacing of a few of a drawing's features, e.g. one box's sides and its word,
            # does not come back)
            again = float(acf[2 * lag - 2:2 * lag + 3].max())
            if (peak and acf[lag] >= MIN_PERIODICITY and again >= 0.5 * acf[lag]
                    and acf[lag] - acf[MIN_PERIOD:lag].min() >= MIN_PROMINENCE):
                period = float(lag)
                break
        out.append(period)
    return out[0], out[1]
