"""The core must not pull in torch, transformers or smolagents, even indirectly."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.markers import REPO_ROOT

CORE_MODULES = ["flowpath", "flowpath.graph", "flowpath.graph.tools", "flowpath.mermaid",
                "flowpath.geometry", "flowpath.datasets", "flowpath.labels", "flowpath.metrics",
                "flowpath.agent"]
HEAVY = ["torch", "transformers", "smolagents"]


def test_core_imports_no_heavy_packages():
    code = (
        "import importlib, json, sys\n"
        f"for m in {CORE_MODULES!r}:\n"
        "    importlib.import_module(m)\n"
        "import flowpath\n"
        "flowpath.parse_mermaid, flowpath.FlowChart  # the lazy top-level names resolve\n"
        f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
