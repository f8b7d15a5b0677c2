"""``flowpath demo``: a browser page to try the pipeline (needs ``flowpath[demo]``).

`DemoBackend` (no Gradio) holds the components and the parse cache; `build_app` wraps it in a
Gradio ``Blocks`` page and `launch_demo` serves it on 127.0.0.1.

>>> from flowpath.demo import launch_demo
>>> launch_demo(port=7860)  # doctest: +SKIP
"""

from __future__ import annotations

from flowpath.demo.app import (
           ANSWER_API,
           build_app,
           example_rows,
           find_examples,
           find_mermaid_js,
           launch_demo,
)
from flowpath.demo.backend import DemoAnswer, DemoBackend, available_components, llm_configured

__all__ = ["ANSWER_API", "DemoAnswer", "DemoBackend", "available_components", "build_app",
           "example_rows", "find_examples", "find_mermaid_js", "launch_demo", "llm_configured"]
