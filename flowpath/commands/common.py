"""Argument helpers shared by the subcommands."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from flowpath.reason.backends import LLMSettings


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


#: help of ``--transcriber-arg`` (``parse``, ``attribute``, ``eval transcribe``)
TRANSCRIBER_ARG_HELP = ("a transcriber setting, repeatable: learned=false (ocr: no learned small-print "
                        "recogniser), base=DIR adapter=DIR (qwen2vl), url=URL model=NAME (served); values "
                        "are read as JSON when they parse")


def key_values(items: list[str], flag: str) -> dict[str, Any]:
    """``KEY=VALUE`` command-line items as keyword arguments; a value is read as JSON when it
    parses (``false``, ``8``), else kept as a string.

    Raises:
        ValueError: an item without ``=`` or without a key (the message names the flag).
    """
    opts: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"{flag} {item!r}: expected KEY=VALUE")
        try:
            opts[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            opts[key.strip()] = value
    return opts


def formatter() -> type[argparse.HelpFormatter]:
    return argparse.ArgumentDefaultsHelpFormatter


#: ``--llm-*`` flag -> (`flowpath.reason.backends.LLMSettings` field, value type, help)
LLM_FLAGS: dict[str, tuple[str, type, str]] = {
    "llm_backend": ("backend", str, "LLM backend: openai, transformers or litellm"),
    "llm_model": ("model_id", str, "server model name, or a local model directory / .gguf file"),
    "llm_url": ("api_base", str, "OpenAI-compatible server URL, e.g. http://127.0.0.1:8080/v1"),
    "llm_timeout": ("timeout", float, "total deadline of one LLM call in seconds (default 60)"),
    "llm_max_failures": ("max_failures", int,
                         "stop calling the LLM after this many failed calls in a row (default 3; 0: never)"),
    "llm_fallback": ("fallback", str, "reasoner that answers when the LLM fails: offline or none"),
    "llm_images": ("images", str, "whether the model takes images: yes, no or auto"),
    "llm_max_new_tokens": ("max_new_tokens", int, "generation budget per agent step (default 256)"),
}


def add_llm_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--llm-*`` flags of the LLM reasoners (agent, hybrid, som); an unset flag keeps the
    setting of its ``FLOWPATH_LLM_*`` variable (`llm_settings`)."""
    from flowpath.reason.backends import ENV_SETTINGS

    for dest, (name, kind, text) in LLM_FLAGS.items():
        parser.add_argument("--" + dest.replace("_", "-"), dest=dest, type=kind, default=None,
                            help=f"{text} [{ENV_SETTINGS[name]}]")


def llm_settings(args: argparse.Namespace) -> LLMSettings:
    """The LLM settings of a command: ``FLOWPATH_LLM_*`` read once here, at the edge, with the
    given ``--llm-*`` flags on top. They are handed to the pipeline; the environment is left
    as it is."""
    from flowpath.reason.backends import LLMSettings

    flags = {name: getattr(args, dest, None) for dest, (name, _, _) in LLM_FLAGS.items()}
    return LLMSettings.from_env().updated(**flags)
