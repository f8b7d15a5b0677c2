"""Segmentation metric: predicted node regions vs gold node regions, image by image.

* Recall / precision / F1 at IoU 0.5 and 0.7 with one-to-one matching
  (`flowpath.metrics.matching.match_regions`), and the mean IoU of the matches at 0.5.
* COCO AP, AP50, AP75 (``bbox`` and ``segm``) from pycocotools' ``COCOeval``.
* Everything per style family as well as overall.

>>> from flowpath.geometry import Region
>>> m = SegmentationMetric()
>>> m.update([Region((0, 0, 10, 10))], [Region((0, 0, 10, 11)), Region((50, 50, 60, 60))])["recall@0.7"]
0.5
>>> s = m.summary(coco=False)["overall"]; (s["recall@0.7"], s["precision@0.7"])
(0.5, 1.0)
"""

from __future__ import annotations

import contextlib
import io
from collections import Counter
from collections.abc import Sequence
from typing import Any

from flowpath.geometry import Region
from flowpath.metrics.iou import iou_matrix, region_rle, regions_extent
from flowpath.metrics.matching import match_iou
from flowpath.metrics.scores import Tally, prf, style_groups

__all__ = ["IOU_THRESHOLDS", "SegmentationMetric"]

#: IoU thresholds of the recall / precision columns
IOU_THRESHOLDS = (0.5, 0.7)


def _row(c: Counter[str]) -> dict[str, Any]:
    d: dict[str, Any] = {"images": c["images"], "gold": c["gold"], "pred": c["pred"]}
    for t in IOU_THRESHOLDS:
        tp = c[f"tp@{t}"]
        s = prf(tp, c["pred"] - tp, c["gold"] - tp, empty=1.0)
        d[f"recall@{t}"], d[f"precision@{t}"], d[f"f1@{t}"] = s["recall"], s["precision"], s["f1"]
    d["mean_iou"] = c["iou_sum"] / c["iou_n"] if c["iou_n"] else 0.0
    return d


class SegmentationMetric:
    """Accumulates predicted vs gold regions image by image.

    ``summary()`` returns ``{"overall": row, "by_family": {family: row}}`` where a row holds
    ``recall@t``, ``precision@t``, ``f1@t`` for t in 0.5 and 0.7, ``mean_iou`` (of matches at
    IoU 0.5), counts, and with ``coco=True`` ``AP``, ``AP50``, ``AP75`` (box) and ``segm_AP``,
    ``segm_AP50``, ``segm_AP75`` (masks/polygons).
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget every image seen so far."""
        self._tally = Tally()
        self._images: list[dict[str, Any]] = []

    def update(self, pred: Sequence[Region], gold: Sequence[Region], family: str = "default",
               size: tuple[int, int] | None = None, renderer: str | None = None) -> dict[str, Any]:
        """Add one image. ``size`` = ``(height, width)`` (needed only for mask AP); ``renderer``
        (generated charts) adds ``by_renderer`` and ``by_family+renderer`` rows.

        Returns:
            This image's own row (recall/precision/F1/mean IoU), for per-chart reports.
        """
        counts: dict[str, float] = {"images": 1, "pred": len(pred), "gold": len(gold)}
        iou = iou_matrix(pred, gold)
        for t in IOU_THRESHOLDS:
            matches = match_iou(iou, t)
            counts[f"tp@{t}"] = len(matches)
            if t == IOU_THRESHOLDS[0]:
                counts["iou_sum"] = sum(m[2] for m in matches)
                counts["iou_n"] = len(matches)
        self._tally.add(counts, style_groups(family, renderer))
        self._images.append({"pred": list(pred), "gold": list(gold), "family": family, "size": size})
        return _row(Counter(counts))

    def summary(self, coco: bool = True) -> dict[str, Any]:
        """``{"overall": row, "by_family": {family: row}}`` (see the class docstring)."""
        rows = self._tally.rows(_row)
        rows.setdefault("by_family", {})
        if coco and self._images:
            rows["overall"].update(self._coco(None))
            for fam in rows["by_family"]:
                rows["by_family"][fam].update(self._coco(fam))
        return rows

    def _coco(self, family: str | None) -> dict[str, float]:
        """COCO AP/AP50/AP75 over the images of ``family`` (all when None)."""
        from pycocotools.coco import COCO
        from pycocotools.cocoeval import COCOeval

        images: list[dict[str, Any]] = []
        gts: list[dict[str, Any]] = []
        dts: list[dict[str, Any]] = []
        for k, im in enumerate(self._images):
            if family is not None and im["family"] != family:
                continue
            h, w = im["size"] or regions_extent(im["pred"] + im["gold"])
            images.append({"id": k, "height": h, "width": w})
            for target, regions in ((gts, im["gold"]), (dts, im["pred"])):
                for r in regions:
                    x0, y0, x1, y1 = r.bbox
                    ann = {"id": len(target) + 1, "image_id": k, "category_id": 1,
                           "bbox": [x0, y0, x1 - x0, y1 - y0], "area": (x1 - x0) * (y1 - y0),
                           "segmentation": region_rle(r, h, w)}
                    ann.update({"score": r.score} if target is dts else {"iscrowd": 0})
                    target.append(ann)
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
