"""Which OCR engine reads which node: tesseract (print), rapidocr (handwriting), the learned
line recogniser (small print).

The rule (docs/transcription.md, "Choosing the engine"), applied to one chart's node crops
after tesseract has read them all:

1. **Per chart**: a chart whose nodes tesseract reads with a median confidence below
   ``CHART_BELOW`` is handwritten (a print engine is unsure of most of its words); every node of
   it is read by rapidocr, and rapidocr's reading is kept wherever its confidence reaches
   ``HAND_KEEP_AT`` (tesseract is often confidently wrong on handwriting, so the two
   confidences are not compared; the floor keeps tesseract where rapidocr read junk).
2. **Per crop**, on the other charts: a node tesseract read with a confidence below
   ``CROP_BELOW`` (or not at all) is read by rapidocr too, and the more confident reading is
   kept (tesseract's 0-100 scaled to 0-1, rapidocr's line score).

3. **Small print** (issue 14; on by default, `OCRTranscriber(learned=False)` turns it off): when
   the chart's text lines are shorter than ``SMALL_PRINT_BELOW`` px but not under
   ``SMALL_PRINT_FROM`` (web images whose 10-px serif text tesseract's fast model misreads),
   the learned line recogniser (`flowpath.transcribe.ocr.recogniser`) reads every node and its
   reading replaces the one kept so far where `prefer_learned` says so (`learned_opinion`).
   It runs on charts step 1 took as handwritten too: half of the wild Graphviz tuning charts
   are among them (tesseract doubts their blurred print), and there it gains most; its floor
   keeps it off handwriting.

Clean renders are read confidently by tesseract and their lines are taller, so no step sends
them to a slower engine. The thresholds were chosen per node on a generated hand-drawn tuning set drawn in the train
handwriting fonts (never the eval set's held-out ones), generated clean renders and the
wild-look tuning set (`eval/ocr_node_readings.py`; docs/transcription.md has the figures).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flowpath.transcribe.ocr.crops import TextCrop
    from flowpath.transcribe.ocr.engines import OCREngine, RapidOCREngine, Reading

#: median tesseract node confidence (0-1) under which a chart is taken as handwritten: the
#: highest value under every print chart measured (generated clean renders 0.96-0.97,
#: febench_dev as a cost check: lowest chart 0.798), so that print keeps tesseract alone
CHART_BELOW = 0.79
#: tesseract confidence (0-1) under which one node of a print chart is read again
CROP_BELOW = 0.6
#: rapidocr line confidence (0-1) from which its reading replaces tesseract's on a handwritten chart
HAND_KEEP_AT = 0.5
#: charts whose text line height (px, `crops.median_line_height`) is below this are small print,
#: read by the learned recogniser too (crops.SMALL_LINE: the same bound the crop cleaning uses)
SMALL_PRINT_BELOW = 14.0
#: ...and at least this: smaller lines come from fonts under the smallest size the recogniser was
#: trained on; on clean 7-8 px renders tesseract still wins (textrec9_clean). 8.0, not 8.5 (ninth
#: stretch, chosen by three engineers on their own tuning sets): `median_line_height` measures a
#: 10-10.5 px wild web font (6-px glyphs) as 8.3 px as often as 9.7, and there the learned
#: reading, under `prefer_learned`, gained on every wild tuning set (gold-region node word F1 with
#: spelling: gvword9_a 0.790 -> 0.804, gvword9_b 0.799 -> 0.812, gvword9_mp 0.829 -> 0.844; rule
#: replayed on recorded readings, wild PlantUML pumlword9_a/_b charts at 8.3 px: sharp 0.726 ->
#: 0.773, blurred 0.248 -> 0.295; full pipeline with the weights fine-tuned on 7-11 px wild print:
#: textrec9_gv 0.697 -> 0.718, textrec9_puml 0.870 -> 0.882) and changed nothing on clean renders
#: (gvword9_dgv 0.969; half-scale Mermaid pumlword9_smallclean 0.886 -> 0.889, 7.0: 0.888)
SMALL_PRINT_FROM = 8.0
#: ...or this on blurred charts (`small_print_from`): a blur leaves 10-px glyphs a core of 5 px
#: over the ink bar, so their line measures 6.9 px (tenth stretch: 2 of the 54 blurred, sigma >=
#: 0.5, charts of textrec10_gv/_puml, pumlword10_a/_b, gvword10_a and the guards; 17 measure 8.3).
#: Line heights come in steps of 1/0.72 px (6.9, 8.3): any bound in (5.6, 6.9] is the same
BLURRED_SMALL_PRINT_FROM = 6.5
#: a chart is blurred (or faint) when at least this share of its text ink is strong ink
#: (`crops.strong_ink_share`): a sharp, contrasting glyph has a rim of anti-aliased pixels over the
#: ink bar but under half way to its colour (clean charts: median share 0.66, 90th pct 0.79); a
#: blur lowers the glyph's contrast until only its core clears the bar, and that core is strong
#: (blurred charts: 75th pct 0.996). Chosen on the tuning sets' sub-8-px charts (shares 0.97 and
#: 1.0 blurred; clean 0.74-0.81 and one 0.997): opening the window there, textrec10_gv 0.8456 ->
#: 0.8553, pumlword10_b 0.8673 -> 0.8680, gvword9_mp 0.8526 -> 0.8612, the rest unchanged;
#: opening it on every chart would also lower textrec9_clean 0.9272 -> 0.9265 (a clean 7-px serif
#: chart, share 0.74). Any value in (0.81, 0.97] chooses the same charts
BLURRED_SHARE_FROM = 0.9
#: the learned reading wins where its confidence (mean character probability, 0-1) plus the margin
#: for the engine that read the kept reading reaches the kept reading's confidence. Both 0 since the
#: ninth stretch: with the weights fine-tuned on wild small print the learned reading no longer has
#: to beat tesseract by 0.15 (it was -0.15, chosen on the sixth-stretch weights). Swept with the
#: floor below on full-pipeline word F1 (`eval/learned_rule_pipeline_sweep.py`: the calls of
#: `eval/bench_gen_sets.py` on cached readings; margin -0.15..+0.1, floor 0.6..0.8), (-0.15, 0.8)
#: -> (0, 0.7), wild
#: tuning sets: textrec9_gv 0.718 -> 0.732, gvword9_a 0.811 -> 0.821, gvword9_b 0.824 -> 0.836,
#: gvword9_mp 0.845 -> 0.851, textrec9_puml 0.889 -> 0.897, pumlword9_a 0.862 -> 0.870; guards
#: none lower: gvword9_dgv 0.938 -> 0.939, textrec9_clean 0.926 -> 0.927, textrec9_mmd 0.933 ->
#: 0.938, gvword9_hand 0.921 and textrec9_hand 0.890 unchanged. Margins above 0 gained nothing more
LEARNED_MARGIN: dict[str, float] = {"tesseract": 0.0, "rapidocr": 0.0}
#: and its confidence must reach this: it reads handwriting at 0.4-0.75 (it was trained on print
#: only), small print it reads right at 0.7-1 (fine-tuned weights). 0.7, not 0.8 (same sweep as
#: the margin); 0.65 and 0.6 add +0.001-0.004 more on wild Graphviz but let handwriting in:
#: gvword9_hand 0.921 -> 0.917 / 0.906 (0.7 is the lowest floor that keeps it)
LEARNED_FLOOR = 0.7


@dataclass(frozen=True)
class EngineChoice:
    """The plan for one chart.

    Attributes:
        handwritten: the chart as a whole is taken as handwritten (step 1).
        second: indices of the crops rapidocr reads.
    """

    handwritten: bool
    second: tuple[int, ...]

    def keep_second(self, first_conf: float, second_conf: float, second_read: bool) -> bool:
        """Whether rapidocr's reading replaces tesseract's for a crop in ``second``."""
        if not second_read:
            return False
        return second_conf >= HAND_KEEP_AT if self.handwritten else second_conf > first_conf


def choose_engines(confidences: Sequence[float | None], *, chart_below: float = CHART_BELOW,
                   crop_below: float = CROP_BELOW) -> EngineChoice:
    """The engine plan of one chart from tesseract's confidence per node crop.

    Args:
        confidences: tesseract's mean word confidence (0-1) per crop; 0 where it read
            nothing; None for a crop without ink (never read again).
        chart_below: step 1's threshold on the median over crops with ink.
        crop_below: step 2's per-crop threshold.

    Returns:
        Which crops rapidocr reads, and whether the chart is taken as handwritten.
    """
    inked = [c for c in confidences if c is not None]
    if not inked:
        return EngineChoice(False, ())
    handwritten = statistics.median(inked) < chart_below
    limit = 1.01 if handwritten else crop_below
    return EngineChoice(handwritten, tuple(i for i, c in enumerate(confidences) if c is not None and c < limit))


def second_opinion(crops: Sequence[TextCrop | None], readings: Sequence[Reading],
                   engine: Callable[[], RapidOCREngine | None], *, chart_below: float = CHART_BELOW,
                   crop_below: float = CROP_BELOW) -> list[Reading]:
    """Apply the rule to one chart's node crops, which tesseract has read (``readings``).

    Args:
        crops: the chart's cleaned node crops (None: no ink).
        readings: tesseract's reading of each.
        engine: gives the rapidocr engine, loaded on first need (None when it is not
            installed: tesseract's readings stand).
        chart_below: see `choose_engines`.
        crop_below: see `choose_engines`.

    Returns:
        One reading per crop: on a handwritten chart rapidocr's detector + recogniser
        (`RapidOCREngine.read`: wobbly handwritten lines touch), elsewhere its recogniser
        alone on the doubtful crops (`RapidOCREngine.recognise`, as cheap as it gets).
    """
    plan = choose_engines([None if c is None else r.confidence for c, r in zip(crops, readings, strict=True)],
                          chart_below=chart_below, crop_below=crop_below)
    rapid = engine() if plan.second else None
    if rapid is None:
        return list(readings)
    asked = [crops[i] for i in plan.second]
    again = rapid.read(asked) if plan.handwritten else rapid.recognise(asked)
    out = list(readings)
    for i, r in zip(plan.second, again, strict=True):
        # the reading not kept is noted on the kept one (the chart's words for spelling)
        if plan.keep_second(readings[i].confidence, r.confidence, bool(r.words)):
            out[i] = r.noting(readings[i])
        else:
            out[i] = readings[i].noting(r)
    return out


def prefer_learned(kept: Reading, learned: Reading, *, margin: float | None = None,
                   floor: float = LEARNED_FLOOR) -> bool:
    """Whether the learned recogniser's reading of a small-print node replaces ``kept``.

    ``margin`` (default: `LEARNED_MARGIN` of the engine that read ``kept``, 0 for others) is
    added to the learned reading's confidence before the two are compared; a learned reading
    under ``floor`` never wins.
    """
    if not learned.words or learned.confidence < floor:
        return False
    if margin is None:
        margin = LEARNED_MARGIN.get(kept.engine, 0.0)
    return learned.confidence + margin >= kept.confidence


def small_print_from(strong_share: float | None) -> float:
    """The lowest chart line height (px) the learned recogniser reads (step 3): `SMALL_PRINT_FROM`,
    or `BLURRED_SMALL_PRINT_FROM` for a chart whose text is blurred (``strong_share``, the share of
    its ink that is strong ink, `crops.strong_ink_share`, at least `BLURRED_SHARE_FROM`)."""
    if strong_share is not None and strong_share >= BLURRED_SHARE_FROM:
        return BLURRED_SMALL_PRINT_FROM
    return SMALL_PRINT_FROM


def learned_opinion(crops: Sequence[TextCrop | None], readings: Sequence[Reading],
                    engine: Callable[[], OCREngine | None], line_height: float | None, *,
                    small_below: float = SMALL_PRINT_BELOW, small_from: float = SMALL_PRINT_FROM,
                    margin: float | None = None) -> list[Reading]:
    """Step 3 of the rule: small print is read by the learned recogniser too.

    Args:
        crops: the chart's cleaned node crops (None: no ink).
        readings: what steps 1-2 kept per crop.
        engine: gives the learned engine, loaded on first need (None when it cannot be loaded:
            the readings stand).
        line_height: the chart's text line height in px (None: unknown, nothing changes).
        small_below: line heights below this are small print...
        small_from: ...from this height up (smaller print is left to tesseract).
        margin: see `prefer_learned`.

    Returns:
        One reading per crop.
    """
    if line_height is None or not small_from <= line_height < small_below or not any(c is not None for c in crops):
        return list(readings)
    learned = engine()
    if learned is None:
        return list(readings)
    again = learned.read(crops)
    return [a if c is None else b.noting(a) if prefer_learned(a, b, margin=margin) else a.noting(b)
            for c, a, b in zip(crops, readings, again, strict=True)]
