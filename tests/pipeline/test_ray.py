"""``--engine ray`` (`flowpath.distributed`) on a real local Ray cluster: the same records as
the local engine, bad items recorded, resume, a job killed with SIGKILL and rerun, a crashed
actor retried, the CLI with Parquet in and out, ``s3://`` images from a local S3 server, and
Ray kept out of the local engine. (Whole-dev-slice equality: ``eval/ray_equality.py``.)"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from flowpath.batch import run_attribute, run_parse
from flowpath.cli import main
from flowpath.io import save_image
from flowpath.pipeline import FlowPath
from flowpath.reason import OfflineReasoner
from tests.markers import FEBENCH_DEV, REPO_ROOT, require_febench
from tests.pipeline.helpers import BoxSegmenter, ChainTranscriber, draw_chart
from tests.pipeline.test_batch import folder  # noqa: F401 - the shared fixture
from tests.pipeline.test_image_uris import (
    HAVE_MOTO,
    require_moto,
    same_answers,
    serve_object_store,
)

ray = pytest.importorskip("ray", reason="needs ray (flowpath[ray])")

from flowpath.distributed import (  # noqa: E402 - after the skip
    ActorPool,
    attribute_dataset,
    run_attribute_ray,
    run_parse_ray,
)

#: result keys that measure time, not behaviour
TIMING_KEYS = ("timings",)


@pytest.fixture(scope="module")
def object_store():
    """moto's S3 server on 127.0.0.1 when moto[server] is installed (else None), started
    before the cluster so that its workers get the endpoint and the test-only keys."""
    if not HAVE_MOTO:
        yield None
        return
    with serve_object_store() as store:
        yield store


@pytest.fixture(scope="module")
def cluster(object_store):
    """One local two-CPU Ray cluster for the module; its workers import this checkout."""
    env = {"PYTHONPATH": str(REPO_ROOT), "OMP_NUM_THREADS": "1",
           **(object_store.env if object_store else {})}
    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING",
             runtime_env={"env_vars": env})
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


def make_fp() -> FlowPath:
    return FlowPath(segmenter=BoxSegmenter(), transcriber=ChainTranscriber(),
                    reasoner=OfflineReasoner())


class SlowSegmenter(BoxSegmenter):
    """`BoxSegmenter` that takes a while per image, so a job can be killed mid-way."""

    def __call__(self, images):
        time.sleep(0.4)
        return super().__call__(images)


def make_slow_fp() -> FlowPath:
    return FlowPath(segmenter=SlowSegmenter(), transcriber=ChainTranscriber(),
                    reasoner=OfflineReasoner())


class CrashOnceSegmenter(BoxSegmenter):
    """Kills its own process (like an OOM kill) on the first image it sees, once per marker."""

    def __init__(self, marker: Path) -> None:
        super().__init__()
        self.marker = marker

    def __call__(self, images):
        if not self.marker.exists():
            self.marker.write_text("crashed")
            os._exit(1)
        return super().__call__(images)


def read_records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def comparable(rec: dict) -> dict:
    return {k: v for k, v in rec.items() if k not in TIMING_KEYS}


@pytest.mark.slow  # 30-70 s on 2 loaded cores
def test_ray_records_equal_local_records(cluster, folder, tmp_path):  # noqa: F811
    images, qpath = folder
    local = run_attribute(make_fp(), images, tmp_path / "local", questions=qpath, progress=False)
    dist = run_attribute_ray(make_fp, images, tmp_path / "ray", questions=qpath,
                             pool=ActorPool(actors=2), progress=False)
    a, b = read_records(tmp_path / "local"), read_records(tmp_path / "ray")
    assert [r["id"] for r in a] == [r["id"] for r in b]
    assert [comparable(r) for r in a] == [comparable(r) for r in b]
    # a corrupt image, a missing image and two bad question lines are recorded, not fatal
    assert dist["failed"] == local["failed"] == 5
    assert dist["images_failed"] == local["images_failed"]
    assert dist["components"] == local["components"]
    for rec in b:
        if not rec["error"]:
            assert (tmp_path / "ray" / rec["overlay"]).is_file()
            assert (tmp_path / "ray" / rec["parse"]).is_file()
    assert (tmp_path / "ray" / "report.html").is_file()


@pytest.mark.slow  # 30-70 s on 2 loaded cores
def test_rerun_resumes_without_building_a_pipeline(cluster, folder, tmp_path):  # noqa: F811
    images, qpath = folder
    out = tmp_path / "out"
    first = run_attribute_ray(make_fp, images, out, questions=qpath, progress=False)
    before = read_records(out)

    def no_pipeline() -> FlowPath:
        raise AssertionError("a rerun with only failed work left retried it")

    # the failed questions are retried (and fail again); answered ones are skipped
    second = run_attribute_ray(make_fp, images, out, questions=qpath, progress=False)
    assert second["resumed"] == first["ok"] == 6
    assert [comparable(r) for r in read_records(out)] == [comparable(r) for r in before]
    # with only answered questions, no actor and no pipeline is built at all
    ok_only = tmp_path / "ok.jsonl"
    ok_only.write_text("".join(json.dumps({k: r[k] for k in ("id", "image", "question", "answer")})
                               + "\n" for r in before if not r["error"]))
    out2 = tmp_path / "out2"
    run_attribute_ray(make_fp, images, out2, questions=ok_only, progress=False)
    third = run_attribute_ray(no_pipeline, images, out2, questions=ok_only, progress=False)
    assert third["resumed"] == third["questions"] == 6 and third["failed"] == 0


@pytest.mark.slow  # 30-70 s on 2 loaded cores
def test_killed_job_rerun_answers_every_question_once(cluster, tmp_path):
    images = tmp_path / "images"
    n = 12
    for i in range(n):
        save_image(draw_chart(shift=2 * i), images / f"c{i:02d}.png")
    qpath = tmp_path / "questions.jsonl"
    qpath.write_text("".join(json.dumps({"id": f"q{i:02d}", "image": f"c{i:02d}.png",
                                         "question": "What follows the start?",
                                         "answer": "Check the value"}) + "\n" for i in range(n)))
    out = tmp_path / "out"
    script = textwrap.dedent(f"""
        import ray
        from flowpath.distributed import ActorPool, run_attribute_ray
        from tests.pipeline.test_ray import make_slow_fp
        ray.init(address={cluster!r}, logging_level="WARNING")
        run_attribute_ray(make_slow_fp, {str(images)!r}, {str(out)!r}, questions={str(qpath)!r},
                          pool=ActorPool(actors=2), progress=False)
    """)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, cwd=REPO_ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if results.exists() and len(results.read_text().splitlines()) >= 2:
            break
        time.sleep(0.05)
    assert proc.poll() is None, f"the job ended before it could be killed: {proc.stderr.read()[-2000:]}"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stderr.close()
    answered = len(read_records(out))
    assert 2 <= answered < n  # killed mid-way

    summary = run_attribute_ray(make_fp, images, out, questions=qpath, progress=False)
    recs = read_records(out)
    assert sorted(r["id"] for r in recs) == [f"q{i:02d}" for i in range(n)]
    assert all(r["error"] is None and r["node_ids"] for r in recs)
    assert summary["resumed"] >= answered and summary["failed"] == 0


def test_crashed_actor_is_restarted_and_its_image_retried(cluster, tmp_path):
    images = tmp_path / "images"
    for i in range(3):
        save_image(draw_chart(shift=3 * i), images / f"c{i}.png")
    questions = [{"id": f"q{i}", "image": f"c{i}.png", "question": "Where does it start?",
                  "answer": "Start"} for i in range(3)]
    marker = tmp_path / "crashed"

    def crash_once() -> FlowPath:
        return FlowPath(segmenter=CrashOnceSegmenter(marker), transcriber=ChainTranscriber(),
                        reasoner=OfflineReasoner())

    summary = run_attribute_ray(crash_once, images, tmp_path / "out", questions=questions,
                                progress=False)
    assert marker.exists()  # an actor did die
    assert summary["failed"] == 0 and summary["questions"] == 3
    assert sorted(r["id"] for r in read_records(tmp_path / "out")) == ["q0", "q1", "q2"]


@pytest.mark.slow  # 30-60 s on 2 loaded cores
@require_moto
def test_ray_reads_s3_images(object_store, cluster, folder, tmp_path, monkeypatch):  # noqa: F811
    images, qpath = folder
    uri = object_store.upload(images, "ray")
    run_attribute(make_fp(), images, tmp_path / "local", questions=qpath, progress=False)
    dist = run_attribute_ray(make_fp, uri, tmp_path / "ray", questions=qpath,
                             pool=ActorPool(actors=2), progress=False)
    recs = read_records(tmp_path / "ray")
    same_answers(read_records(tmp_path / "local"), recs)
    assert dist["failed"] == 5
    errors = {r["id"]: r["error"] for r in recs if r["error"]}
    assert errors["broken_0"].startswith(f"{uri}/broken.png: ")
    assert errors["ghost"].startswith(f"{uri}/nowhere.png: no such file or object")
    assert all(r["source"].startswith(uri + "/") for r in recs if not r["error"])
    # flowpath parse lists the folder on the driver, which reads the same environment
    for k, v in object_store.env.items():
        monkeypatch.setenv(k, v)
    parsed = run_parse_ray(make_fp, uri, tmp_path / "parse", pool=ActorPool(actors=2),
                           progress=False)
    assert parsed["images"] == 4 and parsed["failed"] == 1


def test_parse_on_ray_writes_the_local_layout(cluster, folder, tmp_path):  # noqa: F811
    images, _ = folder
    local = run_parse(make_fp(), images, tmp_path / "local", progress=False)
    dist = run_parse_ray(make_fp, images, tmp_path / "ray", pool=ActorPool(actors=(1, 2)),
                         progress=False)
    assert dist["failed"] == local["failed"] == 1  # broken.png
    names = sorted(p.name for p in (tmp_path / "local").iterdir() if p.name != "summary.json")
    assert sorted(p.name for p in (tmp_path / "ray").iterdir() if p.name != "summary.json") == names
    for name in names:
        if name.endswith(".mmd"):
            assert (tmp_path / "ray" / name).read_text() == (tmp_path / "local" / name).read_text()
    again = run_parse_ray(make_fp, images, tmp_path / "ray", progress=False)
    assert again["resumed"] == 3 and again["failed"] == 1  # the broken image is retried


def test_attribute_dataset_is_a_lazy_table_of_records(cluster, folder, tmp_path):  # noqa: F811
    images, qpath = folder
    ds = attribute_dataset(make_fp, images, tmp_path / "out", questions=qpath)
    assert not (tmp_path / "out" / "parses").exists()  # nothing has run yet
    rows = {r["id"]: r for r in ds.iter_rows()}
    assert len(rows) == 11
    assert rows["c0_0"]["error"] is None and list(rows["c0_0"]["node_ids"])
    assert json.loads(rows["c0_0"]["record"])["regions"]
    assert "bad JSON" in rows["line4"]["error"] and "not found" in rows["ghost"]["error"]


def _dev_questions(tmp_path: Path, count: int) -> tuple[Path, Path]:
    """The first ``count`` dev-slice questions as questions JSONL and as a Parquet table."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    lines = (FEBENCH_DEV / "questions.jsonl").read_text().splitlines()[:count]
    rows = [{k: json.loads(line)[k] for k in ("id", "image", "question", "answer", "type")}
            for line in lines]
    jsonl, table = tmp_path / "questions.jsonl", tmp_path / "questions.parquet"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    pq.write_table(pa.Table.from_pylist(rows), table)
    return jsonl, table


@pytest.mark.slow  # about 3 min on 2 loaded cores: real components, two runs
@require_febench
def test_cli_on_dev_charts_matches_the_local_engine(cluster, tmp_path):
    """Real components (classical segmenter, the charts' own Mermaid, offline reasoner) on
    dev-slice charts through the CLI of both engines, Parquet in and out on Ray."""
    jsonl, table = _dev_questions(tmp_path, 4)
    common = ["-q", "attribute", str(FEBENCH_DEV), "--segmenter", "classical", "--transcriber",
              "source", "--reasoner", "offline", "--no-progress"]
    assert main([*common, "--questions", str(jsonl), "--out", str(tmp_path / "local")]) == 0
    assert main([*common, "--questions", str(table), "--out", str(tmp_path / "ray"),
                 "--engine", "ray", "--ray-address", cluster, "--actors", "2",
                 "--format", "parquet"]) == 0
    a, b = read_records(tmp_path / "local"), read_records(tmp_path / "ray")
    assert len(a) == 4 and [comparable(r) for r in a] == [comparable(r) for r in b]
    import pyarrow.parquet as pq

    table = pq.read_table(tmp_path / "ray" / "results.parquet").to_pylist()
    assert sorted(r["id"] for r in table) == sorted(r["id"] for r in b)
    assert {r["id"]: json.loads(r["record"]) for r in table} == {r["id"]: r for r in b}


@pytest.mark.parametrize("argv, message", [
    (["--actors", "2"], "--actors needs --engine ray"),
    (["--format", "parquet"], "--format needs --engine ray"),
    (["--questions", "q.parquet"], "a Parquet question table needs --engine ray"),
    (["--engine", "ray", "--actors", "3:2"], "actors must be"),
])
def test_cli_refuses_bad_engine_flags(argv, message, folder, tmp_path, capsys):  # noqa: F811
    images, qpath = folder
    code = main(["attribute", str(images), "--questions", str(qpath), "--out",
                 str(tmp_path / "o"), *argv])
    assert code == 2 and message in capsys.readouterr().err


def _run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})


def test_local_engine_never_imports_ray(folder, tmp_path):  # noqa: F811
    images, qpath = folder
    proc = _run_python(textwrap.dedent(f"""
        import sys
        from flowpath.cli import main
        main(["-q", "parse", {str(images)!r}, "--out", {str(tmp_path / 'p')!r},
              "--segmenter", "classical", "--transcriber", "source"])
        assert "ray" not in sys.modules, "the local engine imported ray"
    """))
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_missing_ray_names_the_extra(folder, tmp_path):  # noqa: F811
    images, qpath = folder
    proc = _run_python(textwrap.dedent(f"""
        import sys
        sys.modules["ray"] = None  # as if flowpath[ray] were not installed
        from flowpath.cli import main
        sys.exit(main(["attribute", {str(images)!r}, "--questions", {str(qpath)!r},
                       "--out", {str(tmp_path / 'o')!r}, "--engine", "ray"]))
    """))
    assert proc.returncode == 2
    assert "pip install 'flowpath[ray]'" in proc.stderr
