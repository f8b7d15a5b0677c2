"""`SoMReasoner`: set-of-marks baseline. A vision-language model sees the letter-labelled image
and names the marks that ground the statement directly, with no graph tools."""

from __future__ import annotations

from typing import Any

from flowpath.errors import require
from flowpath.graph import FlowChart
from flowpath.models.base import Reasoner, Reasoning, ReasoningRequest
from flowpath.reason.backends import resolve_model, takes_images
from flowpath.reason.base import load_prompt, parse_final_answer, to_pil


class SoMReasoner(Reasoner):
    """One VLM call per question: labelled image + statement -> letters.

    Args:
        model: a smolagents ``Model`` (vision-capable); or build one from ``backend_kwargs``
            (see `flowpath.reason.backends.make_model`).
        list_marks: tell the model which marks exist (the chart's ids), without node texts.
        max_image_side: downscale the image so its longer side is at most this (``None``: never).
        **backend_kwargs: backend settings when ``model`` is ``None``.
    """

    name = "som"

    def __init__(self, model: Any = None, *, list_marks: bool = True, max_image_side: int | None = 2048,
                 **backend_kwargs: Any) -> None:
        require("smolagents", "agent", "SoMReasoner")
        self.model = resolve_model(model, **backend_kwargs)
        if not takes_images(self.model):
            raise ValueError(
                f"set-of-marks reasoning needs a model that takes images, and {self.model.model_id!r} is "
                "text-only (FLOWPATH_LLM_IMAGES / --llm-images, or a transformers model without a vision "
                "tower); use --reasoner agent or hybrid, which give a text-only model the chart as text")
        self.list_marks = list_marks
        self.max_image_side = max_image_side
        self.template = load_prompt("som")

    def __call__(self, request: ReasoningRequest) -> Reasoning:
        from smolagents import ChatMessage, MessageRole

        if request.labelled_image is None:
            return Reasoning([], error="set-of-marks reasoning needs the labelled image")
        chart = request.chart if isinstance(request.chart, FlowChart) else None
        valid = list(chart.nodes) if chart is not None else []
        marks = f"Marks in the image: {', '.join(valid)}\n" if (self.list_marks and valid) else ""
        text = self.template.format(question=request.question.strip(), answer=request.answer.strip(), nodes=marks)
        try:
            image = to_pil(request.labelled_image, self.max_image_side)
        except ValueError as exc:
            return Reasoning([], error=str(exc))
        messages = [ChatMessage(role=MessageRole.USER,
                                content=[{"type": "image", "image": image}, {"type": "text", "text": text}])]
        if hasattr(self.model, "begin_question"):  # answers constrained to the chart's ids
            self.model.begin_question(valid or None, None)
        try:
            reply = self.model.generate(messages)
        except Exception as exc:  # timeouts and server errors are per question
            return Reasoning([], error=f"set-of-marks model call failed: {type(exc).__name__}: {str(exc)[:600]}")
        finally:
            if hasattr(self.model, "begin_question"):
                self.model.begin_question(None, None)
        content = reply.content if isinstance(reply.content, str) else str(reply.content or "")
        if valid:
            ids, unknown, reason = parse_final_answer(content, valid)
        else:  # no graph: accept any letter-like mark the model names
            ids, unknown, reason = parse_final_answer(content, [])
            ids, unknown = unknown, []
        trace = [{"model_output": content[:2000], "unknown_ids": unknown}]
        return Reasoning(ids, reason=reason, trace=trace,
                         error=None if ids else "the model named no valid mark")
