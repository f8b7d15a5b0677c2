"""Segmentation metrics: predicted node regions vs gold node regions.

* Recall / precision at box IoU 0.5 and 0.7 with one-to-one matching (greedy by IoU, which is
  optimal whenever the nodes do not overlap, as in flowcharts), and the mean IoU of the matches.
* COCO AP, AP50, AP75 (``bbox`` and ``segm``) from pycocotools' ``COCOeval``.
* Everything per style family as well as overall.

`SegmentationMetric` is an ``update()``/``summary()``/``reset()`` accumulator;
`evaluate_segmenter` runs a segmenter over a benchmark-layout folder or a COCO json.

>>> from flowpath.geometry import Region
>>> m = SegmentationMetric()
>>> m.update([Region((0, 0, 10, 10))], [Region((0, 0, 10, 11)), Region((50, 50, 60, 60))])
>>> s = m.summary(coco=False)["overall"]; (s["recall@0.7"], s["precision@0.7"])
(0.5, 1.0)
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from flowpath.geometry import Region, box_iou_matrix

logger = logging.getLogger(__name__)

IOU_THRESHOLDS = (0.5, 0.7)


def match_regions(pred: Sequence[Region], gold: Sequence[Region],
                  iou_threshold: float = 0.5) -> list[tuple[int, int, float]]:
    """One-to-one matches ``(pred_index, gold_index, iou)`` with box IoU >= ``iou_threshold``,
    taken greedily from the highest IoU down."""
    if not pred or not gold:
        return []
    iou = box_iou_matrix(np.array([p.bbox for p in pred]), np.array([g.bbox for g in gold]))
    pairs = np.argwhere(iou >= iou_threshold)
    order = np.argsort(-iou[pairs[:, 0], pairs[:, 1]], kind="stable")
    used_p: set[int] = set()
    used_g: set[int] = set()
    out = []
    for k in order:
        i, j = int(pairs[k, 0]), int(pairs[k, 1])
        if i in used_p or j in used_g:
            continue
        used_p.add(i)
        used_g.add(j)
        out.append((i, j, float(iou[i, j])))
    return out


@dataclass
class _Counts:
    tp: dict[float, int] = field(default_factory=lambda: dict.fromkeys(IOU_THRESHOLDS, 0))
    n_pred: int = 0
    n_gold: int = 0
    n_images: int = 0
    iou_sum: float = 0.0
    iou_n: int = 0

    def row(self) -> dict[str, Any]:
        d: dict[str, Any] = {"images": self.n_images, "gold": self.n_gold, "pred": self.n_pred}
        for t in IOU_THRESHOLDS:
            d[f"recall@{t}"] = self.tp[t] / self.n_gold if self.n_gold else 0.0
            d[f"precision@{t}"] = self.tp[t] / self.n_pred if self.n_pred else (1.0 if not self.n_gold else 0.0)
        d["mean_iou"] = self.iou_sum / self.iou_n if self.iou_n else 0.0
        return d


class SegmentationMetric:
    """Accumulates predicted vs gold regions image by image.

    ``summary()`` returns ``{"overall": row, "families": {family: row}}`` where a row holds
    ``recall@0.5``, ``precision@0.5``, ``recall@0.7``, ``precision@0.7``, ``mean_iou`` (of
    matches at IoU 0.5), counts, and with ``coco=True`` ``AP``, ``AP50``, ``AP75`` (box) and
    ``segm_AP``, ``segm_AP50``, ``segm_AP75`` (masks/polygons).
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._counts: dict[str, _Counts] = defaultdict(_Counts)
        self._images: list[dict[str, Any]] = []

    def update(self, pred: Sequence[Region], gold: Sequence[Region], family: str = "default",
               size: tuple[int, int] | None = None) -> dict[str, Any]:
        """Add one image. ``size`` = ``(height, width)`` (needed only for mask AP).

        Returns:
            This image's own row (recall/precision/mean IoU), for per-chart reports.
        """
        own = _Counts()
        for c in (own, self._counts["__all__"], self._counts[family]):
            c.n_images += 1
            c.n_pred += len(pred)
            c.n_gold += len(gold)
        for t in IOU_THRESHOLDS:
            matches = match_regions(pred, gold, t)
            for c in (own, self._counts["__all__"], self._counts[family]):
                c.tp[t] += len(matches)
                if t == IOU_THRESHOLDS[0]:
                    c.iou_sum += sum(m[2] for m in matches)
                    c.iou_n += len(matches)
        self._images.append({"pred": list(pred), "gold": list(gold), "family": family, "size": size})
        return own.row()

    def summary(self, coco: bool = True) -> dict[str, Any]:
        rows = {"overall": self._counts["__all__"].row(),
                "families": {f: c.row() for f, c in sorted(self._counts.items()) if f != "__all__"}}
        if coco and self._images:
            rows["overall"].update(self._coco(None))
            for fam in rows["families"]:
                rows["families"][fam].update(self._coco(fam))
        return rows

    def _coco(self, family: str | None) -> dict[str, float]:
        """COCO AP/AP50/AP75 over the images of ``family`` (all when None)."""
        from pycocotools.coco import COCO
        from pycocotools.cocoeval import COCOeval

        from flowpath.segment.postprocess import encode_polygon_rle

        images: list[dict[str, Any]] = []
        gts: list[dict[str, Any]] = []
        dts: list[dict[str, Any]] = []
        for k, im in enumerate(self._images):
            if family is not None and im["family"] != family:
                continue
            h, w = im["size"] or _extent(im["pred"] + im["gold"])
            images.append({"id": k, "height": h, "width": w})
            for g in im["gold"]:
                x0, y0, x1, y1 = g.bbox
                rle = g.mask or encode_polygon_rle(g.polygon, h, w)
                gts.append({"id": len(gts) + 1, "image_id": k, "category_id": 1, "iscrowd": 0,
                            "bbox": [x0, y0, x1 - x0, y1 - y0], "area": (x1 - x0) * (y1 - y0),
                            "segmentation": _bytes_rle(rle)})
            for p in im["pred"]:
                x0, y0, x1, y1 = p.bbox
                rle = p.mask or encode_polygon_rle(p.polygon, h, w)
                dts.append({"id": len(dts) + 1, "image_id": k, "category_id": 1, "score": p.score,
                            "bbox": [x0, y0, x1 - x0, y1 - y0], "area": (x1 - x0) * (y1 - y0),
                            "segmentation": _bytes_rle(rle)})
        out: dict[str, float] = {}
        if not gts:
            return out
        with contextlib.redirect_stdout(io.StringIO()):  # COCOeval prints its own tables
            gt = COCO()
            gt.dataset = {"images": images, "annotations": gts, "categories": [{"id": 1, "name": "node"}]}
            gt.createIndex()
            for iou_type, prefix in (("bbox", ""), ("segm", "segm_")):
                if not dts:
                    out.update({f"{prefix}AP": 0.0, f"{prefix}AP50": 0.0, f"{prefix}AP75": 0.0})
                    continue
                dt = gt.loadRes([dict(d) for d in dts])
                ev = COCOeval(gt, dt, iou_type)
                ev.params.maxDets = [1, 10, 100]  # summarize() reads AP at 100 detections; charts have < 100 nodes
                ev.evaluate()
                ev.accumulate()
                ev.summarize()
                out.update({f"{prefix}AP": float(max(ev.stats[0], 0.0)),
                            f"{prefix}AP50": float(max(ev.stats[1], 0.0)),
                            f"{prefix}AP75": float(max(ev.stats[2], 0.0))})
        return out


def _bytes_rle(rle: dict[str, Any]) -> dict[str, Any]:
    counts = rle["counts"]
    return {"size": list(rle["size"]), "counts": counts.encode("ascii") if isinstance(counts, str) else counts}


def _extent(regions: Sequence[Region]) -> tuple[int, int]:
    if not regions:
        return (1, 1)
    return (int(np.ceil(max(r.bbox[3] for r in regions))) + 1, int(np.ceil(max(r.bbox[2] for r in regions))) + 1)


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
        """A readable fixed-width table: one line overall, one per style family."""
        cols = ["images", "gold", "pred", "recall@0.5", "precision@0.5", "recall@0.7",
                "precision@0.7", "mean_iou", "AP", "AP50", "AP75", "segm_AP"]
        head = f"{'set':<14}" + "".join(f"{c:>14}" for c in cols)
        lines = [f"segmenter {self.segmenter} on {self.dataset} "
                 f"({self.seconds_per_chart:.2f} s/chart, {len(self.failures)} failed)", head]
        rows = [("overall", self.summary["overall"])] + sorted(self.summary.get("families", {}).items())
        for name, row in rows:
            cells = []
            for c in cols:
                v = row.get(c)
                cells.append(f"{'-':>14}" if v is None else (f"{v:>14d}" if isinstance(v, int) else f"{v:>14.4f}"))
            lines.append(f"{name:<14}" + "".join(cells))
        return "\n".join(lines)


@dataclass
class GoldImage:
    """One evaluation image: where it is, its gold regions and its style family."""

    id: str
    path: Path
    regions: list[Region]
    family: str = "default"


def load_gold(source: str | Path) -> tuple[str, list[GoldImage]]:
    """Gold images of a benchmark-layout folder or a COCO instances json.

    COCO: ``images[].file_name`` is resolved against the json's folder (then ``images/`` and
    ``../images/`` under it); ``annotations[].segmentation`` polygons become region polygons; an
    optional ``images[].style_family`` (or ``style.family``) gives the family.

    Raises:
        ValueError: ``source`` is neither.
    """
    src = Path(source)
    if src.is_dir():
        from flowpath.bench import Benchmark

        bench = Benchmark(src)
        return str(src), [GoldImage(c.id, c.image_path, list(c.regions.values()), c.style_family)
                          for c in bench.charts()]
    if src.suffix == ".json" and src.is_file():
        try:
            data = json.loads(src.read_text(encoding="utf-8"))
            images, anns = data["images"], data["annotations"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ValueError(f"{src}: not a COCO instances json ({exc})") from None
        by_image: dict[Any, list[Region]] = defaultdict(list)
        for a in anns:
            x, y, w, h = a["bbox"]
            seg = a.get("segmentation")
            poly = None
            if isinstance(seg, list) and seg and len(seg[0]) >= 6:
                flat = seg[0]
                poly = [(flat[i], flat[i + 1]) for i in range(0, len(flat) - 1, 2)]
            by_image[a["image_id"]].append(Region((x, y, x + w, y + h), polygon=poly or []))
        out = []
        for im in images:
            path = _resolve_image(src.parent, im["file_name"])
            fam = im.get("style_family") or (im.get("style") or {}).get("family") or "default"
            out.append(GoldImage(str(im.get("id")), path, by_image.get(im["id"], []), fam))
        return str(src), out
    raise ValueError(f"{src}: expected a benchmark-layout folder or a COCO instances .json")


def _resolve_image(root: Path, name: str) -> Path:
    for base in (root, root / "images", root.parent / "images"):
        if (base / name).exists():
            return base / name
    return root / name


def evaluate_segmenter(segmenter: Any, source: str | Path, *, limit: int | None = None,
                       coco: bool = True, progress: bool = False) -> SegmentationReport:
    """Run ``segmenter`` over every image of ``source`` and score it.

    Args:
        segmenter: a `flowpath.models.base.Segmenter`.
        source: benchmark-layout folder or COCO json (see `load_gold`).
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
        row = metric.update(pred, g.regions, g.family, size=img.shape[:2])
        row.update({"id": g.id, "family": g.family, "seconds": round(dt, 4)})
        charts.append(row)
    n = len(charts)
    return SegmentationReport(segmenter=getattr(segmenter, "name", type(segmenter).__name__),
                              dataset=name, summary=metric.summary(coco=coco), charts=charts,
                              seconds_per_chart=total / n if n else 0.0, failures=failures)
