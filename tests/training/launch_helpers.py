"""Shared pieces of the multi-process training tests: ``accelerate launch --cpu`` (gloo) of a
training script, and what a finished run left behind."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.markers import REPO_ROOT


def launch(script: str, args: list[str], *, processes: int, record_dir: Path, timeout: int = 300) -> str:
    """Run ``training/SCRIPT`` on ``processes`` CPU processes; returns its output, asserts success."""
    record_dir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1",
           "FLOWPATH_RECORD_DIR": str(record_dir), "TOKENIZERS_PARALLELISM": "false"}
    # `--cpu` would start one process (accelerate runs several CPU processes only through MPI);
    # `--multi_gpu` starts them with torchrun, and without CUDA they join a gloo group
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", str(processes),
           "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
           str(REPO_ROOT / "tests" / "training" / "record_samples.py"), str(REPO_ROOT / "training" / script), *args]
    proc = subprocess.run(cmd, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    assert "FileNotFoundError" not in out
    return out


def seen(record_dir: Path, rank: int) -> list[int]:
    return [int(x) for x in (record_dir / f"seen-{rank}.txt").read_text().split()]


def logged_lrs(run: Path) -> dict[int, float]:
    """The learning rate each optimizer step ran at (the Trainer logs it per step here)."""
    return {r["step"]: r["learning_rate"] for r in map(json.loads, (run / "train_log.jsonl").read_text().splitlines())
            if "learning_rate" in r}


def final_scheduler_lr(checkpoint: Path) -> float:
    """The learning rate the saved scheduler would set for the next step."""
    from training.trainer_state import SCHEDULER_FILE, load_state

    state = load_state(checkpoint / SCHEDULER_FILE)
    return float(state["_last_lr"][0])


def schedule(kind: str, lr: float, step: int, total: int) -> float:
    """The LR of (1-based) optimizer ``step`` of ``total`` without warm-up."""
    done = (step - 1) / total
    return lr * (1 - done) if kind == "linear" else lr * 0.5 * (1 + math.cos(math.pi * done))


def interrupted_copy(run: Path, dest: Path, keep_step: int) -> Path:
    """What a run killed right after writing ``checkpoint-KEEP_STEP`` leaves: that checkpoint and
    the earlier ones, no later checkpoint and no final outputs."""
    dest.mkdir(parents=True)
    for ck in run.glob("checkpoint-*"):
        if int(ck.name.split("-")[1]) <= keep_step:
            shutil.copytree(ck, dest / ck.name)
    if (run / "base").is_dir():  # the tiny Qwen2-VL the run built before its first step
        shutil.copytree(run / "base", dest / "base")
    return dest


def assert_lr_on_schedule(run: Path, steps: int, kind: str, lr: float) -> None:
    """Every one of the run's ``steps`` optimizer steps ran at its scheduled LR (never zero
    before the end), and the scheduler saved with the last step ends at 0."""
    import pytest

    lrs = logged_lrs(run)
    assert sorted(lrs) == list(range(1, steps + 1))
    for step, got in lrs.items():
        assert got == pytest.approx(schedule(kind, lr, step, steps), rel=1e-6, abs=1e-12)
    assert final_scheduler_lr(run / f"checkpoint-{steps}") == pytest.approx(0.0, abs=1e-12)


def assert_own_shards(record_dir: Path, items: int, epochs: int) -> None:
    """Two processes loaded disjoint halves of the ``items`` indices in every epoch."""
    per_epoch = items // 2
    a, b = seen(record_dir, 0), seen(record_dir, 1)
    assert len(a) == len(b) == epochs * per_epoch
    for e in range(epochs):
        sa, sb = set(a[e * per_epoch:(e + 1) * per_epoch]), set(b[e * per_epoch:(e + 1) * per_epoch])
        assert not sa & sb and sa | sb == set(range(items))


def assert_no_pickles(checkpoint: Path) -> None:
    """A checkpoint folder holds no torch/pickle file: weights and trainer state are safetensors."""
    pickles = sorted(p.name for p in checkpoint.rglob("*") if p.suffix in {".pt", ".pth", ".bin", ".pkl"})
    assert not pickles, f"pickle files in {checkpoint}: {pickles}"
