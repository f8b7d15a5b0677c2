"""The flat YAML config loader shared by the training scripts."""

from __future__ import annotations

from contextlib import nullcontext as does_not_raise
from dataclasses import dataclass

import pytest

from flowpath.config import load_flat_config, parse_overrides


@dataclass
class _Cfg:
    out: str
    steps: int = 1
    lr: float = 1e-3


@pytest.mark.parametrize(("items", "expected", "expectation"), [
    (["steps=3", "lr=0.0002", "name=x"], {"steps": 3, "lr": 0.0002, "name": "x"}, does_not_raise()),
    (["out=a=b"], {"out": "a=b"}, does_not_raise()),
    (None, {}, does_not_raise()),
    (["steps"], None, pytest.raises(ValueError, match="KEY=VALUE")),
    (["=3"], None, pytest.raises(ValueError, match="KEY=VALUE")),
])
def test_parse_overrides(items, expected, expectation):
    with expectation:
        assert parse_overrides(items) == expected


def test_load_applies_file_then_overrides(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("out: runs/x\nsteps: 5\n")
    cfg = load_flat_config(_Cfg, path, {"steps": 7})
    assert (cfg.out, cfg.steps, cfg.lr) == ("runs/x", 7, 1e-3)


@pytest.mark.parametrize(("text", "overrides", "match"), [
    ("out: x\nstpes: 5\n", None, r"c.yaml: unknown config keys \['stpes'\]"),
    ("out: x\n", {"lr_rate": 1.0}, "unknown key 'lr_rate'"),
    ("- out\n- x\n", None, "expected a mapping"),
])
def test_load_rejects_bad_configs(tmp_path, text, overrides, match):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        load_flat_config(_Cfg, path, overrides)
