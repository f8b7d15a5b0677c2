"""``flowpath eval {segment,transcribe,attribution}``: score a stage on a benchmark-layout folder.

Each kind lives in its own module (``eval_segment``, ``eval_transcribe``, ``eval_attribution``)
exposing ``register(subparsers)``, so the three evaluations stay independent.
"""

from __future__ import annotations

import argparse
import importlib

EVAL_MODULES = (
    "flowpath.commands.eval_segment",
    "flowpath.commands.eval_transcribe",
    "flowpath.commands.eval_attribution",
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("eval", help="evaluate a pipeline stage on a benchmark-layout folder",
                                   formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    sub = parser.add_subparsers(dest="eval_kind", metavar="KIND")
    for name in EVAL_MODULES:
        importlib.import_module(name).register(sub)
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])
