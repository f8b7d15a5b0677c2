"""`ServedVLMTranscriber`: Flow2Mermaid through an OpenAI-compatible chat endpoint.

How Qwen2-VL is served at scale: ``vllm serve`` (or SGLang, a llama.cpp server, a hosted model)
on the merged Flow2Mermaid directory, then this transcriber sends each letter-labelled image (a
``data:`` URL ``image_url`` part) with the Flow2Mermaid prompt, and validates, retries and
repairs the answers exactly as `flowpath.transcribe.qwen2vl.Qwen2VLTranscriber` does (the loop is
`flowpath.transcribe.qwen2vl.transcribe_with_retries`). Requests run ``batch_size`` at a time,
each with its own timeout, all within a total deadline per call.

Settings not passed are read from the environment: ``FLOWPATH_VLM_URL``, ``FLOWPATH_VLM_MODEL``,
``FLOWPATH_VLM_KEY_ENV`` (name of the variable holding the API key, default ``OPENAI_API_KEY``).

>>> tr = ServedVLMTranscriber("http://127.0.0.1:8000/v1", "flow2mermaid")  # doctest: +SKIP
>>> tr(labelled_charts)[0].mermaid                                         # doctest: +SKIP
"""

from __future__ import annotations

import base64
import io
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from flowpath.errors import ModelError, require
from flowpath.models.base import LabelledChart, Transcriber, Transcription
from flowpath.transcribe.qwen2vl import FLOW2MERMAID_PROMPT, token_budget, transcribe_with_retries

#: request settings tried in turn until the answer parses and its ids are the letters (the
#: chat-API names of `flowpath.transcribe.qwen2vl.DEFAULT_DECODINGS`)
SERVED_DECODINGS: tuple[dict[str, Any], ...] = (
    {"temperature": 0.0},
    {"temperature": 0.0, "frequency_penalty": 0.05},
    {"temperature": 0.7, "top_p": 0.9},
)


def image_data_url(image: Any) -> str:
    """A PNG ``data:`` URL of an RGB array or PIL image (what chat APIs take as ``image_url``)."""
    from PIL import Image

    pil = Image.fromarray(image) if not isinstance(image, Image.Image) else image
    buf = io.BytesIO()
    pil.convert("RGB").save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


class ServedVLMTranscriber(Transcriber):
    """Flow2Mermaid by a vision-language model behind an OpenAI-compatible chat endpoint.

    Args:
        url: the endpoint's base URL (``http://127.0.0.1:8000/v1``); default ``$FLOWPATH_VLM_URL``.
        model: the served model's name; default ``$FLOWPATH_VLM_MODEL``.
        api_key_env: name of the environment variable holding the API key (never the key
            itself); a local server without auth works with it unset.
        batch_size: requests in flight at once (``flowpath parse --batch-size``); the server
            batches concurrent requests itself (vLLM, SGLang: continuous batching).
        timeout_s: per-request timeout in seconds.
        deadline_s: total seconds for one call over all its charts and attempts; requests not
            started by then fail with a message saying so.
        max_new_tokens: the most tokens per answer; each chart asks for
            `flowpath.transcribe.qwen2vl.token_budget` of its node count.
        max_retries: the client's own retries of a failed connection, per request.
        decodings: request settings tried in order (see `SERVED_DECODINGS`).
        prompt: the instruction; must match the one the model was trained with.

    Raises:
        ValueError: no URL or model name given or set in the environment.
    """

    name = "served"

    def __init__(self, url: str | None = None, model: str | None = None, *, api_key_env: str | None = None,
                 batch_size: int = 4, timeout_s: float = 120.0, deadline_s: float = 3600.0,
                 max_new_tokens: int = 1024, max_retries: int = 1,
                 decodings: list[dict[str, Any]] | tuple[dict[str, Any], ...] = SERVED_DECODINGS,
                 prompt: str = FLOW2MERMAID_PROMPT) -> None:
        require("openai", "agent", "ServedVLMTranscriber")
        from openai import OpenAI

        self.url = url or os.environ.get("FLOWPATH_VLM_URL")
        self.model = model or os.environ.get("FLOWPATH_VLM_MODEL")
        if not self.url or not self.model:
            raise ValueError("ServedVLMTranscriber needs the endpoint URL and the served model's name: pass "
                             "url=/model= (CLI: --transcriber-arg url=... --transcriber-arg model=...) or set "
                             "FLOWPATH_VLM_URL and FLOWPATH_VLM_MODEL")
        if int(batch_size) < 1 or timeout_s <= 0 or deadline_s <= 0:
            raise ValueError(f"ServedVLMTranscriber: batch_size must be >= 1 and timeouts > 0, got "
                             f"batch_size={batch_size}, timeout_s={timeout_s}, deadline_s={deadline_s}")
        key = os.environ.get(api_key_env or os.environ.get("FLOWPATH_VLM_KEY_ENV", "OPENAI_API_KEY"))
        self.client = OpenAI(base_url=self.url, api_key=key or "not-needed", timeout=float(timeout_s),
                             max_retries=int(max_retries))
        self.batch_size = int(batch_size)
        self.timeout_s = float(timeout_s)
        self.deadline_s = float(deadline_s)
        self.max_new_tokens = int(max_new_tokens)
        self.decodings = [dict(d) for d in decodings] or [dict(SERVED_DECODINGS[0])]
        self.prompt = prompt

    def describe_endpoint(self) -> str:
        return f"served VLM {self.model!r} at {self.url}"

    def __call__(self, charts: list[LabelledChart]) -> list[Transcription]:
        deadline = time.monotonic() + self.deadline_s
        failures: list[str] = []
        answers = 0

        def generate(todo: list[LabelledChart], decoding: dict[str, Any]) -> list[str | Exception]:
            with ThreadPoolExecutor(max_workers=min(self.batch_size, len(todo))) as pool:
                out = list(pool.map(lambda c: self._request(c, decoding, deadline), todo))
            nonlocal answers
            failures.extend(str(o) for o in out if isinstance(o, Exception))
            answers += sum(not isinstance(o, Exception) for o in out)
            return out

        results = transcribe_with_retries(charts, generate, self.decodings, self.name)
        if charts and not answers:
            # the server never answered: that is a failure of the model, not a chart to repair
            raise ModelError(failures[0])
        return results

    def _request(self, chart: LabelledChart, decoding: dict[str, Any], deadline: float) -> str | Exception:
        """One chat completion for one chart: its text, or a `ModelError` naming the endpoint."""
        left = deadline - time.monotonic()
        if left <= 0:
            return ModelError(f"{self.describe_endpoint()}: total deadline of {self.deadline_s:g} s passed "
                              "before this chart's request was sent")
        messages = [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": image_data_url(chart.labelled_image)}},
            {"type": "text", "text": self.prompt}]}]
        try:
            resp = self.client.chat.completions.create(
                model=self.model, messages=messages,  # type: ignore[arg-type]
                max_tokens=token_budget(len(chart.regions), self.max_new_tokens),
                timeout=min(self.timeout_s, left), **decoding)
        except Exception as exc:  # openai's connection, timeout and status errors: name the endpoint
            return ModelError(f"{self.describe_endpoint()} failed: {type(exc).__name__}: {exc}")
        if not resp.choices:
            return ModelError(f"{self.describe_endpoint()} returned no choices")
        return resp.choices[0].message.content or ""
