"""`AgentReasoner`: a smolagents ``ToolCallingAgent`` over the graph tools (FlowPathAgent's loop).

Behaviour, enforced in code rather than only asked for in the prompt:

* a model that takes images (`flowpath.reason.backends.takes_images`) gets the labelled image in
  the first step only (planning / node selection); a text-only model gets the labelled chart as
  text (`flowpath.reason.base.chart_as_text`) and never an image.
  smolagents keeps run images in the ``TaskStep`` and copies them into every ``ActionStep``'s
  ``observations_images``, so they would be re-sent at every step; a step callback clears both
  after step one (see ``smolagents/agents.py::_run_stream`` and ``memory.py::ActionStep.to_messages``);
* at most ``max_steps`` (8) action steps, and a total time budget per question;
* ``mode="paper"`` follows the FlowPathAgent paper: one tool call per step, node text only
  through ``get_statement`` (the default ``"tools"`` mode lists every node's text up front and
  runs every call of a step);
* an optional ``fallback`` reasoner answers whenever the agent fails, runs out of time or names
  no valid node; with ``offer_fallback`` its answer is also shown to the agent (the hybrid);
  the trace's last record says which one answered (``answered_by``);
* a tool argument naming a node that is not in the graph is answered with the valid ids;
* an identical repeated tool call is refused with a note (and the earlier result);
* a final answer naming nodes not in the graph is sent back once for correction;
* the final answer is parsed into node ids and a reason (`flowpath.reason.base.parse_final_answer`).

Model-written code is never executed: tools are called with JSON arguments only.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from flowpath.errors import require
from flowpath.graph import FlowChart
from flowpath.models.base import Reasoner, Reasoning, ReasoningRequest
from flowpath.reason.backends import LLMSettings, resolve_model, takes_images
from flowpath.reason.base import (
    NODE_ARG,
    chart_as_text,
    load_prompt,
    node_listing,
    parse_final_answer,
    to_pil,
)

AGENT_MODES = ("tools", "paper")


def _short(value: Any, n: int = 400) -> str:
    s = str(value)
    return s if len(s) <= n else s[: n - 3] + "..."


def _build_agent_class() -> type:
    """Define the ToolCallingAgent subclass lazily (smolagents is an optional extra)."""
    from smolagents import ToolCallingAgent

    class FlowPathToolCallingAgent(ToolCallingAgent):
        """ToolCallingAgent with node-id validation and repeated-call refusal."""

        def __init__(self, *args: Any, chart: FlowChart, one_tool_per_step: bool = False, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.chart = chart
            self.one_tool_per_step = one_tool_per_step
            self.seen_calls: dict[str, str] = {}
            self.refusals = 0
            self.unknown_id_notes = 0

        def _valid_ids_note(self) -> str:
            return ", ".join(self.chart.nodes)

        def _bad_ids(self, tool_name: str, arguments: Any) -> list[str]:
            tool = self.tools.get(tool_name)
            if tool is None or not isinstance(arguments, dict):
                return []
            bad = []
            for name, value in arguments.items():
                spec = tool.inputs.get(name, {})
                if not NODE_ARG.search(name):
                    continue
                kind = spec.get("type")
                values = value if (kind == "array" and isinstance(value, list)) else [value]
                for v in values:
                    if isinstance(v, str) and v.strip() and v.strip() not in self.chart.nodes:
                        bad.append(v)
            return bad

        def process_tool_calls(self, chat_message: Any, memory_step: Any) -> Any:
            if self.one_tool_per_step and chat_message.tool_calls and len(chat_message.tool_calls) > 1:
                # the paper's agent runs one tool per cycle: the rest of the step's calls are dropped
                chat_message.tool_calls = chat_message.tool_calls[:1]
            return super().process_tool_calls(chat_message, memory_step)

        def execute_tool_call(self, tool_name: str, arguments: dict[str, str] | str) -> Any:
            if tool_name == "final_answer":
                return super().execute_tool_call(tool_name, arguments)
            key = f"{tool_name}:{json.dumps(arguments, sort_keys=True, default=str)}"
            if key in self.seen_calls:
                self.refusals += 1
                return (f"Refused: you already called {tool_name} with these arguments "
                        f"({_short(arguments, 120)}). It returned: {self.seen_calls[key]}\n"
                        "Repeating a call gives the same result. Use another tool or call final_answer.")
            bad = self._bad_ids(tool_name, arguments)
            if bad:
                self.unknown_id_notes += 1
                self.seen_calls[key] = f"unknown node id(s) {bad}"
                return (f"Unknown node id(s): {', '.join(map(repr, bad))}. "
                        f"Valid node ids are: {self._valid_ids_note()}.")
            result = super().execute_tool_call(tool_name, arguments)
            self.seen_calls[key] = _short(result)
            return result

    return FlowPathToolCallingAgent


def _prompt_templates(max_steps: int, one_tool_per_step: bool = False) -> dict[str, Any]:
    final = load_prompt("final_answer")
    pre, _, post = final.partition("\n---\n")
    return {
        # jinja renders the tool list; max_steps is ours, substituted beforehand
        "system_prompt": load_prompt("system").replace("{{ max_steps }}", str(max_steps)).replace(
            "{{ calls_per_step }}", "exactly one tool per step" if one_tool_per_step else "one or more per step"),
        # smolagents planning steps are not used: planning happens in step one, with the image
        "planning": {"initial_plan": "", "update_plan_pre_messages": "", "update_plan_post_messages": ""},
        "managed_agent": {"task": "", "report": ""},
        "final_answer": {"pre_messages": pre.strip(), "post_messages": post.strip()},
    }


class AgentReasoner(Reasoner):
    """LLM agent that explores the graph with tools and names the grounding nodes.

    Args:
        model: a smolagents ``Model``. When ``None``, one is built from ``backend_kwargs``
            (`flowpath.reason.backends.make_model`: ``settings`` (an `LLMSettings`), or
            ``backend``, ``model_id``, ``api_base``, ``api_key_env``, ``timeout``, ...).
        max_steps: cap on agent steps (the paper uses 8).
        mode: ``"tools"`` (default: every node's text in the first prompt, several tool calls per
            step) or ``"paper"`` (one tool call per step, node text only through tools).
        time_limit: seconds one question may take in all (``None``: no limit); at the limit the
            run stops and the question fails (or falls back).
        fallback: a reasoner (or ``"offline"``) that answers when the agent fails, runs out of
            time or names no valid node. Default: the ``fallback`` of ``settings=`` (else of
            `LLMSettings.from_env`, ``FLOWPATH_LLM_FALLBACK``).
        offer_fallback: show the fallback's answer to the agent as a suggestion to check.
        tools_factory: ``chart -> list[smolagents.Tool]``; defaults to
            ``flowpath.agent.tools.make_graph_tools``.
        show_image: send the labelled image in the first step when the request has one and the
            model takes images.
        max_image_side: downscale the image so its longer side is at most this (``None``: never).
        **backend_kwargs: see ``model``.

    >>> # AgentReasoner(backend="openai", model_id="gpt-4o", api_base="https://api.openai.com/v1")
    """

    name = "agent"

    def __init__(self, model: Any = None, *, max_steps: int = 8, mode: str = "tools",
                 time_limit: float | None = 120.0, fallback: Reasoner | str | None = None,
                 offer_fallback: bool = False, tools_factory: Callable[[FlowChart], list[Any]] | None = None,
                 show_image: bool = True, max_image_side: int | None = 2048, **backend_kwargs: Any) -> None:
        require("smolagents", "agent", "AgentReasoner")
        if max_steps < 1:
            raise ValueError(f"max_steps must be >= 1, got {max_steps}")
        if mode not in AGENT_MODES:
            raise ValueError(f"unknown agent mode {mode!r}; expected one of {AGENT_MODES}")
        if time_limit is not None and time_limit <= 0:
            raise ValueError(f"time_limit must be > 0 seconds, got {time_limit}")
        self.model = resolve_model(model, **backend_kwargs)
        self.max_steps = max_steps
        self.mode = mode
        self.time_limit = time_limit
        self.fallback = _resolve_fallback(fallback, backend_kwargs.get("settings"))
        if offer_fallback and self.fallback is None:
            raise ValueError("offer_fallback needs a fallback reasoner")
        self.offer_fallback = offer_fallback
        self.show_image = show_image and takes_images(self.model)
        self.max_image_side = max_image_side
        if tools_factory is None:
            from flowpath.agent.tools import make_graph_tools

            tools_factory = make_graph_tools
        self.tools_factory = tools_factory
        self._agent_cls = _build_agent_class()
        self.planning_template = load_prompt("planning")

    def _task(self, request: ReasoningRequest, with_image: bool, suggestion: Reasoning | None) -> str:
        chart = request.chart
        paper = self.mode == "paper"
        if with_image:
            note = ("The labelled flowchart image is attached to this first message only; "
                    "read the node labels from it now.")
            listing = ("Node ids: " + ", ".join(chart.nodes) + " (read their text with get_statement)"
                       if paper else "Flowchart nodes (id: text):\n" + node_listing(chart))
        else:
            note = "The flowchart is given as text (you cannot see an image of it)."
            listing = chart_as_text(chart, with_text=not paper)
        hint = ""
        if suggestion is not None and suggestion.node_ids:
            hint = ("A rule-based reasoner suggests these nodes: " + ", ".join(suggestion.node_ids)
                    + (f" ({suggestion.reason})" if suggestion.reason else "")
                    + ". Check them with the tools; if they are right, give them as your final answer.\n\n")
        return self.planning_template.format(question=request.question.strip(), answer=request.answer.strip(),
                                             chart=listing, image_note=note, suggestion=hint)

    def __call__(self, request: ReasoningRequest) -> Reasoning:
        chart = request.chart
        if not isinstance(chart, FlowChart) or len(chart) == 0:
            return Reasoning([], error="agent reasoner needs a non-empty FlowChart")
        fallback = None
        if self.fallback is not None and self.offer_fallback:
            fallback = self.fallback(request)
        result = self._run_agent(request, fallback)
        if result.node_ids or self.fallback is None:
            last = result.trace[-1] if result.trace and "final_answer" in result.trace[-1] else {}
            if not last:
                result.trace.append(last)
            last["answered_by"] = "agent" if result.node_ids else None
            return result
        if fallback is None:
            fallback = self.fallback(request)
        trace = [*result.trace, {"answered_by": self.fallback.name, "agent_error": result.error}]
        return Reasoning(list(fallback.node_ids), reason=fallback.reason, trace=trace,
                         error=None if fallback.node_ids else (fallback.error or result.error))

    def _run_agent(self, request: ReasoningRequest, suggestion: Reasoning | None) -> Reasoning:
        from smolagents import ActionStep, TaskStep
        from smolagents.monitoring import LogLevel

        chart = request.chart
        corrections = {"final": 0}
        valid = list(chart.nodes)
        ends = None if self.time_limit is None else time.monotonic() + self.time_limit

        def check_final(final_answer: Any, memory: Any, agent: Any = None) -> bool:
            ids, unknown, _ = parse_final_answer(final_answer, valid)
            if (unknown or not ids) and corrections["final"] == 0:
                corrections["final"] += 1
                raise ValueError(
                    f"the final answer names node(s) not in the graph: {unknown or 'none recognised'}. "
                    f"Valid node ids are: {', '.join(valid)}. Call final_answer again with only valid ids "
                    'as {"nodes": [...], "reason": "..."}.')
            return True

        def after_step(step: Any, agent: Any = None) -> None:
            # after step one the image must not be re-sent: clear it from the task and all steps
            if agent is not None:
                for s in agent.memory.steps:
                    if isinstance(s, TaskStep):
                        s.task_images = None
                    elif isinstance(s, ActionStep):
                        s.observations_images = None
                if ends is not None and time.monotonic() > ends:
                    agent.interrupt()  # the question's time budget is spent
            if isinstance(step, ActionStep):
                step.observations_images = None

        try:
            tools = self.tools_factory(chart)
            agent = self._agent_cls(
                tools=tools, model=self.model, chart=chart, one_tool_per_step=self.mode == "paper",
                prompt_templates=_prompt_templates(self.max_steps, self.mode == "paper"), max_steps=self.max_steps,
                step_callbacks={ActionStep: [after_step]}, final_answer_checks=[check_final],
                verbosity_level=LogLevel.OFF)
        except Exception as exc:
            return Reasoning([], error=f"agent set-up failed: {type(exc).__name__}: {exc}")
        images = None
        if self.show_image and request.labelled_image is not None:
            try:
                images = [to_pil(request.labelled_image, self.max_image_side)]
            except ValueError as exc:
                return Reasoning([], error=str(exc))
        if hasattr(self.model, "begin_question"):
            self.model.begin_question(valid, self.time_limit)
        try:
            output = agent.run(self._task(request, images is not None, suggestion), images=images,
                               max_steps=self.max_steps)
        except Exception as exc:  # network timeouts, server errors, bad model output: per question
            return Reasoning([], error=f"agent run failed: {type(exc).__name__}: {_short(exc, 600)}",
                             trace=self._trace(agent))
        finally:
            if hasattr(self.model, "begin_question"):
                self.model.begin_question(None, None)
        ids, unknown, reason = parse_final_answer(output, valid)
        trace = self._trace(agent)
        trace.append({"final_answer": _short(output, 1000), "unknown_ids": unknown,
                      "refused_repeats": agent.refusals, "unknown_id_notes": agent.unknown_id_notes,
                      "final_corrections": corrections["final"]})
        error = None if ids else "the agent's final answer named no valid node"
        return Reasoning(ids, reason=reason, trace=trace, error=error)

    @staticmethod
    def _trace(agent: Any) -> list[dict[str, Any]]:
        from smolagents import ActionStep

        out: list[dict[str, Any]] = []
        for s in agent.memory.steps:
            if not isinstance(s, ActionStep):
                continue
            out.append({
                "step": s.step_number,
                "model_output": _short(s.model_output or "", 600),
                "tool_calls": [{"name": tc.name, "arguments": tc.arguments} for tc in (s.tool_calls or [])],
                "observation": _short(s.observations or "", 800),
                "error": str(s.error) if s.error else None,
            })
        return out


def _resolve_fallback(fallback: Reasoner | str | None, settings: LLMSettings | None) -> Reasoner | None:
    """A fallback reasoner from an instance, a name, or the settings' ``fallback``."""
    if fallback is None:
        fallback = ((settings or LLMSettings.from_env()).fallback or "").strip().lower() or None
    if fallback is None or isinstance(fallback, Reasoner):
        return fallback
    name = fallback.strip().lower()
    if name in ("none", "off", "no"):
        return None
    if name != "offline":
        raise ValueError(f"unknown fallback reasoner {fallback!r}; expected 'offline' or 'none'")
    from flowpath.reason.offline import OfflineReasoner

    return OfflineReasoner()
