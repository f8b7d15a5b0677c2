"""train_flow2mermaid.py under ``accelerate launch --num_processes 2 --cpu`` (gloo) and on one
process, on a tiny random-init Qwen2-VL: the LR schedule ends exactly at the last optimizer step,
each process trains on its own shard, checkpoints are written once and load back, and a run
interrupted after a checkpoint and resumed ends where an uninterrupted one ends, with the same
adapter weights."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.markers import require_peft, require_transformers
from tests.training.launch_helpers import (
    assert_lr_on_schedule,
    assert_no_pickles,
    assert_own_shards,
    final_scheduler_lr,
    interrupted_copy,
    launch,
    logged_lrs,
)

pytestmark = [require_transformers, require_peft, pytest.mark.slow]

N_RECORDS, LR = 8, 1e-2
MERMAIDS = ['flowchart TD\n    A(["Start"]) --> B{"x > 3?"}\n    B -->|"Yes"| C["Double"]\n',
            'flowchart TD\n    A(["Begin"]) --> B[/"Read"/]\n    B --> C["Count"]\n']


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    """8 SFT records and a config of 2 epochs, batch 1 x accumulation 2, a checkpoint every 2 steps."""
    import yaml
    from PIL import Image

    from flowpath.transcribe.qwen2vl import FLOW2MERMAID_PROMPT

    d = tmp_path_factory.mktemp("f2m_mp")
    (d / "sft").mkdir()
    lines = []
    for i in range(N_RECORDS):
        img = np.full((84, 112, 3), 255, np.uint8)
        img[10 + i:40 + i, 20:90] = (30 * i) % 255
        Image.fromarray(img).save(d / "sft" / f"c{i}.png")
        lines.append(json.dumps({"id": f"c{i}", "images": [f"sft/c{i}.png"], "messages": [
            {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": FLOW2MERMAID_PROMPT}]},
            {"role": "assistant", "content": [{"type": "text", "text": MERMAIDS[i % 2]}]}]}))
    (d / "sft.jsonl").write_text("\n".join(lines) + "\n")
    cfg = {"base_model": "tiny", "train_jsonl": str(d / "sft.jsonl"), "output_dir": str(d / "unused"),
           "num_train_epochs": 2, "per_device_train_batch_size": 1, "gradient_accumulation_steps": 2,
           "learning_rate": LR, "lr_scheduler_type": "linear", "lora_r": 2, "lora_alpha": 4,
           "lora_dropout": 0.0, "min_pixels": 4 * 28 * 28, "max_pixels": 8 * 28 * 28, "max_length": 512,
           "logging_steps": 1, "save_steps": 2, "save_total_limit": 5, "tiny_vocab": 300, "seed": 0}
    (d / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    return d / "cfg.yaml"


@pytest.fixture(scope="module")
def two_process_run(config, tmp_path_factory):
    root = tmp_path_factory.mktemp("f2m_run2")
    launch("train_flow2mermaid.py", ["--config", str(config), "--output_dir", str(root / "run")],
           processes=2, record_dir=root / "seen")
    return root


def _expected_steps(processes: int) -> int:
    return 2 * N_RECORDS // (processes * 2)  # epochs * records / (processes * batch * accumulation)


def _assert_schedule_ends_at_last_step(run, processes):
    steps = _expected_steps(processes)
    summary = json.loads((run / "summary.json").read_text())
    assert summary["steps"] == steps
    assert_lr_on_schedule(run, steps, "linear", LR)


def test_lr_schedule_ends_exactly_at_the_last_step_on_one_process(config, tmp_path):
    from training import train_flow2mermaid

    assert train_flow2mermaid.main(["--config", str(config), "--output_dir", str(tmp_path / "run")]) == 0
    _assert_schedule_ends_at_last_step(tmp_path / "run", processes=1)


def test_lr_schedule_ends_exactly_at_the_last_step_on_two_processes(two_process_run):
    _assert_schedule_ends_at_last_step(two_process_run / "run", processes=2)


def test_each_process_trains_on_its_own_shard(two_process_run):
    assert_own_shards(two_process_run / "seen", N_RECORDS, epochs=2)


def test_checkpoints_are_written_once_and_load_back(two_process_run):
    from flowpath.transcribe import make_transcriber

    run = two_process_run / "run"
    assert sorted(p.name for p in run.glob("checkpoint-*")) == ["checkpoint-2", "checkpoint-4"]
    for ck in run.glob("checkpoint-*"):
        assert (ck / "adapter_model.safetensors").is_file()
        assert {p.name for p in ck.glob("rng_state*")} == {"rng_state_0.safetensors", "rng_state_1.safetensors"}
        assert_no_pickles(ck)
    tr = make_transcriber("qwen2vl", base=str(run / "base"), adapter=str(run / "checkpoint-2"))
    assert tr.processor.image_processor.size.longest_edge == 8 * 28 * 28


def test_interrupted_run_resumes_to_the_same_end(two_process_run, config, tmp_path):
    """A run killed after checkpoint-2 and restarted with --resume ends at the same step and LR,
    with the same adapter weights, as the uninterrupted run (model, optimizer, scheduler and RNG
    restored); without --resume the non-empty output_dir is refused."""
    import torch
    from safetensors.torch import load_file

    run = interrupted_copy(two_process_run / "run", tmp_path / "run", keep_step=2)
    from training import train_flow2mermaid

    assert train_flow2mermaid.main(["--config", str(config), "--output_dir", str(run)]) == 2  # refused
    launch("train_flow2mermaid.py", ["--config", str(config), "--output_dir", str(run), "--resume"],
           processes=2, record_dir=tmp_path / "seen")
    ref = two_process_run / "run"
    summary = json.loads((run / "summary.json").read_text())
    assert summary["steps"] == _expected_steps(2) and summary["resumed_from"].endswith("checkpoint-2")
    assert final_scheduler_lr(run / "checkpoint-4") == final_scheduler_lr(ref / "checkpoint-4")
    assert logged_lrs(run)[4] == logged_lrs(ref)[4]
    got, want = load_file(run / "adapter" / "adapter_model.safetensors"), load_file(ref / "adapter" / "adapter_model.safetensors")
    assert got.keys() == want.keys()
    assert all(torch.allclose(got[k], want[k], atol=1e-6) for k in want)
