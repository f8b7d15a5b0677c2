"""Fact forms an LLM writes about how-to charts (``--style factform``, twelfth stretch) and the
readings they called for: the options at a check, the step a "what do you do once you X"
question places, the first step, the step a tool is used in, the check before a last step, and
yes/no questions about a step (real MiniLM where the rule reads meaning; each case fails
without its rule)."""

from __future__ import annotations

import json
import random

import pytest

from data_gen.fact_qa import (
    fact_chart,
    hard_fact_chart,
    make_fact_questions,
    make_hard_fact_questions,
)
from data_gen.howto_qa import howto_chart, make_howto_fact_form_questions
from data_gen.qa import write_procedural_set
from flowpath.mermaid import parse_mermaid
from flowpath.models.base import ReasoningRequest
from flowpath.reason import OfflineReasoner
from flowpath.reason.kinds import node_kind
from flowpath.reason.semantic import semantic_available
from tests.reason.test_howto import _pasta_chart  # the how-to tests' pasta chart, one home


def test_factform_set_gold_is_in_the_chart_and_options_hold_every_branch(tmp_path):
    n = write_procedural_set(tmp_path, 30, seed=4, style="factform")
    rows = [json.loads(x) for x in (tmp_path / "questions.jsonl").read_text().splitlines()]
    assert n == len(rows) and {r["type"] for r in rows} == {"fact_retrieval", "flow_referential"}
    for r in rows:
        chart = parse_mermaid(json.loads((tmp_path / "charts" / f"{r['chart']}.json").read_text())["mermaid"])
        assert set(r["gold"]) <= set(chart.nodes), r
        if "depending on" in r["question"] or "possible outcomes" in r["question"]:
            check, *outs = r["gold"]
            assert node_kind(chart, check) == "decision"
            assert sorted(outs) == sorted(e.target for e in chart.out_edges(check) if e.label)


def test_fact_form_questions_are_deterministic():
    a = make_howto_fact_form_questions(howto_chart(random.Random(5)), "c", random.Random(2), n=8)
    b = make_howto_fact_form_questions(howto_chart(random.Random(5)), "c", random.Random(2), n=8)
    assert a == b and len(a) == 8


def test_fact_generators_ask_the_step_next_to_a_named_one_as_flow_with_both_steps():
    """The documented convention (docs/reasoning.md "Gold conventions"): "what do you do once you
    X" is flow referential, grounded by X and the neighbour; until the twelfth stretch these
    generators labelled it a fact grounded by the neighbour alone."""
    flows = []
    for seed in range(40):
        rng = random.Random(seed)
        chart, domain, details = fact_chart(rng)
        flows += [(chart, q) for q in make_fact_questions(chart, "c", rng, domain=domain, details=details)
                  if q["type"] == "flow_referential"]
        chart, domain, details, notes = hard_fact_chart(rng)
        flows += [(chart, q) for q in make_hard_fact_questions(chart, "c", rng, domain=domain, details=details,
                                                               notes=notes) if q["type"] == "flow_referential"]
    assert flows
    for chart, q in flows:
        a, b = q["gold"]
        g = chart.to_networkx()
        assert g.has_edge(a, b) or g.has_edge(b, a), q


@pytest.fixture(scope="module")
def reasoner() -> OfflineReasoner:
    return OfflineReasoner(semantic=True)


def _ask(flag: str | None, value: object, question: str, answer: str) -> list[str]:
    r = OfflineReasoner(semantic=True)
    if flag is not None:
        setattr(r, flag, value)
    return sorted(r(ReasoningRequest(_pasta_chart(), question, answer)).node_ids)


needs_semantic = pytest.mark.skipif(not semantic_available(), reason="needs flowpath[semantic]")


@needs_semantic
@pytest.mark.parametrize("off", [False, True])
def test_the_options_at_a_check_are_the_check_and_its_branches(off):
    out = _ask("fact_options_at_check" if off else None, False,
               "What are the options depending on whether the dough is crumbly and dry?",
               "If yes, add a little water; if not, knead it until silky.")
    assert (out == ["E", "F", "G"]) is not off


@needs_semantic
@pytest.mark.parametrize("off", [False, True])
def test_a_step_placed_by_another_is_asked_with_that_step(off):
    out = _ask("fact_sequence_anchor" if off else None, None,
               "What do you do once you crack two eggs into the well?", "Draw the flour in gradually.")
    assert (out == ["C", "D"]) is not off
    # a detail of a step placed by another asks about that step alone
    assert _ask(None, None, "Once you crack the eggs into the well, how long do you knead?", "8 minutes.") == ["G"]


@needs_semantic
@pytest.mark.parametrize("off", [False, True])
def test_the_first_thing_to_do_is_the_step_after_start(off):
    out = _ask("fact_first_step_boost" if off else None, None,
               "What is the first thing to do according to the flowchart?", "Shape the flour into a mound.")
    assert (out == ["B"]) is not off


@needs_semantic
@pytest.mark.parametrize("off", [False, True])
def test_the_thing_a_question_names_places_the_step_that_uses_it(off):
    out = _ask("fact_thing_weight" if off else None, 0.0, "What is cling film used for?",
               "To cover the dough while it relaxes.")
    assert (out == ["H"]) is not off


@needs_semantic
@pytest.mark.parametrize("off", [False, True])
def test_a_yes_no_question_about_a_step_is_not_answered_by_a_check(off):
    out = _ask("fact_yesno_step_not_check" if off else None, False,
               "Does the flowchart tell you to work the dough by hand?", "Yes, it does.")
    assert (node_kind(_pasta_chart(), out[0]) != "decision") is not off
