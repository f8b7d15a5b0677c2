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
    assert n == len(rows) and {r["type"] for r in rows} == {"fact_retrieval", "flow_referential", "applied_scenario"}
    for r in rows:
        chart = parse_mermaid(json.loads((tmp_path / "charts" / f"{r['chart']}.json").read_text())["mermaid"])
        assert set(r["gold"]) <= set(chart.nodes)
        if r["type"] == "flow_referential":  # a step and the neighbour asked about
            a, b = r["gold"]
            assert chart.to_networkx().has_edge(a, b) or chart.to_networkx().has_edge(b, a), r
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


def _pasta_chart() -> FlowChart:
    fc = FlowChart.from_edges(
        [("S", "B"), ("B", "C"), ("C", "D"), ("D", "E"), ("E", "F", "Yes"), ("E", "G", "No"), ("F", "E"), ("G", "H"),
         ("H", "I"), ("I", "J")],
        {"S": "Begin", "B": "Make a well in 200 grams of flour on a clean work surface",
         "C": "Crack two eggs into the well and whisk them with a fork",
         "D": "Draw the flour in gradually until a rough dough forms", "E": "Is the dough crumbly and dry?",
         "F": "Add water a teaspoon at a time", "G": "Knead for 8 minutes until silky",
         "H": "Wrap in cling film and rest for 30 minutes at room temperature",
         "I": "Roll out thinly with a pasta machine", "J": "Cut into ribbons and cook in salted boiling water"})
    return fc


@pytest.mark.skipif(not semantic_available(), reason="needs flowpath[semantic]")
def test_a_check_told_in_everyday_words_starts_the_scenario_walk(reasoner):
    """"holds together nicely in one smooth ball" restates no word of "Is the dough crumbly and
    dry?" by an opposite any rule reads; the walk starts at the check and takes the branch on to
    the answer (without the rule: the answer and the step before it)."""
    story = ("Ines is making fresh pasta for dinner. It turns out that the dough holds together nicely in one "
             "smooth ball. What should she do next?")
    answer = "Roll it out thinly with the pasta machine."
    assert sorted(reasoner(ReasoningRequest(_pasta_chart(), story, answer)).node_ids) == ["E", "G", "H", "I"]
    off = OfflineReasoner(semantic=True)
    off.scenario_check_by_meaning = None
    assert "E" not in off(ReasoningRequest(_pasta_chart(), story, answer)).node_ids


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


def _drywall_chart() -> FlowChart:
    return FlowChart.from_edges(
        [("S", "B"), ("B", "C"), ("C", "D", "Yes"), ("C", "M", "No"), ("D", "P"), ("P", "F"), ("M", "F"), ("F", "E")],
        {"S": "Start", "B": "Cut the damaged area into a neat square with a drywall saw",
         "C": "Is the hole wider than 10 cm?", "D": "Screw a strip of wood inside the wall behind the hole",
         "P": "Cut a drywall patch to fit the square and screw it to the backing",
         "M": "Cover the hole with a self-adhesive mesh patch",
         "F": "Spread joint compound with a wide putty knife in thin coats", "E": "End"})


@pytest.mark.skipif(not semantic_available(), reason="needs flowpath[semantic]")
@pytest.mark.parametrize("flag", ["fact_taken_step_over_check", None])
def test_a_settled_check_asked_what_to_do_is_answered_by_its_taken_step(flag):
    """"Add support" names no node: the check the question restates would win the match."""
    r = OfflineReasoner(semantic=True)
    if flag is not None:
        setattr(r, flag, False)
    out = r(ReasoningRequest(_drywall_chart(), "If the hole is wider than 10 cm, what does the flowchart recommend?",
                             "Add support.")).node_ids
    assert (sorted(out) == ["C", "D"]) is (flag is None)


@pytest.mark.skipif(not semantic_available(), reason="needs flowpath[semantic]")
@pytest.mark.parametrize("flag", ["scenario_step_answers", None])
def test_an_answer_naming_two_steps_in_turn_ends_at_the_later(flag):
    r = OfflineReasoner(semantic=True)
    if flag is not None:
        setattr(r, flag, False)
    story = ("Kenji is patching a hole in drywall. He cut the damaged area into a neat square. The hole is wider "
             "than 10 cm. What should he do next?")
    out = r(ReasoningRequest(_drywall_chart(), story, "Screw a strip of wood behind the hole and then fit a "
                                                      "new piece.")).node_ids
    assert ("P" in out) is (flag is None)
