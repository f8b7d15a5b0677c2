"""Text crops for OCR: a node interior or an edge-label box, cleaned to dark ink on white.

Every crop is normalised against its *own* fill colour (dark text on a saturated yellow node,
white text on a dark one), trimmed to its ink and rescaled so that text lines are about 30 px
high, where both engines (`flowpath.transcribe.ocr.engines`) read best. Needs only numpy and
OpenCV.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from flowpath.segment.postprocess import fill_color

#: a node whose fill (median over a text line) varies more than this over its interior (RGB
#: levels: gradients, bevels, shadows, JPEG-blotched small renders) is read against its local
#: fill; flatter fills against their one median colour
_FLAT_FILL = 30.0
#: a node whose 3x3 block medians differ by at most this (RGB levels) is flat without the
#: median filter that measures the local fill (which costs ~0.3 CPU s per chart): every
#: clean render (febench_dev: 0 everywhere) skips it; on the wild tuning set no node the
#: local-fill gate calls styled has a block spread under 2, so the gate's decisions are kept
_FLAT_BLOCKS = 1.0
#: target height of a text line (px) when crops are rescaled for tesseract
_TARGET_LINE = 30.0
#: node text lines shorter than this (px) are small print: scaled up in colour before cleaning,
#: normalised to their strongest ink, and their out-of-vocabulary words spell-corrected
#: (`flowpath.transcribe.ocr.text.correct_spelling`)
SMALL_LINE = 14.0
#: small print: the glyphs' colour is this percentile of their pixels' distance from the fill
#: (5-7 px letters are mostly anti-aliased edge; the median colour made every edge pixel full
#: ink and the letters ran together)
_SMALL_INK_PCT = 97.0
#: edge labels: ink is at least this far from the box colour towards the text colour (the
#: connector seen through a translucent label box measured ~0.6)
_LABEL_STRONG = 0.72
#: label text lines shorter than this (px, as passed to `to_label_crop`) count as small print
_LABEL_SMALL = 10.0
#: hachure fills (`hachure_strokes`): a node is looked at when at least this share of its
#: interior is ink, and has fill strokes when at least this share of its ink is pale ink
#: away from the text
_HACHURE_INK_SHARE = 0.2
_HACHURE_PALE_SHARE = 0.3
#: least share of its box a glyph's ink covers (`median_line_height`): a print or handwritten
#: glyph covers 0.15-1, a hachure stroke across a node a few hundredths
_GLYPH_MIN_FILL = 0.08
#: `chart_line_height`: the strong-ink measurement replaces the first where it separates at least
#: this many times as many glyphs and measures lines at least ``_MERGED_HEIGHT`` times shorter.
#: Chosen on gold-region ink of tuning sets (lines measured against the font size each chart was
#: drawn at; pumlword10_a/_b, pumlword9_a/_b, gvword9_a/_b/_mp, textrec9_gv/_puml/_mmd/_clean/
#: _hand, gvword9_dgv/_hand, pumlword9_smallclean: 384 charts): it changes 16 charts, each toward
#: the drawn size (10-px text measured 12-19 px -> 8.3-9.7; hand-drawn 30-px text 69-79 -> 29);
#: 1.25 instead of 1.4 also moved 5 charts of 14-30 px text that were measured right
_MERGED_GLYPHS = 3.0
_MERGED_HEIGHT = 1.4
#: edge-label words read with less confidence than this are dropped (see `to_label_crop`)
_LABEL_MIN_CONF = 40.0


@dataclass
class TextCrop:
    """A binarised crop ready for OCR: dark text on white, plus the scale applied to it."""

    image: np.ndarray  # uint8 (h, w), 0 = ink, 255 = paper
    scale: float = 1.0
    #: ink touches the edge of the node interior: a word may be cut off by the border
    clipped: bool = False
    #: words tesseract is less confident of (0-100) are dropped
    min_conf: float = 0.0


def to_text_crop(rgb: np.ndarray, mask: np.ndarray | None = None, *, line_height: float | None = None,
                 max_width: int = 1400, hard: bool = False, local_fill: bool = True) -> TextCrop | None:
    """Clean one crop for OCR.

    Pixels outside ``mask`` (the node interior) become the fill colour, the text polarity is
    normalised to dark-on-light (coloured fills with white text exist in generated styles), the
    crop is trimmed to its ink with a margin and rescaled so text lines are about 30 px high,
    which is where tesseract's LSTM reads best.

    Args:
        rgb: ``(h, w, 3)`` uint8 crop.
        mask: ``(h, w)`` bool, True where text may be (node interior); None = whole crop.
        line_height: estimated text line height in px in the original image (rescaling).
        max_width: widest crop allowed in the mosaic.
        hard: binarise at half contrast (drops faint lines behind edge labels).
        local_fill: measure ink against the fill around each pixel (a median over about a
            text line, which glyph strokes are too thin to move) instead of the node's one
            median colour; needs ``line_height``.

    Returns:
        The cleaned crop, or None when there is no ink (empty node).
    """
    if rgb.size == 0 or rgb.shape[0] < 4 or rgb.shape[1] < 4:
        return None
    small = False
    if line_height and line_height < SMALL_LINE:
        small = True
        # small images: scale the colour crop up *before* separating ink from fill, so 1-2 px
        # strokes are not lost to the ink threshold and JPEG blocks are smoothed (issue 14)
        up = _TARGET_LINE / line_height
        rgb = cv2.resize(rgb, None, fx=up, fy=up, interpolation=cv2.INTER_CUBIC)
        if mask is not None:
            mask = cv2.resize(mask.astype(np.uint8), (rgb.shape[1], rgb.shape[0]),
                              interpolation=cv2.INTER_NEAREST).astype(bool)
        line_height = _TARGET_LINE
    px = rgb.astype(np.float32)
    inside = np.ones(rgb.shape[:2], bool) if mask is None else mask
    if inside.sum() < 16:
        return None
    fill = fill_color(rgb, inside)
    styled = False
    if local_fill and line_height and _block_spread(rgb, inside) > _FLAT_BLOCKS:
        # the fill as it varies over the node (a gradient from light top to dark bottom, a
        # bevel, a shadow's edge): the text is measured against the fill behind it, not the
        # node's median colour, so the dark end of a gradient is not taken for ink. A flat
        # fill (every Mermaid default node) keeps the one median colour, as before
        local = _local_fill(rgb, inside, fill, line_height)
        styled = float(np.ptp(local[inside], axis=0).max()) > _FLAT_FILL
        if styled:
            fill = local
    # ink = pixels far from the fill colour in RGB (gray contrast alone misses dark text on red)
    diff = px - fill
    dist = np.sqrt(_channel_dot(diff, diff))
    ink = (dist > 60) & inside
    if ink.sum() < 8:
        return None
    # the ink colour is the one that dominates the middle of the node; background showing in
    # the corners of a round node inside its box is another colour and projects to paper
    h, w = dist.shape
    core = np.zeros_like(inside)
    core[int(h * 0.2):int(h * 0.8) + 1, int(w * 0.1):int(w * 0.9) + 1] = True
    core &= ink
    if core.sum() < 8:
        core = ink
    # on styled fills, the glyphs' own colour: their strongest pixels, not the anti-aliased and
    # JPEG-smeared edges (small print is mostly edge; normalising to its median colour made
    # every edge pixel full ink and the glyphs ran together)
    if small:
        strong = core & (dist >= np.percentile(dist[core], _SMALL_INK_PCT))
    else:
        strong = core & (dist >= np.percentile(dist[core], 75)) if styled else core
    ink_color = fill_color(rgb, strong)
    hachure = None if small else hachure_strokes(rgb, dist, ink, core, inside)
    fill_strokes = None
    if hachure is not None:
        ink_color, fill_strokes = hachure
    axis = ink_color - fill  # (3,) or, against a local fill, (h, w, 3)
    denom = (axis ** 2).sum(axis=-1)
    if float(np.median(denom[core] if denom.ndim else denom)) < 1:
        return None
    norm = np.clip(_channel_dot(diff, axis) / np.maximum(denom, 1.0), 0, 1)  # 0 paper, 1 ink
    if fill_strokes is not None:
        norm[fill_strokes] = 0
    if hard:
        # edge labels: a line seen through a translucent label box is faint ink; drop it
        norm = (norm > 0.45).astype(np.float32)
    out = (255 * (1 - norm)).astype(np.uint8)
    out[~inside] = 255
    if mask is not None:
        _drop_border_remnants(out, inside, line_height)
    clipped = False
    if mask is not None:
        # glyph ink within ~2 px of the interior's left/right edge: text runs under the border
        # (Mermaid sizes boxes with one font and the rasteriser draws with another)
        d = cv2.distanceTransform(np.pad(inside.astype(np.uint8), 1), cv2.DIST_L2, 3)[1:-1, 1:-1]
        clipped = bool(((out < 128) & (d <= 2.5)).any())
    return _finish_crop(out, line_height, max_width, clipped)


def to_grey_crop(rgb: np.ndarray, mask: np.ndarray | None = None, *,
                 line_height: float | None = None, max_width: int = 1400) -> TextCrop | None:
    """The *uncleaned* crop for the grey-input recogniser (`recogniser.GREY_MODEL_DIR`): grey
    levels kept as drawn, only made dark-on-light and stretched.

    `to_text_crop` projects every pixel onto the fill-to-ink colour axis and saturates at the
    glyphs' strongest pixels; on blurred ~10-px print that merges neighbouring strokes, and every
    engine reads the merged crop badly (docs/transcription.md, "Blurred small print"). Here the
    crop keeps the blur's grey ramps: luminance, inverted where the text is lighter than its fill,
    measured against the fill around each pixel (a median over about a text line, as
    `_local_fill`, on styled fills only: gradients), and stretched linearly so the darkest ink (98th
    percentile of the depth of pixels > 16 levels below the fill) is 0 and the fill 255, nothing clipped below that. Trimmed and rescaled (cubic)
    by `_finish_crop`, as the cleaned crop is, so lines are cut the same way.

    Returns:
        The grey crop, or None when there is no ink darker than the fill.
    """
    if rgb.size == 0 or rgb.shape[0] < 4 or rgb.shape[1] < 4:
        return None
    inside = np.ones(rgb.shape[:2], bool) if mask is None else mask
    if inside.sum() < 16:
        return None
    grey = cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2GRAY)
    fill = float(np.median(grey[inside]))
    lo, hi = np.percentile(grey[inside], (1, 99))
    if hi - fill > fill - lo:  # light text on a darker fill
        grey = 255 - grey
        fill = 255.0 - fill
    background: np.ndarray | np.float32 = np.float32(fill)
    if line_height and _block_spread(rgb, inside) > _FLAT_BLOCKS:
        # the fill as it varies (gradients, bevels), gated as `to_text_crop` gates it: on a flat
        # fill a median over a dense line of text is pulled towards the ink
        local = _local_fill(grey, inside, np.asarray(fill, np.float32), line_height)
        if float(np.ptp(local[inside])) > _FLAT_FILL:
            background = local
    depth = np.clip(background - grey.astype(np.float32), 0, None)
    depth[~inside] = 0
    inked = depth > 16  # darker than the fill by more than JPEG noise
    if inked.sum() < 8:
        return None
    full = float(np.percentile(depth[inked], 98))
    out = (255 * (1 - np.clip(depth / full, 0, 1))).astype(np.uint8)
    return _finish_crop(out, line_height, max_width)


def hachure_strokes(rgb: np.ndarray, dist: np.ndarray, ink: np.ndarray, core: np.ndarray,
                    inside: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The text colour and the fill strokes of a hachure-filled node, or None for other fills.

    A hand-drawn (rough.js) node is tinted with long parallel strokes in a paler colour than
    its text. They differ from the fill as much as text does, so they outnumber the glyphs'
    pixels among the ink and the ink colour (their median) became the strokes' own: strokes
    and text both came out black and the text was buried. Here the text colour is the most
    contrasting ink instead, and the fill strokes are the pale ink *away* from it (a glyph's
    anti-aliased edge is pale too, but it touches its glyph's strong pixels).

    Args:
        rgb: the node's colour crop.
        dist: every pixel's RGB distance from the fill.
        ink: pixels far from the fill (inside the node).
        core: ink in the middle of the node.
        inside: the node interior.

    Returns:
        ``(text colour (3,), fill-stroke mask)``, or None when the node has no fill strokes
        (every clean render: the test below stops at its first, cheap step there).
    """
    n_ink = int(np.count_nonzero(core))
    # text covers ~5-20 % of an interior; hachure adds tens of percent more
    if n_ink < 64 or np.count_nonzero(ink) < _HACHURE_INK_SHARE * np.count_nonzero(inside):
        return None
    d_core = dist[core]
    strong = core & (dist >= np.percentile(d_core, 90))
    d_strong = float(np.median(dist[strong]))
    # strong ink: at least halfway from the fill to the text colour; pale ink far from it
    text = dist >= 0.5 * d_strong
    near_text = cv2.dilate(text.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    strokes = ink & ~near_text
    if np.count_nonzero(strokes & core) < _HACHURE_PALE_SHARE * n_ink:
        return None
    return fill_color(rgb, strong), strokes


def to_label_crop(rgb: np.ndarray, *, line_height: float | None = None,
                  max_width: int = 1400) -> TextCrop | None:
    """Clean an edge-label box for OCR: keep the text, drop the connector seen through it.

    Mermaid draws a label on a translucent box over its connector, so inside the box the line
    shows as a paler copy of itself (measured: text 26, line 113, box 246 grey levels). The
    text colour is taken from the most contrasting pixels of the box; a pixel is ink when it
    is at least ~70% of the way from the box colour to it, and anti-aliased glyph edges (weaker
    pixels touching such ink) are kept. A line as dark as the text (labels on the bare
    background) is left alone.

    Args:
        rgb: ``(h, w, 3)`` uint8, the label box itself (the box colour dominates it).
        line_height: estimated text line height in px (rescaling, as `to_text_crop`).
        max_width: widest crop allowed in the mosaic.

    Returns:
        The cleaned crop, or None when the box holds no ink.
    """
    if rgb.size == 0 or rgb.shape[0] < 4 or rgb.shape[1] < 4:
        return None
    # scale the colour image first: at small sizes (6-8 px letters) thresholding before
    # scaling leaves one-pixel strokes that the strong-ink test below breaks apart
    scale = float(np.clip(_TARGET_LINE / line_height, 0.5, 4.0)) if line_height and line_height > 0 else 1.0
    if rgb.shape[1] * scale > max_width:
        scale = max_width / rgb.shape[1]
    if abs(scale - 1.0) > 0.05:
        rgb = cv2.resize(rgb, None, fx=scale, fy=scale,
                         interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC)
    else:
        scale = 1.0
    px = rgb.astype(np.float32)
    fill = np.median(px.reshape(-1, 3), axis=0)
    dist = np.sqrt(((px - fill) ** 2).sum(axis=2))
    peak = float(np.percentile(dist, 99.5))
    if peak < 60:
        return None
    ink_color = np.median(px[dist >= 0.8 * peak], axis=0)
    axis = ink_color - fill
    denom = float((axis ** 2).sum())
    if denom < 1:
        return None
    norm = np.clip(((px - fill) @ axis) / denom, 0, 1)
    # at small print (strokes ~1 px before scaling) anti-aliasing keeps glyph pixels from
    # reaching the text colour, and the line cannot be told from the text by shade anyway
    small = line_height is not None and line_height < _LABEL_SMALL
    strong = (norm > (0.5 if small else _LABEL_STRONG)).astype(np.uint8)
    if strong.sum() < 4:
        return None
    near = cv2.dilate(strong, np.ones((3, 3), np.uint8)).astype(bool)
    keep = (strong > 0) | ((norm > 0.3) & near)
    out = np.where(keep, 255 * (1 - norm), 255).astype(np.uint8)
    crop = _finish_crop(out, None, max_width)
    if crop is not None:
        crop.scale = scale
        # a box that is not a label (a subgraph title fragment, pieces of curved connectors
        # taken for glyphs) reads as low-confidence junk; measured on generated charts: read
        # labels median confidence 96 (5th percentile 70), non-labels median 27
        crop.min_conf = _LABEL_MIN_CONF
    return crop


def _block_spread(rgb: np.ndarray, inside: np.ndarray) -> float:
    """Largest per-channel spread of the fill's median over a 3x3 grid of blocks (text is a
    minority in each block, so the median is the fill's colour there)."""
    medians = []
    for rows in np.array_split(np.arange(inside.shape[0]), 3):
        for cols in np.array_split(np.arange(inside.shape[1]), 3):
            if not len(rows) or not len(cols):
                continue
            block = (slice(rows[0], rows[-1] + 1), slice(cols[0], cols[-1] + 1))
            sub = inside[block]
            if sub.sum() >= 16:
                medians.append(fill_color(rgb[block], sub))
    return float(np.ptp(np.asarray(medians), axis=0).max()) if len(medians) > 1 else 0.0


def color_distance(rgb: np.ndarray, fill: np.ndarray) -> np.ndarray:
    """``(h, w)`` float32 Euclidean RGB distance of every pixel from ``fill``."""
    diff = rgb.astype(np.float32) - fill
    return np.asarray(np.sqrt(_channel_dot(diff, diff)))


def _channel_dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(a * b).sum(axis=-1)`` over 3 channels, written out: the same float32 sums in the same
    order, without numpy's slow reduction over a length-3 axis."""
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1] + a[..., 2] * b[..., 2]


def _local_fill(rgb: np.ndarray, inside: np.ndarray, fill: np.ndarray, line_height: float) -> np.ndarray:
    """Per-pixel fill colour ``(h, w, 3)`` float32 (``(h, w)`` for a grey image and a scalar
    ``fill``): a median over a window about one text line high, in which glyph strokes are a
    minority, with the outside of the mask set to the median fill so the node's border and the
    page do not leak in."""
    k = int(round(1.2 * line_height)) | 1
    if k < 5 or min(rgb.shape[:2]) < 3:
        return np.broadcast_to(fill, rgb.shape).astype(np.float32)
    src = rgb.copy()
    src[~inside] = np.round(fill).astype(np.uint8)
    return np.asarray(cv2.medianBlur(src, k), np.float32)


def _finish_crop(out: np.ndarray, line_height: float | None, max_width: int,
                 clipped: bool = False) -> TextCrop | None:
    """Trim to the ink with a margin, rescale to the target line height, pad."""
    ys, xs = np.nonzero(out < 128)
    if len(ys) < 8:
        return None
    m = 6
    y0, y1 = max(ys.min() - m, 0), min(ys.max() + m + 1, out.shape[0])
    x0, x1 = max(xs.min() - m, 0), min(xs.max() + m + 1, out.shape[1])
    out = out[y0:y1, x0:x1]
    scale = 1.0
    if line_height and line_height > 0:
        scale = float(np.clip(_TARGET_LINE / line_height, 0.5, 3.0))
    if out.shape[1] * scale > max_width:
        scale = max_width / out.shape[1]
    if abs(scale - 1.0) > 0.05:
        interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
        out = cv2.resize(out, None, fx=scale, fy=scale, interpolation=interp)
    else:
        scale = 1.0
    out = np.pad(out, 10, constant_values=255)
    return TextCrop(out, scale, clipped)


def _drop_border_remnants(out: np.ndarray, inside: np.ndarray, line_height: float | None) -> None:
    """Erase ink components that hug the edge of the interior mask (pieces of the node border
    left by a polygon that is not exactly the drawn outline). A glyph clipped by the border
    also touches the edge, but most of its pixels lie away from it, so it is kept."""
    binar = (out < 128).astype(np.uint8)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(binar, connectivity=8)
    if n <= 1:
        return
    d = int(max(2, round(0.15 * (line_height or 20))))
    inner = cv2.erode(inside.astype(np.uint8), np.ones((2 * d + 1, 2 * d + 1), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0).astype(bool)
    band = inside & ~inner
    edge = inside & ~cv2.erode(inside.astype(np.uint8), np.ones((3, 3), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0).astype(bool)
    touching = np.unique(lab[edge & (binar > 0)])
    for k in touching:
        if k == 0:
            continue
        comp = lab == k
        area = stats[k, cv2.CC_STAT_AREA]
        w, h = stats[k, cv2.CC_STAT_WIDTH], stats[k, cv2.CC_STAT_HEIGHT]
        # longer than a glyph: a border piece; glyph-sized pieces ("I" beside a diamond's
        # vertex) stay even when they sit in the band
        long = max(w, h) > 1.1 * (line_height or 20)
        if ((comp & band).sum() > 0.5 * area and long) or area < 4:
            out[comp] = 255


def median_line_height(inks: list[np.ndarray]) -> float | None:
    """Text line height (px) of a chart from the ink masks (bool) of its node interiors: the
    75th percentile glyph height over all nodes, divided by the share of the line box a capital
    takes (~0.72); None with fewer than five glyph-like blobs."""
    hs = _glyph_heights(inks)
    if len(hs) < 5:
        return None
    return float(np.percentile(hs, 75)) / 0.72


def _glyph_heights(inks: list[np.ndarray]) -> list[int]:
    """Heights (px) of the glyph-like blobs of ink masks (bool)."""
    hs: list[int] = []
    for ink in inks:
        n, _, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
        if n > 1:
            h, w = stats[1:, cv2.CC_STAT_HEIGHT], stats[1:, cv2.CC_STAT_WIDTH]
            area = stats[1:, cv2.CC_STAT_AREA]
            # a hand-drawn node's hachure fill breaks into long thin diagonal strokes, glyph-like
            # by their box but with a tenth of a glyph's ink in it; taken for glyphs they made
            # the text line of a hachure-filled chart look twice its height
            keep = (h >= 5) & (w < 3 * h) & (h < 200) & (area >= _GLYPH_MIN_FILL * w * h)
            hs.extend(h[keep].tolist())
    return hs


def glyph_depth(rgb: np.ndarray, fill: np.ndarray, dist: np.ndarray, ink: np.ndarray) -> np.ndarray | None:
    """``(h, w)`` float32: every pixel's way from ``fill`` (0) towards the glyphs' own colour (1: the
    median of the 10 % of ``ink`` farthest from the fill), measured along that one direction
    (`strong_ink`, `edge_energy`); None when ``ink`` has under 8 pixels or no colour apart."""
    if int(np.count_nonzero(ink)) < 8:
        return None
    glyph_color = fill_color(rgb, ink & (dist >= np.percentile(dist[ink], 90)))
    axis = glyph_color - fill
    denom = float((axis ** 2).sum())
    if denom < 1:
        return None
    diff = rgb.astype(np.float32) - fill
    return np.asarray(_channel_dot(diff, np.broadcast_to(axis, diff.shape)) / denom, np.float32)


def strong_ink(rgb: np.ndarray, fill: np.ndarray, dist: np.ndarray, ink: np.ndarray,
               inside: np.ndarray, depth: np.ndarray | None = None) -> np.ndarray:
    """``(h, w)`` bool: pixels of ``inside`` at least halfway from ``fill`` towards the glyphs' own
    colour (`glyph_depth`, or ``depth`` when it was measured already); a blurred glyph's core can
    be halfway there and still under ``ink``'s bar.

    ``ink`` (far from the fill in any direction) takes a gradient's light or dark end and the
    halo a blur or JPEG leaves around 10-px letters for ink too; the glyphs of a line then run
    together into one blob (`chart_line_height`). Here the other end of a gradient projects
    away from the text colour and the halo stays under half way, so the glyphs come apart.
    """
    if depth is None:
        depth = glyph_depth(rgb, fill, dist, ink)
    if depth is None:
        return ink
    return np.asarray(depth > 0.5) & inside


def edge_energy(depth: np.ndarray | None, ink: np.ndarray, inside: np.ndarray) -> tuple[float, float]:
    """``(sum of squared Laplacians, sum of squared gradients)`` of a node's `glyph_depth` over the
    pixels by its ``ink`` (dilated by 1 px) at least 2 px inside ``inside`` (the border is no
    text): `stroke_sharpness` adds them up over a chart. (0, 0) without a depth."""
    if depth is None:
        return 0.0, 0.0
    d = np.clip(depth, 0, 1)
    near = cv2.dilate(ink.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    near &= cv2.erode(inside.astype(np.uint8), np.ones((5, 5), np.uint8), borderType=cv2.BORDER_CONSTANT,
                      borderValue=0).astype(bool)
    if not near.any():
        return 0.0, 0.0
    gx = cv2.Sobel(d, cv2.CV_32F, 1, 0, ksize=3) / 8
    gy = cv2.Sobel(d, cv2.CV_32F, 0, 1, ksize=3) / 8
    lap = cv2.Laplacian(d, cv2.CV_32F, ksize=1)
    return float((lap[near] ** 2).sum()), float((gx[near] ** 2 + gy[near] ** 2).sum())


def stroke_sharpness(energies: list[tuple[float, float]]) -> float | None:
    """How sharp a chart's glyph edges are: the root of the ratio of the squared Laplacian to the
    squared gradient of the node text (`edge_energy`, summed over nodes), in 1/px; None without
    text. A blur spreads every edge over more pixels, which lowers the second derivative more
    than the first, and the ratio is free of the text's contrast. Measured on the node text of
    wild tuning charts (twelfth stretch, pumlgate12; `eval/blur_measures.py`): charts whose degrade
    pass blurred them by sigma >= 0.6 px 1.0-2.8, unblurred 3.0-5.3 (clean renders 3.9-5.1, one
    hand-drawn 3.3); separating them with ROC AUC 1.000 over 162 small-print charts of 11 tuning sets, where
    `strong_ink_share` has 0.70."""
    lap2 = sum(e[0] for e in energies)
    grad2 = sum(e[1] for e in energies)
    return float(np.sqrt(lap2 / grad2)) if grad2 > 0 else None


def strong_ink_share(inks: list[np.ndarray], strong: list[np.ndarray]) -> float | None:
    """The share of the node interiors' ink (`chart_line_height`'s ``inks``) that is also strong ink
    (`strong_ink`): a blur measure of the chart's text (None: no ink). A sharp, contrasting glyph
    has a rim of anti-aliased pixels far enough from the fill to be ink but under half way to the
    glyph colour; a blur lowers the glyph's contrast until only its core is ink, and all of that
    core is strong, so the share rises towards 1 (`choice.small_print_from`)."""
    n_ink = sum(int(np.count_nonzero(i)) for i in inks)
    if n_ink == 0:
        return None
    return sum(int(np.count_nonzero(i & s)) for i, s in zip(inks, strong, strict=True)) / n_ink


def chart_line_height(inks: list[np.ndarray], strong: list[np.ndarray]) -> float | None:
    """The chart's text line height (px): `median_line_height` of the node interiors' ink, or of
    their strong ink (`strong_ink`) where the glyphs ran together in the first.

    Ink taken as anything 60 levels from the fill merges the glyphs of a line on gradient fills
    and blurred small print: a few word- or line-sized blobs are left, so the line measured up to
    twice its height (10-px text as 13.9-19 px: scaled too little and kept from the small-print
    path) or not at all. Strong ink then separates at least ``_MERGED_GLYPHS`` times as many
    glyphs, and the lines it measures are at least ``_MERGED_HEIGHT`` times shorter; elsewhere
    (most charts: strong ink separates up to ~3x the glyphs but measures the same glyphs ~1 px
    shorter, its threshold being half way) the first measurement stands.
    """
    loose, tight = _glyph_heights(inks), _glyph_heights(strong)
    if len(tight) < 5:
        return median_line_height(inks)
    strict = float(np.percentile(tight, 75)) / 0.72
    if len(loose) < 5:
        return strict
    first = float(np.percentile(loose, 75)) / 0.72
    if len(tight) >= _MERGED_GLYPHS * len(loose) and first >= _MERGED_HEIGHT * strict:
        return strict
    return first
