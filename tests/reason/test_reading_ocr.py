"""The reasoner reads a transcribed chart as the transcriber read it: OCR's faithful readings of
what a renderer drew, and its slips, must not change which walk a statement takes."""

from __future__ import annotations

import pytest

from flowpath.graph import FlowChart
from flowpath.models.base import ReasoningRequest
from flowpath.reason import OfflineReasoner
from flowpath.reason.kinds import read_entities, split_merged_loops, turn_reversed_connectors


def _garden(check: str) -> FlowChart:
    return FlowChart.from_edges(
        [("S", "P"), ("P", "D"), ("D", "L", "Yes"), ("D", "C", "No"), ("L", "E"), ("C", "E")],
        {"S": "Start", "P": "Test the soil", "D": check, "L": "Spread lime on the beds",
         "C": "Spread compost on the beds", "E": "End"})


@pytest.mark.parametrize("check", ["Is the soil pH < 6?", "Is the soil pH &lt; 6?"])
def test_a_check_read_with_an_html_entity_is_settled_by_the_storys_number(check):
    # Mermaid without HTML labels draws "<" as the text "&lt;", and OCR reads what is drawn:
    # the story's pH of 8 still settles the check on its "No" branch
    story = ("Mia is getting her vegetable garden ready for spring. She has tested the soil, and it "
             "reads a pH of 8. What should Mia do next?")
    res = OfflineReasoner(semantic=False)(ReasoningRequest(_garden(check), story, "Spread it on the beds."))
    assert res.node_ids == ["P", "D", "C"], res.reason


def test_read_entities_decodes_texts_and_labels_and_keeps_a_clean_chart():
    clean = _garden("Is the soil pH < 6?")
    assert read_entities(clean) is clean
    read = FlowChart.from_edges([("D", "A", "x &gt; 3"), ("D", "B", "No")], {"D": "Is x &amp; y &lt;= 3?"})
    decoded = read_entities(read)
    assert decoded.nodes["D"].text == "Is x & y <= 3?"
    assert [e.label for e in decoded.edges] == ["x > 3", "No"]
    assert read.nodes["D"].text == "Is x &amp; y &lt;= 3?"  # the reasoner's input is left as it was


def test_connectors_read_backwards_are_walked_the_right_way():
    # arrowheads read at the wrong end (the wild Mermaid look's step curves): the two steps
    # before the check seem to follow it, so the story's walk lost the step done before it
    read = FlowChart.from_edges(
        [("S", "P"), ("Q", "P"), ("D", "Q"), ("D", "L", "Yes"), ("D", "C", "No"), ("L", "E"), ("C", "E")],
        {"S": "Start", "P": "Test the soil", "Q": "Water the soil", "D": "Is the soil pH < 6?",
         "L": "Spread lime on the beds", "C": "Spread compost on the beds", "E": "End"})
    story = ("Mia is getting her vegetable garden ready for spring. She has watered the soil, and it "
             "reads a pH of 8. What should Mia do next?")
    res = OfflineReasoner(semantic=False)(ReasoningRequest(read, story, "Spread it on the beds."))
    assert res.node_ids == ["Q", "D", "C"], res.reason


def test_turn_reversed_connectors_turns_only_a_plain_edge_from_a_cut_start_to_a_cut_end():
    whole = _garden("Is the soil pH < 6?")
    assert turn_reversed_connectors(whole) is whole
    # a run of two read backwards: turned one after the other
    run = FlowChart.from_edges([("S", "A"), ("B", "A"), ("C", "B"), ("C", "E")],
                               {"S": "Start", "A": "Cut it", "B": "Sand it", "C": "Paint it", "E": "End"})
    assert {(e.source, e.target) for e in turn_reversed_connectors(run).edges} == {
        ("S", "A"), ("A", "B"), ("B", "C"), ("C", "E")}
    # a check's labelled loop back whose forward twin was lost is not turned (it is mended)
    loop = FlowChart.from_edges([("S", "A"), ("D", "A", "No"), ("D", "E", "Yes")],
                                {"S": "Start", "A": "Sand it", "D": "Is it smooth?", "E": "End"})
    assert turn_reversed_connectors(loop) is loop


def test_a_checks_loop_back_merged_into_its_forward_connector_is_split_out():
    # a check looping back to the step above it draws two connectors between the pair; read as
    # one, the step's way into the check carried the loop's "No" and the check had no "No" branch
    read = FlowChart.from_edges(
        [("S", "A"), ("A", "B"), ("B", "D", "No"), ("D", "C", "Yes"), ("C", "E")],
        {"S": "Start", "A": "Cut the pine board", "B": "Sand the board", "D": "Is the board smooth?",
         "C": "Paint the board", "E": "End"})
    mended = split_merged_loops(read)
    assert {(e.source, e.target, e.label) for e in mended.edges} == {
        ("S", "A", None), ("A", "B", None), ("B", "D", None), ("D", "B", "No"), ("D", "C", "Yes"), ("C", "E", None)}
    assert split_merged_loops(mended) is mended  # a whole chart is left as it is
    story = ("Tom is building a shelf for his daughter. He has just sanded the board, but it is still not "
             "smooth. What should Tom do now?")
    res = OfflineReasoner(semantic=False)(ReasoningRequest(read, story, "Sand the board again."))
    assert sorted(res.node_ids) == ["B", "D"], res.reason  # as on the whole chart


def _garden_read(yes: str | None, no: str | None) -> FlowChart:
    return FlowChart.from_edges(
        [("S", "P"), ("P", "D"), ("D", "L", yes), ("D", "C", no), ("L", "W"), ("C", "M"), ("M", "W"), ("W", "E")],
        {"S": "Start", "P": "Test the soil", "D": "Is the soil pH < 6?", "L": "Spread lime on the beds",
         "C": "Spread compost on the beds", "M": "Mulch the beds", "W": "Water the garden", "E": "End"})


@pytest.mark.parametrize("yes,no", [
    (None, None),          # neither label read: the branch taken is the one way on to the answer
    ("r vas, i", None),    # a connector's fragments read as a label are no reading either
    ("Yes", "an an"),      # one branch read: the slip on the other is the other branch
])
def test_a_settled_check_whose_branch_labels_were_not_read_stays_on_the_walk(yes, no):
    story = ("Mia is getting her vegetable garden ready for spring. The soil reads a pH of 8, so no "
             "lime for her. What should Mia do next?")
    res = OfflineReasoner(semantic=False)(ReasoningRequest(_garden_read(yes, no), story, "Mulch the beds."))
    assert res.node_ids == ["D", "C", "M"], res.reason
