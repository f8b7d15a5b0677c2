"""Issue 12: the failures a bad-input / fault probe found in batch runs, one test each (every
test here fails on main before the fix, see the commit)."""

from __future__ import annotations

import json
import os
import stat

import numpy as np
import pytest
from PIL import Image

from flowpath.batch import output_name, read_questions, run_attribute, run_parse
from flowpath.errors import ImageLoadError, InputError
from flowpath.io import load_image, save_image
from flowpath.pipeline import FlowPath, image_hash
from flowpath.reason import OfflineReasoner
from tests.pipeline.helpers import BoxSegmenter, ChainTranscriber, draw_chart

Q, A = "What is done after checking the value?", "Print the result"


def make_fp(**kwargs):
    return FlowPath(segmenter=BoxSegmenter(), transcriber=ChainTranscriber(),
                    reasoner=OfflineReasoner(), **kwargs)


def write_questions(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def results(out):
    return [json.loads(line) for line in (out / "results.jsonl").read_text().split("\n") if line]


# -- 1: one output name per image, saved parses checked by content ---------------------------

CLASHING = ["tea.png", "tea.jpg", "a/b.png", "a b.png"]


@pytest.fixture
def clashing(tmp_path):
    images = tmp_path / "images"
    for i, rel in enumerate(CLASHING):  # same size, different pixels
        save_image(draw_chart(shift=6 * i), images / rel)
    qpath = write_questions(tmp_path / "q.jsonl", [
        {"id": f"q{i}", "image": rel, "question": Q, "answer": A} for i, rel in enumerate(CLASHING)])
    return images, qpath


@pytest.mark.parametrize("workers", [1, 3])
def test_each_question_is_answered_on_its_own_image(clashing, tmp_path, workers):
    images, qpath = clashing
    out = tmp_path / f"out{workers}"
    s = run_attribute(make_fp(), images, out, questions=qpath, workers=workers, progress=False)
    assert s["failed"] == 0
    for rec in results(out):
        assert rec["image_hash"] == image_hash(load_image(images / rec["image"])), rec["id"]
    assert len({rec["parse"] for rec in results(out)}) == len(CLASHING)


def test_parse_writes_one_file_per_image_and_names_read_back(clashing, tmp_path):
    from urllib.parse import unquote

    images, _ = clashing
    s = run_parse(make_fp(), images, tmp_path / "p", progress=False)
    jsons = sorted((tmp_path / "p").glob("*.json"))
    jsons = [p for p in jsons if p.name != "summary.json"]
    assert s["ok"] == len(CLASHING) == len(jsons)
    assert sorted(unquote(p.name[:-len(".json")]) for p in jsons) == sorted(CLASHING)


def test_saved_parse_is_not_reused_for_changed_image_content(clashing, tmp_path):
    images, qpath = clashing
    out = tmp_path / "out"
    run_attribute(make_fp(), images, out, questions=qpath, progress=False)
    save_image(draw_chart(shift=40), images / "tea.png")  # same size, new content
    (out / "results.jsonl").unlink()
    fp = make_fp()
    run_attribute(fp, images, out, questions=qpath, progress=False)
    assert fp.segmenter.calls == 1  # only the changed image is parsed again
    rec = next(r for r in results(out) if r["image"] == "tea.png")
    assert rec["image_hash"] == image_hash(load_image(images / "tea.png"))


# -- 2: an over-long path fails its own questions only --------------------------------------

def test_overlong_image_path_does_not_stop_the_batch(tmp_path):
    images = tmp_path / "images"
    for i in range(3):
        save_image(draw_chart(shift=4 * i), images / f"c{i}.png")
    rows = [{"id": f"c{i}", "image": f"c{i}.png", "question": Q, "answer": A} for i in range(3)]
    rows.insert(1, {"id": "long", "image": "x" * 300 + ".png", "question": Q, "answer": A})
    out = tmp_path / "out"
    s = run_attribute(make_fp(), images, out, questions=write_questions(tmp_path / "q.jsonl", rows),
                      progress=False)
    recs = {r["id"]: r for r in results(out)}
    assert s["ok"] == 3 and s["failed"] == 1
    assert "x" * 20 in recs["long"]["error"]


# -- 3: JSONL text details --------------------------------------------------------------------

def test_questions_file_line_separators_latin1_and_bom(tmp_path):
    good = [{"id": f"q{i}", "image": "c.png", "question": f"Step\u2028{i}\u2029 or\x85 not?",
             "answer": "a"} for i in range(3)]
    lines = [json.dumps(r, ensure_ascii=False).encode("utf-8") for r in good]
    lines.insert(1, b'{"id": "latin", "image": "c.png", "question": "caf\xe9?", "answer": "a"}')
    path = tmp_path / "q.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b"\n".join(lines) + b"\n")
    items = read_questions(path)
    assert [it.id for it in items] == ["q0", "line2", "q1", "q2"]  # line 2 cannot be decoded
    assert [it.error is None for it in items] == [True, False, True, True]
    assert "q.jsonl:2" in items[1].error and "UTF-8" in items[1].error
    assert items[2].question == "Step\u20281\u2029 or\x85 not?"


# -- 4: only links the run wrote ----------------------------------------------------------------

def test_report_links_only_overlays_the_run_wrote(tmp_path):
    images = tmp_path / "images"
    save_image(draw_chart(), images / "c.png")
    rows = [{"id": "ok", "image": "c.png", "question": Q, "answer": A,
             "overlay": "javascript:alert(1)"},
            {"id": "bad", "image": "missing.png", "question": Q, "answer": A,
             "overlay": "javascript:alert(2)", "parse": "https://example.com/x"}]
    out = tmp_path / "out"
    run_attribute(make_fp(), images, out, questions=write_questions(tmp_path / "q.jsonl", rows),
                  progress=False)
    recs = {r["id"]: r for r in results(out)}
    assert recs["ok"]["overlay"] == "overlays/ok.png" and "overlay" not in recs["bad"]
    assert "parse" not in recs["bad"]
    report = (out / "report.html").read_text()
    assert "javascript:" not in report and "example.com" not in report
    assert 'href="overlays/ok.png"' in report


# -- 5: images outside the folder -------------------------------------------------------------

@pytest.fixture
def outside(tmp_path):
    images = tmp_path / "images"
    save_image(draw_chart(), images / "c.png")
    save_image(draw_chart(shift=8), tmp_path / "secret" / "s.png")
    (images / "link.png").symlink_to(tmp_path / "secret" / "s.png")
    qdir = tmp_path / "questions"
    qdir.mkdir()
    rows = [{"id": "in", "image": "c.png", "question": Q, "answer": A},
            {"id": "dotdot", "image": "../secret/s.png", "question": Q, "answer": A},
            {"id": "dotdot_missing", "image": "../secret/none.png", "question": Q, "answer": A},
            {"id": "absolute", "image": str(tmp_path / "secret" / "s.png"), "question": Q, "answer": A},
            {"id": "passwd", "image": "/etc/passwd", "question": Q, "answer": A},
            {"id": "symlink", "image": "link.png", "question": Q, "answer": A}]
    return images, write_questions(qdir / "q.jsonl", rows)


def test_images_outside_the_folder_are_refused_alike(outside, tmp_path):
    images, qpath = outside
    out = tmp_path / "out"
    run_attribute(make_fp(), images, out, questions=qpath, progress=False)
    recs = {r["id"]: r for r in results(out)}
    assert recs["in"]["error"] is None
    for qid in ("dotdot", "dotdot_missing", "absolute", "passwd", "symlink"):
        assert "leaves the images folder" in recs[qid]["error"], qid  # same words, exists or not


def test_images_outside_the_folder_are_read_when_allowed(outside, tmp_path):
    images, qpath = outside
    out = tmp_path / "out"
    run_attribute(make_fp(), images, out, questions=qpath, progress=False,
                  allow_outside_images=True)
    recs = {r["id"]: r for r in results(out)}
    for qid in ("in", "dotdot", "absolute", "symlink"):
        assert recs[qid]["error"] is None, qid
    assert "not found" in recs["dotdot_missing"]["error"]


# -- 6: high bit depth ----------------------------------------------------------------------

def test_16_bit_grey_png_keeps_its_content(tmp_path):
    grey = draw_chart()[:, :, 0].astype(np.uint16) * 257
    path = tmp_path / "grey16.png"
    Image.fromarray(grey).save(path)
    assert Image.open(path).mode.startswith("I")
    arr = load_image(path)
    assert arr.dtype == np.uint8 and arr.shape == (*grey.shape, 3)
    assert np.array_equal(arr[:, :, 0], draw_chart()[:, :, 0])
    assert np.array_equal(load_image(grey), arr)


@pytest.mark.parametrize("pixels", [np.full((8, 8, 3), "x", dtype=object),
                                    np.full((8, 8), 1 + 2j), np.full((8, 8), -5, np.int32)])
def test_unusable_pixel_types_are_refused(pixels):
    with pytest.raises(ImageLoadError, match="pixel"):
        load_image(pixels, name="weird")


# -- 10: memory does not grow with images; pixel cap ------------------------------------------

def test_batch_keeps_no_parsed_charts(clashing, tmp_path):
    images, qpath = clashing
    fp = make_fp()
    run_attribute(fp, images, tmp_path / "out", questions=qpath, progress=False)
    assert fp._cache == {}  # noqa: SLF001 - the cache is what held every chart's two images
    run_parse(fp, images, tmp_path / "p", progress=False)
    assert fp._cache == {}  # noqa: SLF001


def test_pixel_cap_has_a_clear_error_and_can_be_raised(tmp_path):
    img = np.full((100, 120, 3), 255, np.uint8)
    with pytest.raises(ImageLoadError, match=r"over the 0\.01 Mpx limit.*--max-pixels"):
        load_image(img, name="big.png", max_pixels=10_000)
    assert load_image(img, max_pixels=12_000).shape == (100, 120, 3)
    save_image(draw_chart(), tmp_path / "images" / "c.png")
    qpath = write_questions(tmp_path / "q.jsonl", [{"id": "q", "image": "c.png", "question": Q,
                                                      "answer": A}])
    s = run_attribute(make_fp(max_pixels=50_000), tmp_path / "images", tmp_path / "o1",
                      questions=qpath, progress=False)
    assert s["failed"] == 1 and "--max-pixels" in s["errors"][0]["error"]
    s = run_attribute(make_fp(max_pixels=90_000), tmp_path / "images", tmp_path / "o2",
                      questions=qpath, progress=False)
    assert s["failed"] == 0


# -- 11: overlay names ----------------------------------------------------------------------

def test_overlay_names_never_collide_or_overflow(tmp_path):
    images = tmp_path / "images"
    save_image(draw_chart(), images / "c.png")
    ids = ["x.1", "x.2", "a/b", "a b", "a%2Fb", ".hidden", "y" * 5000, "y" * 4999 + "z"]
    qpath = write_questions(tmp_path / "q.jsonl", [
        {"id": i, "image": "c.png", "question": Q, "answer": A} for i in ids])
    out = tmp_path / "out"
    s = run_attribute(make_fp(), images, out, questions=qpath, progress=False)
    assert s["failed"] == 0
    overlays = [r["overlay"] for r in results(out)]
    assert len(set(overlays)) == len(ids)
    assert all((out / o).is_file() and len(os.path.basename(o)) < 255 for o in overlays)
    assert len({output_name(i) for i in ids}) == len(ids)


# -- 12: one run per folder, one questions file per folder, ordinary file modes ---------------

def test_second_questions_file_into_the_same_out_is_refused(tmp_path):
    images = tmp_path / "images"
    save_image(draw_chart(), images / "c.png")
    first = write_questions(tmp_path / "a.jsonl", [
        {"id": f"q{i}", "image": "c.png", "question": Q, "answer": A} for i in range(4)])
    second = write_questions(tmp_path / "b.jsonl", [
        {"id": "q0", "image": "c.png", "question": "Where does the chart start?", "answer": "Start"}])
    out = tmp_path / "out"
    run_attribute(make_fp(), images, out, questions=first, progress=False)
    with pytest.raises(InputError, match="different questions file"):
        run_attribute(make_fp(), images, out, questions=second, progress=False)
    assert len(results(out)) == 4
    assert run_attribute(make_fp(), images, out, questions=first, progress=False)["resumed"] == 4


def test_a_second_run_into_a_busy_out_is_refused(tmp_path):
    from filelock import FileLock

    save_image(draw_chart(), tmp_path / "images" / "c.png")
    qpath = write_questions(tmp_path / "q.jsonl", [{"id": "q", "image": "c.png", "question": Q,
                                                      "answer": A}])
    out = tmp_path / "out"
    out.mkdir()
    with FileLock(out / ".flowpath.lock"):
        with pytest.raises(InputError, match="another flowpath run"):
            run_attribute(make_fp(), tmp_path / "images", out, questions=qpath, progress=False)
        with pytest.raises(InputError, match="another flowpath run"):
            run_parse(make_fp(), tmp_path / "images", out, progress=False)
    assert not (out / "results.jsonl").exists()
    assert run_attribute(make_fp(), tmp_path / "images", out, questions=qpath,
                         progress=False)["ok"] == 1


def test_output_files_get_the_umask_mode(tmp_path):
    save_image(draw_chart(), tmp_path / "images" / "c.png")
    qpath = write_questions(tmp_path / "q.jsonl", [{"id": "q", "image": "c.png", "question": Q,
                                                      "answer": A}])
    out = tmp_path / "out"
    old = os.umask(0o027)
    try:
        import importlib

        import flowpath.io
        importlib.reload(flowpath.io)  # the umask is read once, at import
        from flowpath import batch
        importlib.reload(batch)
        batch.run_attribute(make_fp(), tmp_path / "images", out, questions=qpath, progress=False)
    finally:
        os.umask(old)
        importlib.reload(flowpath.io)
        importlib.reload(batch)
    for name in ("results.jsonl", "summary.json", "report.html", "overlays/q.png"):
        assert stat.S_IMODE((out / name).stat().st_mode) == 0o640, name


def test_cli_flags_reach_the_batch(outside, tmp_path):
    from flowpath.cli import main

    images, qpath = outside
    base = ["-q", "attribute", str(images), "--questions", str(qpath), "--segmenter", "classical",
            "--transcriber", "source", "--no-report", "--no-overlays"]
    assert main([*base, "--out", str(tmp_path / "o1")]) == 1
    recs = {r["id"]: r for r in results(tmp_path / "o1")}
    assert recs["in"]["error"] is None and "leaves" in recs["dotdot"]["error"]
    assert main([*base, "--out", str(tmp_path / "o2"), "--allow-outside-images"]) == 1
    recs = {r["id"]: r for r in results(tmp_path / "o2")}
    assert recs["dotdot"]["error"] is None and recs["symlink"]["error"] is None
    assert main([*base, "--out", str(tmp_path / "o3"), "--max-pixels", "1000"]) == 1
    recs = {r["id"]: r for r in results(tmp_path / "o3")}
    assert "--max-pixels" in recs["in"]["error"]
