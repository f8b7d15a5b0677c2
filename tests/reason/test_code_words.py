"""Program charts worded the way an LLM words code (twelfth stretch, codeword12): checks in an
LLM's words read as code (`branches.llm_worded_as_code`), a program's names said in words ("the
tunnel host" for ``self._tunnel_host``), stories that list a sequence's items or say an
exception occurs, and steps named by a paraphrase of their action ("add one to" = "goes up by
one", `branches.step_named_in_words`); and the generator's worded charts (`--style codeword`)."""

from __future__ import annotations

import random

import pytest

from flowpath.graph import FlowChart
from flowpath.mermaid import parse_mermaid
from flowpath.models.base import ReasoningRequest
from flowpath.reason import OfflineReasoner
from flowpath.reason.branches import code_branch, llm_worded_as_code, step_named_in_words
from flowpath.reason.kinds import is_program_chart


@pytest.mark.parametrize("check, statement, branch", [
    ("Is the length of payload greater than the max payload len?",
     "Say the length of payload is 9 and self._max_payload_len is 4.", "yes"),
    ("Does the length of args equal 3?", "This time args holds 15, 19 and 10.", "yes"),
    ("Does the length of args equal 3?", "This time args holds only one item.", "no"),
    ("Does tb have no value?", "Say tb is None.", "yes"),
    ("Is it true that '01' does not contain dig?", "Say dig is in '01'.", "no"),
    ("Does obj have the attribute '__func__'?", "This time obj has the attribute '__func__'.", "yes"),
    ("Does data end with b'\\n'?", "Suppose data does not end with b'\\n'.", "no"),
    ("Is value an instance of list?", "Say value is of type list.", "yes"),
    ("Is the backup count above 0?", "Suppose the input self.backupCount is -2.", "no"),
    ("Did a KeyError occur?", "Suppose a KeyError occurs.", "yes"),
    ("KeyError raised?", "This time no KeyError occurs.", "no"),
    ("Loop through each (scale, unit) in scales", "Assume the loop through scales is finished.", "no"),
    ("Are there more items in ld_headers?", "This time the ld headers still has items left.", "yes"),
])
def test_checks_in_an_llms_words_are_settled_by_the_story(check, statement, branch):
    assert code_branch(check, statement, program=True) == branch


def test_checks_in_words_about_plain_things_stay_checks_in_words():
    for check in ("Is the score above 600", "Does the list contain eggs", "Is the glue dry"):
        assert llm_worded_as_code(check) is None
    # on a program chart a lower-case name is a variable
    assert llm_worded_as_code("Is start smaller than end", loose=True) == "start < end"
    assert llm_worded_as_code("Is start smaller than end") is None


def test_a_cardinal_word_is_a_value_in_a_check_and_once_or_twice_is_not():
    # one number table (`text.NUMBER_WORDS`); a check compares with its cardinals
    assert llm_worded_as_code("Is the length of payload greater than five") == "len(payload) > 5"
    assert llm_worded_as_code("Is obj.count at most zero") == "obj.count <= 0"
    assert llm_worded_as_code("Is len(x) above twice") == "len(x) > twice"


def test_a_program_chart_holds_code_outside_quotes():
    code = FlowChart.from_edges([("A", "B"), ("B", "C")], {"A": "Start", "B": "total = 0", "C": "Return data[n // 2]"})
    words = FlowChart.from_edges([("A", "B"), ("B", "C")], {"A": "Start", "B": "Write file 'log.txt'",
                                                            "C": "Split field 'self.name'"})
    assert is_program_chart(code) and not is_program_chart(words)


@pytest.mark.parametrize("text, statement", [
    ("Add one to the count", "What happens right after count goes up by one?"),
    ("Increment i by 1", "Once one is added to i, what is checked next?"),
    ("Call getattr and store the result in prepare", "What happens after prepare is computed as the result of getattr?"),
    ("Append n.id to a", "What happens right after n.id is appended to a?"),
])
def test_a_step_is_named_by_a_paraphrase_of_its_action(text, statement):
    assert step_named_in_words(text, statement) > 0


def test_a_step_doing_something_else_on_the_same_name_is_not_named():
    assert step_named_in_words("Set the count to 0", "What happens right after count goes up by one?") == 0


# a loop worded by an LLM with some code in it (a program chart): the step the question
# paraphrases, then the check after it
WORDED = """flowchart TD
    A(["Start the count items function"])
    B["count = 0"]
    C{"Are there more items in items?"}
    D{"Is item.value None?"}
    E["Add one to the count"]
    F["Return count"]
    G(["End"])
    A --> B
    B --> C
    C -->|"Yes"| D
    D -->|"No"| E
    D -->|"Yes"| C
    E --> C
    C -->|"No"| F
    F --> G
"""


def test_a_flow_question_about_a_paraphrased_step_is_answered_by_it_and_its_neighbour():
    chart = parse_mermaid(WORDED)
    got = OfflineReasoner(semantic=False)(ReasoningRequest(
        chart, "Once the count goes up by one, which condition is tested?", "Whether there are more items.")).node_ids
    assert sorted(got) == ["C", "E"]


def test_worded_program_charts_mix_words_and_code_and_hold_out_test_functions():
    from data_gen.code_qa import held_out_function, make_real_code_questions, real_program

    rng = random.Random(5)
    texts = []
    for i in range(12):
        p = real_program(rng, worded=True, held_out=i % 2 == 0)
        assert held_out_function(p.source) == (i % 2 == 0)
        texts += [n.text for n in p.chart if n.kind not in ("start", "end")]
        for q in make_real_code_questions(p, f"w{i}", rng):
            assert set(q["gold"]) <= set(p.chart.nodes)
    worded = [t for t in texts if " " in t and "=" not in t and "(" not in t]
    assert 0.4 * len(texts) < len(worded) < len(texts)


def test_code_words_off_reads_code_as_before():
    from flowpath.reason.branches import READ_LLM_WORDS

    token = READ_LLM_WORDS.set(False)
    try:
        assert code_branch("Did a KeyError occur?", "Suppose a KeyError occurs.", program=True) is None
        assert code_branch("Does the length of args equal 3?", "This time args holds 15, 19 and 10.", program=True) is None
    finally:
        READ_LLM_WORDS.reset(token)
    reasoner = OfflineReasoner(semantic=False)
    reasoner.code_words = False
    got = reasoner(ReasoningRequest(parse_mermaid(WORDED), "Once the count goes up by one, which condition is tested?",
                                    "Whether there are more items.")).node_ids
    assert sorted(got) != ["C", "E"]
