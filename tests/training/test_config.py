"""Training configs through transformers.HfArgumentParser: YAML file, then command-line flags;
types enforced, unknown keys refused, one vocabulary for both trainers."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest

from tests.markers import require_transformers

pytestmark = require_transformers


@dataclass(kw_only=True)
class _Cfg:
    out: str
    steps: int = 1
    learning_rate: float = 1e-3
    limit: int | None = 5
    flag: bool = False
    depths: list[int] = field(default_factory=lambda: [1, 2])


def _load(tmp_path, text, *flags):
    from training.config import load_config

    path = tmp_path / "c.yaml"
    path.write_text(text)
    return load_config(_Cfg, path, *flags)


def test_yaml_scientific_notation_becomes_a_float(tmp_path):
    # PyYAML reads 1e-4 (no dot) as the string '1e-4'; the field's type converts it
    cfg = _load(tmp_path, "out: runs/x\nlearning_rate: 1e-4\n")
    assert cfg.learning_rate == pytest.approx(1e-4) and isinstance(cfg.learning_rate, float)


def test_file_then_command_line_wins_and_every_type_is_converted(tmp_path):
    cfg = _load(tmp_path, "out: runs/x\nsteps: 5\nflag: true\ndepths: [3, 4, 5]\nlimit: null\n",
                "--steps", "7", "--learning-rate", "2e-4")
    assert (cfg.out, cfg.steps, cfg.learning_rate, cfg.limit, cfg.flag, cfg.depths) == \
        ("runs/x", 7, pytest.approx(2e-4), None, True, [3, 4, 5])
    assert _load(tmp_path, "out: x\ndepths: []\n", "--limit", "none").depths == []
    assert _load(tmp_path, "out: x\n", "--limit", "null").limit is None


@pytest.mark.parametrize(("text", "flags", "match"), [
    ("out: x\nstpes: 5\n", (), r"c.yaml: unknown config keys \['stpes'\]"),
    ("out: x\n", ("--lr_rate", "1.0"), "not used"),
    ("out: x\n", ("--learning", "1.0"), "not used"),  # no abbreviations
    ("- out\n- x\n", (), "expected a mapping"),
    ("out: x\nsteps: many\n", (), r"c.yaml or the command line: .*--steps.*invalid int value: 'many'"),
    ("out: x\nlearning_rate: fast\n", (), "invalid float value: 'fast'"),
    ("out: x\nsteps: {a: 1}\n", (), "expected a value or a list"),
    ("steps: 2\n", (), "required: --out"),
    ("out: [x\n", (), "not valid YAML"),
])
def test_bad_configs_are_clear_errors(tmp_path, text, flags, match):
    from training.config import ConfigError

    with pytest.raises(ConfigError, match=match):
        _load(tmp_path, text, *flags)


def test_missing_file_names_it(tmp_path):
    from training.config import ConfigError, load_config

    with pytest.raises(ConfigError, match="nope.yaml does not exist"):
        load_config(_Cfg, tmp_path / "nope.yaml")


def test_saved_config_loads_back_unchanged(tmp_path):
    from training.config import load_config, save_config

    cfg = _load(tmp_path, "out: runs/x\nlearning_rate: 1e-4\nlimit: null\ndepths: []\n", "--flag")
    save_config(cfg, tmp_path / "saved.yaml")
    assert load_config(_Cfg, tmp_path / "saved.yaml") == cfg


def test_both_trainers_share_the_training_arguments_vocabulary():
    """The shared knobs are named as transformers.TrainingArguments names them, and neither
    trainer config has a second name for the same thing."""
    from transformers import TrainingArguments

    from training.config import CommonTrainingArguments
    from training.train_flow2mermaid import Flow2MermaidConfig
    from training.train_segmenter import SegTrainConfig

    shared = {f.name for f in dataclasses.fields(CommonTrainingArguments)} - {"resume", "overwrite_output_dir"}
    assert shared <= {f.name for f in dataclasses.fields(TrainingArguments)}
    assert {"learning_rate", "lr_scheduler_type", "max_steps"} <= shared
    for cls in (Flow2MermaidConfig, SegTrainConfig):
        names = {f.name for f in dataclasses.fields(cls)}
        assert shared <= names
        assert not names & {"lr", "scheduler", "lr_scheduler", "epochs", "batch_size", "grad_accum", "log_every"}
