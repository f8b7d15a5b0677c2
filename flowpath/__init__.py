"""flowpath: fine-grained flowchart attribution.

Flowchart image + statement (question and answer) -> the minimal path of flowchart nodes that
grounds the statement, returned as pixel regions on the original image.

The package import is light on purpose: nothing heavy (torch, transformers, smolagents, OpenCV)
is imported until a name that needs it is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> module that defines it; resolved on first attribute access (PEP 562)
_LAZY = {
    "FlowChart": "flowpath.graph",
    "Node": "flowpath.graph",
    "Edge": "flowpath.graph",
    "parse_mermaid": "flowpath.mermaid",
    "to_mermaid": "flowpath.mermaid",
    "MermaidSyntaxError": "flowpath.mermaid",
    "Region": "flowpath.geometry",
    "FlowPath": "flowpath.pipeline",
    "ParsedChart": "flowpath.pipeline",
    "Attribution": "flowpath.pipeline",
}

if TYPE_CHECKING:  # pragma: no cover
    from flowpath.geometry import Region
    from flowpath.graph import Edge, FlowChart, Node
    from flowpath.mermaid import MermaidSyntaxError, parse_mermaid, to_mermaid
    from flowpath.pipeline import Attribution, FlowPath, ParsedChart


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'flowpath' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


# spelled out (not built from _LAZY) so linters and type checkers see the public names
__all__ = ["__version__", "FlowChart", "Node", "Edge", "parse_mermaid", "to_mermaid",
           "MermaidSyntaxError", "Region", "FlowPath", "ParsedChart", "Attribution"]
