"""A small OpenAI-compatible chat server on 127.0.0.1 that serves a smolagents ``Model``.

Tests and benchmarks start it themselves to exercise flowpath's ``openai`` backend against a
real HTTP server with a real model behind it (no mock of the HTTP layer):

    python eval/openai_shim.py --model /path/to/model_dir_or.gguf --port 8080
    FLOWPATH_LLM_URL=http://127.0.0.1:8080/v1 FLOWPATH_LLM_MODEL=shim flowpath attribute ...

or in Python::

    with OpenAIShim(local_model(path)) as url:   # url = "http://127.0.0.1:<port>/v1"
        ...

Endpoints: ``POST /v1/chat/completions`` (``messages``, ``max_tokens``, ``stop``,
``response_format`` of type ``json_schema``, and ``tools`` with ``tool_choice="required"``, which
is answered by constrained decoding to a call of one of the tools, as vLLM does), ``GET
/v1/models`` and ``GET /props`` (llama.cpp style ``{"modalities": {"vision": ...}}``, which
flowpath reads to decide whether to send images).

To serve a vision-language model (e.g. for a served-VLM transcriber), pass a model that takes
images and ``vision=True``: ``image_url`` parts with ``data:`` URLs are decoded into PIL images in
`to_chat_messages`, which is the one place that knows the request's content format. Requests
are answered one at a time (a local model is not thread-safe).

``--flow2mermaid`` serves a Qwen2-VL Flow2Mermaid directory instead (`flow2mermaid_chat_model`):
a CPU stand-in for ``vllm serve MERGED_DIR`` that the served transcriber's tests talk to:

    python eval/openai_shim.py --flow2mermaid --model runs/f2m/merged --name flow2mermaid --port 8000
    flowpath parse charts/ --out out/ --transcriber served \
        --transcriber-arg url=http://127.0.0.1:8000/v1 --transcriber-arg model=flow2mermaid
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def to_chat_messages(messages: list[dict[str, Any]]) -> list[Any]:
    """OpenAI request messages -> smolagents ``ChatMessage`` list (text and ``data:`` images)."""
    from smolagents import ChatMessage, MessageRole

    out = []
    for m in messages:
        role = {"tool": "tool-response"}.get(m.get("role", "user"), m.get("role", "user"))
        content = m.get("content")
        parts: list[dict[str, Any]] = []
        if isinstance(content, str) or content is None:
            parts.append({"type": "text", "text": content or ""})
        else:
            for part in content:
                if part.get("type") == "text":
                    parts.append({"type": "text", "text": part.get("text", "")})
                elif part.get("type") == "image_url":
                    parts.append({"type": "image", "image": _data_url_image(part["image_url"]["url"])})
        if m.get("tool_calls"):  # an assistant turn that called tools: keep the calls as text
            parts.append({"type": "text", "text": json.dumps([c.get("function") for c in m["tool_calls"]])})
        out.append(ChatMessage(role=MessageRole(role), content=parts))
    return out


def _data_url_image(url: str) -> Any:
    from PIL import Image

    if not url.startswith("data:"):
        raise ValueError("only data: image URLs are served (the shim fetches nothing)")
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB")


def flow2mermaid_chat_model(base: str, adapter: str | None = None, **kwargs: Any) -> Any:
    """A smolagents ``Model`` that answers an image + prompt user turn with a Qwen2-VL Flow2Mermaid
    directory (`flowpath.transcribe.qwen2vl.Qwen2VLTranscriber.generate_batch`), greedily, as
    ``vllm serve`` does at temperature 0. Built by a function so importing this module stays free
    of smolagents and torch; ``kwargs`` go to the transcriber (``device``, pixel budget)."""
    from smolagents import ChatMessage, MessageRole, Model

    from flowpath.transcribe.qwen2vl import Qwen2VLTranscriber

    class _Model(Model):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__(model_id=str(base))
            self.transcriber = Qwen2VLTranscriber(base, adapter, decodings=[{"do_sample": False}], **kwargs)

        def generate(self, messages: list[Any], stop_sequences: list[str] | None = None,
                     response_format: dict[str, Any] | None = None, tools_to_call_from: list[Any] | None = None,
                     max_new_tokens: int = 1024, **kw: Any) -> Any:
            images = [p["image"] for m in messages if isinstance(m.content, list) for p in m.content
                      if p.get("type") == "image"]
            text = "\n".join(p["text"] for m in messages if isinstance(m.content, list) for p in m.content
                             if p.get("type") == "text")
            if len(images) != 1:
                raise ValueError(f"a Flow2Mermaid request carries exactly one image, got {len(images)}")
            out = self.transcriber.generate_batch(images, [max_new_tokens], prompt=text or None, do_sample=False)
            return ChatMessage(role=MessageRole.ASSISTANT, content=out[0])

    return _Model()


def tools_schema(tools: list[dict[str, Any]]) -> dict[str, Any]:
    """JSON schema of one call ``{"name", "arguments"}`` of the request's OpenAI ``tools``."""
    return {"anyOf": [{"type": "object", "properties": {
        "name": {"type": "string", "enum": [t["function"]["name"]]},
        "arguments": t["function"].get("parameters") or {"type": "object"}}, "required": ["name", "arguments"]}
        for t in tools]}


class OpenAIShim:
    """Serve ``model`` as an OpenAI-compatible ``/v1`` endpoint on 127.0.0.1.

    Args:
        model: a smolagents ``Model``; for ``response_format`` support a model that constrains
            to a JSON schema (`flowpath.reason.llm_models.ConstrainedTransformersModel`).
        model_name: the id reported by ``/v1/models``.
        vision: what ``/props`` says about images.
        port: 0 picks a free port.
    """

    def __init__(self, model: Any, *, model_name: str = "shim", vision: bool = False, port: int = 0) -> None:
        self.model = model
        self.model_name = model_name
        self.vision = vision
        self.requests = 0
        self._lock = threading.Lock()
        shim = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server API)
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": shim.model_name, "object": "model"}]})
                elif self.path.rstrip("/").endswith("/props"):
                    self._send(200, {"modalities": {"vision": shim.vision}, "model_alias": shim.model_name})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:  # noqa: N802
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                try:
                    body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                    self._send(200, shim.complete(body))
                except Exception as exc:  # the client sees a server error, as from a real server
                    self._send(500, {"error": {"message": f"{type(exc).__name__}: {exc}", "type": "server_error"}})

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        """Answer one ``/v1/chat/completions`` request body."""
        response_format = body.get("response_format")
        tools = body.get("tools") or []
        as_tool_call = bool(tools) and body.get("tool_choice") == "required" and not response_format
        if as_tool_call:
            response_format = {"type": "json_schema", "json_schema": {"name": "tool_call", "schema": tools_schema(tools)}}
        kwargs: dict[str, Any] = {}
        if body.get("max_tokens") or body.get("max_completion_tokens"):
            kwargs["max_new_tokens"] = int(body.get("max_tokens") or body.get("max_completion_tokens"))
        with self._lock:
            self.requests += 1
            reply = self.model.generate(to_chat_messages(body["messages"]), stop_sequences=body.get("stop"),
                                        response_format=response_format, **kwargs)
        content = reply.content if isinstance(reply.content, str) else str(reply.content or "")
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if as_tool_call:
            call = json.loads(content)
            message = {"role": "assistant", "content": None, "tool_calls": [{
                "id": f"call_{uuid.uuid4().hex[:12]}", "type": "function",
                "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])}}]}
        usage = reply.token_usage
        prompt, completion = (usage.input_tokens, usage.output_tokens) if usage else (0, 0)
        return {"id": f"chatcmpl-{uuid.uuid4().hex[:12]}", "object": "chat.completion", "created": int(time.time()),
                "model": self.model_name,
                "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if as_tool_call else "stop"}],
                "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                          "total_tokens": prompt + completion}}

    def start(self) -> str:
        """Serve in a background thread; returns the ``/v1`` base URL."""
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()
        return self.url

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--model", required=True, help="local model directory or .gguf file")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--name", default="shim", help="model id reported to clients")
    parser.add_argument("--flow2mermaid", action="store_true",
                        help="--model is a Qwen2-VL Flow2Mermaid directory (the served transcriber's model)")
    args = parser.parse_args(argv)
    from flowpath.reason.backends import local_model

    if args.flow2mermaid:
        shim = OpenAIShim(flow2mermaid_chat_model(args.model), model_name=args.name, vision=True, port=args.port)
    else:
        shim = OpenAIShim(local_model(args.model), model_name=args.name, port=args.port)
    print(f"serving {args.model} at {shim.url}", flush=True)
    try:
        shim.server.serve_forever()
    except KeyboardInterrupt:
        shim.stop()


if __name__ == "__main__":
    main()
