"""Resumable Trainer state written as safetensors, never as pickles.

The transformers `Trainer` keeps what ``--resume`` needs besides the weights (optimizer moments,
LR-scheduler counters, the RNG states of Python, NumPy and torch, the fp16 grad scaler) in
``torch.save`` pickles: ``optimizer.pt``, ``scheduler.pt``, ``rng_state*.pth``, ``scaler.pt``.
flowpath's rule is that checkpoints are safetensors, so `SafetensorsStateTrainer` writes each of
those objects as one safetensors file instead: the tensors as tensors, and the nesting around them
(dicts with int keys, tuples, plain numbers and strings) as a JSON skeleton in the file's
metadata. Loading rebuilds the exact object, so resuming is unchanged.

DeepSpeed, FSDP, XLA and SageMaker keep their own sharded formats; under those backends (which no
flowpath config uses) the Trainer's own methods run unchanged.
"""

from __future__ import annotations

import json
import logging
import os
import random
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors import safe_open
from safetensors.torch import save_file
from transformers import Trainer
from transformers.utils import is_sagemaker_mp_enabled, is_torch_xla_available

logger = logging.getLogger(__name__)

OPTIMIZER_FILE = "optimizer.safetensors"
SCHEDULER_FILE = "scheduler.safetensors"
SCALER_FILE = "scaler.safetensors"
_SKELETON_KEY = "flowpath_state"


def flatten_state(obj: Any) -> tuple[dict[str, torch.Tensor], str]:
    """Split a state object into its tensors and a JSON skeleton that places them.

    Args:
        obj: nested dicts (any JSON-able or int keys), lists, tuples, tensors, NumPy arrays and
            scalars, None, bool, int, float, str: what optimizers, schedulers, grad scalers and
            ``random``/``np.random``/``torch.random`` states are made of.

    Returns:
        ``(tensors, skeleton)``: the tensors by name and the JSON text `unflatten_state` reads.

    Raises:
        TypeError: a value of another type, named.
    """
    tensors: dict[str, torch.Tensor] = {}

    def encode(x: Any) -> Any:
        if isinstance(x, torch.Tensor):
            name = str(len(tensors))
            # clone: safetensors refuses tensors that share storage (optimizer views do)
            tensors[name] = x.detach().cpu().clone().contiguous()
            return {"tensor": name}
        if isinstance(x, np.ndarray):
            name = str(len(tensors))
            tensors[name] = torch.from_numpy(np.ascontiguousarray(x).copy())
            return {"ndarray": name}
        if isinstance(x, np.generic):
            return {"value": x.item()}
        if x is None or isinstance(x, (bool, int, float, str)):
            return {"value": x}
        if isinstance(x, dict):
            return {"dict": [[encode(k), encode(v)] for k, v in x.items()]}
        if isinstance(x, tuple):
            return {"tuple": [encode(v) for v in x]}
        if isinstance(x, list):
            return {"list": [encode(v) for v in x]}
        raise TypeError(f"cannot store a {type(x).__name__} in a safetensors training state")

    skeleton = json.dumps(encode(obj))
    return tensors, skeleton


def unflatten_state(tensors: dict[str, torch.Tensor], skeleton: str) -> Any:
    """Rebuild the object `flatten_state` split (tuples stay tuples, int keys stay ints)."""

    def decode(node: dict[str, Any]) -> Any:
        (kind, payload), = node.items()
        if kind == "tensor":
            return tensors[payload]
        if kind == "ndarray":
            return tensors[payload].numpy()
        if kind == "value":
            return payload
        if kind == "dict":
            return {decode(k): decode(v) for k, v in payload}
        if kind == "tuple":
            return tuple(decode(v) for v in payload)
        if kind == "list":
            return [decode(v) for v in payload]
        raise ValueError(f"unknown entry {kind!r} in a safetensors training state")

    return decode(json.loads(skeleton))


def save_state(obj: Any, path: str | Path) -> None:
    """Write ``obj`` (see `flatten_state`) to one safetensors file."""
    tensors, skeleton = flatten_state(obj)
    save_file(tensors, str(path), metadata={_SKELETON_KEY: skeleton})


def load_state(path: str | Path, device: str | torch.device = "cpu") -> Any:
    """Read an object `save_state` wrote, its tensors on ``device``.

    Raises:
        ValueError: the file is not a flowpath training state (names the file).
    """
    with safe_open(str(path), framework="pt", device=str(device)) as f:
        skeleton = (f.metadata() or {}).get(_SKELETON_KEY)
        if skeleton is None:
            raise ValueError(f"{path} is not a flowpath training state (no '{_SKELETON_KEY}' metadata)")
        tensors = {name: f.get_tensor(name) for name in f.keys()}
    return unflatten_state(tensors, skeleton)


class SafetensorsStateTrainer(Trainer):
    """`transformers.Trainer` whose checkpoints hold no pickles: optimizer, scheduler, grad
    scaler and RNG states go through `save_state`/`load_state` (see the module docstring)."""

    def _own_format(self) -> bool:
        return not (self.is_deepspeed_enabled or self.is_fsdp_enabled or is_torch_xla_available()
                    or is_sagemaker_mp_enabled())

    def _rng_file(self, folder: str) -> Path:
        name = "rng_state.safetensors" if self.args.world_size <= 1 else f"rng_state_{self.args.process_index}.safetensors"
        return Path(folder) / name

    def _save_optimizer_and_scheduler(self, output_dir: str) -> None:
        if not self._own_format():
            return super()._save_optimizer_and_scheduler(output_dir)
        if self.args.should_save:
            save_state(self.optimizer.state_dict(), Path(output_dir) / OPTIMIZER_FILE)
            save_state(self.lr_scheduler.state_dict(), Path(output_dir) / SCHEDULER_FILE)

    def _load_optimizer_and_scheduler(self, checkpoint: str | None) -> None:
        if checkpoint is None:
            return
        if not self._own_format():
            return super()._load_optimizer_and_scheduler(checkpoint)
        optimizer, scheduler = Path(checkpoint) / OPTIMIZER_FILE, Path(checkpoint) / SCHEDULER_FILE
        if not (optimizer.is_file() and scheduler.is_file()):
            logger.warning("%s holds no %s/%s: the optimizer and LR schedule start afresh",
                           checkpoint, OPTIMIZER_FILE, SCHEDULER_FILE)
            return
        # as the Trainer does: straight onto each GPU when distributed, else through the CPU
        device = self.args.device if self.args.world_size > 1 and self.args.device.type != "cpu" else "cpu"
        self.optimizer.load_state_dict(load_state(optimizer, device))
        self.lr_scheduler.load_state_dict(load_state(scheduler))

    def _save_scaler(self, output_dir: str) -> None:
        scaler = getattr(self.accelerator, "scaler", None)
        if scaler is None:
            return
        if not self._own_format():
            return super()._save_scaler(output_dir)
        if self.args.should_save:
            save_state(scaler.state_dict(), Path(output_dir) / SCALER_FILE)

    def _load_scaler(self, checkpoint: str | None) -> None:
        scaler = getattr(self.accelerator, "scaler", None)
        if checkpoint is None or scaler is None:
            return
        if not self._own_format():
            return super()._load_scaler(checkpoint)
        path = Path(checkpoint) / SCALER_FILE
        if path.is_file():
            scaler.load_state_dict(load_state(path))

    def _save_rng_state(self, output_dir: str) -> None:
        if not self._own_format():
            return super()._save_rng_state(output_dir)
        states: dict[str, Any] = {"python": random.getstate(), "numpy": np.random.get_state(),
                                  "cpu": torch.random.get_rng_state()}
        if torch.cuda.is_available():
            distributed = self.args.world_size > 1
            states["cuda"] = torch.cuda.random.get_rng_state_all() if distributed else torch.cuda.random.get_rng_state()
        # every process writes its own file, possibly before the main process made the folder
        os.makedirs(output_dir, exist_ok=True)
        save_state(states, self._rng_file(output_dir))

    def _load_rng_state(self, checkpoint: str | None) -> None:
        if checkpoint is None:
            return
        if not self._own_format():
            return super()._load_rng_state(checkpoint)
        path = self._rng_file(checkpoint)
        if not path.is_file():
            logger.warning("%s holds no %s: resumed without this process's random state, so the run "
                           "is not reproducible step for step", checkpoint, path.name)
            return
        states = load_state(path)
        random.setstate(states["python"])
        np.random.set_state(states["numpy"])
        torch.random.set_rng_state(states["cpu"])
        if torch.cuda.is_available() and "cuda" in states:
            if isinstance(states["cuda"], list):
                torch.cuda.random.set_rng_state_all(states["cuda"])
            else:
                torch.cuda.random.set_rng_state(states["cuda"])
