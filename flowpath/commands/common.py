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


#: ``--llm-*`` flag -> the ``FLOWPATH_LLM_*`` variable it sets (flowpath.reason.backends.make_model)
LLM_FLAGS = {
    "llm_backend": ("FLOWPATH_LLM_BACKEND", "LLM backend: openai, transformers or litellm"),
    "llm_model": ("FLOWPATH_LLM_MODEL", "server model name, or a local model directory / .gguf file"),
    "llm_url": ("FLOWPATH_LLM_URL", "OpenAI-compatible server URL, e.g. http://127.0.0.1:8080/v1"),
    "llm_timeout": ("FLOWPATH_LLM_TIMEOUT", "total deadline of one LLM call in seconds (default 60)"),
    "llm_max_failures": ("FLOWPATH_LLM_MAX_FAILURES",
                         "stop calling the LLM after this many failed calls in a row (default 3; 0: never)"),
    "llm_fallback": ("FLOWPATH_LLM_FALLBACK", "reasoner that answers when the LLM fails: offline or none"),
    "llm_images": ("FLOWPATH_LLM_IMAGES", "whether the model takes images: yes, no or auto"),
    "llm_max_new_tokens": ("FLOWPATH_LLM_MAX_NEW_TOKENS", "generation budget per agent step (default 256)"),
}


def add_llm_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--llm-*`` flags of the LLM reasoners (agent, hybrid, som); unset flags leave the
    ``FLOWPATH_LLM_*`` environment as it is."""
    for dest, (var, text) in LLM_FLAGS.items():
        parser.add_argument("--" + dest.replace("_", "-"), dest=dest, default=None, help=f"{text} [{var}]")


def apply_llm_arguments(args: argparse.Namespace) -> None:
    """Export the given ``--llm-*`` flags as ``FLOWPATH_LLM_*``, where the backends read them."""
    import os

    for dest, (var, _) in LLM_FLAGS.items():
        value = getattr(args, dest, None)
        if value is not None:
            os.environ[var] = str(value)
