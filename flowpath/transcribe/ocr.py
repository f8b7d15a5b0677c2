"""Text reading for the offline transcriber: Debian tesseract over a *mosaic* of text crops.

Why tesseract and a mosaic (measured on febench_dev node crops, see docs/transcription.md):
rapidocr 3.x reads plain node crops a little better but costs ~2 s per crop on this 2-core
machine, tesseract ~0.3 s per crop, most of which is process start-up and model loading. So all
crops of one chart (node interiors and edge-label boxes) are cleaned, binarised, stacked into
one tall image and read by a single ``tesseract`` call; words are mapped back to their crop by
their vertical position. That is one process per chart instead of one per node.

Everything here needs only numpy, OpenCV and pytesseract (core dependencies).
"""

from __future__ import annotations

import atexit
import os
import re
import threading
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

#: white gap between stacked crops; large enough that tesseract never merges two crops' lines
_GAP = 28
#: target height of a text line (px) when crops are rescaled for tesseract
_TARGET_LINE = 30.0
#: edge labels: ink is at least this far from the box colour towards the text colour (the
#: connector seen through a translucent label box measured ~0.6)
_LABEL_STRONG = 0.72
#: label text lines shorter than this (px, as passed to `to_label_crop`) count as small print
_LABEL_SMALL = 10.0
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
                 max_width: int = 1400, hard: bool = False) -> TextCrop | None:
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

    Returns:
        The cleaned crop, or None when there is no ink (empty node).
    """
    if rgb.size == 0 or rgb.shape[0] < 4 or rgb.shape[1] < 4:
        return None
    px = rgb.astype(np.float32)
    inside = np.ones(rgb.shape[:2], bool) if mask is None else mask
    if inside.sum() < 16:
        return None
    fill = np.median(px[inside], axis=0)
    # ink = pixels far from the fill colour in RGB (gray contrast alone misses dark text on red)
    dist = np.sqrt(((px - fill) ** 2).sum(axis=2))
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
    ink_color = np.median(px[core], axis=0)
    axis = ink_color - fill
    denom = float((axis ** 2).sum())
    if denom < 1:
        return None
    norm = np.clip(((px - fill) @ axis) / denom, 0, 1)  # 0 paper, 1 ink
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


def estimate_line_height(ink: np.ndarray) -> float | None:
    """Median glyph height of an ink mask (bool), a stand-in for the text line height."""
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    if n <= 1:
        return None
    h = stats[1:, cv2.CC_STAT_HEIGHT]
    w = stats[1:, cv2.CC_STAT_WIDTH]
    keep = (h >= 5) & (w < 3 * h) & (h < 200)
    if keep.sum() < 3:
        return None
    # capitals/ascenders are ~0.7 of the line box; the median glyph is a lower-case letter (~0.5)
    return float(np.percentile(h[keep], 75)) / 0.72


class TesseractAPI:
    """Tesseract in this process through its C API (``libtesseract.so.5``, installed with the
    Debian ``tesseract-ocr`` package), loaded with ctypes.

    Why: the ``tesseract`` command line loads its model on every call, ~0.2 s idle and 0.5 s
    on a busy machine, which was a third of a chart's transcription time; a loaded engine
    reads a label mosaic in ~0.06 s. ctypes releases the GIL during the call, so two engines
    in two threads use two cores. One engine serves one thread at a time (`acquire`/`release`
    keep a pool of idle engines per language).

    Raises:
        OSError: the library cannot be loaded or the language data cannot be initialised
            (callers then fall back to the command line through pytesseract).
    """

    _lib: Any = None
    _pool: dict[str, list[TesseractAPI]] = {}
    _lock = threading.Lock()

    def __init__(self, lang: str = "eng") -> None:
        lib = self._load()
        self._handle = lib.TessBaseAPICreate()
        if not self._handle or lib.TessBaseAPIInit3(self._handle, None, lang.encode()) != 0:
            if self._handle:
                lib.TessBaseAPIDelete(self._handle)
            self._handle = None
            raise OSError(f"tesseract could not load language {lang!r}")
        self.lang = lang

    @classmethod
    def _load(cls) -> Any:
        import ctypes
        import ctypes.util

        if cls._lib is None:
            # tesseract's OpenMP threads only slow it down here (tesseract docs: set
            # OMP_THREAD_LIMIT=1 for parallel runs); we run one engine per core instead
            os.environ.setdefault("OMP_THREAD_LIMIT", "1")
            name = ctypes.util.find_library("tesseract") or "libtesseract.so.5"
            lib = ctypes.CDLL(name)
            vp, cp = ctypes.c_void_p, ctypes.c_char_p
            lib.TessBaseAPICreate.restype = vp
            lib.TessBaseAPIInit3.argtypes = [vp, cp, cp]
            lib.TessBaseAPISetPageSegMode.argtypes = [vp, ctypes.c_int]
            lib.TessBaseAPISetImage.argtypes = [vp, vp, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
            lib.TessBaseAPIRecognize.argtypes = [vp, vp]
            lib.TessBaseAPIGetTsvText.argtypes = [vp, ctypes.c_int]
            lib.TessBaseAPIGetTsvText.restype = ctypes.POINTER(ctypes.c_char)
            lib.TessBaseAPIGetUTF8Text.argtypes = [vp]
            lib.TessBaseAPIGetUTF8Text.restype = ctypes.POINTER(ctypes.c_char)
            lib.TessDeleteText.argtypes = [ctypes.POINTER(ctypes.c_char)]
            lib.TessBaseAPIClear.argtypes = [vp]
            lib.TessBaseAPIEnd.argtypes = [vp]
            lib.TessBaseAPIDelete.argtypes = [vp]
            cls._lib = lib
        return cls._lib

    def _run(self, image: np.ndarray, psm: int, tsv: bool) -> str:
        import ctypes

        lib = self._lib
        img = np.ascontiguousarray(image, dtype=np.uint8)
        lib.TessBaseAPISetPageSegMode(self._handle, psm)
        lib.TessBaseAPISetImage(self._handle, img.ctypes.data, img.shape[1], img.shape[0], 1, img.strides[0])
        if lib.TessBaseAPIRecognize(self._handle, None) != 0:
            lib.TessBaseAPIClear(self._handle)
            return ""
        ptr = lib.TessBaseAPIGetTsvText(self._handle, 0) if tsv else lib.TessBaseAPIGetUTF8Text(self._handle)
        text = ctypes.cast(ptr, ctypes.c_char_p).value if ptr else None
        if ptr:
            lib.TessDeleteText(ptr)
        lib.TessBaseAPIClear(self._handle)
        return (text or b"").decode("utf-8", errors="replace")

    def data(self, image: np.ndarray, psm: int = 6) -> dict[str, list[Any]]:
        """Words of a grey image with boxes and confidences (pytesseract's ``image_to_data``
        dictionary: ``text``, ``conf``, ``left``, ``top``, ``width``, ``height``)."""
        out: dict[str, list[Any]] = {k: [] for k in ("text", "conf", "left", "top", "width", "height")}
        for line in self._run(image, psm, tsv=True).splitlines():
            f = line.split("\t")
            if len(f) < 12 or f[0] != "5":  # level 5 = word
                continue
            out["left"].append(int(f[6]))
            out["top"].append(int(f[7]))
            out["width"].append(int(f[8]))
            out["height"].append(int(f[9]))
            out["conf"].append(float(f[10]))
            out["text"].append(f[11])
        return out

    def text(self, image: np.ndarray, psm: int = 8) -> str:
        """Plain text of a grey image."""
        return self._run(image, psm, tsv=False)

    def close(self) -> None:
        if self._handle is not None and self._lib is not None:
            self._lib.TessBaseAPIEnd(self._handle)
            self._lib.TessBaseAPIDelete(self._handle)
            self._handle = None

    @classmethod
    def acquire(cls, lang: str) -> TesseractAPI | None:
        """An idle engine for ``lang`` (created on first use), or None when the library is
        unusable here (then the command line is used)."""
        with cls._lock:
            idle = cls._pool.setdefault(lang, [])
            if idle:
                return idle.pop()
            if cls._lib is False:
                return None
        try:
            return cls(lang)
        except (OSError, AttributeError):
            with cls._lock:
                cls._lib = False if cls._lib is None else cls._lib
            return None

    @classmethod
    def release(cls, engine: TesseractAPI) -> None:
        with cls._lock:
            cls._pool.setdefault(engine.lang, []).append(engine)

    @classmethod
    def close_all(cls) -> None:
        with cls._lock:
            for engines in cls._pool.values():
                for e in engines:
                    e.close()
            cls._pool.clear()


atexit.register(TesseractAPI.close_all)  # tesseract warns about leaked models otherwise


def _tesseract_data(image: np.ndarray, lang: str, timeout: float, psm: int) -> dict[str, list[Any]]:
    """Word boxes of an image: the in-process engine, else the command line."""
    eng = TesseractAPI.acquire(lang)
    if eng is not None:
        try:
            return eng.data(image, psm)
        finally:
            TesseractAPI.release(eng)
    import pytesseract

    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    try:
        return dict(pytesseract.image_to_data(image, lang=lang, config=f"--psm {psm}",
                                              output_type=pytesseract.Output.DICT, timeout=timeout))
    except RuntimeError:  # pytesseract raises RuntimeError on timeout
        return {"text": []}


def read_crops(crops: list[TextCrop | None], *, lang: str = "eng", timeout: float = 60.0,
               workers: int = 1) -> list[str]:
    """OCR many crops with one tesseract call per worker.

    Args:
        crops: cleaned crops; None entries read as "".
        lang: tesseract language.
        timeout: seconds before a tesseract call is killed (its crops then read as "").
        workers: split the crops into this many mosaics read by parallel tesseract processes
            (each is single-threaded, so this is how a chart uses two cores).

    Returns:
        One string per crop; lines joined with a space (Mermaid wraps labels at spaces).
    """
    items = [(i, c) for i, c in enumerate(crops) if c is not None]
    texts = [""] * len(crops)
    if not items:
        return texts
    workers = max(1, min(int(workers), len(items)))
    if workers == 1:
        chunks = [items]
    else:
        # contiguous chunks of about equal total height (tesseract time ~ pixel count)
        total = sum(c.image.size for _, c in items)
        chunks, cur, acc = [], [], 0
        for it in items:
            cur.append(it)
            acc += it[1].image.size
            if acc >= total * (len(chunks) + 1) / workers and len(chunks) < workers - 1:
                chunks.append(cur)
                cur = []
        if cur:
            chunks.append(cur)
    if len(chunks) == 1:
        results = [_read_mosaic(chunks[0], lang, timeout)]
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(len(chunks)) as pool:
            results = list(pool.map(lambda ch: _read_mosaic(ch, lang, timeout), chunks))
    for res in results:
        for idx, text in res.items():
            texts[idx] = text
    return texts


def read_word(crop: TextCrop | None, *, lang: str = "eng", timeout: float = 20.0) -> str:
    """Second reading of one short crop as a single word (``--psm 8``); for edge labels the
    mosaic pass left empty (a connector drawn through a two-letter word confuses the block
    layout analysis more than the word recogniser)."""
    if crop is None:
        return ""
    data = _tesseract_data(crop.image, lang, timeout, psm=8)
    words = [w for w, c in zip(data["text"], data.get("conf", []), strict=False)
             if (w or "").strip() and float(c) >= crop.min_conf]
    return clean_text(" ".join(words))


def _read_mosaic(items: list[tuple[int, TextCrop]], lang: str, timeout: float) -> dict[int, str]:
    width = max(c.image.shape[1] for _, c in items)
    spans: list[tuple[int, int, int]] = []
    rows = []
    y = 0
    for i, c in items:
        h, w = c.image.shape
        row = np.full((h + _GAP, width), 255, np.uint8)
        row[:h, :w] = c.image
        rows.append(row)
        spans.append((i, y, y + h))
        y += h + _GAP
    mosaic = np.vstack(rows)
    data = _tesseract_data(mosaic, lang, timeout, psm=6)
    per: dict[int, list[tuple[int, int, int, str]]] = {}
    starts = np.array([s[1] for s in spans])
    spans_conf = [c.min_conf for _, c in items]
    for k, word in enumerate(data["text"]):
        word = (word or "").strip()
        if not word:
            continue
        conf = float(data["conf"][k])
        top, height, left = data["top"][k], data["height"][k], data["left"][k]
        cy = top + height / 2
        j = int(np.searchsorted(starts, cy, side="right") - 1)
        if j < 0:
            continue
        idx, s0, s1 = spans[j]
        if cy > s1 + 2:
            continue
        if conf < 10 and not re.search(r"[A-Za-z0-9]", word):
            continue  # specks read as punctuation
        if conf < spans_conf[j]:
            continue
        per.setdefault(idx, []).append((int(top), int(left), int(height), word))
    # Mermaid sizes a label's box with one font and the rasteriser draws it with another, so a
    # line's last word is sometimes cut at the label's clip edge (a few px inside the border,
    # so the cut is not visible as ink touching the border). Line-final non-words are completed.
    clipped = {i for i, _ in items}
    if clipped:
        vocab = chart_vocabulary(w for ws in per.values() for w in ws)
        for idx in clipped & set(per):
            per[idx] = _complete_line_ends(per[idx], vocab)
    return {idx: _join_lines(words) for idx, words in per.items()}


_WORDS: list[str] | None = None


def tesseract_words(lang: str = "eng") -> list[str]:
    """Sorted word list of tesseract's own language model (its LSTM word DAWG), extracted once
    with the Debian tools ``combine_tessdata``/``dawg2wordlist`` and cached under
    ``$XDG_CACHE_HOME/flowpath``; empty when the tools or data are missing."""
    global _WORDS
    if _WORDS is not None:
        return _WORDS
    import shutil
    import subprocess
    import tempfile
    from pathlib import Path

    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "flowpath" / f"tesseract_words_{lang}.txt"
    words: list[str] = []
    try:
        if not cache.exists():
            data = None
            for base in (os.environ.get("TESSDATA_PREFIX"), "/usr/share/tesseract-ocr/5/tessdata",
                         "/usr/share/tesseract-ocr/4.00/tessdata", "/usr/share/tessdata"):
                if base and (Path(base) / f"{lang}.traineddata").exists():
                    data = Path(base) / f"{lang}.traineddata"
                    break
            if data is None or not shutil.which("combine_tessdata") or not shutil.which("dawg2wordlist"):
                _WORDS = []
                return _WORDS
            with tempfile.TemporaryDirectory() as tmp:
                prefix = str(Path(tmp) / f"{lang}.")
                subprocess.run(["combine_tessdata", "-u", str(data), prefix], check=True,
                               capture_output=True, timeout=60)
                out = Path(tmp) / "words.txt"
                subprocess.run(["dawg2wordlist", prefix + "lstm-unicharset", prefix + "lstm-word-dawg", str(out)],
                               check=True, capture_output=True, timeout=60)
                cache.parent.mkdir(parents=True, exist_ok=True)
                text = out.read_text(encoding="utf-8", errors="ignore")
                tmp_cache = cache.with_suffix(".tmp")
                tmp_cache.write_text(text, encoding="utf-8")
                tmp_cache.replace(cache)
        words = sorted({w.strip().lower() for w in cache.read_text(encoding="utf-8").split() if w.strip().isalpha()})
    except (OSError, subprocess.SubprocessError):
        words = []
    _WORDS = words
    return _WORDS


def chart_vocabulary(words) -> tuple[list[str], set[str]]:  # type: ignore[no-untyped-def]
    """(sorted dictionary words, lower-case words read elsewhere in the same chart)."""
    return tesseract_words(), {w[3].lower().strip(".,:;!?'\"()") for w in words}


def _complete_line_ends(words: list[tuple[int, int, int, str]],
                        vocab: tuple[list[str], set[str]]) -> list[tuple[int, int, int, str]]:
    """Complete the last word of each line when the border cut it ("intege!" -> "integer")."""
    import bisect

    dictionary, seen = vocab
    if not dictionary:
        return words
    lines: dict[int, int] = {}  # line key -> index of its right-most word
    for i, w in enumerate(words):
        key = round((w[0] + w[2] / 2) / max(w[2], 1))
        if key not in lines or w[1] > words[lines[key]][1]:
            lines[key] = i
    out = list(words)
    for i in lines.values():
        top, left, height, word = out[i]
        m = re.fullmatch(r"([A-Za-z]{5,})([^A-Za-z0-9'\"`)\]]{0,2})", word)
        if not m or m.group(1).lower() in seen_or(dictionary, m.group(1).lower()):
            continue
        stem = m.group(1)
        best = None
        for prefix in (stem.lower(), stem.lower()[:-1]):  # the last glyph may be a cut one misread
            cands = [w for w in seen if w.startswith(prefix) and len(stem) < len(w) <= len(stem) + 3 and w.isalpha()]
            if not cands:
                j = bisect.bisect_left(dictionary, prefix)
                while j < len(dictionary) and dictionary[j].startswith(prefix):
                    if len(dictionary[j]) <= len(stem) + 2 and dictionary[j] != prefix:
                        cands.append(dictionary[j])
                    j += 1
            if cands:
                best = min(cands, key=lambda w: (len(w), w))
                break
        if best:
            best = best[0].upper() + best[1:] if stem[0].isupper() else best
            out[i] = (top, left, height, best)
    return out


def seen_or(dictionary: list[str], word: str) -> set[str]:
    """``{word}`` if it is a dictionary word, else empty (binary search)."""
    import bisect

    j = bisect.bisect_left(dictionary, word)
    return {word} if j < len(dictionary) and dictionary[j] == word else set()


def _join_lines(words: list[tuple[int, int, int, str]]) -> str:
    """Group words into lines by vertical overlap, order lines top-down and words left-right."""
    words = sorted(words, key=lambda w: (w[0] + w[2] / 2, w[1]))
    lines: list[list[tuple[int, int, int, str]]] = []
    for w in words:
        cy = w[0] + w[2] / 2
        if lines:
            last = lines[-1]
            ly = np.mean([v[0] + v[2] / 2 for v in last])
            lh = np.median([v[2] for v in last])
            if abs(cy - ly) < 0.6 * max(lh, w[2]):
                last.append(w)
                continue
        lines.append([w])
    out = []
    for line in lines:
        out.append(" ".join(v[3] for v in sorted(line, key=lambda v: v[1])))
    return clean_text(" ".join(out))


_FIXES = [
    (re.compile(r"[‘’`´]"), "'"),
    (re.compile(r"[“”]"), '"'),
    (re.compile(r"[—–]"), "-"),
    (re.compile(r"\s+"), " "),
]


_CANON = {"yes": "Yes", "no": "No", "true": "True", "false": "False"}


def clean_label(text: str) -> str:
    """Clean an edge label; OCR slips on the common branch words (``Yés``, ``N0``, ``Yes'``) are
    snapped to the word when one character away."""
    import unicodedata

    text = clean_text(text)
    plain = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))
    toks = [t for t in plain.split() if re.search(r"[A-Za-z0-9]", t)]
    if len(toks) > 1:
        # one branch word among specks ("f No", "No va", "2 Yes"): the line through the label
        # box is read as stray short tokens around the word
        snapped = [c for c in (_snap(t) for t in toks) if c]
        short = [t for t in toks if _snap(t) is None]
        if len(snapped) == 1 and all(len(re.sub(r"[^A-Za-z0-9]", "", t)) <= 2 for t in short):
            return snapped[0]
    letters = re.sub(r"[^A-Za-z0-9]", "", plain)
    if letters.lower() in ("y", "n") and len(plain.replace(" ", "")) <= 2:
        # the one-letter branch words, with a speck of the line through them ("Y¥", "y:")
        return letters.upper()
    keep = [t for t in plain.split() if re.search(r"[A-Za-z0-9<>=%+*/]", t)]  # drop "---" specks
    return _snap(plain) or " ".join(keep) or plain


def _snap(text: str) -> str | None:
    """The branch word ``text`` is within one OCR slip of, else None."""
    low = re.sub(r"[^a-z0-9]", "", text.lower().replace("0", "o"))
    if not low:
        return None
    for word, canon in _CANON.items():
        # one slip, keeping the first letter ("nlo", "yas"), or any one slip in a word of at
        # most three letters ("Wo")
        if low == word or (len(low) >= 2 and _within_one_edit(low, word)
                           and (low[0] == word[0] or len(low) == len(word) <= 3)):
            return canon
    return None


def _within_one_edit(a: str, b: str) -> bool:
    """Levenshtein distance <= 1."""
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) <= 1
    if len(a) > len(b):
        a, b = b, a
    return any(b[:i] + b[i + 1:] == a for i in range(len(b)))


def clean_text(text: str) -> str:
    """Normalise OCR output: typographic quotes to ASCII, stray edge punctuation dropped."""
    for pat, rep in _FIXES:
        text = pat.sub(rep, text)
    # tokens with no letter/digit and characters outside plain ASCII punctuation are specks
    # (arrow tips, border corners) read as symbols
    toks = [t for t in text.split() if re.search(r"[A-Za-z0-9]", t) or re.fullmatch(r"[-+*/=<>%:()'\"\[\]{}&|!?.,;#$^~]+", t)]
    text = " ".join(toks).strip()
    # stray bars/underscores from border remnants at either end
    text = re.sub(r"^[|_~=]+\s*|\s*[|_~=]+$", "", text)
    return text.strip()
