"""Skip markers for optional dependencies (the full set-up installs all of them)."""

from __future__ import annotations

import shutil
from importlib.util import find_spec
from pathlib import Path

import pytest

require_torch = pytest.mark.skipif(find_spec("torch") is None, reason="needs torch (flowpath[models])")
require_transformers = pytest.mark.skipif(
    find_spec("transformers") is None or find_spec("torch") is None,
    reason="needs transformers + torch (flowpath[models])")
require_peft = pytest.mark.skipif(find_spec("peft") is None, reason="needs peft (flowpath[models])")
require_smolagents = pytest.mark.skipif(find_spec("smolagents") is None, reason="needs smolagents (flowpath[agent])")
require_tesseract = pytest.mark.skipif(shutil.which("tesseract") is None, reason="needs Debian tesseract-ocr")
require_chromium = pytest.mark.skipif(
    shutil.which("chromium") is None or not (Path(__file__).parents[1] / "node_modules" / "mermaid").is_dir(),
    reason="needs Debian chromium and the npm Mermaid install (scripts/setup.sh)")

REPO_ROOT = Path(__file__).resolve().parents[1]
FEBENCH_DEV = REPO_ROOT.parent / "shared" / "data" / "febench_dev"
require_febench = pytest.mark.skipif(not FEBENCH_DEV.is_dir(), reason="needs ../shared/data/febench_dev")
