"""Run bookkeeping both trainers share: the output-directory policy (refuse, resume or
overwrite), checkpoints free of pickles, rank-aware, and the training log."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from training.config import CommonTrainingArguments, ConfigError

#: the one pickle the Trainer still writes into checkpoint-N (a whole pickled
#: ``TrainingArguments``, which resuming does not need: the run's YAML config is saved instead);
#: the optimizer, scheduler, scaler and RNG state it keeps for ``--resume`` are written as
#: safetensors by `training.trainer_state.SafetensorsStateTrainer`
UNSAFE_CHECKPOINT_FILES = ("training_args.bin",)


def newest_checkpoint(output_dir: str | Path) -> Path | None:
    """The ``checkpoint-N`` folder with the largest N in ``output_dir`` (``None`` if there is none)."""
    found = [p for p in Path(output_dir).glob("checkpoint-*") if p.is_dir() and p.name.split("-")[-1].isdigit()]
    return max(found, key=lambda p: int(p.name.split("-")[-1])) if found else None


def distributed_state() -> Any:
    """This process's ``accelerate.PartialState``. On a machine without CUDA it is created for
    the CPU, so processes started by ``accelerate launch --multi_gpu --num_processes N`` (torchrun)
    join one gloo group; the Trainer's ``use_cpu`` then finds it ready."""
    import torch
    from accelerate import PartialState

    return PartialState(cpu=not torch.cuda.is_available())


def prepare_run(cfg: CommonTrainingArguments) -> Path | None:
    """Apply the output-directory policy on every process; returns the checkpoint to resume from.

    A new run refuses an ``output_dir`` that holds anything (a stale ``checkpoint-N`` must not
    be mixed into it); ``resume`` continues from the newest checkpoint there (model, optimizer,
    scheduler, RNG and data position); ``overwrite_output_dir`` empties it first. Every process
    decides on the same view of the folder; the main process alone deletes.

    Raises:
        ConfigError: a non-empty ``output_dir`` without ``resume``/``overwrite_output_dir``, or
            ``resume`` with no checkpoint to resume from.
    """
    state = distributed_state()
    out = Path(cfg.output_dir)
    resume_from: Path | None = None
    if cfg.resume:
        resume_from = newest_checkpoint(out)
        if resume_from is None:
            raise ConfigError(f"resume: no checkpoint-N folder in output_dir {out}")
    elif out.is_dir() and any(out.iterdir()) and not cfg.overwrite_output_dir:
        raise ConfigError(f"output_dir {out} is not empty: pass --resume to continue the run in it "
                          "or --overwrite_output_dir to start afresh")
    state.wait_for_everyone()  # every process has looked before anything is deleted or written
    if state.is_main_process:
        if cfg.overwrite_output_dir and out.is_dir():
            shutil.rmtree(out)
        out.mkdir(parents=True, exist_ok=True)
    state.wait_for_everyone()
    return resume_from


def checkpoint_callback(complete: Callable[[Path], None] | None = None) -> Any:
    """A Trainer callback run on the main process after each ``checkpoint-N`` is written: it
    removes `UNSAFE_CHECKPOINT_FILES` and calls ``complete(folder)`` (e.g. to add the files
    inference needs). Other processes do nothing, so no two processes touch the same file."""
    from transformers import TrainerCallback

    class CheckpointFiles(TrainerCallback):
        def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            if not state.is_world_process_zero:
                return
            ckpt = Path(args.output_dir) / f"checkpoint-{state.global_step}"
            for name in UNSAFE_CHECKPOINT_FILES:
                (ckpt / name).unlink(missing_ok=True)
            if complete is not None and ckpt.is_dir():
                complete(ckpt)

    return CheckpointFiles()


def write_log(log_history: list[dict[str, Any]], path: str | Path) -> None:
    """The Trainer's log history (loss, learning rate, evaluation) as JSON lines."""
    from flowpath.io import atomic_write_text

    atomic_write_text(Path(path), "".join(json.dumps(rec) + "\n" for rec in log_history))
