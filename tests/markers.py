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


def generate_in_child_process(args: list[str]) -> None:
    """Run the generator CLI (``python -m data_gen ARGS``) in a child process.

    The generator tests keep one session-wide sync Playwright browser, which owns this process's
    asyncio loop; a second sync Playwright cannot start beside it, so other modules that need a
    render do it in a child process."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "data_gen", *args], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]


def render_in_families(folder: Path, mermaid: str, families: tuple[str, ...], *extra: str) -> Path:
    """``mermaid`` drawn once in each style family (eval palettes, seed 3) into ``folder /
    "bench"`` by `generate_in_child_process`; ``extra``: further generator arguments."""
    inputs = []
    for fam in families:
        p = folder / f"{fam}.mmd"
        p.write_text(mermaid)
        inputs.append(str(p))
    out = folder / "bench"
    generate_in_child_process([str(out), "--input", *inputs, "--styles", ",".join(families), "--split", "eval",
                               "--workers", "0", "--seed", "3", *extra])
    return out
