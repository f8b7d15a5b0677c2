"""Node and label text crops on styled fills: a gradient node's dark end is fill, not ink, and
one label read twice is one label. Real tesseract, real rendered text (no mocks)."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from tests.transcribe.markers import require_tesserocr


def _gradient_node(text: str, top: tuple[int, int, int], bottom: tuple[int, int, int],
                   size: int = 18) -> np.ndarray:
    """A 260 x 90 node filled with a vertical gradient, ``text`` in black across its middle."""
    h, w = 90, 260
    t = np.linspace(0.0, 1.0, h)[:, None, None]
    img = (np.array(top) * (1 - t) + np.array(bottom) * t).repeat(w, axis=1).astype(np.uint8)
    pil = Image.fromarray(img)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", size)
    ImageDraw.Draw(pil).text((w // 2, h // 2), text, fill=(0, 0, 0), font=font, anchor="mm")
    return np.asarray(pil)


def _ink_rows(crop) -> np.ndarray:
    return np.nonzero((crop.image < 128).any(axis=1))[0]


def test_gradient_dark_end_is_fill_not_ink():
    from flowpath.transcribe.ocr.crops import to_text_crop

    # a wild-family gradient (light top, saturated middle, darker bottom) under black text that
    # reads at WCAG AA against every stop
    rgb = _gradient_node("Pack the parcel", (246, 214, 160), (214, 140, 20))
    mask = np.ones(rgb.shape[:2], bool)
    crop = to_text_crop(rgb, mask, line_height=24)
    assert crop is not None
    rows = _ink_rows(crop)
    # the crop is trimmed to its ink: only the one text line remains (about 30 px after
    # rescaling, plus the margin), not a band of the gradient's dark end below it
    assert rows.max() - rows.min() < 45


@require_tesserocr
def test_gradient_node_reads_with_tesseract():
    from flowpath.transcribe.ocr.crops import to_text_crop
    from flowpath.transcribe.ocr.engines import TesseractEngine

    rgb = _gradient_node("Check the hinges", (240, 200, 230), (190, 90, 150))
    crop = to_text_crop(rgb, np.ones(rgb.shape[:2], bool), line_height=24)
    assert crop is not None
    reading = TesseractEngine("eng", workers=1).read([crop])[0]
    assert " ".join(w[3] for w in reading.words) == "Check the hinges"


def test_a_label_read_twice_is_one_label():
    from flowpath.transcribe.ocr.transcriber import _edge_labels

    assert _edge_labels(["No", "No"]) == ["No"]
    assert _edge_labels(["Yes", "No"]) == ["Yes", "No"]  # parallel Yes/No edges stay two
