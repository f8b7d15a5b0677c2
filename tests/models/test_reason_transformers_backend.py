"""The local-transformers backend of the agent reasoner, on a tiny random-init model directory.

A random model cannot produce valid tool calls, so the agent hits parsing errors every step:
this checks the real TransformersModel path end to end (chat template, generation on CPU, the
8-step cap, the forced final answer) and that the failure comes back as ``Reasoning.error``.
"""

from __future__ import annotations

import pytest

from flowpath.graph import FlowChart
from flowpath.models.base import ReasoningRequest
from tests.markers import require_smolagents, require_transformers

pytestmark = [require_transformers, require_smolagents]

_CHAT_TEMPLATE = (
    "{% for m in messages %}{{ m['role'] }}: "
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}{% for c in m['content'] %}"
    "{% if c['type'] == 'text' %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}\n{% endfor %}"
    "{% if add_generation_prompt %}assistant: {% endif %}")


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory):
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    torch.manual_seed(0)
    words = ["[UNK]", "[PAD]", "</s>", "nodes", "A", "B", "C", "reason", "{", "}", ":", ",", "final_answer",
             "the", "is", "step", "yes", "no"]
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", eos_token="</s>")
    fast.chat_template = _CHAT_TEMPLATE
    cfg = LlamaConfig(vocab_size=len(words), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=4096,
                      pad_token_id=1, eos_token_id=2, bos_token_id=2)
    d = tmp_path_factory.mktemp("tiny_llm")
    LlamaForCausalLM(cfg).save_pretrained(d, safe_serialization=True)
    fast.save_pretrained(d)
    return d


def test_transformers_backend_runs_capped_loop_and_reports_failure(tiny_model_dir):
    from flowpath.reason import make_reasoner

    r = make_reasoner("agent", backend="transformers", model_id=str(tiny_model_dir), max_new_tokens=4, max_steps=2)
    chart = FlowChart.from_edges([("A", "B"), ("B", "C")], {"A": "Start", "B": "Work", "C": "End"})
    res = r(ReasoningRequest(chart, "What is done?", "Work", None))
    assert res.node_ids == [] or set(res.node_ids) <= {"A", "B", "C"}
    if not res.node_ids:
        assert res.error
    steps = [s for s in res.trace if "step" in s]
    assert 1 <= len(steps) <= 3  # two capped steps (+ smolagents' max-steps record)


def test_transformers_backend_rejects_non_directory():
    from flowpath.reason.backends import make_model

    with pytest.raises(ValueError, match="local model directory"):
        make_model("transformers", model_id="some-org/some-hub-model")
