"""How-to charts and questions (``--style howto``, eleventh stretch) and the readings they
called for: a titled Start node, past-tense steps, checks and conditions told in everyday words
(real MiniLM for the last two; each case fails without its rule)."""

from __future__ import annotations

import json
import random

import networkx as nx
import pytest

from data_gen.howto_qa import howto_chart, make_howto_questions, past, procedures
from data_gen.qa import write_procedural_set
from flowpath.graph import FlowChart
from flowpath.mermaid import parse_mermaid
from flowpath.models.base import ReasoningRequest
from flowpath.reason import OfflineReasoner
from flowpath.reason.kinds import node_kind
from flowpath.reason.semantic import semantic_available
from flowpath.reason.text import stem


def test_procedures_are_long_varied_and_well_formed():
    procs = procedures()
    assert len(procs) >= 40
    assert {p.domain for p in procs} == {"instruct", "wiki"}
    steps = [s for p in procs for s in p.steps if s.kind == "step"]
    assert sum(len(s.text.split()) for s in steps) / len(steps) >= 10  # long, multi-clause steps
    assert all(any(s.kind == "decision" for s in p.steps) for p in procs)
    assert any(lab not in ("Yes", "No") for p in procs for s in p.steps for lab, _ in s.branches)


def test_howto_set_gold_is_in_the_chart_and_scenario_gold_is_a_walk(tmp_path):
    n = write_procedural_set(tmp_path, 12, seed=3, style="howto")
    rows = [json.loads(x) for x in (tmp_path / "questions.jsonl").read_text().splitlines()]
    assert n == len(rows) and {r["type"] for r in rows} == {"fact_retrieval", "applied_scenario"}
    for r in rows:
        chart = parse_mermaid(json.loads((tmp_path / "charts" / f"{r['chart']}.json").read_text())["mermaid"])
        assert set(r["gold"]) <= set(chart.nodes)
        if r["type"] == "applied_scenario":
            g = chart.to_networkx()
            assert all(g.has_edge(a, b) for a, b in zip(r["gold"], r["gold"][1:], strict=False)), r
            assert node_kind(chart, r["gold"][0]) != "start"


def test_howto_questions_are_deterministic():
    a = make_howto_questions(howto_chart(random.Random(7)), "c", random.Random(1))
    b = make_howto_questions(howto_chart(random.Random(7)), "c", random.Random(1))
    assert a == b


def test_past_tense_of_instruction_verbs():
    assert past("combine the dry ingredients") == "combined the dry ingredients"
    assert past("pay the fee") == "paid the fee"
    assert past("empty the trap") == "emptied the trap"


def test_a_titled_start_is_a_start_and_a_start_worded_step_is_not():
    fc = FlowChart.from_edges([("A", "B"), ("B", "C")], {"A": "Start returning an online purchase",
                                                         "B": "Start the engine and wait", "C": "Done"})
    fc.add_node(fc.nodes["A"].__class__("A", "Start returning an online purchase", "stadium"))
    assert node_kind(fc, "A") == "start"
    assert node_kind(fc, "B") == "process"


def test_irregular_past_forms_meet_their_verb():
    assert stem("sent") == stem("send") and stem("took") == stem("take") and stem("sent") == stem("send")
    assert stem("saw") != stem("see")  # a tool, not a sight


@pytest.fixture(scope="module")
def reasoner() -> OfflineReasoner:
    return OfflineReasoner(semantic=True)


def _tyre_chart() -> FlowChart:
    return FlowChart.from_edges(
        [("S", "A"), ("A", "B"), ("B", "C", "Yes"), ("B", "D", "No"), ("C", "F"), ("D", "F"), ("F", "G", "Yes"),
         ("F", "H", "No"), ("G", "E"), ("H", "E")],
        {"S": "Start", "A": "Remove the wheel and lever one side of the tyre off the rim",
         "B": "Can you hear or feel air escaping from the tube?",
         "C": "Mark the puncture with chalk and rough up the area with sandpaper",
         "D": "Dip the tube section by section in a bucket of water and watch for bubbles",
         "F": "Is the hole larger than a few millimetres?",
         "G": "Throw the damaged tube away and fit a new inner tube of the same size",
         "H": "Spread rubber cement, wait one minute and press the patch on firmly", "E": "End"})


def _returns_chart() -> FlowChart:
    return FlowChart.from_edges(
        [("S", "A"), ("A", "B"), ("B", "C", "Yes"), ("B", "J", "No"), ("C", "D"), ("D", "E"), ("E", "F"), ("J", "K")],
        {"S": "Start", "A": "Read the shop's return policy on its website", "B": "Is it less than 30 days since delivery?",
         "C": "Fill in the return form in your account", "D": "Pack the item in its original box with all tags attached",
         "E": "Print the prepaid label and drop the parcel off at a post office",
         "F": "Keep the receipt until the refund has cleared", "J": "Email customer service to ask for an exception",
         "K": "Consider selling the item online if they refuse"})


@pytest.mark.skipif(not semantic_available(), reason="needs flowpath[semantic]")
@pytest.mark.parametrize("told,answer,expected", [
    ("The parcel was delivered two months ago.", "Nadia should consider selling it.", ["B", "J", "K"]),
    ("Luckily, the parcel came only last week.", "She should pack the jacket in its original box.", ["B", "C", "D"]),
])
def test_a_check_told_in_everyday_words_starts_the_scenario_walk(reasoner, told, answer, expected):
    """"delivered two months ago" reads no number against "30 days" and shares only "delivery"
    with the check; the walk starts at the check and takes the branch on to the answer."""
    story = f"Nadia is sending back a jacket she bought online. {told} What should she do next?"
    assert sorted(reasoner(ReasoningRequest(_returns_chart(), story, answer)).node_ids) == expected
    off = OfflineReasoner(semantic=True)
    off.scenario_check_by_meaning = None
    assert "B" not in off(ReasoningRequest(_returns_chart(), story, answer)).node_ids


@pytest.mark.skipif(not semantic_available(), reason="needs flowpath[semantic]")
def test_a_fact_condition_in_everyday_words_names_the_check_before_the_answer(reasoner):
    q = "What should you do if a thin hissing sound comes from one spot?"
    out = reasoner(ReasoningRequest(_tyre_chart(), q, "Mark the puncture with chalk.")).node_ids
    assert sorted(out) == ["B", "C"]
    off = OfflineReasoner(semantic=True)
    off.fact_condition_by_meaning = None
    assert off(ReasoningRequest(_tyre_chart(), q, "Mark the puncture with chalk.")).node_ids == ["C"]


def test_scenario_gold_walks_are_connected_in_the_generated_graph():
    hc = howto_chart(random.Random(11))
    g = hc.chart.to_networkx()
    assert nx.is_weakly_connected(g)
