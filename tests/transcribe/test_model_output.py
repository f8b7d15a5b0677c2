"""Validation and repair of model-written Mermaid (pure functions, no model needed)."""

from __future__ import annotations

import pytest

from flowpath.transcribe.qwen2vl import check_letters, repair_output, validate_output

LETTERS = ["A", "B", "C"]
GOOD = 'flowchart TD\n    A(["Start"]) --> B{"Ok?"}\n    B -->|"Yes"| C["Done"]\n'


@pytest.mark.parametrize("text, ok, reason", [
    (GOOD, True, None),
    ("Sure! Here is the chart: A then B then C", False, "not valid Mermaid"),
    ('flowchart TD\n    A --> B\n    B --> Q\n', False, "not labels: Q"),
    ('flowchart TD\n    A --> B\n', False, "missing from the output: C"),
    ("", False, "not valid Mermaid"),
])
def test_validate_output(text, ok, reason):
    chart, reasons = validate_output(text, LETTERS)
    assert (not reasons) is ok
    if reason:
        assert any(reason in r for r in reasons), reasons
    else:
        assert set(chart.nodes) == set(LETTERS)


@pytest.mark.parametrize("text", [
    "```mermaid\n" + GOOD + "```\nHope this helps!",
    'flowchart TD\n    A --> B\n    B --> Q["stray"]\n    C[[[ broken',
    "I cannot read this image.",
    "",
])
def test_repair_always_gives_exactly_the_labels_and_says_what_it_did(text):
    chart, notes = repair_output(text, LETTERS)
    assert set(chart.nodes) == set(LETTERS)
    assert all(e.source in LETTERS and e.target in LETTERS for e in chart.edges)
    if text.startswith("```"):
        assert [(e.source, e.target, e.condition) for e in chart.edges] == [("A", "B", None), ("B", "C", "yes")]
    else:
        assert notes  # something was repaired and said so
    assert chart.warnings == notes


def test_check_letters_orders_missing_labels_naturally():
    from flowpath.graph import FlowChart

    fc = FlowChart.from_edges([("A", "B")])
    assert check_letters(fc, ["A", "B", "C", "AA"]) == ["labels missing from the output: C, AA"]


def test_transcribe_modules_import_without_torch():
    import json
    import subprocess
    import sys

    from tests.markers import REPO_ROOT

    code = ("import json, sys\n"
            "import flowpath.transcribe, flowpath.transcribe.qwen2vl, flowpath.transcribe.ocr\n"
            "import flowpath.transcribe.source, flowpath.evaluation.transcription, flowpath.commands.eval_transcribe\n"
            "flowpath.transcribe.OCRTranscriber, flowpath.transcribe.Qwen2VLTranscriber  # lazy names resolve\n"
            "print(json.dumps([m for m in ('torch', 'transformers', 'peft') if m in sys.modules]))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_unknown_transcriber_name_is_a_clear_error():
    from flowpath.transcribe import make_transcriber

    with pytest.raises(ValueError, match="unknown transcriber 'nope'"):
        make_transcriber("nope")
