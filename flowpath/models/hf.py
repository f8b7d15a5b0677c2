"""Loading transformers checkpoints the way every flowpath component does: local files,
safetensors, and no load-time chatter. transformers is imported inside the function."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def quiet_from_pretrained(cls: Any, path: str | Path, **kwargs: Any) -> Any:
    """``cls.from_pretrained(path)`` from local safetensors files, without transformers'
    load-time chatter: the "Loading weights" progress bar it draws on every load (which fills
    batch logs, one per worker), and warnings such as a ResNet backbone that "may not be
    compatible" (it is; our checkpoints are trained with it).

    transformers' verbosity and progress-bar switch are process-wide; they are put back as they
    were after the load.

    Args:
        cls: a transformers class with ``from_pretrained`` (``AutoModel``, a model class).
        path: the ``save_pretrained`` directory.
        **kwargs: more ``from_pretrained`` arguments.

    Returns:
        The loaded model.
    """
    from transformers.utils import logging as hf_logging

    verbosity = hf_logging.get_verbosity()
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        return cls.from_pretrained(str(path), local_files_only=True, use_safetensors=True, **kwargs)
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()
