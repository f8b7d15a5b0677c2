"""LLM calls are bounded: a total deadline per call, a circuit breaker, an offline fallback,
settings from the CLI and ``FLOWPATH_LLM_*``, and no network at litellm import.

Real HTTP servers on 127.0.0.1 misbehave on purpose (trickle bytes, answer 500); the real
OpenAI client and smolagents agent talk to them.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from flowpath.graph import FlowChart
from flowpath.models.base import ReasoningRequest
from tests.markers import REPO_ROOT, require_smolagents

pytestmark = require_smolagents


def _chart() -> FlowChart:
    return FlowChart.from_edges([("A", "B"), ("B", "C", "Yes"), ("B", "D", "No")],
                                {"A": "Start", "B": "Is it valid?", "C": "Accept", "D": "Reject"})


def _request(i: int = 0) -> ReasoningRequest:
    return ReasoningRequest(_chart(), f"What happens if it is not valid? ({i})", "It is rejected", None)


class _Server:
    """A misbehaving chat server: ``mode`` is ``trickle`` (one byte every 0.3 s for 9 s) or ``fail`` (500)."""

    def __init__(self, mode: str) -> None:
        self.hits = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                self.send_response(404)
                self.end_headers()

            def do_POST(self) -> None:  # noqa: N802
                outer.hits += 1
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                try:
                    if mode == "fail":
                        body = b'{"error": {"message": "internal server error", "type": "server_error"}}'
                        self.send_response(500)
                        self.send_header("Content-Length", str(len(body)))
                        self.end_headers()
                        self.wfile.write(body)
                        return
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", "1000")
                    self.end_headers()
                    for _ in range(30):  # every read returns within the client's read timeout
                        self.wfile.write(b" ")
                        self.wfile.flush()
                        time.sleep(0.3)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args: object) -> None:
                pass

        self.srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.srv.daemon_threads = True
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.srv.server_address[1]}/v1"

    def close(self) -> None:
        self.srv.shutdown()
        self.srv.server_close()


@pytest.fixture()
def server():
    made: list[_Server] = []

    def start(mode: str) -> _Server:
        made.append(_Server(mode))
        return made[-1]

    yield start
    for s in made:
        s.close()


def test_trickling_server_is_cut_off_at_the_total_deadline_from_the_environment(server, monkeypatch):
    from flowpath.reason import make_reasoner

    srv = server("trickle")
    monkeypatch.setenv("FLOWPATH_LLM_TIMEOUT", "1.5")
    reasoner = make_reasoner("agent", backend="openai", model_id="m", api_base=srv.url,
                             api_key_env="FLOWPATH_TEST_NO_SUCH_KEY")
    t = time.monotonic()
    res = reasoner(_request())
    elapsed = time.monotonic() - t
    assert res.node_ids == [] and "deadline" in res.error
    assert elapsed < 6, f"waited {elapsed:.1f} s on a server that trickles bytes for 9 s"


def test_circuit_breaker_stops_calling_a_failing_server(server):
    from flowpath.reason import make_reasoner

    srv = server("fail")
    reasoner = make_reasoner("agent", backend="openai", model_id="m", api_base=srv.url,
                             api_key_env="FLOWPATH_TEST_NO_SUCH_KEY", max_failures=2)
    results = [reasoner(_request(i)) for i in range(4)]
    assert srv.hits == 2
    assert all(r.node_ids == [] and r.error for r in results)
    assert "internal server error" in results[0].error.lower()
    assert "failed 2 times in a row" in results[3].error


def test_offline_fallback_answers_when_the_server_is_down(server):
    from flowpath.reason import make_reasoner

    srv = server("fail")
    reasoner = make_reasoner("agent", backend="openai", model_id="m", api_base=srv.url,
                             api_key_env="FLOWPATH_TEST_NO_SUCH_KEY", max_failures=1, fallback="offline")
    offline = make_reasoner("offline")
    for i in range(3):
        res = reasoner(_request(i))
        assert res.error is None and res.node_ids == offline(_request(i)).node_ids
        assert res.trace[-1]["answered_by"] == "offline" and res.trace[-1]["agent_error"]
    assert srv.hits == 1


def test_cli_llm_flags_reach_the_backend(server, tmp_path, monkeypatch):
    from tests.markers import FEBENCH_DEV

    if not FEBENCH_DEV.is_dir():
        pytest.skip("needs ../shared/data/febench_dev")
    from flowpath.cli import main
    from flowpath.reason.backends import ENV_SETTINGS

    for var in ENV_SETTINGS.values():  # the flags alone configure the LLM
        monkeypatch.delenv(var, raising=False)
    # OpenCV's loader adds its bundled library folder to LD_LIBRARY_PATH on its first import; the
    # CLI's parse imports it, so import it first: the comparison below is about the CLI alone.
    pytest.importorskip("cv2")
    environ_before = dict(os.environ)
    srv = server("fail")
    rc = main(["-q", "eval", "attribution", "--bench", str(FEBENCH_DEV), "--oracle", "--reasoner", "agent",
               "--limit", "3", "--no-progress", "--llm-backend", "openai", "--llm-model", "m", "--llm-url", srv.url,
               "--llm-max-failures", "1", "--llm-timeout", "5", "--llm-fallback", "offline",
               "--out", str(tmp_path)])
    assert rc == 0
    assert dict(os.environ) == environ_before  # the flags went to the reasoner, not the process
    assert srv.hits == 1  # --llm-max-failures 1: one failed call, then no more
    import json

    records = [json.loads(x) for x in (tmp_path / "records.jsonl").read_text().splitlines()]
    assert len(records) == 3 and all(r["error"] is None and r["pred"] for r in records)  # --llm-fallback offline


def test_importing_litellm_through_flowpath_makes_no_network_call():
    """litellm fetches a model price map from GitHub at import unless LITELLM_LOCAL_MODEL_COST_MAP
    is set; the backend sets it. Any connection attempt goes to a local proxy that records it."""
    pytest.importorskip("litellm")
    attempts: list[bytes] = []
    proxy = socket.socket()
    proxy.bind(("127.0.0.1", 0))
    proxy.listen(8)
    proxy.settimeout(0.2)
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = proxy.accept()
            except OSError:
                continue
            attempts.append(conn.recv(200))
            conn.close()

    threading.Thread(target=accept, daemon=True).start()
    port = proxy.getsockname()[1]
    code = ("from flowpath.reason.backends import make_model\n"
            "make_model('litellm', model_id='openai/m', api_base='http://127.0.0.1:9/v1', images='no')\n"
            "import litellm\n")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO_ROOT), "HOME": str(REPO_ROOT.parent / "no-home"),
           "HTTPS_PROXY": f"http://127.0.0.1:{port}", "HTTP_PROXY": f"http://127.0.0.1:{port}",
           "https_proxy": f"http://127.0.0.1:{port}", "http_proxy": f"http://127.0.0.1:{port}"}
    try:
        proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    finally:
        stop.set()
        proxy.close()
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert attempts == [], f"litellm import went to the network: {attempts}"
