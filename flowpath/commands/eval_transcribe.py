"""``flowpath eval transcribe --bench DIR [--segmenter NAME | --gold-regions] [--out DIR]``."""

from __future__ import annotations

import argparse
import json
import sys

from flowpath.commands.common import (
    TRANSCRIBER_ARG_HELP,
    add_device_argument,
    formatter,
    key_values,
    resolve_device,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "transcribe", formatter_class=formatter(),
        help="score transcription (node text, edges, conditions) against the gold Mermaid",
        description="Segment (or take the gold node regions), label and transcribe every chart "
                    "of a benchmark-layout folder, match predicted letters to gold node ids by "
                    "region IoU, and report node-text word F1, node F1, directed edge P/R/F1, "
                    "edge-condition accuracy and exact-graph rate, overall, per domain, per "
                    "style family and, for generated charts, per renderer and (family, renderer) "
                    "pair.")
    p.add_argument("--bench", required=True, help="benchmark-layout folder (charts/*.png + *.json)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--segmenter", default="default", help="segmenter name (default: the default segmenter)")
    g.add_argument("--gold-regions", action="store_true",
                   help="label the gold node regions instead of segmenting (transcription alone)")
    p.add_argument("--transcriber", default="default", help="transcriber name (ocr, source, qwen2vl)")
    p.add_argument("--transcriber-arg", action="append", default=[], metavar="KEY=VALUE",
                   help=TRANSCRIBER_ARG_HELP)
    p.add_argument("--base", help="qwen2vl: base model directory")
    p.add_argument("--adapter", help="qwen2vl: LoRA adapter directory")
    p.add_argument("--limit", type=int, help="only the first N charts")
    p.add_argument("--out", help="write transcription.json, transcription.md, records.jsonl here")
    p.add_argument("--json", action="store_true", help="print the JSON report instead of the table")
    add_device_argument(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from flowpath.evaluation.transcription import evaluate_transcription, markdown_report
    from flowpath.transcribe import default_transcriber, make_transcriber

    kw = key_values(args.transcriber_arg, "--transcriber-arg")
    if args.transcriber.replace("-", "").replace("_", "").lower() in ("qwen2vl", "qwen", "flow2mermaid"):
        if not args.base:
            raise ValueError("--transcriber qwen2vl needs --base (a local Qwen2-VL checkpoint directory)")
        kw |= {"base": args.base, "adapter": args.adapter, "device": resolve_device(args.device)}
    transcriber = default_transcriber(**kw) if args.transcriber == "default" else make_transcriber(args.transcriber, **kw)
    segmenter = None
    if not args.gold_regions:
        from flowpath.segment import default_segmenter, make_segmenter

        segmenter = default_segmenter() if args.segmenter == "default" else make_segmenter(args.segmenter)
    report = evaluate_transcription(args.bench, transcriber, segmenter=segmenter,
                                    gold_regions=args.gold_regions, limit=args.limit, out_dir=args.out,
                                    progress=not args.no_progress and sys.stderr.isatty())
    if args.json:
        print(json.dumps({k: v for k, v in report.items() if k != "records"}, indent=2))
    else:
        print(markdown_report(report), end="")
    return 1 if report["failures"] and len(report["failures"]) == report["settings"]["charts"] else 0
