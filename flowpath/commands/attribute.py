"""``flowpath attribute`` and ``flowpath parse``.

    flowpath attribute IMAGES_DIR --questions questions.jsonl --out OUT_DIR [--workers N]
    flowpath attribute IMAGE --question Q --answer A [--out OUT_DIR]
    flowpath parse IMAGES_DIR --out OUT_DIR
    flowpath attribute IMAGES_DIR --questions questions.jsonl|table.parquet --out OUT_DIR \
        --engine ray [--ray-address auto] [--actors N|MIN:MAX] [--format parquet]

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
    TRANSCRIBER_ARG_HELP,
    add_device_argument,
    add_llm_arguments,
    formatter,
    key_values,
    llm_settings,
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
    p.add_argument("--transcriber-arg", action="append", default=[], metavar="KEY=VALUE",
                   help=TRANSCRIBER_ARG_HELP)
    p.add_argument("--batch-size", type=int, default=1, metavar="N",
                   help="charts the transcriber handles together (qwen2vl: one batched generate; "
                        "served: requests in flight); --workers is raised to N so N charts are ready")
    add_device_argument(p)
    p.add_argument("--workers", type=int, default=1,
                   help="threads; each works through whole images")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--max-pixels", type=int, default=None, metavar="N",
                   help="refuse images larger than N pixels (default: flowpath.io.MAX_PIXELS, "
                        "25 Mpx); raise it for a chart that really is that large")
    r = p.add_argument_group("engine", "run the images on Ray Data actors (flowpath[ray])")
    r.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="local: --workers threads in this process; ray: a Ray Data actor pool")
    r.add_argument("--ray-address", default=None, metavar="ADDR",
                   help="Ray cluster to join: 'auto' (the one `ray start` runs here), "
                        "host:6379 or ray://host:10001 (default: start a local one)")
    r.add_argument("--actors", type=_actors, default=1, metavar="N|MIN:MAX",
                   help="actors, each holding one pipeline: a fixed N or an autoscaling "
                        "MIN:MAX pool")
    r.add_argument("--cpus-per-actor", type=float, default=1.0, metavar="C",
                   help="CPUs reserved per actor")
    r.add_argument("--gpus-per-actor", type=float, default=0.0, metavar="G",
                   help="GPUs reserved per actor, for learned models")


def _actors(text: str) -> int | tuple[int, int]:
    try:
        lo, _, hi = text.partition(":")
        return (int(lo), int(hi)) if hi else int(lo)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected N or MIN:MAX, got {text!r}") from None


#: the Ray-only flags and their defaults
RAY_FLAGS = {"ray_address": None, "actors": 1, "cpus_per_actor": 1.0, "gpus_per_actor": 0.0,
             "format": "jsonl"}


def _actor_pool(args: argparse.Namespace) -> Any:
    """The `flowpath.distributed.ActorPool` of ``--engine ray`` (None for the local engine,
    which refuses the Ray-only flags rather than ignoring them)."""
    if args.engine == "local":
        given = [f"--{f.replace('_', '-')}" for f, default in RAY_FLAGS.items()
                 if getattr(args, f, default) != default]
        if given:
            raise ValueError(f"{', '.join(given)} needs --engine ray")
        return None
    from flowpath.errors import require

    require("ray", "ray", "--engine ray")
    from flowpath.distributed import ActorPool

    return ActorPool(actors=args.actors, cpus_per_actor=args.cpus_per_actor,
                     gpus_per_actor=args.gpus_per_actor)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "attribute", formatter_class=formatter(),
        help="find the chart nodes that ground question/answer statements",
        description="Attribute statements to flowchart nodes: a folder of images with a "
                    "questions.jsonl ({id, image, question, answer} per line, image relative to "
                    "the folder), or one image with --question/--answer.")
    p.add_argument("input", help="images folder, one image file, or a URI folder "
                                 "(s3://bucket/charts: any pyarrow filesystem)")
    p.add_argument("--questions", help="questions JSONL (batch form)")
    p.add_argument("--question", help="one question (single-image form)")
    p.add_argument("--answer", help="its answer (single-image form)")
    p.add_argument("--out", help="output folder (required for the batch form)")
    p.add_argument("--no-overlays", action="store_true", help="do not write overlay PNGs")
    p.add_argument("--no-report", action="store_true", help="do not write report.html")
    p.add_argument("--format", choices=("jsonl", "parquet"), default="jsonl",
                   help="parquet: also write results.parquet/ (needs --engine ray)")
    p.add_argument("--allow-outside-images", action="store_true",
                   help="read question images outside the images folder and the questions "
                        "file's folder (../, absolute paths, symlinks that lead out)")
    _add_component_arguments(p)
    p.set_defaults(func=run_attribute_command)

    q = subparsers.add_parser(
        "parse", formatter_class=formatter(),
        help="turn chart images into graphs (JSON + Mermaid + labelled image per image)")
    q.add_argument("input", help="images folder, one image file, or a URI folder "
                                 "(s3://bucket/charts: any pyarrow filesystem)")
    q.add_argument("--out", required=True, help="output folder")
    _add_component_arguments(q)
    q.set_defaults(func=run_parse_command)


def _pipeline_factory(args: argparse.Namespace) -> Any:
    llm = llm_settings(args)  # read here, in the driver: a batch worker builds with these

    def make() -> Any:
        from flowpath.pipeline import FlowPath

        return FlowPath.from_names(args.segmenter, args.transcriber, args.reasoner,
                                   device=resolve_device(args.device), max_pixels=args.max_pixels,
                                   transcriber_options=_transcriber_options(args), llm=llm)
    return make


def _transcriber_options(args: argparse.Namespace) -> dict[str, Any]:
    """``--transcriber-arg KEY=VALUE`` and ``--batch-size`` as transcriber keyword arguments."""
    opts = key_values(args.transcriber_arg, "--transcriber-arg")
    if args.batch_size < 1:
        raise ValueError(f"--batch-size must be >= 1, got {args.batch_size}")
    if args.batch_size > 1:
        opts["batch_size"] = args.batch_size
    return opts


def _workers(args: argparse.Namespace) -> int:
    return max(args.workers, args.batch_size)


def _progress(args: argparse.Namespace) -> bool:
    return not args.no_progress and sys.stderr.isatty()


def run_attribute_command(args: argparse.Namespace) -> int:
    from flowpath.batch import image_root, run_attribute

    src = image_root(args.input)
    if isinstance(src, Path) and not src.exists():
        raise FileNotFoundError(f"{src}: no such images folder or image file")
    if args.questions:
        if args.question or args.answer:
            raise ValueError("give either --questions FILE or --question/--answer, not both")
        if not args.out:
            raise ValueError("the batch form needs --out OUT_DIR")
        pool = _actor_pool(args)
        if pool is None and args.questions.lower().endswith(".parquet"):
            raise ValueError(f"{args.questions}: a Parquet question table needs --engine ray "
                             f"(the local engine reads questions JSONL)")
        if pool is not None:
            from flowpath.distributed import run_attribute_ray

            summary = run_attribute_ray(
                _pipeline_factory(args), src, args.out, questions=args.questions, pool=pool,
                address=args.ray_address, overlays=not args.no_overlays,
                report=not args.no_report, progress=_progress(args),
                allow_outside_images=args.allow_outside_images, output_format=args.format)
        else:
            summary = run_attribute(
                _pipeline_factory(args), src, args.out, questions=args.questions,
                workers=_workers(args), overlays=not args.no_overlays, report=not args.no_report,
                progress=_progress(args), allow_outside_images=args.allow_outside_images)
        logger.info("%d questions: %d ok, %d failed (%d resumed); results in %s",
                    summary["questions"], summary["ok"], summary["failed"], summary["resumed"],
                    Path(args.out) / "results.jsonl")
        return 1 if summary["failed"] else 0
    if args.question is None or args.answer is None:
        raise ValueError("give --questions FILE (batch) or both --question and --answer (one image)")
    if not isinstance(src, Path) or not src.is_file():
        raise ValueError(f"{src}: --question/--answer need one image file on this machine")
    if args.engine != "local":
        raise ValueError("--engine ray runs the batch form (--questions FILE)")
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

    pool = _actor_pool(args)
    if pool is not None:
        from flowpath.distributed import run_parse_ray

        summary = run_parse_ray(_pipeline_factory(args), args.input, args.out, pool=pool,
                                address=args.ray_address, progress=_progress(args))
    else:
        summary = run_parse(_pipeline_factory(args), args.input, args.out,
                            workers=_workers(args), progress=_progress(args))
    logger.info("%d images: %d ok, %d failed (%d resumed); outputs in %s", summary["images"],
                summary["ok"], summary["failed"], summary["resumed"], args.out)
    return 1 if summary["failed"] else 0
