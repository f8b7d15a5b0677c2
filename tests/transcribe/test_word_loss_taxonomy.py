"""`eval/word_loss_taxonomy.py` records every learned reader of a chart, the blur specialist
included: on a blurred chart the specialist reads the grey crops in the grey recogniser's place,
and its readings (and the words it is kept for) must reach the taxonomy's columns."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.markers import require_torch
from tests.transcribe.markers import require_tesserocr
from tests.transcribe.test_text_recogniser import _NARROW, _blurred_small_chart


@require_torch
@require_tesserocr
@pytest.mark.skipif(not Path(_NARROW).is_file(), reason="needs the Debian font fonts-liberation")
def test_the_taxonomy_traces_the_blur_specialists_readings():
    from eval.word_loss_taxonomy import READERS, Tracing
    from flowpath.transcribe.ocr.grey_print import is_blurred

    chart = _blurred_small_chart(0.5)
    tr = Tracing()
    out = tr([chart])[0]
    assert is_blurred(out.meta["stroke_sharpness"]) and out.meta["grey_reader"] == "blurrec"
    trace = tr.traces[str(chart.source)]
    # both the lexicon-decoded and the greedy reading of each crop, as for the other learned readers
    assert len(trace["blurrec"]["lex"]) == len(trace["blurrec"]["greedy"]) == len(trace["letters"])
    assert "greyrec" not in trace and "blurrec" in READERS
