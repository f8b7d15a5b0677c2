"""The offline reasoner's fact path: the node that states the fact, and a decision only when the
statement takes its branch (issue 15 item 3; docs/reasoning.md, fact questions, ninth stretch)."""

from __future__ import annotations

import pytest

from flowpath.graph import FlowChart
from flowpath.models.base import ReasoningRequest
from flowpath.reason import OfflineReasoner, classify_question
from flowpath.reason.semantic import semantic_available


@pytest.fixture(scope="module")
def chart() -> FlowChart:
    return FlowChart.from_edges(
        [("A", "B"), ("B", "C"), ("C", "D"), ("D", "E", "Yes"), ("D", "F", "No"), ("E", "G"), ("F", "G"),
         ("G", "H"), ("H", "I", "Yes"), ("H", "J", "No"), ("I", "K"), ("J", "K"), ("K", "L"),
         ("L", "M", "Yes"), ("L", "N", "No"), ("M", "O"), ("N", "O")],
        {"A": "Start", "B": "Rinse the glass jar with warm water", "C": "Seal the glass jar using a soft brush",
         "D": "Is the wait time at most 5?", "E": "Research the rental deposit through the online portal",
         "F": "Plan the credit report", "G": "Prepare the tenant lease", "H": "Is the credit score above 600?",
         "I": "Document the credit report by email", "J": "Review the credit report", "K": "Visit the local council",
         "L": "Is the venue available?", "M": "Book the wedding venue", "N": "Contact the local council",
         "O": "End"})


def _ask(chart: FlowChart, question: str, answer: str) -> list[str]:
    assert classify_question(question, answer) == "fact_retrieval"
    return sorted(OfflineReasoner(semantic=False)(ReasoningRequest(chart, question, answer)).node_ids)


@pytest.mark.parametrize("question,answer,expected", [
    # "when it is time to ..." names the step, not the check that shares "time" with it
    ("When it is time to research the rental deposit, where do you do it?", "Through the online portal.", ["E"]),
    # the leading clause of the answer sets the scene; the fact is the rest
    ("Which tool is used to seal it?", "After you rinse the glass jar with warm water, a soft brush.", ["C"]),
    # a check's own answer: the step after it shares "venue" but is not asked about
    ("Which question is asked about the venue?", "It checks whether the venue is available.", ["L"]),
])
def test_fact_adds_no_node_the_statement_does_not_need(chart, question, answer, expected):
    assert _ask(chart, question, answer) == expected


@pytest.mark.parametrize("question,answer,expected", [
    # a conditional clause that restates the check: the check and the step on its branch
    ("What should be done if the venue is not available?", "Contact the local council.", ["L", "N"]),
    # a number for the check's quantity settles it; among steps sharing the object, the one on
    # the branch taken
    ("What happens when the score comes back at 703?", "Write down the credit report.", ["H", "I"]),
])
def test_fact_keeps_the_decision_whose_branch_the_statement_takes(chart, question, answer, expected):
    assert _ask(chart, question, answer) == expected


@pytest.fixture(scope="module")
def shared_words() -> FlowChart:
    """Steps that share their object, a step that says it tests what the check after it asks,
    and a step naming the one after it (tenth stretch, `data_gen.qa --style facthard`)."""
    return FlowChart.from_edges(
        [("A", "B"), ("B", "C"), ("C", "D"), ("D", "E", "Yes"), ("D", "F", "No"), ("E", "G"), ("F", "G"),
         ("G", "M"), ("M", "H"), ("H", "I", "Yes"), ("H", "J", "No"), ("I", "K"), ("J", "K"), ("K", "L")],
        {"A": "Start", "B": "Stir the tomato sauce with 100 ml of warm water",
         "C": "Press the glue layer to see whether the glue is dry", "D": "Is the glue dry?",
         "E": "Press the wooden board flat", "F": "Heat the glue layer",
         "G": "Stir the tomato sauce with 500 ml of warm water", "M": "Pull the credit report and note the credit score",
         "H": "Is the credit score above 600?", "I": "Document the credit report by email",
         "J": "Review the credit report", "K": "Rinse the glass jar, then seal the glass jar", "L": "End"})


@pytest.mark.parametrize("question,answer,expected", [
    # an embedded question or a goal asks about the check; it does not settle it (the step on
    # its yes branch, which shares the answer's verb, is not the answer, nor is the check)
    ("How do you find out whether the glue is dry?", "You press it.", ["C"]),
    ("What do you do to make sure the glue is dry?", "Press it firmly.", ["C"]),
    # the answer's closing clause names the step before, not the answer
    ("How much water is the tomato sauce stirred with?", "500 ml, right after you heat the glue layer.", ["G"]),
    ("How much warm water goes in?", "500 ml, right after you heat the glue layer.", ["G"]),
])
def test_fact_reads_what_is_asked_apart_from_what_is_stated(shared_words, question, answer, expected):
    assert _ask(shared_words, question, answer) == expected


@pytest.mark.skipif(not semantic_available(), reason="needs flowpath[semantic]")
@pytest.mark.parametrize("question,answer", [
    ("Which step is done with 500 ml of warm water?", "whisk the olive oil."),
    ("What do you do with 500 ml of warm water?", "You whisk the olive oil."),
])
def test_fact_ties_go_to_the_step_holding_the_question_words(question, answer):
    """Steps on one object, told apart only by a detail the question quotes: the embedding finds
    "100 ml of warm water" about as close as "500 ml of warm water"; the words decide (real
    MiniLM)."""
    chart = FlowChart.from_edges(
        [("A", "B"), ("B", "C"), ("C", "D"), ("D", "E"), ("E", "F"), ("F", "G")],
        {"A": "Start", "B": "Cut the olive oil", "C": "Mix the olive oil with 100 ml of warm water",
         "D": "Heat the olive oil until it is smooth", "E": "Stir the olive oil with 500 ml of warm water",
         "F": "Heat the olive oil using a soft brush", "G": "End"})
    assert OfflineReasoner(semantic=True)(ReasoningRequest(chart, question, answer)).node_ids == ["E"]
