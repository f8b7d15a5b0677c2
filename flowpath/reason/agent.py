"""`AgentReasoner`: a smolagents ``ToolCallingAgent`` over the graph tools (FlowPathAgent's loop).

Behaviour, enforced in code rather than only asked for in the prompt:

* the labelled image goes to the model in the first step only (planning / node selection).
  smolagents keeps run images in the ``TaskStep`` and copies them into every ``ActionStep``'s
  ``observations_images``, so they would be re-sent at every step; a step callback clears both
  after step one (see ``smolagents/agents.py::_run_stream`` and ``memory.py::ActionStep.to_messages``);
* at most ``max_steps`` (8) action steps;
* a tool argument naming a node that is not in the graph is answered with the valid ids;
* an identical repeated tool call is refused with a note (and the earlier result);
* a final answer naming nodes not in the graph is sent back once for correction;
* the final answer is parsed into node ids and a reason (`flowpath.reason.base.parse_final_answer`).

Model-written code is never executed: tools are called with JSON arguments only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from flowpath.errors import require
from flowpath.graph import FlowChart
from flowpath.models.base import Reasoner, Reasoning, ReasoningRequest
from flowpath.reason.backends import resolve_model
from flowpath.reason.base import load_prompt, node_listing, parse_final_answer, to_pil

# argument names that carry node ids in graph tools (node, node_id, source, target, start, ...)
_NODE_ARG = re.compile(r"(^|_)(node|nodes|id|ids|source|target|start|end|src|dst|from|to|goal|a|b|u|v)(_|$|\d)", re.I)


def _short(value: Any, n: int = 400) -> str:
    s = str(value)
    return s if len(s) <= n else s[: n - 3] + "..."


def _build_agent_class() -> type:
    """Define the ToolCallingAgent subclass lazily (smolagents is an optional extra)."""
    from smolagents import ToolCallingAgent

    class FlowPathToolCallingAgent(ToolCallingAgent):
        """ToolCallingAgent with node-id validation and repeated-call refusal."""

        def __init__(self, *args: Any, chart: FlowChart, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.chart = chart
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
                if not _NODE_ARG.search(name):
                    continue
                kind = spec.get("type")
                values = value if (kind == "array" and isinstance(value, list)) else [value]
                for v in values:
                    if isinstance(v, str) and v.strip() and v.strip() not in self.chart.nodes:
                        bad.append(v)
            return bad

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


def _prompt_templates(max_steps: int) -> dict[str, Any]:
    final = load_prompt("final_answer")
    pre, _, post = final.partition("\n---\n")
    return {
        # jinja renders the tool list; max_steps is ours, substituted beforehand
        "system_prompt": load_prompt("system").replace("{{ max_steps }}", str(max_steps)),
        # smolagents planning steps are not used: planning happens in step one, with the image
        "planning": {"initial_plan": "", "update_plan_pre_messages": "", "update_plan_post_messages": ""},
        "managed_agent": {"task": "", "report": ""},
        "final_answer": {"pre_messages": pre.strip(), "post_messages": post.strip()},
    }


class AgentReasoner(Reasoner):
    """LLM agent that explores the graph with tools and names the grounding nodes.

    Args:
        model: a smolagents ``Model``. When ``None``, one is built from ``backend_kwargs``
            (`flowpath.reason.backends.make_model`: ``backend``, ``model_id``, ``api_base``,
            ``api_key_env``, ``timeout``, ...).
        max_steps: cap on agent steps (the paper uses 8).
        tools_factory: ``chart -> list[smolagents.Tool]``; defaults to
            ``flowpath.agent.tools.make_graph_tools``.
        show_image: send the labelled image in the first step when the request has one.
        max_image_side: downscale the image so its longer side is at most this (``None``: never).
        **backend_kwargs: see ``model``.

    >>> # AgentReasoner(backend="openai", model_id="gpt-4o", api_base="https://api.openai.com/v1")
    """

    name = "agent"

    def __init__(self, model: Any = None, *, max_steps: int = 8,
                 tools_factory: Callable[[FlowChart], list[Any]] | None = None,
                 show_image: bool = True, max_image_side: int | None = 2048, **backend_kwargs: Any) -> None:
        require("smolagents", "agent", "AgentReasoner")
        if max_steps < 1:
            raise ValueError(f"max_steps must be >= 1, got {max_steps}")
        self.model = resolve_model(model, **backend_kwargs)
        self.max_steps = max_steps
        self.show_image = show_image
        self.max_image_side = max_image_side
        if tools_factory is None:
            from flowpath.agent.tools import make_graph_tools

            tools_factory = make_graph_tools
        self.tools_factory = tools_factory
        self._agent_cls = _build_agent_class()
        self.planning_template = load_prompt("planning")

    def _task(self, request: ReasoningRequest, with_image: bool) -> str:
        note = ("The labelled flowchart image is attached to this first message only; "
                "read the node labels from it now.\n\n" if with_image else "")
        return self.planning_template.format(question=request.question.strip(), answer=request.answer.strip(),
                                             nodes=node_listing(request.chart), image_note=note)

    def __call__(self, request: ReasoningRequest) -> Reasoning:
        chart = request.chart
        if not isinstance(chart, FlowChart) or len(chart) == 0:
            return Reasoning([], error="agent reasoner needs a non-empty FlowChart")
        from smolagents import ActionStep, TaskStep
        from smolagents.monitoring import LogLevel

        corrections = {"final": 0}
        valid = list(chart.nodes)

        def check_final(final_answer: Any, memory: Any, agent: Any = None) -> bool:
            ids, unknown, _ = parse_final_answer(final_answer, valid)
            if (unknown or not ids) and corrections["final"] == 0:
                corrections["final"] += 1
                raise ValueError(
                    f"the final answer names node(s) not in the graph: {unknown or 'none recognised'}. "
                    f"Valid node ids are: {', '.join(valid)}. Call final_answer again with only valid ids "
                    'as {"nodes": [...], "reason": "..."}.')
            return True

        def drop_images(step: Any, agent: Any = None) -> None:
            # after step one the image must not be re-sent: clear it from the task and all steps
            if agent is not None:
                for s in agent.memory.steps:
                    if isinstance(s, TaskStep):
                        s.task_images = None
                    elif isinstance(s, ActionStep):
                        s.observations_images = None
            if isinstance(step, ActionStep):
                step.observations_images = None

        try:
            tools = self.tools_factory(chart)
            agent = self._agent_cls(
                tools=tools, model=self.model, chart=chart,
                prompt_templates=_prompt_templates(self.max_steps), max_steps=self.max_steps,
                step_callbacks={ActionStep: [drop_images]}, final_answer_checks=[check_final],
                verbosity_level=LogLevel.OFF)
        except Exception as exc:
            return Reasoning([], error=f"agent set-up failed: {type(exc).__name__}: {exc}")
        images = None
        if self.show_image and request.labelled_image is not None:
            try:
                images = [to_pil(request.labelled_image, self.max_image_side)]
            except ValueError as exc:
                return Reasoning([], error=str(exc))
        try:
            output = agent.run(self._task(request, images is not None), images=images, max_steps=self.max_steps)
        except Exception as exc:  # network timeouts, server errors, bad model output: per question
            return Reasoning([], error=f"agent run failed: {type(exc).__name__}: {_short(exc, 600)}",
                             trace=self._trace(agent))
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
