"""Reasoners: (graph, question, answer[, labelled image]) -> the node ids that ground the statement.

* `OfflineReasoner` — rules over the graph, no LLM; the default (`default_reasoner`).
* `AgentReasoner` — a smolagents ``ToolCallingAgent`` over the graph tools (needs ``flowpath[agent]``).
* `HybridReasoner` — the agent checks the offline answer, which answers whenever the agent fails.
* `SoMReasoner` — a vision-language model names the letter marks directly (needs ``flowpath[agent]``).

smolagents is imported only when an LLM reasoner is built, so ``import flowpath.reason`` stays light.

>>> r = make_reasoner("offline")
>>> r.name
'offline'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flowpath.models.base import Reasoner, Reasoning, ReasoningRequest
from flowpath.reason.offline import QUESTION_TYPES, OfflineReasoner, classify_question
from flowpath.registry import Registry

if TYPE_CHECKING:  # pragma: no cover
    from flowpath.reason.agent import AgentReasoner
    from flowpath.reason.backends import LLMSettings
    from flowpath.reason.hybrid import HybridReasoner
    from flowpath.reason.som import SoMReasoner

REASONERS: Registry[Reasoner] = Registry("reasoner", {
    "offline": "flowpath.reason.offline:OfflineReasoner",
    "agent": "flowpath.reason.agent:AgentReasoner",
    "hybrid": "flowpath.reason.hybrid:HybridReasoner",
    "som": "flowpath.reason.som:SoMReasoner",
}, requires={"agent": [("smolagents", "agent")], "hybrid": [("smolagents", "agent")],
             "som": [("smolagents", "agent")]})

# lazy: these modules import smolagents-facing code only when used (PEP 562)
__getattr__ = REASONERS.lazy_attribute(__name__)


def default_reasoner(settings: LLMSettings | None = None) -> Reasoner:
    """The reasoner the pipeline uses unless told otherwise.

    `OfflineReasoner` (no LLM, no network) when no LLM is configured. ``FLOWPATH_REASONER``
    names a reasoner outright (``offline`` | ``agent`` | ``hybrid`` | ``som``); otherwise a
    model in the LLM settings selects ``agent``.

    Args:
        settings: the LLM settings (`flowpath.reason.backends.LLMSettings`, e.g. from the CLI's
            ``--llm-*`` flags); default `LLMSettings.from_env` (``FLOWPATH_LLM_MODEL`` ...).
    """
    import os

    from flowpath.reason.backends import LLMSettings

    settings = LLMSettings.from_env() if settings is None else settings
    name = os.environ.get("FLOWPATH_REASONER", "").strip().lower()
    if not name and settings.model_id:
        name = "agent"
    return make_reasoner(name, settings=settings) if name else OfflineReasoner()


def make_reasoner(name: str, *, device: str | None = None, settings: LLMSettings | None = None,
                  **kwargs: Any) -> Reasoner:
    """Build a reasoner by name.

    Args:
        name: ``"offline"``, ``"agent"``, ``"hybrid"`` or ``"som"``.
        device: torch device, for reasoners that declare one (a local ``transformers`` model).
        settings: LLM settings (`flowpath.reason.backends.LLMSettings`), for the reasoners that
            take them (``agent``, ``hybrid``, ``som``); the others ignore them.
        **kwargs: passed to the class. For ``agent``/``som`` either ``model=`` (a smolagents
            ``Model``) or backend settings: ``backend=`` (``openai`` | ``transformers`` |
            ``litellm``), ``model_id=``, ``api_base=``, ``api_key_env=``, ``timeout=`` ...
            (see `flowpath.reason.backends.make_model`).

    Returns:
        A `Reasoner`.

    Raises:
        ValueError: unknown name.
        flowpath.errors.MissingDependencyError: ``agent``/``som`` without smolagents installed.
    """
    if settings is not None and REASONERS.accepts(name, "settings"):
        kwargs["settings"] = settings
    return REASONERS.make(name, device=device, **kwargs)


__all__ = ["AgentReasoner", "HybridReasoner", "OfflineReasoner", "QUESTION_TYPES", "REASONERS", "Reasoner", "Reasoning",
           "ReasoningRequest", "SoMReasoner", "classify_question", "default_reasoner", "make_reasoner"]
