"""The graph tools as smolagents `Tool`s bound to one chart (the agent's view of the flowchart).

Nothing here restates a tool: each tool is built from one function of `flowpath.graph.tools`,
whose Google docstring and type hints are the single source of its prompt. smolagents'
`get_json_schema` (the parser behind its ``@tool`` decorator) turns them into the description,
the input schema and the output type; the chart argument is bound and left out of the schema.
A bad argument (unknown node id, a branch the decision does not have) is answered with a
readable message string listing the valid choices instead of raising, so the agent can correct
itself in the next step.

>>> from flowpath.graph import FlowChart
>>> tools = make_graph_tools(FlowChart.from_edges([("A", "B")], {"A": "Start", "B": "End"}))
>>> {t.name: t for t in tools}["get_neighbours"](node_id="A")
['B']
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, get_type_hints

from flowpath.errors import require

require("smolagents", "agent", "the smolagents graph tools (flowpath.agent.tools)")

from smolagents import Tool  # noqa: E402  (after the dependency check, on purpose)

# the schema parser behind smolagents' @tool (not re-exported at the top level)
from smolagents._function_type_hints_utils import get_json_schema  # noqa: E402

from flowpath.graph import tools as gt  # noqa: E402
from flowpath.graph.core import FlowChart  # noqa: E402

__all__ = ["GRAPH_TOOL_NAMES", "GraphTool", "make_graph_tools"]

#: The tool names in the order they are offered to the agent.
GRAPH_TOOL_NAMES: list[str] = list(gt.TOOL_FUNCTIONS)


class GraphTool(Tool):
    """One `flowpath.graph.tools` function as a smolagents tool over ``chart``.

    Args:
        chart: the flowchart the agent reasons over.
        fn: a function of `flowpath.graph.tools` taking the chart first.
    """

    def __init__(self, chart: FlowChart, fn: Callable[..., Any]) -> None:
        if not isinstance(chart, FlowChart):
            raise TypeError(f"{type(self).__name__} needs a FlowChart, got {type(chart).__name__}")
        self.chart = chart
        self.forward = self._bind(fn)  # type: ignore[method-assign]
        schema = get_json_schema(self.forward)["function"]
        returns = schema.get("return", {})
        self.name = schema["name"]
        # one paragraph per part: the docstring's line wrapping means nothing to the model
        self.description = " ".join(schema["description"].split()) + (
            f"\nReturns: {' '.join(returns['description'].split())}" if returns.get("description") else "")
        self.inputs = schema["parameters"]["properties"]
        self.output_type = returns.get("type", "any")
        super().__init__()  # smolagents validates inputs against forward's signature here

    def _bind(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn`` with the chart bound: the signature, type hints and docstring the agent sees
        are ``fn``'s without its leading ``chart``; a `ToolInputError` comes back as text."""
        def forward(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(self.chart, *args, **kwargs)
            except gt.ToolInputError as exc:
                return f"Error: {exc}"

        sig = inspect.signature(fn)
        forward.__name__ = forward.__qualname__ = fn.__name__
        forward.__doc__ = fn.__doc__
        forward.__signature__ = sig.replace(parameters=list(sig.parameters.values())[1:])  # type: ignore[attr-defined]
        forward.__annotations__ = {k: v for k, v in get_type_hints(fn).items() if k != "chart"}
        return forward


def make_graph_tools(chart: FlowChart, names: list[str] | None = None) -> list[Tool]:
    """Instantiate the graph tools bound to ``chart``.

    Args:
        chart: the flowchart the agent reasons over.
        names: only these tools (by ``name``), in this order; default all sixteen.

    Returns:
        smolagents ``Tool`` instances, ready for ``ToolCallingAgent(tools=...)``/``CodeAgent``.

    Raises:
        ValueError: an unknown tool name.
    """
    names = GRAPH_TOOL_NAMES if names is None else names
    unknown = [n for n in names if n not in gt.TOOL_FUNCTIONS]
    if unknown:
        raise ValueError(f"unknown graph tool(s) {unknown}; available: {sorted(gt.TOOL_FUNCTIONS)}")
    return [GraphTool(chart, gt.TOOL_FUNCTIONS[n]) for n in names]
