"""Shared glue of the segmenters (numpy + OpenCV + pycocotools, no torch).

* Resize policy: `working_scale` picks the factor an image is processed at.
* `fill_color`: the exact median colour under a mask (the segmenter's and the OCR crops').
* `channel_max` / `channel_min`: per-pixel extremes over RGB without numpy's slow axis reduction.
* `region_from_mask`: a binary mask -> `Region` (polygon, xyxy bbox, COCO RLE, score), in
  original-image pixels.
* `resolve_overlaps`: drop duplicates and nested detections.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from flowpath.geometry import Region, box_holds, box_iou_matrix

#: Images above this many pixels are processed downscaled (the classical segmenter's cost is
#: linear in pixels; 2x-scale Mermaid renders still have 2 px strokes at this budget).
CLASSICAL_MAX_PIXELS = 6_000_000
#: text inside a node: pixels this far (grey or colour levels) from the fill ...
TEXT_STEP = 50
#: ... or this many pixels half as far (small text blurred into the fill by JPEG)
FAINT_TEXT_PIXELS = 24
#: ... and at least this many of the far ones (JPEG specks in a filled start dot are 21-25
#: levels off their fill; the text of the wild tuning sets' nodes holds hundreds of pixels
#: over 100 off)
MIN_TEXT_PIXELS = 8


def fill_color(rgb: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per-channel median ``(3,)`` float32 of the uint8 ``rgb`` pixels where ``mask`` is True:
    exactly ``np.median(rgb[mask].astype(np.float32), axis=0)`` (a median of whole levels is a
    whole or half level: the same in float64), from each channel's 256-bin histogram (OpenCV, no
    gather and no sort): much cheaper than numpy's partition of the masked pixels. The
    segmenter takes it for every candidate's fill and rings, the OCR crops 12 times per node
    (fill, 9 blocks of the flat-fill gate, ink colour, line height). ``mask`` (bool or 0/1) must
    hold at least one pixel."""
    import cv2

    m = mask.astype(np.uint8)
    out = np.empty(3, np.float32)
    for c in range(3):
        cum = np.cumsum(cv2.calcHist([rgb], [c], m, [256], [0, 256]).ravel())
        n = int(cum[-1])
        # the sorted values at n // 2 (and n // 2 - 1 for an even count, averaged as numpy does)
        hi = int(np.searchsorted(cum, n // 2, side="right"))
        lo = hi if n % 2 else int(np.searchsorted(cum, n // 2 - 1, side="right"))
        out[c] = (lo + hi) / 2
    return out


def channel_max(a: np.ndarray) -> np.ndarray:
    """``a.max(axis=-1)`` over 3 channels, written out: the same values without numpy's slow
    reduction over a length-3 axis (about 10x the time on a page)."""
    return np.maximum(np.maximum(a[..., 0], a[..., 1]), a[..., 2])


def channel_min(a: np.ndarray) -> np.ndarray:
    """``a.min(axis=-1)`` over 3 channels, written out (see `channel_max`)."""
    return np.minimum(np.minimum(a[..., 0], a[..., 1]), a[..., 2])


def working_scale(height: int, width: int, max_pixels: int = CLASSICAL_MAX_PIXELS) -> float:
    """Scale factor (<= 1) that brings an ``height x width`` image within ``max_pixels``."""
    if height <= 0 or width <= 0:
        raise ValueError(f"image has zero size {height}x{width}")
    return min(1.0, float(np.sqrt(max_pixels / float(height * width))))


def encode_polygon_rle(polygon: Sequence[Sequence[float]], height: int, width: int) -> dict:
    """COCO RLE (``{"size": [h, w], "counts": str}``) of a polygon in an ``h x w`` image."""
    from pycocotools import mask as mask_utils

    flat = [float(v) for p in polygon for v in p]
    rles = mask_utils.frPyObjects([flat], height, width)
    rle = mask_utils.merge(rles)
    return {"size": [int(rle["size"][0]), int(rle["size"][1])], "counts": rle["counts"].decode("ascii")}


def encode_mask_rle(mask: np.ndarray) -> dict:
    """COCO RLE of a full-image binary mask."""
    from pycocotools import mask as mask_utils

    rle = mask_utils.encode(np.asfortranarray(mask.astype(np.uint8)))
    return {"size": [int(rle["size"][0]), int(rle["size"][1])], "counts": rle["counts"].decode("ascii")}


def decode_rle(rle: dict) -> np.ndarray:
    """Binary ``(h, w)`` mask of a COCO RLE produced by the encoders above."""
    from pycocotools import mask as mask_utils

    counts = rle["counts"]
    r = {"size": list(rle["size"]), "counts": counts.encode("ascii") if isinstance(counts, str) else counts}
    return mask_utils.decode(r).astype(bool)


def polygon_of_contour(contour: np.ndarray, epsilon_frac: float = 0.004) -> list[tuple[float, float]]:
    """Simplified outline of an OpenCV contour (Douglas-Peucker at a fraction of the perimeter)."""
    import cv2

    peri = cv2.arcLength(contour, True)
    approx = cv2.approxPolyDP(contour, max(0.5, epsilon_frac * peri), True).reshape(-1, 2)
    if len(approx) < 3:
        approx = contour.reshape(-1, 2)
    return [(float(x), float(y)) for x, y in approx]


def region_from_polygon(polygon: list[tuple[float, float]], height: int, width: int, score: float,
                        with_mask: bool = True) -> Region:
    """A `Region` whose bbox is the polygon's extent clipped to the image."""
    arr = np.asarray(polygon, dtype=float)
    arr[:, 0] = np.clip(arr[:, 0], 0, width)
    arr[:, 1] = np.clip(arr[:, 1], 0, height)
    pts = [(float(x), float(y)) for x, y in arr]
    bbox = (float(arr[:, 0].min()), float(arr[:, 1].min()), float(arr[:, 0].max()), float(arr[:, 1].max()))
    mask = encode_polygon_rle(pts, height, width) if with_mask else None
    return Region(bbox=bbox, polygon=pts, score=float(np.clip(score, 0.0, 1.0)), mask=mask)


def region_from_mask(mask: np.ndarray, score: float, scale: float = 1.0,
                     out_size: tuple[int, int] | None = None, with_mask: bool = True) -> Region | None:
    """`Region` of the largest blob of ``mask``; coordinates are divided by ``scale`` to map a
    downscaled working image back to the original (size ``out_size = (h, w)``)."""
    import cv2

    m = mask.astype(np.uint8)
    contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    c = max(contours, key=cv2.contourArea)
    if cv2.contourArea(c) < 4:
        return None
    poly = polygon_of_contour(c)
    # +0.5: a pixel-index contour runs through pixel centres; the region spans whole pixels
    poly = [((x + 0.5) / scale, (y + 0.5) / scale) for x, y in poly]
    h, w = out_size if out_size else mask.shape[:2]
    return region_from_polygon(poly, h, w, score, with_mask=with_mask)


def resolve_overlaps(regions: list[Region], iou_threshold: float = 0.5,
                     containment: float = 0.85) -> list[Region]:
    """Greedy NMS by score: a region is dropped when it overlaps a kept one by IoU >=
    ``iou_threshold``, or when ``containment`` of its box lies inside a kept (higher-scoring)
    region's box. Returns kept regions, best first."""
    if not regions:
        return []
    order = sorted(range(len(regions)), key=lambda i: -regions[i].score)
    boxes = np.array([regions[i].bbox for i in order], dtype=float)
    iou = box_iou_matrix(boxes, boxes)
    areas = np.maximum((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]), 1e-9)
    kept: list[int] = []
    for j in range(len(order)):
        drop = False
        for k in kept:
            if iou[j, k] >= iou_threshold:
                drop = True
                break
            ix = max(0.0, min(boxes[j, 2], boxes[k, 2]) - max(boxes[j, 0], boxes[k, 0]))
            iy = max(0.0, min(boxes[j, 3], boxes[k, 3]) - max(boxes[j, 1], boxes[k, 1]))
            if ix * iy / areas[j] >= containment:
                drop = True
                break
        if not drop:
            kept.append(j)
    return [regions[order[j]] for j in kept]


def holds_text(deviation: np.ndarray) -> bool:
    """Whether a node's inner pixels hold text, given how far each is from the node's fill
    (grey or max-over-RGB levels, any shape): `MIN_TEXT_PIXELS` pixels `TEXT_STEP` off, or
    `FAINT_TEXT_PIXELS` half as far (JPEG smears small text into the fill). A flowchart node
    holds a label; a filled dot (an activity diagram's start) or a blob of one colour does not,
    whatever specks JPEG leaves in it."""
    return bool((deviation > TEXT_STEP).sum() >= MIN_TEXT_PIXELS
                or (deviation > TEXT_STEP // 2).sum() >= FAINT_TEXT_PIXELS)


def fill_holes(mask: np.ndarray) -> np.ndarray:
    """``mask`` (0/1) with every hole filled: all that the image border cannot reach through
    zeros becomes 1 (uint8)."""
    import cv2

    h, w = mask.shape[:2]
    reach = np.pad(1 - mask.astype(np.uint8), 1, constant_values=1)
    cv2.floodFill(reach, np.zeros((h + 4, w + 4), np.uint8), (0, 0), 2)
    return (reach[1:-1, 1:-1] != 2).astype(np.uint8)


def fill_convex_holes(mask: np.ndarray, min_solidity: float, always: int = 40) -> np.ndarray:
    """``mask`` (0/1) with its convex holes filled: a node's inside (box, ellipse, diamond, a
    strip of it beside a label that touches the outline) is convex, while the page a chart's
    connectors close off between the nodes they join (any cycle of the flow encloses some) is
    bitten into by those nodes. `fill_holes` fills both, and on a small chart the filled
    pockets join its nodes into one shapeless blob. A hole of under ``always`` pixels (a
    letter's counter, a sliver) is filled as it is; a larger one when its outline, its own holes
    filled, covers ``min_solidity`` of its convex hull (plus half its perimeter: a small hole's
    outline pixels are a large share of it)."""
    import cv2

    h, w = mask.shape[:2]
    n, lab, st, _ = cv2.connectedComponentsWithStats((mask == 0).astype(np.uint8), connectivity=4)
    outside = np.zeros(n, bool)
    outside[np.unique(np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]]))] = True
    fill = ~outside
    fill[0] = False  # the mask's own pixels
    for i in np.nonzero(fill & (st[:, cv2.CC_STAT_AREA] >= always))[0]:
        x, y, bw, bh = st[i, :4]
        cs, _ = cv2.findContours((lab[y:y + bh, x:x + bw] == i).astype(np.uint8), cv2.RETR_EXTERNAL,
                                 cv2.CHAIN_APPROX_SIMPLE)
        c = max(cs, key=cv2.contourArea)
        hull = cv2.contourArea(cv2.convexHull(c)) + cv2.arcLength(c, True) / 2
        fill[i] = cv2.contourArea(c) + cv2.arcLength(c, True) / 2 >= min_solidity * hull
    return (mask.astype(bool) | fill[lab]).astype(np.uint8)


def innermost_regions(found: list[tuple[tuple[int, int, int, int], list[tuple[float, float]]]],
                      out_size: tuple[int, int], score: float, with_mask: bool = True) -> list[Region]:
    """Regions of the blobs ``(working box, polygon)`` whose box holds no other blob's box (a
    blob around other blobs is a frame or a loop of connectors)."""
    return [region_from_polygon(found[k][1], out_size[0], out_size[1], score, with_mask=with_mask)
            for k in innermost([box for box, _ in found])]


def innermost(boxes: Sequence[Sequence[float]]) -> list[int]:
    """Indices of the ``xyxy`` boxes that hold no other box whole (`geometry.box_holds`)."""
    return [k for k, a in enumerate(boxes) if not any(j != k and box_holds(a, b) for j, b in enumerate(boxes))]


def interior_blobs(solid: np.ndarray, min_size: int, edge_run: float = 0.0
                   ) -> Iterator[tuple[int, int, int, int, int, np.ndarray]]:
    """The 4-connected components of a 0/1 mask that could be nodes: at least ``min_size`` wide
    and high and clear of the image border (a blob touching it is background or a cut-off
    shape). Yields ``(x, y, w, h, area, mask)`` with ``mask`` the component's 0/1 crop.

    With ``edge_run`` > 0 a blob touching one side of the image is kept too when its pixels on
    that side span at most ``edge_run`` of its extent along it (`touches_like_node`)."""
    import cv2

    height, width = solid.shape[:2]
    n, lab, stats, _ = cv2.connectedComponentsWithStats(solid, connectivity=4)
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if w < min_size or h < min_size:
            continue
        m = None
        if x == 0 or y == 0 or x + w >= width or y + h >= height:
            if edge_run <= 0:
                continue
            m = (lab[y:y + h, x:x + w] == i).astype(np.uint8)
            if not touches_like_node(m, (x, y), (height, width), edge_run):
                continue
        yield x, y, w, h, area, m if m is not None else (lab[y:y + h, x:x + w] == i).astype(np.uint8)


def touches_like_node(blob: np.ndarray, origin: tuple[int, int], size: tuple[int, int], edge_run: float) -> bool:
    """Whether a blob (0/1 crop at ``origin = (x, y)`` of an image of ``size = (h, w)``) that
    touches the image border is still a whole node: web charts are cropped tight to the drawing,
    so the outer part of a thick border at the page's edge is cut off while the shape's curve
    still shows (an ellipse or stadium meets the edge along a short chord). It touches one side
    only, along at most ``edge_run`` of its extent there; background and a shape cut in half
    run along the edge."""
    x, y = origin
    h, w = blob.shape
    sides = [(x == 0, blob[:, 0], h), (y == 0, blob[0], w),
             (x + w >= size[1], blob[:, -1], h), (y + h >= size[0], blob[-1], w)]
    touched = [(line, extent) for on, line, extent in sides if on]
    if len(touched) != 1:
        return False
    line, extent = touched[0]
    return bool(line.sum() <= edge_run * extent)
