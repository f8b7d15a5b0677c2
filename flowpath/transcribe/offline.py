"""`OCRTranscriber`: the offline, CPU-only transcriber (tesseract OCR + classical edge recovery).

Given the original image and the letter -> region map:

1. **Foreground.** The background colour is the most common colour on the image border;
   everything that differs from it is ink (borders, fills, text, connectors, label boxes).
2. **Nodes.** Every region's polygon, grown by a few pixels to swallow its border, is masked
   out. The node interiors (polygon shrunk past the border) are OCR'd; the outline profile gives
   the shape (`flowpath.transcribe.shapes`).
3. **Edge labels.** What remains is connectors, arrowheads and edge labels. Label boxes are
   found two ways: filled label backgrounds (Mermaid's default style) survive a morphological
   opening that erases thin lines; labels drawn on the bare background show up as clusters of
   glyph-sized blobs. Label boxes are filled into the connector mask so that a line interrupted
   by its label stays one piece.
4. **Connectors.** Connected components of that mask; each component's contacts are the
   regions whose grown outline it touches. An arrowhead is a filled triangle, so the contact
   where the stroke is much thicker than the component's line width (distance transform) is a
   target and the others are sources.
5. **Text.** Node interiors are read by tesseract (`ocr.read_crops`, in a background thread while
   steps 3-4 run), then the label boxes (`ocr.to_label_crop`).

Anything odd (a connector touching one node only, no arrowhead, an unreadable node) becomes a
line in ``Transcription.problems``; a chart never raises.
"""

from __future__ import annotations

import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from flowpath.geometry import Region
from flowpath.graph import Edge, FlowChart, Node
from flowpath.models.base import LabelledChart, Transcriber, Transcription
from flowpath.transcribe import ocr
from flowpath.transcribe.shapes import classify_shape

logger = logging.getLogger(__name__)


@dataclass
class _Contact:
    region: int
    count: int
    point: tuple[float, float]
    thickness: float
    arrow: bool = False
    #: total ink (difference from the background) of the connector's pixels at the contact
    mass: float = 0.0


@dataclass
class _Component:
    label: int
    contacts: list[_Contact] = field(default_factory=list)
    label_boxes: list[int] = field(default_factory=list)


def background_color(img: np.ndarray) -> np.ndarray:
    """Most common colour on the image's outer frame (quantised to 8 levels per channel)."""
    frame = np.concatenate([img[:4].reshape(-1, 3), img[-4:].reshape(-1, 3),
                            img[:, :4].reshape(-1, 3), img[:, -4:].reshape(-1, 3)])
    q = (frame // 32).astype(np.int32)
    keys = q[:, 0] * 64 + q[:, 1] * 8 + q[:, 2]
    best = np.bincount(keys).argmax()
    sel = frame[keys == best]
    return np.median(sel, axis=0)


def background_distance(img: np.ndarray, bg: np.ndarray) -> np.ndarray:
    """``(H, W)`` uint8: the largest per-channel difference of each pixel from ``bg``.

    OpenCV's saturating ``absdiff`` on uint8 and a channel max over strided views are ~20x
    faster than the numpy int16 round trip on the 5-Mpx renders of the benchmark (measured
    0.44 s -> 0.02 s), and every threshold below is then one comparison.
    """
    ref = np.empty_like(img)
    ref[:] = np.clip(np.round(bg), 0, 255).astype(np.uint8)
    d = cv2.absdiff(np.ascontiguousarray(img), ref)
    return np.maximum(np.maximum(d[..., 0], d[..., 1]), d[..., 2])


def foreground_mask(img: np.ndarray, bg: np.ndarray, threshold: float = 22.0) -> np.ndarray:
    """True where a pixel differs from the background colour by more than ``threshold`` in any
    channel (low enough to keep the pale label backgrounds of Mermaid's default theme)."""
    return background_distance(img, bg) > threshold


def _poly(region: Region, dx: float = 0.0, dy: float = 0.0) -> np.ndarray:
    return np.round(np.asarray(region.polygon, dtype=np.float64) - [dx, dy]).astype(np.int32)


class OCRTranscriber(Transcriber):
    """Offline transcriber: tesseract for text, classical CV for edges, arrows and shapes.

    Args:
        lang: tesseract language(s), e.g. ``"eng"``.
        node_margin: pixels the node outline is grown by before connectors are traced (the
            border's thickness plus anti-aliasing); ``None`` = scale with the image.
        arrow_ratio: a contact is an arrowhead when its stroke is this many times thicker than
            the connector's line.
        timeout: seconds allowed per tesseract call.
        workers: parallel tesseract processes per chart (2 uses both cores of a small machine).

    >>> from flowpath.transcribe import OCRTranscriber  # doctest: +SKIP
    >>> tr = OCRTranscriber()([labelled_chart])[0]      # doctest: +SKIP
    >>> print(tr.mermaid)                                # doctest: +SKIP
    """

    name = "ocr"

    def __init__(self, *, lang: str = "eng", node_margin: int | None = None,
                 arrow_ratio: float = 2.2, timeout: float = 60.0, workers: int = 2) -> None:
        import shutil

        from flowpath.errors import MissingDependencyError, require

        require("pytesseract", "ocr", "OCRTranscriber")
        if shutil.which("tesseract") is None:
            raise MissingDependencyError(
                "OCRTranscriber needs the tesseract binary: apt-get install tesseract-ocr")
        self.lang = lang
        self.node_margin = node_margin
        self.arrow_ratio = float(arrow_ratio)
        self.timeout = float(timeout)
        self.workers = int(workers)

    def __call__(self, charts: list[LabelledChart]) -> list[Transcription]:
        out = []
        for chart in charts:
            t = time.perf_counter()
            try:
                tr = self.transcribe(chart)
            except Exception as exc:  # a bad chart must not stop a batch
                logger.exception("OCR transcription failed")
                fc = FlowChart()
                for letter in chart.regions:
                    fc.add_node(Node(letter, ""))
                tr = Transcription(mermaid=_safe_mermaid(fc), chart=fc,
                                   problems=[f"transcription failed: {type(exc).__name__}: {exc}"])
            tr.meta.setdefault("transcriber", self.name)
            tr.meta["seconds"] = round(time.perf_counter() - t, 3)
            out.append(tr)
        return out

    # ------------------------------------------------------------------------------------------
    def transcribe(self, chart: LabelledChart) -> Transcription:
        """Transcribe one chart (may raise; ``__call__`` turns errors into problems)."""
        from flowpath.io import load_image

        img = load_image(chart.image, name="OCRTranscriber image")
        letters = list(chart.regions)
        regions = [chart.regions[k] for k in letters]
        problems: list[str] = []
        fc = FlowChart("TD")
        if not regions:
            problems.append("no node regions were given; the graph is empty")
            return Transcription(mermaid=_safe_mermaid(fc), chart=fc, problems=problems)
        H, W = img.shape[:2]
        bg = background_color(img)
        bg_dist = background_distance(img, bg)
        fg = bg_dist > 22
        dark = bg_dist > 90

        sides = [min(r.width, r.height) for r in regions if r.width > 0 and r.height > 0]
        unit = float(np.median(sides)) if sides else 40.0
        margin = self.node_margin if self.node_margin is not None else int(np.clip(round(unit * 0.05), 2, 10))

        # region maps: owner (node mask grown by `margin`) and contact ring (grown further)
        order = sorted(range(len(regions)), key=lambda i: -regions[i].area)
        node_owner = np.zeros((H, W), np.int32)
        contact_owner = np.zeros((H, W), np.int32)
        ring = margin + max(3, margin // 2 + 2)
        for i in order:
            pts = _poly(regions[i])
            if len(pts) < 3:
                continue
            cv2.fillPoly(contact_owner, [pts], i + 1)
            cv2.polylines(contact_owner, [pts], True, i + 1, thickness=2 * ring + 1)
        for i in order:
            pts = _poly(regions[i])
            cv2.fillPoly(node_owner, [pts], i + 1)
            cv2.polylines(node_owner, [pts], True, i + 1, thickness=2 * margin + 1)
        node_mask = node_owner > 0

        # --- node crops ---------------------------------------------------------------------
        crops: list[ocr.TextCrop | None] = []
        interiors: list[tuple[int, int, int, int, np.ndarray] | None] = []
        glyph_ink = []
        shapes: dict[int, str] = {}
        for r in regions:
            x0, y0 = max(int(np.floor(r.bbox[0])), 0), max(int(np.floor(r.bbox[1])), 0)
            x1, y1 = min(int(np.ceil(r.bbox[2])) + 1, W), min(int(np.ceil(r.bbox[3])) + 1, H)
            if x1 - x0 < 4 or y1 - y0 < 4:
                interiors.append(None)
                continue
            m = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillPoly(m, [_poly(r, x0, y0)], 1)
            shrink = max(margin + 1, 4)
            inner = cv2.erode(m, np.ones((2 * shrink + 1, 2 * shrink + 1), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0).astype(bool)
            # and inside the drawn outline, row by row: a region polygon may be only the box
            # of a round node, whose border then curves through the polygon's interior
            f = fg[y0:y1, x0:x1] & (m > 0)
            shapes[len(interiors)] = shape = classify_shape(fg[y0:y1, x0:x1])
            # only round nodes: for a box that sits inside a rectangle's border the first
            # ink of a row is the text itself, and bounding by it would cut letters
            has = f.any(axis=1) if shape in ("stadium", "circle") else np.zeros(f.shape[0], bool)
            left = np.where(has, f.argmax(axis=1), 0)
            right = np.where(has, f.shape[1] - 1 - f[:, ::-1].argmax(axis=1), f.shape[1] - 1)
            left = np.where(has, left, -shrink)
            right = np.where(has, right, f.shape[1] - 1 + shrink)
            cols = np.arange(f.shape[1])[None, :]
            inner &= (cols >= left[:, None] + shrink) & (cols <= right[:, None] - shrink)
            interiors.append((x0, y0, x1, y1, inner))
            crop = img[y0:y1, x0:x1]
            if inner.sum() > 16:
                px = crop.astype(np.float32)
                fillv = np.median(px[inner], axis=0)
                glyph_ink.append((np.sqrt(((px - fillv) ** 2).sum(axis=2)) > 60) & inner)
        line_h = _median_line_height(glyph_ink) or max(unit * 0.3, 12.0)
        for it in interiors:
            if it is None:
                crops.append(None)
                continue
            x0, y0, x1, y1, inner = it
            crops.append(ocr.to_text_crop(img[y0:y1, x0:x1], inner, line_height=line_h))
        # node text is read while the connectors are traced: tesseract runs in its own
        # threads (ctypes releases the GIL), so both cores work during the pixel analysis
        pool = ThreadPoolExecutor(1)
        node_job = pool.submit(ocr.read_crops, crops, lang=self.lang, timeout=self.timeout,
                               workers=self.workers)
        pool.shutdown(wait=False)

        # --- connectors ---------------------------------------------------------------------
        conn = fg & ~node_mask
        conn_u8 = conn.astype(np.uint8)
        # remove specks (anti-aliasing dust)
        n0, lab0, st0, _ = cv2.connectedComponentsWithStats(conn_u8, connectivity=8)
        small = st0[:, cv2.CC_STAT_AREA] < 6
        small[0] = False
        conn_u8[small[lab0]] = 0
        conn = conn_u8.astype(bool)
        faint = (bg_dist > 4) & ~node_mask
        boxes, flats = _label_boxes(faint, dark & conn, contact_owner > 0, line_h, img)
        if flats is not None:
            # subgraph fills and other large flat areas are background for connector tracing
            conn &= ~flats
        frames = _frames(conn, line_h)
        if frames is not None:
            conn &= ~frames
            # a subgraph title sits just under its frame's top edge: not an edge label
            boxes = [b for b in boxes if not _under_frame(b, frames, line_h)]
        conn_u8 = conn.astype(np.uint8)
        conn2 = conn_u8.copy()
        # a label drawn on an opaque box interrupts its line a few px before the glyphs:
        # fill the box grown by that padding so both halves of the line join through it
        gpad = max(2, int(round(0.35 * line_h)))
        for (bx0, by0, bx1, by1) in boxes:
            conn2[max(by0 - gpad, 0):by1 + gpad, max(bx0 - gpad, 0):bx1 + gpad] = 1
        conn2 &= (~node_mask).astype(np.uint8)
        # bridge the gaps of dotted and dashed connectors (a few px) before labelling pieces
        gap = max(3, int(round(line_h * 0.15)) | 1)
        free = (~node_mask).astype(np.uint8)
        closed = np.asarray(cv2.morphologyEx(conn2, cv2.MORPH_CLOSE, np.ones((gap, gap), np.uint8)), np.uint8)
        conn2 = (closed & free) | conn2
        ncomp, comp, cstats, _ = cv2.connectedComponentsWithStats(conn2, connectivity=8)
        dist = cv2.distanceTransform(conn_u8, cv2.DIST_L2, 3)
        in_box = np.zeros((H, W), bool)
        for (bx0, by0, bx1, by1) in boxes:
            in_box[by0:by1, bx0:bx1] = True
        dist[in_box] = 0

        components = _contacts(comp, cstats, contact_owner, dist, line_h, self.arrow_ratio, bg_dist)
        for bi, (bx0, by0, bx1, by1) in enumerate(boxes):
            # the connector piece covering most of the box (its centre pixel can be a hole
            # where the box touches a node's margin)
            ks = comp[by0:by1, bx0:bx1]
            ks = ks[ks > 0]
            k = int(np.bincount(ks).argmax()) if ks.size else 0
            if k in components:
                components[k].label_boxes.append(bi)

        # --- OCR of the edge labels (one more mosaic) -----------------------------------------
        label_crops = []
        for (bx0, by0, bx1, by1) in boxes:
            # the box itself, no margin: just outside it the connector is at full strength,
            # inside it is seen through the translucent box and `to_label_crop` drops it.
            # Labels are short words: read them larger than node text (tesseract misreads
            # two-letter words at node-text size far more often)
            label_crops.append(ocr.to_label_crop(img[by0:by1, bx0:bx1], line_height=line_h / 1.4))
        label_texts = ocr.read_crops(label_crops, lang=self.lang, timeout=self.timeout, workers=1)
        node_texts = node_job.result()
        for b, lc in enumerate(label_crops):
            if lc is not None and not label_texts[b] and any(b in c.label_boxes for c in components.values()):
                label_texts[b] = ocr.read_word(lc, lang=self.lang, timeout=self.timeout)

        # --- nodes ----------------------------------------------------------------------------
        for i, letter in enumerate(letters):
            text = node_texts[i]
            shape = shapes.get(i, "rect")
            if not text:
                problems.append(f"node {letter}: no readable text")
            fc.add_node(Node(letter, text, shape))

        # --- edges ----------------------------------------------------------------------------
        seen: set[tuple[str, str]] = set()
        for k in sorted(components):
            c = components[k]
            edges, notes = _component_edges(c, regions, letters)
            problems.extend(notes)
            edges = [(a, b) for a, b in dict.fromkeys(edges) if a != b]
            assigned = _assign_labels(c, boxes, regions, edges)
            for j, (s, t) in enumerate(edges):
                key = (letters[s], letters[t])
                if key in seen:
                    continue
                seen.add(key)
                texts_j = [ocr.clean_label(label_texts[b]) for b in assigned.get(j, []) if label_texts[b]]
                # several boxes on one edge: a branch word among specks is the label
                fc.add_edge(Edge(letters[s], letters[t], label=ocr.clean_label(" ".join(texts_j)) or None))
        for letter in letters:
            if fc.in_degree(letter) == 0 and fc.out_degree(letter) == 0 and len(letters) > 1:
                problems.append(f"node {letter}: no connector found")
        fc.warnings = list(problems)
        meta: dict[str, Any] = {"line_height": round(line_h, 1), "label_boxes": len(boxes),
                                "connectors": len(components),
                                "labels": [{"box": list(b), "text": t} for b, t in zip(boxes, label_texts, strict=True)]}
        return Transcription(mermaid=_safe_mermaid(fc), chart=fc, problems=problems, meta=meta)


def _safe_mermaid(fc: FlowChart) -> str:
    from flowpath.mermaid import to_mermaid

    return to_mermaid(fc)


def _median_line_height(inks: list[np.ndarray]) -> float | None:
    hs = []
    for ink in inks:
        n, _, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
        if n > 1:
            h, w = stats[1:, cv2.CC_STAT_HEIGHT], stats[1:, cv2.CC_STAT_WIDTH]
            keep = (h >= 5) & (w < 3 * h) & (h < 200)
            hs.extend(h[keep].tolist())
    if len(hs) < 5:
        return None
    return float(np.percentile(hs, 75)) / 0.72


#: max per-channel difference from a subgraph fill's colour of a pixel of that fill
_FLAT_TOLERANCE = 6


def _label_boxes(faint: np.ndarray, dark: np.ndarray, near_node: np.ndarray, line_h: float,
                 img: np.ndarray) -> tuple[list[tuple[int, int, int, int]], np.ndarray | None]:
    """Boxes of edge labels among the non-node pixels (xyxy ints), and a mask of large flat
    non-node areas (subgraph fills) or None.

    ``faint`` is every pixel that differs even slightly from the background: Mermaid's default
    label background is a translucent grey only ~9 levels off white.
    """
    H, W = faint.shape
    boxes: list[tuple[int, int, int, int]] = []
    flats: np.ndarray | None = None
    fill_exact: np.ndarray = np.zeros(0, bool)
    fills: list[tuple[int, int, int, int]] = []  # boxes of the flat areas
    # (a) filled label backgrounds: survive an opening that erases lines and arrowheads
    k = max(5, int(round(line_h * 0.45)))
    opened = cv2.morphologyEx(faint.astype(np.uint8), cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    n, lab, st, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
    for j in range(1, n):
        x, y, w, h = st[j, :4]
        if _is_label_box(st[j], line_h):
            boxes.append((x, y, x + w, y + h))
        elif h >= 4 * line_h and w >= 4 * line_h:
            # a large flat area (subgraph fill): pixels of its colour are background
            sl = (slice(y, y + h), slice(x, x + w))
            comp = lab[sl] == j
            color = np.median(img[sl][comp], axis=0)
            off = np.abs(img[sl].astype(np.int16) - color.astype(np.int16)).max(axis=2)
            grown = cv2.dilate(comp.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
            if flats is None:
                flats = np.zeros((H, W), bool)
                fill_exact = np.zeros((H, W), bool)
            flats[sl] |= (off < 12) & grown
            # a translucent label box over the fill is only ~9 levels off it (measured
            # (246,246,226) on (255,255,222)): the box search below needs the fill itself
            fill_exact[sl] |= (off < _FLAT_TOLERANCE) & grown
            fills.append((int(x), int(y), int(x + w), int(y + h)))
    if flats is not None:
        # label boxes drawn on a subgraph fill are part of the fill's flat area above: look
        # again for them among the pixels that are not the fill's colour
        opened = cv2.morphologyEx((faint & ~fill_exact).astype(np.uint8), cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
        n, lab, st, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
        for j in range(1, n):
            x, y, w, h = (int(v) for v in st[j, :4])
            if _is_label_box(st[j], line_h) and flats[y:y + h, x:x + w].any() \
                    and not any(x < b[2] and b[0] < x + w and y < b[3] and b[1] < y + h for b in boxes):
                boxes.append((x, y, x + w, y + h))
    # (b) glyph clusters on the bare background: glyph-sized dark blobs not touching nodes
    taken = np.zeros((H, W), bool)
    for (x0, y0, x1, y1) in boxes:
        taken[y0:y1, x0:x1] = True
    n, lab, st, _ = cv2.connectedComponentsWithStats(dark.astype(np.uint8), connectivity=8)
    glyph = np.zeros((H, W), np.uint8)
    for j in range(1, n):
        x, y, w, h = st[j, :4]
        if h > 1.3 * line_h or w > 2.0 * line_h or max(w, h) < 0.2 * line_h:
            continue
        sl = (slice(y, y + h), slice(x, x + w))
        if near_node[sl][lab[sl] == j].any() or taken[sl].any():
            continue
        glyph[sl][lab[sl] == j] = 1
    if glyph.any():
        # dark blobs too big for a glyph: connectors, and glyphs a connector runs through
        too_big = (st[:, cv2.CC_STAT_HEIGHT] > 1.3 * line_h) | (st[:, cv2.CC_STAT_WIDTH] > 2.0 * line_h)
        too_big[0] = False
        big = too_big[lab]
        kx, ky = max(3, int(line_h * 0.6)), max(3, int(line_h * 0.3))
        merged = cv2.dilate(glyph, np.ones((ky, kx), np.uint8))
        n, _, st, _ = cv2.connectedComponentsWithStats(merged, connectivity=8)
        for j in range(1, n):
            x, y, w, h = st[j, :4]
            x0, y0 = x + kx // 2, y + ky // 2
            x1, y1 = x + w - kx // 2, y + h - ky // 2
            bw, bh = x1 - x0, y1 - y0
            # a word: at least a letter-and-a-half wide, at most a few lines tall
            if bh < 0.4 * line_h or bw < 0.45 * line_h or bh > 4 * line_h:
                continue
            # a connector crossing a glyph makes that glyph one blob with the line, too big
            # for a glyph: carry the word on along its text row while the columns still
            # look like glyphs ("Ye" + the "s" a line runs through -> "Yes")
            x0, x1 = _extend_word(big, near_node, x0, y0, x1, y1, line_h)
            pad = max(2, int(line_h * 0.15))
            box = (max(x0 - pad, 0), max(y0 - pad, 0), min(x1 + pad, W), min(y1 + pad, H))
            # glyphs just outside a filled box found above (its edge trimmed by the opening)
            # belong to that box's word: grow the box rather than add a second label
            hit = next((i for i, b in enumerate(boxes) if box[0] < b[2] and b[0] < box[2]
                        and box[1] < b[3] and b[1] < box[3]), None)
            if hit is None:
                boxes.append(box)
            else:
                b = boxes[hit]
                boxes[hit] = (min(b[0], box[0]), min(b[1], box[1]), max(b[2], box[2]), max(b[3], box[3]))
    # a subgraph's title: centred at the top of its fill (Mermaid), not an edge label
    boxes = [b for b in boxes if not any(
        f[0] <= b[0] and b[2] <= f[2] and f[1] - 0.5 * line_h <= b[1] <= f[1] + 1.5 * line_h
        and abs((b[0] + b[2]) / 2 - (f[0] + f[2]) / 2) < 0.1 * (f[2] - f[0]) for f in fills)]
    return [(int(a), int(b), int(c), int(d)) for a, b, c, d in boxes], flats


def _is_label_box(stats: np.ndarray, line_h: float) -> bool:
    """A filled component (OpenCV stats row) is the size and fill of an edge-label box."""
    x, y, w, h, area = (int(v) for v in stats[:5])
    return bool(0.6 * line_h <= h < 4 * line_h and 0.6 * line_h <= w < 25 * line_h and area > 0.6 * w * h)


def _extend_word(big: np.ndarray, near_node: np.ndarray, x0: int, y0: int, x1: int, y1: int,
                 line_h: float) -> tuple[int, int]:
    """Grow a word box left and right over columns of its text row where a blob too big for a
    glyph (``big``) holds glyph-like ink (well over a line's thickness of dark pixels), across
    gaps up to a letter space."""
    W = big.shape[1]
    band = big[y0:y1] & ~near_node[y0:y1]
    counts = band.sum(axis=0)
    texty = counts >= max(5, 0.35 * (y1 - y0))
    max_gap = max(3, int(0.5 * line_h))
    limit = int(3 * line_h)  # a label word is short; never run along a long line
    for step in (1, -1):
        x = x1 if step == 1 else x0 - 1
        edge, gap = (x1, 0) if step == 1 else (x0, 0)
        while 0 <= x < W and abs(x - edge) < limit:
            if near_node[y0:y1, x].any():
                break
            if texty[x]:
                if step == 1:
                    x1 = x + 1
                else:
                    x0 = x
                gap = 0
            else:
                gap += 1
                if gap > max_gap:
                    break
            x += step
    return x0, x1


def _under_frame(box: tuple[int, int, int, int], frames: np.ndarray, line_h: float) -> bool:
    x0, y0, x1, y1 = box
    top = max(int(y0 - 1.2 * line_h), 0)
    band = frames[top:y0 + 1, x0:x1]
    return bool(band.size) and bool((band.sum(axis=1) > 0.6 * (x1 - x0)).any())


def _frames(conn: np.ndarray, line_h: float) -> np.ndarray | None:
    """Pixels of subgraph frames (long straight lines forming most of a rectangle), minus the
    places where a connector crosses them; None when there is no frame.

    A frame touches every connector that crosses it and would merge them all into one piece.
    """
    L = max(int(3 * line_h), 40)
    u8 = conn.astype(np.uint8)
    hor = cv2.morphologyEx(u8, cv2.MORPH_OPEN, np.ones((1, L), np.uint8))
    ver = cv2.morphologyEx(u8, cv2.MORPH_OPEN, np.ones((L, 1), np.uint8))
    lines = np.asarray(hor, np.uint8) | np.asarray(ver, np.uint8)
    if not lines.any():
        return None
    joined = cv2.dilate(lines, np.ones((5, 5), np.uint8))
    n, lab, st, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    out = np.zeros(conn.shape, bool)
    for j in range(1, n):
        x, y, w, h = st[j, :4]
        if w < 3 * line_h or h < 3 * line_h:
            continue
        sl = (slice(y, y + h), slice(x, x + w))
        comp = (lab[sl] == j) & (lines[sl] > 0)
        # the frame's sides are rows/columns that run most of the way across the component
        # (its bbox may be taller than the frame: straight connector runs attached to it)
        rows = np.flatnonzero(comp.sum(axis=1) > 0.5 * w)
        cols = np.flatnonzero(comp.sum(axis=0) > 0.5 * h)
        n_sides = (2 if len(rows) and np.ptp(rows) > 0.3 * h else int(len(rows) > 0)) + \
                  (2 if len(cols) and np.ptp(cols) > 0.3 * w else int(len(cols) > 0))
        if n_sides >= 3:
            keep = np.zeros_like(comp)
            for r in rows:
                keep[max(r - 3, 0):r + 4] = True
            for cidx in cols:
                keep[:, max(cidx - 3, 0):cidx + 4] = True
            out[sl] |= comp & keep
    if not out.any():
        return None
    # keep crossings: frame pixels with connector ink on both sides across the frame line
    d = 4
    pad = np.pad(conn, d)
    H, W = conn.shape
    up, down = pad[0:H, d:W + d], pad[2 * d:H + 2 * d, d:W + d]
    left, right = pad[d:H + d, 0:W], pad[d:H + d, 2 * d:W + 2 * d]
    crossing = (hor.astype(bool) & up & down) | (ver.astype(bool) & left & right)
    crossing = cv2.dilate(crossing.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    return out & ~crossing


def _contacts(comp: np.ndarray, cstats: np.ndarray, contact_owner: np.ndarray,
              dist: np.ndarray, line_h: float, arrow_ratio: float = 2.2,
              ink: np.ndarray | None = None) -> dict[int, _Component]:
    """For each connector component, the regions it touches and the stroke thickness there.

    ``cstats`` are the component stats of ``comp`` (OpenCV): every per-component scan stays
    inside the component's box instead of the whole (multi-megapixel) image.
    """
    sel = (comp > 0) & (contact_owner > 0)
    ys, xs = np.nonzero(sel)
    out: dict[int, _Component] = {}
    if len(ys) == 0:
        return out
    ks = comp[ys, xs]
    rs = contact_owner[ys, xs] - 1
    key = ks.astype(np.int64) * 100000 + rs
    order = np.argsort(key, kind="stable")
    key, ys, xs, ks, rs = key[order], ys[order], xs[order], ks[order], rs[order]
    bounds = np.flatnonzero(np.diff(key)) + 1
    win = max(6, int(round(line_h * 0.9)))
    H, W = comp.shape
    # typical line half-width per component: median distance over the component's pixels
    for seg in np.split(np.arange(len(key)), bounds):
        k, r = int(ks[seg[0]]), int(rs[seg[0]])
        py, px = ys[seg], xs[seg]
        cy, cx = float(py.mean()), float(px.mean())
        y0, y1 = max(int(py.min()) - win, 0), min(int(py.max()) + win + 1, H)
        x0, x1 = max(int(px.min()) - win, 0), min(int(px.max()) + win + 1, W)
        d = dist[y0:y1, x0:x1] * (comp[y0:y1, x0:x1] == k)
        thick = float(d.max()) if d.size else 0.0
        c = out.setdefault(k, _Component(k))
        mass = float(ink[py, px].sum()) if ink is not None else float(len(seg))
        c.contacts.append(_Contact(r, len(seg), (cx, cy), thick, mass=mass))
    for k, c in out.items():
        x, y, w, h = (int(v) for v in cstats[k, :4])
        vals = dist[y:y + h, x:x + w][comp[y:y + h, x:x + w] == k]
        vals = vals[vals > 0]
        base = float(np.median(vals)) if len(vals) else 1.0
        for ct in c.contacts:
            ct.arrow = ct.thickness >= max(2.0, arrow_ratio * base)
    return out


def _component_edges(c: _Component, regions: list[Region], letters: list[str]
                     ) -> tuple[list[tuple[int, int]], list[str]]:
    """Directed (source, target) region pairs for one connector component, plus notes."""
    contacts = [ct for ct in c.contacts if ct.count >= 2]
    if not contacts:
        return [], []
    if len(contacts) == 1:
        return [], [f"a connector at node {letters[contacts[0].region]} leads nowhere"]
    targets = [ct for ct in contacts if ct.arrow]
    sources = [ct for ct in contacts if not ct.arrow]
    notes: list[str] = []
    if not targets or not sources:
        # no arrowhead seen (or every end looks like one). In small renders the arrowhead is a
        # solid 4-px blob on a pale anti-aliased line: the end with clearly the most ink is the
        # target; then the thickest end; failing both the layout decides (top-down,
        # left-right). Measured on components with two ends and no arrowhead seen (gold
        # regions): 10 small generated charts, right 138 -> 187 of 196 (the layout alone:
        # 77, they are mostly left-right); 7 febench_dev charts, 60 -> 63 of 63.
        by_ink = sorted(contacts, key=lambda ct: -ct.mass)
        ranked = sorted(contacts, key=lambda ct: -ct.thickness)
        if by_ink[0].mass >= 1.3 * max(by_ink[1].mass, 1.0):
            targets, sources = [by_ink[0]], by_ink[1:]
        elif ranked[0].thickness > ranked[-1].thickness * 1.3:
            targets, sources = [ranked[0]], ranked[1:]
        else:
            ranked = sorted(contacts, key=lambda ct: (regions[ct.region].center[1], regions[ct.region].center[0]))
            sources, targets = ranked[:1], ranked[1:]
            notes.append("no arrowhead found between " + ", ".join(letters[ct.region] for ct in contacts)
                         + "; direction guessed from the layout")
    pairs = []
    if len(sources) == 1 or len(targets) == 1:
        pairs = [(s.region, t.region) for s in sources for t in targets]
    else:
        # several of each: pair every target with the nearest source (crossing lines are rare)
        for t in targets:
            s = min(sources, key=lambda s: np.hypot(s.point[0] - t.point[0], s.point[1] - t.point[1]))
            pairs.append((s.region, t.region))
        for s in sources:
            if not any(p[0] == s.region for p in pairs):
                t = min(targets, key=lambda t: np.hypot(s.point[0] - t.point[0], s.point[1] - t.point[1]))
                pairs.append((s.region, t.region))
    return pairs, notes


def _assign_labels(c: _Component, boxes: list[tuple[int, int, int, int]],
                   regions: list[Region], edges: list[tuple[int, int]]) -> dict[int, list[int]]:
    """Edge index -> label boxes: each box goes to the edge whose straight segment (between the
    contact points, else the node centres) passes nearest to it."""
    out: dict[int, list[int]] = {}
    if not edges:
        return out
    pts = {ct.region: ct.point for ct in c.contacts}
    for b in c.label_boxes:
        bx, by = (boxes[b][0] + boxes[b][2]) / 2, (boxes[b][1] + boxes[b][3]) / 2
        best = min(range(len(edges)), key=lambda j: _seg_dist(
            bx, by, *pts.get(edges[j][0], regions[edges[j][0]].center),
            *pts.get(edges[j][1], regions[edges[j][1]].center)))
        out.setdefault(best, []).append(b)
    return out


def _seg_dist(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    vx, vy = bx - ax, by - ay
    L = vx * vx + vy * vy
    t = 0.0 if L == 0 else max(0.0, min(1.0, ((px - ax) * vx + (py - ay) * vy) / L))
    return float(np.hypot(px - ax - t * vx, py - ay - t * vy))
