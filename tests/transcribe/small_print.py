"""Small-print charts drawn for the transcription tests: nodes of small type on a green fill with a
darker border of the same hue, Gaussian-blurred and saved as JPEG 70 (the wild look's degrade pass,
`data_gen.augment`, on its smallest print). One home for the tests that read blurred small print."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont


def green_node_chart(texts: Sequence[str], font: str, size: int, canvas: tuple[int, int],
                     boxes: Sequence[tuple[int, int, int, int]], sigma: float):
    """A `LabelledChart` of ``texts`` in ``font`` at ``size`` px, one per box of ``boxes`` (nodes
    A, B, ... in order) on a ``canvas`` (width, height) image, blurred by ``sigma`` px (none at 0)."""
    from flowpath.geometry import Region
    from flowpath.models.base import LabelledChart

    img = Image.new("RGB", canvas, (232, 232, 232))
    draw, face = ImageDraw.Draw(img), ImageFont.truetype(font, size)
    for box, text in zip(boxes, texts, strict=True):
        draw.rectangle(box, outline=(4, 97, 50), width=2, fill=(120, 200, 140))
        draw.text(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), text, fill="black", font=face, anchor="mm")
    if sigma:
        img = img.filter(ImageFilter.GaussianBlur(sigma))
    ok, enc = cv2.imencode(".jpg", np.asarray(img)[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, 70])
    assert ok
    arr = cv2.imdecode(enc, cv2.IMREAD_COLOR)[:, :, ::-1].copy()
    return LabelledChart(arr, arr, {chr(65 + i): Region(tuple(map(float, b))) for i, b in enumerate(boxes)})
