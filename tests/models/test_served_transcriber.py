"""`ServedVLMTranscriber` end to end against a real OpenAI-compatible HTTP server on 127.0.0.1
serving the tiny random-init Qwen2-VL on CPU (tests/models/vlm_server.py): same answers as the
local transcriber, validation/retry/repair, bounded concurrency, timeouts and clear errors."""

from __future__ import annotations

import socket

import pytest

from tests.markers import require_transformers
from tests.models.test_qwen2vl_batched import charts, tiny_model_dir
from tests.models.vlm_server import VLMServer

pytest.importorskip("openai", reason="the served transcriber needs openai: pip install 'flowpath[agent]'")
pytestmark = [require_transformers]


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    import torch

    from flowpath.transcribe import make_transcriber

    torch.set_num_threads(1)
    d = tiny_model_dir(tmp_path_factory.mktemp("tiny_served"))
    return make_transcriber("qwen2vl", base=str(d), max_new_tokens=16, decodings=[{"do_sample": False}])


def test_served_matches_local_greedy_and_validates(local):
    from flowpath.transcribe import make_transcriber

    batch = charts(3)
    with VLMServer(local) as url:
        tr = make_transcriber("vllm", url=url, model="flow2mermaid", max_new_tokens=16,
                              decodings=[{"temperature": 0.0}], batch_size=2)
        served = tr(batch)
    want = local(batch)
    assert [s.mermaid for s in served] == [w.mermaid for w in want]
    for s, c in zip(served, batch, strict=True):
        assert set(s.chart.nodes) == set(c.regions)  # validated, or repaired onto the letters
        assert s.meta["transcriber"] == "served"


def test_a_failing_request_is_retried_with_the_next_decoding(local):
    from flowpath.transcribe.served import ServedVLMTranscriber

    server = VLMServer(local)
    with server as url:
        server.fail_next = 1
        tr = ServedVLMTranscriber(url, "flow2mermaid", max_new_tokens=8, max_retries=0,
                                  decodings=[{"temperature": 0.0}, {"temperature": 0.0}])
        out = tr(charts(1))[0]
    assert len(server.requests) == 2
    assert "generation failed" in out.problems[0] and url in out.problems[0]
    assert out.meta["attempts"] == 2  # the 500 cost one attempt, the second was answered


def test_a_dead_or_slow_endpoint_is_a_clear_error(local):
    from flowpath.errors import ModelError
    from flowpath.transcribe.served import ServedVLMTranscriber

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    tr = ServedVLMTranscriber(dead, "flow2mermaid", max_retries=0, timeout_s=2, decodings=[{"temperature": 0.0}])
    with pytest.raises(ModelError, match=dead.replace(".", r"\.")):
        tr(charts(1))
    with VLMServer(local, delay_s=3.0) as url:
        slow = ServedVLMTranscriber(url, "flow2mermaid", max_retries=0, timeout_s=0.5, decodings=[{"temperature": 0.0}])
        with pytest.raises(ModelError, match="Timeout"):
            slow(charts(1))


def test_settings_come_from_the_environment(monkeypatch):
    from flowpath.transcribe import make_transcriber

    monkeypatch.delenv("FLOWPATH_VLM_URL", raising=False)
    with pytest.raises(ValueError, match="FLOWPATH_VLM_URL"):
        make_transcriber("served", model="m")
    monkeypatch.setenv("FLOWPATH_VLM_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("FLOWPATH_VLM_MODEL", "m")
    tr = make_transcriber("served")
    assert tr.url == "http://127.0.0.1:9/v1" and tr.model == "m"


def test_flowpath_parse_with_the_served_transcriber_and_a_batch_size(local, tmp_path):
    import json
    import shutil

    from flowpath.cli import main as flowpath_main
    from tests.markers import REPO_ROOT

    images = tmp_path / "images"
    images.mkdir()
    for name in ("loan.png", "tea.png"):
        shutil.copy(REPO_ROOT / "examples" / "charts" / name, images / name)
    server = VLMServer(local)
    with server as url:
        rc = flowpath_main(["parse", str(images), "--out", str(tmp_path / "out"), "--segmenter", "classical",
                            "--transcriber", "served", "--transcriber-arg", f"url={url}",
                            "--transcriber-arg", "model=flow2mermaid", "--transcriber-arg", "max_new_tokens=8",
                            "--batch-size", "2", "--no-progress"])
    assert rc == 0
    assert len(server.requests) >= 2  # one chat request per chart at least (more when retried)
    for name in ("loan", "tea"):
        parsed = json.loads(next((tmp_path / "out").glob(f"{name}*.json")).read_text())
        assert parsed["meta"]["transcriber"] == "served"
