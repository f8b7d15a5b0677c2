"""LLM settings are one value handed down: from the environment at the edge, from the CLI's
``--llm-*`` flags on top, or built in code; nothing writes ``os.environ``."""

from __future__ import annotations

import argparse
import os

import pytest

from flowpath.commands.common import add_llm_arguments, llm_settings
from flowpath.reason.backends import ENV_SETTINGS, LLMSettings
from tests.markers import require_smolagents


def test_from_env_reads_and_types_every_variable():
    env = {var: "" for var in ENV_SETTINGS.values()}
    env.update(FLOWPATH_LLM_MODEL="m", FLOWPATH_LLM_TIMEOUT="2.5", FLOWPATH_LLM_MAX_FAILURES="4",
               FLOWPATH_LLM_FALLBACK="offline", FLOWPATH_LLM_IMAGES="no")
    s = LLMSettings.from_env(env)
    assert (s.model_id, s.timeout, s.max_failures, s.fallback, s.images) == ("m", 2.5, 4, "offline", "no")
    assert s.backend is None and s.api_base is None  # empty means unset
    assert LLMSettings.from_env({}) == LLMSettings()


def test_a_bad_number_names_its_variable():
    with pytest.raises(ValueError, match="FLOWPATH_LLM_TIMEOUT='soon'"):
        LLMSettings.from_env({"FLOWPATH_LLM_TIMEOUT": "soon"})


def test_cli_flags_override_the_environment_and_leave_it_alone(monkeypatch):
    monkeypatch.setenv("FLOWPATH_LLM_MODEL", "from-env")
    monkeypatch.setenv("FLOWPATH_LLM_URL", "http://127.0.0.1:1/v1")
    parser = argparse.ArgumentParser()
    add_llm_arguments(parser)
    before = dict(os.environ)
    s = llm_settings(parser.parse_args(["--llm-model", "from-flag", "--llm-timeout", "7",
                                        "--llm-max-failures", "0"]))
    assert (s.model_id, s.api_base, s.timeout, s.max_failures) == ("from-flag", "http://127.0.0.1:1/v1", 7.0, 0)
    assert dict(os.environ) == before
    with pytest.raises(SystemExit):  # a typed flag: argparse names it
        parser.parse_args(["--llm-timeout", "soon"])


@require_smolagents
def test_given_settings_are_used_as_they_are(monkeypatch):
    """A library caller's settings win over whatever the process environment says."""
    from flowpath.reason import default_reasoner, make_reasoner
    from flowpath.reason.backends import make_model

    monkeypatch.setenv("FLOWPATH_LLM_TIMEOUT", "not a number")  # would fail if it were read
    monkeypatch.setenv("FLOWPATH_LLM_FALLBACK", "offline")
    monkeypatch.delenv("FLOWPATH_REASONER", raising=False)
    settings = LLMSettings(backend="openai", model_id="m", api_base="http://127.0.0.1:9/v1",
                           api_key_env="FLOWPATH_TEST_NO_SUCH_KEY", timeout=3.0, max_failures=5,
                           images="no", max_new_tokens=64)
    model = make_model(settings=settings)
    assert (model.deadline, model.max_failures, model.max_new_tokens, model.takes_images) == (3.0, 5, 64, False)
    assert make_model(settings=settings, timeout=9.0).deadline == 9.0  # an argument wins
    reasoner = make_reasoner("agent", settings=settings)
    assert reasoner.model.deadline == 3.0 and reasoner.fallback is None  # not FLOWPATH_LLM_FALLBACK
    assert default_reasoner(settings).name == "agent"  # a model in the settings selects the agent
    assert default_reasoner(LLMSettings()).name == "offline"
    assert make_reasoner("offline", settings=settings).name == "offline"  # ignored where not taken
