"""Precision/recall/F1 and the one accumulator every metric keeps its counts in.

Every metric of this package is an ``update()``/``summary()``/``reset()`` accumulator (the doctr
metric shape, `Accumulator`). Each keeps its integer counts in a `Tally`: sums overall and per
value of grouping keys (question type, domain, style family), so the micro averages and the
per-group tables come from one code path. ``summary()`` is always
``{"overall": row, "by_<key>": {value: row}, ...}``.

>>> t = Tally()
>>> t.add({"tp": 2, "fp": 1}, groups={"domain": "code"})
>>> t.add({"tp": 1, "fn": 1}, groups={"domain": "wiki"})
>>> t.rows(lambda c: prf(c["tp"], c["fp"], c["fn"]))["by_domain"]["code"]["precision"]
0.6666666666666666
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

__all__ = ["Accumulator", "Tally", "prf"]


def prf(tp: float, fp: float, fn: float, *, empty: float = 0.0) -> dict[str, float]:
    """Precision, recall and F1 from counts.

    Args:
        tp, fp, fn: true positives, false positives, false negatives (non-negative).
        empty: precision when nothing was predicted and nothing was missed, recall when nothing
            was there to find and nothing was predicted (0/0). A denominator that is empty while
            the other side is not always gives 0.0. The attribution metric keeps the benchmark's
            0.0; per-chart transcription and segmentation rows use 1.0 (an empty chart read as
            empty is right).

    Raises:
        ValueError: a negative count.
    """
    if min(tp, fp, fn) < 0:
        raise ValueError(f"counts must be non-negative, got tp={tp} fp={fp} fn={fn}")
    p = tp / (tp + fp) if tp + fp else (empty if fn == 0 else 0.0)
    r = tp / (tp + fn) if tp + fn else (empty if fp == 0 else 0.0)
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": p, "recall": r, "f1": f}


@runtime_checkable
class Accumulator(Protocol):
    """The shape of every metric: add one item, read the totals, start again."""

    def update(self, *args: Any, **kwargs: Any) -> Any: ...

    def summary(self) -> dict[str, Any]: ...

    def reset(self) -> None: ...


class Tally:
    """Named counts summed overall and per value of each grouping key.

    A missing count reads as 0. A None group value is filed under ``"unknown"``.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget every count."""
        self.overall: Counter[str] = Counter()
        self.groups: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))

    def add(self, counts: Mapping[str, float], groups: Mapping[str, str | None] | None = None) -> None:
        """Add one item's counts to the totals and to each of its groups."""
        self.overall.update(counts)
        for key, value in (groups or {}).items():
            self.groups[key][str(value) if value is not None else "unknown"].update(counts)

    def rows(self, row: Callable[[Counter[str]], dict[str, Any]]) -> dict[str, Any]:
        """``{"overall": row(totals), "by_<key>": {value: row(counts)}}``, values sorted."""
        out: dict[str, Any] = {"overall": row(self.overall)}
        for key, per in self.groups.items():
            out[f"by_{key}"] = {v: row(c) for v, c in sorted(per.items())}
        return out


def style_groups(family: str, renderer: str | None = None) -> dict[str, str]:
    """The report groups of one chart's look: its style family and, for generated charts that
    name the engine that drew them, the renderer and the (family, renderer) pair, so domain-shift
    figures come out per engine as well as per style (``by_renderer``, ``by_family+renderer``)."""
    groups = {"family": family}
    if renderer:
        groups.update({"renderer": renderer, "family+renderer": f"{family}+{renderer}"})
    return groups
