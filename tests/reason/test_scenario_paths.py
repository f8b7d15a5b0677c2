"""Scenario paths told in everyday words (issue 15 item 2): which checks a story settles, the
branch taken at each, and the walk from the first settled check to the answer. Each chart is
built so that the rule under test decides the answer; lexical matching only, so the results do
not depend on the embedding model."""

from __future__ import annotations

import pytest

from flowpath.graph import FlowChart
from flowpath.models.base import ReasoningRequest
from flowpath.reason import OfflineReasoner, classify_question
from flowpath.reason.branches import states_quantity, threshold
from tests.reason.test_offline import loan_chart


def _ask(chart: FlowChart, question: str, answer: str) -> list[str]:
    return OfflineReasoner(semantic=False)(ReasoningRequest(chart, question, answer)).node_ids


@pytest.fixture(scope="module")
def loan() -> FlowChart:
    """Issue 15's loan chart with a numeric income check written as charts write money."""
    return loan_chart("Is the monthly income at least $3,000?")


@pytest.mark.parametrize("story,expected", [
    # the failure: a story that names the quantities by part of their names settles both
    # checks, so the walk is credit check -> income check -> reject, not "Reject" alone
    ("Ana, a nurse, wants a loan for a new car. The score comes back at 720. She earns $2,450 a month. "
     "What happens to her application?", ["C", "I", "R"]),
    ("Ana, a nurse, wants a loan for a new car. The score comes back at 720. She earns $3,250 a month. "
     "What happens to her application?", ["C", "I", "P"]),
])
def test_a_story_naming_quantities_loosely_walks_every_check_it_settles(loan, story, expected):
    answer = "Reject the application." if expected[-1] == "R" else "Approve the loan."
    assert classify_question(story) == "applied_scenario"
    assert _ask(loan, story, answer) == expected


def test_a_quantity_named_by_part_of_its_name_is_stated():
    assert states_quantity("Is the buffer size no more than 180?", "The buffer holds 206 bytes.")
    assert states_quantity("Is the retry count >= 10?", "Kevin sees 151 retries logged.")
    assert not states_quantity("Is the buffer size no more than 180?", "Kevin has 3 kids at home.")
    assert threshold("Is the monthly income at least $3,000?")[2] == 3000.0


def test_a_persona_with_a_role_opens_a_story():
    """FlowVQA's persona stories name the person with a role ("Liam, a retired carpenter, is");
    a short one was read as a fact or flow question."""
    q = "Liam, a retired carpenter, is working through this process. The soil feels damp. What is Liam's next step?"
    assert classify_question(q) == "applied_scenario"


def test_what_next_is_the_nearest_step_after_the_settled_check_that_states_the_answer():
    """Two steps after the settled check handle the olive oil; the answer's verb ("take off") is
    neither's word. "What next" asks for the next one, not the one that happens to share a
    slightly larger part of its words."""
    fc = FlowChart.from_edges(
        [("S", "B"), ("B", "C"), ("C", "D", "Yes"), ("C", "X", "No"), ("D", "E"), ("E", "F"), ("F", "G"),
         ("X", "G")],
        {"S": "Start", "B": "Measure the glass jar", "C": "Is the oven temperature above 180?",
         "D": "Remove the olive oil from the shelf", "E": "Pour the glass jar", "F": "Wipe the olive oil",
         "X": "Heat the copper pipe", "G": "End"})
    story = ("Chen, a retired carpenter, is working through this process. It turns out the oven thermometer "
             "shows 200. What should Chen do next?")
    assert _ask(fc, story, "Take off the olive oil.") == ["C", "D"]


def test_a_choice_names_a_branch_step_and_the_step_done_before_it_joins_the_walk():
    """"Liam decides to blend the metal bracket": of the two steps on the metal bracket, the one a
    labelled branch leads to is the choice ("End", inside "blend", is none), which settles its
    check; the step the story says was done before that sentence, named by one word, starts the
    walk (docs/reasoning.md, "Gold conventions")."""
    fc = FlowChart.from_edges(
        [("S", "B"), ("B", "C"), ("C", "D", "Yes"), ("C", "F", "No"), ("D", "E"), ("E", "F"), ("F", "G")],
        {"S": "Start", "B": "Rinse the olive oil", "C": "Is the soil pH less than 10?",
         "D": "Mix the metal bracket", "E": "Pour the metal bracket", "F": "Sand the wooden board",
         "G": "End"})
    story = ("Liam, a weekend hobbyist, is working through this process. Liam has already taken care of the "
             "oil. Liam decides to blend the metal bracket. What is Liam's next step?")
    assert _ask(fc, story, "Pour the metal bracket.") == ["B", "C", "D", "E"]
