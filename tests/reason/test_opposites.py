"""Checks a story settles by an opposite, a negation, a level word or a comparison word (issue
15, tenth stretch): `branches.read_check` and the scenario walk built on it. Lexical matching
only, so the results do not depend on the embedding model."""

from __future__ import annotations

import pytest

from flowpath.graph import FlowChart
from flowpath.models.base import ReasoningRequest
from flowpath.reason import OfflineReasoner, classify_question
from flowpath.reason.branches import branch_taken, opposes, read_check
from flowpath.reason.text import stem
from tests.reason.test_offline import loan_chart


@pytest.mark.parametrize("decision,statement,branch", [
    # an opposite word, and an opposite under a negation
    ("Does the file exist?", "It turns out the file is missing.", "no"),
    ("Is the glue dry?", "The glue is still damp.", "no"),
    ("Is the glue dry?", "The glue is no longer wet.", "yes"),
    ("Did the part pass inspection?", "The part failed inspection.", "no"),
    ("Did the part pass inspection?", "The part did not fail inspection.", "yes"),
    ("Was the request approved?", "The request was turned down.", "no"),
    ("Is the light on?", "The light is off.", "no"),
    # a negative prefix, and a one-word check settled by its opposite alone
    ("Is the token valid?", "The token is invalid.", "no"),
    ("Is the form signed?", "The form is unsigned.", "no"),
    ("Adult?", "He is under age.", "no"),
    ("Adult?", "The applicant is not a minor.", "yes"),
    # a word the check says itself negates nothing
    ("Is 'max_val' None?", "It turns out max_val is None.", "yes"),
    # a level word for the quantity, negated or not
    ("Is the credit score above 600?", "Her score is low.", "no"),
    ("Is the oven temperature above 200?", "The oven isn't hot yet.", "no"),
    ("Is the applicant's age below 18?", "Mia is still too young.", "yes"),
    ("Is the wait time at most 15?", "The wait is long.", "no"),
    # a number with a comparison word, on either side of the threshold
    ("Is the monthly income at least $2,500?", "Ana earns more than $3,000 a month.", "yes"),
    ("Is the monthly income at least $2,500?", "Ana earns less than $2,000 a month.", "no"),
    ("Is the credit score above 600?", "Her score is not above 600.", "no"),
    ("Is the applicant's age below 18?", "The applicant is under 16.", "yes"),
    ("Is the credit score above 600?", "It is 9 o'clock. Her score is over 650.", "yes"),
])
def test_a_check_settled_in_other_words_takes_the_branch_it_says(decision, statement, branch):
    read = read_check(decision, statement)
    assert read is not None and read[0] == branch


@pytest.mark.parametrize("decision,statement", [
    # an opposite of the check's word about something else, with none of the check's subject
    ("Is the venue available?", "Mia, a busy parent, is helping a friend."),
    # "it turns out" is no opposite of anything
    ("Is 'x' in 'seen'?", "It turns out the list is long."),
    # a bound on the far side of the threshold says nothing about it
    ("Is the monthly income at least $2,500?", "Ana earns more than $2,000 a month."),
    # a word that merely starts like a negative prefix
    ("Is the form signed?", "Emma informs the office."),
])
def test_a_statement_that_does_not_settle_the_check_reads_nothing(decision, statement):
    assert read_check(decision, statement) is None


def test_opposites_come_from_the_table_and_negative_prefixes():
    assert opposes(stem("missing"), stem("exists")) and opposes(stem("approved"), stem("rejected"))
    assert opposes(stem("unavailable"), stem("available")) and opposes(stem("incomplete"), stem("complete"))
    assert not opposes(stem("informs"), stem("form")) and not opposes(stem("under"), stem("der"))


def test_branch_taken_keeps_its_reading():
    """The fact path's reader is unchanged: it reads an opposite as a plain restatement."""
    assert branch_taken("Does the file exist?", "It turns out the file is missing.") == "yes"


@pytest.mark.parametrize("story,answer,expected", [
    # issue 15's loan chart, the credit check settled by a level word: "low" takes its "no"
    # branch straight to reject (read as a restatement it would walk through the income check)
    ("Ana, a nurse, wants a loan for a new car. Her credit score is low. Her income is verified by the "
     "bank. What happens to her application?", "It is rejected.", ["C", "R"]),
    # a bound above the threshold and the income check settled by its opposite
    ("Ana, a nurse, wants a loan for a new car. Her credit score is well over 700. Her employer confirms "
     "that her income is unverified. What happens to her application?", "It is rejected.", ["C", "I", "R"]),
    # the credit check settled by a comparison word below the threshold
    ("Ben, a carpenter, wants a loan for a new boat. His credit score is under 500. His income is verified "
     "by the bank. What happens to his application?", "It is rejected.", ["C", "R"]),
])
def test_a_story_settling_checks_by_opposites_walks_them(story, answer, expected):
    chart = loan_chart("Is the income verified?")
    assert classify_question(story) == "applied_scenario"
    assert OfflineReasoner(semantic=False)(ReasoningRequest(chart, story, answer)).node_ids == expected


def test_every_settled_check_on_a_long_walk_is_joined():
    """A walk longer than the reasoner's gap between anchors: the checks the story settles on the
    way are anchors, so the walk is whole from the first one to the answer."""
    edges = [("S", "C1", None), ("C1", "A", "Yes"), ("C1", "X", "No"), ("A", "B", None), ("B", "C", None),
             ("C", "C2", None), ("C2", "D", "No"), ("C2", "X", "Yes"), ("D", "E", None), ("E", "F", None),
             ("F", "G", None), ("X", "G", None)]
    texts = {"S": "Start", "C1": "Does the file exist?", "A": "Open the log file", "B": "Parse the header",
             "C": "Count the rows", "C2": "Is the cache disabled?", "D": "Warm the cache", "E": "Index the rows",
             "F": "Write the summary", "X": "Report an error", "G": "Send the report"}
    chart = FlowChart.from_edges([(a, b, c) if c else (a, b) for a, b, c in edges], texts)
    story = ("Kim, a developer, is tracing the job by hand. The file is not missing. The cache is enabled. "
             "What does Kim end up doing?")
    got = OfflineReasoner(semantic=False)(ReasoningRequest(chart, story, "Write the summary.")).node_ids
    assert got == ["C1", "A", "B", "C", "C2", "D", "E", "F"]
