"""How-to scenario walks (thirteenth stretch, issue 15): the story's opening sentence names the
task and settles no check, the step a "what next" story says was just done is a step, and an
answer up a loop is reached round it (real MiniLM; each reasoner case fails with its rule off).
Also the scenario error taxonomy's tags (`eval/scenario_errors.py`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from flowpath.graph import FlowChart
from flowpath.models.base import ReasoningRequest
from flowpath.reason import OfflineReasoner
from flowpath.reason.semantic import semantic_available

needs_semantic = pytest.mark.skipif(not semantic_available(), reason="needs flowpath[semantic]")


def _puppy_chart() -> FlowChart:
    return FlowChart.from_edges(
        [("S", "B"), ("B", "C"), ("C", "D"), ("D", "E", "Yes"), ("D", "I", "No"), ("I", "C"), ("E", "F"), ("F", "G"),
         ("G", "H", "Yes"), ("G", "F", "No")],
        {"S": "Start", "B": "Hold a small treat close to the puppy's nose",
         "C": "Move your hand up slowly so the head follows and the bottom lowers",
         "D": "Does the puppy sit down?", "E": "Say the word 'sit' and give the treat immediately",
         "F": "Practise five times per session two or three times a day",
         "G": "Does the puppy sit on the word alone most of the time?",
         "H": "Start rewarding only every other sit to make the habit stick",
         "I": "Lower your hand, wait a few seconds and try the movement again more slowly"})


def _birdhouse_chart() -> FlowChart:
    return FlowChart.from_edges(
        [("S", "D"), ("D", "E"), ("E", "F", "Yes"), ("E", "K", "No"), ("K", "E"), ("F", "G"), ("G", "H", "Yes"),
         ("G", "I", "No"), ("H", "I"), ("I", "J")],
        {"S": "Start", "D": "Glue and nail the sides to the floor with galvanised nails so they do not rust",
         "E": "Is the box square when you check the diagonals?",
         "F": "Attach the roof panels with a hinge on one side so the box can be cleaned out",
         "G": "Do you want to paint the outside?",
         "H": "Apply a water-based exterior paint to the outside only and let it dry overnight",
         "I": "Hang the birdhouse at least two metres up on a tree facing away from strong winds",
         "J": "End", "K": "Loosen the clamps, push the box square and leave the glue to set for an hour"})


def _jam_chart() -> FlowChart:
    return FlowChart.from_edges(
        [("S", "E"), ("E", "F"), ("F", "G"), ("G", "H", "Yes"), ("G", "K", "No"), ("K", "F"), ("H", "I"), ("I", "J")],
        {"S": "Start", "E": "Bring to a rolling boil and cook for about 8 minutes",
         "F": "Spoon a little onto a cold plate from the freezer to test the set",
         "G": "Does the jam wrinkle when you push it?", "H": "Skim off any foam with a metal spoon",
         "I": "Ladle the jam into the warm jars, seal them and label them with the date", "J": "End",
         "K": "Boil for another two minutes and test again"})


@needs_semantic
@pytest.mark.parametrize("on", [True, False])
def test_the_opening_sentence_names_the_task_and_settles_no_check(on):
    """"training a puppy to sit" restates "Does the puppy sit down?": read as settled, that check
    drops the "just did" pair and the walk starts there; the opening only names the task."""
    r = OfflineReasoner(semantic=True)
    r.scenario_opening_sets_scene = on
    story = ("Nadia is training a puppy to sit this weekend. She just held a small treat close to its nose. "
             "What should Nadia do next?")
    out = r(ReasoningRequest(_puppy_chart(), story, "She should move her hand up slowly.")).node_ids
    assert (sorted(out) == ["B", "C"]) is on


@needs_semantic
def test_a_number_in_the_opening_still_settles_its_check():
    """The rule drops restatements and level words of the opening, not its values."""
    fc = FlowChart.from_edges(
        [("S", "A"), ("A", "B"), ("B", "C", "Yes"), ("B", "D", "No")],
        {"S": "Start", "A": "Measure your temperature with a thermometer",
         "B": "Is your temperature above 38 degrees?", "C": "Take paracetamol at the dose on the packet",
         "D": "Breathe in steam from a bowl of hot water"})
    r = OfflineReasoner(semantic=True)
    story = ("Leo has a temperature of 39.2 degrees this morning. He has set aside the whole day for resting. "
             "What should Leo do?")
    out = r(ReasoningRequest(fc, story, "He should take paracetamol.")).node_ids
    assert "B" in out and "C" in out and "D" not in out


@needs_semantic
@pytest.mark.parametrize("on", [True, False])
def test_the_step_just_done_is_a_step_not_a_check(on):
    """"decorated the outside" lies nearer the check "Do you want to paint the outside?" than the
    painting step; a person does a step, so the pair is (paint, hang)."""
    r = OfflineReasoner(semantic=True)
    r.scenario_done_step_not_check = on
    story = "Ben is making a wooden birdhouse this weekend. He just decorated the outside. What should Ben do next?"
    out = r(ReasoningRequest(_birdhouse_chart(), story, "Ben should hang the birdhouse.")).node_ids
    assert (sorted(out) == ["H", "I"]) is on


@needs_semantic
@pytest.mark.parametrize("on", [True, False])
def test_an_answer_up_a_loop_is_reached_round_the_loop(on):
    """The jam does not set (the check's No branch), and the answer is the plate test the loop
    comes back to: the walk is check -> boil again -> test, not test -> check."""
    r = OfflineReasoner(semantic=True)
    r.scenario_answer_up_loop = on
    story = ("Ivy is making strawberry jam for the first time. When she checks, the jam just runs across the plate. "
             "What should Ivy do now?")
    out = r(ReasoningRequest(_jam_chart(), story, "She should spoon a little onto a cold plate to test the set again.")).node_ids
    assert (sorted(out) == ["F", "G", "K"]) is on


def _taxonomy():
    path = Path(__file__).resolve().parents[2] / "eval" / "scenario_errors.py"
    spec = importlib.util.spec_from_file_location("scenario_errors", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_taxonomy_names_each_cause():
    tax = _taxonomy()
    fc = _birdhouse_chart()
    clauses = {"Is the box square when you check the diagonals?": {"Yes": "both diagonal measurements come out the same"}}
    walk = ["D", "E", "F"]

    def tags(pred: list[str], end: str = "F") -> list[str]:
        return tax.tags_of(fc, {"gold": walk, "pred": pred, "reason": f"answer node {end}"}, clauses, walk)

    assert tags(["D", "E"], "E") == ["stops_short"]
    assert tags(["D", "E", "F", "G", "I"], "I") == ["runs_past", "wrong_check"]
    assert tags(["D", "E", "K"], "K") == ["wrong_end"]
    assert tags(["E", "F"]) == ["missed_done_step"]
    assert tags(["D", "F"]) == ["missed_check:shares_words"]
    assert tags(["D", "E", "F", "K"]) == ["branch_misread"]
    # the answer up a loop: "through_loop" says so, and joining it the wrong way round misses a node
    loop = ["G", "K", "F"]
    jam = _jam_chart()
    assert tax.tags_of(jam, {"gold": loop, "pred": ["F", "G"], "reason": "answer node F"}, {}, loop) \
        == ["through_loop", "missed_middle"]
    assert tax.settling_form("Is the soil pH below 6?", "the reading comes out at a neutral 7") == "number"
    assert tax.settling_form("Does the tap still drip?", "the spout stays completely dry") == "outcome"
    assert tax.settling_form("Is the sink still blocked?", "the water does not move") == "negation"


def test_an_age_or_a_time_after_just_is_no_step_done():
    from flowpath.reason.offline import _JUST_DONE

    assert _JUST_DONE.search("She just joined the boards.")
    assert not _JUST_DONE.search("It turns out Emma has just turned 4.")
    assert not _JUST_DONE.search("Luckily, the parcel arrived just last week.")
