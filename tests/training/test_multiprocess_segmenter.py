"""train_segmenter.py under ``accelerate launch --num_processes 2`` on CPU (gloo) and on one
process, on a tiny random-init Mask2Former and whole synthetic charts: the cosine schedule ends
exactly at the last optimizer step, each process trains on its own shard, checkpoints are
written once (by the main process) and load as segmenters, and a run interrupted after a
checkpoint and resumed ends where an uninterrupted one ends, with the same weights."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.markers import require_transformers
from tests.training.launch_helpers import (
    assert_lr_on_schedule,
    assert_no_pickles,
    assert_own_shards,
    final_scheduler_lr,
    interrupted_copy,
    launch,
    logged_lrs,
)

pytestmark = [require_transformers, pytest.mark.slow]

N_CHARTS, LR = 4, 1e-3


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    """4 synthetic charts, whole-chart sampling, 2 epochs of batch 1, a checkpoint every step."""
    import yaml

    from tests.segment.synth import write_coco

    d = tmp_path_factory.mktemp("seg_mp")
    coco = write_coco(d / "data", n=N_CHARTS)
    cfg = {"train_data": [str(coco)], "output_dir": str(d / "unused"), "init": "scratch", "backbone": "resnet",
           "embed_dim": 16, "depths": [1, 1, 1, 1], "hidden_dim": 32, "encoder_layers": 1, "decoder_layers": 1,
           "num_queries": 8, "sampling": "whole", "short_side": 64, "max_side": 128, "num_train_epochs": 2,
           "learning_rate": LR, "lr_scheduler_type": "cosine", "per_device_train_batch_size": 1,
           "gradient_accumulation_steps": 1, "save_steps": 1, "save_total_limit": 10, "logging_steps": 1,
           "threads": 1, "seed": 0}
    (d / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    return d / "cfg.yaml"


@pytest.fixture(scope="module")
def two_process_run(config, tmp_path_factory):
    root = tmp_path_factory.mktemp("seg_run2")
    launch("train_segmenter.py", ["--config", str(config), "--output_dir", str(root / "run")],
           processes=2, record_dir=root / "seen")
    return root


def _assert_schedule_ends_at_last_step(run, processes):
    steps = 2 * N_CHARTS // processes
    record = json.loads((run / "final" / "train_record.json").read_text())
    assert record["steps"] == steps and record["processes"] == processes
    assert_lr_on_schedule(run, steps, "cosine", LR)


def test_lr_schedule_ends_exactly_at_the_last_step_on_one_process(config, tmp_path):
    from training import train_segmenter

    assert train_segmenter.main(["--config", str(config), "--output_dir", str(tmp_path / "run")]) == 0
    _assert_schedule_ends_at_last_step(tmp_path / "run", processes=1)


def test_lr_schedule_ends_exactly_at_the_last_step_on_two_processes(two_process_run):
    _assert_schedule_ends_at_last_step(two_process_run / "run", processes=2)


def test_each_process_trains_on_its_own_shard(two_process_run):
    assert_own_shards(two_process_run / "seen", N_CHARTS, epochs=2)


def test_checkpoints_are_written_once_and_load_as_segmenters(two_process_run):
    from flowpath.segment import Mask2FormerSegmenter

    run = two_process_run / "run"
    names = sorted(p.name for p in run.glob("checkpoint-*"))
    assert names == [f"checkpoint-{k}" for k in range(1, 5)]
    for ck in run.glob("checkpoint-*"):
        assert (ck / "model.safetensors").is_file()
        assert {p.name for p in ck.glob("rng_state*")} == {"rng_state_0.safetensors", "rng_state_1.safetensors"}
        assert_no_pickles(ck)
    seg = Mask2FormerSegmenter(run / "checkpoint-2", score_threshold=0.0)
    assert seg.short_side == 64
    seg([np.full((90, 200, 3), 255, np.uint8)])


def test_interrupted_run_resumes_to_the_same_end(two_process_run, config, tmp_path):
    import torch
    from safetensors.torch import load_file

    from training import train_segmenter

    run = interrupted_copy(two_process_run / "run", tmp_path / "run", keep_step=2)
    assert train_segmenter.main(["--config", str(config), "--output_dir", str(run)]) == 2  # refused
    launch("train_segmenter.py", ["--config", str(config), "--output_dir", str(run), "--resume"],
           processes=2, record_dir=tmp_path / "seen")
    ref = two_process_run / "run"
    assert json.loads((run / "final" / "train_record.json").read_text())["steps"] == 4
    assert final_scheduler_lr(run / "checkpoint-4") == final_scheduler_lr(ref / "checkpoint-4")
    assert logged_lrs(run)[4] == logged_lrs(ref)[4]
    got, want = load_file(run / "final" / "model.safetensors"), load_file(ref / "final" / "model.safetensors")
    assert got.keys() == want.keys()
    assert all(torch.allclose(got[k], want[k], atol=1e-5) for k in want)
