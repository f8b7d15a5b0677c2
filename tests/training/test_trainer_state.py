"""Trainer state (optimizer, scheduler, RNG) goes to safetensors and comes back exactly."""

import random

import numpy as np
import pytest

from tests.markers import require_transformers

pytestmark = require_transformers


def test_optimizer_scheduler_and_rng_states_round_trip(tmp_path):
    import torch

    from training.trainer_state import load_state, save_state

    torch.manual_seed(0)
    model = torch.nn.Linear(4, 3)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: 1.0 - step / 10)
    for _ in range(3):
        model(torch.randn(5, 4)).pow(2).sum().backward()
        opt.step()
        sched.step()
        opt.zero_grad()

    save_state(opt.state_dict(), tmp_path / "opt.safetensors")
    save_state(sched.state_dict(), tmp_path / "sched.safetensors")
    rng = {"python": random.getstate(), "numpy": np.random.get_state(), "cpu": torch.random.get_rng_state()}
    save_state(rng, tmp_path / "rng.safetensors")
    want = (random.random(), np.random.rand(), torch.rand(1).item())  # the draws after saving

    # a fresh optimizer loaded from the file takes the same next step as the original
    twin = torch.nn.Linear(4, 3)
    twin.load_state_dict(model.state_dict())
    opt2 = torch.optim.AdamW(twin.parameters(), lr=1e-3)
    sched2 = torch.optim.lr_scheduler.LambdaLR(opt2, lambda step: 1.0 - step / 10)
    # the Trainer's order: both built, then the optimizer's state, then the scheduler's
    opt2.load_state_dict(load_state(tmp_path / "opt.safetensors"))
    sched2.load_state_dict(load_state(tmp_path / "sched.safetensors"))
    assert sched2.get_last_lr() == sched.get_last_lr()
    x = torch.randn(5, 4)
    for m, o in ((model, opt), (twin, opt2)):
        m(x).pow(2).sum().backward()
        o.step()
    assert torch.equal(model.weight, twin.weight)

    # the random streams continue where they were saved
    back = load_state(tmp_path / "rng.safetensors")
    random.setstate(back["python"])
    np.random.set_state(back["numpy"])
    torch.random.set_rng_state(back["cpu"])
    assert (random.random(), np.random.rand(), torch.rand(1).item()) == want


def test_unsupported_values_and_foreign_files_are_named(tmp_path):
    import torch
    from safetensors.torch import save_file

    from training.trainer_state import load_state, save_state

    with pytest.raises(TypeError, match="set"):
        save_state({"bad": {1, 2}}, tmp_path / "x.safetensors")
    save_file({"w": torch.zeros(2)}, str(tmp_path / "model.safetensors"))
    with pytest.raises(ValueError, match="model.safetensors"):
        load_state(tmp_path / "model.safetensors")
