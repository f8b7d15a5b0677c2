"""Helpers shared by the LLM reasoners: prompts, images, and parsing a final answer into node ids.

Pure Python: no smolagents import here, so parsing can be tested without a model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from importlib import resources
from typing import Any

import numpy as np

from flowpath.graph import FlowChart

#: argument names that carry node ids in graph tools (node_id, start_id, end_id, source, ...)
NODE_ARG = re.compile(r"(^|_)(node|nodes|id|ids|source|target|start|end|src|dst|from|to|goal|a|b|u|v)(_|$|\d)", re.I)
_ID_LIST_KEYS = ("nodes", "node_ids", "ids", "answer_nodes", "path")
_REASON_KEYS = ("reason", "reasoning", "explanation", "why")
_ID_TOKEN = re.compile(r"\b[A-Z]{1,3}[0-9]{0,3}\b")
_JSON_OBJ = re.compile(r"\{.*\}", re.S)


def load_prompt(name: str) -> str:
    """The text of ``flowpath/prompts/<name>.md`` (package data).

    Raises:
        FileNotFoundError: no such prompt.
    """
    path = resources.files("flowpath").joinpath("prompts", f"{name}.md")
    if not path.is_file():
        raise FileNotFoundError(f"no prompt named {name!r} in flowpath/prompts")
    return path.read_text(encoding="utf-8")


def node_listing(chart: FlowChart, max_chars: int = 160) -> str:
    """``id: text`` lines, one per node, texts shortened to ``max_chars``."""
    return "\n".join(f"{n.id}: {_shorten(n.text, max_chars)} [{n.kind}]" for n in chart)


def chart_as_text(chart: FlowChart, *, with_text: bool = True, max_chars: int = 160) -> str:
    """The labelled chart as text for a model that cannot see the image.

    Gives what the graph tools expose: every node's letter id, shape and (unless
    ``with_text=False``, the paper mode where text is read through ``get_statement``) its text,
    then every edge with its label.

    >>> from flowpath.graph import FlowChart
    >>> print(chart_as_text(FlowChart.from_edges([("A", "B", "yes")], {"A": "Ok?", "B": "Stop"})))
    Nodes (id [shape]: text):
    A [process]: Ok?
    B [end]: Stop
    Edges:
    A --yes--> B
    """
    nodes = [f"{n.id} [{n.kind}]" + (": " + _shorten(n.text, max_chars) if with_text else "") for n in chart]
    edges = [f"{e.source} --{' '.join(e.label.split())}--> {e.target}" if e.label else f"{e.source} --> {e.target}"
             for e in chart.edges]
    head = "Nodes (id [shape]: text):" if with_text else "Nodes (id [shape]; read a node's text with get_statement):"
    return "\n".join([head, *nodes, "Edges:", *(edges or ["(none)"])])


def _shorten(text: str | None, max_chars: int) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= max_chars else flat[: max_chars - 3] + "..."


#: Most nodes a final answer may name (gold answers are short paths; a small model under
#: constrained decoding otherwise lists node after node until its token budget runs out).
MAX_ANSWER_NODES = 10


def answer_schema(node_ids: Iterable[str], *, max_reason_chars: int = 80) -> dict[str, Any]:
    """JSON schema of a final answer ``{"nodes": [<valid id>, ...], "reason": "..."}``."""
    ids = list(node_ids)
    return {"type": "object", "properties": {
        "nodes": {"type": "array", "items": {"type": "string", "enum": ids}, "minItems": 1,
                  "maxItems": max(1, min(len(ids), MAX_ANSWER_NODES))},
        "reason": {"type": "string", "maxLength": max_reason_chars}}, "required": ["nodes", "reason"]}


def tool_call_schema(tools: Iterable[Any], node_ids: Iterable[str], *, max_reason_chars: int = 80) -> dict[str, Any]:
    """JSON schema of one tool call ``{"name": ..., "arguments": {...}}`` over ``tools``.

    Used to constrain a model's output (local constrained decoding, or a server's
    ``response_format``) so that every step is a call to a real tool whose node arguments are
    real node ids. Optional object and number arguments (branch ``conditions``, ``levels``) are
    left out: their keys or digits cannot be bounded in the schemas structured-generation
    libraries accept, and a call without them is still valid.

    Args:
        tools: smolagents tools (anything with ``name`` and ``inputs``); ``final_answer`` gets the
            ``{"nodes": [...], "reason": ...}`` answer schema.
        node_ids: the chart's node ids.
        max_reason_chars: longest ``reason`` accepted in the final answer.

    Returns:
        A JSON-schema dict (``anyOf`` one object per tool).
    """
    ids = list(node_ids)
    node_schema: dict[str, Any] = {"type": "string", "enum": ids}
    options = []
    for tool in tools:
        if tool.name == "final_answer":
            props: dict[str, Any] = {"answer": answer_schema(ids, max_reason_chars=max_reason_chars)}
            required = ["answer"]
        else:
            props, required = {}, []
            for arg, spec in tool.inputs.items():
                kind = spec.get("type")
                if kind == "string" and NODE_ARG.search(arg):
                    props[arg] = node_schema
                elif kind == "string":
                    props[arg] = {"type": "string", "maxLength": 40}
                elif kind == "boolean" or (kind in ("integer", "number") and not spec.get("nullable")):
                    props[arg] = {"type": kind}
                elif spec.get("nullable"):  # optional numbers/objects: left out (unbounded output)
                    continue
                else:  # a required argument of a type we cannot constrain: accept any JSON value
                    props[arg] = {}
                if not spec.get("nullable"):
                    required.append(arg)
        options.append({"type": "object",
                        "properties": {"name": {"type": "string", "enum": [tool.name]},
                                       "arguments": {"type": "object", "properties": props, "required": required}},
                        "required": ["name", "arguments"]})
    return {"anyOf": options}


def to_pil(image: Any, max_side: int | None = None) -> Any:
    """An RGB ``PIL.Image`` from an ``(H, W, 3)`` uint8 array (or a PIL image).

    Args:
        image: the labelled chart.
        max_side: shrink (keeping the aspect ratio) so the longer side is at most this many
            pixels; benchmark charts reach 8000 px, far beyond what a VLM looks at.

    Raises:
        ValueError: not an ``(H, W, 3)`` uint8 image.
    """
    from PIL import Image

    if isinstance(image, Image.Image):
        pil = image.convert("RGB")
    else:
        arr = np.asarray(image)
        if arr.ndim != 3 or arr.shape[2] != 3 or arr.dtype != np.uint8 or 0 in arr.shape:
            raise ValueError(f"labelled_image must be an (H, W, 3) uint8 array, got shape {arr.shape} dtype {arr.dtype}")
        pil = Image.fromarray(arr, "RGB")
    if max_side and max(pil.size) > max_side:
        scale = max_side / max(pil.size)
        pil = pil.resize((max(1, round(pil.width * scale)), max(1, round(pil.height * scale))), Image.Resampling.LANCZOS)
    return pil


def _as_obj(answer: Any) -> Any:
    if isinstance(answer, str):
        text = answer.strip()
        fence = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
        if fence:
            text = fence.group(1).strip()
        for cand in (text, *(m.group(0) for m in [_JSON_OBJ.search(text)] if m)):
            try:
                return json.loads(cand)
            except (json.JSONDecodeError, TypeError):
                continue
        return answer
    return answer


def parse_final_answer(answer: Any, valid_ids: Iterable[str]) -> tuple[list[str], list[str], str]:
    """Turn a model's final answer into node ids.

    Accepts ``{"nodes": [...], "reason": ...}`` (also as JSON text, fenced or embedded in prose),
    a bare list of ids, or prose such as ``"Nodes: A, C, D. Reason: ..."``.

    Args:
        answer: what the model passed to ``final_answer`` (or its last message).
        valid_ids: the chart's node ids.

    Returns:
        ``(ids, unknown, reason)``: known ids in the model's order without repeats, ids the model
        named that are not in the chart, and the model's reason text.
    """
    valid = set(valid_ids)
    obj = _as_obj(answer)
    named: list[str] = []
    reason = ""
    if isinstance(obj, dict):
        for k in _REASON_KEYS:
            if isinstance(obj.get(k), str):
                reason = obj[k]
                break
        for k in _ID_LIST_KEYS:
            if k in obj:
                v = obj[k]
                named = [str(x).strip() for x in (v if isinstance(v, list) else re.split(r"[,\s]+", str(v))) if str(x).strip()]
                break
        else:
            for v in obj.values():
                if isinstance(v, list):
                    named = [str(x).strip() for x in v]
                    break
    elif isinstance(obj, (list, tuple)):
        named = [str(x).strip() for x in obj]
    else:
        text = str(obj)
        m = re.search(r"(?is)\b(?:nodes?|ids?|path)\s*[:=]\s*(.*?)(?:\.\s|\n|reason\s*:|$)", text)
        r = re.search(r"(?is)\breason\s*[:=]\s*(.*)$", text)
        reason = r.group(1).strip() if r else ""
        if m:
            named = _ID_TOKEN.findall(m.group(1))
        else:
            # unlabelled prose: trust only tokens that are real ids (an "A" may be an article)
            named = [t for t in _ID_TOKEN.findall(text) if t in valid]
    # strip quotes/brackets the model may have kept around an id ("'B'", "[C]")
    named = [re.sub(r"^[\s'\"\[\(]+|[\s'\"\]\)\.]+$", "", x) for x in named]
    named = [x for x in dict.fromkeys(named) if x]
    ids = [x for x in named if x in valid]
    unknown = [x for x in named if x not in valid]
    return ids, unknown, reason
