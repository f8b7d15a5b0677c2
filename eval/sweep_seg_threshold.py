"""Recall / precision / F1 of a Mask2Former checkpoint across score thresholds.

    python eval/sweep_seg_threshold.py --model-dir runs/segmenter_cpu/final --data data/gen_eval --limit 40
    python eval/sweep_seg_threshold.py --model-dir DIR --data DIR --write   # store the best one

The model runs once at the lowest threshold; every higher threshold keeps the regions whose
score reaches it (overlap resolution ran on the larger set, so figures at a high threshold can
differ slightly from a run made at that threshold). Prints one row per threshold and the one with
the best F1 at IoU ``--iou``. ``--write`` stores it as ``score_threshold`` in the checkpoint's
``flowpath_segmenter.json``, the operating point `Mask2FormerSegmenter` loads by default.
Choose it on a generated evaluation set, not on the benchmark the model is reported on.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flowpath.datasets import load_gold  # noqa: E402
from flowpath.io import atomic_write_text, load_image  # noqa: E402
from flowpath.metrics import SegmentationMetric  # noqa: E402

DEFAULT_THRESHOLDS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def sweep(predictions: list[list], golds: list[list], thresholds: list[float]) -> list[dict]:
    """One metric row per threshold, from regions predicted at the lowest one."""
    rows = []
    for t in thresholds:
        metric = SegmentationMetric()
        for pred, gold in zip(predictions, golds, strict=True):
            metric.update([r for r in pred if r.score >= t], gold)
        row = metric.summary(coco=False)["overall"]
        row["threshold"] = t
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model-dir", required=True, help="Mask2Former checkpoint directory")
    p.add_argument("--data", required=True, help="benchmark-layout folder or COCO json")
    p.add_argument("--limit", type=int, default=None, help="first N images")
    p.add_argument("--thresholds", default=",".join(map(str, DEFAULT_THRESHOLDS)))
    p.add_argument("--iou", choices=("0.5", "0.7"), default="0.7", help="F1 at this IoU picks the best")
    p.add_argument("--threads", type=int, default=None, help="torch threads")
    p.add_argument("--write", action="store_true", help="store the best threshold in the checkpoint")
    args = p.parse_args(argv)
    try:
        thresholds = sorted(float(t) for t in args.thresholds.split(","))
    except ValueError:
        p.error(f"--thresholds: expected comma-separated numbers, got {args.thresholds!r}")
    if not thresholds or not all(0.0 < t < 1.0 for t in thresholds):
        p.error("--thresholds: every threshold must lie strictly between 0 and 1")

    import torch

    from flowpath.segment.mask2former import INFERENCE_FILE, Mask2FormerSegmenter

    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        seg = Mask2FormerSegmenter(args.model_dir, device="cpu", score_threshold=thresholds[0])
        _, gold_images = load_gold(args.data)
    except ValueError as exc:
        print(f"sweep_seg_threshold: {exc}", file=sys.stderr)
        return 2
    gold_images = gold_images[:args.limit] if args.limit else gold_images
    predictions = [seg.segment(load_image(g.path)) for g in gold_images]
    rows = sweep(predictions, [g.regions for g in gold_images], thresholds)

    print(f"{args.model_dir} on {args.data} ({len(gold_images)} images)")
    print("| threshold | R@0.5 | P@0.5 | F1@0.5 | R@0.7 | P@0.7 | F1@0.7 |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['threshold']:.2f} | " + " | ".join(f"{row[k]:.3f}" for k in (
            "recall@0.5", "precision@0.5", "f1@0.5", "recall@0.7", "precision@0.7", "f1@0.7")) + " |")
    best = max(rows, key=lambda r: (r[f"f1@{args.iou}"], r["threshold"]))  # ties: the stricter one
    print(f"best F1@{args.iou}: {best[f'f1@{args.iou}']:.3f} at threshold {best['threshold']}")
    if args.write:
        path = Path(args.model_dir) / INFERENCE_FILE
        settings = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        settings["score_threshold"] = best["threshold"]
        settings["score_threshold_chosen_on"] = {"data": str(args.data), "images": len(gold_images),
                                                 "by": f"F1@{args.iou}"}
        atomic_write_text(path, json.dumps(settings, indent=2))
        print(f"wrote score_threshold={best['threshold']} to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
