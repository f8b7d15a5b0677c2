"""Test-only pipeline components built from known geometry (no real segmenter/transcriber).

They let the API and batch tests run in milliseconds; the end-to-end test uses the real
defaults instead.
"""

from __future__ import annotations

import numpy as np

from flowpath.geometry import Region
from flowpath.graph import FlowChart
from flowpath.models.base import LabelledChart, Segmenter, Transcriber, Transcription

# a 3-node chart: Start -> Check the value -> Print the result
BOXES = [(60, 20, 240, 70), (60, 120, 240, 170), (60, 220, 240, 270)]
TEXTS = ["Start", "Check the value", "Print the result"]


def draw_chart(size: tuple[int, int] = (300, 300), shift: int = 0) -> np.ndarray:
    """A small chart drawn with PIL: three boxes with text and arrows between them."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", size, "white")
    d = ImageDraw.Draw(img)
    for (x0, y0, x1, y1), text in zip(BOXES, TEXTS, strict=True):
        d.rectangle([x0 + shift, y0, x1 + shift, y1], outline="black", width=2, fill=(236, 236, 255))
        d.text((x0 + shift + 10, y0 + 18), text, fill="black")
    for (_, _, _, y1), (_, y0n, _, _) in zip(BOXES, BOXES[1:], strict=False):
        d.line([(150 + shift, y1), (150 + shift, y0n)], fill="black", width=2)
    return np.asarray(img)


class BoxSegmenter(Segmenter):
    """Returns `BOXES` (in reverse order, to exercise the labeller's reading order)."""

    name = "test-boxes"

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, images: list[np.ndarray]) -> list[list[Region]]:
        self.calls += len(images)
        return [[Region(b) for b in reversed(BOXES)] for _ in images]


class ChainTranscriber(Transcriber):
    """Knows the chart: letters in reading order are Start, Check, Print, chained."""

    name = "test-chain"

    def __call__(self, charts: list[LabelledChart]) -> list[Transcription]:
        out = []
        for c in charts:
            letters = list(c.regions)
            texts = dict(zip(letters, TEXTS, strict=False))
            chart = FlowChart.from_edges(list(zip(letters, letters[1:], strict=False)), texts)
            mermaid = "flowchart TD\n" + "\n".join(f"    {a} --> {b}" for a, b in zip(letters, letters[1:], strict=False))
            out.append(Transcription(mermaid=mermaid, chart=chart))
        return out
