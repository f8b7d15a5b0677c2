"""Argument helpers shared by the subcommands."""

from __future__ import annotations

import argparse


def add_device_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", default="auto",
                        help="torch device for learned models: auto, cpu, cuda, cuda:1, mps")


def resolve_device(device: str) -> str:
    """``auto`` -> ``cuda`` when torch sees a GPU, else ``cpu``. Imports torch only if needed."""
    if device != "auto":
        return device
    try:
        import torch
    except ModuleNotFoundError:
        return "cpu"
    if torch.cuda.is_available():
        return "cuda"
    return "cpu"


def formatter() -> type[argparse.HelpFormatter]:
    return argparse.ArgumentDefaultsHelpFormatter
