"""``flowpath eval attribution --bench DIR [--oracle] [--iou-on {box,region}] [--out DIR]``."""

from __future__ import annotations

import argparse
import logging
import sys

from flowpath.commands.common import (
    add_device_argument,
    add_llm_arguments,
    formatter,
    llm_settings,
    resolve_device,
)
from flowpath.metrics.iou import IOU_ON

logger = logging.getLogger("flowpath")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "attribution", formatter_class=formatter(),
        help="score attribution (micro P/R/F1 at IoU >= 0.7) on a benchmark-layout folder",
        description="Run the pipeline (or, with --oracle, only the reasoner on gold Mermaid + "
                    "gold regions) on every question of a benchmark-layout folder and report "
                    "micro precision/recall/F1 overall, per question type and per domain, with "
                    "path diagnostics.")
    p.add_argument("--bench", required=True, help="benchmark-layout folder (charts/, questions.jsonl)")
    p.add_argument("--oracle", action="store_true",
                   help="reasoner only, on the gold Mermaid and gold regions")
    p.add_argument("--iou-on", choices=IOU_ON, default="box",
                   help="match predicted to gold node regions by box IoU or by region IoU "
                        "(node polygons / masks, the paper's node regions)")
    p.add_argument("--out", help="write attribution.json, attribution.md, records.jsonl here")
    p.add_argument("--limit", type=int, help="only the first N questions")
    p.add_argument("--segmenter", default="default", help="segmenter name")
    p.add_argument("--transcriber", default="default", help="transcriber name")
    p.add_argument("--reasoner", default="default", help="reasoner name")
    add_llm_arguments(p)
    add_device_argument(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from flowpath.evaluation.attribution import evaluate_attribution, markdown_report

    llm = llm_settings(args)
    device = resolve_device(args.device)
    if args.oracle:
        from flowpath.pipeline import _make
        from flowpath.reason import default_reasoner, make_reasoner

        reasoner = (default_reasoner(llm) if args.reasoner == "default"
                    else _make(make_reasoner, args.reasoner, device, settings=llm))
        report = evaluate_attribution(args.bench, reasoner=reasoner, oracle=True, limit=args.limit,
                                      out_dir=args.out, iou_on=args.iou_on,
                                      progress=not args.no_progress and sys.stderr.isatty())
    else:
        from flowpath.pipeline import FlowPath

        fp = FlowPath.from_names(args.segmenter, args.transcriber, args.reasoner, device=device, llm=llm)
        report = evaluate_attribution(args.bench, pipeline=fp, limit=args.limit, out_dir=args.out,
                                      iou_on=args.iou_on,
                                      progress=not args.no_progress and sys.stderr.isatty())
    print(markdown_report(report))
    return 0
