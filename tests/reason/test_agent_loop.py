"""The full smolagents ToolCallingAgent loop with a scripted model standing in for the LLM.

Real graph tools, real smolagents memory and callbacks; only the LLM is replaced by a `Model`
subclass that returns canned tool calls and records every message list it receives.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from flowpath.graph import FlowChart
from flowpath.models.base import ReasoningRequest
from tests.markers import require_smolagents

pytestmark = require_smolagents


def _chart() -> FlowChart:
    return FlowChart.from_edges(
        [("A", "B"), ("B", "C"), ("C", "D", "Yes"), ("C", "E", "No"), ("D", "F"), ("E", "F")],
        {"A": "Start", "B": "Read the input", "C": "Is the input valid?", "D": "Process the input",
         "E": "Report an error", "F": "End"})


def _image() -> np.ndarray:
    img = np.full((40, 60, 3), 255, np.uint8)
    img[5:15, 5:20] = (255, 0, 0)
    return img


def _node_tool(tools):
    """A real graph tool taking a single node id argument (successors/neighbours/statement)."""
    for t in tools:
        string_args = [k for k, v in t.inputs.items() if v.get("type") == "string"]
        if t.name != "final_answer" and len(t.inputs) == 1 and string_args:
            return t.name, string_args[0]
    raise AssertionError(f"no single-node tool among {[t.name for t in tools]}")


def _other_node_tool(tools, not_name):
    for t in tools:
        string_args = [k for k, v in t.inputs.items() if v.get("type") == "string"]
        if t.name not in ("final_answer", not_name) and len(t.inputs) == 1 and string_args:
            return t.name, string_args[0]
    raise AssertionError("need two single-node tools")


def _has_image(messages) -> bool:
    for m in messages:
        content = m.content if hasattr(m, "content") else m.get("content")
        if isinstance(content, list) and any(isinstance(c, dict) and c.get("type") == "image" for c in content):
            return True
    return False


def _flat_text(messages) -> str:
    out = []
    for m in messages:
        content = m.content if hasattr(m, "content") else m.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out.extend(c.get("text", "") for c in content if isinstance(c, dict))
    return "\n".join(out)


@pytest.fixture()
def scripted_model_cls():
    from smolagents import ChatMessage, MessageRole, Model
    from smolagents.models import ChatMessageToolCall, ChatMessageToolCallFunction

    class ScriptedModel(Model):
        """Returns the next scripted action; records what it was sent."""

        def __init__(self, script, fallback=None):
            super().__init__(model_id="scripted")
            self.script = list(script)
            self.fallback = fallback
            self.calls: list[dict] = []

        def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kw):
            self.calls.append({"messages": list(messages), "tools": tools_to_call_from})
            if tools_to_call_from is None:  # smolagents' max-steps final answer request
                return ChatMessage(role=MessageRole.ASSISTANT, content=json.dumps(self.fallback or {"nodes": []}))
            item = self.script.pop(0) if self.script else self.fallback_call()
            name, args = item
            call = ChatMessageToolCall(function=ChatMessageToolCallFunction(name=name, arguments=args),
                                       id=f"call_{len(self.calls)}", type="function")
            return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[call])

        def fallback_call(self):
            raise AssertionError("script exhausted")

    return ScriptedModel


def _reasoner(model, **kw):
    from flowpath.reason import make_reasoner

    return make_reasoner("agent", model=model, **kw)


def _tools():
    from flowpath.agent.tools import make_graph_tools

    return make_graph_tools(_chart())


def test_image_reaches_model_in_first_step_only(scripted_model_cls):
    tools = _tools()
    t1, a1 = _node_tool(tools)
    t2, a2 = _other_node_tool(tools, t1)
    model = scripted_model_cls([(t1, {a1: "C"}), (t2, {a2: "D"}),
                                ("final_answer", {"answer": {"nodes": ["C", "D"], "reason": "yes branch"}})])
    res = _reasoner(model)(ReasoningRequest(_chart(), "What happens if the input is valid?",
                                            "It is processed", _image()))
    assert res.error is None
    assert res.node_ids == ["C", "D"]
    assert res.reason == "yes branch"
    assert len(model.calls) == 3
    assert _has_image(model.calls[0]["messages"])
    assert not any(_has_image(c["messages"]) for c in model.calls[1:])
    # the real tools ran: their observations are in the memory the model saw next
    assert len([s for s in res.trace if "step" in s]) == 3
    assert res.trace[0]["tool_calls"][0]["name"] == t1 and res.trace[0]["observation"]


def test_without_image_no_image_is_sent(scripted_model_cls):
    model = scripted_model_cls([("final_answer", {"answer": {"nodes": ["E"], "reason": "r"}})])
    res = _reasoner(model)(ReasoningRequest(_chart(), "q", "a", None))
    assert res.node_ids == ["E"]
    assert not _has_image(model.calls[0]["messages"])


def test_identical_repeated_call_is_refused(scripted_model_cls):
    tools = _tools()
    t1, a1 = _node_tool(tools)
    model = scripted_model_cls([(t1, {a1: "B"}), (t1, {a1: "B"}),
                                ("final_answer", {"answer": {"nodes": ["B"], "reason": "r"}})])
    res = _reasoner(model)(ReasoningRequest(_chart(), "q", "a", _image()))
    assert res.node_ids == ["B"]
    obs = [s["observation"] for s in res.trace if "step" in s]
    assert "Refused" not in obs[0]
    assert "Refused" in obs[1]
    assert res.trace[-1]["refused_repeats"] == 1
    assert "Refused" in _flat_text(model.calls[2]["messages"])


def test_unknown_node_id_is_answered_with_valid_ids(scripted_model_cls):
    tools = _tools()
    t1, a1 = _node_tool(tools)
    model = scripted_model_cls([(t1, {a1: "ZZ"}), ("final_answer", {"answer": {"nodes": ["A"], "reason": "r"}})])
    res = _reasoner(model)(ReasoningRequest(_chart(), "q", "a", None))
    obs = res.trace[0]["observation"]
    assert "Unknown node id" in obs and "ZZ" in obs
    for nid in "ABCDEF":
        assert nid in obs.split("Valid node ids are:")[1]
    assert res.trace[-1]["unknown_id_notes"] == 1


def test_final_answer_with_unknown_nodes_is_sent_back_once(scripted_model_cls):
    model = scripted_model_cls([
        ("final_answer", {"answer": {"nodes": ["C", "QQ"], "reason": "first"}}),
        ("final_answer", {"answer": {"nodes": ["C", "D"], "reason": "fixed"}}),
    ])
    res = _reasoner(model)(ReasoningRequest(_chart(), "q", "a", None))
    assert res.node_ids == ["C", "D"] and res.reason == "fixed"
    assert "QQ" in _flat_text(model.calls[1]["messages"])
    assert res.trace[-1]["final_corrections"] == 1


def test_second_bad_final_answer_is_accepted_with_valid_ids_only(scripted_model_cls):
    model = scripted_model_cls([
        ("final_answer", {"answer": {"nodes": ["C", "QQ"], "reason": "a"}}),
        ("final_answer", {"answer": {"nodes": ["C", "XX"], "reason": "b"}}),
    ])
    res = _reasoner(model)(ReasoningRequest(_chart(), "q", "a", None))
    assert len(model.calls) == 2  # sent back once, not twice
    assert res.node_ids == ["C"]
    assert res.trace[-1]["unknown_ids"] == ["XX"]


def test_agent_stops_after_eight_steps(scripted_model_cls):
    tools = _tools()
    t1, a1 = _node_tool(tools)
    ids = list(_chart().nodes)
    script = [(t1, {a1: ids[i % len(ids)]}) for i in range(20)]
    model = scripted_model_cls(script, fallback={"nodes": ["E"], "reason": "out of steps"})
    res = _reasoner(model, max_steps=8)(ReasoningRequest(_chart(), "q", "a", None))
    tool_turns = [c for c in model.calls if c["tools"] is not None]
    assert len(tool_turns) == 8
    assert res.node_ids == ["E"]  # the forced final answer after the cap is still parsed


# -- backend failures are reported per question ------------------------------------------------
class _FailingHandler(BaseHTTPRequestHandler):
    delay = 0.0
    posts: list[str] = []  # each server's own list (see `failing_server`)

    def do_POST(self):  # noqa: N802 (http.server API)
        self.posts.append(self.path)
        time.sleep(self.delay)
        body = b'{"error": {"message": "internal server error", "type": "server_error"}}'
        try:
            self.send_response(500)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args):
        pass


@pytest.fixture()
def failing_server():
    servers = []

    def start(delay=0.0):
        handler = type("H", (_FailingHandler,), {"delay": delay, "posts": []})
        srv = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        servers.append(srv)
        return f"http://127.0.0.1:{srv.server_address[1]}/v1"

    start.servers = servers  # type: ignore[attr-defined]
    yield start
    for s in servers:
        s.shutdown()
        s.server_close()


@pytest.mark.parametrize("delay,timeout", [(0.0, 5.0), (1.5, 0.3)], ids=["http500", "timeout"])
def test_server_error_is_reported_per_question_and_batch_goes_on(failing_server, delay, timeout):
    from flowpath.reason import make_reasoner

    url = failing_server(delay)
    reasoner = make_reasoner("agent", backend="openai", model_id="test-model", api_base=url,
                             api_key_env="FLOWPATH_TEST_NO_SUCH_KEY", timeout=timeout, max_retries=0)
    results = [reasoner(ReasoningRequest(_chart(), f"question {i}", "answer", None)) for i in range(2)]
    for r in results:
        assert r.node_ids == []
        assert r.error and "agent run failed" in r.error


def test_litellm_backend_server_error_is_reported(failing_server, monkeypatch):
    # litellm would otherwise try to download its model price map at import (no network here)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from flowpath.reason import make_reasoner

    # the deadline is generous: litellm's first call imports much of litellm (slow on a busy CPU)
    reasoner = make_reasoner("agent", backend="litellm", model_id="openai/test-model", api_base=failing_server(),
                             api_key_env="FLOWPATH_TEST_NO_SUCH_KEY", timeout=60.0, max_retries=0)
    r = reasoner(ReasoningRequest(_chart(), "q", "a", None))
    assert r.node_ids == [] and "agent run failed" in r.error
    assert "internal server error" in r.error.lower()  # the server's answer, not a set-up failure
    # one request, no retry: litellm's and its OpenAI client's retries (with their back-off
    # sleeps) are off when max_retries=0
    assert [len(srv.RequestHandlerClass.posts) for srv in failing_server.servers] == [1]


def test_som_reasoner_server_error(failing_server):
    from flowpath.reason import make_reasoner

    reasoner = make_reasoner("som", backend="openai", model_id="m", api_base=failing_server(),
                             api_key_env="FLOWPATH_TEST_NO_SUCH_KEY", timeout=5.0, max_retries=0)
    r = reasoner(ReasoningRequest(_chart(), "q", "a", _image()))
    assert r.node_ids == [] and "failed" in r.error


def test_som_reasoner_sends_image_and_parses_letters():
    from smolagents import ChatMessage, MessageRole, Model

    class VLM(Model):
        def __init__(self):
            super().__init__(model_id="vlm")
            self.seen = []

        def generate(self, messages, **kw):
            self.seen.append(messages)
            return ChatMessage(role=MessageRole.ASSISTANT,
                               content='Sure.\n```json\n{"nodes": ["C", "E", "Z9"], "reason": "no branch"}\n```')

    from flowpath.reason import make_reasoner

    vlm = VLM()
    r = make_reasoner("som", model=vlm)(ReasoningRequest(_chart(), "If invalid?", "Report an error", _image()))
    assert _has_image(vlm.seen[0])
    assert r.node_ids == ["C", "E"] and r.reason == "no branch"
    assert r.trace[0]["unknown_ids"] == ["Z9"]
    assert make_reasoner("som", model=vlm)(ReasoningRequest(_chart(), "q", "a", None)).error


def test_llm_configured_by_environment_makes_agent_the_default(monkeypatch):
    from flowpath.reason import AgentReasoner, default_reasoner

    monkeypatch.delenv("FLOWPATH_REASONER", raising=False)
    monkeypatch.setenv("FLOWPATH_LLM_MODEL", "some-model")
    monkeypatch.setenv("FLOWPATH_LLM_URL", "http://127.0.0.1:9/v1")
    r = default_reasoner()
    assert isinstance(r, AgentReasoner) and r.model.model_id == "some-model"


# -- capabilities, modes, hybrid ----------------------------------------------------------------
def test_text_only_model_gets_chart_as_text_and_no_image(scripted_model_cls):
    model = scripted_model_cls([("final_answer", {"answer": {"nodes": ["C", "E"], "reason": "r"}})])
    model.takes_images = False
    res = _reasoner(model)(ReasoningRequest(_chart(), "If invalid?", "Report an error", _image()))
    assert res.node_ids == ["C", "E"]
    sent = model.calls[0]["messages"]
    assert not _has_image(sent)
    text = _flat_text(sent)
    assert "C --Yes--> D" in text and "C --No--> E" in text and "Report an error" in text


def test_paper_mode_runs_one_tool_per_step_and_hides_node_text(scripted_model_cls):
    from smolagents import ChatMessage, MessageRole
    from smolagents.models import ChatMessageToolCall, ChatMessageToolCallFunction

    class TwoCalls(scripted_model_cls):
        def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kw):
            if len(self.calls) == 0:
                self.calls.append({"messages": list(messages), "tools": tools_to_call_from})
                calls = [ChatMessageToolCall(function=ChatMessageToolCallFunction(name="get_statement",
                                                                                  arguments={"node_id": n}),
                                             id=f"c{n}", type="function") for n in ("C", "D")]
                return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=calls)
            return super().generate(messages, stop_sequences, response_format, tools_to_call_from, **kw)

    for mode, calls_run in (("tools", 2), ("paper", 1)):
        model = TwoCalls([("final_answer", {"answer": {"nodes": ["C"], "reason": "r"}})])
        res = _reasoner(model, mode=mode)(ReasoningRequest(_chart(), "q", "a", None))
        assert res.node_ids == ["C"]
        assert len(res.trace[0]["tool_calls"]) == calls_run
        first_prompt = _flat_text(model.calls[0]["messages"])
        assert ("Process the input" in first_prompt) is (mode == "tools")


def test_unknown_mode_is_refused(scripted_model_cls):
    with pytest.raises(ValueError, match="agent mode"):
        _reasoner(scripted_model_cls([]), mode="fast")


def _hybrid_request() -> ReasoningRequest:
    return ReasoningRequest(_chart(), "What happens if the input is not valid?", "An error is reported", None)


def test_hybrid_offers_offline_answer_and_takes_an_agent_answer_that_prunes_it(scripted_model_cls):
    from flowpath.reason import make_reasoner

    offline = make_reasoner("offline")(_hybrid_request())
    assert len(offline.node_ids) >= 2  # the chart question needs the decision and the answer
    pruned = offline.node_ids[1:]
    model = scripted_model_cls([("final_answer", {"answer": {"nodes": pruned, "reason": "agent"}})])
    res = make_reasoner("hybrid", model=model)(_hybrid_request())
    assert res.node_ids == pruned and res.trace[-1]["answered_by"] == "agent"
    assert res.trace[-1]["offline_nodes"] == offline.node_ids and "subset" in res.trace[-1]["why"]
    assert ", ".join(offline.node_ids) in _flat_text(model.calls[0]["messages"])


@pytest.mark.parametrize("rule,agent_answers", [("subset", False), ("near", True), ("agent", True),
                                                ("offline", False)])
def test_hybrid_accept_rule_decides_when_the_agent_overrides_offline(scripted_model_cls, rule, agent_answers):
    from flowpath.reason import make_reasoner

    offline = make_reasoner("offline")(_hybrid_request())
    extra = next(n for n in _chart().nodes if n not in offline.node_ids)
    answer = [*offline.node_ids, extra]  # one node more than offline: not a subset, but near
    model = scripted_model_cls([("final_answer", {"answer": {"nodes": answer, "reason": "agent"}})])
    res = make_reasoner("hybrid", model=model, accept=rule)(_hybrid_request())
    assert res.node_ids == (answer if agent_answers else offline.node_ids)
    last = res.trace[-1]
    assert last["answered_by"] == ("agent" if agent_answers else "offline")
    assert last["agent_nodes"] == answer and rule in last["why"]


def test_hybrid_refuses_an_unknown_accept_rule(scripted_model_cls):
    from flowpath.reason import make_reasoner

    with pytest.raises(ValueError, match="accept rule"):
        make_reasoner("hybrid", model=scripted_model_cls([]), accept="sometimes")


def test_hybrid_falls_back_to_offline_when_agent_names_no_valid_node(scripted_model_cls):
    from flowpath.reason import make_reasoner

    model = scripted_model_cls([("final_answer", {"answer": {"nodes": ["QQ"], "reason": "x"}}),
                                ("final_answer", {"answer": {"nodes": ["ZZ"], "reason": "y"}})])
    request = ReasoningRequest(_chart(), "What happens if the input is not valid?", "An error is reported", None)
    res = make_reasoner("hybrid", model=model)(request)
    assert res.node_ids == make_reasoner("offline")(request).node_ids and res.error is None
    assert res.trace[-1]["answered_by"] == "offline"
    assert "no valid node" in res.trace[-1]["agent_error"]


def test_set_of_marks_refuses_text_only_model(scripted_model_cls):
    from flowpath.reason import make_reasoner

    model = scripted_model_cls([])
    model.takes_images = False
    with pytest.raises(ValueError, match="FLOWPATH_LLM_IMAGES"):
        make_reasoner("som", model=model)


def test_tool_call_schema_enumerates_tools_and_node_ids():
    from smolagents import FinalAnswerTool

    from flowpath.reason.base import tool_call_schema

    tools = [*_tools(), FinalAnswerTool()]
    schema = tool_call_schema(tools, list(_chart().nodes))
    by_name = {o["properties"]["name"]["enum"][0]: o["properties"]["arguments"] for o in schema["anyOf"]}
    assert set(by_name) == {t.name for t in tools}
    assert by_name["get_statement"]["properties"]["node_id"]["enum"] == list("ABCDEF")
    assert by_name["path_between"]["required"] == ["start_id", "end_id"]
    answer = by_name["final_answer"]["properties"]["answer"]
    assert answer["properties"]["nodes"]["items"]["enum"] == list("ABCDEF")


def test_agent_with_no_graph_tools_answers_from_the_listing(scripted_model_cls):
    model = scripted_model_cls([("final_answer", {"answer": {"nodes": ["C", "E"], "reason": "r"}})])
    res = _reasoner(model, tools=[], max_steps=1)(ReasoningRequest(_chart(), "If invalid?", "Report an error", None))
    assert res.node_ids == ["C", "E"]
    assert [t.name for t in model.calls[0]["tools"]] == ["final_answer"]
    assert "C --No--> E" in _flat_text(model.calls[0]["messages"])
    with pytest.raises(ValueError, match="unknown graph tool"):
        _reasoner(scripted_model_cls([]), tools=["read_minds"])
