"""The ``flowpath`` command line.

Subcommands live in ``flowpath/commands/<name>.py``; each module exposes
``register(subparsers) -> None`` which adds its parser(s) and sets ``func`` to a callable
``(args) -> int``. Command modules keep their top-level imports light, so ``flowpath --help``
never loads torch.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from flowpath import __version__
from flowpath.errors import MissingDependencyError, ModelError

#: command modules, in the order their commands are listed in ``--help``
COMMAND_MODULES = (
    "flowpath.commands.attribute",  # attribute, parse
    "flowpath.commands.evaluate",  # eval segment | transcribe | attribution
    "flowpath.commands.demo",  # demo (browser page, flowpath[demo])
)

logger = logging.getLogger("flowpath")


def setup_logging(verbosity: int) -> None:
    """Configure the ``flowpath`` logger only (never the root logger of a host program)."""
    level = logging.WARNING - 10 * verbosity
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logger.handlers[:] = [handler]
    logger.setLevel(max(level, logging.DEBUG))
    logger.propagate = False


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flowpath",
        description="Flowchart images to attributed graphs: find the nodes that ground a statement.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"flowpath {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=1,
                        help="more logging (-vv for debug)")
    parser.add_argument("-q", "--quiet", action="store_const", const=0, dest="verbose",
                        help="only warnings and errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``flowpath`` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    setup_logging(args.verbose)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        return int(func(args) or 0)
    except KeyboardInterrupt:
        logger.error("interrupted")
        return 130
    except (ValueError, FileNotFoundError, MissingDependencyError) as exc:
        # bad input named by our own boundary checks, or a missing extra: one line, no traceback
        logger.error("%s", exc)
        return 2
    except ModelError as exc:  # e.g. a checkpoint that cannot be loaded
        logger.error("%s", exc)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
