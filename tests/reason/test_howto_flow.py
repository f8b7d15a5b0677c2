"""How-to flow questions and "what next" stories (twelfth stretch): one-neighbour questions read as
a (step, neighbour) pair, "she just did X" stories, steps told in other words starting the
scenario walk, and the held-out procedures test sets draw (real MiniLM; each reasoner case
fails with its rule off)."""

from __future__ import annotations

import json
import random

import pytest

from data_gen.howto_qa import howto_chart, procedures
from data_gen.qa import write_procedural_set
from flowpath.graph import FlowChart
from flowpath.models.base import ReasoningRequest
from flowpath.reason import OfflineReasoner, classify_question
from flowpath.reason.semantic import semantic_available
from tests.reason.test_howto import _pasta_chart  # the how-to tests' pasta chart, one home

needs_semantic = pytest.mark.skipif(not semantic_available(), reason="needs flowpath[semantic]")


def test_held_out_procedures_are_new_and_only_test_sets_draw_them(tmp_path):
    shared, held_out = procedures("shared"), procedures("held-out")
    assert len(held_out) >= 30
    assert not {p.title for p in shared} & {p.title for p in held_out}
    titles = {p.title for p in held_out}
    assert all(howto_chart(random.Random(i), "held-out").title in titles for i in range(20))
    assert all(howto_chart(random.Random(i)).title not in titles for i in range(20))
    write_procedural_set(tmp_path, 6, seed=5, style="howto", held_out=True)
    rows = [json.loads(x) for x in (tmp_path / "questions.jsonl").read_text().splitlines()]
    assert {r["type"] for r in rows} >= {"fact_retrieval", "applied_scenario"}


def test_neighbour_and_person_questions_are_recognised():
    assert classify_question("What should you do after you flush it?") == "flow_referential"
    assert classify_question("What should be done before you sand the edges?") == "flow_referential"
    # fact9's form keeps its reading (that generator labels it with the neighbour alone)
    assert classify_question("What is done after you empty the glass jar?") == "fact_retrieval"
    assert classify_question("Raj is knitting a scarf. He just started the first row. What should Raj do next?") \
        == "applied_scenario"


@needs_semantic
@pytest.mark.parametrize("on", [True, False])
def test_a_neighbour_question_is_grounded_by_the_step_and_its_neighbour(on):
    """"let it relax" names the resting step in other words; the answer restates the next step:
    the anchors alone walk on from the answer (to J), the pair reading takes H and I."""
    r = OfflineReasoner(semantic=True)
    r.flow_neighbour_pairs = on
    out = r(ReasoningRequest(_pasta_chart(), "Once you let it relax, what is the next step?",
                             "Roll out thinly with a pasta machine.")).node_ids
    assert (sorted(out) == ["H", "I"]) is on


def _dye_chart() -> FlowChart:
    return FlowChart.from_edges(
        [("S", "B"), ("B", "C"), ("C", "D"), ("D", "E"), ("E", "F"), ("F", "G"), ("G", "H"), ("H", "G", "Yes"),
         ("H", "I", "No")],
        {"S": "Start", "B": "Wash the new cotton shirt to remove the factory finish",
         "C": "Soak the shirt in soda ash solution for 20 minutes",
         "D": "Twist the damp shirt into a spiral and secure it with three rubber bands",
         "E": "Squeeze the dye onto each section wearing rubber gloves",
         "F": "Seal the shirt in a plastic bag and leave it for 24 hours", "G": "Rinse in cold water until the water runs clear",
         "H": "Is colour still running out of the fabric?", "I": "Wash the shirt alone on a warm cycle and hang it to dry"})


def _car_chart() -> FlowChart:
    return FlowChart.from_edges(
        [("S", "A"), ("A", "B"), ("B", "C", "Yes"), ("B", "D", "No"), ("C", "E"), ("D", "F")],
        {"S": "Start", "A": "Pull over onto flat, firm ground well away from traffic and switch on the hazard lights",
         "B": "Do you have a spare tire and a jack in the trunk?",
         "C": "Apply the parking brake and place a heavy stone behind the opposite wheel",
         "D": "Call your roadside assistance provider and wait inside the car",
         "E": "Loosen the lug nuts half a turn each with the wheel wrench",
         "F": "Let the recovery driver tow the car to the nearest garage"})


@needs_semantic
@pytest.mark.parametrize("on", [True, False])
def test_a_just_done_story_is_grounded_by_that_step_and_the_next(on):
    """"fold the pattern" is nearer the dyeing step than the twisting one: read alone, the
    answer walks one step too far; read with the step just done (the soaking), it is the next."""
    r = OfflineReasoner(semantic=True)
    r.scenario_just_done_pairs = on
    story = "Raj is making a tie-dye t-shirt this weekend. He just soaked the shirt. What should Raj do next?"
    out = r(ReasoningRequest(_dye_chart(), story, "Raj should fold the pattern.")).node_ids
    assert (sorted(out) == ["C", "D"]) is on


def test_just_before_this_is_no_just_done_story():
    from flowpath.reason.offline import _JUST_DONE

    assert _JUST_DONE.search("He just soaked the shirt.")
    assert _JUST_DONE.search("Aisha noted regular costs a moment ago.")
    assert not _JUST_DONE.search("Just before this, Priya managed to interpret matrix 'grid'.")
    assert not _JUST_DONE.search("The jam just runs across the plate.")


@needs_semantic
@pytest.mark.parametrize("threshold", [0.3, None])
def test_a_step_done_before_the_settled_check_told_in_other_words_starts_the_walk(threshold):
    """"moved off the road to a safe, level spot" shares no word with the pull-over step."""
    r = OfflineReasoner(semantic=True)
    r.scenario_done_by_meaning = threshold
    story = ("Marcus is changing a flat car tire at the roadside. He already moved off the road to a safe, level spot. "
             "He finds the spare tire and the jack under the boot floor. What should Marcus do next?")
    out = r(ReasoningRequest(_car_chart(), story, "Apply the parking brake.")).node_ids
    assert (sorted(out) == ["A", "B", "C"]) is (threshold is not None)
