import os

# Tests share 2 cores; keep BLAS/torch from oversubscribing them.
os.environ.setdefault("OMP_NUM_THREADS", "2")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _restore_flowpath_environment():
    """The CLI exports its ``--llm-*`` flags as ``FLOWPATH_LLM_*`` for the backends to read; a
    test that calls ``flowpath.cli.main`` in-process must not leave them set for later tests
    (an agent reasoner would then become everyone's default)."""
    saved = {k: v for k, v in os.environ.items() if k.startswith("FLOWPATH_")}
    yield
    for k in [k for k in os.environ if k.startswith("FLOWPATH_")]:
        if k not in saved:
            del os.environ[k]
    os.environ.update(saved)
