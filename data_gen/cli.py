"""Command line: ``python -m data_gen OUT [options]``.

>>> main(["/tmp/set", "--count", "20", "--styles", "single_color,black_white",
...       "--outputs", "bench,coco,sft", "--seed", "1", "--workers", "2"])  # doctest: +SKIP
0
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from data_gen.pipeline import (
    CONTENTS,
    OUTPUTS,
    RENDERERS,
    GenConfig,
    default_workers,
    file_jobs,
    procedural_jobs,
    run,
)
from data_gen.styles import FAMILIES, PAPER_FAMILIES


def _csv(kind: tuple[str, ...]):
    def parse(s: str) -> tuple[str, ...]:
        vals = tuple(v.strip() for v in s.split(",") if v.strip())
        bad = [v for v in vals if v not in kind]
        if bad or not vals:
            raise argparse.ArgumentTypeError(f"expected a comma list of {', '.join(kind)}; got {s!r}")
        return vals
    return parse


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m data_gen", description=__doc__.splitlines()[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("out", type=Path, help="output folder (created; re-running resumes)")
    p.add_argument("--config", type=Path, default=None,
                   help="flat YAML of option defaults (keys = option names, e.g. configs/gen_seg_train.yaml); "
                        "flags given on the command line win")
    p.add_argument("--count", type=int, default=100, help="number of procedural charts")
    p.add_argument("--input", type=Path, nargs="+", default=None,
                   help="user Mermaid: .mmd/.md files (one chart each) or .jsonl ({'mermaid': ...} per line) "
                        "instead of procedural charts")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=default_workers(),
                   help="rasterise/write processes running alongside the browser (0: inline)")
    p.add_argument("--styles", type=_csv(FAMILIES), default=PAPER_FAMILIES,
                   help="style families, round-robin (also: wild, handdrawn)")
    p.add_argument("--split", choices=("train", "eval"), default="train",
                   help="palette pool: train and eval palettes are disjoint")
    p.add_argument("--min-nodes", type=int, default=3)
    p.add_argument("--max-nodes", type=int, default=45)
    p.add_argument("--outputs", type=_csv(OUTPUTS), default=("bench",),
                   help="bench (always written), coco, sft")
    p.add_argument("--scale", type=float, default=2.0, help="raster scale (benchmark: 2x)")
    p.add_argument("--max-width", type=int, default=1600, help="cap PNG width (benchmark: 1600)")
    p.add_argument("--augment", type=float, default=0.0, help="fraction of charts with photometric augmentation")
    p.add_argument("--random-text", type=float, default=0.0, help="fraction of charts with random-text labels")
    p.add_argument("--graphviz", type=float, default=0.0, help="fraction of charts laid out by Graphviz dot")
    p.add_argument("--renderers", type=_csv(RENDERERS), default=("mermaid",),
                   help="diagram engines, crossed with the style families: chart i gets family i %% F and "
                        "renderer (i // F) %% R (plantuml: Debian plantuml activity diagrams; flowchartjs: npm "
                        "flowchart.js, the classic web-flowchart look; d2: npm @terrastruct/d2, D2's WASM build, "
                        "dagre or ELK layouts, not the handdrawn family)")
    p.add_argument("--photo", type=float, default=0.0,
                   help="fraction of charts put through the photo/scan pass (paper, light, perspective, desk)")
    p.add_argument("--photo-hard", action="store_true",
                   help="photo pass with a mottled grey desk near the paper's lightness, a strong shadow "
                        "across the sheet and the sheet filling the frame (corners off it)")
    p.add_argument("--wild-blur", type=float, default=None,
                   help="chance of the wild web-image pass's Gaussian blur (default: augment's 0.4); "
                        "1: every wild chart blurred (training lines for the blur specialist)")
    p.add_argument("--rasterizer", choices=("cairo", "browser"), default="browser",
                   help="browser: Chromium screenshots the live SVG (measured ~2.5x less CPU a chart); "
                        "cairo: cairosvg in the worker processes from the style-baked SVG")
    p.add_argument("--prefix", default="gen", help="chart id prefix")
    p.add_argument("--branchy", action="store_true",
                   help="procedural charts made mostly of decisions: labelled branches, nested conditions "
                        "and while-loops returning into their decision")
    p.add_argument("--end-labels", type=float, default=0.0,
                   help="fraction of Graphviz charts whose edge labels sit at one end of the edge "
                        "(taillabel/headlabel) instead of its middle")
    p.add_argument("--content", choices=CONTENTS, default="any",
                   help="procedural charts' text: any (code, how-to and wiki vocabularies), code (the code "
                        "vocabulary only) or program (program charts in code symbols: identifiers, ==, !=, "
                        "<=, %%, +=, calls, quotes, arr[i]; data_gen/code_qa.py)")
    p.add_argument("--contact-sheet", type=Path, default=None,
                   help="also write a contact-sheet PNG of the set (and of the SFT images)")
    p.add_argument("-v", "--verbose", action="store_true")
    return p


def _apply_config(parser: argparse.ArgumentParser, argv: list[str] | None) -> None:
    """Load ``--config`` YAML into the parser defaults (fail fast on unknown keys/bad values)."""
    import yaml

    pre, _ = parser.parse_known_args(argv)
    if pre.config is None:
        return
    if not pre.config.is_file():
        parser.error(f"config file not found: {pre.config}")
    data = yaml.safe_load(pre.config.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        parser.error(f"{pre.config}: expected a mapping of option: value")
    known = {a.dest: a for a in parser._actions}
    defaults = {}
    for key, value in data.items():
        dest = key.replace("-", "_")
        if dest not in known or dest in ("out", "config", "help"):
            parser.error(f"{pre.config}: unknown option {key!r}")
        action = known[dest]
        if isinstance(value, list):
            value = ",".join(map(str, value))
        if action.type is not None and isinstance(value, str):
            try:
                value = action.type(value)
            except (argparse.ArgumentTypeError, ValueError) as err:
                parser.error(f"{pre.config}: {key}: {err}")
        if action.choices is not None and value not in action.choices:
            parser.error(f"{pre.config}: {key} must be one of {list(action.choices)}, got {value!r}")
        defaults[dest] = value
    parser.set_defaults(**defaults)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    _apply_config(parser, argv)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        cfg = GenConfig(out=args.out, count=args.count, seed=args.seed, workers=args.workers,
                        styles=args.styles, split=args.split, min_nodes=args.min_nodes,
                        max_nodes=args.max_nodes, outputs=args.outputs, scale=args.scale,
                        max_width=args.max_width, augment=args.augment, random_text=args.random_text,
                        graphviz=args.graphviz, renderers=args.renderers, photo=args.photo,
                        photo_hard=args.photo_hard, wild_blur=args.wild_blur, rasterizer=args.rasterizer, prefix=args.prefix,
                        branchy=args.branchy, end_labels=args.end_labels,
                        content=args.content)
        jobs = None
        if args.input:
            missing = [str(p) for p in args.input if not p.exists()]
            if missing:
                raise ValueError(f"input files not found: {missing}")
            jobs = list(file_jobs(cfg, args.input))
            cfg.count = len(jobs)
        summary = run(cfg, iter(jobs) if jobs is not None else procedural_jobs(cfg))
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.contact_sheet:
        from data_gen.contact import contact_sheet

        contact_sheet(cfg.out, args.contact_sheet)
    print(json.dumps({k: v for k, v in summary.items() if k != "options"}, indent=1))
    return 1 if summary["charts_failed"] else 0
