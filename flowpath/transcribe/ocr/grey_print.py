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

#: the grey reading is taken on charts whose text line height (px) is below this (the small-print
#: bound of `choice.SMALL_PRINT_BELOW` and `crops.SMALL_LINE`)...
GREY_BELOW = 14.0
#: ...and at least this (`choice.BLURRED_SMALL_PRINT_FROM`: blurred 10-px print measures 6.9 px)...
GREY_FROM = 6.5
#: ...and whose strong-ink share (`crops.strong_ink_share`, a blur measure) is at least this (0:
#: any chart). Chosen with the margin and floor below on full-pipeline word F1 of tuning sets
#: (`eval/grey_rule_sweep.py`, eleventh stretch; share 0 / 0.8 / 0.9, margin 0 / 0.1 / 0.2, floor
#: 0.7 / 0.8): 0.8 is just over clean charts' 90th percentile (0.79); share 0 (every small-print
#: chart) lowered the clean guard textrec9_clean 0.9272 -> 0.9243, 0.9 gained less on wild
#: Graphviz (textrec10_gv 0.8581 vs 0.8656) and PlantUML (pumlword10_a/_b equal)
GREY_SHARE_FROM = 0.8
#: added to the grey reading's confidence before it is compared with the kept one. 0: 0.1 (the
#: grey reading taken on a near tie) gained a little more on the wild sets (textrec10_puml 0.8323
#: vs 0.8288, gvword9_mp 0.8840 vs 0.8734) but lowered wild flowchart.js tuning sets
#: (fjsedge10_fjs 0.9455 -> 0.9450, fjslabel10_fjs 0.9203 -> 0.9198; margin 0: 0.9457, 0.9214)
GREY_MARGIN = 0.0
#: a grey reading less confident than this never wins (0.8 lowered every wild set by 0.001-0.011)
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
