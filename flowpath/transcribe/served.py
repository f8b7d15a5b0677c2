"""`ServedVLMTranscriber`: Flow2Mermaid through an OpenAI-compatible chat endpoint.

How Qwen2-VL is served at scale: ``vllm serve`` (or SGLang, a llama.cpp server, a hosted model)
on the merged Flow2Mermaid directory, then this transcriber sends each letter-labelled image (a
``data:`` URL ``image_url`` part) with the Flow2Mermaid prompt, and validates, retries and
repairs the answers exactly as `flowpath.transcribe.qwen2vl.Qwen2VLTranscriber` does (the loop is
`flowpath.transcribe.qwen2vl.transcribe_with_retries`). Requests run ``batch_size`` at a time.

The client is the reasoners' one (`flowpath.reason.backends.make_model`, backend ``openai``): its
`flowpath.reason.llm_models.GuardedModel` bounds each request by a total deadline (a server that
trickles bytes is cut off too) and stops calling a server that failed ``max_failures`` times in a
row; this class adds a deadline for a whole call over all its charts.

Settings not passed are read from the environment: ``FLOWPATH_VLM_URL``, ``FLOWPATH_VLM_MODEL``,
``FLOWPATH_VLM_KEY_ENV`` (name of the variable holding the API key, default ``OPENAI_API_KEY``).

>>> tr = ServedVLMTranscriber("http://127.0.0.1:8000/v1", "flow2mermaid")  # doctest: +SKIP
>>> tr(labelled_charts)[0].mermaid                                         # doctest: +SKIP
"""

from __future__ import annotations

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


class ServedVLMTranscriber(Transcriber):
    """Flow2Mermaid by a vision-language model behind an OpenAI-compatible chat endpoint.

    Args:
        url: the endpoint's base URL (``http://127.0.0.1:8000/v1``); default ``$FLOWPATH_VLM_URL``.
        model: the served model's name; default ``$FLOWPATH_VLM_MODEL``.
        api_key_env: name of the environment variable holding the API key (never the key
            itself); a local server without auth works with it unset.
        batch_size: requests in flight at once (``flowpath parse --batch-size``); the server
            batches concurrent requests itself (vLLM, SGLang: continuous batching).
        timeout_s: per-request deadline in seconds, the whole answer included.
        deadline_s: total seconds for one call over all its charts and attempts; requests not
            started by then fail with a message saying so.
        max_new_tokens: the most tokens per answer; each chart asks for
            `flowpath.transcribe.qwen2vl.token_budget` of its node count.
        max_retries: the client's own retries of a failed connection, per request.
        max_failures: after this many failed requests in a row the server is not called again
            in this run (``0``: never give up).
        decodings: request settings tried in order (see `SERVED_DECODINGS`).
        prompt: the instruction; must match the one the model was trained with.

    Raises:
        ValueError: no URL or model name given or set in the environment.
    """

    name = "served"

    def __init__(self, url: str | None = None, model: str | None = None, *, api_key_env: str | None = None,
                 batch_size: int = 4, timeout_s: float = 120.0, deadline_s: float = 3600.0,
                 max_new_tokens: int = 1024, max_retries: int = 1, max_failures: int = 3,
                 decodings: list[dict[str, Any]] | tuple[dict[str, Any], ...] = SERVED_DECODINGS,
                 prompt: str = FLOW2MERMAID_PROMPT) -> None:
        require("openai", "agent", "ServedVLMTranscriber")
        from flowpath.reason.backends import make_model

        self.url = url or os.environ.get("FLOWPATH_VLM_URL")
        self.model = model or os.environ.get("FLOWPATH_VLM_MODEL")
        if not self.url or not self.model:
            raise ValueError("ServedVLMTranscriber needs the endpoint URL and the served model's name: pass "
                             "url=/model= (CLI: --transcriber-arg url=... --transcriber-arg model=...) or set "
                             "FLOWPATH_VLM_URL and FLOWPATH_VLM_MODEL")
        if int(batch_size) < 1 or timeout_s <= 0 or deadline_s <= 0:
            raise ValueError(f"ServedVLMTranscriber: batch_size must be >= 1 and timeouts > 0, got "
                             f"batch_size={batch_size}, timeout_s={timeout_s}, deadline_s={deadline_s}")
        # temperature=None: each request's decoding sets it (a model default would override it)
        self.client = make_model("openai", model_id=self.model, api_base=self.url,
                                 api_key_env=api_key_env or os.environ.get("FLOWPATH_VLM_KEY_ENV", "OPENAI_API_KEY"),
                                 timeout=float(timeout_s), max_retries=int(max_retries),
                                 max_failures=int(max_failures), images=True, structured=False,
                                 temperature=None, max_new_tokens=int(max_new_tokens))
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
        from PIL import Image
        from smolagents import ChatMessage, MessageRole

        image = chart.labelled_image
        pil = image if isinstance(image, Image.Image) else Image.fromarray(image)
        message = ChatMessage(role=MessageRole.USER, content=[{"type": "image", "image": pil},
                                                              {"type": "text", "text": self.prompt}])
        try:
            reply = self.client.generate([message], max_tokens=token_budget(len(chart.regions), self.max_new_tokens),
                                         **decoding)
        except Exception as exc:  # connection, status, deadline, open circuit: name the endpoint
            return ModelError(f"{self.describe_endpoint()} failed: {type(exc).__name__}: {exc}")
        return reply.content if isinstance(reply.content, str) else ""
