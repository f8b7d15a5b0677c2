"""One real Chromium page shared by the generator tests (starting Chromium costs seconds)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def renderer():
    from data_gen.render import MermaidRenderer

    r = MermaidRenderer().start()
    yield r
    r.close()
