"""``flowpath eval segment (--bench DIR | --coco FILE) [--segmenter NAME] [--out DIR]``."""

from __future__ import annotations

import argparse
import json
import sys

from flowpath.commands.common import add_device_argument, formatter, resolve_device


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "segment", formatter_class=formatter(),
        help="score node segmentation against gold node regions",
        description="Segment every chart of a benchmark-layout folder or COCO instances json and "
                    "report COCO AP/AP50/AP75 (box and mask), recall and precision at IoU 0.5 "
                    "and 0.7, and the mean IoU of matched regions, overall, per style family and, for "
                    "generated charts, per renderer and (family, renderer) pair.")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--bench", help="benchmark-layout folder (charts/*.png + *.json)")
    src.add_argument("--coco", help="COCO instances json (file_name relative to the json)")
    p.add_argument("--segmenter", default="default", help="classical, mask2former or default")
    p.add_argument("--model-dir", help="mask2former: checkpoint directory (default: the shipped one)")
    p.add_argument("--score-threshold", type=float, default=None, help="mask2former: min instance score")
    p.add_argument("--limit", type=int, help="only the first N charts")
    p.add_argument("--no-coco-ap", action="store_true", help="skip COCO AP (faster)")
    p.add_argument("--out", help="write segmentation.json (summary + per-chart rows) here")
    p.add_argument("--json", action="store_true", help="print the JSON summary instead of the table")
    add_device_argument(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from flowpath.evaluation.segmentation import evaluate_segmenter
    from flowpath.io import atomic_write_text
    from flowpath.segment import default_segmenter, make_segmenter

    kw: dict = {}
    name = args.segmenter
    if name.replace("-", "").replace("_", "").lower() == "mask2former":
        kw = {"model_dir": args.model_dir, "device": resolve_device(args.device)}
        if args.score_threshold is not None:
            kw["score_threshold"] = args.score_threshold
    segmenter = default_segmenter() if name == "default" else make_segmenter(name, **kw)
    report = evaluate_segmenter(segmenter, args.bench or args.coco, limit=args.limit,
                                coco=not args.no_coco_ap,
                                progress=not args.no_progress and sys.stderr.isatty())
    if args.out:
        atomic_write_text(Path(args.out) / "segmentation.json", json.dumps(report.to_dict(), indent=2))
    if args.json:
        print(json.dumps({k: v for k, v in report.to_dict().items() if k != "charts"}, indent=2))
    else:
        print(report.format_table())
    # every chart unreadable: a failed run; some unreadable: reported, still a result
    return 1 if report.failures and not report.charts else 0
