"""`HybridReasoner`: the LLM agent checks the offline reasoner's answer, and never does worse
than having no answer.

The offline (rule-based) answer is computed first and offered to the agent as a suggestion to
check with the tools. The agent's answer is used when it names valid nodes; whenever the agent
fails (server error, deadline, circuit breaker, bad output) or names no valid node, the offline
answer is the answer. The trace's last record says which one answered (``answered_by``).
"""

from __future__ import annotations

from typing import Any

from flowpath.models.base import Reasoner
from flowpath.reason.agent import AgentReasoner


class HybridReasoner(AgentReasoner):
    """`AgentReasoner` with the offline reasoner as suggestion and fallback.

    Args:
        offline: the fallback reasoner (default `flowpath.reason.offline.OfflineReasoner`).
        **kwargs: `AgentReasoner` arguments (``model=`` or backend settings, ``max_steps``,
            ``mode``, ``time_limit`` ...).

    >>> # HybridReasoner(backend="transformers", model_id="/path/to/SmolLM2.gguf")
    """

    name = "hybrid"

    def __init__(self, offline: Reasoner | None = None, **kwargs: Any) -> None:
        if offline is None:
            from flowpath.reason.offline import OfflineReasoner

            offline = OfflineReasoner()
        super().__init__(fallback=offline, offer_fallback=True, **kwargs)
