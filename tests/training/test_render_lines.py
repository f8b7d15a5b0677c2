"""Real-render lines (`training.render_lines`): a real generated chart (Chromium, the real
transcriber's crops) gives (line image, gold line) pairs, and two CPU steps from the shipped
weights train on them (real torch)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from tests.markers import REPO_ROOT, require_chromium, require_transformers

pytestmark = [require_chromium, pytest.mark.chromium]


@pytest.fixture(scope="module")
def lines_folder(tmp_path_factory):
    from training.render_lines import build

    root = tmp_path_factory.mktemp("realline")
    # wild Mermaid: browser text, the web degrade pass; long labels wrap onto several lines. The
    # generator runs in its own process: in the whole suite the session's shared Playwright
    # renderer (tests/gen/conftest.py) holds this thread's event loop, and a second sync
    # Playwright started beside it fails ("Sync API inside the asyncio loop")
    subprocess.run([sys.executable, "-m", "data_gen", str(root / "charts"), "--count", "2", "--min-nodes", "6",
                    "--max-nodes", "8", "--seed", "5", "--workers", "0", "--styles", "wild", "--split", "train"],
                   cwd=REPO_ROOT, check=True, capture_output=True)
    summary = build([root / "charts"], root / "lines")
    return root, summary


def test_builder_cuts_each_node_into_its_gold_lines(lines_folder):
    import cv2

    root, summary = lines_folder
    records = [json.loads(line) for line in (root / "lines" / "lines.jsonl").read_text().splitlines()]
    assert {r["kind"] for r in records} == {"clean", "grey"}
    # most nodes align (the share is reported, not asserted exactly)
    assert summary["kept_share"]["mermaid/clean/nodes"] > 0.5
    gold = {}
    for f in (root / "charts" / "charts").glob("*.json"):
        for node, v in json.loads(f.read_text())["nodes"].items():
            gold[(f.stem, node)] = [" ".join(x.split()) for x in v["text"].split("\n") if x.strip()]
    multi = 0
    for r in records:
        lines = gold[(r["chart"], r["node"])]
        i = int(r["file"].rsplit("_", 1)[1].split(".")[0])
        assert r["text"] == lines[i]  # the i-th cut line carries the i-th gold line
        multi += i > 0
        image = cv2.imread(str(root / "lines" / r["file"]), cv2.IMREAD_GRAYSCALE)
        assert image.ndim == 2 and (image < 128).any() and (image > 200).any()  # ink on paper
        assert image.shape[0] < 3 * image.shape[1]  # one line: wider than it is tall-ish
    assert multi > 0  # a wrapped label became several lines


def test_lines_that_do_not_match_the_gold_line_count_are_dropped():
    from flowpath.transcribe.ocr.crops import TextCrop
    from training.render_lines import aligned_lines

    image = np.full((40, 80), 255, np.uint8)
    image[5:14, 5:70] = 0  # one line of ink
    image[25:34, 5:40] = 0  # a second line
    crop = TextCrop(image)
    pairs = aligned_lines(crop, "first line\nsecond")
    assert pairs is not None and [t for _, t in pairs] == ["first line", "second"]
    assert pairs[0][0].shape[0] < 20 and (pairs[0][0] < 128).any()
    assert aligned_lines(crop, "one line only") is None
    assert aligned_lines(None, "text") is None


@require_transformers
def test_two_steps_from_the_shipped_weights_on_real_lines(lines_folder, tmp_path):
    from flowpath.transcribe.ocr.recogniser import LineRecogniserEngine
    from training.train_text_recogniser import main

    root, _ = lines_folder
    out = tmp_path / "run"
    args = ["--config", str(REPO_ROOT / "configs" / "text_recogniser_real_ft.yaml"), "--output_dir", str(out),
            "--real_lines", str(root / "lines"), "--real_val", str(root / "lines"), "--real_max_line_h", "none",
            "--max_steps", "2", "--per_device_train_batch_size", "4", "--val_lines", "3",
            "--logging_steps", "1", "--eval_steps", "2", "--save_steps", "2"]
    assert main(args) == 0
    log = [json.loads(line) for line in (out / "train_log.jsonl").read_text().splitlines()]
    assert log[0]["step"] == 0 and "val_cer_real" in log[0] and "val_cer_real/mermaid" in log[-1]
    assert any(k.startswith("val_cer_real/blur") for k in log[-1])
    record = json.loads((out / "train_record.json").read_text())
    assert record["real_line_count"] > 0 and record["real_share"] > 0
    assert LineRecogniserEngine(out / "checkpoint-2").name == "textrec"
    # the grey model trains on the same charts' grey crops
    grey = tmp_path / "grey"
    assert main([*args[:3], str(grey), *args[4:], "--init_from", str(REPO_ROOT / "flowpath" / "resources"
                                                                       / "text_recogniser_grey"),
                 "--grey_input", "true"]) == 0
    assert LineRecogniserEngine(grey).name == "greyrec"


@pytest.fixture(scope="module")
def blur_pair(tmp_path_factory):
    """One wild Graphviz chart of small print rendered twice: the wild pass's blur always on
    (``--wild-blur 1``) and never (``--wild-blur 0``); the same graph, style and draws otherwise."""
    root = tmp_path_factory.mktemp("blurpair")
    for name, chance in (("blurred", "1"), ("sharp", "0")):
        subprocess.run([sys.executable, "-m", "data_gen", str(root / name), "--count", "1", "--min-nodes", "4",
                        "--max-nodes", "6", "--seed", "22", "--workers", "0", "--styles", "wild", "--renderers",
                        "graphviz", "--split", "train", "--wild-blur", chance, "--prefix", name],
                       cwd=REPO_ROOT, check=True, capture_output=True)
    return root


def _labelled(folder):
    """The folder's one chart, its gold node regions labelled, and the chart record."""
    from flowpath.datasets.febench import Benchmark
    from flowpath.io import load_image
    from flowpath.labeller import draw_labels
    from flowpath.models.base import LabelledChart

    bench = Benchmark(folder)
    chart = bench.chart(bench.chart_ids[0])
    image = load_image(chart.image_path)
    ids = list(chart.regions)
    labelled, regions = draw_labels(image, [chart.regions[k] for k in ids], names=ids)
    return LabelledChart(image, labelled, regions, "")


@require_transformers
def test_blurred_lines_train_a_specialist_that_reads_only_blurred_renders(blur_pair, tmp_path, monkeypatch):
    from flowpath.transcribe.ocr import OCRTranscriber, recogniser
    from flowpath.transcribe.ocr.grey_print import is_blurred
    from flowpath.transcribe.ocr.recogniser import LineRecogniserEngine
    from training.render_lines import build
    from training.train_text_recogniser import main

    # the builder keeps the lines of the chart the transcriber's own measure calls blurred
    lines = tmp_path / "lines"
    summary = build([blur_pair / "blurred", blur_pair / "sharp"], lines, blurred_only=True)
    assert summary["seen"]["charts"] == 2 and summary["kept"]["charts"] == 1
    records = [json.loads(line) for line in (lines / "lines.jsonl").read_text().splitlines()]
    assert records and all(r["chart"].startswith("blurred") and is_blurred(r["sharpness"]) for r in records)
    # two real CPU steps from the shipped grey weights build loadable specialist weights
    out = tmp_path / "blur"
    assert main(["--config", str(REPO_ROOT / "configs" / "text_recogniser_blur_specialist.yaml"),
                 "--output_dir", str(out), "--real_lines", str(lines), "--real_val", str(lines),
                 "--max_steps", "2", "--per_device_train_batch_size", "4", "--val_lines", "3",
                 "--logging_steps", "1", "--eval_steps", "2", "--save_steps", "2"]) == 0
    assert LineRecogniserEngine(out).config.grey_input
    # the transcriber hands the blurred render's small print to them, the sharp render's not
    monkeypatch.setattr(recogniser, "BLUR_MODEL_DIR", out)
    tr = OCRTranscriber(workers=1, blur_model=True)
    blurred, sharp = (tr([_labelled(blur_pair / name)])[0] for name in ("blurred", "sharp"))
    assert blurred.meta["grey_reader"] == "blurrec" and is_blurred(blurred.meta["stroke_sharpness"])
    assert sharp.meta["grey_reader"] == "greyrec" and not is_blurred(sharp.meta["stroke_sharpness"])
    # the sharp render reads exactly as with the specialist off: its weights never reach it
    off = OCRTranscriber(workers=1, blur_model=False)([_labelled(blur_pair / "sharp")])[0]
    assert off.mermaid == sharp.mermaid
