"""Transcription: labelled flowchart image -> Mermaid whose node ids are the letter labels.

Three backends behind the `flowpath.models.base.Transcriber` interface:

* ``ocr``: `OCRTranscriber`, offline and CPU-only: tesseract for the text, classical computer
  vision for connectors, arrowheads, edge labels and node shapes (the default).
* ``source``: `SourceTranscriber`, for users who have the chart's Mermaid source
  (``chart.mmd`` beside ``chart.png``): its node ids are mapped onto the letters.
* ``qwen2vl``: `Qwen2VLTranscriber`, a Qwen2-VL checkpoint (+ LoRA adapter) trained by
  ``training/train_flow2mermaid.py`` (needs ``flowpath[models]``; torch loads only when built).

>>> make_transcriber("ocr").name  # doctest: +SKIP
'ocr'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from flowpath.models.base import Transcriber
    from flowpath.transcribe.ocr import OCRTranscriber
    from flowpath.transcribe.qwen2vl import Qwen2VLTranscriber
    from flowpath.transcribe.source import SourceTranscriber

__all__ = ["OCRTranscriber", "Qwen2VLTranscriber", "SourceTranscriber", "TRANSCRIBERS",
           "default_transcriber", "make_transcriber"]

#: name -> "module:Class"
TRANSCRIBERS = {
    "ocr": "flowpath.transcribe.ocr:OCRTranscriber",
    "source": "flowpath.transcribe.source:SourceTranscriber",
    "qwen2vl": "flowpath.transcribe.qwen2vl:Qwen2VLTranscriber",
}
_ALIASES = {"offline": "ocr", "tesseract": "ocr", "mermaid": "source", "qwen": "qwen2vl",
            "flow2mermaid": "qwen2vl"}


def __getattr__(name: str) -> Any:
    # PEP 562 lazy attributes: `import flowpath.transcribe` loads neither OpenCV nor torch
    for target in TRANSCRIBERS.values():
        module, cls = target.split(":")
        if cls == name:
            import importlib

            return getattr(importlib.import_module(module), cls)
    raise AttributeError(f"module 'flowpath.transcribe' has no attribute {name!r}")


def make_transcriber(name: str, **kwargs: Any) -> Transcriber:
    """Build a transcriber by name.

    Args:
        name: ``ocr`` (alias ``offline``), ``source`` or ``qwen2vl``.
        **kwargs: passed to the class (e.g. ``base=``, ``adapter=``, ``device=`` for qwen2vl).

    Returns:
        The transcriber.

    Raises:
        ValueError: unknown name.
    """
    import importlib

    key = name.strip().lower().replace("-", "").replace("_", "")
    key = _ALIASES.get(key, key)
    if key not in TRANSCRIBERS:
        raise ValueError(f"unknown transcriber {name!r}; choose one of {sorted(TRANSCRIBERS)}")
    module, cls = TRANSCRIBERS[key].split(":")
    return getattr(importlib.import_module(module), cls)(**kwargs)


def default_transcriber(**kwargs: Any) -> Transcriber:
    """The transcriber that works out of the box: `OCRTranscriber` (see docs/transcription.md).

    >>> default_transcriber().name  # doctest: +SKIP
    'ocr'
    """
    return make_transcriber("ocr", **kwargs)
