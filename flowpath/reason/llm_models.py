"""smolagents ``Model`` classes behind `flowpath.reason.backends.make_model` (needs ``flowpath[agent]``).

* `GuardedModel` wraps any backend model and gives every call what the backends alone do not:
  a total deadline (an HTTP client's timeout restarts on every byte received, so a server that
  trickles bytes is waited on forever), a per-question time budget, a circuit breaker that stops
  calling a backend after ``max_failures`` failures in a row, and structured tool calls (the
  output is constrained to `flowpath.reason.base.tool_call_schema`, so a small model can only
  call real tools with real node ids).
* `ConstrainedTransformersModel` is smolagents' ``TransformersModel`` that honours a JSON-schema
  ``response_format`` by constrained decoding (lm-format-enforcer's token enforcer plugged into
  transformers' ``prefix_allowed_tokens_fn``) and reuses the KV cache of the longest prompt
  prefix it has already computed (the system prompt and chart, the earlier steps of a question).
"""

from __future__ import annotations

import copy
import json
import threading
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from flowpath.errors import require

require("smolagents", "agent", "LLM reasoning")

from smolagents import ChatMessage, MessageRole, Model, TransformersModel  # noqa: E402
from smolagents.models import ChatMessageToolCall, ChatMessageToolCallFunction  # noqa: E402

from flowpath.reason.base import answer_schema, tool_call_schema  # noqa: E402


class LLMUnavailableError(RuntimeError):
    """The backend failed ``max_failures`` times in a row; it is not called again."""


class LLMDeadlineError(TimeoutError):
    """A model call (or the question's time budget) ran past its deadline."""


def json_schema_format(schema: dict[str, Any], name: str = "tool_call") -> dict[str, Any]:
    """An OpenAI-style ``response_format`` asking for JSON that matches ``schema``."""
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}


def schema_of(response_format: dict[str, Any] | None) -> dict[str, Any] | None:
    """The JSON schema inside an OpenAI-style ``response_format`` (``None`` when there is none)."""
    if not response_format or response_format.get("type") != "json_schema":
        return None
    return (response_format.get("json_schema") or {}).get("schema")


class GuardedModel(Model):
    """Deadline, circuit breaker, capability flag and structured tool calls around a backend model.

    Args:
        inner: the backend's smolagents model.
        deadline: seconds one call may take in total (connect + generate + every byte).
        max_failures: after this many failed calls in a row the backend is not called again and
            every call raises `LLMUnavailableError` (``0``: never stop).
        takes_images: whether the model accepts images (text-only models get the chart as text).
        structured: ask for each tool call as JSON matching `tool_call_schema` (constrained
            decoding locally, ``response_format`` on servers) instead of free-form tool calls.
        max_new_tokens: generation budget per step.
    """

    def __init__(self, inner: Model, *, deadline: float, max_failures: int, takes_images: bool,
                 structured: bool, max_new_tokens: int) -> None:
        if deadline <= 0:
            raise ValueError(f"the LLM deadline must be > 0 seconds, got {deadline}")
        if max_failures < 0:
            raise ValueError(f"max_failures must be >= 0, got {max_failures}")
        super().__init__(model_id=inner.model_id, flatten_messages_as_text=inner.flatten_messages_as_text)
        self.inner = inner
        self.deadline = deadline
        self.max_failures = max_failures
        self.takes_images = takes_images
        self.structured = structured
        self.max_new_tokens = max_new_tokens
        self.consecutive_failures = 0
        self.node_ids: list[str] | None = None
        self._question_ends: float | None = None
        self._lock = threading.Lock()

    # -- per question ------------------------------------------------------------------------
    def begin_question(self, node_ids: Iterable[str] | None, time_budget: float | None) -> None:
        """Constrain node arguments and answers to ``node_ids`` and start the question's time budget."""
        self.node_ids = None if node_ids is None else list(node_ids)
        self._question_ends = None if time_budget is None else time.monotonic() + time_budget

    @property
    def open_circuit(self) -> bool:
        """True once the backend failed ``max_failures`` times in a row."""
        return self.max_failures > 0 and self.consecutive_failures >= self.max_failures

    def _budget(self) -> float:
        budget = self.deadline
        if self._question_ends is not None:
            budget = min(budget, self._question_ends - time.monotonic())
        if budget <= 0:
            raise LLMDeadlineError("the question's time budget is spent")
        return budget

    # -- smolagents Model API ------------------------------------------------------------------
    def generate(self, messages: list[ChatMessage | dict], stop_sequences: list[str] | None = None,
                 response_format: dict[str, Any] | None = None, tools_to_call_from: list[Any] | None = None,
                 **kwargs: Any) -> ChatMessage:
        if self.open_circuit:
            raise LLMUnavailableError(
                f"the LLM backend ({self.model_id}) failed {self.consecutive_failures} times in a row; "
                "not calling it again in this run")
        budget = self._budget()
        structured = self.structured and bool(tools_to_call_from) and self.node_ids is not None
        answer_only = structured and [t.name for t in tools_to_call_from or []] == ["final_answer"]
        if answer_only:
            # the only tool is final_answer: decode just the answer (the call's wrapper is fixed)
            response_format = json_schema_format(answer_schema(self.node_ids or []), "answer")
            tools_to_call_from, stop_sequences = None, None
        elif structured:
            schema = tool_call_schema(tools_to_call_from or [], self.node_ids or [])
            response_format, tools_to_call_from, stop_sequences = json_schema_format(schema), None, None
        elif self.structured and self.node_ids and response_format is None:
            # a call without tools is an answer (the agent's forced final answer at the step cap,
            # or set-of-marks): constrain it to {"nodes": [...], "reason": ...}
            response_format, stop_sequences = json_schema_format(answer_schema(self.node_ids), "answer"), None
        kwargs.setdefault("max_tokens" if not isinstance(self.inner, TransformersModel) else "max_new_tokens",
                          self.max_new_tokens)
        try:
            reply = self._call(budget, messages, stop_sequences=stop_sequences, response_format=response_format,
                               tools_to_call_from=tools_to_call_from, **kwargs)
        except Exception:
            with self._lock:
                self.consecutive_failures += 1
            raise
        with self._lock:
            self.consecutive_failures = 0
        if answer_only:
            return _as_tool_call(reply, answer_of="final_answer")
        return _as_tool_call(reply) if structured else reply

    def _call(self, budget: float, messages: list[Any], **kwargs: Any) -> ChatMessage:
        if isinstance(self.inner, TransformersModel):
            # local generation stops itself at the deadline (transformers' MaxTimeCriteria)
            return self.inner.generate(messages, max_time=budget, **kwargs)
        # a network client cannot bound a whole call (its timeout restarts on every byte), so
        # the call runs in a worker thread that is abandoned, its connection closed, at the deadline
        pool = ThreadPoolExecutor(max_workers=1)
        future = pool.submit(self.inner.generate, messages, **kwargs)
        try:
            return future.result(timeout=budget)
        except FutureTimeout:
            self._reset_client()
            raise LLMDeadlineError(f"the LLM call took longer than its deadline of {budget:.1f} s") from None
        finally:
            pool.shutdown(wait=False)

    def _reset_client(self) -> None:
        """Close the hanging connection (the worker thread then ends with an error) and open a new one."""
        client = getattr(self.inner, "client", None)
        close = getattr(client, "close", None)
        if callable(close):
            try:
                close()
            except Exception:  # closing a broken connection may itself fail; a new client follows anyway
                pass
        if hasattr(self.inner, "create_client"):
            self.inner.client = self.inner.create_client()

    def parse_tool_calls(self, message: ChatMessage) -> ChatMessage:
        return self.inner.parse_tool_calls(message)


def _as_tool_call(reply: ChatMessage, answer_of: str | None = None) -> ChatMessage:
    """Turn a structured reply (``{"name": ..., "arguments": ...}`` as content) into a tool call.

    With ``answer_of``, the content is that tool's ``answer`` argument alone (an answer-only step).
    Content that is not such JSON (a server that ignored ``response_format``, output cut by the
    deadline) is returned unchanged, and smolagents' own parser reports it to the agent.
    """
    if reply.tool_calls:
        return reply
    try:
        call = json.loads(reply.content) if isinstance(reply.content, str) else None
    except json.JSONDecodeError:
        call = None
    if answer_of is not None and isinstance(call, dict):
        call = {"name": answer_of, "arguments": {"answer": call}}
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        return reply
    tool_call = ChatMessageToolCall(
        function=ChatMessageToolCallFunction(name=call["name"], arguments=call.get("arguments") or {}),
        id=f"call_{time.monotonic_ns()}", type="function")
    return ChatMessage(role=MessageRole.ASSISTANT, content=reply.content, tool_calls=[tool_call],
                       raw=reply.raw, token_usage=reply.token_usage)


class PrefixCache:
    """The KV caches of the last few generations, reused for the longest shared prompt prefix.

    An agent re-sends its whole conversation at every step, and every question about a chart
    starts with the same system prompt and chart listing; on a CPU the prompt's prefill is most
    of a step's cost. Each entry is the token ids a generation saw (prompt + output) and its
    transformers ``DynamicCache``; a new prompt starts from a deep copy of the entry sharing its
    longest prefix, cropped to that prefix (the documented "re-use a prompt cache" pattern:
    ``copy.deepcopy(cache)`` then ``generate(past_key_values=...)``), so only the new tokens are
    prefilled. Greedy decoding gives the same tokens with or without it.

    Args:
        entries: how many caches to keep (least recently used dropped first; 0 disables).
        min_reuse: shorter shared prefixes are not worth the copy.
    """

    def __init__(self, entries: int = 3, min_reuse: int = 32) -> None:
        self.entries = entries
        self.min_reuse = min_reuse
        self._items: list[tuple[list[int], Any]] = []
        self._lock = threading.Lock()
        self.reused_tokens = 0
        self.prompt_tokens = 0

    def lookup(self, ids: list[int]) -> tuple[Any, int]:
        """A fresh cache for the longest stored prefix of ``ids`` (at most ``len(ids) - 1``
        tokens: the model must see one token to predict the next) and its length, or ``(None, 0)``."""
        best, best_len = None, 0
        with self._lock:
            for item in self._items:
                n = _shared_prefix(item[0], ids)
                if n > best_len:
                    best, best_len = item, n
            if best is not None:  # most recently used last
                self._items.remove(best)
                self._items.append(best)
        reuse = min(best_len, len(ids) - 1)
        self.prompt_tokens += len(ids)
        if best is None or reuse < self.min_reuse:
            return None, 0
        cache = copy.deepcopy(best[1])
        extra = cache.get_seq_length() - reuse
        if extra > 0:
            cache.crop(-extra)
        self.reused_tokens += reuse
        return cache, reuse

    def store(self, ids: list[int], cache: Any) -> None:
        """Keep ``cache`` (covering the first ``cache.get_seq_length()`` of ``ids``) for later prompts."""
        if self.entries <= 0 or cache is None or not hasattr(cache, "crop"):
            return
        with self._lock:
            self._items.append((ids[: cache.get_seq_length()], cache))
            del self._items[: -self.entries]


def _shared_prefix(a: list[int], b: list[int]) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


class ConstrainedTransformersModel(TransformersModel):
    """smolagents' local ``TransformersModel`` plus JSON-schema constrained decoding and a
    prompt-prefix KV cache (`PrefixCache`).

    A ``response_format`` of type ``json_schema`` makes generation follow the schema token by
    token (lm-format-enforcer). Decoding is greedy, so the same prompt gives the same call.

    Args:
        prefix_cache: how many KV caches to keep for prefix reuse (0: none).
        *args, **kwargs: smolagents ``TransformersModel`` arguments.
    """

    def __init__(self, *args: Any, prefix_cache: int = 3, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._token_data: Any = None
        self._blank: set[int] | None = None
        self.prefix_cache = PrefixCache(prefix_cache)

    @property
    def takes_images(self) -> bool:
        return bool(self._is_vlm)

    def _tokenizer(self) -> Any:
        return self.processor.tokenizer if hasattr(self, "processor") else self.tokenizer

    def _enforcer_tokenizer_data(self) -> Any:
        # lm-format-enforcer's own transformers integration imports modules transformers 5
        # removed, so its framework-free core is fed the vocabulary here (once per model)
        if self._token_data is None:
            from lmformatenforcer import TokenEnforcerTokenizerData

            tok = self._tokenizer()
            special = set(tok.all_special_ids)
            zero = tok.encode("0", add_special_tokens=False)[-1]
            regular = []
            for idx in range(len(tok)):
                if idx in special:
                    continue
                after_zero = tok.decode([zero, idx])[1:]  # keeps a leading space the token carries
                regular.append((idx, after_zero, len(after_zero) > len(tok.decode([idx]))))
            self._token_data = TokenEnforcerTokenizerData(
                regular, lambda ids: tok.decode(ids).rstrip("\ufffd"), tok.eos_token_id, False, len(tok))
        return self._token_data

    def _blank_tokens(self) -> set[int]:
        if self._blank is None:
            data = self._enforcer_tokenizer_data()
            self._blank = {idx for idx, text, _ in data.regular_tokens if not text.strip() or any(c in text for c in "\n\r\t")}
        return self._blank

    def generate(self, messages: list[ChatMessage | dict], stop_sequences: list[str] | None = None,
                 response_format: dict[str, Any] | None = None, tools_to_call_from: list[Any] | None = None,
                 **kwargs: Any) -> ChatMessage:
        schema = schema_of(response_format)
        if schema is None:
            return self._generate(messages, stop_sequences=stop_sequences, tools_to_call_from=tools_to_call_from,
                                  do_sample=False, **kwargs)
        require("lmformatenforcer", "llm", "constrained decoding of local models")
        from lmformatenforcer import JsonSchemaParser, TokenEnforcer

        enforcer = TokenEnforcer(self._enforcer_tokenizer_data(), JsonSchemaParser(schema))
        blank = self._blank_tokens()

        def allowed(batch_id: int, ids: Any) -> list[int]:
            # prompt + generated ids; the enforcer takes the first sequence it sees as the prompt.
            # Whitespace-only tokens are dropped: JSON never needs them, and a small model
            # otherwise spends its token budget on runs of newlines
            tokens = enforcer.get_allowed_tokens(ids.tolist()).allowed_tokens
            compact = [t for t in tokens if t not in blank]
            return compact or tokens

        return self._generate(messages, stop_sequences=None, tools_to_call_from=None,
                              prefix_allowed_tokens_fn=allowed, do_sample=False, **kwargs)

    def _generate(self, messages: list[ChatMessage | dict], stop_sequences: list[str] | None,
                  tools_to_call_from: list[Any] | None, **kwargs: Any) -> ChatMessage:
        """smolagents' ``TransformersModel.generate`` with the prompt prefix's KV cache reused."""
        from smolagents.models import remove_content_after_stop_sequences
        from smolagents.monitoring import TokenUsage

        gen = self._prepare_completion_args(messages=messages, stop_sequences=stop_sequences,
                                            tools_to_call_from=tools_to_call_from, **kwargs)
        prompt = gen["inputs"]
        ids = prompt[0].tolist()
        past, reused = self.prefix_cache.lookup(ids)
        out = self.model.generate(**gen, past_key_values=past, return_dict_in_generate=True)
        sequence = out.sequences[0]
        self.prefix_cache.store(sequence.tolist(), getattr(out, "past_key_values", None))
        text = self._tokenizer().decode(sequence[len(ids):], skip_special_tokens=True)
        if stop_sequences:
            text = remove_content_after_stop_sequences(text, stop_sequences)
        return ChatMessage(role=MessageRole.ASSISTANT, content=text,
                           raw={"out": text, "prefix_tokens_reused": reused},
                           token_usage=TokenUsage(input_tokens=len(ids), output_tokens=len(sequence) - len(ids)))
