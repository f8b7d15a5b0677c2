"""LLM backends for the agent and set-of-marks reasoners, as smolagents ``Model`` objects.

* ``openai``: any OpenAI-compatible chat server (vLLM, llama.cpp server, Ollama, hosted APIs):
  ``api_base`` URL, ``model_id``, key read from the environment variable ``api_key_env``.
* ``transformers``: a local transformers model *directory* (never a hub id: nothing is
  downloaded at run time).
* ``litellm``: any LiteLLM route (``model_id="ollama_chat/qwen2.5"``, ...).

smolagents is imported inside `make_model`, so importing this module is free.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from flowpath.errors import require

BACKENDS = ("openai", "transformers", "litellm")


def make_model(backend: str | None = None, *, model_id: str | None = None, api_base: str | None = None,
               api_key_env: str | None = None, timeout: float = 60.0, max_retries: int = 1,
               temperature: float | None = 0.0, max_new_tokens: int = 1024, device: str | None = None,
               **kwargs: Any) -> Any:
    """Build a smolagents ``Model`` for a backend.

    Settings not passed are read from the environment, so the CLI's ``--reasoner agent`` works
    without code: ``FLOWPATH_LLM_BACKEND`` (default ``openai``), ``FLOWPATH_LLM_MODEL``,
    ``FLOWPATH_LLM_URL``, ``FLOWPATH_LLM_KEY_ENV`` (default ``OPENAI_API_KEY``).

    Args:
        backend: one of `BACKENDS`.
        model_id: server model name (``openai``/``litellm``) or a local directory (``transformers``).
        api_base: server URL for ``openai`` (e.g. ``http://localhost:8000/v1``) or ``litellm``.
        api_key_env: name of the environment variable holding the API key (never the key
            itself); a local server without auth works with the variable unset.
        device: ``transformers`` only: torch device map (default ``cpu``); ignored by API backends.
        timeout: per-request network timeout in seconds (API backends).
        max_retries: client retries on connection errors (API backends); each failure is
            reported per question by the reasoner, so keep this small.
        temperature: sampling temperature for API backends (``None``: server default).
        max_new_tokens: generation budget (``transformers``).
        **kwargs: passed through to the smolagents model class.

    Returns:
        A smolagents ``Model``.

    Raises:
        ValueError: unknown backend, missing ``model_id``, or a ``transformers`` path that is not
            a directory.
        flowpath.errors.MissingDependencyError: the backend's package is not installed.
    """
    require("smolagents", "agent", "LLM reasoning")
    backend = backend or os.environ.get("FLOWPATH_LLM_BACKEND", "openai")
    model_id = model_id or os.environ.get("FLOWPATH_LLM_MODEL")
    api_base = api_base or os.environ.get("FLOWPATH_LLM_URL")
    api_key_env = api_key_env or os.environ.get("FLOWPATH_LLM_KEY_ENV", "OPENAI_API_KEY")
    key = backend.strip().lower()
    if key not in BACKENDS:
        raise ValueError(f"unknown LLM backend {backend!r}; expected one of {BACKENDS}")
    if not model_id:
        raise ValueError(f"backend {key!r} needs model_id (a model name, or a local directory for "
                         "transformers): pass model_id= or set FLOWPATH_LLM_MODEL")
    extra = {} if temperature is None else {"temperature": temperature}
    if key == "openai":
        require("openai", "agent", "the OpenAI-compatible backend")
        from smolagents import OpenAIServerModel

        api_key = os.environ.get(api_key_env) or "not-needed"  # local servers often accept any key
        return OpenAIServerModel(model_id=model_id, api_base=api_base, api_key=api_key,
                                 client_kwargs={"timeout": timeout, "max_retries": max_retries},
                                 **extra, **kwargs)
    if key == "litellm":
        require("litellm", "agent", "the LiteLLM backend")
        from smolagents import LiteLLMModel

        litellm_key = os.environ.get(api_key_env) or ("not-needed" if api_base else None)
        if _litellm_needs_mcp_skip():
            kwargs.setdefault("_skip_mcp_handler", True)
        return LiteLLMModel(model_id=model_id, api_base=api_base, api_key=litellm_key, timeout=timeout,
                            num_retries=max_retries, **extra, **kwargs)
    # transformers: local directory only, so no hub access can happen
    path = Path(model_id).expanduser()
    if not path.is_dir():
        raise ValueError(f"transformers backend: model_id must be a local model directory, got {model_id!r}")
    require("transformers", "models", "the local transformers backend")
    require("torch", "models", "the local transformers backend")
    from smolagents import TransformersModel

    dev = device if device and device != "auto" else "cpu"
    return TransformersModel(model_id=str(path), device_map=kwargs.pop("device_map", dev),
                             max_new_tokens=max_new_tokens, **kwargs)


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
