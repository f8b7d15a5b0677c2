"""`node_crops.record_node_crops`: the node crops the transcriber's read step is handed, their
sources and the chart measures, recorded without running an engine (or with it, when asked);
the transcriber module is left as it was. Real tesseract, a drawn chart (no mocks)."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from flowpath.geometry import Region
from tests.transcribe.markers import require_tesserocr

pytestmark = require_tesserocr


def _chart() -> tuple[np.ndarray, dict[str, Region]]:
    """Three labelled boxes and a region too small to have an interior (no crop)."""
    img = Image.new("RGB", (620, 260), "white")
    d = ImageDraw.Draw(img)
    try:
        font: ImageFont.FreeTypeFont | ImageFont.ImageFont = ImageFont.truetype("DejaVuSans.ttf", 20)
    except OSError:
        font = ImageFont.load_default()
    boxes = {"s1": (20, 20, 220, 80), "s2": (300, 20, 560, 80), "s3": (20, 160, 260, 230)}
    for name, text in (("s1", "Mix flour"), ("s2", "Knead dough"), ("s3", "Bake it")):
        d.rectangle(boxes[name], fill="#fff8dc", outline="black", width=2)
        d.text((boxes[name][0] + 16, boxes[name][1] + 20), text, fill="black", font=font)
    regions = {k: Region(tuple(float(v) for v in b)) for k, b in boxes.items()}
    regions["tiny"] = Region((400.0, 200.0, 402.0, 202.0))
    return np.array(img), regions


def test_the_crops_are_those_the_read_step_is_handed_and_nothing_is_read():
    from flowpath.labeller import draw_labels
    from flowpath.models.base import LabelledChart
    from flowpath.transcribe.ocr import OCRTranscriber
    from flowpath.transcribe.ocr import transcriber as transcriber_module
    from flowpath.transcribe.ocr.crops import to_grey_crop, to_text_crop
    from flowpath.transcribe.ocr.node_crops import crop_recorder, record_node_crops

    image, regions = _chart()
    handed = []

    class Watching(OCRTranscriber):
        def read(self, crops, line_height=None, *args):
            handed.append((list(crops), line_height))
            return super().read(crops, line_height, *args)

    ids = list(regions)
    labelled, letter_regions = draw_labels(image, [regions[k] for k in ids], names=ids)
    Watching(engine="tesseract", learned=False, grey=False).transcribe(LabelledChart(image, labelled, letter_regions))
    expected, line_height = handed[0]

    recorder = crop_recorder()
    cut = record_node_crops(image, regions, recorder)
    assert [n.node for n in cut.nodes] == list(letter_regions)
    assert cut.line_height == line_height
    assert cut.measures["chart_line_height"] is not None and 0 <= cut.measures["strong_ink_share"] <= 1
    assert all(not r.words for r in cut.readings)  # no engine ran
    for node, crop in zip(cut.nodes, expected, strict=True):
        if crop is None:
            assert node.crop is None and node.source is None and node.grey() is None
            continue
        np.testing.assert_array_equal(node.crop.image, crop.image)
        rgb, mask, height = node.source
        assert height == line_height
        np.testing.assert_array_equal(to_text_crop(rgb, mask, line_height=height).image, crop.image)
        np.testing.assert_array_equal(node.grey().image, to_grey_crop(rgb, mask, line_height=height).image)
    assert sum(n.crop is None for n in cut.nodes) == 1  # the tiny region
    # the transcriber module and the transcriber are as they were
    assert transcriber_module.to_text_crop is to_text_crop
    assert "read" not in recorder.__dict__


def test_with_read_the_transcriber_s_own_readings_are_recorded():
    from flowpath.transcribe.ocr import OCRTranscriber
    from flowpath.transcribe.ocr.node_crops import record_node_crops

    image, regions = _chart()
    cut = record_node_crops(image, regions, OCRTranscriber(engine="tesseract", learned=False), read=True)
    texts = {n.node: " ".join(w[3] for w in r.words) for n, r in zip(cut.nodes, cut.readings, strict=True)}
    assert "Knead" in texts["s2"] and "Bake" in texts["s3"]
