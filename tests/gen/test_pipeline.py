"""End to end through ``python -m data_gen``'s main(): real Chromium, cairosvg, pycocotools,
the shared labeller and the Mermaid parser. Small counts keep it to seconds per run."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.markers import require_chromium

pytestmark = [require_chromium, pytest.mark.chromium]


@pytest.fixture(scope="module")
def small_set(tmp_path_factory):
    from data_gen.cli import main

    out = tmp_path_factory.mktemp("gen") / "set"
    rc = main([str(out), "--count", "4", "--min-nodes", "5", "--max-nodes", "12", "--seed", "3",
               "--workers", "1", "--outputs", "bench,coco,sft", "--graphviz", "0.25",
               "--contact-sheet", str(out / "contact.png")])
    assert rc == 0
    return out


def test_benchmark_layout_loads_with_flowpath_bench(small_set):
    from flowpath.datasets.febench import STYLE_FAMILIES, Benchmark

    charts = sorted((small_set / "charts").glob("*.json"))
    assert len(charts) == 4
    bench = Benchmark(small_set)
    for f in charts:
        d = json.loads(f.read_text())
        assert {"mermaid", "width", "height", "scale", "nodes", "style", "edges", "domain"} <= set(d)
        assert d["style"]["family"] in STYLE_FAMILIES
        c = bench.chart(f.stem)
        assert c.image_path.is_file() and c.regions and c.style_family == d["style"]["family"]
        from PIL import Image

        assert Image.open(c.image_path).size == (d["width"], d["height"])
        for r in c.regions.values():
            assert 0 <= r.bbox[0] < r.bbox[2] <= d["width"] and 0 <= r.bbox[1] < r.bbox[3] <= d["height"]
        for e in d["edges"]:
            assert e["source"] in d["nodes"] and e["target"] in d["nodes"]
    assert (small_set / "contact.png").stat().st_size > 10_000


def test_coco_loads_in_pycocotools(small_set):
    from pycocotools.coco import COCO

    coco = COCO(str(small_set / "coco.json"))
    assert coco.loadCats(coco.getCatIds())[0]["name"] == "node"
    n_nodes = sum(len(json.loads(f.read_text())["nodes"]) for f in (small_set / "charts").glob("*.json"))
    assert len(coco.getAnnIds()) == n_nodes
    img = coco.loadImgs(coco.getImgIds()[0])[0]
    assert (small_set / img["file_name"]).is_file()
    for ann in coco.loadAnns(coco.getAnnIds(imgIds=img["id"])):
        m = coco.annToMask(ann)
        assert m.shape == (img["height"], img["width"])
        assert abs(int(m.sum()) - ann["area"]) <= 0.1 * ann["area"] + 50


def test_sft_records_are_chat_messages_with_letter_ids(small_set):
    from flowpath.mermaid import parse_mermaid

    lines = (small_set / "sft.jsonl").read_text().splitlines()
    assert len(lines) == 4
    for line in lines:
        rec = json.loads(line)
        user, assistant = rec["messages"]
        assert user["role"] == "user" and assistant["role"] == "assistant"
        assert [c["type"] for c in user["content"]] == ["image", "text"]
        assert (small_set / rec["images"][0]).is_file()
        target = parse_mermaid(assistant["content"][0]["text"])
        letters = sorted(rec["letters"].values())
        assert sorted(target.nodes) == letters
        # the letters are the labeller's reading order over the chart's regions
        src = json.loads((small_set / "charts" / f"{rec['id']}.json").read_text())
        assert set(rec["letters"]) == set(src["nodes"])
        # the labelled image differs from the chart only by red ink
        from PIL import Image

        a = np.asarray(Image.open(small_set / "charts" / f"{rec['id']}.png").convert("RGB")).astype(int)
        b = np.asarray(Image.open(small_set / rec["images"][0]).convert("RGB")).astype(int)
        diff = np.abs(a - b).sum(-1) > 30
        assert diff.any() and (b[diff][:, 0] > b[diff][:, 1] + 60).mean() > 0.5


def test_resume_skips_done_charts_and_reproduces_the_rest(small_set, tmp_path):
    import shutil

    from data_gen.cli import main

    out = tmp_path / "copy"
    shutil.copytree(small_set, out)
    victim = sorted((out / "charts").glob("*.json"))[1]
    kept = {f.name: f.stat().st_mtime_ns for f in (out / "charts").glob("*.json") if f != victim}
    before = json.loads(victim.read_text())
    victim.unlink()
    rc = main([str(out), "--count", "4", "--min-nodes", "5", "--max-nodes", "12", "--seed", "3",
               "--workers", "0", "--outputs", "bench,coco,sft", "--graphviz", "0.25"])
    assert rc == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["charts_skipped_existing"] == 3 and summary["charts_written"] == 1
    assert {f.name: f.stat().st_mtime_ns for f in (out / "charts").glob("*.json") if f.name in kept} == kept
    after = json.loads(victim.read_text())
    # seeded: the re-made chart is the same chart, same style, same regions
    assert after["mermaid"] == before["mermaid"] and after["style"] == before["style"]
    for nid, n in before["nodes"].items():
        assert np.allclose(after["nodes"][nid]["bbox"], n["bbox"], atol=0.5)


# workers 0: one page in this process; workers 2: one long-lived page per worker process
@pytest.mark.parametrize("workers", ["0", "2"])
def test_bad_mermaid_is_recorded_and_the_run_goes_on(tmp_path, workers):
    from data_gen.cli import main

    src = tmp_path / "charts.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in [
        {"id": "good1", "mermaid": "flowchart TD\n  A([Start]) --> B{Ok?}\n  B -->|Yes| C[Work]\n  B -->|No| D([End])"},
        {"id": "bad1", "mermaid": "flowchart TD\n  A[unclosed --> B"},
        {"id": "good2", "mermaid": "flowchart LR\n  X[Read] --> Y[(Store)]"},
    ]) + "\n")
    out = tmp_path / "user"
    rc = main([str(out), "--input", str(src), "--workers", workers, "--outputs", "bench,sft", "--styles", "black_white"])
    assert rc == 1  # some chart failed
    assert sorted(p.stem for p in (out / "charts").glob("*.json")) == ["good1", "good2"]
    errs = [json.loads(line) for line in (out / "errors.jsonl").read_text().splitlines()]
    assert [e["id"] for e in errs] == ["bad1"] and errs[0]["stage"] == "mermaid"
    assert "Parse error" in errs[0]["error"] or "Expecting" in errs[0]["error"]
    assert len((out / "sft.jsonl").read_text().splitlines()) == 2


def test_bad_options_are_clear_errors(tmp_path, capsys):
    from data_gen.cli import main

    assert main([str(tmp_path / "x"), "--input", str(tmp_path / "missing.mmd")]) == 2
    assert "not found" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(tmp_path / "x"), "--styles", "neon"])


def test_config_files_load_and_bad_keys_fail_fast(tmp_path):
    from data_gen.cli import _apply_config, build_parser
    from data_gen.pipeline import RENDERERS
    from data_gen.styles import FAMILIES
    from tests.markers import REPO_ROOT

    for cfg in sorted((REPO_ROOT / "configs").glob("gen_*.yaml")):
        parser = build_parser()
        _apply_config(parser, ["out", "--config", str(cfg)])
        args = parser.parse_args(["out", "--config", str(cfg), "--seed", "5"])
        assert args.seed == 5 and args.count > 0 and set(args.styles) <= set(FAMILIES)
        assert set(args.renderers) <= set(RENDERERS) and 0 <= args.photo <= 1
        if "eval" in cfg.stem:
            assert args.split == "eval"  # held-out palettes and fonts
    bad = tmp_path / "bad.yaml"
    bad.write_text("styles: [neon]\n")
    with pytest.raises(SystemExit):
        _apply_config(build_parser(), ["out", "--config", str(bad)])


def test_browser_and_cairo_rasterisers_agree(tmp_path):
    """Same seed, both rasterisers: same size, near-identical pixels (so the regions, computed
    once from the geometry, fit either picture)."""
    from PIL import Image

    from data_gen.cli import main

    for r in ("cairo", "browser"):
        assert main([str(tmp_path / r), "--count", "2", "--max-nodes", "8", "--seed", "9",
                     "--workers", "0", "--rasterizer", r]) == 0
    for f in sorted((tmp_path / "cairo" / "charts").glob("*.png")):
        a = np.asarray(Image.open(f).convert("RGB")).astype(int)
        b = np.asarray(Image.open(tmp_path / "browser" / "charts" / f.name).convert("RGB")).astype(int)
        assert a.shape == b.shape
        assert np.abs(a - b).mean() < 6 and (np.abs(a - b).sum(-1) > 100).mean() < 0.05
