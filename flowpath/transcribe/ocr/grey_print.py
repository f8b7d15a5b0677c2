"""Blurred small print read from the uncleaned grey crop (issue 14, eleventh stretch).

Every engine reads the cleaned crops (`crops.to_text_crop`) of blurred ~10-px print badly. The
grey-input recogniser (`recogniser.GREY_MODEL_DIR`: the learned line recogniser's network
fine-tuned on uncleaned grey lines, `crops.to_grey_crop`) reads the same node box without the
cleaning. This is its rule, a step after `choice.learned_opinion`: on charts in its window (text
line height in [`GREY_FROM`, `GREY_BELOW`) px), the grey reading replaces the kept one where
`choice.prefer_learned` says so with `GREY_MARGIN` and `GREY_FLOOR`; on blurred charts among them
(`is_blurred`: the glyphs' edges less sharp than `BLURRED_BELOW`, `crops.stroke_sharpness`) the
grey reading is the default (`BLURRED_GREY_MARGIN`) and the cleaned crop's readings stand only
where it is under its floor. On blurred charts a specialist may read in the grey model's place
(`BLUR_SPECIALIST`, `recogniser.BLUR_MODEL_DIR`).
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
#: ...and at least this (`choice.BLURRED_SMALL_PRINT_FROM`: blurred 10-px print measures 6.9 px),
#: with no blur gate (twelfth stretch). The eleventh stretch read only charts whose strong-ink share
#: was at least 0.8; measured again with `eval/grey_rule_sweep.py` on today's code, reading every
#: small-print chart gained more on most tuning sets: textrec10_gv 0.8702 -> 0.8722, pumlword10_a 0.9116 -> 0.9147, pumlword10_b
#: 0.8783 -> 0.8826, gvword9_mp 0.8798 -> 0.8817, pumlword9_smallclean 0.8932 -> 0.8973,
#: fjsedge10_fjs 0.9482 -> 0.9497, textrec9_clean 0.9337 -> 0.9338, textrec9_hand 0.8921 equal;
#: lower on textrec10_puml 0.8323 -> 0.8311, pumlgate12_puml 0.9659 -> 0.9653, pumlgate12_gv
#: 0.7875 -> 0.7847, fjslabel10_fjs 0.9238 -> 0.9232. A gate on `crops.stroke_sharpness` (under
#: 2.6-3.5) gained less than either (the grey reading gains on sharp small print too)
GREY_FROM = 6.5
#: added to the grey reading's confidence before it is compared with the kept one. 0: 0.1 (the
#: grey reading taken on a near tie) gained a little more on the wild sets (textrec10_puml 0.8323
#: vs 0.8288, gvword9_mp 0.8840 vs 0.8734) but lowered wild flowchart.js tuning sets
#: (fjsedge10_fjs 0.9455 -> 0.9450, fjslabel10_fjs 0.9203 -> 0.9198; margin 0: 0.9457, 0.9214)
GREY_MARGIN = 0.0
#: a grey reading less confident than this never wins (0.8 lowered every wild set by 0.001-0.011)
GREY_FLOOR = 0.7
#: a chart is blurred when its glyph edges are less sharp than this (`crops.stroke_sharpness`, 1/px):
#: tuning charts blurred by sigma >= 0.6 px measure 1.0-2.8, unblurred ones 3.0-5.3
BLURRED_BELOW = 3.0
#: on blurred charts the grey reading is the default: it replaces the kept one wherever it reaches
#: `GREY_FLOOR`. Chosen with `eval/grey_rule_sweep.py` (margin 0 / 0.2 / 1 on blurred charts, floor
#: 0.7 / 0.4; margins 0.2 and 1 chose the same everywhere): against margin 0, textrec10_gv 0.8722 ->
#: 0.8782, gvword9_mp 0.8817 -> 0.8849, pumlword10_b 0.8826 -> 0.8837, but pumlgate12_gv 0.7847 ->
#: 0.7824, fjslabel10_fjs 0.9232 -> 0.9227; textrec10_puml, pumlword10_a, pumlgate12_puml equal; the
#: guards (sharper than the bound) unchanged. Floor 0.4 lowered most sets. A weak gain: per chart 9
#: up, 8 down on those eight sets
BLURRED_GREY_MARGIN = float("inf")
#: the blur specialist (`recogniser.BLUR_MODEL_DIR`, thirteenth stretch) reads the grey crops of
#: blurred charts in the grey model's place: its weights see only blurred charts, so sharp charts
#: cannot move by construction. The default of `OCRTranscriber(blur_model=...)`; without its weights
#: the grey model reads them as before. On: full pipeline (`eval/learned_rule_pipeline_sweep.py
#: BLUR_MODELS`), off -> on, textrec10_puml 0.8600 -> 0.8629, textrec10_gv 0.9161 -> 0.9170,
#: pumlword10_a 0.9294 -> 0.9340, pumlword10_b 0.8868 -> 0.8896, gvword9_mp 0.9206 -> 0.9269,
#: textrec9_mmd 0.9543 -> 0.9591, fjslabel10_fjs 0.9290 -> 0.9312, fjsedge10_fjs 0.9584 -> 0.9598;
#: pumlword9_smallclean, textrec9_clean, textrec9_hand: no chart gated (equal)
BLUR_SPECIALIST = True


def in_grey_window(line_height: float | None, *, low: float = GREY_FROM, below: float = GREY_BELOW) -> bool:
    """Whether a chart's node text is read from its grey crops too (see the module docstring)."""
    return line_height is not None and low <= line_height < below


def is_blurred(sharpness: float | None, *, below: float = BLURRED_BELOW) -> bool:
    """Whether a chart's text is blurred: its `crops.stroke_sharpness` is under ``below``."""
    return sharpness is not None and sharpness < below


def grey_margin(sharpness: float | None) -> float:
    """The margin of the grey reading on a chart whose text is this sharp: `BLURRED_GREY_MARGIN` on
    blurred charts (the grey reading the default), `GREY_MARGIN` elsewhere."""
    return BLURRED_GREY_MARGIN if is_blurred(sharpness) else GREY_MARGIN


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
