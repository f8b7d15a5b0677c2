"""`ServedVLMTranscriber` end to end against a real OpenAI-compatible HTTP server on 127.0.0.1
(`eval/openai_shim.py` serving the tiny random-init Qwen2-VL on CPU, as ``vllm serve`` would serve
a Flow2Mermaid directory): same answers as the local transcriber, retry after a server error,
bounded concurrency, deadlines, clear errors naming the endpoint, the CLI."""

from __future__ import annotations

import json
import shutil
import socket
import time
from typing import Any

import pytest

from tests.markers import REPO_ROOT, require_transformers
from tests.models.test_qwen2vl_batched import charts, tiny_model_dir

pytest.importorskip("openai", reason="the served transcriber needs openai: pip install 'flowpath[agent]'")
pytest.importorskip("smolagents", reason="the served transcriber needs smolagents: pip install 'flowpath[agent]'")
pytestmark = [require_transformers]


class FaultyModel:
    """The served model, plus faults a real server has: failing requests, slow answers."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.fail_next = 0
        self.delay_s = 0.0

    def generate(self, *args: Any, **kwargs: Any) -> Any:
        if self.fail_next:
            self.fail_next -= 1
            raise RuntimeError("model worker crashed")
        time.sleep(self.delay_s)
        return self.model.generate(*args, **kwargs)


@pytest.fixture(scope="module")
def served_model(tmp_path_factory):
    import torch

    from eval.openai_shim import flow2mermaid_chat_model

    torch.set_num_threads(1)
    return flow2mermaid_chat_model(str(tiny_model_dir(tmp_path_factory.mktemp("tiny_served"))))


@pytest.fixture()
def server(served_model):
    from eval.openai_shim import OpenAIShim

    model = FaultyModel(served_model)
    shim = OpenAIShim(model, model_name="flow2mermaid", vision=True)
    shim.start()
    yield shim, model
    shim.stop()


def test_served_matches_local_greedy_and_validates(server, served_model):
    from flowpath.transcribe import make_transcriber

    shim, _ = server
    batch = charts(3)
    tr = make_transcriber("vllm", url=shim.url, model="flow2mermaid", max_new_tokens=16,
                          decodings=[{"temperature": 0.0}], batch_size=2)
    served = tr(batch)
    local = served_model.transcriber
    local.max_new_tokens = 16
    want = local(batch)
    assert [s.mermaid for s in served] == [w.mermaid for w in want]
    assert shim.requests == 3
    for s, c in zip(served, batch, strict=True):
        assert set(s.chart.nodes) == set(c.regions)  # validated, or repaired onto the letters
        assert s.meta["transcriber"] == "served"


def test_a_failing_request_is_retried_with_the_next_decoding(server):
    from flowpath.transcribe.served import ServedVLMTranscriber

    shim, model = server
    model.fail_next = 1
    tr = ServedVLMTranscriber(shim.url, "flow2mermaid", max_new_tokens=8, max_retries=0,
                              decodings=[{"temperature": 0.0}, {"temperature": 0.0}])
    out = tr(charts(1))[0]
    assert shim.requests == 2
    assert "generation failed" in out.problems[0] and shim.url in out.problems[0]
    assert out.meta["attempts"] == 2  # the 500 cost one attempt, the second was answered


def test_a_dead_or_slow_endpoint_is_a_clear_error(server):
    from flowpath.errors import ModelError
    from flowpath.transcribe.served import ServedVLMTranscriber

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    tr = ServedVLMTranscriber(dead, "flow2mermaid", max_retries=0, timeout_s=2, decodings=[{"temperature": 0.0}])
    with pytest.raises(ModelError, match=dead.replace(".", r"\.")):
        tr(charts(1))
    shim, model = server
    model.delay_s = 3.0
    slow = ServedVLMTranscriber(shim.url, "flow2mermaid", max_retries=0, timeout_s=0.5,
                                decodings=[{"temperature": 0.0}])
    t0 = time.monotonic()
    with pytest.raises(ModelError, match="deadline"):
        slow(charts(1))
    assert time.monotonic() - t0 < 2.5  # cut off at the request deadline, not after the answer


def test_settings_come_from_the_environment(monkeypatch):
    from flowpath.transcribe import make_transcriber

    monkeypatch.delenv("FLOWPATH_VLM_URL", raising=False)
    with pytest.raises(ValueError, match="FLOWPATH_VLM_URL"):
        make_transcriber("served", model="m")
    monkeypatch.setenv("FLOWPATH_VLM_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("FLOWPATH_VLM_MODEL", "m")
    tr = make_transcriber("served")
    assert tr.url == "http://127.0.0.1:9/v1" and tr.model == "m"


def test_flowpath_parse_with_the_served_transcriber_and_a_batch_size(server, tmp_path):
    from flowpath.cli import main as flowpath_main

    shim, _ = server
    images = tmp_path / "images"
    images.mkdir()
    for name in ("loan.png", "tea.png"):
        shutil.copy(REPO_ROOT / "examples" / "charts" / name, images / name)
    rc = flowpath_main(["parse", str(images), "--out", str(tmp_path / "out"), "--segmenter", "classical",
                        "--transcriber", "served", "--transcriber-arg", f"url={shim.url}",
                        "--transcriber-arg", "model=flow2mermaid", "--transcriber-arg", "max_new_tokens=8",
                        "--batch-size", "2", "--no-progress"])
    assert rc == 0
    assert shim.requests >= 2  # one chat request per chart at least (more when retried)
    for name in ("loan", "tea"):
        parsed = json.loads(next((tmp_path / "out").glob(f"{name}*.json")).read_text())
        assert parsed["meta"]["transcriber"] == "served"
