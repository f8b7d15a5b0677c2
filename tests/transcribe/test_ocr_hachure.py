"""Hand-drawn (rough.js-style) hachure fills: the pale fill strokes are dropped from a node's
crop and its handwritten text is read; a flat fill is left alone. Real rendered handwriting,
real OCR engines (no mocks)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from tests.transcribe.markers import require_rapidocr, require_tesserocr

#: a handwriting face of data_gen's train fonts (fonts-bwht), never the eval set's held-out ones
_HAND = "/usr/share/fonts/opentype/bwht/BecauseWeLearn-Regular.otf"
needs_hand_font = pytest.mark.skipif(not Path(_HAND).is_file(), reason="needs the Debian font fonts-bwht")

_TEXT = "SAND THE SOIL"


def _node(hachure: bool, size: int = 26) -> np.ndarray:
    """A 340 x 110 node: optionally tinted with parallel pale strokes at about -41 degrees (as
    rough.js fills a hand-drawn node), handwritten dark-blue text across its middle."""
    w, h = 340, 110
    img = Image.new("RGB", (w, h), (246, 246, 244))
    draw = ImageDraw.Draw(img)
    if hachure:
        rng = np.random.default_rng(3)
        for x in range(-h, w + h, 7):
            jitter = rng.normal(0, 1.0, 2)
            draw.line([(x + jitter[0], h), (x + 0.87 * h + jitter[1], 0)], fill=(226, 174, 228), width=2)
    font = ImageFont.truetype(_HAND, size)
    draw.text((w // 2, h // 2), _TEXT, fill=(32, 42, 107), font=font, anchor="mm")
    return np.asarray(img)


def _words(text: str) -> set[str]:
    return set(text.upper().replace(",", " ").split())


@needs_hand_font
def test_fill_strokes_are_dropped_and_a_flat_fill_is_left_alone():
    from flowpath.transcribe.ocr.crops import (
        color_distance,
        fill_color,
        hachure_strokes,
        to_text_crop,
    )

    mask = np.ones((110, 340), bool)
    plain, filled = (to_text_crop(_node(h), mask, line_height=36) for h in (False, True))
    assert plain is not None and filled is not None
    # with the strokes gone the crop is trimmed to the text line, as the plain node's
    assert abs(filled.image.shape[0] - plain.image.shape[0]) <= 0.15 * plain.image.shape[0]
    ink = lambda c: float((c.image < 128).mean())  # noqa: E731
    assert ink(filled) < 1.5 * ink(plain)
    # the flat node never gets the hachure treatment (clean renders keep their crops)
    rgb = _node(False)
    dist = color_distance(rgb, fill_color(rgb, mask))
    assert hachure_strokes(rgb, dist, dist > 60, dist > 60, mask) is None


@require_rapidocr
@needs_hand_font
def test_rapidocr_reads_handwriting_on_a_hachure_fill():
    from flowpath.transcribe.ocr.crops import to_text_crop
    from flowpath.transcribe.ocr.engines import RapidOCREngine
    from flowpath.transcribe.ocr.text import join_lines

    crop = to_text_crop(_node(True), np.ones((110, 340), bool), line_height=36)
    assert crop is not None
    read = _words(join_lines(RapidOCREngine().read([crop])[0].words))
    assert len(read & _words(_TEXT)) >= 2, read


@require_tesserocr
@needs_hand_font
def test_tesseract_reads_handwriting_on_a_hachure_fill():
    from flowpath.transcribe.ocr.crops import to_text_crop
    from flowpath.transcribe.ocr.engines import TesseractEngine

    crop = to_text_crop(_node(True), np.ones((110, 340), bool), line_height=36)
    assert crop is not None
    read = _words(" ".join(w[3] for w in TesseractEngine("eng", workers=1).read([crop])[0].words))
    assert len(read & _words(_TEXT)) >= 2, read
