"""`Qwen2VLTranscriber` batched on CUDA (``pytest -m gpu``; skipped without a GPU, with the
reason): a random-init Qwen2-VL with a LoRA adapter transcribes a febench_dev chart in a batch,
greedy outputs equal one-at-a-time, in bf16 and in a 4-bit load (bitsandbytes)."""

from __future__ import annotations

import pytest

from tests.markers import require_febench, require_peft, require_transformers
from tests.models.test_qwen2vl_batched import MERMAIDS, PIX
from tests.training.test_gpu_paper_recipes import (
    _labelled_febench_chart,
    requires_bnb,
    requires_cuda,
)

pytestmark = [pytest.mark.gpu, requires_cuda, require_transformers, require_peft, require_febench]


@pytest.fixture(scope="module")
def base_and_adapter(tmp_path_factory):
    from peft import LoraConfig, get_peft_model

    from flowpath.transcribe.qwen2vl import build_processor
    from training.tiny_qwen2vl import tiny_qwen2vl, train_tiny_tokenizer

    root = tmp_path_factory.mktemp("gpu_f2m")
    tok = train_tiny_tokenizer(MERMAIDS * 3, vocab_size=300)
    # wide enough for bitsandbytes' 4-bit kernels (they quantize in blocks of 64)
    model = tiny_qwen2vl(tok, hidden_size=256, layers=2)
    model.save_pretrained(root / "base", safe_serialization=True)
    tok.save_pretrained(root / "base")
    build_processor(root / "base", **PIX).image_processor.save_pretrained(root / "base")
    # a non-zero adapter (init_lora_weights=False), as a trained one is
    peft_model = get_peft_model(model, LoraConfig(r=4, target_modules=["q_proj", "v_proj"], init_lora_weights=False))
    peft_model.save_pretrained(root / "adapter", safe_serialization=True)
    return root / "base", root / "adapter"


@pytest.mark.parametrize("quantization", [None, pytest.param("4bit", marks=requires_bnb)])
def test_batched_transcriber_with_adapter_on_a_febench_chart(base_and_adapter, quantization):
    from flowpath.transcribe import make_transcriber

    base, adapter = base_and_adapter
    chart = _labelled_febench_chart()
    tr = make_transcriber("qwen2vl", base=str(base), adapter=str(adapter), device="cuda", batch_size=3,
                          quantization=quantization, max_new_tokens=48, decodings=[{"do_sample": False}])
    batched = tr([chart, chart, chart])
    assert all(set(t.chart.nodes) == set(chart.regions) for t in batched)
    assert len({t.mermaid for t in batched}) == 1  # the same chart thrice: same greedy answer
    tr.batch_size = 1
    if quantization is None:  # bf16 rows batched vs alone agree; 4-bit kernels may round per batch shape
        assert tr([chart])[0].mermaid == batched[0].mermaid
