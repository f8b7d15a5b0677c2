"""Mermaid flowcharts <-> `flowpath.graph.FlowChart` (no torch).

>>> from flowpath.mermaid import parse_mermaid, to_mermaid
>>> chart = parse_mermaid("flowchart LR\\n  A[Start] --> B{Ok?}")
>>> parse_mermaid(to_mermaid(chart)) == chart
True
"""

from flowpath.mermaid.export import to_mermaid
from flowpath.mermaid.parser import MermaidSyntaxError, parse_mermaid

__all__ = ["MermaidSyntaxError", "parse_mermaid", "to_mermaid"]
