"""The learned line recogniser: a tiny random-init model through the engine interface, the
shipped model on a line of small print this test renders itself, and the small-print choice
rule (no mocks: real torch models, real fonts, the real crop cleaning)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from flowpath.transcribe.ocr.choice import (
    LEARNED_FLOOR,
    LEARNED_MARGIN,
    SMALL_PRINT_BELOW,
    SMALL_PRINT_FROM,
    learned_opinion,
    prefer_learned,
)
from flowpath.transcribe.ocr.crops import TextCrop, to_text_crop
from flowpath.transcribe.ocr.engines import Reading
from tests.markers import require_torch
from tests.transcribe.markers import require_tesserocr
from tests.transcribe.small_print import green_node_chart

#: a serif face of the training fonts (fonts-liberation); the shipped model never saw the
#: wild eval set's held-out faces, and this test does not need them
_SERIF = "/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf"
needs_serif = pytest.mark.skipif(not Path(_SERIF).is_file(), reason="needs the Debian font fonts-liberation")


def _small_print(text: str, size: int, fill: tuple[int, int, int], ink: tuple[int, int, int],
                 quality: int) -> np.ndarray:
    """``text`` drawn at ``size`` px on a node fill and saved as JPEG, as a small web image."""
    import cv2

    font = ImageFont.truetype(_SERIF, size)
    left, top, right, bottom = font.getbbox(text)
    img = Image.new("RGB", (right - left + 16, bottom - top + 12), fill)
    ImageDraw.Draw(img).text((8 - left, 6 - top), text, font=font, fill=ink)
    ok, enc = cv2.imencode(".jpg", np.asarray(img)[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return cv2.imdecode(enc, cv2.IMREAD_COLOR)[:, :, ::-1].copy()


def _tiny_engine():
    import torch

    from flowpath.transcribe.ocr.recogniser import (
        LineRecogniserEngine,
        RecogniserConfig,
        build_model,
    )

    torch.manual_seed(0)
    config = RecogniserConfig(height=16, channels=[4, 4, 8, 8, 8, 8], hidden=8, layers=1)
    return LineRecogniserEngine(model=build_model(config), config=config), config


@require_torch
def test_a_random_init_model_reads_through_the_engine_interface():
    engine, config = _tiny_engine()
    two_lines = np.full((60, 120), 255, np.uint8)
    two_lines[8:20, 10:100] = 0
    two_lines[36:50, 10:80] = 0
    readings = engine.read([TextCrop(two_lines), None, TextCrop(np.full((30, 40), 255, np.uint8))])
    assert len(readings) == 3 and all(r.engine == "textrec" for r in readings)
    assert readings[1].words == [] and readings[2].words == []  # no crop, no ink: nothing read
    for _top, left, height, text in readings[0].words:  # one word per line band, top to bottom
        assert set(text) <= set(config.charset) and height > 0 and left == 0
    assert [w[0] for w in readings[0].words] == sorted(w[0] for w in readings[0].words)
    assert 0.0 <= readings[0].confidence <= 1.0


@require_torch
def test_the_config_rejects_a_shape_the_network_cannot_take():
    from flowpath.transcribe.ocr.recogniser import RecogniserConfig

    with pytest.raises(ValueError, match="multiple of 16"):
        RecogniserConfig(height=30)
    with pytest.raises(ValueError, match="6 values"):
        RecogniserConfig(channels=[8, 8])
    back = RecogniserConfig.from_dict(RecogniserConfig(hidden=12).to_dict())
    assert back.hidden == 12 and back.charset == RecogniserConfig().charset


@require_torch
def test_a_missing_model_file_is_named(tmp_path):
    from flowpath.transcribe.ocr.recogniser import LineRecogniserEngine

    with pytest.raises(FileNotFoundError, match="config.json"):
        LineRecogniserEngine(tmp_path)


@require_torch
@needs_serif
def test_the_shipped_model_reads_small_jpeg_print():
    from rapidfuzz.distance import Levenshtein

    from flowpath.transcribe.ocr.recogniser import MODEL_DIR, LineRecogniserEngine

    if not (MODEL_DIR / "model.safetensors").is_file():
        pytest.skip(f"no shipped model in {MODEL_DIR}")
    engine = LineRecogniserEngine()
    cases = [("Check the water level", (255, 255, 255), (20, 20, 20), 80),
             ("Apply the leaves until smooth", (176, 32, 40), (255, 255, 255), 60),
             ("Is the dough ready?", (40, 96, 170), (255, 255, 255), 50)]
    errors = total = 0
    for text, fill, ink, quality in cases:
        crop = to_text_crop(_small_print(text, 11, fill, ink, quality), None, line_height=11.0)
        assert crop is not None
        reading = engine.read([crop])[0]
        read = " ".join(w[3] for w in reading.words)
        errors += Levenshtein.distance(read, text)
        total += len(text)
    # small-print serif text on saturated fills: at most one character in ten wrong overall
    assert errors <= 0.1 * total, (errors, total)


class _Fixed:
    """An engine whose readings are given (the rule is tested on its inputs, not an OCR model)."""

    name = "fixed"

    def __init__(self, readings: list[Reading]) -> None:
        self.readings = readings
        self.calls = 0

    def read(self, crops):
        self.calls += 1
        return self.readings


def test_small_print_takes_the_learned_reading_unless_the_kept_one_is_surer():
    crop = TextCrop(np.zeros((30, 30), np.uint8))
    kept = [Reading([(0, 0, 9, "Agmily")], 0.55, "tesseract"), Reading([(0, 0, 9, "Start")], 0.97, "tesseract"),
            Reading(), Reading()]
    learned = [Reading([(0, 0, 9, "Apply")], 0.9, "textrec"), Reading([(0, 0, 9, "Stant")], 0.6, "textrec"),
               Reading([(0, 0, 9, "End")], 0.8, "textrec"), Reading()]
    engine = _Fixed(learned)
    out = learned_opinion([crop, crop, crop, None], kept, lambda: engine, SMALL_PRINT_BELOW - 4)
    assert [r.engine for r in out] == ["textrec", "tesseract", "textrec", ""]
    surer = Reading([(0, 0, 9, "Stant")], 0.85, "textrec")
    assert not prefer_learned(kept[1], surer) and prefer_learned(kept[1], surer, margin=0.5)  # a margin lets it win closer calls
    assert not prefer_learned(kept[0], Reading(), margin=1.0)  # reading nothing never wins
    # print of ordinary size, an unknown line height, or no engine: nothing changes
    for height, factory in ((SMALL_PRINT_BELOW, lambda: engine), (None, lambda: engine),
                            (SMALL_PRINT_FROM - 1, lambda: engine), (10.0, lambda: None)):
        assert learned_opinion([crop] * 4, kept, factory, height) == kept
    assert engine.calls == 1


def test_a_chart_measured_at_eight_point_three_px_is_small_print():
    # 10-px fonts in small wild rasters (PlantUML charts scaled to ~0.67) measure 8.3 px
    # (`crops.median_line_height`: 75th-percentile glyph of 6 px) as often as 9.7: that is the
    # print the learned recogniser was trained for, so it is asked there too
    crop = TextCrop(np.zeros((30, 30), np.uint8))
    kept = [Reading([(0, 0, 9, "Agmily")], 0.55, "tesseract")]
    engine = _Fixed([Reading([(0, 0, 9, "Apply")], 0.9, "textrec")])
    assert learned_opinion([crop], kept, lambda: engine, 6 / 0.72)[0].engine == "textrec"


def test_the_learned_reading_must_reach_the_kept_confidence_plus_its_engines_margin():
    # each engine's confidences run on their own scale: the margin of the engine that read the kept
    # reading shifts the learned confidence before the two are compared
    learned = Reading([(0, 0, 9, "Apply")], 0.85, "textrec")
    for engine, margin in LEARNED_MARGIN.items():
        assert prefer_learned(Reading([(0, 0, 9, "Agply")], 0.85 + margin - 0.01, engine), learned)
        assert not prefer_learned(Reading([(0, 0, 9, "Agply")], 0.85 + margin + 0.01, engine), learned)
    # an unsure learned reading (handwriting) never wins, however unsure the kept one is
    unsure = Reading([(0, 0, 9, "Aeply")], LEARNED_FLOOR - 0.05, "textrec")
    assert not prefer_learned(Reading([(0, 0, 9, "A")], 0.1, "rapidocr"), unsure)


@require_torch
@require_tesserocr
@needs_serif
def test_the_transcriber_asks_the_learned_engine_only_for_small_print():
    from flowpath.transcribe.ocr import OCRTranscriber

    tr = OCRTranscriber(learned=True, workers=1)
    tr._learned, _ = _tiny_engine()  # a real (random-init) recogniser in place of the shipped one
    crop = to_text_crop(_small_print("Is the dough ready?", 11, (40, 96, 170), (255, 255, 255), 60), None,
                        line_height=11.0)
    ordinary = tr.read([crop, None], line_height=SMALL_PRINT_BELOW + 2)
    assert all(r.engine != "textrec" for r in ordinary)  # tesseract (or rapidocr, on doubt)
    small = tr.read([crop, None], line_height=11.0)
    assert small[1].engine != "textrec" and not small[1].words  # no crop: nothing read by anyone
    learned = tr._learned.read([crop])[0]
    # the learned reading is kept exactly when the rule prefers it over tesseract's
    assert (small[0].engine == "textrec") == prefer_learned(ordinary[0], learned)
    assert OCRTranscriber(learned=False, workers=1).read([crop], line_height=11.0)[0].engine != "textrec"


#: a script run in a fresh interpreter: transcribes charts drawn at the given text sizes with the
#: default `OCRTranscriber` and prints what was read, the line height, the warnings and whether
#: torch was imported (a fresh process: the one-time note and ``sys.modules`` start empty)
_DEFAULT_RUN = """
import logging, sys
if {hide_torch}:
    sys.modules["torch"] = None  # as if torch were not installed
logging.basicConfig(level=logging.WARNING, format="NOTE %(message)s", stream=sys.stdout)
import numpy as np
from PIL import Image, ImageDraw, ImageFont
from flowpath.geometry import Region
from flowpath.models.base import LabelledChart
from flowpath.transcribe.ocr import OCRTranscriber

def chart(size):
    img = Image.new("RGB", (360, 60 + 5 * size), "white")
    draw, font = ImageDraw.Draw(img), ImageFont.truetype({font!r}, size)
    boxes = [(10, 10, 170, 30 + 2 * size), (190, 10, 350, 30 + 2 * size)]
    for box, text in zip(boxes, ["Check the water", "Apply the leaves"]):
        draw.rectangle(box, outline="black", width=2)
        draw.text(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), text, fill="black", font=font, anchor="mm")
    arr = np.asarray(img).copy()
    return LabelledChart(arr, arr, {{chr(65 + i): Region(tuple(map(float, b))) for i, b in enumerate(boxes)}})

for tr in (OCRTranscriber(workers=1), OCRTranscriber(workers=1)):
    for size in {sizes}:
        out = tr([chart(size)])[0]
        print("READ", out.meta["line_height"], "|".join(n.text for n in out.chart.nodes.values()))
print("TORCH", sys.modules.get("torch") is not None)
"""


def _default_run(sizes: tuple[int, ...], hide_torch: bool) -> tuple[list[tuple[float, str]], list[str], bool]:
    import subprocess
    import sys

    from tests.markers import REPO_ROOT

    code = _DEFAULT_RUN.format(hide_torch=hide_torch, font=_SERIF, sizes=sizes)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT,
                          timeout=300, check=True)
    lines = done.stdout.splitlines()
    reads = [(float(ln.split()[1]), ln.split(maxsplit=2)[2]) for ln in lines if ln.startswith("READ ")]
    notes = [ln for ln in lines if ln.startswith("NOTE ")]
    return reads, notes, lines[-1] == "TORCH True"


@require_tesserocr
@needs_serif
def test_without_torch_the_default_reads_small_print_and_says_so_once():
    reads, notes, torch_loaded = _default_run((11,), hide_torch=True)
    assert len(reads) == 2 and not torch_loaded
    for line_px, text in reads:
        assert SMALL_PRINT_FROM <= line_px < SMALL_PRINT_BELOW  # the learned step was due
        assert "water" in text.lower() and "leaves" in text.lower()  # tesseract read it all the same
    # one note for the whole process (two transcribers, two charts), naming the extra and the opt-out
    assert len(notes) == 1 and "flowpath[models]" in notes[0] and "learned=false" in notes[0]


@require_torch
@require_tesserocr
@needs_serif
def test_the_default_imports_torch_only_for_small_print():
    reads, notes, torch_loaded = _default_run((22,), hide_torch=False)
    assert all(line_px >= SMALL_PRINT_BELOW for line_px, _ in reads) and not notes
    assert not torch_loaded  # ordinary print: no torch import, no model load
    reads, notes, torch_loaded = _default_run((11,), hide_torch=False)
    assert all(SMALL_PRINT_FROM <= line_px < SMALL_PRINT_BELOW for line_px, _ in reads) and not notes
    assert torch_loaded


@needs_serif
def test_a_ten_px_web_font_is_small_print_for_the_learned_step():
    # wild web charts draw node text at ~10 px (a sans face; this serif one at 8 px has the same
    # 6-px glyphs); the chart's line height, measured from its glyphs, is then 8.3 px, and at
    # that height the learned recogniser is asked too
    from flowpath.transcribe.ocr.crops import color_distance, median_line_height

    rgb = _small_print("Heat the oven to 350 degrees", 8, (250, 250, 250), (0, 0, 0), 90)
    ink = color_distance(rgb, np.array([250.0, 250.0, 250.0])) > 60
    line_px = median_line_height([ink, ink])
    assert line_px is not None and line_px < 9
    crop = TextCrop(np.zeros((30, 30), np.uint8))
    kept = [Reading([(0, 0, 9, "Heat te oven")], 0.5, "tesseract")]
    engine = _Fixed([Reading([(0, 0, 9, "Heat the oven")], 0.95, "textrec")])
    out = learned_opinion([crop], kept, lambda: engine, line_px)
    assert engine.calls == 1 and out[0].engine == "textrec"


_NARROW = "/usr/share/fonts/truetype/liberation/LiberationSansNarrow-Regular.ttf"


def _blurred_small_chart(sigma: float):
    """Two nodes of 7-px Liberation Sans Narrow on a green fill, Gaussian-blurred by ``sigma`` px
    and saved as JPEG 70: the wild look's degrade pass (`data_gen.augment`) on its smallest print."""
    return green_node_chart(["Check the water level", "Apply the leaves"], _NARROW, 7, (360, 95),
                            [(10, 10, 170, 44), (190, 10, 350, 44)], sigma)


@require_torch
@require_tesserocr
@pytest.mark.skipif(not Path(_NARROW).is_file(), reason="needs the Debian font fonts-liberation")
def test_blurred_print_measured_under_eight_px_is_read_by_the_learned_recogniser():
    # a blur leaves 10-px-looking glyphs only a 5-px core over the ink bar: the chart measures
    # 6.9 px, under SMALL_PRINT_FROM, yet it is the blurred print the recogniser reads best;
    # its ink is all strong ink (`crops.strong_ink_share`), so the window opens lower there
    from flowpath.transcribe.ocr import OCRTranscriber

    # the learned step alone: on blurred charts the grey step after it hands the grey crops to
    # the blur specialist, whose reading is the default there (tests/transcribe/test_grey_print.py)
    tr = OCRTranscriber(workers=1, grey=False)
    blurred = tr([_blurred_small_chart(0.5)])[0]
    assert blurred.meta["line_height"] < SMALL_PRINT_FROM
    assert "textrec" in blurred.meta["node_engines"].values()
    # the same print unblurred measures as small, but it has an anti-aliased rim: clean 7-px
    # renders stay with tesseract (they are read better by it, textrec9_clean)
    clean = tr([_blurred_small_chart(0.0)])[0]
    assert clean.meta["line_height"] < SMALL_PRINT_FROM
    assert "textrec" not in clean.meta["node_engines"].values()
