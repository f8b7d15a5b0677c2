"""Flat YAML experiment configs -> typed dataclasses, failing fast on unknown keys.

The training scripts keep one flat YAML file per experiment (``configs/*.yaml``) and accept
``--set KEY=VALUE`` overrides; this is the one loader they share.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def parse_overrides(items: list[str] | None) -> dict[str, Any]:
    """``["max_steps=2", "lr=1e-4"]`` -> ``{"max_steps": 2, "lr": 0.0001}`` (values read as YAML).

    Raises:
        ValueError: an item without ``=``.
    """
    import yaml

    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--set expects KEY=VALUE, got {item!r}")
        out[key] = yaml.safe_load(value)
    return out


def load_flat_config(cls: type[T], path: str | Path, overrides: dict[str, Any] | None = None) -> T:
    """Build dataclass ``cls`` from the flat YAML mapping at ``path``, then ``overrides``.

    Raises:
        ValueError: the file is not a mapping, or it or an override names a key ``cls`` lacks.
    """
    import yaml

    data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping of config keys to values")
    known = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"{path}: unknown config keys {unknown}")
    for key, value in (overrides or {}).items():
        if key not in known:
            raise ValueError(f"--set {key}={value!r}: unknown key {key!r}")
        data[key] = value
    return cls(**data)
