"""OCR engines behind one interface: tesseract (print) and PP-OCR via rapidocr (handwriting).

An engine reads a list of cleaned crops (`flowpath.transcribe.ocr.crops.TextCrop`) and returns
one `Reading` per crop: the words with their boxes (so that `text.join_lines` can order them)
and a confidence in [0, 1].

* `TesseractEngine` (default, core dependency ``tesserocr``): all crops of a chart are stacked
  into one tall *mosaic* per worker and read by one in-process tesseract call; words go back to
  their crop by vertical position. tesserocr releases the GIL while tesseract works, so two
  workers use two cores. Tesseract's language data comes from Debian (``tesseract-ocr-eng``),
  found by `find_tessdata`.
* `RapidOCREngine` (``flowpath[ocr]``): PP-OCR detection + recognition ONNX models shipped in
  the ``rapidocr`` wheel (no download), one crop at a time. A print engine reads handwriting
  badly (docs/transcription.md, "handwriting"); this one reads it far better, at ~10x the cost.
"""

from __future__ import annotations

import os
import queue
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from flowpath.errors import MissingDependencyError
from flowpath.transcribe.ocr.crops import TextCrop
from flowpath.transcribe.ocr.tessdata import TESSDATA_DIRS, find_tessdata

if TYPE_CHECKING:
    from flowpath.transcribe.ocr.text import Word

#: white gap between stacked crops; large enough that tesseract never merges two crops' lines
_GAP = 28
#: in the mosaic, two lines of one crop closer than this share of their height are moved apart
#: to it: tesseract's layout analysis reads lines 2-3 px apart at ~10 px print (a short centred
#: second line under a long first one) as one line, and their words interleave
_MIN_LINE_GAP = 0.2
#: a line rapidocr read is dropped when more than this share of its characters have no ASCII
#: base letter (`latin_line`)
_MAX_FOREIGN = 0.2
#: Latin letters NFKD leaves whole, by the ASCII letter they look like
_LATIN_LETTERS = str.maketrans({"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D", "ı": "i",
                                "ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE"})



@dataclass
class Reading:
    """What an engine read in one crop.

    Attributes:
        words: ``(top, left, height, text)`` per word (or per line, for line-level engines), in
            the crop's pixels.
        confidence: the engine's own confidence in [0, 1] (mean over words); 0 when nothing
            was read.
        engine: the engine's name.
        alternates: what other engines read in the same crop where the choice rule
            (`flowpath.transcribe.ocr.choice`) kept this reading instead: the chart's own words
            that spelling mends small print against (`text.chart_words`).
    """

    words: list[Word] = field(default_factory=list)
    confidence: float = 0.0
    engine: str = ""
    alternates: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The words read, space-separated, in the engine's order."""
        return " ".join(w[3] for w in self.words)

    def noting(self, other: Reading) -> Reading:
        """This reading, with ``other`` (a reading of the same crop it won over, and what that one
        had noted) among its alternates."""
        extra = tuple(t for t in (other.text, *other.alternates) if t)
        return replace(self, alternates=self.alternates + extra) if extra else self


class OCREngine(ABC):
    """Reads cleaned text crops. Subclasses load their model once and are reused across charts."""

    name: str = ""

    @abstractmethod
    def read(self, crops: Sequence[TextCrop | None]) -> list[Reading]:
        """Read every crop; ``None`` entries (no ink) give an empty `Reading`."""


class TesseractEngine(OCREngine):
    """Tesseract in process through tesserocr, reading each batch as one mosaic per worker.

    Args:
        lang: tesseract language(s), e.g. ``"eng"``.
        workers: mosaics read in parallel (one loaded engine each; 2 uses both cores of a
            small machine).

    Raises:
        MissingDependencyError: tesserocr is not installed, or the language data is missing
            (the message names the pip package or the Debian package to install).
    """

    name = "tesseract"

    def __init__(self, lang: str = "eng", workers: int = 2) -> None:
        # tesseract's OpenMP threads only slow it down here (tesseract docs: set
        # OMP_THREAD_LIMIT=1 for parallel runs); we run one engine per core instead
        os.environ.setdefault("OMP_THREAD_LIMIT", "1")
        try:
            import tesserocr
        except ImportError as exc:
            raise MissingDependencyError(
                "the OCR transcriber needs the 'tesserocr' package (a flowpath dependency): "
                "pip install tesserocr") from exc
        tessdata = find_tessdata(lang)
        if tessdata is None:
            raise MissingDependencyError(
                f"tesseract language data '{lang}.traineddata' was not found in $TESSDATA_PREFIX or "
                f"{', '.join(TESSDATA_DIRS)}: apt-get install tesseract-ocr-{lang.split('+')[0]} "
                "(or set TESSDATA_PREFIX to the folder holding it)")
        self.lang = lang
        self.workers = max(1, int(workers))
        self._tesserocr = tesserocr
        self._path = str(tessdata) + os.sep
        # idle loaded engines; a batch takes one per worker thread and puts it back
        self._idle: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def _api(self) -> Any:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            try:
                return self._tesserocr.PyTessBaseAPI(path=self._path, lang=self.lang,
                                                     psm=self._tesserocr.PSM.SINGLE_BLOCK)
            except RuntimeError as exc:
                raise MissingDependencyError(
                    f"tesseract could not load language {self.lang!r} from {self._path}: "
                    f"apt-get install tesseract-ocr-{self.lang.split('+')[0]}") from exc

    def words(self, image: np.ndarray, psm: int = 6) -> tuple[list[Word], list[float]]:
        """Words of a grey image (``0`` ink, ``255`` paper) and their confidences (0-100),
        read with page segmentation mode ``psm`` (6: a block of text, 8: one word)."""
        img = np.ascontiguousarray(image, dtype=np.uint8)
        api = self._api()
        try:
            api.SetPageSegMode(psm)
            api.SetImageBytes(img.tobytes(), img.shape[1], img.shape[0], 1, img.strides[0])
            tsv = api.GetTSVText(0) or ""
        finally:
            api.Clear()
            self._idle.put(api)
        words: list[Word] = []
        confs: list[float] = []
        for line in tsv.splitlines():
            f = line.split("\t")
            if len(f) < 12 or f[0] != "5" or not f[11].strip():  # level 5 = word
                continue
            words.append((int(f[7]), int(f[6]), int(f[9]), f[11].strip()))
            confs.append(float(f[10]))
        return words, confs

    def read(self, crops: Sequence[TextCrop | None]) -> list[Reading]:
        readings = [Reading(engine=self.name) for _ in crops]
        items = [(i, c) for i, c in enumerate(crops) if c is not None]
        if not items:
            return readings
        chunks = _split_by_area(items, min(self.workers, len(items)))
        if len(chunks) == 1:
            results = [self._read_mosaic(chunks[0])]
        else:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(len(chunks)) as pool:
                results = list(pool.map(self._read_mosaic, chunks))
        for res in results:
            for idx, reading in res.items():
                readings[idx] = reading
        return readings

    def read_word(self, crop: TextCrop | None) -> Reading:
        """Read one short crop as a single word (``--psm 8``): for edge labels the mosaic left
        empty (a connector drawn through a two-letter word confuses the block layout analysis
        more than the word recogniser)."""
        if crop is None:
            return Reading(engine=self.name)
        words, confs = self.words(crop.image, psm=8)
        kept = [(w, c) for w, c in zip(words, confs, strict=True) if c >= crop.min_conf]
        return Reading([w for w, _ in kept], _mean([c for _, c in kept]) / 100, self.name)

    def _read_mosaic(self, items: list[tuple[int, TextCrop]]) -> dict[int, Reading]:
        starts = []
        y = 0
        images = [_spread_lines(c.image) for _, c in items]
        width = max(im.shape[1] for im in images)
        mosaic = np.full((sum(im.shape[0] + _GAP for im in images), width), 255, np.uint8)
        for image in images:
            h, w = image.shape
            mosaic[y:y + h, :w] = image
            starts.append(y)
            y += h + _GAP
        words, confs = self.words(mosaic, psm=6)
        per: dict[int, list[tuple[Word, float]]] = {}
        for (top, left, height, word), conf in zip(words, confs, strict=True):
            cy = top + height / 2
            j = int(np.searchsorted(starts, cy, side="right") - 1)
            if j < 0:
                continue
            idx, crop = items[j]
            if cy > starts[j] + images[j].shape[0] + 2:
                continue  # in the gap between two crops
            if conf < 10 and not re.search(r"[A-Za-z0-9]", word):
                continue  # specks read as punctuation
            if conf < crop.min_conf:
                continue
            per.setdefault(idx, []).append(((top - starts[j], left, height, word), conf))
        return {idx: Reading([w for w, _ in ws], _mean([c for _, c in ws]) / 100, self.name)
                for idx, ws in per.items()}


class RapidOCREngine(OCREngine):
    """PP-OCR text detection + recognition through rapidocr and onnxruntime.

    The models are the ones shipped inside the ``rapidocr`` wheel (PP-OCRv6 small detection and
    recognition); nothing is downloaded. `read` finds each text line with the detector and
    recognises it; lines come back as one `Word` each, with their box, so `text.join_lines`
    orders them top to bottom. The detector runs at the crop's own size (crops are scaled to
    ~30 px lines; rapidocr's default upscales the short side to 736 px, which cost ~1.5 s per
    node). `recognise` skips the detector: each blank-row band of the crop (`split_lines`) is
    read as one line, cheaper, for short crops such as edge labels (wobbly handwritten lines
    touch, so bands merge: measured on hand-drawn tuning charts, node-text word F1 0.846 with
    bands, 0.905 with the detector). What the detector path reads also gets
    `text.fix_letter_slips` (handwriting only: `recognise` keeps what it read). The
    recogniser covers Chinese and English; the English-only recognisers rapidocr knows of are
    downloads, so lines read with characters outside ASCII are dropped (a misread of a Latin
    word, for us).

    Args:
        threads: onnxruntime intra-op threads.

    Raises:
        MissingDependencyError: rapidocr or onnxruntime is missing (``flowpath[ocr]``).
    """

    name = "rapidocr"

    def __init__(self, threads: int = 2) -> None:
        from flowpath.errors import require

        require("rapidocr", "ocr", "RapidOCREngine")
        require("onnxruntime", "ocr", "RapidOCREngine")
        from rapidocr import RapidOCR

        self._ocr = RapidOCR(params={
            "Global.log_level": "error",
            "EngineConfig.onnxruntime.intra_op_num_threads": int(threads),
            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
            # detect at the crop's own scale (only shrink a crop longer than this)
            "Det.limit_type": "max",
            "Det.limit_side_len": 1536,
        })

    def read(self, crops: Sequence[TextCrop | None]) -> list[Reading]:
        """Detector + recogniser per crop; a crop where the detector finds nothing is read by
        bands as in `recognise`."""
        out = []
        for crop in crops:
            reading = Reading(engine=self.name) if crop is None else self._detect_and_read(crop.image)
            out.append(reading if reading.words or crop is None else self._read_bands(crop.image))
        return out

    def recognise(self, crops: Sequence[TextCrop | None]) -> list[Reading]:
        """The recogniser alone, once per blank-row band of each crop."""
        return [Reading(engine=self.name) if c is None else self._read_bands(c.image) for c in crops]

    def _read_bands(self, image: np.ndarray) -> Reading:
        import cv2

        words: list[Word] = []
        scores: list[float] = []
        for y0, y1 in split_lines(image):
            line = np.pad(image[y0:y1], ((6, 6), (0, 0)), constant_values=255)
            out: Any = self._ocr(cv2.cvtColor(line, cv2.COLOR_GRAY2BGR), use_det=False, use_cls=False,
                                 use_rec=True)  # a TextRecOutput
            for txt, score in zip(out.txts or (), out.scores or (), strict=False):
                self._keep(words, scores, (y0, 0, y1 - y0, str(txt)), float(score))
        return Reading(words, _mean(scores), self.name)

    def _detect_and_read(self, image: np.ndarray) -> Reading:
        import cv2

        from flowpath.transcribe.ocr.text import fix_letter_slips

        pad = 12  # the detector misses text touching the image edge
        img = cv2.cvtColor(np.pad(image, pad, constant_values=255), cv2.COLOR_GRAY2BGR)
        out: Any = self._ocr(img, use_det=True, use_cls=False, use_rec=True)
        words: list[Word] = []
        scores: list[float] = []
        # a RapidOCROutput when lines were found and read; when the detector finds nothing
        # rapidocr returns its recogniser's (TextRecOutput, no boxes) or detector's (no texts)
        # own output instead
        boxes, txts = getattr(out, "boxes", None), getattr(out, "txts", None)
        if boxes is None or txts is None:
            return Reading(engine=self.name)
        for box, txt, score in zip(boxes, txts, out.scores, strict=False):
            ys, xs = np.asarray(box)[:, 1], np.asarray(box)[:, 0]
            self._keep(words, scores, (int(ys.min()) - pad, int(xs.min()) - pad, int(np.ptp(ys)),
                                       fix_letter_slips(str(txt))), float(score))
        return Reading(words, _mean(scores), self.name)

    @staticmethod
    def _keep(words: list[Word], scores: list[float], word: Word, score: float) -> None:
        txt = latin_line(word[3])
        if txt:
            words.append((*word[:3], txt))
            scores.append(score)


def latin_line(text: str) -> str | None:
    """A line rapidocr read, in ASCII: accents dropped from letters (``materuh, éxen`` ->
    ``materuh, exen``: the recogniser knows Latin accented letters and CJK, and small print
    misread as an accented letter cost the whole line); None when the line is mostly not Latin
    (more than `_MAX_FOREIGN` of its characters have no ASCII base: a misread of a scribble)."""
    import unicodedata

    text = text.strip()
    if text.isascii():
        return text or None
    base = "".join(ch for ch in unicodedata.normalize("NFKD", text.translate(_LATIN_LETTERS))
                   if not unicodedata.combining(ch))
    foreign = sum(not ch.isascii() for ch in base)
    if foreign > _MAX_FOREIGN * len(base.replace(" ", "")):
        return None
    return " ".join("".join(ch for ch in base if ch.isascii()).split()) or None


def split_lines(image: np.ndarray, min_gap: int = 2) -> list[tuple[int, int]]:
    """Row spans ``[y0, y1)`` of the text lines of a crop (``0`` ink, ``255`` paper): runs of
    rows holding ink, split at blank runs of at least ``min_gap`` rows; runs much shorter than
    the tallest (an i-dot, a speck) join the nearest line."""
    rows: np.ndarray = np.asarray((image < 128).any(axis=1))
    spans: list[list[int]] = []
    y = 0
    while y < len(rows):
        if not rows[y]:
            y += 1
            continue
        y0 = y
        while y < len(rows) and (rows[y] or rows[y:y + min_gap].any()):
            y += 1
        spans.append([y0, y])
    if not spans:
        return []
    tallest = max(b - a for a, b in spans)
    out: list[list[int]] = []
    for a, b in spans:
        if b - a >= 0.35 * tallest:
            out.append([a, b])
    for a, b in spans:
        if b - a < 0.35 * tallest:
            near = min(out, key=lambda s: min(abs(a - s[1]), abs(s[0] - b)))
            near[0], near[1] = min(near[0], a), max(near[1], b)
    return [(a, b) for a, b in sorted(out)]


def _spread_lines(image: np.ndarray) -> np.ndarray:
    """``image`` with blank rows added between text lines closer than `_MIN_LINE_GAP` of the
    shorter line's height; ``image`` itself when no two lines are that close (word boxes read
    from the result keep the lines' order, which is all the readers use them for)."""
    spans = split_lines(image, min_gap=1)
    if len(spans) < 2 or _MIN_LINE_GAP <= 0:
        return image
    pads = [max(0, int(np.ceil(_MIN_LINE_GAP * min(b0 - a0, b1 - a1))) - (a1 - b0))
            for (a0, b0), (a1, b1) in zip(spans, spans[1:], strict=False)]
    if not any(pads):
        return image
    parts = []
    top = 0
    for (_, b0), (a1, _), pad in zip(spans, spans[1:], pads, strict=False):
        cut = (b0 + a1) // 2
        parts += [image[top:cut], np.full((pad, image.shape[1]), 255, np.uint8)]
        top = cut
    parts.append(image[top:])
    return np.concatenate(parts)


def _mean(values: list[float]) -> float:
    return float(sum(values) / len(values)) if values else 0.0


def _split_by_area(items: list[tuple[int, TextCrop]], parts: int) -> list[list[tuple[int, TextCrop]]]:
    """Contiguous chunks of about equal pixel count (tesseract's time grows with it)."""
    if parts <= 1:
        return [items]
    total = sum(c.image.size for _, c in items)
    chunks: list[list[tuple[int, TextCrop]]] = []
    cur: list[tuple[int, TextCrop]] = []
    acc = 0
    for it in items:
        cur.append(it)
        acc += it[1].image.size
        if acc >= total * (len(chunks) + 1) / parts and len(chunks) < parts - 1:
            chunks.append(cur)
            cur = []
    if cur:
        chunks.append(cur)
    return chunks
