"""Small print read from the uncleaned grey crop (issue 14, eleventh and twelfth stretches): the
grey crop keeps the blur's grey ramps and the text polarity made dark-on-light; the transcriber
hands the same node boxes, uncleaned, to the grey-input recogniser on small-print charts, and on
blurred ones (`crops.stroke_sharpness`) the grey reading is the default (real fonts, real blur
and JPEG, real torch models, real tesseract)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from flowpath.transcribe.ocr.crops import (
    color_distance,
    edge_energy,
    fill_color,
    glyph_depth,
    stroke_sharpness,
    to_grey_crop,
    to_text_crop,
)
from flowpath.transcribe.ocr.engines import Reading, split_lines
from flowpath.transcribe.ocr.grey_print import (
    BLURRED_GREY_MARGIN,
    GREY_FLOOR,
    GREY_MARGIN,
    grey_margin,
    grey_opinion,
    in_grey_window,
    is_blurred,
)
from tests.markers import require_torch
from tests.transcribe.markers import require_tesserocr
from tests.transcribe.test_text_recogniser import _NARROW, _blurred_small_chart

_SERIF = "/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf"
needs_serif = pytest.mark.skipif(not Path(_SERIF).is_file(), reason="needs the Debian font fonts-liberation")


def _blurred_line(text: str, size: int, fill: tuple[int, int, int], ink: tuple[int, int, int],
                  sigma: float, gradient: bool = False) -> np.ndarray:
    """``text`` at ``size`` px on a node fill, Gaussian-blurred by ``sigma`` and saved as JPEG 60."""
    font = ImageFont.truetype(_SERIF, size)
    left, top, right, bottom = font.getbbox(text)
    img = Image.new("RGB", (right - left + 20, bottom - top + 14), fill)
    ImageDraw.Draw(img).text((10 - left, 7 - top), text, font=font, fill=ink)
    rgb = np.asarray(img.filter(ImageFilter.GaussianBlur(sigma))).astype(np.float32)
    if gradient:  # the Office look: the fill darkens from top to bottom
        rgb *= np.linspace(1.0, 0.75, rgb.shape[0])[:, None, None]
    ok, enc = cv2.imencode(".jpg", np.clip(rgb, 0, 255).astype(np.uint8)[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, 60])
    assert ok
    return cv2.imdecode(enc, cv2.IMREAD_COLOR)[:, :, ::-1].copy()


@needs_serif
def test_the_grey_crop_is_dark_on_light_and_keeps_the_blurs_grey_levels():
    text = "Check the water level"
    for fill, ink in (((250, 250, 245), (10, 10, 10)), ((170, 30, 40), (255, 255, 255))):
        rgb = _blurred_line(text, 10, fill, ink, 0.8)
        grey = to_grey_crop(rgb, None, line_height=10.0)
        assert grey is not None
        img = grey.image
        assert np.median(img) > 230  # paper is light whichever way round the node was drawn
        assert (img < 40).any()  # and the darkest ink is dark
        # the ramps of the blurred strokes stay grey: ink is not saturated (the cleaned crop
        # projects onto the fill-to-ink axis and clips at the glyphs' strongest pixels)
        inked = img < 200
        assert (img[inked] < 40).mean() < 0.5
        assert ((img > 80) & (img < 200)).sum() > 0.2 * inked.sum()
        # trimmed and scaled as the cleaned crop is: one line band, about as tall
        clean = to_text_crop(rgb, None, line_height=10.0)
        assert clean is not None
        ((g0, g1),), ((c0, c1),) = split_lines(img), split_lines(clean.image)
        assert 0.75 < (g1 - g0) / (c1 - c0) < 1.33
    # a fill that darkens down the node is not ink
    rgb = _blurred_line(text, 10, (250, 250, 245), (10, 10, 10), 0.8, gradient=True)
    grey = to_grey_crop(rgb, None, line_height=10.0)
    assert grey is not None and np.percentile(grey.image, 50) > 230
    assert to_grey_crop(np.full((30, 80, 3), 200, np.uint8), None, line_height=10.0) is None  # no ink


def test_the_grey_window_is_small_print():
    assert in_grey_window(9.7) and in_grey_window(6.9) and in_grey_window(12.5)
    assert not in_grey_window(20.0) and not in_grey_window(None) and not in_grey_window(5.5)


def _sharpness(rgb: np.ndarray) -> float | None:
    """`crops.stroke_sharpness` of one node's crop, measured as the transcriber measures it."""
    inside = np.ones(rgb.shape[:2], bool)
    fill = fill_color(rgb, inside)
    dist = color_distance(rgb, fill)
    ink = dist > 60
    return stroke_sharpness([edge_energy(glyph_depth(rgb, fill, dist, ink), ink, inside)])


@needs_serif
def test_stroke_sharpness_tells_blurred_print_from_sharp_print():
    # 10-px serif saved as JPEG 60: sharp, and blurred as the wild degrade pass blurs (sigma 0.8);
    # dark on a pale fill and white on a saturated red one (the measure is free of the contrast)
    for fill, ink in (((250, 250, 245), (10, 10, 10)), ((176, 32, 40), (255, 255, 255))):
        sharp = _sharpness(_blurred_line("Check the water level", 10, fill, ink, 0.0))
        blurred = _sharpness(_blurred_line("Check the water level", 10, fill, ink, 0.8))
        assert sharp is not None and blurred is not None and blurred < sharp
        assert is_blurred(blurred) and not is_blurred(sharp), (blurred, sharp)
        assert grey_margin(blurred) == BLURRED_GREY_MARGIN and grey_margin(sharp) == GREY_MARGIN
    assert not is_blurred(None) and stroke_sharpness([]) is None


def test_the_grey_reading_replaces_the_kept_one_only_when_surer_and_over_its_floor():
    class Fixed:
        name = "greyrec"

        def __init__(self) -> None:
            self.calls = 0

        def read(self, crops):
            self.calls += 1
            return [Reading([(0, 0, 9, "Apply")], 0.9, "greyrec"), Reading([(0, 0, 9, "Stant")], 0.8, "greyrec"),
                    Reading([(0, 0, 9, "End")], GREY_FLOOR - 0.01, "greyrec"), Reading()]

    from flowpath.transcribe.ocr.crops import TextCrop

    crop = TextCrop(np.zeros((30, 30), np.uint8))
    # the first wins on a near tie (its margin), the second is too far behind, the third is under its floor
    kept = [Reading([(0, 0, 9, "Agmily")], 0.9 + GREY_MARGIN - 0.01, "textrec"),
            Reading([(0, 0, 9, "Start")], 0.8 + GREY_MARGIN + 0.01, "tesseract"),
            Reading([(0, 0, 9, "Fnd")], 0.1, "tesseract"), Reading()]
    engine = Fixed()
    out = grey_opinion([crop, crop, crop, None], kept, lambda: engine)
    assert [r.engine for r in out] == ["greyrec", "tesseract", "tesseract", ""]
    assert engine.calls == 1
    assert grey_opinion([None, None], kept[:2], lambda: engine) == kept[:2] and engine.calls == 1
    assert grey_opinion([crop], kept[:1], lambda: None) == kept[:1]  # no weights: nothing changes


@require_torch
@needs_serif
def test_the_shipped_grey_recogniser_reads_blurred_small_print_from_the_grey_crop():
    from rapidfuzz.distance import Levenshtein

    from flowpath.transcribe.ocr.recogniser import GREY_MODEL_DIR, LineRecogniserEngine

    if not (GREY_MODEL_DIR / "model.safetensors").is_file():
        pytest.skip(f"no grey-input weights in {GREY_MODEL_DIR}")
    engine = LineRecogniserEngine(GREY_MODEL_DIR)
    assert engine.config.grey_input and engine.name == "greyrec"
    errors = total = 0
    for text, fill, ink in (("Check the water level", (250, 250, 245), (10, 10, 10)),
                            ("Apply the leaves until smooth", (176, 32, 40), (255, 255, 255)),
                            ("Is the dough ready?", (254, 254, 206), (20, 20, 20))):
        crop = to_grey_crop(_blurred_line(text, 10, fill, ink, 0.8), None, line_height=10.0)
        assert crop is not None
        errors += Levenshtein.distance(engine.read([crop])[0].text, text)
        total += len(text)
    # 10-px serif print blurred by 0.8 px and saved as JPEG 60: at most one character in ten wrong
    assert errors <= 0.1 * total, (errors, total)


@require_torch
@require_tesserocr
@pytest.mark.skipif(not Path(_NARROW).is_file(), reason="needs the Debian font fonts-liberation")
def test_the_transcriber_hands_blurred_small_print_uncleaned_to_the_grey_recogniser():
    from flowpath.transcribe.ocr import OCRTranscriber
    from flowpath.transcribe.ocr.recogniser import (
        GREY_MODEL_DIR,
        LineRecogniserEngine,
        RecogniserConfig,
        build_model,
    )

    class Recording(OCRTranscriber):
        """The real transcriber; records what reaches the grey step."""

        def __init__(self) -> None:
            super().__init__(workers=1)
            self.seen: list[list] = []
            self.margins: list[float] = []

        def grey_read(self, grey_crops, readings, margin=GREY_MARGIN, specialist=False):
            self.seen.append(grey_crops)
            self.margins.append(margin)
            return super().grey_read(grey_crops, readings, margin, specialist)

    tr = Recording()
    if not (GREY_MODEL_DIR / "model.safetensors").is_file():  # weights not installed: a real tiny one
        import torch

        torch.manual_seed(0)
        config = RecogniserConfig(height=16, channels=[4, 4, 8, 8, 8, 8], hidden=8, layers=1, grey_input=True)
        tr._grey = LineRecogniserEngine(model=build_model(config), config=config)
    assert tr._grey_or_none() is not None and tr._grey_or_none().name == "greyrec"
    # blurred 7-px print: measured 6.9 px, its glyph edges blurred (`crops.stroke_sharpness`): the
    # grey reading is the default there
    blurred = tr([_blurred_small_chart(0.5)])[0]
    assert len(tr.seen) == 1 and len(tr.seen[0]) == 2 and tr.margins == [BLURRED_GREY_MARGIN]
    for crop in tr.seen[0]:  # each node's own box, uncleaned: dark-on-light grey with its ramps
        assert crop is not None and (crop.image < 60).any() and ((crop.image > 80) & (crop.image < 200)).any()
    assert set(blurred.meta["node_engines"].values()) <= {"tesseract", "rapidocr", "textrec", "greyrec", "blurrec"}
    # the same print unblurred is read from its grey crops too, but the grey reading has to be
    # surer than the cleaned crop's readings to replace them
    tr([_blurred_small_chart(0.0)])
    assert len(tr.seen) == 2 and tr.margins[1] == GREY_MARGIN
    # and with the learned recogniser off there is no grey step either
    off = Recording()
    off.learned = False
    off([_blurred_small_chart(0.5)])
    assert not off.seen


@require_torch
@require_tesserocr
@pytest.mark.skipif(not Path(_NARROW).is_file(), reason="needs the Debian font fonts-liberation")
def test_the_blur_specialist_reads_blurred_charts_only_and_is_left_out_without_weights(tmp_path, monkeypatch):
    import torch

    from flowpath.transcribe.ocr import OCRTranscriber, recogniser
    from flowpath.transcribe.ocr.recogniser import RecogniserConfig, build_model, save_recogniser

    # a real tiny grey-input network saved as the specialist's weights
    torch.manual_seed(0)
    config = RecogniserConfig(height=16, channels=[4, 4, 8, 8, 8, 8], hidden=8, layers=1, grey_input=True)
    save_recogniser(build_model(config), config, tmp_path / "blur")
    monkeypatch.setattr(recogniser, "BLUR_MODEL_DIR", tmp_path / "blur")
    tr = OCRTranscriber(workers=1, blur_model=True)
    blurred = tr([_blurred_small_chart(0.5)])[0]
    assert is_blurred(blurred.meta["stroke_sharpness"]) and blurred.meta["grey_reader"] == "blurrec"
    # the same print unblurred reaches the grey step, read by the grey model: not the specialist
    sharp = tr([_blurred_small_chart(0.0)])[0]
    assert not is_blurred(sharp.meta["stroke_sharpness"]) and sharp.meta["grey_reader"] == "greyrec"
    # the switch off: the grey model reads blurred charts too
    off = OCRTranscriber(workers=1, blur_model=False)([_blurred_small_chart(0.5)])[0]
    assert off.meta["grey_reader"] == "greyrec"
    # weights missing: the grey model reads, no error, the specialist not tried again
    monkeypatch.setattr(recogniser, "BLUR_MODEL_DIR", tmp_path / "none")
    missing = OCRTranscriber(workers=1, blur_model=True)
    assert missing([_blurred_small_chart(0.5)])[0].meta["grey_reader"] == "greyrec" and not missing.blur_model
