"""Program charts read as code (eleventh stretch): checks written as code settled by the values
a statement gives (`branches.code_branch`), steps named as code is read aloud
(`branches.code_step_named`), and the reasoner's code rules on a chart drawn from a real
function."""

from __future__ import annotations

import pytest

from flowpath.mermaid import parse_mermaid
from flowpath.models.base import ReasoningRequest
from flowpath.reason import OfflineReasoner, classify_question
from flowpath.reason.branches import code_branch, code_condition, code_step_named

# getrandbits-like function as a person draws it: an early raise, two assignments, a return
CHART = """flowchart TD
    A(["Start"])
    B[/"Read k"/]
    C{"k < 0?"}
    D["Raise ValueError"]
    E(["End"])
    F["numbytes = (k + 7) // 8"]
    G["x = int.from_bytes(_urandom(numbytes))"]
    H("Return x >> numbytes * 8 - k")
    A --> B
    B --> C
    C -->|"Yes"| D
    C -->|"No"| F
    F --> G
    G --> H
    D --> E
    H --> E
"""

# a while loop whose test is a negated variable: "caps is not empty" must read as the No branch
LOOP = """flowchart TD
    A(["Start"])
    B[/"Input caps"/]
    C["count = 0"]
    D{"not caps?"}
    E["Print count"]
    F(["End"])
    G["caps = caps[1:]"]
    H["count += 1"]
    A --> B
    B --> C
    C --> D
    D -->|"Yes"| E
    E --> F
    D -->|"No"| G
    G --> H
    H --> D
"""


@pytest.mark.parametrize(("check", "statement", "branch"), [
    ("k < 0?", "This time k comes out as 4.", "no"),
    ("Is k < 0?", "What happens if k is negative?", "yes"),
    ("not caps?", "Here caps is not empty.", "no"),
    ("Is ei?", "Here ei is empty.", "no"),
    ("rmode is None?", "Then rmode is None.", "yes"),
    ("uid is not None?", "Here uid has a value.", "yes"),
    ("x % 2 == 0?", "This time x is 7.", "no"),
    ("data == TRUE[1:]?", "Here data equals TRUE[1:].", "yes"),
    ("self.pos < len(self.field)?", "Then self.pos is less than len(self.field).", "yes"),
    ("use_poll and hasattr(select, 'poll')?", "Here use_poll and hasattr(select, 'poll') is true.", "yes"),
    ("a or b?", "a is 0 and b is 3.", "yes"),
])
def test_code_checks_are_settled_by_the_values_a_statement_gives(check, statement, branch):
    assert code_branch(check, statement) == branch


@pytest.mark.parametrize(("check", "statement"), [
    ("i < n?", "What is i set to?"),                       # named without a value
    ("line == ''?", "After line is set to self.readline(), what is checked next?"),  # an assignment
    ("k < 0?", "This time n is 4."),                       # another variable
])
def test_a_variable_named_without_a_value_settles_nothing(check, statement):
    assert code_branch(check, statement) is None


def test_checks_in_words_and_quoted_words_are_not_code():
    assert code_condition("Is the glue dry?") is None
    assert code_condition("Approved?") is None
    assert code_condition("Is 'x' in 'seen'?") is None  # two quoted words, no variable
    assert code_condition("Is x % 2 == 0?") is not None


@pytest.mark.parametrize(("text", "statement", "named"), [
    ("nlines = rawdata.count('\\n', i, j)", "Once nlines is set to rawdata.count('\\n', i, j), which condition is tested?", True),
    ("i += 1", "After the counter i is incremented, what is checked next?", True),
    ("self.fill()", "After self.fill is called, what is checked next?", True),
    ("Input arg", "What happens right after arg is read in?", True),
    ("Return buf", "Why does the function return buf?", True),
    ("Input rmode", "If rmode is not None, what is the next step?", False),  # the variable alone
    ("x = 0", "What happens after y is set to 0?", False),
])
def test_code_steps_are_named_as_code_is_read_aloud(text, statement, named):
    assert code_step_named(text, statement) is named


def test_code_flow_questions_are_read_as_flow():
    for q in ["After type, strict are read in, what is checked next?",
              "Once sep is set to ' ', which condition is tested?",
              "Where does the program go next when k is less than 0?",
              "When the loop over entries ends, what runs next?"]:
        assert classify_question(q) == "flow_referential", q
    assert classify_question("How many decision points are there?") == "topological"
    story = "Julia, a junior developer, runs getrandbits on a small test input. This time k comes out as 4. What is returned?"
    assert classify_question(story) == "applied_scenario"


def _answer(chart: str, question: str, answer: str) -> list[str]:
    return sorted(OfflineReasoner(semantic=False)(ReasoningRequest(parse_mermaid(chart), question, answer)).node_ids)


def test_a_traced_run_walks_from_the_check_its_values_settle_not_from_the_input():
    # "k comes out as 4" settles "k < 0?" as No; "Read k" shares only the variable's name
    got = _answer(CHART, "Julia, a junior developer, runs getrandbits on a small test input. "
                         "This time k comes out as 4. What value does Julia see returned?",
                  "The function returns x >> numbytes * 8 - k.")
    assert got == ["C", "F", "G", "H"]


def test_a_negated_loop_test_is_read_the_right_way_round():
    got = _answer(LOOP, "Mia, a code reviewer, is tracing count_caps() by hand. Here caps is not empty. "
                        "What does the program do next?", "caps is set to caps[1:].")
    assert got == ["D", "G"]


def test_a_conditional_flow_question_takes_the_settled_branch():
    assert _answer(CHART, "If k is less than 0, what is the next step?", "The function raises ValueError.") == ["C", "D"]


def test_a_step_named_as_code_and_what_is_checked_after_it():
    assert _answer(LOOP, "After the counter count is incremented, what is checked next?",
                   "It checks whether caps is empty.") == ["D", "H"]


def test_naming_a_variable_does_not_settle_its_check_in_a_fact_question():
    assert _answer(CHART, "What is numbytes set to?", "(k + 7) // 8") == ["F"]


def test_a_variable_named_like_a_terminal_is_no_start_node():
    from flowpath.reason.kinds import node_kind, read_code_kinds

    chart = read_code_kinds(parse_mermaid("""flowchart TD
    A(["Start"])
    B["start = i"]
    C{"entry.applies_to(agent)?"}
    D["Return entry"]
    E(["End"])
    A --> B
    B --> C
    C -->|"Yes"| D
    C -->|"No"| E
    D --> E
"""))
    assert [node_kind(chart, n) for n in "ABCDE"] == ["start", "process", "decision", "process", "end"]


def test_the_condition_of_a_step_named_as_code_is_the_check_leading_there():
    assert _answer(CHART, "Under what condition does the program reach 'Raise ValueError'?",
                   "When k is less than 0.") == ["C", "D"]


@pytest.mark.parametrize(("check", "statement", "branch"), [
    ("Is i less than n?", "i is 3 and n is 5.", "yes"),
    ("Does c equal ';'?", "This time c is ';'.", "yes"),
    ("Is callback not None?", "Then callback is None.", "no"),
    ("Is self._alive set?", "Here self._alive is empty.", "no"),
    ("More items in self.filters?", "At that point every f in self.filters has been visited.", "no"),
    ("Next line in lines?", "There is still another line left in lines.", "yes"),
])
def test_checks_worded_around_code_names_and_loops_are_read_as_code(check, statement, branch):
    assert code_branch(check, statement) == branch


def test_checks_worded_around_plain_words_stay_checks_in_words():
    assert code_condition("Is age above 18?") is None
    assert code_condition("Is the score less than 600?") is None
    assert code_condition("Is 'count' equal to zero?") is None
    assert code_branch("Is len(nums) less than 5?", "What should be done if len(nums) reads 5?") == "no"
