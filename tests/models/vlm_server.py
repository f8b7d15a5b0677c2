"""A small OpenAI-compatible chat server on 127.0.0.1 that serves a Qwen2-VL directory, for the
served-transcriber tests: what ``vllm serve MERGED_DIR`` does, on CPU with the tiny model.

``POST /v1/chat/completions`` reads the first ``image_url`` part (a ``data:`` URL) and the text
of the last user message, and answers with `Qwen2VLTranscriber.generate_batch` (``temperature``
0 = greedy). ``fail_next`` makes the next requests answer HTTP 500 (a server in trouble).
"""

from __future__ import annotations

import base64
import io
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class VLMServer:
    """Context manager: ``with VLMServer(transcriber) as url: ...`` (url ends in ``/v1``)."""

    def __init__(self, transcriber: Any, model_name: str = "flow2mermaid", delay_s: float = 0.0) -> None:
        self.transcriber = transcriber
        self.model_name = model_name
        self.delay_s = delay_s
        self.fail_next = 0
        self.requests: list[dict[str, Any]] = []
        self._server: ThreadingHTTPServer | None = None

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        from PIL import Image

        self.requests.append(body)
        if self.fail_next:
            self.fail_next -= 1
            return 500, {"error": {"message": "model worker crashed"}}
        if body.get("model") != self.model_name:
            return 404, {"error": {"message": f"model {body.get('model')!r} not served"}}
        image, prompt = None, ""
        for part in body["messages"][-1]["content"]:
            if part["type"] == "image_url":
                url = part["image_url"]["url"]
                image = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB")
            elif part["type"] == "text":
                prompt = part["text"]
        if image is None or prompt != self.transcriber.prompt:
            return 400, {"error": {"message": "expected one image_url part and the Flow2Mermaid prompt"}}
        time.sleep(self.delay_s)
        t = float(body.get("temperature", 1.0))
        decoding = {"do_sample": False} if t == 0 else {"do_sample": True, "temperature": t,
                                                         "top_p": float(body.get("top_p", 1.0))}
        text = self.transcriber.generate_batch([image], [int(body.get("max_tokens", 64))], **decoding)[0]
        return 200, {"id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()),
                     "model": self.model_name, "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
                     "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}

    def __enter__(self) -> str:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                code, payload = owner.answer(body) if self.path.endswith("/chat/completions") else (404, {})
                data = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except BrokenPipeError:  # the client timed out and hung up: nothing to answer
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __exit__(self, *exc: Any) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()
