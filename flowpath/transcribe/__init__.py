"""Transcription: labelled flowchart image -> Mermaid whose node ids are the letter labels.

Three backends behind the `flowpath.models.base.Transcriber` interface:

* ``ocr``: `OCRTranscriber`, offline and CPU-only: tesseract for the text, classical computer
  vision for connectors, arrowheads, edge labels and node shapes (the default).
* ``source``: `SourceTranscriber`, for users who have the chart's Mermaid source
  (``chart.mmd`` beside ``chart.png``): its node ids are mapped onto the letters.
* ``qwen2vl``: `Qwen2VLTranscriber`, a Qwen2-VL checkpoint (+ LoRA adapter) trained by
  ``training/train_flow2mermaid.py`` (needs ``flowpath[models]``; torch loads only when built).
* ``served``: `ServedVLMTranscriber`, the same Flow2Mermaid model (or any vision-language model)
  behind an OpenAI-compatible chat endpoint such as ``vllm serve`` (needs ``openai``).

>>> make_transcriber("ocr").name  # doctest: +SKIP
'ocr'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flowpath.registry import Registry

if TYPE_CHECKING:  # pragma: no cover
    from flowpath.models.base import Transcriber
    from flowpath.transcribe.ocr import OCRTranscriber
    from flowpath.transcribe.qwen2vl import Qwen2VLTranscriber
    from flowpath.transcribe.served import ServedVLMTranscriber
    from flowpath.transcribe.source import SourceTranscriber

__all__ = ["OCRTranscriber", "Qwen2VLTranscriber", "ServedVLMTranscriber", "SourceTranscriber", "TRANSCRIBERS",
           "default_transcriber", "make_transcriber"]

TRANSCRIBERS: Registry[Transcriber] = Registry("transcriber", {
    "ocr": "flowpath.transcribe.ocr:OCRTranscriber",
    "source": "flowpath.transcribe.source:SourceTranscriber",
    "qwen2vl": "flowpath.transcribe.qwen2vl:Qwen2VLTranscriber",
    "served": "flowpath.transcribe.served:ServedVLMTranscriber",
}, aliases={"offline": "ocr", "tesseract": "ocr", "mermaid": "source", "qwen": "qwen2vl",
            "flow2mermaid": "qwen2vl", "vlm": "served", "openai": "served", "vllm": "served"},
   requires={"served": [("openai", "agent"), ("smolagents", "agent")]})

# PEP 562 lazy attributes: `import flowpath.transcribe` loads neither OpenCV nor torch
__getattr__ = TRANSCRIBERS.lazy_attribute(__name__)


def make_transcriber(name: str, *, device: str | None = None, **kwargs: Any) -> Transcriber:
    """Build a transcriber by name.

    Args:
        name: ``ocr`` (alias ``offline``), ``source``, ``qwen2vl`` or ``served`` (alias ``vllm``).
        device: torch device, for transcribers that declare one (``qwen2vl``).
        **kwargs: passed to the class (e.g. ``base=``, ``adapter=`` for qwen2vl).

    Returns:
        The transcriber.

    Raises:
        ValueError: unknown name.
        flowpath.errors.MissingDependencyError: the transcriber's extra is not installed.
    """
    return TRANSCRIBERS.make(name, device=device, **kwargs)


def default_transcriber(**kwargs: Any) -> Transcriber:
    """The transcriber that works out of the box: `OCRTranscriber` (see docs/transcription.md).

    >>> default_transcriber().name  # doctest: +SKIP
    'ocr'
    """
    return make_transcriber("ocr", **kwargs)
