"""`OCRTranscriber`: the offline, CPU-only transcriber (OCR engines + classical edge recovery).

Given the original image and the letter -> region map, `OCRTranscriber.transcribe` runs five
steps, one method each:

1. **Foreground** (`_foreground`). The background colour is the most common colour on the
   image border; everything that differs from it is ink (borders, fills, text, connectors,
   label boxes). Every region's polygon, grown by a few pixels to swallow its border, is the
   node's mask.
2. **Nodes** (`_nodes`). The node interiors (polygon shrunk past the border) are cleaned for
   OCR against their own fill (`crops.to_text_crop`) and read in a background thread while
   steps 3-4 run; the outline profile gives the shape (`flowpath.transcribe.shapes`).
3. **Edge labels** (`_edge_labels`). What remains is connectors, arrowheads and edge labels.
   Label boxes are found two ways: filled label backgrounds (Mermaid's default style) survive a
   morphological opening that erases thin lines; labels drawn on the bare background show up as
   clusters of glyph-sized blobs (`connectors.find_label_boxes`).
4. **Connectors** (`_connectors`). Label boxes are filled into the connector mask so that a line
   interrupted by its label stays one piece; each connected component's contacts are the
   regions whose grown outline it touches. An arrowhead is a filled triangle, so the contact
   where the stroke is much thicker than the component's line width is a target.
5. **Text and graph** (`_graph`). The label boxes are read (`crops.to_label_crop`), the node
   reading is collected, and nodes and edges become a `FlowChart`. Each edge label box becomes
   its own edge, so a ``Yes`` and a ``No`` connector between the same two nodes stay two edges.

Anything odd (a connector touching one node only, no arrowhead, an unreadable node) becomes a
line in ``Transcription.problems``; a chart never raises.
"""

from __future__ import annotations

import logging
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import cache, partial
from typing import Any

import cv2
import numpy as np

from flowpath.geometry import Region
from flowpath.graph import Edge, FlowChart, Node, infer_kind
from flowpath.models.base import LabelledChart, Transcriber, Transcription
from flowpath.transcribe.ocr import connectors as cx
from flowpath.transcribe.ocr import text as tx
from flowpath.transcribe.ocr.choice import (
    SMALL_PRINT_FROM,
    learned_opinion,
    second_opinion,
    small_print_from,
)
from flowpath.transcribe.ocr.code_text import mend_node_texts
from flowpath.transcribe.ocr.crops import (
    SMALL_LINE,
    TextCrop,
    chart_line_height,
    color_distance,
    edge_energy,
    fill_color,
    glyph_depth,
    stroke_sharpness,
    strong_ink,
    strong_ink_share,
    to_grey_crop,
    to_label_crop,
    to_text_crop,
)
from flowpath.transcribe.ocr.engines import OCREngine, RapidOCREngine, Reading, TesseractEngine
from flowpath.transcribe.ocr.grey_print import (
    BLUR_SPECIALIST,
    GREY_BELOW,
    GREY_MARGIN,
    grey_margin,
    grey_opinion,
    in_grey_window,
    is_blurred,
)
from flowpath.transcribe.shapes import classify_shape

logger = logging.getLogger(__name__)

#: ``engine=`` choices of `OCRTranscriber`
ENGINES = ("auto", "tesseract", "rapidocr")
#: rapidocr's confidence (0-1) at which its reading of a label box tesseract left empty is kept
_SECOND_LABEL_CONF = 0.8


@cache
def _note_once(message: str) -> None:
    """Log ``message`` as a warning the first time it comes up in this process (a missing
    optional package is worth one line, not one per chart or per transcriber)."""
    logger.warning(message)


@dataclass
class _Page:
    """Step 1's result: the image and the masks every later step works on."""

    img: np.ndarray
    letters: list[str]
    regions: list[Region]
    bg_dist: np.ndarray  # uint8 (H, W): largest channel difference from the background
    unit: float  # median short side of a node (px)
    margin: int  # px the node outline is grown by to swallow its border
    node_mask: np.ndarray  # bool (H, W): nodes and their borders
    contact_owner: np.ndarray  # int32 (H, W): 1 + region index of the ring around each node


@dataclass
class _Nodes:
    """Step 2's result: shapes, the chart's text line height, and the node text being read."""

    shapes: dict[int, str]
    line_h: float
    reading: Future[list[Reading]]
    #: CPU seconds the reading thread spent cleaning the crops (filled in by that thread)
    crop_cpu: list[float]
    #: how sharp the glyphs' edges are (`crops.stroke_sharpness`; None: not small print)
    sharpness: float | None = None
    #: the recogniser that read the grey crops, greyrec or blurrec (filled in by the reading
    #: thread; empty: no grey step)
    grey_reader: list[str] = field(default_factory=list)


class OCRTranscriber(Transcriber):
    """Offline transcriber: OCR engines for text, classical CV for edges, arrows and shapes.

    Args:
        lang: tesseract language(s), e.g. ``"eng"``.
        node_margin: pixels the node outline is grown by before connectors are traced (the
            border's thickness plus anti-aliasing); ``None`` = scale with the image.
        arrow_ratio: a contact is an arrowhead when its stroke is this many times thicker than
            the connector's line.
        workers: parallel tesseract engines per chart (2 uses both cores of a small machine).
        engine: ``"tesseract"`` (print), ``"rapidocr"`` (PP-OCR, reads handwriting; needs
            ``flowpath[ocr]``) or ``"auto"``: tesseract reads every node, then the rule of
            `flowpath.transcribe.ocr.choice` hands a chart tesseract doubts (handwriting) to
            rapidocr whole, and a doubtful node of another chart to it alone, when
            ``flowpath[ocr]`` is installed (docs/transcription.md, "Choosing the engine").
        handwriting_below: the per-node tesseract confidence (0-1) under which ``auto`` asks
            rapidocr (`choice.CROP_BELOW`).
        learned: ``auto`` also reads small print (charts whose text lines are in
            [`choice.SMALL_PRINT_FROM`, `choice.SMALL_PRINT_BELOW`) px) with the learned line
            recogniser (`flowpath.transcribe.ocr.recogniser`) and keeps its reading where
            `choice.prefer_learned` says so. On by default; it needs torch
            (``flowpath[models]``), imported only when a chart has such print: without it
            tesseract/rapidocr read small print and a note is logged once per process.
            ``False`` (CLI: ``--transcriber-arg learned=false``) turns it off.
        grey: ``auto`` also reads small print (`grey_print.in_grey_window`) from the node's
            uncleaned grey crop (`crops.to_grey_crop`) with the grey-input recogniser
            (`recogniser.GREY_MODEL_DIR`) and keeps its reading where `grey_print.grey_opinion`
            says so, by default on blurred charts (`grey_print.grey_margin`) (weights shipped in ``flowpath/resources/text_recogniser_grey``, its card).
            ``False`` turns it off; it is off with ``learned=False``, or when torch or the
            weights are missing.
        blur_model: on charts `grey_print.is_blurred` calls blurred, the blur specialist
            (`recogniser.BLUR_MODEL_DIR`: the grey model fine-tuned on blurred charts' lines only)
            reads the grey crops in the grey model's place; sharp charts never see it. Default
            `grey_print.BLUR_SPECIALIST`; without its weights the grey model reads as before.
        beside_labels: a branch label standing beside its line at a decision's vertex is left
            out of that end's ink (`connectors.discount_beside_label`, flowchart.js's yes/no).
            Off by default: it raised wild flowchart.js on the tuning sets with every generated
            guard flat, but the held-out wild D2 row of wild6_eval fell 0.954 -> 0.946 on the
            full pipeline (docs/transcription.md, tenth stretch).
        vote: where two or more other readers read a node (small print: tesseract, rapidocr
            and the learned readers), a word they agree on replaces the kept reading's
            (`text.vote_words`). On by default; ``False`` keeps the kept reading as spelt.
        loop_backs: a loop back drawn as three straight sides of a rectangle that hold no node
            (flowchart.js) is kept as a connector rather than cut out as a subgraph frame, on
            charts without drop shadows (`connectors.find_frames` ``keep_loops``). Off by
            default: on wild6_eval it raised default flowchart.js 0.863 -> 0.881 but wild
            flowchart.js fell 0.867 -> 0.850 (docs/transcription.md, thirteenth stretch).

    Raises:
        MissingDependencyError: tesserocr or tesseract's language data is missing, or
            ``engine="rapidocr"`` without ``flowpath[ocr]``.
        ValueError: an unknown ``engine``.

    >>> from flowpath.transcribe import OCRTranscriber  # doctest: +SKIP
    >>> tr = OCRTranscriber()([labelled_chart])[0]      # doctest: +SKIP
    >>> print(tr.mermaid)                                # doctest: +SKIP
    """

    name = "ocr"

    def __init__(self, *, lang: str = "eng", node_margin: int | None = None, arrow_ratio: float = 2.2,
                 workers: int = 2, engine: str = "auto", handwriting_below: float = 0.6,
                 learned: bool = True, beside_labels: bool = False, grey: bool = True,
                 vote: bool = True, blur_model: bool = BLUR_SPECIALIST, loop_backs: bool = False) -> None:
        if engine not in ENGINES:
            raise ValueError(f"unknown OCR engine {engine!r}; choose one of {list(ENGINES)}")
        self.lang = lang
        self.node_margin = node_margin
        self.arrow_ratio = float(arrow_ratio)
        self.engine = engine
        self.handwriting_below = float(handwriting_below)
        self.tesseract = TesseractEngine(lang, workers)
        self._handwriting: RapidOCREngine | None = None
        self.learned = bool(learned)
        self.beside_labels = bool(beside_labels)
        self.loop_backs = bool(loop_backs)
        self._learned: OCREngine | None = None
        self.grey = bool(grey)
        self._grey: OCREngine | None = None
        self.vote = bool(vote)
        self.blur_model = bool(blur_model)
        self._blur: OCREngine | None = None
        if engine == "rapidocr":
            self._handwriting = self._rapidocr()

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
                tr = Transcription(mermaid=_mermaid(fc), chart=fc,
                                   problems=[f"transcription failed: {type(exc).__name__}: {exc}"])
            tr.meta.setdefault("transcriber", self.name)
            tr.meta["seconds"] = round(time.perf_counter() - t, 3)
            out.append(tr)
        return out

    def transcribe(self, chart: LabelledChart) -> Transcription:
        """Transcribe one chart in the five steps of the module docstring (may raise;
        ``__call__`` turns errors into problems)."""
        from flowpath.io import load_image

        img = load_image(chart.image, name="OCRTranscriber image")
        if not chart.regions:
            fc = FlowChart("TD")
            problems = ["no node regions were given; the graph is empty"]
            return Transcription(mermaid=_mermaid(fc), chart=fc, problems=problems)
        # CPU seconds of this thread per step, in ``meta["cpu_s"]`` (eval/bench_transcribe.py
        # prints them): tesseract's own threads and the node-crop thread are counted apart
        cpu: dict[str, float] = {}
        t = time.thread_time()
        page = self._foreground(img, chart)
        cpu["foreground"], t = time.thread_time() - t, time.thread_time()
        nodes = self._nodes(page)
        cpu["nodes"], t = time.thread_time() - t, time.thread_time()
        boxes, conn, shadowed = self._edge_labels(page, nodes.line_h)
        cpu["edge_labels"], t = time.thread_time() - t, time.thread_time()
        components = self._connectors(page, conn, boxes, nodes.line_h, shadowed,
                                      frozenset(i for i, sh in nodes.shapes.items() if sh == "rhombus"))
        cpu["connectors"], t = time.thread_time() - t, time.thread_time()
        tr = self._graph(page, nodes, boxes, components)
        cpu["graph"] = time.thread_time() - t
        cpu["node_crops"] = sum(nodes.crop_cpu)
        tr.meta["cpu_s"] = {k: round(v, 4) for k, v in cpu.items()}
        return tr

    # -- engines -------------------------------------------------------------------------------
    def read(self, crops: list[TextCrop | None], line_height: float | None = None,
             small_from: float = SMALL_PRINT_FROM) -> list[Reading]:
        """Read node crops with the configured engine(s) (see ``engine``); ``line_height`` (the
        chart's text line height, px) tells ``auto`` whether the chart is small print, from
        ``small_from`` px up (`choice.small_print_from`)."""
        if self.engine == "rapidocr":
            assert self._handwriting is not None
            return self._handwriting.read(crops)
        readings = self.tesseract.read(crops)
        if self.engine == "auto":
            readings = self._second_opinion(crops, readings)
            if self.learned:
                readings = learned_opinion(crops, readings, self._learned_or_none, line_height,
                                           small_from=small_from)
        return readings

    def _learned_or_none(self) -> OCREngine | None:
        """The learned small-print recogniser (`recogniser.LineRecogniserEngine`), loaded on first
        need; None (and not tried again) when torch or the model file is missing."""
        if self._learned is None:
            from flowpath.errors import MissingDependencyError
            from flowpath.transcribe.ocr.recogniser import LineRecogniserEngine

            try:
                self._learned = LineRecogniserEngine()
            except (MissingDependencyError, FileNotFoundError) as exc:
                self.learned = False  # do not try again for every chart
                _note_once(f"small print is read without the learned text recogniser: {exc} "
                           "(OCRTranscriber(learned=False), --transcriber-arg learned=false: no note)")
                return None
        return self._learned

    def grey_read(self, grey_crops: list[TextCrop | None], readings: list[Reading],
                  margin: float = GREY_MARGIN, specialist: bool = False) -> list[Reading]:
        """The grey recogniser's opinion on a chart in its window (`grey_print.grey_opinion`);
        ``margin``: `grey_print.grey_margin` of the chart; ``specialist``: the blur specialist
        reads in the grey model's place (a blurred chart, `_specialist_reads`)."""
        return grey_opinion(grey_crops, readings, self._blur_or_none if specialist else self._grey_or_none,
                            margin=margin)

    def _specialist_reads(self, sharpness: float | None) -> bool:
        """Whether the blur specialist reads a chart whose glyph edges are this sharp: it is
        blurred (`grey_print.is_blurred`), the specialist is on and its weights load."""
        return is_blurred(sharpness) and self.blur_model and self._blur_or_none() is not None

    def _blur_or_none(self) -> OCREngine | None:
        """The blur specialist, loaded on first need; None (and the grey model in its place from
        then on) when torch or its weights are missing."""
        if self._blur is None and self.blur_model:
            from flowpath.errors import MissingDependencyError
            from flowpath.transcribe.ocr.recogniser import BLUR_MODEL_DIR, LineRecogniserEngine

            try:
                self._blur = LineRecogniserEngine(BLUR_MODEL_DIR)
                self._blur.name = "blurrec"  # its readings, told apart in ``meta["node_engines"]``
            except (MissingDependencyError, FileNotFoundError):
                self.blur_model = False  # not installed: the grey model reads blurred charts too
                return None
        return self._blur

    def _grey_or_none(self) -> OCREngine | None:
        """The grey-input recogniser, loaded on first need; None (and the step off) when torch or
        its weights are missing (they ship only where they won on tuning data)."""
        if self._grey is None:
            from flowpath.errors import MissingDependencyError
            from flowpath.transcribe.ocr.recogniser import GREY_MODEL_DIR, LineRecogniserEngine

            try:
                self._grey = LineRecogniserEngine(GREY_MODEL_DIR)
            except (MissingDependencyError, FileNotFoundError):
                self.grey = False  # not installed: the cleaned-crop readings stand, no note
                return None
        return self._grey

    def _second_opinion(self, crops: list[TextCrop | None], readings: list[Reading]) -> list[Reading]:
        """Which nodes rapidocr reads again, and whose reading is kept: `choice.second_opinion`."""
        return second_opinion(crops, readings, self._rapidocr_or_none, crop_below=self.handwriting_below)

    def _rapidocr_or_none(self) -> RapidOCREngine | None:
        """The handwriting engine, loaded on first need; None without ``flowpath[ocr]``."""
        if self._handwriting is None:
            from flowpath.errors import MissingDependencyError

            try:
                self._handwriting = self._rapidocr()
            except MissingDependencyError:
                self.engine = "tesseract"  # do not try again for every chart
                logger.info("flowpath[ocr] is not installed: tesseract alone reads the text")
                return None
        return self._handwriting

    @staticmethod
    def _rapidocr() -> RapidOCREngine:
        return RapidOCREngine()

    def _texts(self, readings: list[Reading]) -> list[str]:
        seen = [w[3] for r in readings for w in r.words]
        return [tx.join_lines(tx.complete_line_ends(r.words, seen, self.lang)) if r.words else ""
                for r in readings]

    # -- step 1 --------------------------------------------------------------------------------
    def _foreground(self, img: np.ndarray, chart: LabelledChart) -> _Page:
        """Background distance map, node masks and the contact rings around the nodes."""
        letters = list(chart.regions)
        regions = [chart.regions[k] for k in letters]
        H, W = img.shape[:2]
        bg_dist = cx.background_distance(img, cx.background_color(img))
        sides = [min(r.width, r.height) for r in regions if r.width > 0 and r.height > 0]
        unit = float(np.median(sides)) if sides else 40.0
        margin = self.node_margin if self.node_margin is not None else int(np.clip(round(unit * 0.05), 2, 10))
        # owner maps (1 + region index): node mask grown by `margin`, contact ring grown further;
        # the largest regions are drawn first so that nested small ones keep their pixels
        ring = margin + max(3, margin // 2 + 2)
        return _Page(img, letters, regions, bg_dist, unit, margin, _owner_map(regions, margin, (H, W)) > 0,
                     _owner_map(regions, ring, (H, W)))

    # -- step 2 --------------------------------------------------------------------------------
    def _nodes(self, page: _Page) -> _Nodes:
        """Node interiors cleaned for OCR and read in a background thread; node shapes."""
        H, W = page.bg_dist.shape
        fg = page.bg_dist > 22
        shrink = max(page.margin + 1, 4)
        interiors: list[tuple[int, int, int, int, np.ndarray] | None] = []
        glyph_ink = []
        glyph_strong = []  # the glyphs where a gradient or a blur ran them together in glyph_ink
        glyph_edges = []  # (depth, ink, interior): how sharp the glyphs' edges are (`edge_energy`)
        shapes: dict[int, str] = {}
        for i, r in enumerate(page.regions):
            x0, y0 = max(int(np.floor(r.bbox[0])), 0), max(int(np.floor(r.bbox[1])), 0)
            x1, y1 = min(int(np.ceil(r.bbox[2])) + 1, W), min(int(np.ceil(r.bbox[3])) + 1, H)
            if x1 - x0 < 4 or y1 - y0 < 4:
                interiors.append(None)
                continue
            shapes[i] = classify_shape(fg[y0:y1, x0:x1])
            inner = _interior(r, fg[y0:y1, x0:x1], (x0, y0), shrink, shapes[i])
            if inner.sum() > 16:
                rgb = page.img[y0:y1, x0:x1]
                fill = fill_color(rgb, inner)
                dist = color_distance(rgb, fill)
                ink = dist > 60
                if shapes[i] == "rect":
                    inner = _regain_clipped_lines(inner, ink, shrink)
                glyph_ink.append(ink & inner)
                depth = glyph_depth(rgb, fill, dist, glyph_ink[-1])
                glyph_strong.append(strong_ink(rgb, fill, dist, glyph_ink[-1], inner, depth))
                glyph_edges.append((depth, glyph_ink[-1], inner))
            interiors.append((x0, y0, x1, y1, inner))
        # the glyphs' strong ink where a gradient or a blur ran them together (`chart_line_height`):
        # the node text and the connector steps both scale by this one height
        line_h = chart_line_height(glyph_ink, glyph_strong) or max(page.unit * 0.3, 12.0)
        # blurred small print measures shorter than it is drawn: its window opens lower
        share = strong_ink_share(glyph_ink, glyph_strong)
        small_from = small_print_from(share)
        # small print is read from its grey crops too, by default where it is blurred
        # (`grey_print.grey_margin`); the edges are measured on small print only (a Sobel and a
        # Laplacian per node)
        sharpness = (stroke_sharpness([edge_energy(*e) for e in glyph_edges]) if line_h < GREY_BELOW
                     else None)

        crop_cpu: list[float] = []
        grey_reader: list[str] = []  # which recogniser read the grey crops (meta["grey_reader"])

        def crop_and_read() -> list[Reading]:
            t = time.thread_time()
            crops = [None if it is None else to_text_crop(page.img[it[1]:it[3], it[0]:it[2]], it[4],
                                                          line_height=line_h)
                     for it in interiors]
            crop_cpu.append(time.thread_time() - t)
            readings = self.read(crops, line_h, small_from)
            if self.grey and self.learned and self.engine == "auto" and in_grey_window(line_h):
                # small print: the same node boxes, uncleaned, for the grey recogniser
                t = time.thread_time()
                grey = [None if it is None or c is None else
                        to_grey_crop(page.img[it[1]:it[3], it[0]:it[2]], it[4], line_height=line_h)
                        for it, c in zip(interiors, crops, strict=True)]
                crop_cpu.append(time.thread_time() - t)
                specialist = self._specialist_reads(sharpness)
                grey_reader.append("blurrec" if specialist else "greyrec")
                readings = self.grey_read(grey, readings, grey_margin(sharpness), specialist)
            return readings

        # node crops are cleaned and read while the edge labels and connectors are traced:
        # OpenCV, numpy's large-array loops and tesseract release the GIL, so both cores work
        # (measured on febench_dev: cleaning the crops is ~0.4 of the main thread's CPU time)
        pool = ThreadPoolExecutor(1)
        reading = pool.submit(crop_and_read)
        pool.shutdown(wait=False)
        return _Nodes(shapes, line_h, reading, crop_cpu, sharpness, grey_reader)

    # -- step 3 --------------------------------------------------------------------------------
    def _edge_labels(self, page: _Page, line_h: float) -> tuple[list[cx.Box], np.ndarray, bool]:
        """Edge-label boxes, the connector mask (non-node ink without specks, subgraph fills
        and frames), and whether the nodes cast drop shadows (`connectors.shadow_bands`)."""
        conn_u8 = (page.bg_dist > 22).astype(np.uint8) & (~page.node_mask).astype(np.uint8)
        # remove specks (anti-aliasing dust)
        _, lab0, st0, _ = cv2.connectedComponentsWithStats(conn_u8, connectivity=8)
        small = st0[:, cv2.CC_STAT_AREA] < 6
        small[0] = False
        conn_u8[small[lab0]] = 0
        conn = conn_u8.astype(bool)
        faint = (page.bg_dist > 4) & ~page.node_mask
        boxes, flats = cx.find_label_boxes(faint, (page.bg_dist > 90) & conn, page.contact_owner > 0,
                                           line_h, page.img)
        if flats is not None:
            # subgraph fills and other large flat areas are background for connector tracing
            conn &= ~flats
        shadows = cx.shadow_bands(conn, page.bg_dist, page.node_mask, line_h)
        if shadows is not None:
            conn &= ~shadows
        # opt-in (``loop_backs``): a loop back drawn as three sides of a rectangle is kept as a
        # connector, except where the nodes cast drop shadows: there (the web look's blurred,
        # JPEG-softened lines) the tangle it joins could seldom be traced line by line, and its
        # ends paired wrong (segmented wild flowchart.js tuning charts, docs/transcription.md)
        frames = cx.find_frames(conn, line_h, page.node_mask, keep_loops=self.loop_backs and shadows is None)
        if frames is not None:
            conn &= ~frames
            # a subgraph title sits just under its frame's top edge: not an edge label
            boxes = [b for b in boxes if not cx.under_frame(b, frames, line_h)]
        return boxes, conn, shadows is not None

    # -- step 4 --------------------------------------------------------------------------------
    def _connectors(self, page: _Page, conn: np.ndarray, boxes: list[cx.Box],
                    line_h: float, shadowed: bool = False,
                    diamonds: frozenset[int] = frozenset()) -> dict[int, cx.Component]:
        """Connector pieces with their contacts (arrowheads marked) and label boxes;
        ``shadowed``: the nodes cast drop shadows (contacts spread along an outline are then
        no heads, `connectors.runs_along`); ``diamonds``: the region indices of the nodes shaped
        as diamonds (a branch label beside the line at one's vertex is no head there,
        `connectors.discount_beside_label`)."""
        H, W = conn.shape
        conn_u8 = conn.astype(np.uint8)
        joined = conn_u8.copy()
        # a label drawn on an opaque box interrupts its line a few px before the glyphs:
        # fill the box grown by that padding so both halves of the line join through it
        gpad = max(2, int(round(0.35 * line_h)))
        for (bx0, by0, bx1, by1) in boxes:
            joined[max(by0 - gpad, 0):by1 + gpad, max(bx0 - gpad, 0):bx1 + gpad] = 1
        free = (~page.node_mask).astype(np.uint8)
        joined &= free
        # bridge the gaps of dotted and dashed connectors (a few px) before labelling pieces
        gap = max(3, int(round(line_h * 0.15)) | 1)
        closed = np.asarray(cv2.morphologyEx(joined, cv2.MORPH_CLOSE, np.ones((gap, gap), np.uint8)), np.uint8)
        joined = (closed & free) | joined
        _, comp, cstats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
        # stroke thickness and ink are measured on the connectors' dark core only: a drop
        # shadow or a gradient's fringe beside a node is pale ink that would make the
        # connector look thick (an arrowhead) where it leaves its source
        core = cx.dark_core(conn, page.bg_dist)
        dist = cv2.distanceTransform(core.astype(np.uint8), cv2.DIST_L2, 3)
        for (bx0, by0, bx1, by1) in boxes:
            dist[by0:by1, bx0:bx1] = 0  # glyphs in a label box are no arrowheads
        mass = np.where(core, page.bg_dist, 0)
        components = cx.find_contacts(comp, cstats, page.contact_owner, dist, line_h, self.arrow_ratio, mass,
                                       shadowed=shadowed)
        comp, components = self._rejoin(page, comp, components, free, dist, mass, line_h, shadowed)
        comp, components = cx.reach_short_ends(comp, components, page.contact_owner, dist, line_h,
                                               2.0 * line_h, self.arrow_ratio)
        cx.mark_unseen_shapes(comp, components, free, page.regions, boxes, gpad, line_h, ink=conn)
        for bi, (bx0, by0, bx1, by1) in enumerate(boxes):
            # the connector piece covering most of the box (its centre pixel can be a hole
            # where the box touches a node's margin)
            ks = comp[by0:by1, bx0:bx1]
            ks = ks[ks > 0]
            k = int(np.bincount(ks).argmax()) if ks.size else 0
            if k not in components:
                # a label set beside its connector ("No" right of a vertical line): the
                # nearest connector piece within two text lines
                k = cx.nearest_piece(comp, components, (bx0, by0, bx1, by1), 2.0 * line_h)
            if k in components:
                components[k].label_boxes.append(bi)
        for c in components.values() if self.beside_labels else ():
            cx.discount_beside_label(c, comp, page.contact_owner, boxes, gpad, mass, page.regions, diamonds, line_h)
        # a tangle of crossing lines and loops joined into the line above their target: one
        # connector per line where every line can be followed from node to node
        return cx.split_traced_pieces(components, comp, conn, page.margin, page.regions, boxes, line_h,
                                      (dist, mass, self.arrow_ratio))

    def _rejoin(self, page: _Page, comp: np.ndarray, components: dict[int, cx.Component], free: np.ndarray,
                dist: np.ndarray, mass: np.ndarray, line_h: float,
                shadowed: bool = False) -> tuple[np.ndarray, dict[int, cx.Component]]:
        """Join the pieces that do not link two nodes across wider gaps: a dashed connector with
        long dashes (hand-drawn), a sketched line with a break, an arrow that stops short of
        its node. Pieces that already link two nodes are left alone, so that a wide closing
        cannot merge them with their neighbours."""
        linked = {k for k, c in components.items() if len(c.ends) >= 2}
        n = int(comp.max())
        # loose = a piece that is not linked, as one table lookup per pixel
        is_loose = np.ones(n + 1, bool)
        is_loose[0] = False
        is_loose[list(linked)] = False
        if n == 0 or not is_loose[comp].any():
            return comp, components  # nothing loose: skip the owner map (a full-page pass)
        # the contact ring reaches a little further for these pieces: a sketched arrow often
        # ends a few px short of the box it points at
        ring = page.margin + max(3, page.margin // 2 + 2) + int(round(0.5 * line_h))
        owner = _owner_map(page.regions, ring, comp.shape)
        # a sketched node's own outline left outside its segmented box is no connector: the
        # closings below would join two neighbours' outlines into an edge between them
        remnant = cx.outline_remnants(comp, is_loose, owner, line_h)
        is_loose &= ~remnant
        loose = is_loose[comp]
        rows, cols = np.flatnonzero(loose.any(axis=1)), np.flatnonzero(loose.any(axis=0))
        if n == 0 or not len(rows):
            return comp, components
        # any direction across a short gap; along a row or a column across a long one (the
        # dashes of a sketched vertical or horizontal connector, a gap of ~2 text lines)
        gap = max(5, int(round(0.8 * line_h)) | 1)
        long, wide = max(7, int(round(2.2 * line_h)) | 1), max(3, int(round(0.25 * line_h)) | 1)
        # closings, labelling and the new labels only inside the loose pieces' box (plus a
        # kernel): most of a chart is nodes and linked connectors
        H, W = loose.shape
        sl = (slice(max(int(rows[0]) - long, 0), min(int(rows[-1]) + long + 1, H)),
              slice(max(int(cols[0]) - long, 0), min(int(cols[-1]) + long + 1, W)))
        u8 = loose[sl].astype(np.uint8)
        bridged = u8.copy()
        for kernel in (cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (gap, gap)),
                       np.ones((long, wide), np.uint8), np.ones((wide, long), np.uint8)):
            bridged |= np.asarray(cv2.morphologyEx(u8, cv2.MORPH_CLOSE, kernel), np.uint8) & free[sl]
        # every loose pixel lies in the box, so its pieces are labelled in the same raster
        # order as over the whole image; their boxes are moved back to image coordinates
        _, new, new_stats, _ = cv2.connectedComponentsWithStats(bridged, connectivity=8)
        new_stats[:, cv2.CC_STAT_LEFT] += sl[1].start
        new_stats[:, cv2.CC_STAT_TOP] += sl[0].start
        # loose pieces (and the bridges between them) get labels after the existing ones
        only_new = np.zeros_like(comp)
        only_new[sl] = np.where(bridged > 0, new + n, 0)
        joined = comp.copy()
        np.copyto(joined[sl], only_new[sl], where=bridged > 0)
        stats = np.concatenate([np.zeros((n + 1, new_stats.shape[1]), new_stats.dtype), new_stats[1:]])
        if remnant.any():
            joined[remnant[comp] & (joined == comp)] = 0
        found = cx.find_contacts(only_new, stats, owner, dist, line_h, self.arrow_ratio, mass,
                                 shadowed=shadowed)
        out = {k: c for k, c in components.items() if k in linked}
        out.update(found)
        return joined, out

    # -- step 5 --------------------------------------------------------------------------------
    def _graph(self, page: _Page, nodes: _Nodes, boxes: list[cx.Box],
               components: dict[int, cx.Component]) -> Transcription:
        """Read the edge labels, collect the node text and build the graph."""
        labels = self._read_labels(page, boxes, components, nodes.line_h)
        node_readings = nodes.reading.result()
        node_texts = self._texts(node_readings)
        spell = None
        if nodes.line_h < SMALL_LINE:  # small print loses thin strokes: "deadine" (issue 14)
            # mended against the chart's own words first: what any engine read in any node;
            # capitals read by the handwriting engine are handwriting, not acronyms
            chart = tx.chart_words([*node_texts, *(a for r in node_readings for a in r.alternates)])
            spell = [partial(tx.correct_spelling, lang=self.lang, chart=chart, keep_acronyms=r.engine != "rapidocr")
                     for r in node_readings]
        # spelling, and on a program chart code mending (identifiers kept from spelling)
        node_texts = mend_node_texts(node_texts, spell)
        # where several readers read a node (small print), their agreement on a word overrides
        # the kept reading's word (`text.vote_words`)
        node_texts = [tx.vote_words(t, [tx.clean_text(a) for a in r.alternates])
                      if self.vote and len(r.alternates) >= tx.VOTE_AGREE else t
                      for t, r in zip(node_texts, node_readings, strict=True)]
        problems: list[str] = []
        fc = FlowChart("TD")
        for i, letter in enumerate(page.letters):
            if not node_texts[i]:
                problems.append(f"node {letter}: no readable text")
            fc.add_node(Node(letter, node_texts[i], nodes.shapes.get(i, "rect")))
        seen: set[tuple[str, str, str | None]] = set()
        kinds = [infer_kind(nodes.shapes.get(i, "rect"), t) for i, t in enumerate(node_texts)]
        decisions = frozenset(i for i, k in enumerate(kinds) if k == "decision")
        components = {k: _without_blank_labels(c, labels) for k, c in components.items()}
        flow = cx.chart_flow(cx.without_unconfirmed_vertex_heads(cx.untraced(components), decisions), page.regions,
                             ([i for i, k in enumerate(kinds) if k == "start"],
                              [i for i, k in enumerate(kinds) if k == "end"]))
        heads_seen = cx.heads_confirmed(components, decisions) or cx.ink_heads_confirmed(
            components, page.regions, flow)
        found: set[tuple[int, int]] = set()
        # a line joined sideways into another goes where that one goes: those come last
        for k in sorted(components, key=lambda k: (components[k].joins is not None, k)):
            if components[k].through_shape:
                problems.append("a connector between " + ", ".join(sorted(
                    {page.letters[ct.region] for ct in components[k].ends}))
                    + " runs through a shape that is not a node; its edges are left out")
                continue
            notes: list[str] = []
            if components[k].joins is not None:
                edges = [cx.joined_edge(components[k], found, page.regions, flow, decisions)]
            else:
                edges, notes = cx.component_edges(components[k], page.regions, page.letters, flow, decisions,
                                                  heads_seen)
            if notes and len(edges) == 1:  # the direction was the flow's guess
                edges = [cx.level_branch(edges[0], page.regions, decisions, flow)]
            found.update(edges)
            problems.extend(notes)
            edges = [(a, b) for a, b in dict.fromkeys(edges) if a != b]
            assigned = cx.assign_labels(components[k], boxes, page.regions, edges)
            for j, (s, t) in enumerate(edges):
                for label in _edge_labels([labels[b] for b in assigned.get(j, [])]):
                    # the same edge found twice (two pieces of one connector) is one edge;
                    # the same pair with another label is a parallel edge (Yes and No)
                    key = (page.letters[s], page.letters[t], label)
                    if key in seen:
                        continue
                    seen.add(key)
                    fc.add_edge(Edge(page.letters[s], page.letters[t], label=label))
        for letter in page.letters:
            if fc.in_degree(letter) == 0 and fc.out_degree(letter) == 0 and len(page.letters) > 1:
                problems.append(f"node {letter}: no connector found")
        fc.warnings = list(problems)
        meta: dict[str, Any] = {"line_height": round(nodes.line_h, 1), "label_boxes": len(boxes),
                                "stroke_sharpness": None if nodes.sharpness is None else round(nodes.sharpness, 3),
                                "grey_reader": nodes.grey_reader[0] if nodes.grey_reader else None,
                                "connectors": len(components),
                                "node_engines": {k: r.engine for k, r in zip(page.letters, node_readings, strict=True)},
                                "labels": [{"box": list(b), "text": t} for b, t in zip(boxes, labels, strict=True)]}
        return Transcription(mermaid=_mermaid(fc), chart=fc, problems=problems, meta=meta)

    def _read_labels(self, page: _Page, boxes: list[cx.Box], components: dict[int, cx.Component],
                     line_h: float) -> list[str]:
        """Text of every label box (one more mosaic; empty ones of a connector re-read as a word)."""
        # the box itself, no margin: just outside it the connector is at full strength, inside
        # it is seen through the translucent box and `to_label_crop` drops it. Labels are short
        # words: read them larger than node text (tesseract misreads two-letter words at
        # node-text size far more often)
        crops = [to_label_crop(page.img[y0:y1, x0:x1], line_height=line_h / 1.4) for (x0, y0, x1, y1) in boxes]
        readings = self.tesseract.read(crops)
        on_edge = {b for c in components.values() for b in c.label_boxes}
        for b, crop in enumerate(crops):
            if crop is not None and not readings[b].words and b in on_edge:
                readings[b] = self.tesseract.read_word(crop)
        unread = [b for b, crop in enumerate(crops) if crop is not None and not readings[b].words and b in on_edge]
        if unread and self.engine == "auto" and self._rapidocr_or_none() is not None:
            # a label on a connector that tesseract reads as nothing in either layout mode (a
            # 5-px "No"): the second engine's recogniser reads it, kept when it is confident
            assert self._handwriting is not None
            for b, r in zip(unread, self._handwriting.recognise([crops[b] for b in unread]), strict=True):
                if r.confidence >= _SECOND_LABEL_CONF:
                    readings[b] = r
        return self._texts(readings)


def _owner_map(regions: list[Region], grow: int, shape: tuple[int, int]) -> np.ndarray:
    """int32 map of 1 + region index over each region's polygon grown by ``grow`` px; the
    largest regions are drawn first so that nested small ones keep their pixels."""
    owner = np.zeros(shape, np.int32)
    for i in sorted(range(len(regions)), key=lambda i: -regions[i].area):
        pts = cx.region_polygon(regions[i])
        if len(pts) < 3:
            continue
        cv2.fillPoly(owner, [pts], i + 1)
        cv2.polylines(owner, [pts], True, i + 1, thickness=2 * grow + 1)
    return owner


def _interior(region: Region, fg: np.ndarray, origin: tuple[int, int], shrink: int, shape: str) -> np.ndarray:
    """Bool mask (the region's box) of where a node's text may be: the polygon shrunk past the
    border, and for round nodes also inside the drawn outline row by row (a region polygon may
    be only the box of a round node, whose border then curves through the polygon's interior)."""
    m = np.zeros(fg.shape, np.uint8)
    cv2.fillPoly(m, [cx.region_polygon(region, *origin)], 1)
    inner = cv2.erode(m, np.ones((2 * shrink + 1, 2 * shrink + 1), np.uint8),
                      borderType=cv2.BORDER_CONSTANT, borderValue=0).astype(bool)
    if shape not in ("stadium", "circle"):
        # for a box inside a rectangle's border the first ink of a row is the text itself, and
        # bounding by it would cut letters
        return inner
    f = fg & (m > 0)
    has = f.any(axis=1)
    left = np.where(has, f.argmax(axis=1), -shrink)
    right = np.where(has, f.shape[1] - 1 - f[:, ::-1].argmax(axis=1), f.shape[1] - 1 + shrink)
    cols = np.arange(f.shape[1])[None, :]
    return inner & (cols >= left[:, None] + shrink) & (cols <= right[:, None] - shrink)


def _regain_clipped_lines(inner: np.ndarray, ink: np.ndarray, shrink: int) -> np.ndarray:
    """The interior of a box grown back up (down) to just inside its drawn outline where the
    shrink cut through a text line: a box that hugs its text (Graphviz at ~10 px) keeps its
    first line only 2-3 px under the border, less than the shrink, which then cuts the tops of
    the letters (``Place`` read ``lace``). Only a side whose edge row has ink running on across
    it, and whose outline is found within ``shrink + 2`` rows, moves; other crops are unchanged.

    Args:
        inner: ``(h, w)`` bool interior mask of a rectangular node (the shrunk polygon).
        ink: ``(h, w)`` bool, pixels far from the node's fill colour (border and glyphs).
        shrink: px the polygon was shrunk by.

    Returns:
        The (possibly) grown interior mask; ``inner`` itself where nothing is cut.
    """
    rows = np.flatnonzero(inner.any(axis=1))
    if rows.size < 2:
        return inner
    out = inner
    for edge, step in ((int(rows[0]), -1), (int(rows[-1]), 1)):
        span = inner[edge]
        width = int(span.sum())
        outside = edge + step
        if not 0 <= outside < inner.shape[0] or width < 4:
            continue
        # a glyph runs across the edge: ink on both sides of it in the same columns, and the
        # row outside is not the border itself (which covers most of the span)
        crossing = int((ink[outside] & ink[edge] & span).sum())
        if crossing < 2 or (ink[outside] & span).sum() >= 0.5 * width:
            continue
        border = None
        for k in range(1, shrink + 3):
            y = edge + step * k
            if not 0 <= y < inner.shape[0]:
                break
            if (ink[y] & span).sum() >= 0.5 * width:
                border = y
                break
        if border is None:
            continue
        # one row of anti-aliasing next to the outline stays outside
        first = border - 2 * step
        if (first - edge) * step <= 0:
            continue
        lo, hi = sorted((edge + step, first))
        if out is inner:
            out = inner.copy()
        out[lo:hi + 1] |= span
    return out


def _without_blank_labels(c: cx.Component, texts: list[str]) -> cx.Component:
    """``c`` without the label boxes whose reading holds no letter or digit (``texts``: the
    reading of every box): no condition is written there, so the direction rules that trust a
    label (`connectors.decision_source`, the loop-back rules of charts with Start and End)
    must not count it.

    On wild flowchart.js (small JPEG renders on off-white paper) the faint halo round a short
    connector run between two nodes survives the label-box opening (a 9x40-px "box" on the
    line into a decision), and scan specks beside a line make glyph clusters: on the tuning
    set fjsedge10_fjs 16 ways into a decision came back leaving it (`decision_source`).
    Measured with the text held fixed (eval/flow_ab.py, gold regions, beside the other rules of
    5e3b394): wild flowchart.js (fjsedge10_fjs, fjsedge9_fjs, fjsedge9_printedge6_fjs; 67
    charts) edge F1 0.766 without it, 0.790 with it; default flowchart.js unchanged; new wild
    Mermaid tuning set fjsedge10_mmd (full pipeline) 0.916 -> 0.930; guards (wild
    Mermaid/Graphviz/PlantUML, hand-drawn) equal or better.
    """
    kept = [b for b in c.label_boxes if tx.clean_label(texts[b])]
    return c if kept == c.label_boxes else replace(c, label_boxes=kept)


def _edge_labels(texts: list[str]) -> list[str | None]:
    """The label(s) of one edge from the texts of its label boxes: one label normally (a branch
    word among specks wins); one per box when several boxes each hold a different branch word,
    i.e. a ``Yes`` and a ``No`` connector drawn over each other between the same two nodes."""
    # one label read twice (two boxes found on one word, or the same word on two pieces of a
    # connector) is one label, not "No No"
    cleaned = list(dict.fromkeys(tx.clean_label(t) for t in texts if t))
    words = list(dict.fromkeys(w for w in (tx.branch_word(t) for t in cleaned) if w))
    if len(words) > 1 and len(words) == len([t for t in cleaned if t]):
        return list(words)
    return [tx.clean_label(" ".join(cleaned)) or None]


def _mermaid(fc: FlowChart) -> str:
    from flowpath.mermaid import to_mermaid

    return to_mermaid(fc)
