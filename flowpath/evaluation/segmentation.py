"""Segmentation evaluation: run a segmenter over a benchmark-layout folder or a COCO json and
score it with `flowpath.metrics.SegmentationMetric` (``flowpath eval segment``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flowpath.datasets.segmentation import GoldImage, load_gold
from flowpath.metrics.segmentation import SegmentationMetric

logger = logging.getLogger(__name__)

__all__ = ["SegmentationReport", "evaluate_segmenter"]


@dataclass
class SegmentationReport:
    """Result of `evaluate_segmenter`: the summary plus one row per chart."""

    segmenter: str
    dataset: str
    summary: dict[str, Any]
    charts: list[dict[str, Any]] = field(default_factory=list)
    seconds_per_chart: float = 0.0
    failures: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"segmenter": self.segmenter, "dataset": self.dataset, "summary": self.summary,
                "seconds_per_chart": self.seconds_per_chart, "charts": self.charts,
                "failures": self.failures}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SegmentationReport:
        return cls(segmenter=d["segmenter"], dataset=d["dataset"], summary=d["summary"],
                   charts=list(d.get("charts", [])), seconds_per_chart=float(d.get("seconds_per_chart", 0.0)),
                   failures=list(d.get("failures", [])))

    def format_table(self) -> str:
        """A readable fixed-width table: one line overall, then one per style family, renderer
        and (family, renderer) pair where the charts name their renderer."""
        cols = ["images", "gold", "pred", "recall@0.5", "precision@0.5", "recall@0.7",
                "precision@0.7", "f1@0.7", "mean_iou", "AP", "AP50", "AP75", "segm_AP"]
        groups = [(g, self.summary.get(f"by_{g}", {})) for g in ("family", "renderer", "family+renderer")]
        width = max([14] + [len(k) + 1 for _, per in groups for k in per])
        head = f"{'set':<{width}}" + "".join(f"{c:>14}" for c in cols)
        lines = [f"segmenter {self.segmenter} on {self.dataset} "
                 f"({self.seconds_per_chart:.2f} s/chart, {len(self.failures)} failed)", head]
        rows = [("overall", self.summary["overall"])] + [kv for _, per in groups for kv in sorted(per.items())]
        for name, row in rows:
            cells = []
            for c in cols:
                v = row.get(c)
                cells.append(f"{'-':>14}" if v is None else (f"{v:>14d}" if isinstance(v, int) else f"{v:>14.4f}"))
            lines.append(f"{name:<{width}}" + "".join(cells))
        return "\n".join(lines)


def evaluate_segmenter(segmenter: Any, source: str | Path, *, limit: int | None = None,
                       coco: bool = True, progress: bool = False) -> SegmentationReport:
    """Run ``segmenter`` over every image of ``source`` and score it.

    Args:
        segmenter: a `flowpath.models.base.Segmenter`.
        source: benchmark-layout folder or COCO json (see
            `flowpath.datasets.segmentation.load_gold`).
        limit: only the first ``limit`` images.
        coco: also compute COCO AP (slower on big sets).
        progress: show a tqdm bar.

    Returns:
        A `SegmentationReport`; unreadable images are listed in ``failures`` and skipped.
    """
    from flowpath.io import load_image

    name, gold_images = load_gold(source)
    if limit is not None:
        gold_images = gold_images[:limit]
    metric = SegmentationMetric()
    charts, failures = [], []
    total = 0.0
    items: Iterable[GoldImage] = gold_images
    if progress:
        from tqdm import tqdm

        items = tqdm(gold_images, desc="segment", unit="chart")
    for g in items:
        try:
            img = load_image(g.path)
        except ValueError as exc:
            failures.append({"id": g.id, "error": str(exc)})
            logger.warning("%s", exc)
            continue
        t0 = time.perf_counter()
        pred = segmenter([img])[0]
        dt = time.perf_counter() - t0
        total += dt
        row = metric.update(pred, g.regions, g.family, size=img.shape[:2], renderer=g.renderer)
        row.update({"id": g.id, "family": g.family, "renderer": g.renderer, "seconds": round(dt, 4)})
        charts.append(row)
    n = len(charts)
    return SegmentationReport(segmenter=getattr(segmenter, "name", type(segmenter).__name__),
                              dataset=name, summary=metric.summary(coco=coco), charts=charts,
                              seconds_per_chart=total / n if n else 0.0, failures=failures)
