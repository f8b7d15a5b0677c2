"""`HybridReasoner`: the LLM agent checks the offline reasoner's answer, and never does worse
than having no answer.

The offline (rule-based) answer is computed first and offered to the agent as a suggestion to
check with the tools. Whenever the agent fails (server error, deadline, circuit breaker, bad
output) or names no valid node, the offline answer is the answer. When the agent does name
valid nodes, an acceptance rule (`ACCEPT_RULES`) decides whether they replace the offline
answer: a small model that overrides a correct offline answer with a wrong one makes the pair
worse than offline alone, so by default the agent may only *prune* the offline answer (drop
nodes it names), which is the rule that did best on generated QA (`data_gen.qa --hard`,
`eval/bench_agent.py --rules`; docs/reasoning.md). The trace's last record says which one
answered (``answered_by``), why, and both answers (``agent_nodes``, ``offline_nodes``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flowpath.models.base import Reasoner
from flowpath.reason.agent import AgentReasoner


def _subset(agent: set[str], offline: set[str]) -> bool:
    return agent <= offline


def _near(agent: set[str], offline: set[str]) -> bool:
    return len(agent ^ offline) <= 1


#: When the agent's valid answer replaces a non-empty offline answer (an empty offline answer is
#: always replaced): ``agent`` always; ``subset`` when it only drops offline nodes; ``near`` when
#: it differs by at most one node; ``offline`` never (the agent only fills in for a missing answer).
ACCEPT_RULES: dict[str, Callable[[set[str], set[str]], bool]] = {
    "agent": lambda agent, offline: True,
    "subset": _subset,
    "near": _near,
    "offline": lambda agent, offline: False,
}


class HybridReasoner(AgentReasoner):
    """`AgentReasoner` with the offline reasoner as suggestion, fallback and check.

    Args:
        offline: the fallback reasoner (default `flowpath.reason.offline.OfflineReasoner`).
        accept: the `ACCEPT_RULES` name deciding when the agent's answer replaces the offline one.
        **kwargs: `AgentReasoner` arguments (``model=`` or backend settings, ``max_steps``,
            ``mode``, ``time_limit`` ...).

    Raises:
        ValueError: an unknown ``accept`` rule.

    >>> # HybridReasoner(backend="transformers", model_id="/path/to/SmolLM2.gguf")
    """

    name = "hybrid"

    def __init__(self, offline: Reasoner | None = None, *, accept: str = "subset", **kwargs: Any) -> None:
        if accept not in ACCEPT_RULES:
            raise ValueError(f"unknown hybrid accept rule {accept!r}; expected one of {sorted(ACCEPT_RULES)}")
        if offline is None:
            from flowpath.reason.offline import OfflineReasoner

            offline = OfflineReasoner()
        super().__init__(fallback=offline, offer_fallback=True, **kwargs)
        self.accept_rule = accept

    def accept(self, agent_ids: list[str], offered_ids: list[str]) -> tuple[bool, str]:
        if not offered_ids:
            return True, "the offline reasoner named no node"
        if ACCEPT_RULES[self.accept_rule](set(agent_ids), set(offered_ids)):
            return True, f"the agent's answer passes the {self.accept_rule!r} rule"
        return False, f"the agent's answer fails the {self.accept_rule!r} rule against the offline answer"
