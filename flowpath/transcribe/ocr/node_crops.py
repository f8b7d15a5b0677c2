"""The OCR transcriber's node crops for known node regions, recorded as it cuts them.

Why this is in the library: building training lines from real renders
(`training/render_lines.py`) and the per-node text studies (`eval/ocr_node_readings.py`,
`eval/grey_crop_readings.py`, `eval/blur_measures.py`) all need the node crops exactly as
`OCRTranscriber` cuts them at inference (the node interior, the chart's line height, the
cleaning of `crops.to_text_crop`), with what they were cut from and the chart measures taken on
the way. Training may not import the evaluation scripts, so the one loop that labels the regions,
runs the transcriber's node step and records all that lives here, beside the transcriber it
replays. It runs steps 1 and 2 of `OCRTranscriber.transcribe` (foreground, node crops and their
reading); edges are not traced.

While `record_node_crops` runs it swaps the transcriber module's crop and measure functions for
recording wrappers: not for a transcriber running in another thread at the same time.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from flowpath.geometry import Region
from flowpath.transcribe.ocr import transcriber as transcriber_module
from flowpath.transcribe.ocr.choice import SMALL_PRINT_FROM
from flowpath.transcribe.ocr.crops import TextCrop, to_grey_crop
from flowpath.transcribe.ocr.engines import Reading
from flowpath.transcribe.ocr.transcriber import OCRTranscriber

#: the chart measures the transcriber takes while cutting node crops, recorded by name as they
#: return (`crops.chart_line_height` may return None: the transcriber then falls back on the
#: node size; `crops.stroke_sharpness` is taken on small print only)
MEASURES = ("chart_line_height", "strong_ink_share", "stroke_sharpness")


@dataclass
class NodeCrop:
    """One node's crop as the transcriber cuts it.

    ``crop``: the cleaned crop the engines read (`crops.to_text_crop`; None where the node has
    no interior or no ink). ``source``: what it was cut from, ``(colour pixels, interior mask,
    line height)`` (copies; None with no crop), so the same box can be cleaned another way."""

    node: str
    crop: TextCrop | None
    source: tuple[np.ndarray, np.ndarray | None, float | None] | None

    def grey(self) -> TextCrop | None:
        """The same box as the grey recogniser's input (`crops.to_grey_crop`); None with no crop."""
        if self.source is None:
            return None
        rgb, mask, line_height = self.source
        return to_grey_crop(rgb, mask, line_height=line_height)


@dataclass
class ChartCrops:
    """A chart's node crops in the transcriber's reading order, the line height it read them
    at, its readings (empty ones unless recorded with ``read=True``) and the chart measures
    (`MEASURES`, by name; a measure not taken is absent)."""

    nodes: list[NodeCrop]
    line_height: float | None
    readings: list[Reading]
    measures: dict[str, Any] = field(default_factory=dict)


def crop_recorder() -> OCRTranscriber:
    """A transcriber for `record_node_crops` when nothing is read: tesseract only, no learned
    or grey recogniser, one worker."""
    return OCRTranscriber(engine="tesseract", learned=False, grey=False, workers=1)


@contextmanager
def _recording(transcriber: OCRTranscriber, read: bool) -> Iterator[tuple[dict[int, Any], dict[str, Any], list[Any]]]:
    """While open: every `to_text_crop` the transcriber module makes is remembered by the
    crop's id with its source, every measure of `MEASURES` by name, and what ``transcriber``'s
    read step is handed and returns (``read=False``: it reads nothing and returns empty
    readings)."""
    sources: dict[int, Any] = {}
    measures: dict[str, Any] = {}
    handed: list[Any] = []  # (crops, line height, readings) of the read step
    real = {name: getattr(transcriber_module, name) for name in ("to_text_crop", *MEASURES)}

    def recording_crop(rgb: np.ndarray, mask: np.ndarray | None = None, **kw: Any) -> TextCrop | None:
        crop = real["to_text_crop"](rgb, mask, **kw)
        if crop is not None:
            sources[id(crop)] = (rgb.copy(), None if mask is None else mask.copy(), kw.get("line_height"))
        return crop

    def measuring(name: str) -> Any:
        def measure(*args: Any) -> Any:
            measures[name] = real[name](*args)
            return measures[name]
        return measure

    real_read = transcriber.read
    own_read = transcriber.__dict__.get("read")  # a read set on the instance itself

    def recording_read(crops: list[TextCrop | None], line_height: float | None = None,
                       small_from: float = SMALL_PRINT_FROM) -> list[Reading]:
        readings = real_read(crops, line_height, small_from) if read else [Reading() for _ in crops]
        handed.append((list(crops), line_height, readings))
        return readings

    transcriber_module.to_text_crop = recording_crop  # type: ignore[assignment]
    for name in MEASURES:
        setattr(transcriber_module, name, measuring(name))
    transcriber.read = recording_read  # type: ignore[method-assign]
    try:
        yield sources, measures, handed
    finally:
        for name, fn in real.items():
            setattr(transcriber_module, name, fn)
        if own_read is None:
            del transcriber.read  # the class's read again
        else:
            transcriber.read = own_read  # type: ignore[method-assign]


def record_node_crops(image: Any, regions: dict[str, Region], transcriber: OCRTranscriber | None = None,
                      *, read: bool = False) -> ChartCrops:
    """Label ``regions`` (node id -> `Region`) on ``image`` and cut their node crops as
    ``transcriber`` (default `crop_recorder`) cuts them; with ``read`` its read step runs as
    configured and its readings are recorded, otherwise no engine runs."""
    from flowpath.io import load_image
    from flowpath.labeller import draw_labels
    from flowpath.models.base import LabelledChart

    tr = transcriber if transcriber is not None else crop_recorder()
    ids = list(regions)
    if not ids:
        return ChartCrops([], None, [])
    labelled, letter_regions = draw_labels(image, [regions[k] for k in ids], names=ids)
    chart = LabelledChart(image, labelled, letter_regions, "")
    with _recording(tr, read) as (sources, measures, handed):
        page = tr._foreground(load_image(chart.image, name="record_node_crops image"), chart)
        tr._nodes(page).reading.result()
    crops, line_height, readings = handed[0]
    nodes = [NodeCrop(node, crop, None if crop is None else sources.get(id(crop)))
             for node, crop in zip(letter_regions, crops, strict=True)]
    return ChartCrops(nodes, line_height, readings, measures)
