"""The clause that opens a question by placing it after or before another step ("Once you X,
...") has one reading (`offline._LEADING_PLACE`) for fact questions, their answers and flow
questions about a neighbour: the same words, the same step, a dot inside a name included."""

from __future__ import annotations

from flowpath.reason.offline import _LEADING_PLACE, _answer_core, _question_core, _setting_clause


def test_the_leading_clause_names_its_word_who_and_the_step():
    m = _LEADING_PLACE.match("Once you have escalated the complaint, what is the next step?")
    assert m is not None
    assert (m.group("word"), m.group("who"), m.group("step")) == ("Once", "you", "escalated the complaint")
    m = _LEADING_PLACE.match("Having sanded the edges, what do you paint?")
    assert m is not None and m.group("who") is None and m.group("step") == "sanded the edges"


def test_a_dot_inside_a_name_does_not_end_the_clause_a_sentence_end_does():
    # flow questions read code steps this way already; fact questions and answers now do too
    q = "Once you load file 'log.txt', how long may it take?"
    assert _setting_clause(q) == ("Once", "you load file 'log.txt'")
    assert _question_core(q) == "how long may it take?"
    assert _answer_core("After you order field 'self.name', with a hash map.") == "with a hash map."
    assert _LEADING_PLACE.match("After you rinse the jar. Then, what?") is None
    # the closing clause keeps its reading
    assert _setting_clause("What do you do just before you heat the oil?") == ("before", "you heat the oil")
