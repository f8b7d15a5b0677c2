"""Scenario readings that need the sentence encoder (ninth stretch, issue 15 item 2): a
quantity a story gives with none of its words, and an answer whose reworded verb shares no word
with its step. Real MiniLM (the semantic extra); each case fails without the rule."""

from __future__ import annotations

import pytest

from flowpath.graph import FlowChart
from flowpath.models.base import ReasoningRequest
from flowpath.reason import OfflineReasoner
from flowpath.reason.semantic import semantic_available

pytestmark = pytest.mark.skipif(not semantic_available(), reason="needs flowpath[semantic]")


@pytest.fixture(scope="module")
def reasoner() -> OfflineReasoner:
    return OfflineReasoner(semantic=True)


def _age_chart() -> FlowChart:
    return FlowChart.from_edges(
        [("S", "A"), ("A", "G"), ("G", "X", "Yes"), ("G", "C", "No"), ("X", "E"), ("C", "P", "Yes"),
         ("C", "R", "No"), ("P", "E"), ("R", "E")],
        {"S": "Start", "A": "Receive the loan application", "G": "Is the applicant's age below 18?",
         "X": "Ask a parent to co-sign", "C": "Is the credit score above 600?", "P": "Approve the loan",
         "R": "Reject the application", "E": "End"})


@pytest.mark.parametrize("age,expected", [("19", ["G", "C", "P"]), ("16", ["G", "X"])])
def test_an_age_told_without_its_words_settles_the_age_check(reasoner, age, expected):
    """"has just turned 19" names no word of "the applicant's age"; the distractor "9 o'clock"
    settles nothing."""
    story = (f"Ana, a nurse, wants a loan for a new car. It is 9 o'clock and the bank is quiet. "
             f"Ana has just turned {age}. Her credit score is 720. What happens to her application?")
    answer = "The loan is approved." if expected[-1] == "P" else "A parent has to co-sign."
    out = reasoner(ReasoningRequest(_age_chart(), story, answer)).node_ids
    assert sorted(out) == sorted(expected)


def test_a_reworded_answer_verb_picks_the_step_it_means_among_steps_sharing_the_object(reasoner):
    """After the settled check two steps handle the rubber seal; "put on" shares no word with
    "Apply", and the nearer step ("Paint") is not the one meant."""
    fc = FlowChart.from_edges(
        [("S", "B"), ("B", "C"), ("C", "D", "Yes"), ("C", "X", "No"), ("D", "F"), ("F", "E"), ("X", "E")],
        {"S": "Start", "B": "Clean the window frame", "C": "Is the glue dry?", "D": "Paint the rubber seal",
         "F": "Apply the rubber seal", "X": "Wait for the glue", "E": "End"})
    story = ("Omar, a weekend hobbyist, is fixing a window. Omar has cleaned the window frame already. "
             "The glue is dry now. What should Omar do next?")
    out = reasoner(ReasoningRequest(fc, story, "Omar should put on the rubber seal.")).node_ids
    # the step done before, the check, and the walk on to the step meant (not stopping at "Paint")
    assert set(out) == {"B", "C", "D", "F"}
