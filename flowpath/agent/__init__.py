"""smolagents wrappers of the graph tools (needs ``pip install 'flowpath[agent]'``).

Importing this package is free; smolagents is imported when a tool is first used, and a missing
install raises `flowpath.errors.MissingDependencyError` naming the ``agent`` extra.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from flowpath.agent.tools import GRAPH_TOOL_NAMES, make_graph_tools

_LAZY = {"make_graph_tools": "flowpath.agent.tools", "GRAPH_TOOL_NAMES": "flowpath.agent.tools"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'flowpath.agent' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = ["GRAPH_TOOL_NAMES", "make_graph_tools"]
