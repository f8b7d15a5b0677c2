"""Every config in configs/ loads through its own loader and names only repository-relative
paths, so the documented commands run from a fresh clone."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.markers import REPO_ROOT, require_transformers

CONFIGS = sorted((REPO_ROOT / "configs").glob("*.yaml"))


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _load(path: Path):
    """The config as its consumer reads it: the trainers' dataclasses or data_gen's own parser."""
    if path.name.startswith("gen_"):
        from data_gen import cli

        parser = cli.build_parser()
        argv = ["out_folder", "--config", str(path)]
        cli._apply_config(parser, argv)  # data_gen's YAML loader: fails on unknown keys/bad values
        return vars(parser.parse_args(argv))
    pytest.importorskip("transformers", reason="needs transformers (flowpath[models])")
    from training.config import load_config

    if path.name.startswith("flow2mermaid_"):
        from training.train_flow2mermaid import Flow2MermaidConfig as cls
    elif path.name.startswith("segmenter_"):
        from training.train_segmenter import SegTrainConfig as cls
    elif path.name.startswith("text_recogniser_"):
        from training.train_text_recogniser import TextRecTrainConfig as cls
    else:
        pytest.fail(f"{path.name}: no loader known for this config "
                    "(name it gen_*, flow2mermaid_*, segmenter_* or text_recogniser_*)")
    import dataclasses

    return dataclasses.asdict(load_config(cls, path))


def test_there_are_configs():
    assert any(p.name.startswith("flow2mermaid_") for p in CONFIGS)
    assert any(p.name.startswith("segmenter_") for p in CONFIGS)


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_config_loads_and_names_only_relative_paths(path):
    import yaml

    loaded = _load(path)
    assert loaded
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    for key, value in raw.items():
        for text in _strings(value):
            assert not text.startswith(("/", "~")), f"{path.name}: {key}: {text!r} is not repository-relative"


@require_transformers
@pytest.mark.parametrize("path", [p for p in CONFIGS if not p.name.startswith("gen_")], ids=lambda p: p.name)
def test_training_config_values_are_in_range(path):
    """The range checks a run does first (files need not exist yet: data is generated)."""
    cfg = _load(path)
    assert 0 < cfg["learning_rate"] < 1
    assert cfg["max_steps"] > 0 or cfg["num_train_epochs"] > 0
    assert not (cfg["fp16"] and cfg["bf16"])
    assert not cfg["resume"] and not cfg["overwrite_output_dir"]
