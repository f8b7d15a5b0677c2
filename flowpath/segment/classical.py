"""Classical (OpenCV) node segmenter: no model, no training, a few hundred ms per chart.

How it finds nodes, in the order the code does it:

1. **Flat regions.** Pixels whose colour differs from a 4-neighbour by more than
   ``edge_threshold`` are boundary pixels (strokes, text, anti-aliasing). The remaining pixels split
   into 4-connected flat regions: the chart background, node fills (white or coloured), edge-label
   boxes, glyph bodies, pockets enclosed by edges.
2. **Node interiors.** A flat region is a node interior when it does not touch the image border,
   is big enough, is (nearly) convex once its holes are filled (node shapes are convex or almost:
   rect, rounded, stadium, diamond, parallelogram, trapezoid, hexagon, circle, cylinder), holds
   text (holes), and is not a glyph (a glyph is about as wide as its own counters are tall).
3. **Edge labels out.** An edge-label box is a flat region too, but it has no stroke around it and
   its text nearly touches its top and bottom; a node has either a stroke or real padding.
4. **Pieces joined.** Shapes drawn with inner lines (cylinder tops, subroutine bars, double
   circles) split their interior into pieces; pieces that touch across a thin line and share a
   full side are merged; a region holding another node-sized region is either its outer ring (a
   double circle: merged, however thin the ring) or a subgraph frame (dropped).
5. **Outline.** The interior grows outwards through its stroke to the stroke's centre line, which
   is where Mermaid's node geometry (and hence the gold regions) lies. "Stroke" is measured
   against the colour the node sits on (the page, or its subgraph's fill). A second outline hugging
   the first with the fill colour between (a double circle too small for its band to be a flat
   region) moves the outline to the outer one's centre line.

Resize policy: images above `CLASSICAL_MAX_PIXELS` (6 Mpx) are processed at the scale that brings
them within it (a 1600 x 8052 benchmark chart runs at ~0.68x), and regions are mapped back to
original pixels. Nothing is tiled: the method is local, so its cost is linear in pixels.

>>> import numpy as np
>>> img = np.full((120, 200, 3), 255, np.uint8)
>>> img[30:90, 40:160] = 0; img[32:88, 42:158] = 230; img[55:65, 60:140] = 20  # a node with text
>>> [tuple(round(v) for v in r.bbox) for r in ClassicalSegmenter()([img])[0]]
[(41, 31, 159, 89)]
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from flowpath.geometry import Region, box_intersection_matrix, box_iou_matrix
from flowpath.models.base import Segmenter
from flowpath.segment.colour import colour_regions
from flowpath.segment.postprocess import (
    CLASSICAL_MAX_PIXELS,
    TEXT_STEP,
    fill_convex_holes,
    fill_holes,
    holds_text,
    polygon_of_contour,
    region_from_polygon,
    resolve_overlaps,
    working_scale,
)
from flowpath.segment.strokes import (
    glyph_height,
    holds_ink,
    ink_mask,
    letter_ink,
    page_contrast,
    stroke_regions,
)

logger = logging.getLogger(__name__)


@dataclass
class _Cand:
    """A candidate node interior in working-image pixels."""

    label: int
    x0: int
    y0: int
    x1: int  # exclusive
    y1: int  # exclusive
    filled: np.ndarray  # bool mask over [y0:y1, x0:x1], holes filled
    area: int  # flat pixels (without holes)
    fill_area: int
    text_h: float  # height of the tallest text blob inside
    text_box: tuple[int, int, int, int] | None  # bbox of the holes, working pixels
    solidity: float
    score: float = 1.0
    #: let in by one line's height (`_touching_lines`): printed charts only
    touching_lines: bool = False

    @property
    def w(self) -> int:
        return self.x1 - self.x0

    @property
    def h(self) -> int:
        return self.y1 - self.y0


class ClassicalSegmenter(Segmenter):
    """Finds flowchart nodes with flat-region analysis (see the module docstring).

    Args:
        max_pixels: images larger than this are processed downscaled (results are still in
            original pixels).
        edge_threshold: colour step (max over RGB, 0-255) that separates flat regions.
        min_size: smallest node side, in working pixels.
        min_solidity: filled area / convex-hull area below which a region is not a node.
        small_text: when the text found is shorter than this (working px), the chart is tiny and
            a second, blob-based pass runs too.
        with_masks: attach COCO RLE masks to the regions (costs ~1 ms per region).
        strokes: also run the stroke pass (`flowpath.segment.strokes`: outlines with gaps,
            hachure fills, paper ruling), whose nodes fill in where flat interiors fail.
        colour: also run the colour-layer pass (`flowpath.segment.colour`: saturated fills,
            gradients, JPEG), likewise.
        page: find a sheet of paper in photos (`flowpath.segment.page`) and segment it
            rectified and cleaned, with regions mapped back to the photo.
    """

    name = "classical"

    def __init__(self, *, max_pixels: int = CLASSICAL_MAX_PIXELS, edge_threshold: int = 20,
                 min_size: int = 8, min_solidity: float = 0.85, small_text: float = 10.0,
                 with_masks: bool = True, strokes: bool = True, colour: bool = True,
                 page: bool = True) -> None:
        if max_pixels < 10_000:
            raise ValueError(f"max_pixels must be >= 10000, got {max_pixels}")
        self.max_pixels = int(max_pixels)
        self.edge_threshold = int(edge_threshold)
        self.min_size = int(min_size)
        self.min_solidity = float(min_solidity)
        self.small_text = float(small_text)
        self.with_masks = with_masks
        self.strokes = strokes
        self.colour = colour
        self.page = page
        #: why the last image gave no regions (empty string when it gave some)
        self.last_reasons: list[str] = []

    def __call__(self, images: list[np.ndarray]) -> list[list[Region]]:
        from flowpath.io import load_image

        out: list[list[Region]] = []
        self.last_reasons = []
        for k, image in enumerate(images):
            arr = load_image(image, name=f"image {k}")
            regions, reason = self.segment(arr)
            if reason:
                logger.info("image %d: no nodes found (%s)", k, reason)
            self.last_reasons.append(reason)
            out.append(regions)
        return out

    # -- one image -------------------------------------------------------------------------
    def segment(self, image: np.ndarray, *, passes: bool | None = None) -> tuple[list[Region], str]:
        """Regions of one RGB image plus a reason string when none were found.

        Args:
            image: RGB uint8.
            passes: run the stroke and colour passes; None: unless the image is a clean render,
                and a photo of a sheet of paper goes through `flowpath.segment.page` first.
        """
        import cv2

        H, W = image.shape[:2]
        if H < 16 or W < 16:
            return [], f"image is only {W}x{H} px, too small to hold a flowchart node"
        scale = working_scale(H, W, self.max_pixels)
        work = image if scale >= 1.0 else cv2.resize(
            image, (max(1, round(W * scale)), max(1, round(H * scale))), interpolation=cv2.INTER_AREA)
        sx = work.shape[1] / W
        sy = work.shape[0] / H
        # a clean render is what the flat pass is built for (and febench is nothing else): the
        # page, stroke and colour passes run on photographed, scanned, JPEG or noisy charts (on
        # other clean renders the stroke pass costs ~3x the time and adds false nodes)
        clean = _is_clean_render(work) if passes is None else not passes
        if passes is None and self.page and not clean:
            from flowpath.segment.page import segment_page

            on_page = segment_page(self, image)
            if on_page is not None:
                return on_page
        bg = _background_colour(work)
        self._profiles: dict[tuple, tuple] = {}
        self._walks: dict[tuple, tuple] = {}
        self._surrounds: dict[tuple, np.ndarray] = {}
        self._bg_of: dict[tuple, np.ndarray] = {}
        self._fill_of: dict[tuple, np.ndarray] = {}
        flat = ~_boundary_mask(work, self.edge_threshold)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(flat.astype(np.uint8), connectivity=4)
        cands = self._candidates(work, labels, stats, n)
        # the stroke pass also runs on clean renders whose flat pass shows a hand-drawn look,
        # and on small ones, where it costs little and a sketch's look is under a pixel
        # the hand-drawn look is judged on node-like interiors: a pocket of page closed by
        # connectors (its edge labels on its rim) is no outline anybody drew
        middle: dict[int, bool] = {}  # `_label_in_middle` per candidate, asked at most once

        def in_middle(c: _Cand) -> bool:
            if id(c) not in middle:
                middle[id(c)] = _label_in_middle(c, labels)
            return middle[id(c)]

        sketch: list[bool] = []  # `_looks_hand_drawn`, asked at most once

        def looks_hand_drawn() -> bool:
            if not sketch:
                sketch.append(_looks_hand_drawn([c for c in cands if in_middle(c) and not c.touching_lines], n,
                                                work.shape[0] * work.shape[1], work, bg))
            return sketch[0]

        rough = clean and (work.shape[0] * work.shape[1] <= SKETCH_ALWAYS_PIXELS or looks_hand_drawn())
        # the rules for small print (`_touching_lines`, `fill_convex_holes`) were measured on
        # clean printed renders (small ones too); hand-drawn charts, web JPEGs and photographed
        # sheets keep theirs
        printed = clean and passes is None and not (rough and looks_hand_drawn())
        if not printed:
            cands = [c for c in cands if not c.touching_lines]
        text_h = float(np.median([c.text_h for c in cands])) if cands else 0.0
        ink = None
        letters = None  # the ink the letters are in (`holds_ink`, `glyph_height`)
        letter = 0.0
        if self.strokes and rough:
            # on a clean hand-drawn render only the pen is ink: a hachure in a tinted fill
            # colour is 30-40 % darker than the page and would fill every node's inside; a
            # thin font squeezed under a pixel's width is fainter than that (`letter_ink`)
            contrast = page_contrast(work)
            ink = contrast > HAND_DRAWN_INK_CONTRAST
            letters = letter_ink(ink, contrast > PAGE_INK_CONTRAST)
            letter = glyph_height(letters)
        elif self.strokes and not clean:
            ink = letters = ink_mask(work, PAGE_INK_CONTRAST)
        blobs: list[Region] = []
        if text_h < self.small_text:
            # tiny chart (e.g. a wide left-to-right chart squeezed to 1600 px): text touches the
            # node outlines and splits the flat interiors, so also look for solid blobs
            pen = (work.mean(axis=2) < 0.45 * float(bg.mean())) if rough else None
            blobs = self._blob_regions(work, bg, sx, sy, (H, W), pen=pen, convex_holes=printed)
        strokes = (stroke_regions(work, sx, sy, (H, W), ink=ink, with_masks=self.with_masks,
                                  bridge=HAND_DRAWN_BRIDGE if rough else 0.0, enclosed=rough,
                                  fine_gap=HAND_DRAWN_FINE_GAP if rough else 0, letter=letter if rough else None)
                   if ink is not None else [])
        # printed charts are cropped tight to the drawing: a node may touch the image's edge
        colours = (colour_regions(work, sx, sy, (H, W), with_masks=self.with_masks,
                                  edge_run=EDGE_CHORD if passes is None else 0.0)
                   if self.colour and not clean else [])
        if not cands and not blobs and not strokes and not colours:
            return [], "no closed, text-holding shapes found (not a flowchart, or an unsupported style)"
        cands = [c for c in cands if not self._is_edge_label(work, c, bg)]
        if passes is None and not rough:  # printed charts: hand-drawn and photo paths keep theirs
            cands = [c for c in cands if in_middle(c)]
        if colours:
            cands = [c for c in cands if not self._is_pocket(work, c, colours, sx, sy)]
        cands = _merge_pieces(cands, labels)
        cands = _drop_frames(cands)
        regions: list[Region] = []
        page_coloured: list[bool] = []
        for c in cands:
            mask, y0, x0 = self._grow_to_stroke(work, c, bg)
            r = self._region(mask, x0, y0, c.score, sx, sy, (H, W))
            if r is not None:
                regions.append(r)
                inner = work[c.y0:c.y1, c.x0:c.x1][c.filled]
                page_coloured.append(bool(len(inner)) and float(
                    np.abs(np.median(inner, axis=0) - bg).max()) <= POCKET_FILL_STEP)
        if passes is None and not rough:
            regions = _drop_loop_lenses(regions, page_coloured, (1.0 + LENS_TOUCH) / min(sx, sy))
        if colours and blobs:  # the colour layer outlines a filled node closer than a blob
            iou = box_iou_matrix(np.array([b.bbox for b in blobs], float), np.array([c.bbox for c in colours], float))
            blobs = [b for b, row in zip(blobs, iou, strict=True) if not (row >= 0.5).any()]
        if rough:  # a blob keeps the arrowheads and overshoots touching an outline
            blobs = _yield_to_strokes(blobs, strokes)
            # a letter's counter (O, D, B) closed by the pen is a solid, outlined blob too
            blobs = _letter_sized_out(blobs, letter, sx, sy)
        flat_regions = regions + blobs
        if letters is not None:  # cells of squared paper are flat regions that hold no ink
            flat_regions = holds_ink(flat_regions, letters, sx, sy)
        if rough:  # a subgraph frame whose hachure-filled nodes only the stroke pass found
            flat_regions = _frames_out(flat_regions, strokes, letter, sx, sy)
        regions = _prefer_filled(_prefer_outlined(flat_regions, strokes), colours)
        regions = resolve_overlaps(regions, iou_threshold=0.3, containment=0.7)
        if rough:
            regions = _drop_pockets(regions, strokes)
        if passes is None and self.page and not clean:  # a photo whose sheet was not found
            regions = _drop_grid_cells(regions, work, sx, sy)
        if not regions:
            return [], "candidate shapes were all rejected (edge labels, frames or text only)"
        return regions, ""

    def _region(self, mask: np.ndarray, x0: int, y0: int, score: float, sx: float, sy: float,
                out_size: tuple[int, int]) -> Region | None:
        """`Region` of a crop mask at offset ``(x0, y0)`` of a working image scaled by (sx, sy)."""
        import cv2

        contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if not contours:
            return None
        c = max(contours, key=cv2.contourArea)
        if cv2.contourArea(c) < 4:
            return None
        # contour points are the centres of the outermost pixels; the mask's true outline runs
        # half a pixel further out (pixel i spans [i, i + 1))
        pts = np.asarray(polygon_of_contour(c), dtype=float)
        centre = pts.mean(axis=0)
        pts = pts + 0.5 + 0.5 * np.sign(pts - centre)
        poly = [((x + x0) / sx, (y + y0) / sy) for x, y in pts]
        return region_from_polygon(poly, out_size[0], out_size[1], score, with_mask=self.with_masks)

    def _blob_regions(self, work: np.ndarray, bg: np.ndarray, sx: float, sy: float,
                      out_size: tuple[int, int], pen: np.ndarray | None = None,
                      convex_holes: bool = False) -> list[Region]:
        """Small-scale pass: non-background pixels, outlines closed by hole filling, thin
        strokes (edges, text outside nodes) removed by a 3x3 opening; solid, convex blobs that
        hold no other blob are nodes. Scored below flat-region detections, which win overlaps.

        With ``pen`` (dark pen pixels of a hand-drawn chart, whose flat pass found nothing because
        hachure fills or open outlines broke it) a blob mostly drawn in pen is a letter with its
        counter filled, not a node, whose inside is mostly fill or paper: dropped; so is a blob
        with no pen inside (a letter's counter filled with hachure: nodes hold text). With
        ``convex_holes`` (printed charts) only convex holes are filled (`fill_convex_holes`)."""
        import cv2

        H, W = work.shape[:2]
        fg = (np.abs(work.astype(np.int16) - bg).max(axis=2) > 30).astype(np.uint8)
        # with ``convex_holes`` (printed charts) node insides are filled, not the page the
        # connectors close off between the nodes
        solid = fill_convex_holes(fg, self.min_solidity) if convex_holes else fill_holes(fg)
        solid = cv2.morphologyEx(solid, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        n, lab, st, _ = cv2.connectedComponentsWithStats(solid, connectivity=4)
        boxes, polys = [], []
        for i in range(1, n):
            x, y, w, h, area = st[i]
            if w < 6 or h < 6 or area < 40 or x == 0 or y == 0 or x + w >= W or y + h >= H:
                continue
            m = (lab[y:y + h, x:x + w] == i).astype(np.uint8)
            cs, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            c = max(cs, key=cv2.contourArea)
            hull = cv2.contourArea(cv2.convexHull(c)) + cv2.arcLength(c, True) / 2
            if area / max(hull, 1.0) < self.min_solidity:
                continue
            if pen is None and not _blob_holds_text(work[y:y + h, x:x + w], m):
                continue  # one colour throughout (a filled dot): a node holds a label (on a
                # hand-drawn chart the pen inside is the label, tested below)
            if pen is not None:
                blob = (lab[y:y + h, x:x + w] == i).astype(np.uint8)
                held = pen[y:y + h, x:x + w] & cv2.erode(blob, np.ones((5, 5), np.uint8)).astype(bool)
                if pen[y:y + h, x:x + w][blob.astype(bool)].mean() > MAX_BLOB_INK or held.sum() < 10:
                    continue  # a letter (counter filled), or a counter's hachure with no text
            boxes.append((x, y, x + w, y + h))
            pts = np.asarray(polygon_of_contour(c), dtype=float)
            pts = pts + 0.5 + 0.5 * np.sign(pts - pts.mean(axis=0))
            polys.append([((px + x) / sx, (py + y) / sy) for px, py in pts])
        out = []
        for k, (x0, y0, x1, y1) in enumerate(boxes):
            holds = any(j != k and b[0] >= x0 and b[1] >= y0 and b[2] <= x1 and b[3] <= y1
                        for j, b in enumerate(boxes))
            if not holds:  # a blob around other blobs is a frame or an edge loop
                out.append(region_from_polygon(polys[k], out_size[0], out_size[1], 0.45,
                                               with_mask=self.with_masks))
        return out

    def _candidates(self, work: np.ndarray, labels: np.ndarray, stats: np.ndarray, n: int) -> list[_Cand]:
        import cv2

        H, W = labels.shape
        ms = self.min_size
        out: list[_Cand] = []
        rings: list[tuple] = []
        x, y, w, h, area = (stats[:, i] for i in range(5))
        keep = (w >= ms) & (h >= ms) & (x > 0) & (y > 0) & (x + w < W) & (y + h < H)
        keep[0] = keep[0] and False
        # a node's flat interior covers a good part of its box (a diamond 50 %, text eats some);
        # thinner regions can still be the band between a double circle's two outlines (a
        # band 5 % of the diameter wide covers ~16 % of its box), looked at once candidates exist
        thin = keep & (area < 0.2 * w * h)
        keep &= ~thin
        for i in np.nonzero(keep)[0]:
            x0, y0, x1, y1 = int(x[i]), int(y[i]), int(x[i] + w[i]), int(y[i] + h[i])
            m = (labels[y0:y1, x0:x1] == i).astype(np.uint8)
            contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            if not contours:
                continue
            outer = max(contours, key=cv2.contourArea)
            filled = np.zeros_like(m)
            cv2.drawContours(filled, [outer], -1, 1, thickness=-1)
            filled |= m
            fill_area = int(filled.sum())
            if area[i] < 0.3 * fill_area:
                # a ring: a thick stroke, or the band between a double circle's two outlines
                ring_col = np.median(work[y0:y1, x0:x1][m.astype(bool)], axis=0)
                rings.append((x0, y0, x1, y1, filled.astype(bool), fill_area, ring_col))
                continue
            hull_area = cv2.contourArea(cv2.convexHull(outer)) + cv2.arcLength(outer, True) / 2
            solidity = fill_area / max(hull_area, 1.0)
            if solidity < self.min_solidity:
                continue
            holes = filled.astype(bool) & ~m.astype(bool)
            if not holes.any():  # nodes hold text; empty pockets between edges do not
                continue
            text_h = float(_tallest_line(holes))
            touching = False
            if w[i] < 2.0 * text_h:
                continue  # a glyph body around its counters
            if h[i] < 1.2 * text_h:
                # a tiny pocket round a word, or small print whose lines touch (no empty row
                # between them): then the height of one of its lines is what counts
                text_h = float(_touching_lines(holes))
                if h[i] < 1.2 * text_h:
                    continue
                touching = True
            if not _holes_hold_text(work[y0:y1, x0:x1], m.astype(bool), holes):
                continue  # JPEG specks in a filled dot (an activity diagram's start)
            ys, xs = np.nonzero(holes)
            text_box = (int(xs.min()) + x0, int(ys.min()) + y0, int(xs.max()) + x0 + 1, int(ys.max()) + y0 + 1)
            out.append(_Cand(int(i), x0, y0, x1, y1, filled.astype(bool), int(area[i]), fill_area,
                             text_h, text_box, float(solidity),
                             score=float(np.clip(0.5 + 0.5 * min(solidity, 1.0), 0, 1)), touching_lines=touching))
        if out and thin.any():
            rings += _enclosing_rings(out, labels, stats, np.nonzero(thin)[0], work)
        return _adopt_outer_rings(out, rings, work)

    def _stroke_profile(self, work: np.ndarray, c: _Cand, bg: np.ndarray
                        ) -> tuple[list[float], np.ndarray, int, int]:
        """Walk outwards from the interior one pixel ring at a time (rings of a 4-connected
        distance transform, i.e. the successive 3x3-cross dilations).

        Returns ``(stroke_fraction per distance 1..maxd, interior crop mask, y0, x0)``. A ring
        pixel counts as stroke when its colour is not on the line between the fill colour and
        the background colour (anti-aliasing between fill and background lies on that line, a
        stroke of its own colour does not). Cached per candidate.
        """
        import cv2

        key = (c.x0, c.y0, c.x1, c.y1, c.fill_area)
        if key in self._profiles:
            return self._profiles[key]
        maxd = max(8, int(round(0.5 * c.text_h)))
        p = maxd + 2
        H, W = work.shape[:2]
        ya, yb, xa, xb = max(c.y0 - p, 0), min(c.y1 + p, H), max(c.x0 - p, 0), min(c.x1 + p, W)
        m = np.zeros((yb - ya, xb - xa), np.uint8)
        m[c.y0 - ya:c.y0 - ya + c.h, c.x0 - xa:c.x0 - xa + c.w] = c.filled
        inner = work[c.y0:c.y1, c.x0:c.x1][c.filled]
        fill = np.median(inner, axis=0).astype(np.float32) if len(inner) else bg.astype(np.float32)
        dist = cv2.distanceTransform(1 - m, cv2.DIST_L1, 3)
        band = (dist >= 1) & (dist <= maxd)
        d = dist[band].astype(np.int64)
        px = work[ya:yb, xa:xb][band].astype(np.float32)
        # a node on a subgraph's fill: stroke is what differs from that fill (looked for only
        # when the walk's last ring is mostly not the page background)
        last = px[d == d.max()] if len(d) else px
        if len(last) and (np.abs(last - bg).max(axis=1) > 24).mean() > 0.5:
            bg = self._surround(work, c, bg)
        self._bg_of[key] = bg
        self._fill_of[key] = fill
        seg = bg.astype(np.float32) - fill
        seg_len2 = float(seg @ seg)
        t = np.clip(((px - fill) @ seg) / seg_len2, 0, 1) if seg_len2 > 0 else np.zeros(len(px), np.float32)
        other = np.abs(px - (fill + t[:, None] * seg)).max(axis=1) > 24
        total = np.bincount(d, minlength=maxd + 1)[1:].astype(float)
        ok = total > 0
        n = int(np.argmin(ok)) if not ok.all() else len(ok)  # rings up to the first empty one
        fr_other = (np.bincount(d, weights=other, minlength=maxd + 1)[1:] / np.maximum(total, 1))[:n]
        result = ([float(v) for v in fr_other], m, ya, xa)
        self._profiles[key] = result
        return result

    @staticmethod
    def _stroke_width(fracs: list[float]) -> int:
        """Rings of stroke right outside the interior (the first two rings may still be
        boundary-marked fill)."""
        t = 0
        for d, f in enumerate(fracs):
            if f > 0.5:
                t += 1
            elif t or d >= 2:
                break
        return t

    @staticmethod
    def _stroke_start(fracs: list[float]) -> int:
        """Index of the first stroke ring (0 or 1 or 2), or the count of leading fill rings."""
        for d, f in enumerate(fracs[:3]):
            if f > 0.5:
                return d
        return 1

    def _is_edge_label(self, work: np.ndarray, c: _Cand, bg: np.ndarray) -> bool:
        """An edge-label box: Mermaid sizes it to its text, with no stroke. So a region without
        a stroke whose text (ink of another colour) reaches within a few px of its left or right
        side is an edge label; nodes keep a padding of about a glyph height around their text."""
        import cv2

        fracs, m, ya, xa = self._stroke_profile(work, c, bg)
        if self._stroke_width(fracs) > 0:
            return False
        # ink touching the region's edge is not a hole of the flat region: look 2 px further out
        reach = cv2.dilate(m, np.ones((5, 5), np.uint8)).astype(bool)
        crop = work[ya:ya + m.shape[0], xa:xa + m.shape[1]].astype(np.int16)
        inner = work[c.y0:c.y1, c.x0:c.x1][c.filled]
        fill = np.median(inner, axis=0).astype(np.int16)
        ink = reach & (np.abs(crop - fill).max(axis=2) > 60) & (np.abs(crop - bg).max(axis=2) > 60)
        # keep ink blobs lying mostly inside the region (text), not edges that end at its border
        n, lab, st, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
        # convex hull: text touching the box edge makes notches in the flat region itself
        # (the hull of the outer contours' corners is the hull of every pixel, from a few dozen
        # points instead of the whole region's: 6 ms -> 0.2 ms per label-sized region)
        outlines, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        hull = np.zeros_like(m)
        cv2.fillConvexPoly(hull, cv2.convexHull(np.concatenate(outlines)), 1)
        inside = np.bincount(lab[hull.astype(bool)], minlength=n)
        keep = (inside >= 0.5 * st[:, cv2.CC_STAT_AREA])
        keep[0] = False
        ink = keep[lab]
        if not ink.any():
            return False
        cols = np.nonzero(ink.any(axis=0))[0]
        rows = np.nonzero(m.any(axis=1))[0]
        box_cols = np.nonzero(m.any(axis=0))[0]
        hpad = min(cols.min() - box_cols.min(), box_cols.max() - cols.max())
        ink_rows = np.nonzero(ink.any(axis=1))[0]
        # label boxes are exactly their text lines tall; nodes add padding above and below
        vpad = (ink_rows.min() - rows.min()) + (rows.max() - ink_rows.max())
        return hpad <= max(3, 0.2 * c.text_h) or vpad <= 0.5 * c.text_h

    def _is_pocket(self, work: np.ndarray, c: _Cand, colours: list[Region], sx: float, sy: float) -> bool:
        """A pocket of page between connectors and coloured nodes, not a node: on a chart whose
        nodes the colour pass found, a flat region of the colour it sits on (within
        `POCKET_FILL_STEP`) whose box runs into a coloured node's box (a pocket is bounded by
        connectors and by the nodes they join; a node keeps clear of its neighbours). On the wild
        tuning sets every flat interior matching a node differed from its surround by >= 115."""
        key = (c.x0, c.y0, c.x1, c.y1, c.fill_area)
        inner = work[c.y0:c.y1, c.x0:c.x1][c.filled]
        if key not in self._bg_of or not len(inner):
            return False
        fill = np.median(inner, axis=0)
        if np.abs(fill - self._bg_of[key]).max() > POCKET_FILL_STEP:
            return False
        for r in colours:
            x0, y0, x1, y1 = r.bbox[0] * sx, r.bbox[1] * sy, r.bbox[2] * sx, r.bbox[3] * sy
            if min(x1, c.x1) - max(x0, c.x0) >= 2 and min(y1, c.y1) - max(y0, c.y0) >= 2:
                return True
        return False

    def _grow_to_stroke(self, work: np.ndarray, c: _Cand, bg: np.ndarray) -> tuple[np.ndarray, int, int]:
        """Grow the interior outwards to the centre line of its stroke (where Mermaid's node
        geometry lies): 1 px of boundary-marked fill, then half the stroke.

        Returns ``(mask, y0, x0)``: a crop mask and its offset in the working image.
        """
        import cv2

        fracs, m, ya, xa = self._stroke_profile(work, c, bg)
        t = self._stroke_width(fracs)
        grow = (self._stroke_start(fracs) if t else 1) + int(round(t / 2.0 + 1e-6))
        # circles may have a second outline (Mermaid's double circle; the Euclidean walk is
        # skipped for the other shapes, whose boxes are not square or not ~pi/4 filled), and
        # boxes a second rectangle with the page between (Graphviz's ``peripheries=2``)
        if t and abs(c.w - c.h) <= 0.1 * max(c.w, c.h) and 0.7 <= c.fill_area / (c.w * c.h) <= 0.86:
            outer = self._second_outline(work, c, bg)
            if outer is not None:
                return outer
        elif t:
            outer = self._second_box(work, c)
            if outer is not None:
                return outer
        out = cv2.dilate(m, cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3)), iterations=grow) if grow else m
        return out.astype(bool), ya, xa

    def _second_outline(self, work: np.ndarray, c: _Cand, bg: np.ndarray
                        ) -> tuple[np.ndarray, int, int] | None:
        """A second outline right around the stroke, with the fill colour between (a double
        circle whose band is too thin to be a flat region of its own, so `_adopt_outer_rings`
        could not see it): the node ends at the outer outline's centre line.

        Walks rings of the Euclidean distance from the interior. The 4-connected rings of
        `_stroke_profile` cannot be used: on a circle's diagonals they run at 1/sqrt(2) of the
        distance, so each of them cuts across stroke, band and outer stroke and none is mostly
        outer stroke. The walk spans a text line's height (Mermaid puts the outer circle 5 px
        outside the inner one, under half a line). When the fill is the background colour
        (unfilled themes) the band is background, so the outer outline must cover most of its
        ring (>= 60 %) and carry at least 70 % of the inner outline's ink, as a neighbour's
        stroke or an edge passing by does not.

        Returns ``(mask, y0, x0)`` grown to the outer centre line, or None (no second outline).
        """
        dist, ya, xa, maxd = self._euclidean_walk(work, c)
        inner = work[c.y0:c.y1, c.x0:c.x1][c.filled]
        if not len(inner):
            return None
        fill = np.median(inner, axis=0).astype(np.float32)
        bg = self._bg_of[(c.x0, c.y0, c.x1, c.y1, c.fill_area)]  # the surround `_stroke_profile` used
        ring = np.rint(dist).astype(np.int64)
        sel = (ring >= 1) & (ring <= maxd)
        d = ring[sel]
        px = work[ya:ya + dist.shape[0], xa:xa + dist.shape[1]][sel].astype(np.float32)
        seg = bg.astype(np.float32) - fill
        seg_len2 = float(seg @ seg)
        fill_is_bg = seg_len2 <= 3 * 24 ** 2
        t = np.clip(((px - fill) @ seg) / seg_len2, 0, 1) if seg_len2 > 0 else np.zeros(len(px), np.float32)
        other = np.abs(px - (fill + t[:, None] * seg)).max(axis=1) > 24
        # the band is the fill colour; with a background-coloured fill, either colour
        band_like = np.abs(px - fill).max(axis=1) <= 24
        if fill_is_bg:
            band_like |= np.abs(px - bg.astype(np.float32)).max(axis=1) <= 24
        total = np.bincount(d, minlength=maxd + 1)[1:].astype(float)
        if not (total > 0).all():
            return None  # the crop hit the image border
        f_other = np.bincount(d, weights=other, minlength=maxd + 1)[1:] / total
        f_band = np.bincount(d, weights=band_like, minlength=maxd + 1)[1:] / total
        grow = _outer_outline(f_other, f_band, c.text_h, all_round=fill_is_bg)
        return None if grow is None else (ring <= grow, ya, xa)

    def _second_box(self, work: np.ndarray, c: _Cand) -> tuple[np.ndarray, int, int] | None:
        """A second rectangle right around a box's stroke with the page between (Graphviz's
        ``peripheries=2``, the generator's subroutine shape): the node ends at the outer
        rectangle's centre line, where the node's geometry lies and where its connectors end.
        Left outside the node, the outer outline joined the connector entering the box to the
        one leaving it, and a small box found as its inner one missed its region at IoU 0.7.

        A rectangular interior's rings are its box's sides moved out one px at a time, so the
        walk reads four strips of pixels (cheap enough to ask of every box). The page between
        the outlines is what lies outside every node, so the outer rectangle must go all the way
        round (`_outer_outline`), as a neighbour's outline or a connector running by does not.

        Returns ``(mask, y0, x0)``: the box grown to the outer centre line, or None.
        """
        if c.fill_area < 0.9 * c.w * c.h:
            return None  # not a box
        H, W = work.shape[:2]
        # a text line's height (at least 12 px), or less where the box nears the image's edge
        # (a wide left-to-right chart squeezed to 72 px high)
        reach = min(max(12, int(round(c.text_h))), c.y0, c.x0, H - c.y1, W - c.x1)
        if reach < 4:
            return None
        key = (c.x0, c.y0, c.x1, c.y1, c.fill_area)
        fill, bg = self._fill_of[key], self._bg_of[key].astype(np.float32)  # as `_stroke_profile`'s
        seg = bg - fill
        seg_len2 = max(float(seg @ seg), 1e-6)

        def walk(strip: np.ndarray) -> int | None:
            # row d - 1 of a strip lies d px outside the box
            px = strip.astype(np.float32)
            t = np.clip(((px - fill) @ seg) / seg_len2, 0, 1)
            other = np.abs(px - (fill + t[..., None] * seg)).max(axis=2) > 24
            page = np.abs(px - bg).max(axis=2) <= 24
            # a rectangle's side lies on one ring (so most of it is stroke), while the ring
            # right inside the box's stroke is often anti-aliased fill counted as stroke
            # (inner outline 3 rings of ink, outer 2: `_second_outline`'s 0.7 of the ink is
            # too strict here)
            return _outer_outline(other.mean(axis=1), page.mean(axis=1), c.text_h, all_round=True,
                                  cover=0.8, min_ink=0.5)

        # the top side alone first: most boxes have no second outline, and it costs a quarter
        if walk(work[c.y0 - reach:c.y0, c.x0:c.x1:3][::-1]) is None:
            return None
        grow = walk(np.concatenate([
            work[c.y0 - reach:c.y0, c.x0:c.x1][::-1], work[c.y1:c.y1 + reach, c.x0:c.x1],
            work[c.y0:c.y1, c.x0 - reach:c.x0][:, ::-1].transpose(1, 0, 2),
            work[c.y0:c.y1, c.x1:c.x1 + reach].transpose(1, 0, 2)], axis=1))
        if grow is None:
            return None
        mask = np.ones((c.h + 2 * grow, c.w + 2 * grow), bool)
        return mask, c.y0 - grow, c.x0 - grow

    def _euclidean_walk(self, work: np.ndarray, c: _Cand) -> tuple[np.ndarray, int, int, int]:
        """Euclidean distance from the interior over a crop reaching a text line's height
        (at least 12 px) beyond it: ``(dist, y0, x0, reach)``. Cached per candidate."""
        import cv2

        key = (c.x0, c.y0, c.x1, c.y1, c.fill_area)
        if key not in self._walks:
            maxd = max(12, int(round(c.text_h)))
            p = maxd + 2
            H, W = work.shape[:2]
            ya, yb, xa, xb = max(c.y0 - p, 0), min(c.y1 + p, H), max(c.x0 - p, 0), min(c.x1 + p, W)
            m = np.zeros((yb - ya, xb - xa), np.uint8)
            m[c.y0 - ya:c.y0 - ya + c.h, c.x0 - xa:c.x0 - xa + c.w] = c.filled
            dist = cv2.distanceTransform(1 - m, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
            self._walks[key] = (dist, ya, xa, maxd)
        return self._walks[key]

    def _surround(self, work: np.ndarray, c: _Cand, bg: np.ndarray) -> np.ndarray:
        """The colour a node sits on: the page background, or the fill of the subgraph holding
        it. Taken from the ring a text line's height outside the interior (past any stroke or
        second outline) when most of that ring is one colour other than the node's fill;
        otherwise ``bg``. Without it a node on a coloured subgraph fill would count the fill
        around it as stroke and grow far past its outline. Cached per candidate."""
        key = (c.x0, c.y0, c.x1, c.y1, c.fill_area)
        if key not in self._surrounds:
            dist, ya, xa, maxd = self._euclidean_walk(work, c)
            far = (dist > maxd - 1) & (dist <= maxd)
            px = work[ya:ya + dist.shape[0], xa:xa + dist.shape[1]][far].astype(np.int16)
            out = bg
            if len(px):
                med = np.median(px, axis=0).astype(np.int16)
                inner = work[c.y0:c.y1, c.x0:c.x1][c.filled].astype(np.int16)
                fill = np.median(inner, axis=0) if len(inner) else med
                if (np.abs(med - bg).max() > 24 and np.abs(med - fill).max() > 24
                        and (np.abs(px - med).max(axis=1) <= 24).mean() >= 0.6):
                    out = med
            self._surrounds[key] = out
        return self._surrounds[key]


def _outer_outline(f_other: np.ndarray, f_band: np.ndarray, text_h: float, all_round: bool,
                   cover: float = 0.6, min_ink: float = 0.7) -> int | None:
    """Where a second outline hugging a node's stroke ends, from a walk outwards over rings
    1, 2, ... px outside the interior: ``f_other[i]``, the share of ring i + 1 that is stroke
    (neither fill nor background), ``f_band[i]`` the share of the band's colour.

    The walk must see the stroke, a band of the band's colour no wider than half a text line
    (a double circle's 5 px, Graphviz's 4 pt), and a second stroke of about the same width
    that ends inside the walk. ``all_round``: the band could be what lies outside any node (the
    page), so the outer stroke must cover most of its ring (``cover``) and carry ``min_ink`` of
    the inner stroke's ink, as a neighbour's stroke or an edge passing by does not.

    Returns the ring up to which the node reaches (the outer stroke's inner half, rounded up
    as `ClassicalSegmenter._grow_to_stroke` does: the region's outline runs half a pixel
    outside its pixels), or None.
    """
    n = len(f_other)
    k = next((k for k in range(min(3, n)) if f_other[k] > 0.5), None)
    if k is None:
        return None
    s1 = k
    while k < n and f_other[k] > 0.5:
        k += 1
    b0 = k  # the band: rings up to the next stroke (the rings beside a stroke are mixed)
    while k < n and f_other[k] <= 0.5:
        k += 1
    s2 = k
    while k < n and f_other[k] > 0.5:
        k += 1
    t1, band, t2 = b0 - s1, s2 - b0, k - s2
    if not (band and t2 and k < n):
        return None  # no band, no outer stroke, or the outer stroke runs off the walk
    if band > max(2.0, 0.5 * text_h) or t2 > 2 * t1 + 2:
        return None  # too far out for a second outline, or not a stroke
    if f_band[b0:s2].max() < 0.8:
        return None  # no ring of the band's colour between the outlines
    # an outline's ink spreads over two or three rings (anti-aliasing, sub-pixel position):
    # compare the two outlines' ink summed over their rings and one ring either side
    ink1, ink2 = f_other[max(s1 - 1, 0):b0 + 1].sum(), f_other[s2 - 1:k + 1].sum()
    if all_round and (f_other[s2:k].max() < cover or ink2 < min_ink * ink1):
        return None  # not all the way round: a neighbour's stroke or an edge
    # rings s2 + 1 .. s2 + t2 hold the outer stroke: keep its inner half
    return s2 + (t2 + 1) // 2


#: a region is one cell of squared paper when each side of its box is within these shares of
#: the ruling's period (a cell's inside is its period less the line's width; a node holding a
#: word is wider than one cell)
GRID_CELL_SIDES = (0.6, 1.15)


def _drop_grid_cells(regions: list[Region], work: np.ndarray, sx: float, sy: float) -> list[Region]:
    """Regions without the cells of squared paper: on a photo whose sheet was not found (its
    ruling is then still in the image), a region both of whose sides are about one period of a
    ruling found along rows and along columns (`page.ruling_period`) is a grid cell, never a
    node. The period is only measured when some region is small enough to be a cell."""
    lo, hi = GRID_CELL_SIDES

    def side(r: Region, axis: int) -> float:
        return (r.bbox[axis + 2] - r.bbox[axis]) * (sx if axis == 0 else sy)

    from flowpath.segment.page import MAX_PERIOD, ruling_period

    if not any(side(r, 0) <= hi * MAX_PERIOD and side(r, 1) <= hi * MAX_PERIOD for r in regions):
        return regions
    rows, cols = ruling_period(work)
    if rows is None or cols is None:
        return regions
    return [r for r in regions
            if not (lo * cols <= side(r, 0) <= hi * cols and lo * rows <= side(r, 1) <= hi * rows)]


def _prefer_outlined(flat: list[Region], strokes: list[Region]) -> list[Region]:
    """Flat-pass regions plus the stroke-pass regions that do not compete with them.

    A stroke node holding a flat region of comparable size (>= 30 % of its box) lost to it: the
    flat pass traces the outline exactly. One holding two or more flat nodes of at least
    `FRAME_NODE_SHARE` of its box each is a subgraph frame or a loop of connectors (a closed
    frame's inside is filled whole by the stroke pass). Flat regions small against a stroke node holding them
    (glyph counters, strips between hachure lines) are pieces of that node's inside: dropped."""
    def area(b: tuple[float, float, float, float]) -> float:
        return max(b[2] - b[0], 0.0) * max(b[3] - b[1], 0.0)

    def inside(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
        ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
        iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
        return ix * iy / max(area(a), 1e-9)

    drop: set[int] = set()
    keep_strokes = []
    for s in strokes:
        held = [i for i, f in enumerate(flat) if inside(f.bbox, s.bbox) >= 0.8]
        sizes = [area(flat[i].bbox) / max(area(s.bbox), 1e-9) for i in held]
        if any(v >= 0.3 for v in sizes) or sum(v >= FRAME_NODE_SHARE for v in sizes) >= 2:
            continue  # holds real nodes: a frame or a loop of connectors
        if any(inside(s.bbox, f.bbox) >= 0.5 for f in flat):
            continue  # overlaps a flat node: the flat one wins
        drop.update(held)
        keep_strokes.append(s)
    return [f for i, f in enumerate(flat) if i not in drop] + keep_strokes


def _yield_to_strokes(blobs: list[Region], strokes: list[Region]) -> list[Region]:
    """The small-chart pass's blobs less those a stroke-pass node matches (box IoU >= 0.5) or
    lies in (>= 80 % of its box) while covering `YIELD_SHARE` of the blob's box. On a
    hand-drawn chart a solid blob keeps the arrowhead or overshoot that touches a node's
    outline, so its box runs past the node; the paper the outline encloses does not. A stroke
    node smaller than that is a piece of the blob's node that a line through its text cut off
    (the blob, filled whole, outlines the node)."""
    if not strokes:
        return blobs
    sb = np.array([r.bbox for r in strokes], float)
    s_area = np.maximum((sb[:, 2] - sb[:, 0]) * (sb[:, 3] - sb[:, 1]), 1e-9)
    keep = []
    for b, inter in zip(blobs, box_intersection_matrix(np.array([b.bbox for b in blobs], float), sb), strict=True):
        x0, y0, x1, y1 = b.bbox
        b_area = max((x1 - x0) * (y1 - y0), 1e-9)
        held = (inter >= 0.8 * s_area) & (s_area >= YIELD_SHARE * b_area)
        if not ((inter / (s_area + b_area - inter) >= 0.5) | held).any():
            keep.append(b)
    return keep


def _frames_out(flat: list[Region], strokes: list[Region], letter: float, sx: float, sy: float
                ) -> list[Region]:
    """``flat`` less the regions that hold two or more stroke-pass nodes (each >= 80 % inside,
    >= `FRAME_NODE_SHARE` of its box and clear of its edges by `FRAME_MARGIN_LETTERS` letter
    heights, ``letter`` in working px): on a hand-drawn chart a subgraph frame's paper is one
    flat, text-holding interior (its title), while the hachure-filled nodes inside it are cut
    into strips and only the stroke pass finds them. Kept, the frame beat those nodes
    (`_prefer_outlined`: a stroke node inside a flat one yields to it). Pieces of one node
    that a crossing line cut apart reach its edges, so the node stays."""
    if len(strokes) < 2 or not flat:
        return flat
    fb = np.array([r.bbox for r in flat], float)
    sb = np.array([r.bbox for r in strokes], float)
    f_area = np.maximum((fb[:, 2] - fb[:, 0]) * (fb[:, 3] - fb[:, 1]), 1e-9)
    s_area = np.maximum((sb[:, 2] - sb[:, 0]) * (sb[:, 3] - sb[:, 1]), 1e-9)
    inter = box_intersection_matrix(fb, sb)
    margin = FRAME_MARGIN_LETTERS * letter
    clear = np.minimum.reduce([(sb[None, :, 0] - fb[:, None, 0]) * sx, (sb[None, :, 1] - fb[:, None, 1]) * sy,
                               (fb[:, None, 2] - sb[None, :, 2]) * sx, (fb[:, None, 3] - sb[None, :, 3]) * sy])
    held = ((inter >= 0.8 * s_area[None, :]) & (s_area[None, :] >= FRAME_NODE_SHARE * f_area[:, None])
            & (clear >= margin))
    return [r for r, row in zip(flat, held, strict=True) if row.sum() < 2]


def _letter_sized_out(regions: list[Region], letter: float, sx: float, sy: float) -> list[Region]:
    """``regions`` less those whose shorter side is under `MIN_NODE_LETTERS` letter heights
    (``letter``, working px; `glyph_height`): a node holds a line of text and padding around
    it, a letter's counter is smaller than the letter."""
    if letter <= 0:
        return regions
    return [r for r in regions
            if min((r.bbox[2] - r.bbox[0]) * sx, (r.bbox[3] - r.bbox[1]) * sy) >= MIN_NODE_LETTERS * letter]


def _drop_pockets(regions: list[Region], strokes: list[Region]) -> list[Region]:
    """``regions`` less the stroke-pass ones whose box overlaps another region's box by
    `POCKET_OVERLAP` of the smaller box: a pocket of paper that connectors close off between
    nodes (holding an edge label, it passes as a node) is bounded partly by those nodes' own
    outlines, while a node keeps clear of its neighbours. On the hand-drawn tuning sets (108
    charts) it dropped 16 false regions and one node."""
    ids = {id(s) for s in strokes}
    if not ids or len(regions) < 2:
        return regions
    boxes = np.array([r.bbox for r in regions], float)
    areas = np.maximum((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]), 1e-9)
    share = box_intersection_matrix(boxes, boxes) / np.minimum(areas[:, None], areas[None, :])
    np.fill_diagonal(share, 0.0)
    return [r for r, row in zip(regions, share, strict=True)
            if not (id(r) in ids and (row >= POCKET_OVERLAP).any())]


def _drop_loop_lenses(regions: list[Region], page_coloured: list[bool], touch: float) -> list[Region]:
    """``regions`` less the lenses of page that a loop back between two neighbouring nodes
    closes: Mermaid draws the step down and the loop back up as two curved connectors side by
    side, and the page between them (its edge label on one of them) is a closed flat region that
    holds text. Such a region is page-coloured and reaches from one node's outline to the other's
    on opposite sides (its box touches or overlaps both within ``touch`` px), while a node keeps a
    rank's spacing from its neighbours."""
    if len(regions) < 3:
        return regions
    boxes = np.array([r.bbox for r in regions], float)
    keep = []
    for i, (r, page) in enumerate(zip(regions, page_coloured, strict=True)):
        if page and _between_two(boxes, i, touch):
            continue
        keep.append(r)
    return keep


def _between_two(boxes: np.ndarray, i: int, touch: float) -> bool:
    """Whether box ``i`` spans the gap between two other boxes on opposite sides of it (above and
    below, or left and right), touching each within ``touch`` px and overlapping it across."""
    x0, y0, x1, y1 = boxes[i]
    others = np.delete(boxes, i, axis=0)
    across_x = np.minimum(others[:, 2], x1) - np.maximum(others[:, 0], x0) > 0
    across_y = np.minimum(others[:, 3], y1) - np.maximum(others[:, 1], y0) > 0
    # a neighbour ends inside the region's near margin (or overlaps into it) without swallowing it
    # (a diamond's tip reaches into the lens's box)
    above = across_x & (others[:, 3] >= y0 - touch) & (others[:, 3] < y1) & (others[:, 1] < y0)
    below = across_x & (others[:, 1] <= y1 + touch) & (others[:, 1] > y0) & (others[:, 3] > y1)
    left = across_y & (others[:, 2] >= x0 - touch) & (others[:, 2] < x1) & (others[:, 0] < x0)
    right = across_y & (others[:, 0] <= x1 + touch) & (others[:, 0] > x0) & (others[:, 2] > x1)
    return bool((above.any() and below.any()) or (left.any() and right.any()))


def _prefer_filled(flat: list[Region], colours: list[Region]) -> list[Region]:
    """Regions plus the colour-layer regions that do not compete with them.

    A colour blob that a region already matches (box IoU >= 0.7), or that lies inside a bigger
    region, adds nothing. Regions a colour blob holds that are much smaller than it are pieces of its
    fill (gradient bands, a fill cut by text and JPEG): the blob replaces them. A region holding
    two or more colour blobs, each well under half its box, is a pocket between connectors (or a
    subgraph frame) whose nodes the flat pass could not see: dropped, the blobs kept."""
    boxes = np.array([f.bbox for f in flat], float).reshape(-1, 4)
    areas = np.maximum((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]), 1e-9)
    cboxes = np.array([c.bbox for c in colours], float).reshape(-1, 4)
    careas = np.maximum((cboxes[:, 2] - cboxes[:, 0]) * (cboxes[:, 3] - cboxes[:, 1]), 1e-9)
    drop: set[int] = set()
    for i, inter in enumerate(box_intersection_matrix(boxes, cboxes)):
        held = (inter >= 0.8 * careas) & (careas < 0.4 * areas[i])
        if held.sum() >= 2 or (held & (careas >= 0.1 * areas[i])).any():
            drop.add(i)
    kept = [k for k in range(len(flat)) if k not in drop]
    boxes, areas = boxes[kept], areas[kept]
    flat = [flat[k] for k in kept]
    drop = set()
    keep = []
    for c, inter in zip(colours, box_intersection_matrix(cboxes, boxes), strict=True):
        x0, y0, x1, y1 = c.bbox
        ca = max((x1 - x0) * (y1 - y0), 1e-9)
        iou = inter / (areas + ca - inter)
        if (iou >= 0.7).any() or ((inter >= 0.5 * ca) & (areas >= ca)).any():
            continue
        drop.update(np.nonzero((inter >= 0.8 * areas) & (areas < 0.7 * ca))[0].tolist())
        keep.append(c)
    return [f for i, f in enumerate(flat) if i not in drop] + keep


def _holes_hold_text(crop: np.ndarray, flat: np.ndarray, holes: np.ndarray) -> bool:
    """Whether the holes of a flat region (``flat``, ``holes``: bool masks over the RGB ``crop``)
    hold text: enough of their pixels far from the region's own colour (`holds_text`). On a
    JPEG raster a region of one colour (a filled start dot) has holes too: specks of
    compression noise a few levels off, where a label's glyphs are ink of another colour."""
    step = 3 if min(flat.shape) >= 30 else 1  # a sample of the fill is enough for its median
    fill = np.median(crop[::step, ::step][flat[::step, ::step]], axis=0)
    return holds_text(np.abs(crop[holes].astype(np.int16) - fill).max(axis=1))


def _label_in_middle(c: _Cand, labels: np.ndarray) -> bool:
    """Whether a flat candidate's text reaches its middle: some hole pixel lies at least
    `LABEL_MIN_DEPTH` of the deepest point's distance from the rim. Every renderer centres a
    node's label (or pads it evenly), so it crosses the interior's deepest part; a pocket of
    page closed by connectors and the nodes they join (flowchart.js loops its yes/no branches
    round the page) holds only edge labels, which sit beside the connectors on its rim."""
    import cv2

    holes = c.filled & (labels[c.y0:c.y1, c.x0:c.x1] != c.label)
    if not holes.any():
        return False
    depth = cv2.distanceTransform(np.pad(c.filled.astype(np.uint8), 1), cv2.DIST_L2, 3)[1:-1, 1:-1]
    return bool(depth[holes].max() >= LABEL_MIN_DEPTH * depth.max())


def _blob_holds_text(crop: np.ndarray, blob: np.ndarray) -> bool:
    """Whether a solid blob (0/1 ``blob`` over the RGB ``crop``) holds a label: text off the
    colour of its inside (`holds_text`) drawn on that colour, i.e. pieces of off-colour pixels
    that do not reach the blob's rim. The outline, its anti-aliasing, and a drop shadow the
    blob took in (a filled start dot and its shadow are one blob, one colour inside and a
    lighter crescent on two sides) all run out to the rim. Pieces are taken at two steps from
    the fill: faint text (JPEG) is found at half `TEXT_STEP`, and at the full step a label is
    freed from a hachure fill's strokes, which run to the outline and touch the letters."""
    import cv2

    dist = cv2.distanceTransform(np.pad(blob, 1), cv2.DIST_L2, 3)[1:-1, 1:-1]  # the crop's edge is outside
    core = dist >= 3
    if not core.any():
        return False
    dev = np.abs(crop.astype(np.int16) - np.median(crop[core], axis=0)).max(axis=2)
    inside = np.zeros(blob.shape, bool)
    for step in (TEXT_STEP // 2, TEXT_STEP):
        off = ((dev > step) & blob.astype(bool)).astype(np.uint8)
        n, lab = cv2.connectedComponents(off, connectivity=8)
        rim = np.zeros(n, bool)
        rim[lab[(dist <= 1.5) & (off > 0)]] = True
        inside |= (off > 0) & ~rim[lab]
    return holds_text(np.where(inside, dev, 0))


def _tallest_line(holes: np.ndarray) -> int:
    """Height of the tallest run of rows holding text (a text line; lines are separated by at
    least one empty row of line spacing)."""
    rows = holes.any(axis=1).astype(np.int8)
    if not rows.any():
        return 0
    edges = np.diff(np.concatenate([[0], rows, [0]]))
    starts, ends = np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0]
    return int((ends - starts).max())


#: a row between two text lines that touch holds at most this share of the text pixels of the
#: rows of either line at their densest (descenders and ascenders only)
LINE_GAP_SHARE = 0.5
#: lines told apart so are each at least this share of the tallest one high (a capital's bar
#: above the x-height is no line of its own)
LINE_MIN_SHARE = 0.5


def _touching_lines(holes: np.ndarray) -> float:
    """Height of the tallest of two or more text lines that touch (small print: descenders run
    into the next line's ascenders, so no empty row parts them, `_tallest_line`), cut at rows
    holding at most `LINE_GAP_SHARE` of the densest row on either side; the whole block's
    height when it is not so cut into lines of like height (a single line)."""
    count = holes.sum(axis=1).astype(float)
    rows = np.nonzero(count)[0]
    if not len(rows):
        return 0.0
    count = count[rows[0]:rows[-1] + 1]
    before = np.maximum.accumulate(count)
    after = np.maximum.accumulate(count[::-1])[::-1]
    gap = count <= LINE_GAP_SHARE * np.minimum(before, after)
    runs = np.diff(np.concatenate([[0], (~gap).astype(np.int8), [0]]))
    heights = np.nonzero(runs == -1)[0] - np.nonzero(runs == 1)[0]
    if len(heights) < 2 or heights.min() < LINE_MIN_SHARE * heights.max():
        return float(len(count))
    return float(heights.max())


def _is_clean_render(image: np.ndarray, max_rare: float = 0.01) -> bool:
    """True for a chart rendered straight to PNG: a few hundred colours (fills, strokes and
    their anti-aliasing), each used many times. JPEG, photos, scans and noise give a large share
    of pixels a colour of their own (web charts: 3-13 %, clean renders: under 0.1 %, measured on
    generated tuning sets), and its border is mostly one page colour (a photo's is desk and
    paper). Colours are counted on about 300k pixels (every k-th row), which keeps it cheap."""
    step = max(1, image.shape[0] * image.shape[1] // 300_000)
    rows = np.ascontiguousarray(image[::step, :, :3]).reshape(-1, 3).astype(np.int32)
    if not len(rows):
        return True
    codes = (rows[:, 0] << 16) | (rows[:, 1] << 8) | rows[:, 2]
    _, counts = np.unique(codes, return_counts=True)
    if counts[counts <= 2].sum() >= max_rare * len(codes):
        return False
    # a photo's desk or paper around the drawing: the border is no single page colour
    border = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]])[:, :3].astype(np.int32)
    _, bc = np.unique((border[:, 0] << 16) | (border[:, 1] << 8) | border[:, 2], return_counts=True)
    return bool(bc.max() >= 0.5 * len(border))


#: a flat region whose fill is within this step (max over RGB) of the colour around it is page,
#: not a node, when it runs into a coloured node (`ClassicalSegmenter._is_pocket`); pockets on
#: the wild tuning sets measured 0-29, node interiors 115 and more
POCKET_FILL_STEP = 40
#: px (working scale) beyond the stroke within which a page-coloured region's box must meet the
#: two nodes a loop back joins to be taken for the lens between its two connectors
#: (`_drop_loop_lenses`)
LENS_TOUCH = 2.0
#: share of a flat interior's depth (distance from its rim at its deepest point) that its text
#: must reach (`_label_in_middle`): node labels reach 0.84-1.0 of it on the printseg6 and
#: seg_tune_clean tuning sets, the edge labels in pockets of page between connectors 0.08-0.60
LABEL_MIN_DEPTH = 0.75
#: a coloured node of a printed chart may touch the image's edge along this share of its side
EDGE_CHORD = 0.8
#: flat regions per megapixel above which a clean render's interiors are cut into strips (the
#: hachure fills of hand-drawn looks give 3,800-29,000; clean renders of every paper family 70-750,
#: measured on the seg_tune_hand and seg_tune_clean tuning sets)
HACHURE_REGIONS_PER_MPX = 2000
#: on a hand-drawn chart a node's shorter side spans at least this many letter heights
MIN_NODE_LETTERS = 1.5
#: clean renders up to this many working pixels take the hand-drawn path whatever their look
#: (`ClassicalSegmenter.segment`). A wide chart squeezed to 1600 px shows a pen's wobble,
#: overshoots and double strokes under a pixel, so the look tests miss it (10 of the 13
#: hand-drawn tuning charts they missed, of 172, were under 0.7 Mpx); on the 17 clean tuning
#: renders this small (Mermaid, Graphviz, PlantUML) the path found the same regions, and its
#: cost is linear in pixels. febench_dev's smallest chart has 0.89 Mpx
SKETCH_ALWAYS_PIXELS = 750_000
#: a stroke-pass region whose box overlaps another region's by this share of the smaller box
#: is a pocket between connectors (`_drop_pockets`)
POCKET_OVERLAP = 0.1
#: a small-chart blob yields to a stroke node inside it covering this share of its box
#: (`_yield_to_strokes`): the node without the arrowhead the blob took in; a smaller one is a
#: piece of the node
YIELD_SHARE = 0.5
#: on a hand-drawn chart, a solid blob more inked than this is a letter, not a node
MAX_BLOB_INK = 0.45
#: ink = darker than the local page by this share of it: photos and scans (pencil, blur) ...
PAGE_INK_CONTRAST = 0.3
#: ... and clean hand-drawn renders, where only the pen counts (tinted hachure fills are 0.3-0.4;
#: 0.4 / 0.5 / 0.6 gave R/P@0.7 0.860/0.920, 0.876/0.930, 0.876/0.930 on seg_tune_hand)
HAND_DRAWN_INK_CONTRAST = 0.5
#: a clean render is hand-drawn when fewer of its flat interiors than this share have four
#: straight sides (`_straight_sides`) ...
MIN_STRAIGHT_SHARE = 0.2
#: ... and fewer than this share a straight top and bottom (a chart of parallelograms, stadiums
#: and diamonds). On the tuning sets (seg_tune_hand, seg_tune_hand2, seghand_tune3 hand-drawn;
#: seg_tune_clean, seg_tune_clean2, edge_tune_puml, edges_tune_wild clean Mermaid, Graphviz
#: and PlantUML renders) it fires on 22 of the 35 hand-drawn charts whose flat pass found
#: interiors, and on 2 of the 58 clean-set charts: one drawn in the handDrawn look, and one of
#: Graphviz ellipses, which gained no false node
MIN_LEVEL_SHARE = 0.5
#: a side is straight when one pixel row holds its edge along this share of its middle half
#: (an arrowhead dents PlantUML's boxes on a few columns)
STRAIGHT_RUN = 0.85
#: hand-drawn outline gaps bridged along the stroke, in letter heights (R/P@0.7 on the three
#: hand-drawn tuning sets with the stroke pass on every chart: 1.0 0.876/0.958, 1.5 0.904/0.956,
#: 2.0 0.895/0.957, 2.5 0.871/0.950; no bridging 0.876/0.945)
HAND_DRAWN_BRIDGE = 1.5
#: px: on a hand-drawn chart the stroke pass looks again with gaps closed only this far (small
#: nodes whose text runs a few px from the outline)
HAND_DRAWN_FINE_GAP = 3
#: a stroke node holding two flat nodes this big (share of its box) is a frame around them; 0.08
#: let hand-drawn subgraph frames through and dropped the nodes inside (seg_tune_hand2 with the
#: stroke pass on every chart: R/P@0.7 0.821/0.948 -> 0.877/0.963 at 0.01-0.04; tuning photo and
#: wild sets unchanged)
FRAME_NODE_SHARE = 0.02
#: on a hand-drawn chart a flat region holding two stroke nodes this many letter heights clear
#: of its edges is a subgraph frame (`_frames_out`): on the hand-drawn tuning sets the nodes in
#: the four frames the flat pass found kept 2.2-12 letters clear (19-63 px), the pieces of a
#: node cut by a line 0 px
FRAME_MARGIN_LETTERS = 1.0
#: px walked up from an interior's top to measure its stroke (`_top_stroke_spread`)
STROKE_WALK = 12
#: a clean render is hand-drawn when the median interior's top stroke varies in thickness by
#: this many px (`_top_stroke_spread`). On the clean tuning sets (seg_tune_clean, seg_tune_clean2,
#: edge_tune_puml, edges_tune_wild: 58 charts) the median is 0 on all but the two the gate
#: already fired on (2 px); on the hand-drawn ones it is 0.45-1 on 9 of the 14 the other tests
#: missed
MIN_STROKE_SPREAD = 0.4


def _looks_hand_drawn(cands: list[_Cand], n_flat: int, n_pixels: int, work: np.ndarray,
                      bg: np.ndarray) -> bool:
    """Evidence from the flat pass that a clean render is hand-drawn (rough.js strokes): it found
    no closed, text-holding interior at all (outlines open at the corners), its flat regions
    are far denser than any clean render's (hachure fills cut interiors into strips), hardly
    any interior it found is ruler-straight (`_straight_sides`: a renderer's rect has four
    straight sides, its parallelogram, stadium or hexagon a straight top and bottom; a pen
    wobbles), or the pen above the interiors is not one even width (`_top_stroke_spread`: a
    rough.js line is two passes of a pen that part and meet again). On such a chart the stroke
    pass finds what the flat pass cannot; on other clean renders it is not run (it costs time
    there and adds false nodes)."""
    if not cands or n_flat > HACHURE_REGIONS_PER_MPX * n_pixels / 1e6:
        return True
    sides = [_straight_sides(c) for c in cands]
    if (sum(v == 4 for v in sides) < MIN_STRAIGHT_SHARE * len(cands)
            and sum(v >= 2 for v in sides) < MIN_LEVEL_SHARE * len(cands)):
        return True
    spreads = [v for v in (_top_stroke_spread(c, work, bg) for c in cands) if v is not None]
    return bool(spreads) and float(np.median(spreads)) >= MIN_STROKE_SPREAD


def _top_stroke_spread(c: _Cand, work: np.ndarray, bg: np.ndarray) -> float | None:
    """How unevenly thick the stroke right above the interior is along the middle half of its
    top: the 90th less the 10th percentile, over those columns, of the run of stroke pixels
    (more than 60 off the page colour) walking up from the interior (its first two rows may be
    anti-aliasing). A renderer's stroke is one width (0 on every clean tuning chart but those
    drawn in the handDrawn look); None for an interior too small or open at the top."""
    if c.w < 20 or c.h < 8:
        return None
    lo, hi = c.w // 4, c.w - c.w // 4
    cols = c.filled[:, lo:hi]
    if not cols.any(axis=0).all():
        return None
    top = cols.argmax(axis=0) + c.y0  # first interior row of each column
    ya = max(0, int(top.min()) - STROKE_WALK)
    strip = work[ya:int(top.max()), c.x0 + lo:c.x0 + hi]
    dark = np.abs(strip.astype(np.int16) - bg).max(axis=2) > 60
    xs = np.arange(hi - lo)
    rows = top - ya
    thick = np.zeros(len(xs), np.int64)
    alive = np.ones(len(xs), bool)
    for k in range(1, STROKE_WALK + 1):
        y = rows - k
        on = np.zeros(len(xs), bool)
        ok = y >= 0
        on[ok] = dark[y[ok], xs[ok]]
        if k > 2:  # past the anti-aliased rows: the run ends at the first paper pixel
            alive &= on | (thick == 0)
        thick += on & alive
    p10, p90 = np.percentile(thick, [10, 90])
    return float(p90 - p10)


def _straight_sides(c: _Cand) -> int:
    """How many sides of the interior are straight in their middle half: 4 (rect, rounded
    rect, subroutine), 2 (top and bottom: parallelogram, trapezoid, stadium, hexagon) or 0
    (diamond, circle, or drawn by a pen). A side is straight when one pixel row (column) holds
    its edge along `STRAIGHT_RUN` of that middle half (an arrowhead touching it dents a few
    columns; a pen's wobble moves the edge along most of the side)."""
    if c.w < 20 or c.h < 8:
        return 0
    f = c.filled
    cols = f[:, c.w // 4:c.w - c.w // 4]
    if not cols.any(axis=0).all():
        return 0
    if not (_one_line(cols.argmax(axis=0)) and _one_line(cols[::-1].argmax(axis=0))):
        return 0
    rows = f[c.h // 4:c.h - c.h // 4]
    if not rows.any(axis=1).all():
        return 2
    return 4 if _one_line(rows.argmax(axis=1)) and _one_line(rows[:, ::-1].argmax(axis=1)) else 2


def _one_line(offsets: np.ndarray) -> bool:
    """True when one value holds `STRAIGHT_RUN` of the edge offsets along a side."""
    return bool(np.bincount(offsets).max() >= STRAIGHT_RUN * len(offsets))


def _background_colour(image: np.ndarray) -> np.ndarray:
    """Most common colour along the image border (white for Mermaid renders), int16 RGB."""
    border = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]]).astype(np.int16)
    vals, counts = np.unique(border // 4, axis=0, return_counts=True)
    return (vals[np.argmax(counts)] * 4 + 2).astype(np.int16)


def _boundary_mask(image: np.ndarray, threshold: int) -> np.ndarray:
    """Pixels on either side of a colour step larger than ``threshold`` (max over RGB)."""
    import cv2

    def step(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        d = cv2.absdiff(a, b)
        ch = cv2.split(d)
        return cv2.max(cv2.max(ch[0], ch[1]), ch[2]) > threshold

    dx = step(image[:, 1:], image[:, :-1])
    dy = step(image[1:], image[:-1])
    b = np.zeros(image.shape[:2], bool)
    b[:, 1:] |= dx
    b[:, :-1] |= dx
    b[1:] |= dy
    b[:-1] |= dy
    # a two-pixel step catches anti-aliased ramps between similar colours (dark stroke on a
    # dark fill), whose single-pixel steps all stay under the threshold; it marks the middle pixel
    dx2 = step(image[:, 2:], image[:, :-2])
    dy2 = step(image[2:], image[:-2])
    b[:, 1:-1] |= dx2
    b[1:-1] |= dy2
    return b


def _merge_pieces(cands: list[_Cand], labels: np.ndarray) -> list[_Cand]:
    """Join interiors split by an inner line (cylinder top, subroutine bars): two pieces whose
    facing sides are within a stroke's width and whose extents along that side agree."""
    if len(cands) < 2:
        return cands
    merged = True
    while merged:
        merged = False
        for a in range(len(cands)):
            for b in range(a + 1, len(cands)):
                A, B = cands[a], cands[b]
                tol = max(2, int(0.25 * min(A.text_h, B.text_h))) if A.text_h and B.text_h else 3
                gap_tol = max(3, int(0.2 * max(A.text_h, B.text_h)))
                # stacked vertically (cylinder top lens over its body)
                vert = (abs(A.x0 - B.x0) <= tol and abs(A.x1 - B.x1) <= tol
                        and (0 <= B.y0 - A.y1 <= gap_tol or 0 <= A.y0 - B.y1 <= gap_tol))
                # side by side (subroutine bars)
                horiz = (abs(A.y0 - B.y0) <= tol and abs(A.y1 - B.y1) <= tol
                         and (0 <= B.x0 - A.x1 <= gap_tol or 0 <= A.x0 - B.x1 <= gap_tol))
                if vert or horiz:
                    cands[a] = _union(A, B)
                    del cands[b]
                    merged = True
                    break
            if merged:
                break
    return cands


def _union(A: _Cand, B: _Cand) -> _Cand:
    """Bounding union of two pieces, with the gap between them filled."""
    import cv2

    x0, y0, x1, y1 = min(A.x0, B.x0), min(A.y0, B.y0), max(A.x1, B.x1), max(A.y1, B.y1)
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    m[A.y0 - y0:A.y1 - y0, A.x0 - x0:A.x1 - x0] |= A.filled.astype(np.uint8)
    m[B.y0 - y0:B.y1 - y0, B.x0 - x0:B.x1 - x0] |= B.filled.astype(np.uint8)
    pts = cv2.findNonZero(m)
    hull = cv2.convexHull(pts)
    filled = np.zeros_like(m)
    cv2.fillConvexPoly(filled, hull, 1)
    tb = [b for b in (A.text_box, B.text_box) if b is not None]
    text_box = (min(b[0] for b in tb), min(b[1] for b in tb), max(b[2] for b in tb), max(b[3] for b in tb)) if tb else None
    return _Cand(A.label, x0, y0, x1, y1, filled.astype(bool), A.area + B.area, int(filled.sum()),
                 max(A.text_h, B.text_h), text_box, min(A.solidity, B.solidity), max(A.score, B.score))


def _enclosing_rings(cands: list[_Cand], labels: np.ndarray, stats: np.ndarray, ids: np.ndarray,
                     work: np.ndarray) -> list[tuple]:
    """Ring tuples (as `_adopt_outer_rings` takes them) of the thin flat regions ``ids`` whose
    box encloses some candidate's box around nearly the same centre: the possible bands of
    double circles. Only those are traced, so the many thin pockets between edges cost nothing."""
    import cv2

    bx0, by0 = stats[ids, 0], stats[ids, 1]
    bx1, by1 = bx0 + stats[ids, 2], by0 + stats[ids, 3]
    want = np.zeros(len(ids), bool)
    for c in cands:
        want |= ((bx0 <= c.x0) & (by0 <= c.y0) & (bx1 >= c.x1) & (by1 >= c.y1)
                 & (np.abs((bx0 + bx1) - (c.x0 + c.x1)) <= 0.1 * c.w)
                 & (np.abs((by0 + by1) - (c.y0 + c.y1)) <= 0.1 * c.h)
                 & ((bx1 - bx0) * (by1 - by0) <= 2.5 * c.w * c.h))
    out = []
    for k in np.nonzero(want)[0]:
        i, x0, y0, x1, y1 = int(ids[k]), int(bx0[k]), int(by0[k]), int(bx1[k]), int(by1[k])
        m = (labels[y0:y1, x0:x1] == i).astype(np.uint8)
        contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        filled = np.zeros_like(m)
        cv2.drawContours(filled, [max(contours, key=cv2.contourArea)], -1, 1, thickness=-1)
        filled |= m
        fill_area = int(filled.sum())
        if stats[i, 4] >= 0.3 * fill_area:
            continue  # not a closed ring (e.g. a band cut open by an arrow head)
        col = np.median(work[y0:y1, x0:x1][m.astype(bool)], axis=0)
        out.append((x0, y0, x1, y1, filled.astype(bool), fill_area, col))
    return out


def _adopt_outer_rings(cands: list[_Cand], rings: list[tuple], work: np.ndarray) -> list[_Cand]:
    """A double circle draws a second outline around the first, with the fill colour between
    them. The node's outline is the outer one, so a candidate enclosed by a concentric ring of
    its own fill colour takes the ring's outer outline (a ring of another colour is its stroke).

    The ring must hug the candidate: the same small gap on all four sides (Mermaid draws the
    outer circle 5 px outside the inner one, well under a text line), unlike a subgraph frame
    or a loop of edges around a node, whose padding is wide and uneven (title on top)."""
    for c in cands:
        inner = work[c.y0:c.y1, c.x0:c.x1][c.filled]
        if not len(inner):
            continue
        fill = np.median(inner, axis=0)
        for x0, y0, x1, y1, filled, fill_area, col in rings:
            if not (x0 <= c.x0 and y0 <= c.y0 and x1 >= c.x1 and y1 >= c.y1):
                continue
            if fill_area > 2.5 * c.fill_area or np.abs(col - fill).max() > 24:
                continue
            if abs((x0 + x1) - (c.x0 + c.x1)) > 0.1 * c.w or abs((y0 + y1) - (c.y0 + c.y1)) > 0.1 * c.h:
                continue
            gaps = (c.x0 - x0, c.y0 - y0, x1 - c.x1, y1 - c.y1)
            if max(gaps) > max(3.0, 0.6 * c.text_h) or max(gaps) - min(gaps) > max(2.0, 0.35 * max(gaps)):
                continue
            c.x0, c.y0, c.x1, c.y1, c.filled, c.fill_area = x0, y0, x1, y1, filled, fill_area
            break
    return cands


def _drop_frames(cands: list[_Cand]) -> list[_Cand]:
    """A candidate whose box holds other candidates' boxes is a subgraph frame (or a pocket
    between edges around nodes): dropped."""
    drop: set[int] = set()
    for a, A in enumerate(cands):
        for b, B in enumerate(cands):
            if a == b:
                continue
            ix = max(0, min(A.x1, B.x1) - max(A.x0, B.x0))
            iy = max(0, min(A.y1, B.y1) - max(A.y0, B.y0))
            if ix * iy >= 0.8 * B.w * B.h and B.w * B.h < 0.7 * A.w * A.h:
                drop.add(a)
                break
    return [c for i, c in enumerate(cands) if i not in drop]
