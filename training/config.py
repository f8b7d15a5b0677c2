"""Training configs: one YAML file per experiment, typed by ``transformers.HfArgumentParser``.

Both trainers describe their run by a dataclass that extends `CommonTrainingArguments`, whose
knobs carry the names ``transformers.TrainingArguments`` gives them (``learning_rate``,
``lr_scheduler_type``, ``max_steps``, ...). A YAML file and command-line flags go through the
same parser: the file's keys become flags placed before the command line, so the command line
wins, every value is converted by its field's type (``learning_rate: 1e-4``, which YAML reads as
a string, becomes a float) and an unknown key is an error naming it::

    python training/train_segmenter.py --config configs/segmenter_cpu.yaml --max_steps 10

``none``/``null`` sets an optional field to ``None``; a list is given as several values
(``--depths 1 1 2 1``).
"""

from __future__ import annotations

import argparse
import dataclasses
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from transformers import HfArgumentParser

T = TypeVar("T")
_NULLS = ("none", "null", "~")


class ConfigError(ValueError):
    """A training config (file or flag) is malformed, names an unknown key or a bad value."""


@dataclass(kw_only=True)
class CommonTrainingArguments:
    """The knobs both trainers share, named as ``transformers.TrainingArguments`` names them."""

    output_dir: str
    num_train_epochs: float = 3.0
    max_steps: int = -1  # > 0 wins over num_train_epochs (optimizer steps)
    per_device_train_batch_size: int = 1
    gradient_accumulation_steps: int = 1
    learning_rate: float = 5e-5
    lr_scheduler_type: str = "linear"
    warmup_steps: float = 0.0  # optimizer steps; a value below 1 is a fraction of the run
    weight_decay: float = 0.0
    max_grad_norm: float = 1.0
    seed: int = 0
    bf16: bool = False
    fp16: bool = False
    activation_checkpointing: bool = False  # recompute activations in backward (less memory)
    logging_steps: int = 10
    save_steps: int = 500  # an intermediate checkpoint-N every this many optimizer steps
    save_total_limit: int | None = 2
    dataloader_num_workers: int = 0
    resume: bool = False  # continue from the newest checkpoint-N in output_dir
    overwrite_output_dir: bool = False  # delete output_dir's contents and start afresh

    def check_common(self) -> None:
        """Range checks on the shared knobs.

        Raises:
            ConfigError: a knob out of range.
        """
        if self.per_device_train_batch_size < 1 or self.gradient_accumulation_steps < 1:
            raise ConfigError("per_device_train_batch_size and gradient_accumulation_steps must be >= 1")
        if not 0 < self.learning_rate < 1:
            raise ConfigError(f"learning_rate must be in (0, 1), got {self.learning_rate}")
        if self.num_train_epochs <= 0 and self.max_steps <= 0:
            raise ConfigError("set num_train_epochs > 0 or max_steps > 0")
        if self.fp16 and self.bf16:
            raise ConfigError("fp16 and bf16 are exclusive")
        if self.resume and self.overwrite_output_dir:
            raise ConfigError("resume and overwrite_output_dir are exclusive")
        if self.save_steps < 1 or self.logging_steps < 1:
            raise ConfigError("save_steps and logging_steps must be >= 1")

    def training_arguments(self, **extra: Any) -> Any:
        """``transformers.TrainingArguments`` with the shared knobs, plus ``extra``."""
        from transformers import TrainingArguments

        shared = {f.name: getattr(self, f.name) for f in dataclasses.fields(CommonTrainingArguments)
                  if f.name not in ("resume", "overwrite_output_dir")}
        return TrainingArguments(**{**shared, **extra})


class ConfigParser(HfArgumentParser):
    """``HfArgumentParser`` for one config dataclass plus ``--config FILE.yaml``.

    Errors raise `ConfigError` instead of exiting, abbreviations of flags are refused, and an
    optional field accepts ``none``/``null``.
    """

    def __init__(self, dataclass_type: Any, **kwargs: Any) -> None:
        hints = typing.get_type_hints(dataclass_type)  # before HfArgumentParser narrows the fields
        optional = {name for name, hint in hints.items() if type(None) in typing.get_args(hint)}
        super().__init__(dataclass_type, allow_abbrev=False, **kwargs)
        self.config_type = dataclass_type
        self.add_argument("--config", type=Path, default=None, help="YAML experiment config")
        for action in self._actions:
            if action.dest not in hints:
                continue
            if action.nargs == "+":  # an empty YAML list is a flag without values
                action.nargs = "*"
            if action.dest in optional and action.type is not None:
                action.type = _nullable(action.type)

    def error(self, message: str) -> Any:  # argparse's hook: raise instead of sys.exit(2)
        raise ConfigError(message)

    def parse(self, argv: Sequence[str] | None = None) -> tuple[Any, argparse.Namespace]:
        """Parse ``--config FILE`` (if given) then the flags.

        Returns:
            ``(config, extras)``: the dataclass instance and a namespace of the flags the caller
            added with ``add_argument`` (plus ``config``).

        Raises:
            ConfigError: unreadable or non-mapping file, unknown key, value of the wrong type.
        """
        pre = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
        pre.add_argument("--config", type=Path, default=None)
        known, rest = pre.parse_known_args(list(argv) if argv is not None else None)
        file_args = yaml_to_flags(known.config, self.config_type) if known.config else []
        try:
            parsed = self.parse_args_into_dataclasses(file_args + rest)
        except ConfigError as exc:
            where = f"{known.config} or the command line" if known.config else "the command line"
            raise ConfigError(f"{where}: {exc}") from None
        except ValueError as exc:  # HfArgumentParser: flags no field takes
            raise ConfigError(str(exc)) from None
        cfg = parsed[0]
        extras = parsed[1] if len(parsed) > 1 else argparse.Namespace()
        extras.config = known.config
        return cfg, extras


def _nullable(convert: Any) -> Any:
    def parse(text: str) -> Any:
        return None if text.strip().lower() in _NULLS else convert(text)

    parse.__name__ = getattr(convert, "__name__", "value")  # argparse names it in errors
    return parse


def yaml_to_flags(path: str | Path, config_type: type) -> list[str]:
    """The flags that say what the YAML mapping at ``path`` says.

    Raises:
        ConfigError: the file is missing, not a mapping, names a key ``config_type`` lacks or
            holds a nested mapping.
    """
    import yaml

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {path} does not exist")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of config keys to values")
    known = {f.name for f in dataclasses.fields(config_type)}
    unknown = sorted(set(map(str, data)) - known)
    if unknown:
        raise ConfigError(f"{path}: unknown config keys {unknown}")
    flags: list[str] = []
    for key, value in data.items():
        values = value if isinstance(value, list) else [value]
        if any(isinstance(v, (dict, list)) for v in values):
            raise ConfigError(f"{path}: {key}: expected a value or a list of values, got {value!r}")
        flags.append(f"--{key}")
        flags.extend("null" if v is None else str(v) for v in values)
    return flags


def load_config(config_type: type[T], path: str | Path | None = None, *flags: str) -> T:
    """A config dataclass from a YAML file and then command-line style ``flags``.

    >>> load_config(SegTrainConfig, "configs/segmenter_cpu.yaml", "--max_steps", "10")  # doctest: +SKIP
    """
    argv = (["--config", str(path)] if path is not None else []) + list(flags)
    cfg, _ = ConfigParser(config_type).parse(argv)
    return cfg


def save_config(cfg: Any, path: str | Path) -> None:
    """Write the resolved config as YAML that `load_config` reads back (run bookkeeping such as
    ``resume`` is left out, so the file describes the experiment)."""
    import yaml

    from flowpath.io import atomic_write_text

    data = {k: v for k, v in dataclasses.asdict(cfg).items() if k not in ("resume", "overwrite_output_dir")}
    atomic_write_text(Path(path), yaml.safe_dump(data, sort_keys=False))
