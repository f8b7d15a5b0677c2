"""The full offline pipeline end to end through the CLI, on the committed rendered examples
(real classical segmenter, real labeller, real tesseract transcriber, real offline reasoner):
batch attribution, a bad image recorded while the run goes on, resumption after a partial run,
the one-image form, ``flowpath parse`` and ``flowpath eval attribution``."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from flowpath.cli import main
from flowpath.io import load_image
from tests.markers import REPO_ROOT, require_tesseract

EXAMPLES = REPO_ROOT / "examples"

pytestmark = require_tesseract


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A copy of the examples plus one corrupt image with a question about it."""
    root = tmp_path_factory.mktemp("e2e")
    shutil.copytree(EXAMPLES / "charts", root / "charts")
    (root / "charts" / "corrupt.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    lines = (EXAMPLES / "questions.jsonl").read_text().splitlines()
    lines.insert(2, json.dumps({"id": "corrupt_1", "image": "charts/corrupt.png",
                                "question": "What is the first step?", "answer": "Start"}))
    (root / "questions.jsonl").write_text("\n".join(lines) + "\n")
    return root


def _results(out):
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def first_run(workdir):
    out = workdir / "out"
    code = main(["-q", "attribute", str(workdir / "charts"), "--questions",
                 str(workdir / "questions.jsonl"), "--out", str(out), "--no-progress"])
    return out, code


def test_batch_attribution_end_to_end(first_run, workdir):
    out, code = first_run
    assert code == 1  # the corrupt image failed, so the exit code says so
    recs = {r["id"]: r for r in _results(out)}
    assert len(recs) == 9
    assert "corrupt.png" in recs.pop("corrupt_1")["error"]
    n_questions_with_nodes = 0
    for r in recs.values():
        assert r["error"] is None, r
        assert set(r["letters"]) <= set(r["node_ids"])
        assert len(r["regions"]) == len(r["letters"])
        n_questions_with_nodes += bool(r["node_ids"])
        overlay = load_image(out / r["overlay"])
        original = load_image(workdir / r["image"])
        assert overlay.shape == original.shape
        if r["letters"]:
            assert not np.array_equal(overlay, original)
    # the real pipeline finds something for most questions of these clean renders
    assert n_questions_with_nodes >= 6
    for chart in ("loan", "sum_items", "tea"):
        parsed = json.loads((out / "parses" / f"charts%2F{chart}.png.json").read_text())
        assert len(parsed["regions"]) >= 3 and parsed["graph"]["edges"]
        assert (out / "parses" / f"charts%2F{chart}.png.mmd").read_text().startswith("flowchart")
        assert (out / "parses" / f"charts%2F{chart}.png.labelled.png").is_file()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["failed"] == 1 and summary["ok"] == 8
    assert summary["images_failed"] == ["charts/corrupt.png"]
    assert "report.html" in {p.name for p in out.iterdir()}
    assert "overlays/loan_1.png" in (out / "report.html").read_text()


def test_rerun_after_partial_results_skips_finished_work(first_run, workdir):
    out, _ = first_run
    before = {r["id"]: r for r in _results(out)}
    # as if killed: the last three lines lost, a torn line written, the summary gone
    lines = (out / "results.jsonl").read_text().splitlines()
    (out / "results.jsonl").write_text("\n".join(lines[:-3]) + '\n{"id": "tea_2", "quest')
    (out / "summary.json").unlink()
    code = main(["-q", "attribute", str(workdir / "charts"), "--questions",
                 str(workdir / "questions.jsonl"), "--out", str(out), "--no-progress"])
    assert code == 1
    summary = json.loads((out / "summary.json").read_text())
    kept = [json.loads(x)["id"] for x in lines[:-3]]
    ok_kept = [k for k in kept if not before[k]["error"]]
    assert summary["resumed"] == len(ok_kept)
    after = {r["id"]: r for r in _results(out)}
    assert set(after) == set(before)
    for k in ok_kept:
        assert after[k] == before[k]  # not redone (timings would differ)
    for img in summary["images"]:
        if img["image"] != "charts/corrupt.png":
            assert img["parse"] == "resumed"  # saved parses are reused
    # the answers redone from the saved parse equal the first run's
    for k in set(before) - set(ok_kept):
        assert after[k]["node_ids"] == before[k]["node_ids"]


def test_one_image_form(capsys):
    code = main(["-q", "attribute", str(EXAMPLES / "charts" / "tea.png"), "--question",
                 "Which step has the most incoming edges?", "--answer", "Serve the tea"])
    assert code == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["error"] is None and rec["question"].startswith("Which step")
    assert len(rec["regions"]) == len(rec["letters"])


def test_parse_command(workdir):
    out = workdir / "parsed"
    code = main(["-q", "parse", str(workdir / "charts"), "--out", str(out), "--no-progress"])
    assert code == 1  # the corrupt image
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["ok"], summary["failed"]) == (3, 1)
    d = json.loads((out / "loan.png.json").read_text())
    assert d["mermaid"].startswith("flowchart") and d["regions"]


def test_eval_attribution_pipeline_and_oracle(tmp_path, capsys):
    for extra, mode in (([], "pipeline"), (["--oracle"], "oracle")):
        out = tmp_path / mode
        assert main(["-q", "eval", "attribution", "--bench", str(EXAMPLES), "--out", str(out),
                     "--no-progress", *extra]) == 0
        report = json.loads((out / "attribution.json").read_text())
        assert report["mode"] == mode and report["questions"] == 8
        assert 0.0 <= report["overall"]["f1"] <= 1.0
        assert set(report["by_type"]) == {"fact_retrieval", "applied_scenario",
                                          "flow_referential", "topological"}
        assert len((out / "records.jsonl").read_text().splitlines()) == 8
        assert "| **overall** |" in (out / "attribution.md").read_text()
    printed = capsys.readouterr().out
    assert "oracle mode" in printed and "pipeline mode" in printed


def test_killed_process_resumes(tmp_path):
    """SIGKILL a real ``flowpath attribute`` process once it has written its first result,
    then rerun: finished questions are kept, the rest are done, nothing is duplicated."""
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "flowpath.cli", "-q", "attribute", str(EXAMPLES / "charts"),
           "--questions", str(EXAMPLES / "questions.jsonl"), "--out", str(out), "--no-progress"]
    proc = subprocess.Popen(cmd, cwd=REPO_ROOT, env={**os.environ, "OMP_NUM_THREADS": "1"})
    results = out / "results.jsonl"
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if results.exists() and results.read_text().count("\n") >= 1:
                break
            time.sleep(0.05)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait()
    killed = proc.returncode == -signal.SIGKILL
    done_before = set()
    for line in results.read_text().splitlines():
        try:
            done_before.add(json.loads(line)["id"])
        except ValueError:  # the kill tore this line
            pass
    assert done_before
    assert main(["-q", "attribute", str(EXAMPLES / "charts"), "--questions",
                 str(EXAMPLES / "questions.jsonl"), "--out", str(out), "--no-progress"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    ids = [r["id"] for r in _results(out)]
    assert len(ids) == len(set(ids)) == 8 and summary["failed"] == 0
    if killed:  # (on a very fast machine the first run may have finished before the kill)
        assert 1 <= summary["resumed"] < 8
        assert summary["resumed"] >= len(done_before)


def test_eval_transcribe_takes_transcriber_settings(tmp_path, capfd):
    # the opt-out of the learned small-print recogniser, on the command that measures it
    out = tmp_path / "tr"
    assert main(["-q", "eval", "transcribe", "--bench", str(EXAMPLES), "--gold-regions", "--limit", "1",
                 "--transcriber-arg", "learned=false", "--out", str(out), "--no-progress"]) == 0
    assert len((out / "records.jsonl").read_text().splitlines()) == 1
    # a misspelt setting and a bare word are named, not a traceback from deep inside
    for bad, said in (("learnd=false", "has no setting 'learnd'; it takes: "), ("learned", "expected KEY=VALUE")):
        capfd.readouterr()
        assert main(["-q", "eval", "transcribe", "--bench", str(EXAMPLES), "--gold-regions", "--limit", "1",
                     "--transcriber-arg", bad, "--no-progress"]) == 2
        err = capfd.readouterr().err
        assert said in err and "learned" in err
