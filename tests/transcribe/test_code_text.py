"""Program charts (issue 15's weakest domain): code read back as code. A real Mermaid render
(Chromium + the npm Mermaid, the benchmark's default look) read by the real tesseract, whose
sans-serif capital I is its small l (``curlndex``, ``nextltem``) and whose one can be an l
(``i = l``); and the code-aware cleanup of `flowpath.transcribe.ocr.code_text` alone."""

from __future__ import annotations

from collections import Counter
from importlib.util import find_spec

import pytest

from tests.markers import generate_in_child_process, require_chromium, require_tesseract

require_symspellpy = pytest.mark.skipif(find_spec("symspellpy") is None,
                                        reason="needs symspellpy's frequency list (flowpath[ocr])")

#: identifiers tesseract misread on the codeocr11_prog tuning set
CHART = """flowchart TD
    A(["Start"]) --> B["curIndex = 0"]
    B --> C{"curIndex < len(values)?"}
    C -->|Yes| D["nextItem = values[curIndex]"]
    D --> E["total_sum += nextItem"]
    E --> F["curIndex += 1"]
    F --> C
    C -->|No| G[/"print(#quot;Total:#quot;, total_sum)"/]
    G --> H(["End"])
"""


@pytest.fixture(scope="module")
def code_render(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("code")
    (tmp / "code.mmd").write_text(CHART)
    out = tmp / "bench"
    generate_in_child_process([str(out), "--input", str(tmp / "code.mmd"), "--styles", "default",
                               "--split", "train", "--workers", "0", "--seed", "11301"])
    return out


@require_chromium
@require_tesseract
@require_symspellpy
def test_camel_case_identifiers_read_back_from_a_real_render(code_render, tmp_path):
    import json

    from flowpath.evaluation.transcription import evaluate_transcription
    from flowpath.mermaid import parse_mermaid
    from flowpath.transcribe import make_transcriber

    evaluate_transcription(code_render, make_transcriber("ocr"), gold_regions=True, out_dir=tmp_path)
    rec = json.loads((tmp_path / "records.jsonl").read_text().splitlines()[0])
    texts = {n.text for n in parse_mermaid(rec["mermaid"], strict=False)}
    # the capital I of curIndex and nextItem is not read as an l, and no name is "mended"
    assert "curIndex = 0" in texts and "curIndex += 1" in texts, texts
    assert any(t.lower().startswith("nextitem = values[curindex]") for t in texts), texts
    assert not any("curl" in t or "nextl" in t for t in texts), texts


@require_symspellpy
@pytest.mark.parametrize(("read", "want"), [
    ("curlndex = l", "curIndex = 1"),            # I read as l, a one read as l
    ("while curIndex > O", "while curIndex > 0"),  # a zero read as O
    ("x = valuesfcurIndex]", "x = values[curIndex]"),  # "[" read as f
    ("Isx >= 10?", "Is x >= 10?"),               # the space after Is lost
    ("total sum += x", "total_sum += x"),        # an underscore read as a space
])
def test_code_slips_are_mended_with_the_charts_names(read, want):
    from flowpath.transcribe.ocr.code_text import mend_node_texts

    others = ["curIndex = 0", "x = values[curIndex]", "total_sum = total_sum + x", "x >= 10?"]
    assert mend_node_texts([read, *others])[0] == want


@require_symspellpy
def test_spelling_keeps_identifiers_on_code_charts_only():
    from flowpath.transcribe.ocr.code_text import mend_node_texts
    from flowpath.transcribe.ocr.text import correct_spelling

    code = ["curr = 0", "lst = load(path)", "Read lst", "curr = max(curr, x)", "Retum curr"]
    spell = [correct_spelling] * len(code)
    # the English pass alone turns the names curr and lst into "cure" and "list"
    assert correct_spelling("Read lst curr") != "Read lst curr"
    assert mend_node_texts(code, spell) == ["curr = 0", "lst = load(path)", "Read lst",
                                            "curr = max(curr, x)", "Return curr"]
    # a chart that is not code gets the spelling pass exactly as before
    words = ["Mix the dough", "Is the deadine past?", "Cool te bowl"]
    assert mend_node_texts(words, [correct_spelling] * 3) == [correct_spelling(t) for t in words]


def test_a_how_to_chart_is_not_code():
    from flowpath.transcribe.ocr.code_text import chart_identifiers, is_code_chart

    assert not is_code_chart(["Start", "Gather the materials", "Is the surface smooth?", "Paint it", "End"])
    assert is_code_chart(["Start", "i = 0", "i < n?", "x = arr[i]", "End"])
    assert chart_identifiers(["Sand the frame"]) == Counter()
