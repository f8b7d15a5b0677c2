"""``flowpath attribute`` and ``flowpath parse``.

    flowpath attribute IMAGES_DIR --questions questions.jsonl --out OUT_DIR [--workers N]
    flowpath attribute IMAGE --question Q --answer A [--out OUT_DIR]
    flowpath parse IMAGES_DIR --out OUT_DIR

Exit code: 0 when everything succeeded, 1 when any image or question failed (each failure is
recorded in the outputs and the run goes on), 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

from flowpath.commands.common import (
    add_device_argument,
    add_llm_arguments,
    apply_llm_arguments,
    formatter,
    resolve_device,
)

logger = logging.getLogger("flowpath")


def _add_component_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--segmenter", default="default",
                   help="segmenter name (flowpath.segment.make_segmenter), e.g. classical, mask2former")
    p.add_argument("--transcriber", default="default",
                   help="transcriber name (flowpath.transcribe.make_transcriber), e.g. ocr, qwen2vl")
    p.add_argument("--reasoner", default="default",
                   help="reasoner name (flowpath.reason.make_reasoner), e.g. offline, agent, hybrid, som")
    add_llm_arguments(p)
    add_device_argument(p)
    p.add_argument("--workers", type=int, default=1,
                   help="threads; each works through whole images")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--max-pixels", type=int, default=None, metavar="N",
                   help="refuse images larger than N pixels (default: flowpath.io.MAX_PIXELS, "
                        "25 Mpx); raise it for a chart that really is that large")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "attribute", formatter_class=formatter(),
        help="find the chart nodes that ground question/answer statements",
        description="Attribute statements to flowchart nodes: a folder of images with a "
                    "questions.jsonl ({id, image, question, answer} per line, image relative to "
                    "the folder), or one image with --question/--answer.")
    p.add_argument("input", help="images folder, or one image file")
    p.add_argument("--questions", help="questions JSONL (batch form)")
    p.add_argument("--question", help="one question (single-image form)")
    p.add_argument("--answer", help="its answer (single-image form)")
    p.add_argument("--out", help="output folder (required for the batch form)")
    p.add_argument("--no-overlays", action="store_true", help="do not write overlay PNGs")
    p.add_argument("--no-report", action="store_true", help="do not write report.html")
    p.add_argument("--allow-outside-images", action="store_true",
                   help="read question images outside the images folder and the questions "
                        "file's folder (../, absolute paths, symlinks that lead out)")
    _add_component_arguments(p)
    p.set_defaults(func=run_attribute_command)

    q = subparsers.add_parser(
        "parse", formatter_class=formatter(),
        help="turn chart images into graphs (JSON + Mermaid + labelled image per image)")
    q.add_argument("input", help="images folder, or one image file")
    q.add_argument("--out", required=True, help="output folder")
    _add_component_arguments(q)
    q.set_defaults(func=run_parse_command)


def _pipeline_factory(args: argparse.Namespace) -> Any:
    apply_llm_arguments(args)

    def make() -> Any:
        from flowpath.pipeline import FlowPath

        return FlowPath.from_names(args.segmenter, args.transcriber, args.reasoner,
                                   device=resolve_device(args.device), max_pixels=args.max_pixels)
    return make


def _progress(args: argparse.Namespace) -> bool:
    return not args.no_progress and sys.stderr.isatty()


def run_attribute_command(args: argparse.Namespace) -> int:
    from flowpath.batch import run_attribute

    src = Path(args.input)
    if not src.exists():
        raise FileNotFoundError(f"{src}: no such images folder or image file")
    if args.questions:
        if args.question or args.answer:
            raise ValueError("give either --questions FILE or --question/--answer, not both")
        if not args.out:
            raise ValueError("the batch form needs --out OUT_DIR")
        summary = run_attribute(_pipeline_factory(args), src, args.out, questions=args.questions,
                                workers=args.workers, overlays=not args.no_overlays,
                                report=not args.no_report, progress=_progress(args),
                                allow_outside_images=args.allow_outside_images)
        logger.info("%d questions: %d ok, %d failed (%d resumed); results in %s",
                    summary["questions"], summary["ok"], summary["failed"], summary["resumed"],
                    Path(args.out) / "results.jsonl")
        return 1 if summary["failed"] else 0
    if args.question is None or args.answer is None:
        raise ValueError("give --questions FILE (batch) or both --question and --answer (one image)")
    if not src.is_file():
        raise ValueError(f"{src}: --question/--answer need one image file, not a folder")
    if args.out:
        summary = run_attribute(_pipeline_factory(args), src, args.out,
                                questions=[{"id": "q1", "image": src.name,
                                            "question": args.question, "answer": args.answer}],
                                overlays=not args.no_overlays, report=not args.no_report,
                                progress=False)
        rec = json.loads((Path(args.out) / "results.jsonl").read_text("utf-8").split("\n")[0])
        failed = summary["failed"]
    else:
        att = _pipeline_factory(args)().attribute(src, args.question, args.answer)
        rec = att.to_dict()
        failed = 0 if att.ok else 1
    if (args.verbose or 0) < 3:  # the agent trace is long: shown with -vv only
        rec.pop("trace", None)
    print(json.dumps(rec, indent=1))
    if rec.get("error"):
        logger.error("%s", rec["error"])
    return 1 if failed else 0


def run_parse_command(args: argparse.Namespace) -> int:
    from flowpath.batch import run_parse

    summary = run_parse(_pipeline_factory(args), args.input, args.out, workers=args.workers,
                        progress=_progress(args))
    logger.info("%d images: %d ok, %d failed (%d resumed); outputs in %s", summary["images"],
                summary["ok"], summary["failed"], summary["resumed"], args.out)
    return 1 if summary["failed"] else 0
