"""The sentence encoder's runtimes (issue 15, speed): onnxruntime on a graph exported at first
use must give torch's vectors, int8 weights must stay close to them, and the export is made once
per checkpoint. A tiny BERT built from a config stands in for MiniLM (same tokenizer)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import numpy as np
import pytest

from flowpath.reason.semantic import onnx_available, semantic_available

pytestmark = [
    pytest.mark.skipif(not semantic_available(), reason="needs flowpath[semantic]"),
    pytest.mark.skipif(not onnx_available(), reason="needs onnx and onnxruntime (flowpath[semantic])"),
]

TEXTS = ["Reject the application", "Yes", "",
         "Chen is following this procedure. The score is 720, above 600. What comes next?",
         "the applicant is turned down", "Is the credit score above 600?"]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A 2-layer BERT with random weights, saved as safetensors next to MiniLM's tokenizer."""
    import torch
    from transformers import BertConfig, BertModel

    from flowpath.reason.semantic import packaged_model_dir

    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("tiny_bert")
    config = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=128)
    BertModel(config, add_pooling_layer=False).save_pretrained(folder, safe_serialization=True)
    shutil.copy(packaged_model_dir() / "tokenizer.json", folder / "tokenizer.json")
    return folder


def test_onnx_runtime_gives_torch_vectors_and_exports_once(tiny_model, tmp_path):
    from flowpath.reason.semantic import SentenceEncoder

    reference = SentenceEncoder(tiny_model, runtime="torch").encode(TEXTS)
    onnx = SentenceEncoder(tiny_model, runtime="onnx", cache_dir=tmp_path)
    assert onnx.runtime == "onnx" and onnx.model is None  # no torch model kept beside the session
    assert np.allclose(onnx.encode(TEXTS), reference, atol=1e-5)
    exported = sorted((tmp_path / "onnx").glob("*.onnx"))
    assert len(exported) == 1
    stamp = exported[0].stat().st_mtime_ns
    again = SentenceEncoder(tiny_model, runtime="auto", cache_dir=tmp_path)  # auto picks onnx
    assert again.runtime == "onnx" and np.allclose(again.encode(TEXTS), reference, atol=1e-5)
    assert sorted((tmp_path / "onnx").glob("*")) == exported and exported[0].stat().st_mtime_ns == stamp


def test_packing_is_exact_in_onnx(tiny_model, tmp_path):
    """Packed texts get the vector each gets alone, whatever the pack size (as in torch)."""
    from flowpath.reason.semantic import SentenceEncoder

    one = SentenceEncoder(tiny_model, runtime="onnx", cache_dir=tmp_path)
    alone = np.stack([one.encode([t])[0] for t in TEXTS])
    for pack_tokens in (128, 512):
        enc = SentenceEncoder(tiny_model, runtime="onnx", cache_dir=tmp_path, pack_tokens=pack_tokens)
        assert np.allclose(enc.encode(TEXTS), alone, atol=1e-5)


def test_int8_weights_stay_close_and_get_their_own_export(tiny_model, tmp_path):
    from flowpath.reason.semantic import SentenceEncoder

    reference = SentenceEncoder(tiny_model, runtime="torch").encode(TEXTS)
    int8 = SentenceEncoder(tiny_model, int8=True, cache_dir=tmp_path)
    assert int8.int8 and int8.runtime == "onnx"
    vectors = int8.encode(TEXTS)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    cosine = (vectors * reference).sum(axis=1)
    assert cosine.min() > 0.97 and not np.allclose(vectors, reference, atol=1e-6)  # int8 really ran
    assert len(list((tmp_path / "onnx").glob("*-int8.onnx"))) == 1


def test_encoder_arguments_are_checked(tiny_model):
    from flowpath.reason.semantic import SentenceEncoder

    with pytest.raises(ValueError, match="runtime"):
        SentenceEncoder(tiny_model, runtime="tensorrt")
    with pytest.raises(ValueError, match="int8"):
        SentenceEncoder(tiny_model, runtime="torch", int8=True)


def test_without_onnxruntime_auto_runs_torch_and_onnx_names_the_extra(tiny_model):
    code = (
        "import sys; sys.modules['onnxruntime'] = None\n"
        "from flowpath.reason.semantic import SentenceEncoder\n"
        f"print(SentenceEncoder({str(tiny_model)!r}).runtime)\n"
        "try:\n"
        f"    SentenceEncoder({str(tiny_model)!r}, runtime='onnx')\n"
        "except ModuleNotFoundError as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[0] == "torch"
    assert "MissingDependencyError" in out and "flowpath[semantic]" in out


def test_an_unwritable_cache_falls_back_to_torch_under_auto(tiny_model, tmp_path):
    """Where the exported graph cannot be kept, auto runs the same model in torch (with a
    warning) and an explicit onnx request fails naming the folder."""
    from flowpath.reason.semantic import SentenceEncoder

    blocked = tmp_path / "cache"
    blocked.write_text("a file where the cache folder would go")
    with pytest.warns(RuntimeWarning, match="running in torch"):
        enc = SentenceEncoder(tiny_model, cache_dir=blocked, int8=True)
    assert enc.runtime == "torch" and not enc.int8
    reference = SentenceEncoder(tiny_model, runtime="torch").encode(TEXTS)
    assert np.allclose(enc.encode(TEXTS), reference, atol=1e-6)
    with pytest.raises(OSError, match="cache"):
        SentenceEncoder(tiny_model, runtime="onnx", cache_dir=blocked)


@pytest.mark.parametrize("runtime", ["onnx", "torch"])
def test_more_threads_give_the_same_vectors(tiny_model, tmp_path, runtime):
    """Threads only split the work of a forward pass: two give one thread's vectors."""
    from flowpath.reason.semantic import SentenceEncoder

    one = SentenceEncoder(tiny_model, runtime=runtime, cache_dir=tmp_path).encode(TEXTS)
    two = SentenceEncoder(tiny_model, runtime=runtime, cache_dir=tmp_path, threads=2).encode(TEXTS)
    assert np.allclose(one, two, atol=1e-5)


def test_threads_must_be_positive(tiny_model, tmp_path):
    from flowpath.reason.semantic import SentenceEncoder

    with pytest.raises(ValueError, match="threads must be >= 1"):
        SentenceEncoder(tiny_model, cache_dir=tmp_path, threads=0)


def test_shared_encoder_threads_follow_the_environment(monkeypatch):
    from flowpath.reason.semantic import THREADS_ENV, shared_encoder_threads

    monkeypatch.setenv(THREADS_ENV, "3")
    assert shared_encoder_threads() == 3
    monkeypatch.delenv(THREADS_ENV)
    assert 1 <= shared_encoder_threads() <= 2


@pytest.mark.parametrize("raw", ["0", "two", "-1"])
def test_shared_encoder_threads_reject_a_bad_setting(monkeypatch, raw):
    from flowpath.reason.semantic import THREADS_ENV, shared_encoder_threads

    monkeypatch.setenv(THREADS_ENV, raw)
    with pytest.raises(ValueError, match=THREADS_ENV):
        shared_encoder_threads()
