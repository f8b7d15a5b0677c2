"""Classical recovery of a chart's connectors: background, edge-label boxes, subgraph frames,
connector pieces and the nodes they touch, arrowheads, and which label belongs to which edge.

Used by `flowpath.transcribe.ocr.OCRTranscriber` (steps 1, 3 and 4 of its docstring); numpy and
OpenCV only.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from flowpath.geometry import Region

#: xyxy integer pixel box
Box = tuple[int, int, int, int]


@dataclass
class Contact:
    """Where a connector piece touches a node's contact ring."""

    region: int
    count: int
    point: tuple[float, float]
    thickness: float
    arrow: bool = False
    #: total ink (difference from the background) of the connector's pixels at the contact
    mass: float = 0.0
    #: px the connector stops short of the node's contact ring (`reach_short_ends`); 0: touches
    gap: float = 0.0
    #: the contact's pixels run along the node's outline for more than a head's width
    #: (`runs_along`): a drop shadow or a connector drawn along the border, whose ink and
    #: thickness say nothing of an arrowhead
    along: bool = False
    #: no drop shadow, yet the contact runs `_OUTLINE_SPAN` text lines along the node or covers
    #: `_OUTLINE_PIXELS`, and passes the arrowhead thickness test: the node's own drawn outline
    #: or hatching (a sketch's pen left outside a segmented box cut a few px inside it) joined
    #: to the connector; its thickness and ink are the shape's, so it is no head (``arrow``
    #: off, ``along`` on)
    outline: bool = False

    @property
    def reaches(self) -> bool:
        """Whether the piece reaches the node here: two or more of its pixels in the node's
        contact ring (one pixel is a graze: anti-aliasing or a speck, not a line's end)."""
        return self.count >= 2


@dataclass
class Component:
    """One connector piece: the nodes it touches and the label boxes on it."""

    label: int
    contacts: list[Contact] = field(default_factory=list)
    label_boxes: list[int] = field(default_factory=list)
    #: the piece encloses a node-sized area (`mark_unseen_shapes`): it holds the outline of a
    #: node the segmenter missed, so its contacts are not linked to each other directly
    through_shape: bool = False
    #: the piece is a line that ends on another line sideways (`split_traced_pieces`): the two
    #: nodes that line links; its edge runs from its own node (first contact) to where that
    #: line goes (`joined_edge`)
    joins: tuple[int, ...] | None = None
    #: split out of a piece joining three or more nodes (`split_traced_pieces`): its contacts
    #: were measured on the whole tangle (several lines at one node), so it casts no ballot in
    #: the chart's flow (`untraced`)
    traced: bool = False
    #: a traced line whose two ends were measured on its own pixels and show a head at one end
    #: only (`_LineEnds`): that head decides its direction
    own_head: bool = False

    @property
    def ends(self) -> list[Contact]:
        """The contacts where the piece reaches a node (`Contact.reaches`)."""
        return [ct for ct in self.contacts if ct.reaches]


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
    # the reference image as one row repeated by OpenCV (numpy's broadcast of 3 values over
    # the image took 5x the absdiff itself)
    row = np.tile(np.clip(np.round(bg), 0, 255).astype(np.uint8), img.shape[1])[None, :]
    ref = cv2.repeat(row, img.shape[0], 1).reshape(img.shape)
    d = cv2.absdiff(np.ascontiguousarray(img), ref)
    return np.maximum(np.maximum(d[..., 0], d[..., 1]), d[..., 2])


def region_polygon(region: Region, dx: float = 0.0, dy: float = 0.0) -> np.ndarray:
    """The region's polygon as int32 pixel points, shifted by ``(-dx, -dy)`` (for OpenCV)."""
    return np.round(np.asarray(region.polygon, dtype=np.float64) - [dx, dy]).astype(np.int32)


#: a connector pixel is dark core when its background distance is at least this share of
#: the connectors' typical ink (90th percentile over the connector mask)
_CORE_SHARE = 0.45


def dark_core(conn: np.ndarray, bg_dist: np.ndarray) -> np.ndarray:
    """The connector mask without its pale fringe: drop shadows, gradient halos, anti-aliasing.

    Drop shadows of the web/Office look fade from ~90 levels off the background to nothing
    beside every node, while the strokes themselves are 200+ off; Mermaid's grey #333 lines on
    white are ~200 off with anti-aliased edges of any lighter value.
    """
    vals = bg_dist[conn]
    if vals.size == 0:
        return conn
    level = float(np.percentile(vals, 90))
    return conn & (bg_dist >= max(23.0, _CORE_SHARE * level))


#: max per-channel difference from a subgraph fill's colour of a pixel of that fill
_FLAT_TOLERANCE = 6


def find_label_boxes(faint: np.ndarray, dark: np.ndarray, near_node: np.ndarray, line_h: float,
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
    texty = (counts >= max(5, 0.35 * (y1 - y0))) & ~_crossing_columns(big, y0, y1, line_h)
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


def _crossing_columns(big: np.ndarray, y0: int, y1: int, line_h: float) -> np.ndarray:
    """Columns where a blob too big for a glyph runs on well above and below the text row
    ``y0:y1``: a vertical connector passing beside (or through) the word, not its glyphs. A
    label set beside its connector (flowchart.js puts "yes" right of the line leaving a
    decision) would otherwise take the line in as a letter ("lyes")."""
    d = max(2, int(round(0.4 * line_h)))
    H, W = big.shape
    if y0 - d < 0 or y1 + d > H:
        return np.zeros(W, bool)
    # a column's neighbours count too: a slightly rotated line drifts a px over ``d`` rows
    near = cv2.dilate(big[y0 - d:y1 + d].astype(np.uint8), np.ones((1, 3), np.uint8)).astype(bool)
    return np.asarray(near[:d].all(axis=0) & near[-d:].all(axis=0))


def under_frame(box: tuple[int, int, int, int], frames: np.ndarray, line_h: float) -> bool:
    x0, y0, x1, y1 = box
    top = max(int(y0 - 1.2 * line_h), 0)
    band = frames[top:y0 + 1, x0:x1]
    return bool(band.size) and bool((band.sum(axis=1) > 0.6 * (x1 - x0)).any())


def find_frames(conn: np.ndarray, line_h: float, node_mask: np.ndarray | None = None,
                keep_loops: bool = True) -> np.ndarray | None:
    """Pixels of subgraph frames (long straight lines forming most of a rectangle), minus the
    places where a connector crosses them; None when there is no frame.

    A frame touches every connector that crosses it and would merge them all into one piece.
    With ``node_mask`` (the segmented nodes), closed rounded-corner frames around a node are
    found too (`_rounded_frames`), and three straight sides are a frame only where a node lies
    wholly inside them (a loop back holds none), unless ``keep_loops`` is off.
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
    whole: np.ndarray | None = None  # the nodes' boxes (`_whole_nodes`), when first needed
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
        if n_sides == 3 and node_mask is not None and keep_loops:
            # a frame holds its nodes; flowchart.js's loop back (out of a decision's vertex,
            # along, up, back into the line above its target) is three long straight sides too,
            # and holds none: cut out, it was lost (both its stubs led nowhere)
            if whole is None:
                whole = _whole_nodes(node_mask)
            if not _encloses_node(whole, int(x), int(y), int(w), int(h)):
                continue  # an orthogonal loop back, not a frame
        if n_sides >= 3:
            keep = np.zeros_like(comp)
            for r in rows:
                keep[max(r - 3, 0):r + 4] = True
            for cidx in cols:
                keep[:, max(cidx - 3, 0):cidx + 4] = True
            out[sl] |= comp & keep
    if node_mask is not None:
        out |= _rounded_frames(hor, ver, line_h, node_mask)
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


def _whole_nodes(node_mask: np.ndarray) -> np.ndarray:
    """The boxes (x0, y0, x1, y1 rows) of the node mask's connected parts."""
    n, _, st, _ = cv2.connectedComponentsWithStats(node_mask.astype(np.uint8), connectivity=8)
    st = st[1:]
    return np.stack([st[:, 0], st[:, 1], st[:, 0] + st[:, 2], st[:, 1] + st[:, 3]], axis=1)


def _encloses_node(nodes: np.ndarray, x: int, y: int, w: int, h: int) -> bool:
    """Whether some node box (`_whole_nodes`) lies wholly inside the box ``x, y, w, h``."""
    if not len(nodes):
        return False
    return bool(((nodes[:, 0] >= x) & (nodes[:, 1] >= y) & (nodes[:, 2] <= x + w) & (nodes[:, 3] <= y + h)).any())


#: a rounded frame's corner arc is at most this many text lines across: its straight sides
#: stop that far short of the corner (Graphviz's ``style=rounded`` clusters: 12 pt arcs, 0.6-0.75
#: of a text line on the gvedge9 default-look tuning charts)
_CORNER_REACH = 1.5
#: ... and at least this many (or 2 px): sides that meet at the corner are a sharp elbow, which
#: orthogonal connectors make too (`find_frames` finds sharp-cornered frames)
_CORNER_ARC = 0.25


def _rounded_frames(hor: np.ndarray, ver: np.ndarray, line_h: float, node_mask: np.ndarray) -> np.ndarray:
    """The four straight sides of every closed rectangle with rounded corners around a node.

    `find_frames` joins a frame's sides where they touch; a rounded corner leaves its arc
    between them (no straight line), so Graphviz's rounded clusters were never found, and a
    cluster's frame joined every connector crossing it into one piece (edges to the wrong node).
    Only closed rectangles count (two horizontal and two vertical sides, each at least half the
    frame's length, their ends within a corner arc of each other at three of the four corners)
    with a segmented node inside: a connector looping back with
    rounded elbows never closes, and a missed node's outline holds no node. A side may be
    several straight runs on one line: a node set close inside the frame cuts it (its grown
    mask is no connector ink), as may a corner.
    """
    out = np.zeros(hor.shape, bool)
    reach = _CORNER_REACH * line_h
    longest = 3 * line_h
    hruns, vruns = _Sides(hor), _Sides(ver.T)
    hs = [sd for sd in hruns.sides if sd[1] - sd[0] >= longest]
    vs = [sd for sd in vruns.sides if sd[1] - sd[0] >= longest]
    hsides: set[int] = set()
    vsides: set[int] = set()
    arc = max(2.0, _CORNER_ARC * line_h)

    def near(a: float, b: float) -> bool:
        return abs(a - b) <= reach

    def rounded(along: float, across: float) -> bool:
        """A rounded corner: both sides stop short of it (by their inward offsets)."""
        return arc <= along <= reach and arc <= across <= reach

    for tx0, tx1, ty, top in hs:
        for bx0, bx1, by, bottom in hs:
            if by - ty < longest or min(tx1, bx1) - max(tx0, bx0) < longest:
                continue
            for ly0, ly1, lx, left in vs:
                if not (near(lx, tx0) or near(lx, bx0)) or ly0 < ty - reach or ly1 > by + reach:
                    continue
                for ry0, ry1, rx, right in vs:
                    if not (near(rx, tx1) or near(rx, bx1)) or ry0 < ty - reach or ry1 > by + reach:
                        continue
                    # three of the four corners rounded (a node set close to the frame cuts
                    # one; orthogonal connectors meet at sharp elbows), every side at least
                    # half the frame's length
                    corners = (rounded(tx0 - lx, ly0 - ty), rounded(rx - tx1, ry0 - ty),
                               rounded(bx0 - lx, by - ly1), rounded(rx - bx1, by - ry1))
                    w, h = rx - lx, by - ty
                    if (sum(corners) < 3 or min(tx1 - tx0, bx1 - bx0) < 0.5 * w
                            or min(ly1 - ly0, ry1 - ry0) < 0.5 * h):
                        continue
                    y0, y1, x0, x1 = int(ty), int(by) + 1, int(lx) + 1, int(rx)
                    if x1 <= x0 or not node_mask[y0:y1, x0:x1].any():
                        continue
                    hsides.update(top + bottom)
                    vsides.update(left + right)
    if hsides:
        out = hruns.paint(hsides) | vruns.paint(vsides).T
    return out


class _Sides:
    """Horizontal straight runs of a mask (`_rounded_frames`; pass a vertical one transposed)
    and every candidate side made of them: each stretch of consecutive runs on one line
    (centres within 2 px across) as (start, end, row, run labels).

    Only the rows holding a run are labelled (stacked, a blank row between rows that are not
    adjacent, so no run joins another across the rows left out): a full-page labelling of a
    multi-megapixel chart cost more than the rest of `find_frames`.
    """

    def __init__(self, mask: np.ndarray) -> None:
        self.rows = np.flatnonzero(mask.any(axis=1))
        self.shape = mask.shape
        self.sides: list[tuple[float, float, float, list[int]]] = []
        if not len(self.rows):
            self.at = self.lab = np.zeros(0, int)
            return
        self.at = np.arange(len(self.rows)) + np.concatenate([[0], np.cumsum(np.diff(self.rows) > 1)])
        stacked = np.zeros((int(self.at[-1]) + 1, mask.shape[1]), np.uint8)
        stacked[self.at] = mask[self.rows]
        n, self.lab, st, _ = cv2.connectedComponentsWithStats(stacked, connectivity=8)
        row_of = np.zeros(len(stacked), float)
        row_of[self.at] = self.rows
        runs = []
        for j in range(1, n):
            x, y, w, h = (int(v) for v in st[j, :4])
            runs.append((float(x), float(x + w), (row_of[y] + row_of[y + h - 1]) / 2, j))
        runs.sort(key=lambda r: (round(r[2]), r[0]))
        i = 0
        while i < len(runs):
            k = i + 1
            while k < len(runs) and abs(runs[k][2] - runs[i][2]) <= 2:
                k += 1
            line = sorted(runs[i:k])
            for a in range(len(line)):
                for b in range(a, len(line)):
                    self.sides.append((line[a][0], max(r[1] for r in line[a:b + 1]), line[a][2],
                                       [r[3] for r in line[a:b + 1]]))
            i = k

    def paint(self, labels: set[int]) -> np.ndarray:
        """The pixels of the runs ``labels``."""
        out = np.zeros(self.shape, bool)
        if labels:
            out[self.rows] = np.isin(self.lab[self.at], list(labels))
        return out


def find_contacts(comp: np.ndarray, cstats: np.ndarray, contact_owner: np.ndarray,
              dist: np.ndarray, line_h: float, arrow_ratio: float = 2.2,
              ink: np.ndarray | None = None, shadowed: bool = False) -> dict[int, Component]:
    """For each connector component, the regions it touches and the stroke thickness there.

    ``cstats`` are the component stats of ``comp`` (OpenCV): every per-component scan stays
    inside the component's box instead of the whole (multi-megapixel) image. ``shadowed``: the
    nodes cast drop shadows, so a contact spread along an outline is marked (`runs_along`).
    """
    sel = (comp > 0) & (contact_owner > 0)
    ys, xs = np.nonzero(sel)
    out: dict[int, Component] = {}
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
        c = out.setdefault(k, Component(k))
        mass = float(ink[py, px].sum()) if ink is not None else float(len(py))
        # only where the nodes cast drop shadows: a sketch's flat open 'v' head spreads along
        # the outline too, and there it is the head (tests/transcribe/test_edge_recovery.py)
        along = shadowed and runs_along(py, px, line_h)
        # no shadow, yet spread along the node or more ink than any head: the node's outline
        # (kept only where it passes the thickness test below)
        outline = not shadowed and (runs_along(py, px, line_h, _OUTLINE_SPAN)
                                    or len(py) > _OUTLINE_PIXELS * line_h * line_h)
        c.contacts.append(Contact(r, len(py), (cx, cy), thick, mass=mass, along=along, outline=outline))
    for k, c in out.items():
        x, y, w, h = (int(v) for v in cstats[k, :4])
        vals = dist[y:y + h, x:x + w][comp[y:y + h, x:x + w] == k]
        vals = vals[vals > 0]
        base = float(np.median(vals)) if len(vals) else 1.0
        for ct in c.contacts:
            ct.arrow = ct.thickness >= max(2.0, arrow_ratio * base)
            # what looks thick there is the outline's pen (its corner, a double stroke), not a
            # head: neither its thickness nor its ink may decide the direction
            ct.outline = ct.outline and ct.arrow
            if ct.outline:
                ct.arrow, ct.along = False, True
    return out


#: an arrowhead entering a node covers at most this many text lines of its outline; a contact
#: spread further along the outline is a drop shadow or a connector running along the border
#: (tuning: on wild flowchart.js, 9 of 9 such contacts read as heads by thickness were sources)
_HEAD_SPAN = 1.5
#: a contact spread this many text lines along a node's outline (and no drop shadow there) is
#: that node's drawn outline joined to the connector: a segmented box a few px inside the
#: drawn one leaves the pen's outline outside it (see `Contact.outline`)
_OUTLINE_SPAN = 4.0
#: ... or covering this many square text lines of the contact ring: more ink than any head
#: (a whole Mermaid head is ~12x12 px against a 25-30 px text line, ~0.2; a sketched shape's
#: hatching and outline left outside its segmented box, 1.6 on a hand-drawn tuning chart)
_OUTLINE_PIXELS = 0.75


def runs_along(py: np.ndarray, px: np.ndarray, line_h: float, span: float = _HEAD_SPAN) -> bool:
    """Whether a contact's pixels (rows ``py``, columns ``px`` in the node's contact ring) run
    along the node's outline for more than ``span`` text lines (`_HEAD_SPAN` unless given).

    A connector crosses the contact ring where it meets the node: its pixels there span the
    ring's width one way and the line's (or its head's) width the other. A drop shadow
    (flowchart.js, PlantUML, Office look) is a band along the node's bottom and right sides,
    joined to every connector leaving there; a connector may also be drawn along a node's
    border before it turns away. Both put long runs of ink in the ring at the end where the
    line leaves its source, which then looks like the inky end of a head: the end every
    connector of a shadowed chart pointed back to.
    """
    if len(py) == 0:
        return False
    return bool(max(int(py.max() - py.min()), int(px.max() - px.min())) + 1 > span * line_h)


@dataclass(frozen=True)
class Flow:
    """The way a chart reads: along ``axis`` (0 = x, left-right; 1 = y, top-down) in the
    ``sign`` direction (+1 down or right, -1 up or left, as in Mermaid's BT and RL)."""

    axis: int = 1
    sign: int = 1
    #: the sign came from the chart's Start and End nodes (their text), not from a vote of heads
    from_terminals: bool = False
    #: with `from_terminals`: the vector from the start nodes' mean centre to the end nodes'
    #: (a chart's axis is the one its connectors mostly run along, and a fan of branches can
    #: make that the cross axis of a top-down chart)
    towards: tuple[float, float] | None = None

    def rank(self, region: Region) -> tuple[float, float]:
        """Sort key of a node along the flow (upstream first)."""
        c = region.center
        return (self.sign * c[self.axis], c[1 - self.axis])


#: an end holding this many times the ink of the other end is the arrowhead, whatever the
#: chart's flow; between `_INK_RATIO` and this, only when it agrees with the flow
_CLEAR_INK_RATIO = 2.0
_INK_RATIO = 1.3
#: an end at most this many px thicker than the other is no filled arrowhead: a pen pressed a
#: little harder (see `component_edges`)
_PEN_EXCESS = 1.0
#: against the chart's flow, the end with `_CLEAR_INK_RATIO` times the ink must also cover this
#: many times the other end's pixels: a head adds strokes, a pen pressed harder where it
#: starts only darkens the same few pixels (see `component_edges`)
_CLEAR_PIXEL_RATIO = 2.0


def _clear_head(t: Contact, s: Contact) -> bool:
    """Whether end ``t`` is clearly the head against end ``s`` by ink alone: `_CLEAR_INK_RATIO`
    times the ink on `_CLEAR_PIXEL_RATIO` times the pixels (a head adds strokes; a pen pressed
    dark where the line leaves its source only darkens the same few pixels), and those pixels
    in one place (`runs_along`: a drop shadow along the source's side adds ink and pixels too)."""
    return (not t.along and t.mass >= _CLEAR_INK_RATIO * max(s.mass, 1.0)
            and t.count >= _CLEAR_PIXEL_RATIO * s.count)


def chart_flow(components: dict[int, Component], regions: list[Region],
               terminals: tuple[list[int], list[int]] = ([], [])) -> Flow:
    """The chart's `Flow`, from its two-ended connectors and its Start and End nodes.

    The axis is the one the connectors mostly run along (summed node-centre displacement).
    The sign runs from the chart's start nodes to its end nodes (``terminals``: region indices
    of each, from their text) where both are known and clearly apart along the axis: a
    layered layout puts a chart's source above (before) its sinks whichever way it is drawn.
    Otherwise it is the majority vote of the connectors whose direction is clear without the
    layout (an arrowhead at one end only, or clearly more ink at one end), down/right when
    none is. Sketched charts often have no visible arrowheads at all (heads drawn as a small
    open 'v' or left out), and then the flow decides their direction.
    """
    two = [c.ends for c in components.values()]
    two = [cts for cts in two if len(cts) == 2 and cts[0].region != cts[1].region]
    span = np.zeros(2)
    for a, b in two:
        span += np.abs(np.subtract(regions[a.region].center, regions[b.region].center))
    axis = 1 if span[1] >= span[0] else 0
    starts, ends = terminals
    if starts and ends:
        # the vote below counts heads that small renders and shadows make unreliable (a 4-px
        # head inside the node's margin, a drop shadow thick at the source end) and that
        # turned whole tuning charts around (a bottom-to-top Mermaid chart read top-down, a
        # shadowed PlantUML chart read upwards); "Start" and "End" read right do not
        apart = float(np.mean([regions[i].center[axis] for i in ends])
                      - np.mean([regions[i].center[axis] for i in starts]))
        sides = [min(regions[i].width, regions[i].height) for i in starts + ends]
        if abs(apart) >= float(np.median(sides)):
            towards = np.mean([regions[i].center for i in ends], axis=0) - np.mean(
                [regions[i].center for i in starts], axis=0)
            return Flow(axis, 1 if apart > 0 else -1, from_terminals=True,
                        towards=(float(towards[0]), float(towards[1])))
    lone = lone_terminal_sign(regions, terminals, axis)
    if lone is not None:
        return Flow(axis, lone)
    vote = 0
    for a, b in two:
        ballot = head_ballot(a, b)
        if ballot is not None:
            t, s = ballot
            vote += int(np.sign(regions[t.region].center[axis] - regions[s.region].center[axis]))
    return Flow(axis, -1 if vote < 0 else 1)


def head_ballot(a: Contact, b: Contact) -> tuple[Contact, Contact] | None:
    """The (head, tail) ends of a two-ended connector as a ballot of the chart-flow vote
    (`chart_flow`), or None where neither end is clearly the head: an arrowhead at one end
    only, else clearly more ink at one end (`_clear_head`).

    Ink is compared only where both ends hold measured ink: an end reached across a gap
    (`reach_short_ends`) has none, and an end whose pixels in the contact ring are all pale
    fringe (no dark core: a blurred, JPEG-softened line ending in a 3x2-px head) has ``mass``
    0, so any ink at the other end looked like twice as much. On a noisy wild flowchart.js
    tuning chart (fjsedge10_fjs) one such ballot was the only vote and turned the whole chart
    upwards.
    """
    if a.arrow != b.arrow:
        return (a, b) if a.arrow else (b, a)
    if a.gap > 0 or b.gap > 0 or min(a.mass, b.mass) <= 0:
        return None
    t, s = (a, b) if a.mass > b.mass else (b, a)
    # twice the ink on about as many pixels is as often a pen pressed dark where the line
    # leaves its source as a head; in a sketch without heads one such vote turned the whole
    # chart upwards
    return (t, s) if _clear_head(t, s) else None


def lone_terminal_sign(regions: list[Region], terminals: tuple[list[int], list[int]], axis: int) -> int | None:
    """The flow's sign along ``axis`` from the chart's Start nodes alone or its End nodes alone
    (region indices, ``terminals``), or None where both or neither are known or they do not
    sit at the chart's edge.

    One terminal read right is enough to orient a layered chart: its Start is the first node
    along the flow, its End the last. The head vote otherwise decides, and on charts whose heads
    are 3x2-px blocks beside drop shadows (flowchart.js's web look) one thick decision vertex
    read as a head turned whole tuning charts upwards while their lone Start sat at the top.
    Only a terminal at the edge of the chart counts: every one of them lies within half the
    median node side of the outermost node centre along the axis; one in the middle (an End
    reached from the side, a misread word) says nothing of the sign.
    """
    starts, ends = terminals
    if bool(starts) == bool(ends) or len(regions) < 3:
        return None
    pos = np.array([r.center[axis] for r in regions])
    slack = 0.5 * float(np.median([min(r.width, r.height) for r in regions]))
    known = starts or ends
    at = float(np.mean([pos[i] for i in known]))
    low, high = at <= pos.min() + slack, at >= pos.max() - slack
    if low == high:
        return None
    # a Start at the low end or an End at the high end: the flow runs towards higher values
    return 1 if low == bool(starts) else -1


def component_edges(c: Component, regions: list[Region], letters: list[str], flow: Flow | None = None,
                    decisions: frozenset[int] = frozenset(),
                    heads_seen: bool = True) -> tuple[list[tuple[int, int]], list[str]]:
    """Directed (source, target) region pairs for one connector component, plus notes.

    ``flow`` (`chart_flow`) settles the direction where no end shows an arrowhead; top-down
    when not given. ``decisions`` are the region indices of decision nodes (diamonds): where
    the ink does not clearly show the head, a labelled connector between a decision and
    another node leaves the decision (`decision_source`).
    """
    flow = flow or Flow()
    contacts = c.ends
    if not contacts:
        return [], []
    if len(contacts) == 1:
        return [], [f"a connector at node {letters[contacts[0].region]} leads nowhere"]
    targets = [ct for ct in contacts if ct.arrow]
    sources = [ct for ct in contacts if not ct.arrow]
    notes: list[str] = []
    if (not c.own_head and len(targets) == 1 and len(sources) == 1
            and targets[0].thickness <= sources[0].thickness + _PEN_EXCESS
            and targets[0].count <= _blot_pixels(c, targets[0], sources[0], regions, flow) * sources[0].count):
        # one end passes the arrowhead thickness test but is at most a pen's excess thicker
        # than the other and covers no more pixels: a pen pressed a little harder (often where
        # the line leaves its source), not a head. A filled head is several px thicker than
        # the other end (3.2 px and more on the tuning sets, 1.5 px beside a drop shadow's
        # thick source), and a small one adds pixels. Neither end then shows a head, and the
        # ink, the labels and the flow below decide (docs/transcription.md)
        targets, sources = [], contacts
    if (not targets or not sources) and (merge := merge_target(contacts)) is not None:
        targets, sources = [merge], [ct for ct in contacts if ct is not merge]
    if not targets or not sources:
        # no arrowhead seen (or every end looks like one). In small renders the arrowhead is a
        # solid 4-px blob on a pale anti-aliased line: the end with clearly the most ink is the
        # target. A sketch's open 'v' or missing head leaves the ends alike, and the pen's
        # wobble, overshooting outlines and hatching make the ink differ at random: there a
        # small excess of ink only counts when it agrees with the chart's flow, and otherwise
        # the flow decides. Measured on two-ended connectors with no arrowhead seen (gold
        # regions, tuning sets, docs/transcription.md): ink >= 1.3x, then the thickest end,
        # then top-down: 209 of 236 right; this rule: 230.
        by_ink = sorted(contacts, key=lambda ct: -ct.mass)
        ranked = sorted(contacts, key=lambda ct: flow.rank(regions[ct.region]))
        ratio = by_ink[0].mass / max(by_ink[1].mass, 1.0)
        downstream = flow.rank(regions[by_ink[0].region]) >= max(
            flow.rank(regions[ct.region]) for ct in by_ink[1:])
        # the ink of an end reached across a gap was never measured
        comparable = all(ct.gap == 0 for ct in contacts)
        # against the flow, twice the ink alone was as often a darker pen start as a head
        # drawn upstream (a loop back): only more strokes, not darker ones, overrule the flow.
        # Gold regions, 860 hand-drawn two-ended connectors with no end or both ends read as a
        # head (seven tuning sets, docs/transcription.md): 796 right before, 810 with this.
        # In a chart whose Start and End nodes give the flow, an unlabelled connector is no
        # loop back (those leave a decision, with a condition): against that flow its inkier
        # end is the node's outline or a pen pressed where the line leaves its source (a thick
        # pen's outline overshooting the box, a segmented box that cuts the drawn one), not a
        # head: full pipeline, hand-drawn tuning sets, 12 of 12 such ends were sources, all in
        # charts with Start and End nodes (docs/transcription.md, seventh stretch). Without
        # them the flow is only a vote, and an open 'v' drawn on a loop back keeps its say
        against_terminals = flow.from_terminals and not downstream and not c.label_boxes
        branch = decision_source(c, contacts, decisions)
        if (comparable and _clear_head(by_ink[0], by_ink[1]) and not against_terminals
                and not unseen_head_upstream(by_ink[0], by_ink[1:], regions, flow, heads_seen)):
            targets, sources = [by_ink[0]], by_ink[1:]
        elif branch is not None:
            sources, targets = [branch], [ct for ct in contacts if ct is not branch]
        elif comparable and ratio >= _INK_RATIO and downstream and not by_ink[0].along:
            targets, sources = [by_ink[0]], by_ink[1:]
        else:
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


def unseen_head_upstream(head: Contact, others: list[Contact], regions: list[Region], flow: Flow,
                         heads_seen: bool) -> bool:
    """Whether ``head``, the end of a connector piece holding clearly the most ink
    (`_clear_head`), lies clearly downstream of none of its ``others`` along the chart's flow
    (upstream of them or level with them, `_LEVEL_SHARE`) in a chart whose arrowheads are seen
    nowhere (``heads_seen`` off: neither `heads_confirmed` nor `ink_heads_confirmed`): then that
    ink is no head's, and the labels,
    the ink ratio along the flow and the layout decide (`component_edges`).

    Where a renderer's heads are too small for the thickness test (wild flowchart.js: a 3x2-px
    head on a 1.5-px line), the end with twice the ink on twice the pixels is the one a branch
    leaves: its label's glyphs beside the line, a decision's vertex wedge, a switch's outline.
    Measured on the wild flowchart.js tuning charts (gold regions, fjsedge10_fjs, fjsedge9_fjs,
    fjsedge9_printedge6_fjs, fjshead11_fjs, fjshead11_fjsbranchy; docs/transcription.md): such
    an ink head in a chart with no head seen was wrong 42 of 42 times upstream or level on the
    wild look (right 9 of 16 downstream, left alone); on the guards (wild Mermaid, Graphviz,
    PlantUML, hand-drawn) it was upstream 4 times, 2 right, and the rule changed no edge. A
    chart whose heads are seen elsewhere keeps the ink's say: a loop back's head drawn upstream
    is a real one there.
    """
    if heads_seen:
        return False
    # clearly downstream of some other end: where a head is drawn
    return not any(_clearly_downstream(regions[head.region], regions[ct.region], flow) for ct in others)


def _clearly_downstream(at: Region, other: Region, flow: Flow) -> bool:
    """Whether node ``at`` lies downstream of node ``other`` along the flow by `_LEVEL_SHARE` of
    the smaller one's extent along it or more (not level with it)."""
    extent = min(at.height, other.height) if flow.axis == 1 else min(at.width, other.width)
    return flow.sign * (at.center[flow.axis] - other.center[flow.axis]) >= _LEVEL_SHARE * extent


def ink_heads_confirmed(components: dict[int, Component], regions: list[Region], flow: Flow) -> bool:
    """Whether the chart's own ink shows its heads: of its two-ended connectors with no end
    flagged by thickness and one end holding clearly the most ink (`_clear_head`), more have
    that end clearly downstream along the flow than not.

    A sketch's open 'v' heads pass no thickness test but add strokes, and there the inky end
    is the head on most connectors, a loop back's upstream one included
    (tests/transcribe/test_edge_recovery.py). On wild flowchart.js the inky end is where a
    branch leaves (its label, a vertex, a switch's outline): upstream or level on 42 of 58 such
    connectors in the tuning charts with no head seen, none of the 42 in a chart with more of
    them downstream.
    """
    down = other = 0
    for c in components.values():
        ends = c.ends
        if len(ends) != 2 or ends[0].region == ends[1].region or any(ct.arrow or ct.gap > 0 for ct in ends):
            continue
        t, s = sorted(ends, key=lambda ct: -ct.mass)
        if _clear_head(t, s):
            if _clearly_downstream(regions[t.region], regions[s.region], flow):
                down += 1
            else:
                other += 1
    return down > other


def _blot_pixels(c: Component, head: Contact, tail: Contact, regions: list[Region], flow: Flow) -> float:
    """How many times the other end's pixels an end at most `_PEN_EXCESS` thicker may cover and
    still be a pen blot rather than a head (`component_edges`): 1, except where the chart's Start
    and End nodes give the flow and that end lies upstream (against `Flow.towards`) on a
    connector with no label, where only `_CLEAR_PIXEL_RATIO` times the pixels (a head's added
    strokes) make it a head.

    An unlabelled connector in such a chart is no loop back (loops back leave a decision with a
    condition), and a pen pressed down where the line starts is thickest and darkest over a
    few more pixels than its thin end: where the segmented boxes sit a few px off the drawn
    ones, the start's blot covers 1.3x the pixels of the end (a 2.5 px pen: 20 vs 15).
    """
    if flow.towards is None or c.label_boxes:
        return 1.0
    # upstream along the way from the Start nodes to the End nodes, not only along the axis
    step = np.subtract(regions[head.region].center, regions[tail.region].center)
    return _CLEAR_PIXEL_RATIO if float(np.dot(step, flow.towards)) < 0 else 1.0


def merge_target(contacts: list[Contact]) -> Contact | None:
    """The one target of a connector piece joining three or more nodes with no arrowhead told
    apart: the end with clearly the most ink (`_INK_RATIO` x every other end's), else None.

    Printed engines join connectors that share a target into one line before it (flowchart.js
    brings a loop back into the line above its target; PlantUML rejoins branches): the piece
    then has several sources and one target, and that end holds the only head, seen as ink
    where it is too small to be seen as thickness. The chart's flow cannot tell which end that
    is: a loop back's source lies downstream of its target.
    """
    if len(contacts) < 3 or any(ct.gap > 0 for ct in contacts):
        return None
    by_ink = sorted(contacts, key=lambda ct: -ct.mass)
    if by_ink[0].mass >= _INK_RATIO * max(by_ink[1].mass, 1.0):
        return by_ink[0]
    return None


def heads_confirmed(components: dict[int, Component], decisions: frozenset[int]) -> bool:
    """Whether the chart shows its arrowheads: some two-ended connector has a head told apart
    (`Contact.arrow` at one end only) at a node other than a decision (region indices,
    ``decisions``: a diamond's vertex widens the end a branch leaves, so a "head" there confirms
    nothing)."""
    for c in components.values():
        ends = c.ends
        heads = [ct for ct in ends if ct.arrow]
        if len(ends) == 2 and len(heads) == 1 and heads[0].region not in decisions:
            return True
    return False


def without_unconfirmed_vertex_heads(components: dict[int, Component], decisions: frozenset[int]
                                     ) -> dict[int, Component]:
    """The connector pieces as the chart-flow vote (`chart_flow`) should see them: where no
    two-ended connector shows a head told apart at a node other than a decision, copies in which
    every decision contact has lost its arrowhead flag and is marked spread (`Contact.along`:
    neither its thickness nor its ink votes); else ``components`` itself.

    A diamond's vertex widens and darkens the end of any connector that leaves it: the two
    sides' strokes meet in a wedge outside the node's box, 2.3-2.9 px thick on wild
    flowchart.js, where a 3x2-px head on a 1.5-px line passes no thickness test. There the
    vertex was the only "head" the chart showed, and as the lone ballot of the vote it turned
    whole charts upwards (fjsedge9_fjs/gen000028: ten edges). The evidence is the chart's own:
    a renderer whose heads are seen shows one at some other node, and then a head at a decision
    keeps its vote. Only the vote: the direction of each connector keeps the flag, since on
    small wild Mermaid renders whose heads are not seen by thickness a head flagged at a
    decision's top vertex was a real one (fjsedge10_mmd: clearing it there too turned one edge).
    Tuning (gold regions, fjsedge10_fjs, fjsedge9_fjs, fjsedge9_printedge6_fjs): of the heads
    flagged at a decision, 4 of 4 in charts with no other head were wrong, 77 of 78 in charts
    with one were right.
    """
    if not decisions or heads_confirmed(components, decisions):
        return components
    out = {}
    for k, c in components.items():
        contacts = [replace(ct, arrow=False, along=True) if ct.region in decisions and ct.reaches else ct
                    for ct in c.contacts]
        out[k] = replace(c, contacts=contacts)
    return out


def decision_source(c: Component, contacts: list[Contact], decisions: frozenset[int]) -> Contact | None:
    """The contact a labelled connector leaves from: its one decision node, else None.

    A condition ("Yes", "No", "> 10") is written on a branch leaving a decision, never on the
    connector entering it. A sketch's loop back usually starts at a decision, and its head (a
    small open 'v', a ring, or none) shows less than the pen pressed down where the line
    leaves the diamond, so against the chart's flow only this knows the loop's direction.
    On the hand-drawn tuning sets every one of 519 labelled edges leaves a diamond.
    """
    if not c.label_boxes or len(contacts) != 2:
        return None
    branching = [ct for ct in contacts if ct.region in decisions]
    return branching[0] if len(branching) == 1 else None


def outline_remnants(comp: np.ndarray, loose: np.ndarray, owner: np.ndarray, line_h: float) -> np.ndarray:
    """Which loose connector pieces (``loose``: bool per label of ``comp``) are a node's own
    outline: every pixel within one node's grown outline (``owner``, 1 + region index) and the
    piece longer than an arrowhead (`_HEAD_SPAN` text lines) while it never leaves that band.

    Where a segmented box sits a few px inside a sketched shape (a parallelogram's slanted
    side, a trapezoid's corner, rough.js hatching past the outline), the pen's outline outside
    the box is connector ink; joined across the gap to a neighbour's remnant it made an edge
    between two nodes side by side. A connector that stops short, a dash or an open head near
    its node leaves the band or is shorter than that.

    Returns:
        bool per label of ``comp``.
    """
    out = np.zeros(len(loose), bool)
    sel = loose[comp]
    if not sel.any():
        return out
    ys, xs = np.nonzero(sel)
    ks, os = comp[ys, xs], owner[ys, xs]
    lo = np.full(len(loose), np.iinfo(np.int32).max, np.int64)
    hi = np.zeros(len(loose), np.int64)
    np.minimum.at(lo, ks, os)
    np.maximum.at(hi, ks, os)
    y0 = np.full(len(loose), comp.shape[0], np.int64)
    y1 = np.zeros(len(loose), np.int64)
    x0 = np.full(len(loose), comp.shape[1], np.int64)
    x1 = np.zeros(len(loose), np.int64)
    np.minimum.at(y0, ks, ys)
    np.maximum.at(y1, ks, ys)
    np.minimum.at(x0, ks, xs)
    np.maximum.at(x1, ks, xs)
    span = np.maximum(y1 - y0, x1 - x0) + 1
    return loose & (lo == hi) & (lo > 0) & (span > _HEAD_SPAN * line_h)


def reach_short_ends(comp: np.ndarray, components: dict[int, Component], owner: np.ndarray,
                     dist: np.ndarray, line_h: float, reach: float, arrow_ratio: float = 2.2
                     ) -> tuple[np.ndarray, dict[int, Component]]:
    """Follow the free ends of loose connector pieces (those not linking two nodes) straight on
    for up to ``reach`` px: a sketched arrow that stops short of its node, or a broken line
    whose pieces the closings could not join.

    A ray from a free end that meets a node's contact ring (``owner``, 1 + region index) adds
    that node as a contact of the piece, with ``gap`` = the ray's length; one that meets
    another loose piece first joins the two pieces into one. Pieces that already link two
    nodes are never changed.

    Returns:
        The label image with joined pieces relabelled, and the components updated.
    """
    H, W = comp.shape
    linked = {k for k, c in components.items() if len(c.ends) >= 2}
    ys, xs = np.nonzero(comp)
    ks = comp[ys, xs]
    keep = ~np.isin(ks, np.fromiter(linked, np.int64, len(linked)))
    ys, xs, ks = ys[keep], xs[keep], ks[keep]
    if ks.size == 0:
        return comp, components
    order = np.argsort(ks, kind="stable")
    ys, xs, ks = ys[order], xs[order], ks[order]
    bounds = np.flatnonzero(np.diff(ks)) + 1
    min_len = max(4.0, 0.6 * line_h)
    win = max(3, int(round(0.5 * line_h)))
    # piece, end point, outward direction, stroke thickness at the end, an arrowhead there
    ends: list[tuple[int, tuple[float, float], tuple[float, float], float, bool]] = []
    for seg in np.split(np.arange(len(ks)), bounds):
        k = int(ks[seg[0]])
        pts = np.stack([xs[seg], ys[seg]], axis=1).astype(np.float64)
        vals = dist[ys[seg], xs[seg]]
        vals = vals[vals > 0]
        base = float(np.median(vals)) if vals.size else 1.0
        touching = components[k].ends if k in components else []
        # the free end is the pixel farthest from where the piece touches its node; a piece
        # touching none has two, the farthest pixel from its middle and the farthest from that
        start = np.asarray(touching[0].point) if touching else \
            pts[np.argmax(((pts - pts.mean(axis=0)) ** 2).sum(axis=1))]
        far = pts[np.argmax(((pts - start) ** 2).sum(axis=1))]
        if np.hypot(*(far - start)) < min_len:
            continue  # a speck or a stub, not a connector
        for end in ([far] if touching else [far, start]):
            # outward direction: from the piece's pixels near the end to the end itself
            near = pts[((pts - end) ** 2).sum(axis=1) <= (1.5 * min_len) ** 2]
            d = end - near.mean(axis=0)
            n = float(np.hypot(*d))
            if n < 0.5:
                continue
            x, y = int(end[0]), int(end[1])
            thick = float(dist[max(y - win, 0):y + win + 1, max(x - win, 0):x + win + 1].max())
            ends.append((k, (float(end[0]), float(end[1])), (float(d[0] / n), float(d[1] / n)),
                         thick, thick >= max(2.0, arrow_ratio * base)))
    parent: dict[int, int] = {}

    def root(k: int) -> int:
        while parent.get(k, k) != k:
            k = parent[k]
        return k

    hits: list[tuple[int, int, tuple[float, float], float, float, bool]] = []  # piece, region, end, gap, ...
    loose = {int(k) for k in np.unique(ks)}
    for k, (ex, ey), (dx, dy), thick, arrow in ends:
        for t in range(2, int(reach) + 1):
            x, y = int(round(ex + dx * t)), int(round(ey + dy * t))
            if not (0 <= x < W and 0 <= y < H):
                break
            r = int(owner[y, x])
            if r > 0:
                hits.append((k, r - 1, (ex, ey), float(t), thick, arrow))
                break
            other = int(comp[y, x])
            if other and other != k and root(other) != root(k):
                if other in loose:
                    parent[root(other)] = root(k)
                break
    if not hits and not parent:
        return comp, components
    out = {k: c for k, c in components.items() if k not in loose}
    for k in loose:
        g = root(k)
        if g not in out:
            out[g] = Component(g)
        if k in components:
            out[g].contacts.extend(components[k].contacts)
            out[g].label_boxes.extend(components[k].label_boxes)
    for k, r, point, gap, thick, arrow in hits:
        c = out[root(k)]
        if any(ct.region == r for ct in c.ends):
            continue
        c.contacts.append(Contact(r, 2, point, thick, arrow=arrow, gap=gap))
    if parent:
        lut = np.arange(int(comp.max()) + 1, dtype=comp.dtype)
        for k in loose:
            lut[k] = root(k)
        comp = lut[comp]
    return comp, {k: c for k, c in out.items() if c.contacts}


#: a connector piece holding a solid area of at least this share of the median node's area
#: holds a node outline
_SHAPE_SHARE = 0.25


def mark_unseen_shapes(comp: np.ndarray, components: dict[int, Component], free: np.ndarray,
                       regions: list[Region], boxes: list[Box], pad: int, line_h: float,
                       ink: np.ndarray | None = None) -> None:
    """Set `Component.through_shape` on every piece that holds a node-sized area: the outline
    of a node that the segmenter missed (a sketched diamond drawn with a gap, a hatched one).

    The connectors entering and leaving such a node form one piece with it, and pairing that
    piece's contacts would report edges that skip the node (A -> C for A -> B -> C). Connector
    lines are thin and nodes are cut out of the connector mask, so what survives filling the
    pieces' holes and an opening of one text line, outside the edge-label boxes (``boxes``
    grown by ``pad``, solid in the mask), is a shape: its outline and fill or hatching. A piece
    whose outline goes round a found node is a subgraph's frame, not a missed node. With
    ``ink`` (the connector mask before any closing), an area holding no ink inside its rim
    is no node either (`_holds_ink`).
    """
    if not regions or not components:
        return
    min_area = _SHAPE_SHARE * float(np.median([r.width * r.height for r in regions]))
    pieces = (comp > 0).astype(np.uint8)
    contours, _ = cv2.findContours(pieces, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    # a piece around a found node is a subgraph's frame or fill that survived `find_frames`
    big = [c for c in contours if cv2.contourArea(c) >= min_area
           and not any(cv2.pointPolygonTest(c, (float(r.center[0]), float(r.center[1])), False) > 0
                       for r in regions)]
    if not big:
        return
    solid = np.zeros_like(pieces)
    cv2.drawContours(solid, big, -1, 1, thickness=-1)
    solid &= free.astype(np.uint8)
    for (bx0, by0, bx1, by1) in boxes:
        solid[max(by0 - pad, 0):by1 + pad, max(bx0 - pad, 0):bx1 + pad] = 0
    k = max(3, int(round(line_h)) | 1)
    # beyond the image is no shape (OpenCV's default border would keep a thin strip between two
    # lines run along the image's edge, two loops back beside a narrow chart)
    solid = np.asarray(cv2.morphologyEx(solid, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)),
                                        borderType=cv2.BORDER_CONSTANT, borderValue=0), np.uint8)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(solid, connectivity=8)
    found = cv2.dilate((free == 0).astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    for j in range(1, n):
        if stats[j, cv2.CC_STAT_AREA] < min_area or (ink is not None and not _holds_ink(lab == j, ink, line_h)):
            continue
        if (found & (lab == j)).any():
            # bounded by a found node: the paper between a node and a line looping round it
            # (flowchart.js's loop back out of a diamond's vertex and down round its side)
            continue
        ks = comp[lab == j]
        ks = ks[ks > 0]
        piece = int(np.bincount(ks).argmax()) if ks.size else 0
        if piece in components:
            components[piece].through_shape = True


def _holds_ink(area: np.ndarray, ink: np.ndarray, line_h: float) -> bool:
    """Some ink lies inside ``area`` away from its rim: a missed node's text or hatching. Two
    printed connectors running side by side into one target, closed at both ends (flowchart.js
    joins lines that share a target), enclose only background (the closings of `_rejoin`
    may have bridged it, so the ink is the connector mask before them)."""
    # holes filled: the missed node's text was taken for an edge label and cut out of the area
    filled = np.zeros(area.shape, np.uint8)
    contours, _ = cv2.findContours(area.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(filled, contours, -1, 1, thickness=-1)
    k = max(3, int(round(line_h)) | 1)  # half a text line in from the rim: clear of its lines
    inner = cv2.erode(filled, np.ones((k, k), np.uint8)).astype(bool)
    return int((ink & inner).sum()) >= line_h


def nearest_piece(comp: np.ndarray, components: dict[int, Component], box: Box, reach: float) -> int:
    """Label of the connector piece (one that touches a node) nearest to ``box`` within
    ``reach`` px of it, else 0.

    Only the box's surroundings are scanned: a distance transform of the window's "not in a
    known piece" mask gives every pixel's distance to the nearest piece pixel.
    """
    H, W = comp.shape
    r = int(np.ceil(reach))
    x0, y0, x1, y1 = max(box[0] - r, 0), max(box[1] - r, 0), min(box[2] + r, W), min(box[3] + r, H)
    win = comp[y0:y1, x0:x1]
    known = np.isin(win, np.fromiter(components, np.int32, len(components)))
    if not known.any():
        return 0
    ys, xs = np.nonzero(known)
    # distance from each piece pixel to the box rectangle (0 inside it)
    dx = np.maximum(np.maximum(box[0] - (xs + x0), (xs + x0) - (box[2] - 1)), 0)
    dy = np.maximum(np.maximum(box[1] - (ys + y0), (ys + y0) - (box[3] - 1)), 0)
    d = np.hypot(dx, dy)
    j = int(d.argmin())
    return int(win[ys[j], xs[j]]) if d[j] <= reach else 0


def assign_labels(c: Component, boxes: list[tuple[int, int, int, int]],
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


#: a layer of pixels at one distance outside the nodes is a drop shadow's when connector ink
#: covers at least this share of it (a connector leaving a node covers a few pixels of the
#: layer; a shadow runs along the node's bottom and right sides, ~half of its outline)
_SHADOW_COVER = 0.3
#: ... and that ink is pale: its median at most this share of the connectors' own ink away
#: from the nodes (a pen outline overshooting its node is as dark as the strokes)
_SHADOW_PALE = 0.6
#: inside a shadow layer, a pixel this many times darker than the layer's median is connector
_SHADOW_KEEP = 1.5


#: pages of at least this many pixels are first looked at at half size (`_may_hold_shadow`): the
#: exact test's distance transform with labels costs ~0.02 CPU s per Mpx
_SHADOW_PRETEST_PIXELS = 1_000_000


def _may_hold_shadow(conn: np.ndarray, node_mask: np.ndarray, reach: int) -> bool:
    """Whether any layer outside a node might be a shadow layer (`shadow_bands`), judged on the
    masks at half size (2x2 max-pooled, so ink and nodes only grow), at half the coverage
    `_SHADOW_COVER` and a quarter of the layer size: a cheap pre-test (a quarter of the pixels)
    that lets a chart without shadows skip the exact test. Measured on tuning charts (clean
    Mermaid renders, wild web looks with and without shadows, hand-drawn): a shadow layer covers
    >= 0.33 of its layer at full size and >= 0.26 at half size; a chart without shadows tops
    out at 0.04-0.08 (Mermaid) and 0.2 (wild looks).
    """
    def pooled(mask: np.ndarray) -> np.ndarray:
        # (four strided ORs: 20x faster than numpy's max over a reshaped 2x2 axis pair)
        h, w = (mask.shape[0] // 2) * 2, (mask.shape[1] // 2) * 2
        return mask[0:h:2, 0:w:2] | mask[1:h:2, 0:w:2] | mask[0:h:2, 1:w:2] | mask[1:h:2, 1:w:2]

    *_, total, inked = _outside_layers(pooled(conn), pooled(node_mask), reach // 2 + 1)
    return bool(((inked >= 0.5 * _SHADOW_COVER * total) & (total >= 2) & (inked > 0)).any())


def _outside_layers(conn: np.ndarray, node_mask: np.ndarray, reach: int
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The pixels outside the nodes within ``reach`` px, in layers 1 px apart around each node:
    ``(dist, ys, xs, key, ink, total, inked)``: the distance map, the pixels, each one's layer
    key (nearest node region x layer), whether it is connector ink, and per key the layer's
    pixel count and ink count (`shadow_bands` and its pre-test `_may_hold_shadow`)."""
    dist, lab = cv2.distanceTransformWithLabels((~node_mask).astype(np.uint8), cv2.DIST_L2, 3,
                                                labelType=cv2.DIST_LABEL_CCOMP)
    ys, xs = np.nonzero((dist > 0) & (dist <= reach))
    key = lab[ys, xs].astype(np.int64) * (reach + 1) + np.ceil(dist[ys, xs]).astype(np.int64)
    ink = conn[ys, xs]
    total = np.bincount(key)
    inked = np.bincount(key, weights=ink.astype(np.float64), minlength=len(total))
    return dist, ys, xs, key, ink, total, inked


def shadow_bands(conn: np.ndarray, bg_dist: np.ndarray, node_mask: np.ndarray, line_h: float) -> np.ndarray | None:
    """Pixels of the connector mask that are nodes' drop shadows, or None when there are none.

    A blurred drop shadow (web and Office look, flowchart.js, PlantUML) is a pale band that
    hugs a node's outline on two sides and fades outwards. Taken as connector ink it turns
    every connector around (the band makes the end leaving a node thick and inky, like an
    arrowhead) and joins the connectors leaving one node into one piece. Each layer of
    pixels at one distance (1 px steps, up to half a text line) outside a node is a shadow
    layer when connector ink covers a large share of it and that ink is pale next to the
    connectors far from any node; its pixels are shadow except those clearly darker than the
    layer's median (the connector crossing the band, an arrowhead entering the node).
    """
    reach = max(6, int(round(0.5 * line_h)))
    if not node_mask.any() or not conn.any():
        return None
    if conn.size >= _SHADOW_PRETEST_PIXELS and not _may_hold_shadow(conn, node_mask, reach):
        return None
    dist, ys, xs, key, ink, total, inked = _outside_layers(conn, node_mask, reach)
    far = conn & (dist > reach)
    if not far.any():
        return None
    pale = _SHADOW_PALE * float(np.percentile(bg_dist[far], 90))
    layers = np.flatnonzero((inked >= _SHADOW_COVER * np.maximum(total, 1)) & (total >= 8))
    if not len(layers):
        return None
    # the inked pixels of each candidate layer, grouped once by sorting on the layer key (a
    # mask over every near pixel per layer cost O(layers x pixels): 0.2 CPU s on large charts)
    ys, xs, key = ys[ink], xs[ink], key[ink]
    order = np.argsort(key, kind="stable")
    ys, xs, key = ys[order], xs[order], key[order]
    starts, ends = np.searchsorted(key, layers, "left"), np.searchsorted(key, layers, "right")
    shadow = np.zeros(conn.shape, bool)
    for lo, hi in zip(starts, ends, strict=True):
        vals = bg_dist[ys[lo:hi], xs[lo:hi]]
        level = float(np.median(vals))
        if level > pale:
            continue
        drop = vals < _SHADOW_KEEP * level
        shadow[ys[lo:hi][drop], xs[lo:hi][drop]] = True
    return shadow if shadow.any() else None


#: two nodes are level along the chart's flow when their centres differ by less than this share
#: of the smaller one's extent along it
_LEVEL_SHARE = 0.25


def level_branch(edge: tuple[int, int], regions: list[Region], decisions: frozenset[int], flow: Flow) -> tuple[int, int]:
    """The direction of a connector whose direction the chart's flow guessed (no arrowhead
    told apart), where its two nodes are level along the flow and one of them is a decision:
    from the decision. The flow cannot order level nodes (their centres differ by a px or two),
    and a decision's branches leave it sideways to the nodes beside it (flowchart.js's "no"
    from a condition's right side, a switch's cases), while the way into a decision comes
    from upstream. Any other edge is returned as it is.
    """
    a, b = edge
    if (a in decisions) == (b in decisions):
        return edge
    ra, rb = regions[a], regions[b]
    extent = min(ra.height, rb.height) if flow.axis == 1 else min(ra.width, rb.width)
    if abs(ra.center[flow.axis] - rb.center[flow.axis]) >= _LEVEL_SHARE * extent:
        return edge
    return (a, b) if a in decisions else (b, a)



#: a branch label beside the line at a decision's vertex starts within this many text lines of
#: the vertex along the line (flowchart.js: 0.0-0.5 below a bottom vertex, up to 1.1 right of a
#: side vertex, wild flowchart.js tuning set fjslabel10_fjs)
_VERTEX_LABEL_REACH = 1.0
#: ... its glyphs stand on one side of the line: at most this share of the box's ink off the
#: line's own strip lies on the other side (flowchart.js's branch labels, a box that swallowed a
#: few px of the line included; a label set on the line, Mermaid's and D2's, has ink on both
#: sides, and so has a box that swallowed an arrowhead beside it)
_BESIDE_OTHER_SIDE = 0.15
#: ... and its near side lies at most this many text lines across from the line
_BESIDE_REACH = 0.75
#: the other end shows a head: thick (`Contact.arrow`) or holding this many times the ink left at
#: the decision's end once the label is left out
_OTHER_INK_SHARE = 1.0
#: the line leaves the vertex: connector ink straight out of it over this share of the first
#: text line along the way out
_LEAVES_SHARE = 0.5


def _vertices(region: Region) -> list[tuple[int, int, float, float]]:
    """A diamond's four vertices as (axis of the way out: 0 x, 1 y; outward sign; position
    along that axis; position across it): the midpoints of its box's sides."""
    x0, y0, x1, y1 = region.bbox
    cx_, cy_ = region.center
    return [(1, 1, y1, cx_), (1, -1, y0, cx_), (0, 1, x1, cy_), (0, -1, x0, cy_)]


def _leaves(c: Component, comp: np.ndarray, ink: np.ndarray, axis: int, sign: int, along: float,
            across: float, line_h: float) -> bool:
    """Whether the connector piece ``c`` runs straight out of a vertex (at ``along`` on ``axis``,
    ``across`` on the other): its inked pixels within a few px of the vertex's line cover
    `_LEAVES_SHARE` of the positions over the first text line outwards."""
    H, W = comp.shape
    reach, half = max(4, int(round(line_h))), max(2, int(round(0.2 * line_h)))
    a0 = int(round(along)) if sign > 0 else int(round(along)) - reach
    a0, a1 = max(a0, 0), min(a0 + reach, (W, H)[axis])
    b0, b1 = max(int(round(across)) - half, 0), min(int(round(across)) + half + 1, (H, W)[axis])
    if a1 <= a0 or b1 <= b0:
        return False
    win = (slice(a0, a1), slice(b0, b1)) if axis == 1 else (slice(b0, b1), slice(a0, a1))
    on = (comp[win] == c.label) & (ink[win] > 0)
    hit = on.any(axis=1) if axis == 1 else on.any(axis=0)
    return float(hit.mean()) >= _LEAVES_SHARE


def _one_side(box: Box, ink: np.ndarray, axis: int, across: float, line_h: float) -> int:
    """The side of a line (running along ``axis`` at ``across``) that the ink in ``box`` off the
    line's strip (`_strip_half`) lies on: -1 lower, +1 higher coordinates, 0 both or none
    (`_BESIDE_OTHER_SIDE`)."""
    x0, y0, x1, y1 = box
    inked = ink[y0:y1, x0:x1] > 0
    # position across the line of every column (vertical line) or row (horizontal line)
    pos = np.arange(x0, x1) if axis == 1 else np.arange(y0, y1)
    per = inked.sum(axis=0) if axis == 1 else inked.sum(axis=1)
    half = _strip_half(line_h)
    low, high = float(per[pos < across - half].sum()), float(per[pos > across + half].sum())
    if low + high < 3 or min(low, high) > _BESIDE_OTHER_SIDE * (low + high):
        return 0
    return 1 if high > low else -1


def _strip_half(line_h: float) -> float:
    """Half the width of the strip a connector line and its arrowhead's middle take up."""
    return max(2.0, 0.1 * line_h)


def beside_vertex_labels(c: Component, comp: np.ndarray, boxes: list[Box], ink: np.ndarray,
                         regions: list[Region], decisions: frozenset[int],
                         line_h: float) -> tuple[Contact, list[tuple[int, int, float, int]]] | None:
    """The end of a two-ended piece where a branch label stands beside the line at the vertex
    it leaves a decision from, with those label boxes as (box index, axis of the line, its
    position across, side of the line the label stands on: -1/+1); None where there is no
    such end or more than one (flowchart.js's placement, `discount_beside_label`).

    Each test tells that placement from the labels other engines set near a decision: the end
    is a decision (``decisions``, region indices); the piece leaves it straight out of a vertex
    (`_leaves`); the box starts within `_VERTEX_LABEL_REACH` text lines of that vertex along
    the way out, and stands beside the line: its ink on one side of it (`_one_side`), its near
    side at most `_BESIDE_REACH` text lines from it. A label set on the line
    (Mermaid's, D2's) is centred on it; a label at the middle of a longer edge starts far
    from the vertex; one by the other end (a label at a branch's target) is that end's.
    """
    ends = c.ends
    if (not c.label_boxes or len(ends) != 2 or ends[0].region == ends[1].region
            or any(ct.gap > 0 for ct in ends)):
        return None
    found: list[tuple[Contact, list[tuple[int, int, float, int]]]] = []
    for ct in ends:
        if ct.region not in decisions:
            continue
        near: dict[int, tuple[int, int, float, int]] = {}
        for axis, sign, along, across in _vertices(regions[ct.region]):
            beside = []
            for bi in c.label_boxes:
                lo, hi = boxes[bi][1 - axis], boxes[bi][3 - axis]
                start = boxes[bi][axis] if sign > 0 else boxes[bi][2 + axis]
                gap = max(lo - across, across - hi, 0.0)
                if (-0.5 * line_h <= sign * (start - along) <= _VERTEX_LABEL_REACH * line_h
                        and gap <= _BESIDE_REACH * line_h
                        and (side := _one_side(boxes[bi], ink, axis, across, line_h))):
                    beside.append((bi, axis, across, side))
            if beside and _leaves(c, comp, ink, axis, sign, along, across, line_h):
                near.update((b[0], b) for b in beside)
        if near:
            found.append((ct, [near[b] for b in sorted(near)]))
    return found[0] if len(found) == 1 else None


def discount_beside_label(c: Component, comp: np.ndarray, contact_owner: np.ndarray, boxes: list[Box],
                          pad: int, ink: np.ndarray, regions: list[Region], decisions: frozenset[int],
                          line_h: float) -> None:
    """Leave a branch label standing beside its line where the line leaves a decision's vertex
    (`beside_vertex_labels`) out of that end's pixels and ink, where the other end then shows
    the head (thick, `Contact.arrow`, or clearly inkier, `_clear_head`).

    flowchart.js sets a branch's "yes"/"no" there: the label box, filled into the piece (grown by
    ``pad`` px, `OCRTranscriber._connectors`), and its glyphs lie in the decision's contact ring
    and count as that end's pixels and ink, so the source end looked like the inky head (5-20x
    the pixels, 2-3x the ink of the target on the wild flowchart.js tuning set,
    docs/transcription.md) and `_clear_head` read the branch backwards. A label beside the
    line where it enters a decision (a Graphviz ``headlabel``, guard set fjslabel10_gvend) sits
    in the same place, but there the head lies under the label's box, and the other end, the
    source, shows none: that end is left as it is. ``contact_owner`` is the ring map the
    contacts were measured on (1 + region index), ``ink`` the per-pixel ink they summed.
    """
    hit = beside_vertex_labels(c, comp, boxes, ink, regions, decisions, line_h)
    if hit is None:
        return
    ct, near = hit
    (other,) = [e for e in c.ends if e is not ct]
    H, W = comp.shape
    label = np.zeros(comp.shape, bool)
    for bi, axis, across, side in near:
        x0, y0, x1, y1 = boxes[bi]
        # the grown box on the label's side of the line only: the line, and a head that a box
        # set beside it swallowed, stay that end's
        off = int(np.floor(across + _strip_half(line_h))) + 1 if side > 0 else int(np.ceil(across - _strip_half(line_h)))
        if axis == 1:
            x0, x1 = (max(x0 - pad, off), x1 + pad) if side > 0 else (x0 - pad, min(x1 + pad, off))
            y0, y1 = y0 - pad, y1 + pad
        else:
            y0, y1 = (max(y0 - pad, off), y1 + pad) if side > 0 else (y0 - pad, min(y1 + pad, off))
            x0, x1 = x0 - pad, x1 + pad
        label[max(y0, 0):min(y1, H), max(x0, 0):min(x1, W)] = True
    at = label & (comp == c.label) & (contact_owner == ct.region + 1)
    left = replace(ct, count=max(ct.count - int(at.sum()), 2), mass=max(ct.mass - float(ink[at].sum()), 0.0))
    if other.arrow or other.mass >= _OTHER_INK_SHARE * left.mass:
        ct.count, ct.mass = left.count, left.mass


# -- pieces joining three or more nodes, traced line by line (issue 14, eleventh stretch) ------
#: half-width (text lines) of the window across a line in which the tracer looks for it: a 1-3 px
#: line, its anti-aliasing and a hop's bump beside it
_TRACE_ACROSS = 0.25
#: the tracer carries on across a blank this long (text lines): a dashed line's gap after the
#: closing, the hop (a small arc) where a line jumps another
_TRACE_GAP = 0.8
#: a turn at a line's end counts where the ink runs on this long (text lines) that way
_TRACE_TURN = 0.5
#: a line joins a line that joins another ... at most this deep
_TRACE_DEPTH = 3
#: a walk lost within this many text lines of its node followed no line: a label's glyphs
#: beside the line in the node's ring, a speck
_TRACE_STUB = 3.0

_Step = tuple[int, int]


@dataclass
class _Trace:
    """Where a walk from one port of a piece ended: the regions reached (one, or the two ends of
    the line it joined sideways) and the pixels it went over."""

    reached: list[int]
    path: list[tuple[int, int]]
    joined: bool = False


@dataclass
class _Nodes:
    """The nodes of one piece in its window, as maps of 1 + region index: ``near`` (within a
    line's reach of a node's outline), ``touch`` (where a line leaving the node starts) and
    ``body`` (the node grown by the margin its connectors stop at)."""

    near: np.ndarray
    touch: np.ndarray
    body: np.ndarray

    def at(self, y: int, x: int) -> int:
        """The region index of a node near (y, x), -1 for none or off the map."""
        if 0 <= y < self.near.shape[0] and 0 <= x < self.near.shape[1]:
            return int(self.near[y, x]) - 1
        return -1

    def towards(self, y: int, x: int, d: _Step, ahead: int) -> bool:
        """Whether heading ``d`` from (y, x) runs into the node near it within ``ahead`` px (a line
        passing beside a node keeps clear of it)."""
        py, px = y + ahead * d[0], x + ahead * d[1]
        if not (0 <= py < self.body.shape[0] and 0 <= px < self.body.shape[1]):
            return False
        return int(self.body[py, px]) == int(self.near[y, x]) > 0


def _near_nodes(regions: list[Region], which: list[int], origin: tuple[int, int], shape: tuple[int, int],
                margin: int) -> _Nodes:
    """The nodes ``which`` in a window at ``origin`` (y, x) (`_Nodes`; the largest drawn first so
    that nested small ones keep their pixels)."""
    maps = []
    for grow in (margin + 3, margin + 2, margin):
        grid = np.zeros(shape, np.int32)
        for i in sorted(which, key=lambda i: -regions[i].area):
            pts = region_polygon(regions[i], origin[1], origin[0])
            if len(pts) < 3:
                continue
            cv2.fillPoly(grid, [pts], i + 1)
            cv2.polylines(grid, [pts], True, i + 1, thickness=2 * int(grow) + 1)
        maps.append(grid)
    return _Nodes(*maps)


def _ports(sel: np.ndarray, touch: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Where one piece leaves a node: for each separate cluster of its pixels near the node
    (``sel``; two lines of one piece may touch one node at two sides), the (rows, columns) of the
    cluster's pixels that touch it (``touch``; a line joined into another just outside the node
    belongs to the cluster, but lies further out), else of the whole cluster."""
    n, lab = cv2.connectedComponents(sel.astype(np.uint8), connectivity=8)
    ys, xs = np.nonzero(sel)
    ks = lab[ys, xs]
    first = touch[ys, xs]
    out = []
    for i in range(1, n):
        mine = ks == i
        if mine.sum() < 2:
            continue
        if (mine & first).any():
            mine &= first
        out.append((ys[mine], xs[mine]))
    return out


def _start(mask: np.ndarray, ys: np.ndarray, xs: np.ndarray, d: _Step, reach: int) -> tuple[int, int]:
    """Where to start a walk from a port's pixels heading ``d``: the pixel the line runs on
    furthest from (within ``reach``), not the port's centre, which a drop shadow's remnant or a
    glyph beside the line pulls off it."""
    def run(y: int, x: int) -> int:
        t = 0
        while t < reach and _on(mask, y + (t + 1) * d[0], x + (t + 1) * d[1]):
            t += 1
        return t
    best = max(range(len(ys)), key=lambda j: (run(int(ys[j]), int(xs[j])), -abs(ys[j] - ys.mean()) - abs(xs[j] - xs.mean())))
    return int(ys[best]), int(xs[best])


def _outward(region: Region, y: float, x: float) -> _Step:
    """The axis direction from a node out through the side of its box nearest (y, x)."""
    x0, y0, x1, y1 = region.bbox
    sides = [(abs(x - x0), (0, -1)), (abs(x1 - x), (0, 1)), (abs(y - y0), (-1, 0)), (abs(y1 - y), (1, 0))]
    return min(sides, key=lambda s: s[0])[1]


def _on(mask: np.ndarray, y: int, x: int) -> bool:
    return 0 <= y < mask.shape[0] and 0 <= x < mask.shape[1] and bool(mask.item(y, x))


def _ahead(mask: np.ndarray, y: int, x: int, d: _Step, across: int, gap: int) -> tuple[int, int, int] | None:
    """The next line pixel along ``d`` within ``gap`` px (window ``across`` px either side of the
    line), as (y, x, distance), re-centred on the line where its run lies inside the window."""
    ly, lx = d[1], d[0]
    order = [0] + [o for k in range(1, across + 1) for o in (k, -k)]
    for s in range(1, gap + 1):
        cy, cx_ = y + s * d[0], x + s * d[1]
        # the line pixel nearest the course
        near = next((o for o in order if _on(mask, cy + o * ly, cx_ + o * lx)), None)
        if near is None:
            continue
        lo = hi = near
        # its run, followed past the window: a thick line lies across its edge, a line crossing
        # or turning runs on
        while lo > -3 * across and _on(mask, cy + (lo - 1) * ly, cx_ + (lo - 1) * lx):
            lo -= 1
        while hi < 3 * across and _on(mask, cy + (hi + 1) * ly, cx_ + (hi + 1) * lx):
            hi += 1
        mid = (lo + hi) // 2 if hi - lo <= 2 * across else 0
        return cy + mid * ly, cx_ + mid * lx, s
    return None


def _turns(mask: np.ndarray, nodes: _Nodes, home: int, y: int, x: int, d: _Step, across: int,
           reach: int) -> list[tuple[int, int, _Step]]:
    """The ways the line goes on sideways from its end (y, x) heading ``d``: an elbow has one, the
    end of a line met sideways (it joins another line) two. A way counts where the ink runs on
    ``reach`` px, or until it meets a node (a line joined just outside its target)."""
    out = []
    for e in ((d[1], d[0]), (-d[1], -d[0])):
        for back in range(0, across + 1):
            by, bx = y - back * d[0], x - back * d[1]
            ok = True
            for t in range(1, reach + 1):
                if not any(_on(mask, by + t * e[0] + o * d[0], bx + t * e[1] + o * d[1]) for o in (-1, 0, 1)):
                    r = nodes.at(by + t * e[0], bx + t * e[1])
                    ok = t > 1 and r >= 0 and r != home
                    break
            if ok:
                out.append((by, bx, e))
                break
    return out


def _walk(mask: np.ndarray, nodes: _Nodes, y: int, x: int, d: _Step, home: int, line_h: float,
          budget: int, depth: int = 0, ahead: int = 4) -> _Trace:
    """Follow a connector from (y, x) heading ``d`` (away from node ``home``) until it enters
    another of the piece's ``nodes`` (`_near_nodes`).

    Straight on wherever the line goes on (across lines it crosses or that join it), round an
    elbow where it turns one way, and both ways where it ends on another line met sideways (a
    line joined into another). No region reached where it is lost (a dead end, a curve, a loop)."""
    across = max(2, int(round(_TRACE_ACROSS * line_h)))
    gap = max(3, int(round(_TRACE_GAP * line_h)))
    reach = max(4, int(round(_TRACE_TURN * line_h)))
    path: list[tuple[int, int]] = []
    seen: set[tuple[int, int, _Step]] = set()
    steps = 0
    while steps < budget:
        nxt = _ahead(mask, y, x, d, across, gap)
        if nxt is None:
            # a line ends where it enters a node (the node itself is no connector ink): the node
            # lies just ahead. One passing by a node (under a diamond's vertex, a line joined
            # into another just below the node) is no end there
            r = nodes.at(y, x)
            if r >= 0 and r != home and nodes.towards(y, x, d, ahead):
                return _Trace([r], path)
            turns = _turns(mask, nodes, home, y, x, d, across, reach)
            if len(turns) == 1:
                y, x, d = turns[0]
            elif len(turns) == 2 and depth < _TRACE_DEPTH:
                # it joins another line (which may itself join a third): both ways
                ends = [_walk(mask, nodes, ty, tx, e, home, line_h, budget - steps, depth + 1, ahead)
                        for ty, tx, e in turns]
                if any(not t.reached for t in ends):
                    return _Trace([], path)
                return _Trace([r for t in ends for r in t.reached], path + [p for t in ends for p in t.path],
                              joined=True)
            else:
                return _Trace([], path)
            if (y, x, d) in seen:
                return _Trace([], path)
            seen.add((y, x, d))
            continue
        y, x, s = nxt
        steps += s
        path.append((y, x))
    return _Trace([], path)


def split_traced_pieces(components: dict[int, Component], comp: np.ndarray, ink: np.ndarray, margin: int,
                        regions: list[Region], boxes: list[Box], line_h: float,
                        measure: tuple[np.ndarray, np.ndarray, float] | None = None) -> dict[int, Component]:
    """Pieces joining three or more nodes split into the connectors they hold, where every line
    of the piece can be followed from node to node (`_walk`); other pieces as they are.

    Orthogonal engines (flowchart.js) bring a loop back up beside the chart and into the line
    above its target from the side, and lines cross: the whole tangle is one piece, whose ends
    were paired by ink or by the flow (a loop back's source lies downstream of its target, so it
    came out as the source of an edge to the target). Traced, a line met end-on at a crossing
    goes straight on, and a line that ends on another one sideways joins it: that piece is a
    `Component.joins` piece, which goes where the line it joins goes (`joined_edge`)."""
    out: dict[int, Component] = {}
    fresh = max(components, default=0) + 1
    for k, c in components.items():
        ends = c.ends
        if len({ct.region for ct in ends}) < 3 or c.through_shape or any(ct.gap > 0 for ct in ends):
            out[k] = c
            continue
        split = _split_piece(k, c, ends, comp, ink, margin, regions, [boxes[b] for b in c.label_boxes], line_h,
                             measure)
        if split is None:
            out[k] = c
            continue
        for piece, path in split:
            piece.label_boxes = [b for b in c.label_boxes if _nearest_path(boxes[b], [p for _, p in split]) is path]
            piece.traced = True
            out[fresh] = piece
            fresh += 1
    return out


def _in_boxes(path: list[tuple[int, int]], origin: tuple[int, int], boxes: list[Box], line_h: float) -> bool:
    """Whether most of a walk (window ``origin``) went over the piece's label boxes: glyphs."""
    pad = 0.35 * line_h
    inside = sum(any(b[0] - pad <= x + origin[1] <= b[2] + pad and b[1] - pad <= y + origin[0] <= b[3] + pad
                     for b in boxes) for y, x in path)
    return inside >= 0.8 * len(path)


def _nearest_path(box: Box, paths: list[np.ndarray]) -> np.ndarray:
    """The traced path (rows of y, x) passing nearest the box's centre: the line it labels."""
    cx_, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return min(paths, key=lambda p: float(np.min(np.hypot(p[:, 1] - cx_, p[:, 0] - cy))) if len(p) else np.inf)


def _split_piece(k: int, c: Component, ends: list[Contact], comp: np.ndarray, ink: np.ndarray, margin: int,
                 regions: list[Region], boxes: list[Box], line_h: float,
                 measure: tuple[np.ndarray, np.ndarray, float] | None = None
                 ) -> list[tuple[Component, np.ndarray]] | None:
    """The connectors of piece ``k`` (`split_traced_pieces`) with the pixels each was traced
    over, or None where some line cannot be followed or the lines do not add up."""
    ys, xs = np.nonzero(comp == k)
    heads = None
    if measure is not None:
        dist, mass, ratio = measure
        vals = dist[ys, xs]
        vals = vals[vals > 0]
        heads = _LineEnds(comp, k, dist, mass, line_h, float(np.median(vals)) if len(vals) else 1.0, ratio)
    pad = int(round(line_h))
    y0, x0 = max(int(ys.min()) - pad, 0), max(int(xs.min()) - pad, 0)
    y1, x1 = min(int(ys.max()) + pad + 1, comp.shape[0]), min(int(xs.max()) + pad + 1, comp.shape[1])
    # the ink itself: a label box filled in to join a line it interrupts would stand beside a
    # line it does not (flowchart.js's yes/no) as a turn
    mask = (comp[y0:y1, x0:x1] == k) & ink[y0:y1, x0:x1]
    # where a line touches a node: just outside the node's mask (its outline grown by margin)
    nodes = _near_nodes(regions, [ct.region for ct in ends], (y0, x0), mask.shape, margin)
    budget = 4 * (mask.shape[0] + mask.shape[1])
    by_region = {ct.region: ct for ct in ends}
    pairs: dict[frozenset[int], tuple[int, np.ndarray]] = {}  # the line's first node, its path
    joins: list[tuple[int, tuple[int, ...], np.ndarray]] = []
    for ct in ends:
        for pys, pxs in _ports(mask & (nodes.near == ct.region + 1), nodes.touch == ct.region + 1):
            d = _outward(regions[ct.region], float(pys.mean()) + y0, float(pxs.mean()) + x0)
            py, px = _start(mask, pys, pxs, d, int(round(line_h)))
            t = _walk(mask, nodes, py, px, d, ct.region, line_h, budget, ahead=margin + 4)
            if not t.reached and (len(t.path) < _TRACE_STUB * line_h or _in_boxes(t.path, (y0, x0), boxes, line_h)):
                continue  # no line leaves there: a speck, the glyphs of a label beside the line
            if not t.reached or any(r not in by_region for r in t.reached):
                return None
            path = np.array(t.path, float).reshape(-1, 2) + (y0, x0)
            if t.joined:
                reached = tuple(sorted(set(t.reached)))
                if len(reached) < 2 or ct.region in reached:
                    return None
                joins.append((ct.region, reached, path))
            else:
                key = frozenset((ct.region, t.reached[0]))
                pairs.setdefault(key, (ct.region, path))
    # (a line may be walked from one end only: its other end lies where another line joins
    # just outside the node, and the walk from there took the joined line)
    if not pairs:
        return None
    # the lines a line joined hold one traced between two of their nodes
    if any(not any(key <= set(q) for key in pairs) for _, q, _ in joins):
        return None
    covered = {r for key in pairs for r in key} | {r for r, _, _ in joins}
    if covered != set(by_region):
        return None
    if heads is None:
        out = [(Component(c.label, [by_region[a], by_region[b]]), path) for (a, b), path in
               ((tuple(sorted(key)), p) for key, (_, p) in pairs.items())]
        out += [(Component(c.label, [by_region[r], *(by_region[e] for e in q)], joins=q), path)
                for r, q, path in joins]
        return out
    # each line's own ends, measured on its own pixels: the tangle's contact at a node holds
    # every line there (a head entering it beside a line leaving it). Where the line shows its
    # head at one end only, its own ends decide; otherwise the tangle's contacts stay
    out = []
    for key, (first, path) in sorted(pairs.items(), key=lambda kv: sorted(kv[0])):
        (last,) = key - {first}
        a, b = sorted((first, last))
        ends_at = {first: heads.end(by_region[first], path, 0), last: heads.end(by_region[last], path, -1)}
        own = ends_at[a].arrow != ends_at[b].arrow
        out.append((Component(c.label, [ends_at[a], ends_at[b]] if own else [by_region[a], by_region[b]],
                              own_head=own), path))
    out += [(Component(c.label, [by_region[r], *(by_region[e] for e in q)], joins=q), path)
            for r, q, path in joins]
    return out


#: a traced line's end is measured over this many text lines of its path from the node
_END_REACH = 1.0
#: ... and this many text lines either side of the path
_END_ACROSS = 0.3


@dataclass
class _LineEnds:
    """Measures a traced line's ends on its own pixels (`_split_piece`): ``comp`` == ``k`` is the
    piece, ``dist`` its dark core's distance transform (label boxes cleared), ``mass`` the ink
    per pixel; ``base`` the piece's typical stroke half-width and ``arrow_ratio`` the arrowhead
    thickness test, as `find_contacts` measures a contact."""

    comp: np.ndarray
    k: int
    dist: np.ndarray
    mass: np.ndarray
    line_h: float
    base: float
    arrow_ratio: float

    def end(self, ct: Contact, path: np.ndarray, at: int) -> Contact:
        """``ct`` measured where the line ``path`` (rows of y, x; its first point at the node it
        left from) ends at its start (``at`` 0) or its end (``at`` -1): its pixels within
        `_END_REACH` text lines along the path and `_END_ACROSS` across, their greatest
        thickness and their ink."""
        if not len(path):
            return ct
        pts = path if at == 0 else path[::-1]
        step = np.r_[0.0, np.cumsum(np.hypot(*np.diff(pts, axis=0).T))] if len(pts) > 1 else np.zeros(1)
        near = pts[step <= _END_REACH * self.line_h]
        r = max(2, int(round(_END_ACROSS * self.line_h)))
        H, W = self.comp.shape
        y0, x0 = max(int(near[:, 0].min()) - r, 0), max(int(near[:, 1].min()) - r, 0)
        y1, x1 = min(int(near[:, 0].max()) + r + 1, H), min(int(near[:, 1].max()) + r + 1, W)
        zone = np.zeros((y1 - y0, x1 - x0), np.uint8)
        for y, x in near:
            cv2.circle(zone, (int(round(x)) - x0, int(round(y)) - y0), r, 1, thickness=-1)
        sel = zone.astype(bool) & (self.comp[y0:y1, x0:x1] == self.k)
        if sel.sum() < 2:
            return ct
        thick = float(self.dist[y0:y1, x0:x1][sel].max())
        return replace(ct, count=int(sel.sum()), point=(float(pts[0][1]), float(pts[0][0])), thickness=thick,
                       arrow=thick >= max(2.0, self.arrow_ratio * self.base),
                       mass=float(self.mass[y0:y1, x0:x1][sel].sum()), along=False, outline=False)


def untraced(components: dict[int, Component]) -> dict[int, Component]:
    """The pieces that vote on the chart's flow (`chart_flow`): those not split out of a tangle.

    A split piece's contacts are the tangle's (the pixels, ink and arrowhead flag of every line
    of the tangle at that node, against the tangle's median thickness), and as ballots they
    turned whole tuning charts around (fjsloop11_fjs/gen000046, fjsedge9_printedge6_fjs/
    gen000022: 13 and 31 edges reversed); the tangle itself never voted (three or more ends).
    """
    return {k: c for k, c in components.items() if not c.traced}


def joined_edge(c: Component, found: set[tuple[int, int]], regions: list[Region], flow: Flow,
                decisions: frozenset[int] = frozenset()) -> tuple[int, int]:
    """The edge of a piece that joins other lines sideways (`Component.joins`: the nodes those
    lines link). Its own node is a source joining them (a loop back into the line above its
    target): the edge runs to where those lines go, the one target of the edges found so far
    between their nodes (``found``), else their most downstream node. Where its own end shows
    an arrowhead (and is no decision, whose vertex widens any end) it is a target branching off
    them instead (PlantUML forks a line into two targets): the edge comes from their one source,
    else their most upstream node."""
    assert c.joins is not None
    own, ends = c.contacts[0], set(c.joins)
    inner = [(a, b) for a, b in found if a in ends and b in ends]
    if own.arrow and not own.along and own.region not in decisions:
        sources = {a for a, _ in inner}
        if len(sources) == 1:
            return sources.pop(), own.region
        return min(c.joins, key=lambda r: flow.rank(regions[r])), own.region
    targets = {b for _, b in inner}
    if len(targets) == 1:
        return own.region, targets.pop()
    return own.region, max(c.joins, key=lambda r: flow.rank(regions[r]))
