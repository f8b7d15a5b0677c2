"""Blurred small print read from the uncleaned grey crop (issue 14, eleventh stretch).

Every engine reads the cleaned crops (`crops.to_text_crop`) of blurred ~10-px print badly. The
grey-input recogniser (`recogniser.GREY_MODEL_DIR`: the learned line recogniser's network
fine-tuned on uncleaned grey lines, `crops.to_grey_crop`) reads the same node box without the
cleaning. This is its rule, a step after `choice.learned_opinion`: on charts in its window (text
line height in [`GREY_FROM`, `GREY_BELOW`) px and, when `GREY_SHARE_FROM` > 0, blurred: that share
of the text ink is strong ink, `crops.strong_ink_share`), the grey reading replaces the kept one
where `choice.prefer_learned` says so with `GREY_MARGIN` and `GREY_FLOOR`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from flowpath.transcribe.ocr.choice import prefer_learned

if TYPE_CHECKING:
    from flowpath.transcribe.ocr.crops import TextCrop
    from flowpath.transcribe.ocr.engines import OCREngine, Reading

#: the grey reading is taken on charts whose text line height (px) is below this...
GREY_BELOW = 14.0
#: ...and at least this
GREY_FROM = 6.5
#: ...and whose strong-ink share (`crops.strong_ink_share`) is at least this (0: any chart)
GREY_SHARE_FROM = 0.9
#: added to the grey reading's confidence before it is compared with the kept one
GREY_MARGIN = 0.0
#: a grey reading less confident than this never wins
GREY_FLOOR = 0.7


def in_grey_window(line_height: float | None, strong_share: float | None, *, low: float = GREY_FROM,
                   below: float = GREY_BELOW, share_from: float = GREY_SHARE_FROM) -> bool:
    """Whether a chart's node text is read from its grey crops too (see the module docstring)."""
    if line_height is None or not low <= line_height < below:
        return False
    return share_from <= 0 or (strong_share is not None and strong_share >= share_from)


def grey_opinion(grey_crops: Sequence[TextCrop | None], readings: Sequence[Reading],
                 engine: Callable[[], OCREngine | None], *, margin: float = GREY_MARGIN,
                 floor: float = GREY_FLOOR) -> list[Reading]:
    """The grey recogniser reads ``grey_crops`` (one per node, None: no ink) and its reading
    replaces ``readings``' where `choice.prefer_learned` (``margin``, ``floor``) says so; the
    reading not kept is noted on the kept one (the chart's words for spelling)."""
    if not any(g is not None for g in grey_crops):
        return list(readings)
    grey = engine()
    if grey is None:
        return list(readings)
    again = grey.read(grey_crops)
    return [a if g is None else b.noting(a) if prefer_learned(a, b, margin=margin, floor=floor) else a.noting(b)
            for g, a, b in zip(grey_crops, readings, again, strict=True)]
