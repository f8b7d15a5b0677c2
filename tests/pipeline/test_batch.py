"""Batch runs (`flowpath.batch`) with fast test-only components: resumption after an
interruption, bad images and questions recorded while the run goes on, workers."""

from __future__ import annotations

import json

import pytest

from flowpath.batch import read_questions, run_attribute, run_parse
from flowpath.io import save_image
from flowpath.models.base import Reasoner, Reasoning, ReasoningRequest
from flowpath.pipeline import FlowPath
from flowpath.reason import OfflineReasoner
from tests.pipeline.helpers import BoxSegmenter, ChainTranscriber, draw_chart

QUESTIONS = [
    ("What is done after checking the value?", "Print the result"),
    ("Where does the chart start?", "Start"),
]


@pytest.fixture
def folder(tmp_path):
    """images/ with three good charts and one corrupt file; questions.jsonl with 2 per image
    plus a malformed line and a question about a missing image."""
    images = tmp_path / "images"
    for i in range(3):
        save_image(draw_chart(shift=4 * i), images / "sub" / f"c{i}.png")
    (images / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n not really a png")
    lines = []
    for img in ["sub/c0.png", "sub/c1.png", "broken.png", "sub/c2.png"]:
        for j, (q, a) in enumerate(QUESTIONS):
            lines.append(json.dumps({"id": f"{img.split('/')[-1][:-4]}_{j}", "image": img,
                                     "question": q, "answer": a, "type": "demo"}))
    lines.insert(3, "{not json")
    lines.append(json.dumps({"id": "ghost", "image": "nowhere.png", "question": "q?", "answer": "a"}))
    lines.append(json.dumps({"id": "noq", "image": "sub/c0.png", "answer": "a"}))
    qpath = tmp_path / "questions.jsonl"
    qpath.write_text("\n".join(lines) + "\n")
    return images, qpath


def make_fp(reasoner=None):
    return FlowPath(segmenter=BoxSegmenter(), transcriber=ChainTranscriber(),
                    reasoner=reasoner or OfflineReasoner())


def read_results(out):
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_read_questions_records_bad_lines(folder):
    items = read_questions(folder[1])
    assert len(items) == 11
    bad = {it.id: it.error for it in items if it.error}
    assert set(bad) == {"line4", "noq"}
    assert "bad JSON" in bad["line4"] and "question" in bad["noq"]
    assert items[0].extra == {"type": "demo"}


def test_bad_items_are_recorded_and_the_run_goes_on(folder, tmp_path):
    images, qpath = folder
    out = tmp_path / "out"
    summary = run_attribute(make_fp(), images, out, questions=qpath, progress=False)
    recs = {r["id"]: r for r in read_results(out)}
    assert len(recs) == 11 and summary["questions"] == 11
    good = [k for k in recs if k.startswith("c")]
    assert len(good) == 6
    for k in good:
        r = recs[k]
        assert r["error"] is None and r["node_ids"] and r["type"] == "demo"
        assert (out / r["overlay"]).is_file()
        assert (out / r["parse"]).is_file()
    assert "broken.png" in recs["broken_0"]["error"] and "broken.png" in recs["broken_1"]["error"]
    assert "not found" in recs["ghost"]["error"]
    assert summary["failed"] == 5 and summary["images_failed"] == ["broken.png", "nowhere.png"]
    assert json.loads((out / "summary.json").read_text())["failed"] == 5
    assert (out / "parses" / "sub%2Fc0.png.mmd").read_text().startswith("flowchart")
    assert (out / "parses" / "sub%2Fc0.png.labelled.png").is_file()
    html = (out / "report.html").read_text()
    assert "overlays/c0_0.png" in html and "What is done after checking the value?" in html
    assert html.count('class="card err"') == 5


class _Interrupting(Reasoner):
    """Stops the process (as Ctrl-C would) after ``n`` questions."""

    name = "interrupting"

    def __init__(self, n: int) -> None:
        self.n = n
        self.inner = OfflineReasoner()

    def __call__(self, request: ReasoningRequest) -> Reasoning:
        if self.n == 0:
            raise KeyboardInterrupt
        self.n -= 1
        return self.inner(request)


class _Counting(OfflineReasoner):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def __call__(self, request: ReasoningRequest) -> Reasoning:
        self.seen.append(request.question)
        return super().__call__(request)


def test_interrupted_run_resumes_and_skips_finished_work(folder, tmp_path):
    images, qpath = folder
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        run_attribute(make_fp(_Interrupting(3)), images, out, questions=qpath, progress=False)
    first = {r["id"]: r for r in read_results(out)}
    finished = {k for k, r in first.items() if not r.get("error")}
    assert len(finished) == 3
    # a torn line, as a kill during a write leaves it, must not break the resume
    with (out / "results.jsonl").open("a") as f:
        f.write('{"id": "c2_0", "question": "What')

    fp = make_fp(_Counting())
    summary = run_attribute(fp, images, out, questions=qpath, progress=False)
    assert summary["resumed"] == 3
    assert len(fp.reasoner.seen) == 3  # 6 good questions - 3 finished
    # c1 was parsed (and saved) before the interruption: only c2 is parsed now
    assert fp.segmenter.calls == 1
    final = {r["id"]: r for r in read_results(out)}
    assert len(final) == 11
    for k in finished:
        assert final[k] == first[k]  # untouched
    assert sum(1 for r in final.values() if not r.get("error")) == 6

    # a third run has nothing left but the failures (which it retries)
    fp3 = make_fp(_Counting())
    s3 = run_attribute(fp3, images, out, questions=qpath, progress=False)
    assert s3["resumed"] == 6 and fp3.reasoner.seen == [] and s3["failed"] == 5


def test_workers_give_the_same_results(folder, tmp_path):
    images, qpath = folder
    run_attribute(make_fp(), images, tmp_path / "w1", questions=qpath, progress=False, report=False)
    run_attribute(make_fp(), images, tmp_path / "w2", questions=qpath, progress=False,
                  report=False, workers=3)
    a = [(r["id"], r["node_ids"], r["error"]) for r in read_results(tmp_path / "w1")]
    b = [(r["id"], r["node_ids"], r["error"]) for r in read_results(tmp_path / "w2")]
    assert a == b


def test_run_parse_writes_graph_mermaid_labelled_and_resumes(folder, tmp_path):
    images, _ = folder
    out = tmp_path / "parsed"
    s = run_parse(make_fp(), images, out, progress=False)
    assert (s["images"], s["ok"], s["failed"]) == (4, 3, 1)
    d = json.loads((out / "sub%2Fc1.png.json").read_text())
    assert list(d["regions"]) == ["A", "B", "C"] and d["graph"]["edges"]
    assert (out / "sub%2Fc1.png.mmd").is_file() and (out / "sub%2Fc1.png.labelled.png").is_file()
    assert "error" in json.loads((out / "broken.png.json").read_text())
    fp = make_fp()
    s2 = run_parse(fp, images, out, progress=False)
    assert s2["resumed"] == 3 and fp.segmenter.calls == 0 and s2["failed"] == 1


@pytest.mark.parametrize("workers", [0, -2])
def test_bad_workers(folder, tmp_path, workers):
    with pytest.raises(ValueError, match="workers"):
        run_attribute(make_fp(), folder[0], tmp_path / "o", questions=folder[1], workers=workers)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["attribute", "{images}", "--questions", "{q}", "--out", "{out}", "--reasoner", "bogus"],
         "unknown reasoner 'bogus'"),
        (["parse", "{images}", "--out", "{out}", "--segmenter", "nope"], "unknown segmenter 'nope'"),
        (["attribute", "{images}/missing", "--questions", "{q}", "--out", "{out}"],
         "no such images folder"),
        (["attribute", "{images}", "--questions", "{images}/none.jsonl", "--out", "{out}"],
         "questions file not found"),
        (["attribute", "{images}", "--questions", "{q}"], "needs --out"),
        (["attribute", "{images}", "--question", "q?"], "--question and --answer"),
        (["attribute", "{images}", "--question", "q?", "--answer", "a"], "one image file"),
    ],
)
def test_cli_usage_errors_exit_2(folder, tmp_path, capsys, argv, message):
    from flowpath.cli import main

    images, qpath = folder
    fill = {"images": str(images), "q": str(qpath), "out": str(tmp_path / "o")}
    assert main([a.format(**fill) for a in argv]) == 2
    assert message in capsys.readouterr().err  # one readable line, no traceback
