"""Program flowcharts and questions about them, worded the way people talk about code.

The benchmark's weakest domain is CODE: flowcharts of small programs whose nodes are code
(``i < n?``, ``total = total + x``, ``x % 2 == 0?``, ``Return -1``), asked about in words
("the loop ends when i reaches n", "the counter is incremented", "the function returns -1",
numbers plugged into the conditions). `random_program` grows such charts (an input, counters
and accumulators set up, a counting loop with a body, a test inside the loop, a test after it,
returns and prints) and `make_code_questions` asks the four benchmark types about them. Gold
node sets follow docs/reasoning.md ("Gold conventions"): the node that states a fact (with the
check a conditional question settles), a scenario's walk from the first check it settles to the
answer, a flow question's neighbours and decision, topological questions as `make_questions`.

    python -m data_gen.qa --out OUT --charts 300 --seed 3 --style code
"""

from __future__ import annotations

import ast
import random
import re
import sysconfig
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flowpath.graph import Edge, FlowChart, Node

_COUNTERS = ["i", "j", "k", "idx"]
_BOUNDS = ["n", "size", "limit", "length"]
_ACCUMULATORS = ["total", "result", "acc", "count", "score"]
_ITEMS = ["x", "value", "num", "item"]
_ARRAYS = ["nums", "arr", "values", "data"]
_ROLES = ["a junior developer", "a student debugging an assignment", "a code reviewer", "a teaching assistant"]
_NAMES = ["Mia", "Liam", "Emma", "Noah", "Ava", "Kevin", "Julia", "Rachel", "Omar", "Priya", "Chen", "Sofia"]


@dataclass
class Program:
    """A program chart and what its nodes mean: ``role`` maps a role (``loop``, ``inc``...) to
    its node id, ``say`` holds how a person would describe each node ("the counter i is
    incremented"), ``var`` the chart's variable names and ``test``/``post`` the checks' kinds."""

    chart: FlowChart
    role: dict[str, str]
    say: dict[str, str]
    var: dict[str, str]
    test: str | None = None          # kind of the check inside the loop: even / above / negative / equals
    limits: dict[str, int] = field(default_factory=dict)  # numbers in the checks
    down: bool = False               # the loop counts down from the bound to 0


def random_program(rng: random.Random) -> Program:
    """A random program flowchart: Start, input, initialisation, a counting loop (its check, a
    body that loads the next element, maybe a test inside the loop, the counter update, a back
    edge), then a check on the result with two returns, or a print; End. Letters follow the
    flow (`data_gen.qa.relabel_in_flow_order`)."""
    from data_gen.qa import relabel_in_flow_order

    c, b, acc, x, arr = (rng.choice(p) for p in (_COUNTERS, _BOUNDS, _ACCUMULATORS, _ITEMS, _ARRAYS))
    fc = FlowChart("TD")
    role: dict[str, str] = {}
    say: dict[str, str] = {}
    counter = iter(range(100))

    def new(r: str, text: str, shape: str, words: str) -> str:
        nid = f"n{next(counter)}"
        fc.add_node(Node(nid, text, shape))
        role[r], say[nid] = nid, words
        return nid

    def link(a: str, t: str, label: str | None = None) -> None:
        fc.add_edge(Edge(a, t, label))

    down = rng.random() < 0.3
    start = new("start", rng.choice(["Start", "Begin", "START"]), "stadium", "the program starts")
    inp = new("input", rng.choice([f"Read {arr} and {b}", f"Input {arr}, {b}", f"Read {b} and {arr}"]),
              "lean_right", f"{arr} and {b} are read in")
    init_acc = new("init_acc", rng.choice([f"{acc} = 0", f"Set {acc} = 0"]), "rect", f"{acc} is set to 0")
    if down:
        init_c = new("init_c", f"{c} = {b}", "rect", f"the counter {c} starts at {b}")
        loop = new("loop", rng.choice([f"{c} > 0?", f"Is {c} > 0?"]), "rhombus", f"whether {c} is still above 0")
        inc = new("inc", rng.choice([f"{c} = {c} - 1", f"{c} -= 1"]), "rect", f"the counter {c} is decremented")
    else:
        init_c = new("init_c", rng.choice([f"{c} = 0", f"Set {c} = 0"]), "rect", f"the counter {c} starts at 0")
        loop = new("loop", rng.choice([f"{c} < {b}?", f"Is {c} < {b}?"]), "rhombus", f"whether {c} is still below {b}")
        inc = new("inc", rng.choice([f"{c} = {c} + 1", f"{c} += 1"]), "rect", f"the counter {c} is incremented")
    body = new("body", f"{x} = {arr}[{c}]", "rect", f"the next element of {arr} is loaded into {x}")
    link(start, inp)
    first, second = (init_acc, init_c) if rng.random() < 0.5 else (init_c, init_acc)
    link(inp, first)
    link(first, second)
    link(second, loop)
    yes, no = rng.choice([("Yes", "No"), ("Yes", "No"), ("True", "False")])
    link(loop, body, yes)
    limits: dict[str, int] = {}
    test = rng.choice(["even", "above", "negative", "equals", None])
    if test is None:
        add = new("add", rng.choice([f"{acc} = {acc} + {x}", f"{acc} += {x}"]), "rect", f"{x} is added to {acc}")
        link(body, add)
        link(add, inc)
    else:
        if test == "even":
            t_text, t_say = f"{x} % 2 == 0?", f"whether {x} is even"
        elif test == "above":
            limits["test"] = rng.choice([10, 50, 100])
            t_text, t_say = f"{x} > {limits['test']}?", f"whether {x} is greater than {limits['test']}"
        elif test == "negative":
            t_text, t_say = f"{x} < 0?", f"whether {x} is negative"
        else:
            limits["test"] = rng.choice([7, 42, 99])
            t_text, t_say = f"{x} == {limits['test']}?", f"whether {x} equals {limits['test']}"
        tst = new("test", t_text, "rhombus", t_say)
        link(body, tst)
        if test == "equals":  # a linear search: found -> return the index
            found = new("test_yes", f"Return {c}", "lean_right", f"the function returns the index {c}")
            link(tst, found, yes)
            link(tst, inc, no)
        else:
            hit = new("test_yes", rng.choice([f"{acc} = {acc} + {x}", f"{acc} += {x}"]), "rect",
                      f"{x} is added to {acc}")
            link(tst, hit, yes)
            link(hit, inc)
            if rng.random() < 0.5:
                miss = new("test_no", rng.choice([f"{acc} = {acc} - {x}", f"Print {x}"]), "rect", "")
                say[miss] = (f"{x} is subtracted from {acc}" if "-" in fc.nodes[miss].text
                             else f"{x} is printed")
                link(tst, miss, no)
                link(miss, inc)
            else:
                link(tst, inc, no)
    link(inc, loop)
    end = new("end", rng.choice(["End", "Stop", "END"]), "stadium", "the program ends")
    if test == "equals":
        ret = new("post_no", "Return -1", "lean_right", "the function returns -1")
        link(loop, ret, no)
        link(ret, end)
        link(role["test_yes"], end)
    elif rng.random() < 0.65:
        limits["post"] = rng.choice([20, 100, 500, 1000])
        post = new("post", rng.choice([f"{acc} > {limits['post']}?", f"Is {acc} > {limits['post']}?"]), "rhombus",
                   f"whether {acc} is greater than {limits['post']}")
        link(loop, post, no)
        over = new("post_yes", rng.choice(["Return -1", 'Print "overflow"']), "lean_right", "")
        say[over] = "the function returns -1" if "Return" in fc.nodes[over].text else "the program prints overflow"
        under = new("post_no", f"Return {acc}", "lean_right", f"the function returns {acc}")
        link(post, over, yes)
        link(post, under, no)
        link(over, end)
        link(under, end)
    else:
        out = new("post_no", f"Print {acc}", "lean_right", f"{acc} is printed")
        link(loop, out, no)
        link(out, end)
    fc, mapping = relabel_in_flow_order(fc, start)
    return Program(fc, {r: mapping[n] for r, n in role.items()}, {mapping[n]: s for n, s in say.items()},
                   {"c": c, "b": b, "acc": acc, "x": x, "arr": arr}, test, limits, down)


#: richer program vocabulary for `with_code_symbols`: identifiers with underscores, camelCase,
#: attribute dots, calls and index expressions, as program charts written from real code have
_SYM_COUNTERS = ["i", "j", "idx", "left_idx", "pos", "curIndex", "row_i"]
_SYM_ACCUMULATORS = ["total_sum", "maxVal", "result", "even_count", "runningTotal", "best_score",
                     "acc", "self.total", "num_found"]
_SYM_ITEMS = ["x", "num", "cur_val", "item", "value", "nextItem", "elem"]
_SYM_ARRAYS = ["nums", "arr", "values", "data_list", "inputArr", "self.items", "scores"]


def with_code_symbols(p: Program, rng: random.Random) -> Program:
    """``p`` with its node texts rewritten in the code symbols real program charts use:
    identifiers with underscores and camelCase (``total_sum``, ``curIndex``), attribute dots
    (``self.items``), ``==``, ``!=``, ``<=``, ``>=``, ``%``, ``+=``, ``-=``, ``++``, calls and
    quotes (``print("Total:", total_sum)``, ``input('Enter values: ')``), ``len(nums) - 1``,
    index expressions (``arr[i]``). Same graph, roles and edges; the words in ``say`` follow the new names. Used
    for OCR tuning sets of code charts (``python -m data_gen OUT --content program``)."""
    c, acc, x, arr = (rng.choice(v) for v in (_SYM_COUNTERS, _SYM_ACCUMULATORS, _SYM_ITEMS, _SYM_ARRAYS))
    b = rng.choice(["n", "size", "maxSize", "n_items", f"len({arr})", f"len({arr}) - 1"])
    k = p.limits.get("test", 0)
    text: dict[str, str] = {}
    old = {r: p.chart.nodes[n].text for r, n in p.role.items()}

    def pick(*options: str) -> str:
        return rng.choice(options)

    text["start"] = pick("Start", "Begin", "START", f"def process({arr}):", f"Start find_total({arr})")
    text["input"] = pick(f"Read {arr} and {b}" if "len" not in b else f"Read {arr}", f"Input {arr}",
                         f"{arr} = input('Enter values: ')", f"{arr} = load_data(path)")
    text["init_acc"] = pick(f"{acc} = 0", f"Set {acc} = 0", f"{acc} = 0.0", f"Initialize {acc} to 0")
    if p.down:
        text["init_c"] = pick(f"{c} = {b}", f"{c} = len({arr}) - 1", f"Set {c} = {b}")
        text["loop"] = pick(f"{c} > 0?", f"{c} >= 0?", f"Is {c} >= 1?", f"while {c} > 0")
        text["inc"] = pick(f"{c} -= 1", f"{c} = {c} - 1", f"{c}--")
    else:
        text["init_c"] = pick(f"{c} = 0", f"Set {c} = 0", f"{c} = 1")
        text["loop"] = pick(f"{c} < {b}?", f"Is {c} < {b}?", f"{c} <= {b} - 1?", f"{c} != {b}?",
                            f"while {c} < {b}", f"{c} < len({arr})?")
        text["inc"] = pick(f"{c} += 1", f"{c} = {c} + 1", f"{c}++")
    text["body"] = pick(f"{x} = {arr}[{c}]", f"{x} = {arr}.get({c})", f"Read {arr}[{c}] into {x}",
                        f"{x} = int({arr}[{c}])")
    add_x = (f"{acc} += {x}", f"{acc} = {acc} + {x}", f"{acc} = max({acc}, {x})", f"{acc} += {x} * 2")
    if "add" in p.role:
        text["add"] = pick(*add_x)
    if p.test is not None:
        text["test"] = {
            "even": pick(f"{x} % 2 == 0?", f"Is {x} % 2 == 0?", f"{x} % 2 != 0?"),
            "above": pick(f"{x} > {k}?", f"{x} >= {k}?", f"Is {x} > {k}?"),
            "negative": pick(f"{x} < 0?", f"{x} <= 0?", f"Is {x} < 0?"),
            "equals": pick(f"{x} == {k}?", f"{arr}[{c}] == {k}?", f"{x} != {k}?"),
        }[p.test]
        if p.test == "equals":
            text["test_yes"] = pick(f"Return {c}", f"return {c}", f'print("Found at", {c})')
        else:
            text["test_yes"] = pick(*add_x)
        if "test_no" in p.role:
            text["test_no"] = (pick(f"{acc} -= {x}", f"{acc} = {acc} - {x}") if "-" in old["test_no"]
                               else pick(f"print({x})", f"print('skip', {x})", f"Print {x}"))
    if "post" in p.role:
        post = p.limits["post"]
        text["post"] = pick(f"{acc} > {post}?", f"Is {acc} >= {post}?", f"{acc} != {post}?")
        text["post_yes"] = (pick("Return -1", "return -1", "return None") if "Return" in old["post_yes"]
                            else pick("Print 'overflow'", 'print("Overflow!")', "raise ValueError('too big')"))
        text["post_no"] = pick(f"Return {acc}", f"return {acc}", f'print("Total:", {acc})')
    elif p.test == "equals":
        text["post_no"] = pick("Return -1", "return -1", "print('Not found')")
    else:
        text["post_no"] = pick(f"Print {acc}", f"print({acc})", f"print('Result =', {acc})", f'print("Result:", {acc})')
    text["end"] = pick("End", "Stop", "END", "return")
    new_text = {nid: text[r] for r, nid in p.role.items() if r in text}
    chart = FlowChart(p.chart.direction)
    for n in p.chart:
        chart.add_node(Node(n.id, new_text.get(n.id, n.text), n.shape))
    for e in p.chart.edges:
        chart.add_edge(e)
    names = {"c": c, "b": b, "acc": acc, "x": x, "arr": arr}
    say = {nid: _renamed(words, p.var, names) for nid, words in p.say.items()}
    return Program(chart, dict(p.role), say, names, p.test, dict(p.limits), p.down)


def _renamed(words: str, old: dict[str, str], new: dict[str, str]) -> str:
    """``words`` with each whole-word variable name of ``old`` replaced by ``new``'s."""
    import re

    pattern = re.compile(r"(?<![\w.])(" + "|".join(re.escape(v) for v in sorted(old.values(), key=len, reverse=True))
                         + r")(?![\w])")
    back = {v: new[k] for k, v in old.items()}
    return pattern.sub(lambda m: back[m.group(1)], words)


def _number_for(kind: str, limit: int, yes: bool, rng: random.Random) -> int:
    """A value of the tested variable that sends a check of ``kind`` (even, above, negative,
    equals, or ``post``: the result above a limit) down its yes or no branch."""
    if kind == "even":
        return 2 * rng.randint(1, 40) + (0 if yes else 1)
    if kind == "negative":
        return -rng.randint(1, 30) if yes else rng.randint(0, 30)
    if kind == "equals":
        return limit if yes else rng.choice([v for v in (3, 8, 15, 64) if v != limit])
    step = max(1, limit // 2)  # above / post: greater than the limit
    return limit + rng.randint(1, step) if yes else limit - rng.randint(0, step)


def _test_phrase(p: Program) -> str:
    """How a person says the check inside the loop holds: "x is even"."""
    x, k = p.var["x"], p.limits.get("test")
    return {"even": f"{x} is even", "above": f"{x} is greater than {k}", "negative": f"{x} is negative",
            "equals": f"{x} equals {k}"}[p.test or "even"]


def _loop_end(p: Program, rng: random.Random) -> str:
    """A sentence that says the loop's check failed, in words ("i has reached n")."""
    c, b = p.var["c"], p.var["b"]
    if p.down:
        return rng.choice([f"Eventually {c} has dropped to 0, so the loop is over.",
                           f"The loop stops once {c} is down to 0."])
    return rng.choice([f"The loop stops once {c} reaches {b}.", f"Eventually {c} has reached {b}, so the loop is over.",
                       f"The loop ends when {c} becomes equal to {b}."])


def _branch(chart: FlowChart, d: str, condition: str) -> str:
    return next(e.target for e in chart.out_edges(d) if e.condition == condition)


def make_code_questions(p: Program, chart_id: str, rng: random.Random, *,
                        per_type: int = 1) -> list[dict[str, Any]]:
    """Questions of the four benchmark types about a `random_program` chart, worded as people
    talk about code: a counter "is incremented", the loop "ends when i reaches n", a value is
    plugged into a check ("x is 7"), the function "returns -1". Gold by the conventions of
    docs/reasoning.md: a fact's node (and the check a conditional fact settles), a scenario's
    walk from the first check its story settles to the answer (with the step it says was done
    just before, in a sentence after the opening one), a flow question's neighbours and the
    decision it asks about; topological questions as `make_questions`'."""
    from data_gen.qa import _q, make_questions

    chart, role, say, var = p.chart, p.role, p.say, p.var
    text = {n.id: n.text for n in chart}
    c, b, acc, x, arr = var["c"], var["b"], var["acc"], var["x"], var["arr"]
    out: list[dict[str, Any]] = []

    def add(qtype: str, q: str, a: str, gold: list[str]) -> None:
        out.append(_q(chart_id, len(out), qtype, q, a, gold, "code", rng))

    inc_words = "decremented" if p.down else "incremented"
    for _ in range(per_type):  # fact retrieval
        forms = ["init", "acc", "inc"] + (["test"] if p.test and p.test != "equals" else []) \
            + (["found"] if p.test == "equals" else []) + (["post", "limit"] if "post" in role else [])
        form = rng.choice(forms)
        if form == "init":
            q = rng.choice([f"What value does the counter {c} start from?", f"What is {c} initialised to before the loop?"])
            start = b if p.down else "0"
            add("fact_retrieval", q, rng.choice([f"It starts at {start}.", start, f"{c} is set to {start}."]), [role["init_c"]])
        elif form == "acc":
            q = rng.choice([f"What is {acc} set to at the beginning?", f"What initial value does {acc} get?"])
            add("fact_retrieval", q, rng.choice(["Zero.", "It is set to 0.", f"{acc} starts at 0."]), [role["init_acc"]])
        elif form == "inc":
            q = rng.choice([f"How does {c} change on each pass through the loop?",
                            f"What happens to {c} at the end of every iteration?"])
            a = rng.choice([f"It is {inc_words} by one.", f"{c} goes {'down' if p.down else 'up'} by 1."])
            add("fact_retrieval", q, a, [role["inc"]])
        elif form == "test":
            q = rng.choice([f"What happens to {acc} when {_test_phrase(p)}?", f"If {_test_phrase(p)}, what is done with it?"])
            add("fact_retrieval", q, f"{say[role['test_yes']][0].upper()}{say[role['test_yes']][1:]}.",
                [role["test"], role["test_yes"]])
        elif form == "found":
            q = rng.choice([f"What does the function return when it finds {p.limits['test']}?",
                            f"If {x} equals {p.limits['test']}, what is returned?"])
            add("fact_retrieval", q, rng.choice([f"The index {c}.", f"It returns {c}, the position."]),
                [role["test"], role["test_yes"]])
        elif form == "post":
            big = rng.random() < 0.5
            limit = p.limits["post"]
            q = (rng.choice([f"What happens if {acc} ends up greater than {limit}?", f"What does the program do when {acc} exceeds {limit}?"])
                 if big else rng.choice([f"What is the outcome when {acc} does not exceed {limit}?",
                                         f"What happens if {acc} is at most {limit} after the loop?"]))
            target = role["post_yes" if big else "post_no"]
            add("fact_retrieval", q, f"{say[target][0].upper()}{say[target][1:]}.", [role["post"], target])
        else:
            q = rng.choice([f"What number is {acc} compared with after the loop?", f"Which limit is {acc} checked against?"])
            add("fact_retrieval", q, rng.choice([str(p.limits["post"]), f"It is compared with {p.limits['post']}."]), [role["post"]])

    name = rng.choice(_NAMES)
    who = f"{name}, {rng.choice(_ROLES)},"
    for _ in range(per_type):  # applied scenario: a story with numbers plugged into the checks
        forms = (["test"] if p.test else []) + ["after", "loop"]
        form = rng.choice(forms)
        if form == "test":
            yes = rng.random() < 0.5
            v = _number_for(p.test or "even", p.limits.get("test", 0), yes, rng)
            target = _branch(chart, role["test"], "yes" if yes else "no")
            facts, gold = [], []
            if rng.random() < 0.5:
                facts.append(rng.choice([f"{name} has just loaded the next element of {arr} into {x}.",
                                         f"The program has just read the next element into {x}."]))
                gold.append(role["body"])
            facts.append(rng.choice([f"This time {x} is {v}.", f"The value of {x} is now {v}.", f"Here {x} = {v}."]))
            ask = rng.choice([" What does the program do with this value?", f" What happens next for {name}'s trace?"])
            story = f"{who} is tracing the function by hand on a list of numbers. " + " ".join(facts) + ask
            answer = say[target] if target != role["inc"] else f"{x} is skipped and {say[target]}"
            add("applied_scenario", story, f"{answer[0].upper()}{answer[1:]}.", [*gold, role["test"], target])
        elif form == "after":
            facts = [_loop_end(p, rng)]
            walk_to = _branch(chart, role["loop"], "no")
            gold = [role["loop"], walk_to]
            target = walk_to
            if "post" in role:
                big = rng.random() < 0.5
                v = _number_for("post", p.limits["post"], big, rng)
                facts.append(rng.choice([f"By then {acc} comes to {v}.", f"At that point {acc} is {v}."]))
                target = _branch(chart, role["post"], "yes" if big else "no")
                gold.append(target)
            ask = rng.choice([" What does the function do now?", f" What is the outcome of {name}'s run?"])
            story = f"{who} runs the function on a small input to see what it does. " + " ".join(facts) + ask
            add("applied_scenario", story, f"{say[target][0].upper()}{say[target][1:]}.", gold)
        else:
            bound = rng.randint(3, 9)
            v = rng.randint(1, bound - 1) if rng.random() < 0.5 else (0 if p.down else bound)
            go_on = (v > 0) if p.down else (v < bound)
            target = _branch(chart, role["loop"], "yes" if go_on else "no")
            state = f"{c} is {v}" + ("" if p.down else f" and {b} is {bound}")
            story = (f"{who} is stepping through the program with a debugger. "
                     f"{name} has just watched the counter get {inc_words}. Now {state}."
                     + rng.choice([" Where does the program go from here?", f" What should {name} expect to happen next?"]))
            add("applied_scenario", story, f"{say[target][0].upper()}{say[target][1:]}.", [role["inc"], role["loop"], target])

    for _ in range(per_type):  # flow referential: neighbours and the decision that leads there
        forms = ["after_inc", "loop_end"] + (["before_test", "led"] if p.test and p.test != "equals" else [])
        form = rng.choice(forms)
        if form == "after_inc":
            q = rng.choice([f"After the counter {c} is {inc_words}, where does the program go next?",
                            f"What is the immediate next step after {c} goes {'down' if p.down else 'up'} by one?"])
            add("flow_referential", q, f"It goes back to check {say[role['loop']]}.", [role["inc"], role["loop"]])
        elif form == "loop_end":
            exit_to = _branch(chart, role["loop"], "no")
            end_words = f"{c} drops to 0" if p.down else f"{c} reaches {b}"
            q = rng.choice(["Which condition ends the loop, and what runs once it does?",
                            "When does the loop stop, and what is the next step after it?"])
            add("flow_referential", q, f"The loop ends when {end_words}; then {say[exit_to]}.", [role["loop"], exit_to])
        elif form == "before_test":
            q = rng.choice([f"What happens right before the program checks {say[role['test']]}?",
                            f"Which step comes immediately before the test of {say[role['test']]}?"])
            add("flow_referential", q, f"{say[role['body']][0].upper()}{say[role['body']][1:]}.", [role["body"], role["test"]])
        else:
            yes_label = next(e.label for e in chart.out_edges(role["test"]) if e.condition == "yes")
            q = f"What is the immediate next step after {say[role['test_yes']]}, and what decision led to that step?"
            a = f"Next {say[role['inc']]}; the step before it follows the '{yes_label}' answer to '{text[role['test']]}'."
            add("flow_referential", q, a, [role["test"], role["test_yes"], role["inc"]])

    for rec in make_questions(chart, chart_id, rng, per_type=per_type, domain="code"):
        if rec["type"] == "topological":
            add("topological", rec["question"], rec["answer"], rec["gold"])
    return out



# -- program charts drawn from real Python functions ------------------------------------------
# Generated programs (`random_program`) are one template: a counting loop over an array. Real code
# charts are drawn from functions people wrote: `if`/`elif`/`else` chains, `while` loops, loops
# that `break`/`continue`, early returns, prints, calls. `real_program` parses functions of the
# Python standard library on this machine with `ast` and draws each the way a person or an LLM
# draws a code flowchart (Start, the statements as boxes, each condition as a diamond with Yes/No
# branches, a `for` loop as a check that loops back, returns leading to End); nothing is executed.

_MAX_TEXT = 42            # longer statements make a chart nobody would draw box by box
_NODE_RANGE = (6, 25)     # nodes a chart may have (Start and End included)
_STDLIB_DIRS = ("", "json", "email", "http", "urllib", "logging", "importlib", "concurrent/futures",
                "xml/dom", "asyncio", "collections", "unittest", "wsgiref", "html", "ctypes", "sqlite3",
                "multiprocessing", "lib2to3", "pydoc_data", "tomllib", "zoneinfo", "encodings")


class _Unsupported(Exception):
    """A statement the drawing does not cover (try, with, nested def, yield...): skip the function."""


def _stdlib_functions() -> list[ast.FunctionDef]:
    """Every function (and method) of the standard library's modules in `_STDLIB_DIRS`, in a fixed
    order (sorted paths, source order), parsed once per process."""
    global _FUNCTIONS
    if _FUNCTIONS is None:
        root = Path(sysconfig.get_paths()["stdlib"])
        found: list[ast.FunctionDef] = []
        for sub in _STDLIB_DIRS:
            for path in sorted((root / sub).glob("*.py")):
                try:
                    tree = ast.parse(path.read_text(encoding="utf-8"))
                except (SyntaxError, UnicodeDecodeError, ValueError):
                    continue
                found.extend(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
        _FUNCTIONS = found
    return _FUNCTIONS


_FUNCTIONS: list[ast.FunctionDef] | None = None


def _src(node: ast.AST) -> str:
    return ast.unparse(node)


def _is_print(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"


def _range_loop(node: ast.For) -> tuple[str, str, str] | None:
    """(counter, start, stop) of ``for i in range(stop)`` / ``range(start, stop)``."""
    it = node.iter
    if (isinstance(node.target, ast.Name) and isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
            and it.func.id == "range" and 1 <= len(it.args) <= 2 and not it.keywords):
        start, stop = (ast.Constant(0), it.args[0]) if len(it.args) == 1 else it.args
        return node.target.id, _src(start), _src(stop)
    return None


_CMP_WORDS: dict[type, tuple[str, str]] = {  # (holds, fails)
    ast.Lt: ("is less than", "is at least"), ast.LtE: ("is at most", "is greater than"),
    ast.Gt: ("is greater than", "is at most"), ast.GtE: ("is at least", "is less than"),
    ast.Eq: ("equals", "does not equal"), ast.NotEq: ("does not equal", "equals"),
    ast.In: ("is in", "is not in"), ast.NotIn: ("is not in", "is in"),
    ast.Is: ("is", "is not"), ast.IsNot: ("is not", "is"),
}


def condition_words(test: ast.expr, holds: bool) -> str:
    """How a person says that a condition holds (or fails): ``x < 0`` -> "x is less than 0" /
    "x is at least 0", ``not items`` -> "items is empty", ``len(s) == 0`` -> "s is empty"."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right, op = test.left, test.comparators[0], type(test.ops[0])
        if (isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len"
                and len(left.args) == 1 and isinstance(right, ast.Constant) and right.value == 0
                and op in (ast.Eq, ast.Gt, ast.NotEq)):
            empty = (op is ast.Eq) == holds
            return f"{_src(left.args[0])} is {'empty' if empty else 'not empty'}"
        if op in _CMP_WORDS:
            return f"{_src(left)} {_CMP_WORDS[op][0 if holds else 1]} {_src(right)}"
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = test.operand
        if isinstance(inner, (ast.Name, ast.Attribute)):
            return f"{_src(inner)} is {'empty' if holds else 'not empty'}"
        return condition_words(inner, not holds)
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance" \
            and len(test.args) == 2:
        return f"{_src(test.args[0])} is {'' if holds else 'not '}a {_src(test.args[1])}"
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "len" and len(test.args) == 1:
        return f"{_src(test.args[0])} is {'not empty' if holds else 'empty'}"
    if isinstance(test, (ast.Name, ast.Attribute)):
        return f"{_src(test)} is {'set' if holds else 'empty'}"
    return f"{_src(test)} is {'true' if holds else 'false'}"


def _check_in_words(test: ast.expr) -> str | None:
    """A check as an LLM or a person writes it in words around the code's names: "Is i less
    than n?", "Is items empty?", "Does c equal ';'?", "Is key in cache?"; ``None`` when the
    condition's subject is not a single code name (its words would be no question)."""
    if isinstance(test, ast.BoolOp) or (isinstance(test, ast.Compare) and len(test.ops) > 1):
        return None
    said = condition_words(test, True)
    m = re.match(r"^(\S+) (is|equals|does not equal) (.+)$", said)
    if not m or said.endswith((" is true", " is false")):
        return None
    subject, verb, rest = m.groups()
    if verb == "is":
        return f"Is {subject} {rest}?"
    return f"Does {subject} equal {rest}?" if verb == "equals" else None


@dataclass
class RealProgram:
    """A chart drawn from a real function: ``source`` its name and module, ``meaning`` per node
    id what the node is (``assign``, ``update``, ``check``, ``loop``, ``return``, ``print``,
    ``call``, ``start``, ``end``), ``say`` how a person says what the node does, ``test`` the
    parsed condition of each check (``None`` for a for-each loop: its ``each`` gives the loop
    variable and the sequence), ``assigned`` the variable each assignment sets."""

    chart: FlowChart
    source: str
    meaning: dict[str, str]
    say: dict[str, str]
    test: dict[str, ast.expr | None]
    each: dict[str, tuple[str, str]]
    assigned: dict[str, str]
    returns: list[str]
    worded: bool = False             # drawn by `_WordedDrawing` (boxes and questions in words)
    errors: dict[str, str] = field(default_factory=dict)  # try/except check -> the exception it asks about


class _Drawing:
    """Draws a function body statement by statement (see `real_program`)."""

    def __init__(self, rng: random.Random, words: bool) -> None:
        self.rng, self.words = rng, words
        self.fc = FlowChart("TD")
        self.meaning: dict[str, str] = {}
        self.say: dict[str, str] = {}
        self.test: dict[str, ast.expr | None] = {}
        self.each: dict[str, tuple[str, str]] = {}
        self.assigned: dict[str, str] = {}
        self.returns: list[str] = []
        self.loops: list[tuple[str, list[tuple[str, str | None]]]] = []  # (continue target, breaks)
        self.yes, self.no = rng.choice([("Yes", "No"), ("Yes", "No"), ("True", "False")])
        self.count = 0
        self.max_text = _MAX_TEXT

    def node(self, text: str, shape: str, meaning: str, say: str) -> str:
        if len(text) > self.max_text or "\n" in text or '"' in text and "'" in text:
            raise _Unsupported(text)
        nid = f"n{self.count}"
        self.count += 1
        self.fc.add_node(Node(nid, text, shape))
        self.meaning[nid], self.say[nid] = meaning, say
        return nid

    def join(self, exits: list[tuple[str, str | None]], target: str) -> None:
        for src, label in exits:
            self.fc.add_edge(Edge(src, target, label))

    def check(self, test: ast.expr, loop: bool = False) -> str:
        code = _src(test)
        asked = self.words and " is " not in f" {code} " and self.rng.random() < 0.5
        text = f"Is {code}?" if asked else f"{code}?"
        worded = _check_in_words(test)
        if self.words and worded and self.rng.random() < 0.4:  # "Is i less than n?", "Is items empty?"
            text = worded
        nid = self.node(text, "rhombus", "check", f"whether {condition_words(test, True)}")
        self.test[nid] = test
        return nid

    def block(self, body: list[ast.stmt], exits: list[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
        for stmt in body:
            exits = self.statement(stmt, exits)
        return exits

    def statement(self, s: ast.stmt, exits: list[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
        if isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)):
            return exits  # docstrings and `pass` are not drawn
        if not exits:
            raise _Unsupported("unreachable code")
        if isinstance(s, (ast.Assign, ast.AnnAssign)) and (s.value is not None):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            if len(targets) != 1:
                raise _Unsupported("chained assignment")
            name = _src(targets[0])
            text, say = self.assign_words(s.value, name)
            nid = self.node(text, "rect", "assign", say)
            self.assigned[nid] = name
        elif isinstance(s, ast.AugAssign):
            name = _src(s.target)
            text, say = self.update_words(s, name)
            nid = self.node(text, "rect", "update", say)
            self.assigned[nid] = name
        elif isinstance(s, ast.Expr) and _is_print(s.value):
            assert isinstance(s.value, ast.Call)
            text, say = self.print_words(s.value)
            nid = self.node(text, "lean_right", "print", say)
        elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
            text, say = self.call_words(s.value)
            nid = self.node(text, "rect", "call", say)
        elif isinstance(s, ast.Return):
            text, say = self.return_words(s.value)
            nid = self.node(text, self.rng.choice(["rect", "lean_right", "round"]), "return", say)
            self.join(exits, nid)
            self.returns.append(nid)
            return []
        elif isinstance(s, ast.Raise) and s.exc is not None:
            exc = s.exc.func if isinstance(s.exc, ast.Call) else s.exc
            text, say = self.raise_words(_src(exc))
            nid = self.node(text, "rect", "return", say)
            self.join(exits, nid)
            self.returns.append(nid)
            return []
        elif isinstance(s, ast.If):
            d = self.check(s.test)
            self.join(exits, d)
            taken = self.block(s.body, [(d, self.yes)])
            other = self.block(s.orelse, [(d, self.no)]) if s.orelse else [(d, self.no)]
            return taken + other
        elif isinstance(s, ast.While) and not s.orelse:
            if isinstance(s.test, ast.Constant):
                raise _Unsupported("while True")
            d = self.check(s.test, loop=True)
            self.meaning[d] = "loop"
            self.join(exits, d)
            self.loops.append((d, []))
            back = self.block(s.body, [(d, self.yes)])
            self.join(back, d)
            _, breaks = self.loops.pop()
            return [(d, self.no), *breaks]
        elif isinstance(s, ast.For) and not s.orelse:
            counted = _range_loop(s)
            if counted:
                c, start, stop = counted
                text, say = self.counter_start_words(c, start)
                init = self.node(text, "rect", "assign", say)
                self.assigned[init] = c
                self.join(exits, init)
                test = ast.parse(f"{c} < {stop}", mode="eval").body
                d = self.check(test, loop=True)
                self.meaning[d] = "loop"
                self.fc.add_edge(Edge(init, d))
                text, say = self.counter_step_words(c)
                step = self.node(text, "rect", "update", say)
                self.assigned[step] = c
                self.loops.append((step, []))
                back = self.block(s.body, [(d, self.yes)])
                self.join(back, step)
                self.fc.add_edge(Edge(step, d))
            else:
                var, seq = _src(s.target), _src(s.iter)
                text, say = self.each_words(var, seq)
                d = self.node(text, "rhombus", "loop", say)
                self.test[d] = None
                self.each[d] = (var, seq)
                self.join(exits, d)
                self.loops.append((d, []))
                back = self.block(s.body, [(d, self.yes)])
                self.join(back, d)
            _, breaks = self.loops.pop()
            return [(d, self.no), *breaks]
        elif isinstance(s, ast.Break) and self.loops:
            self.loops[-1][1].extend(self.jump_step("break", exits))
            return []
        elif isinstance(s, ast.Continue) and self.loops:
            self.join(self.jump_step("continue", exits), self.loops[-1][0])
            return []
        elif isinstance(s, ast.Try):
            return self.attempt(s, exits)
        else:
            raise _Unsupported(type(s).__name__)
        self.join(exits, nid)
        return [(nid, None)]

    # How each statement is written in its box (``text``) and said in a question (``say``): code,
    # with a few words around it when ``words`` ("Set x to 0", "Call f(x)"). `_WordedDrawing` words them.
    def assign_words(self, value_node: ast.expr, name: str) -> tuple[str, str]:
        value = _src(value_node)
        text = f"{name} = {value}"
        if self.words and isinstance(value_node, ast.Constant) and self.rng.random() < 0.5:
            text = self.rng.choice([f"Set {name} to {value}", f"Initialize {name} to {value}"])
        return text, f"{name} is set to {value}"

    def update_words(self, s: ast.AugAssign, name: str) -> tuple[str, str]:
        rng, value = self.rng, _src(s.value)
        one = isinstance(s.value, ast.Constant) and s.value.value == 1
        if isinstance(s.op, ast.Add) and one:
            return (rng.choice([f"{name} += 1", f"{name} = {name} + 1"] + ([f"Increment {name}"] if self.words else [])),
                    f"{name} is incremented")
        if isinstance(s.op, ast.Sub) and one:
            return (rng.choice([f"{name} -= 1", f"{name} = {name} - 1"] + ([f"Decrement {name}"] if self.words else [])),
                    f"{name} is decremented")
        if isinstance(s.op, ast.Add):
            return rng.choice([f"{name} += {value}", f"{name} = {name} + {value}"]), f"{value} is added to {name}"
        return _src(s), f"{name} is updated with {value}"

    def print_words(self, call: ast.Call) -> tuple[str, str]:
        args = ", ".join(_src(a) for a in call.args)
        return (f"Print {args}".strip() if self.rng.random() < 0.8 else f"Display {args}".strip(),
                f"the program prints {args}")

    def call_words(self, call: ast.Call) -> tuple[str, str]:
        code = _src(call)
        text = f"Call {code}" if self.words and self.rng.random() < 0.5 else code
        return text, f"{_src(call.func)} is called"

    def return_words(self, value_node: ast.expr | None) -> tuple[str, str]:
        value = _src(value_node) if value_node is not None else ""
        return f"Return {value}".strip(), f"the function returns {value or 'without a value'}"

    def raise_words(self, exc: str) -> tuple[str, str]:
        return f"Raise {exc}", f"the function raises {exc}"

    def counter_start_words(self, c: str, start: str) -> tuple[str, str]:
        return f"{c} = {start}", f"the counter {c} starts at {start}"

    def counter_step_words(self, c: str) -> tuple[str, str]:
        return self.rng.choice([f"{c} += 1", f"{c} = {c} + 1"]), f"the counter {c} is incremented"

    def each_words(self, var: str, seq: str) -> tuple[str, str]:
        return (self.rng.choice([f"More items in {seq}?", f"Next {var} in {seq}?", f"For each {var} in {seq}"]),
                f"whether there is another {var} in {seq}")

    def jump_step(self, kind: str, exits: list[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
        """The exits a ``break`` / ``continue`` leaves by: drawn as no box of its own."""
        return exits

    def attempt(self, s: ast.Try, exits: list[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
        raise _Unsupported("try")


# -- program charts worded the way an LLM draws code (`--style codeword`) ------------------------
# FlowVQA's code charts were drawn by GPT-4 from a program: most boxes say the step in words
# ("Initialize the counter to zero", "Loop through each item in the list", "Is the number
# divisible by 3?", "Return the largest value found"), some keep a code fragment, Start names the
# program. `_WordedDrawing` words each statement from these phrasing tables; the question side
# (``say``) draws its own phrasing, so a box and a question about it rarely share every word
# ("Increment count by 1" / "count goes up by one"). Our own tables, not the benchmark's items.

_CODE_SHARE = 0.3         # share of boxes that keep the statement as code
_WORDED_TEXT = 64         # worded boxes run longer than code ones
_NUMBER_WORDS = {0: "zero", 1: "one", 2: "two", 3: "three", 10: "ten"}
#: comparison operator -> (words when it holds, words when it fails), several ways each
_CMP_PHRASES: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {
    ast.Lt: (("less than", "smaller than", "below"), ("at least", "not less than", "greater than or equal to")),
    ast.LtE: (("at most", "less than or equal to", "no more than"), ("greater than", "more than", "above")),
    ast.Gt: (("greater than", "more than", "larger than", "above"), ("at most", "not greater than", "no more than")),
    ast.GtE: (("at least", "greater than or equal to", "no less than"), ("less than", "below", "smaller than")),
    ast.Eq: (("equal to", "the same as"), ("not equal to", "different from")),
    ast.NotEq: (("not equal to", "different from"), ("equal to", "the same as")),
}
#: method name -> (box phrasings, question phrasings) with {o} the object and {a} the arguments
_METHOD_PHRASES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "append": (("Append {a} to {o}", "Add {a} to the end of {o}", "Add {a} to {o}"),
               ("{a} is appended to {o}", "{a} is added to {o}", "{o} gets {a} added at the end")),
    "extend": (("Extend {o} with {a}", "Add all of {a} to {o}"), ("{o} is extended with {a}", "{a} is added to {o}")),
    "add": (("Add {a} to {o}", "Put {a} into {o}"), ("{a} is added to {o}", "{a} is put into {o}")),
    "remove": (("Remove {a} from {o}", "Delete {a} from {o}"), ("{a} is removed from {o}", "{a} is taken out of {o}")),
    "pop": (("Remove the last item from {o}", "Pop an item off {o}"), ("an item is popped off {o}", "{o} loses its last item")),
    "close": (("Close {o}", "Close the {o} connection"), ("{o} is closed", "the program closes {o}")),
    "write": (("Write {a} to {o}", "Output {a} to {o}"), ("{a} is written to {o}", "{o} receives {a}")),
    "sort": (("Sort {o}", "Sort the items of {o}"), ("{o} is sorted", "the items in {o} are put in order")),
    "clear": (("Clear {o}", "Empty {o}"), ("{o} is cleared", "{o} is emptied")),
    "update": (("Update {o} with {a}", "Merge {a} into {o}"), ("{o} is updated with {a}", "{a} is merged into {o}")),
    "insert": (("Insert {a} into {o}",), ("{a} is inserted into {o}",)),
    "flush": (("Flush {o}",), ("{o} is flushed",)),
    "reset": (("Reset {o}",), ("{o} is reset",)),
}


def _name_words(name: str) -> str:
    """A code name as words: ``self._line_buffer`` -> "line buffer", ``curIndex`` -> "cur index"."""
    base = name.split(".")[-1].strip("_")
    base = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", base)
    return base.replace("_", " ").lower() or name


def _is_const(node: ast.expr, *values: object) -> bool:
    return isinstance(node, ast.Constant) and any(node.value == v and type(node.value) is type(v) for v in values)


class _Phrasing:
    """The phrasing tables an LLM's descriptions of code draw from: a name ("the line buffer" or
    ``line_buf``), a value ("zero", "an empty list"), an expression ("the length of items"), a
    condition ("x is greater than 0", "items is empty", "key is None", "obj is an instance of
    str"). Every call draws again, so a box and a question word the same thing differently."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def name(self, name: str) -> str:
        words = _name_words(name)
        plain = re.fullmatch(r"(self\.)?[A-Za-z_][A-Za-z0-9_]*", name)  # ``ip._version`` keeps its owner: code
        if not plain or len(words) <= 2 or words == name or self.rng.random() < 0.4:
            return name
        return f"the {words}"

    def value(self, node: ast.expr, *, spelled: bool = True) -> str:
        """``spelled``: small numbers may be written as words ("zero"); conditions keep digits."""
        rng = self.rng
        if spelled and isinstance(node, ast.Constant) and isinstance(node.value, int) \
                and not isinstance(node.value, bool) and node.value in _NUMBER_WORDS and rng.random() < 0.5:
            return _NUMBER_WORDS[node.value]
        if _is_const(node, ""):
            return "an empty string"
        if isinstance(node, ast.List) and not node.elts:
            return rng.choice(["an empty list", "[]"])
        if isinstance(node, ast.Dict) and not node.keys:
            return rng.choice(["an empty dictionary", "{}"])
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args and not node.keywords \
                and node.func.id in ("list", "dict", "set"):
            return f"an empty {dict(list='list', dict='dictionary', set='set')[node.func.id]}"
        if isinstance(node, (ast.Name, ast.Attribute)):
            return self.name(_src(node))
        return self.expression(node)

    def expression(self, node: ast.expr) -> str:
        rng = self.rng
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1:
            return f"the length of {self.value(node.args[0])}"
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)) \
                and all(isinstance(v, (ast.Name, ast.Attribute, ast.Constant)) for v in (node.left, node.right)):
            a, b = self.value(node.left), self.value(node.right)
            if isinstance(node.op, ast.Add):
                return rng.choice([f"the sum of {a} and {b}", f"{a} plus {b}"])
            return f"{a} minus {b}" if isinstance(node.op, ast.Sub) else f"{a} times {b}"
        if isinstance(node, ast.Subscript) and isinstance(node.slice, (ast.Name, ast.Constant)):
            return rng.choice([f"the item of {self.value(node.value)} at {_src(node.slice)}", _src(node)])
        if isinstance(node, ast.Call) and len(_src(node)) > 24:
            return f"the result of {_src(node.func)}"
        return _src(node)

    def condition(self, test: ast.expr, holds: bool) -> str | None:
        """A condition in words ("x is greater than 0", "items is not empty"), None when the
        tables have no words for it (a check then stays code)."""
        rng = self.rng
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            if isinstance(test.operand, (ast.Name, ast.Attribute)):
                return f"{self.name(_src(test.operand))} is {'empty' if holds else 'not empty'}"
            return self.condition(test.operand, not holds)
        if isinstance(test, (ast.Name, ast.Attribute)):
            n = self.name(_src(test))
            return rng.choice([f"{n} is set", f"{n} has a value"]) if holds else rng.choice([f"{n} is empty", f"{n} is not set"])
        if isinstance(test, ast.BoolOp) and len(test.values) == 2:
            parts = [self.condition(v, holds) for v in test.values]
            if None in parts:
                return None
            joined = isinstance(test.op, ast.And) == holds
            return f"{parts[0]} {'and' if joined else 'or'} {parts[1]}"
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Name):
            if test.func.id == "isinstance" and len(test.args) == 2:
                kind = _src(test.args[1])
                return (f"{self.name(_src(test.args[0]))} is {'' if holds else 'not '}"
                        f"{rng.choice(['an instance of ', 'a ', 'of type '])}{kind}")
            if test.func.id == "hasattr" and len(test.args) == 2:
                return f"{self.name(_src(test.args[0]))} {'has' if holds else 'does not have'} the attribute {_src(test.args[1])}"
            return None
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr in ("startswith", "endswith") \
                and len(test.args) == 1:
            verb = "start" if test.func.attr == "startswith" else "end"
            subject = self.name(_src(test.func.value))
            return f"{subject} {verb}s with {_src(test.args[0])}" if holds else \
                f"{subject} does not {verb} with {_src(test.args[0])}"
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
            return None
        left, right, op = test.left, test.comparators[0], type(test.ops[0])
        if isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len" and len(left.args) == 1 \
                and _is_const(right, 0) and op in (ast.Eq, ast.Gt, ast.NotEq):
            empty = (op is ast.Eq) == holds
            return f"{self.name(_src(left.args[0]))} is {'empty' if empty else 'not empty'}"
        if isinstance(left, ast.BinOp) and isinstance(left.op, ast.Mod) and isinstance(left.right, ast.Constant) \
                and _is_const(right, 0) and op in (ast.Eq, ast.NotEq):
            divides = (op is ast.Eq) == holds
            n, k = self.name(_src(left.left)), left.right.value
            if k == 2:
                return f"{n} is {'even' if divides else 'odd'}"
            return f"{n} is {'' if divides else 'not '}divisible by {k}"
        if op in (ast.Is, ast.IsNot) and _is_const(right, None):
            none = (op is ast.Is) == holds
            n = self.name(_src(left))
            return rng.choice([f"{n} is None", f"{n} has no value"]) if none else \
                rng.choice([f"{n} is not None", f"{n} has a value"])
        if op in (ast.In, ast.NotIn):
            inside = (op is ast.In) == holds
            a, b = self.value(left), self.value(right)
            return rng.choice([f"{a} is in {b}", f"{b} contains {a}"]) if inside else \
                rng.choice([f"{a} is not in {b}", f"{b} does not contain {a}"])
        if op in _CMP_PHRASES:
            words = rng.choice(_CMP_PHRASES[op][0 if holds else 1])
            if op in (ast.Eq, ast.NotEq) and rng.random() < 0.5:
                words = {"equal to": "equals", "not equal to": "does not equal"}.get(words, words)
                if words in ("equals", "does not equal"):
                    return f"{self.value(left)} {words} {self.value(right, spelled=False)}"
            return f"{self.value(left)} is {words} {self.value(right, spelled=False)}"
        return None


def _as_question(clause: str, rng: random.Random) -> str:
    """A decision box from a clause: "x is greater than 0" -> "Is x greater than 0?",
    "s starts with 'a'" -> "Does s start with 'a'?", else "Check if ..."."""
    m = re.match(r"^(the [\w ]+?|\S+) (is|has|does not|contains|equals|does not equal|starts|ends) (.+)$", clause)
    if m and " and " not in clause and " or " not in clause:
        subject, verb, rest = m.groups()
        if verb == "is":
            return f"Is {subject} {rest}?"
        if verb == "has":
            return f"Does {subject} have {rest}?"
        if verb in ("starts", "ends", "contains", "equals"):
            return f"Does {subject} {verb[:-1]} {rest}?"
    return rng.choice([f"Check if {clause}", f"Is it true that {clause}?", f"{clause[0].upper()}{clause[1:]}?"])


class _WordedDrawing(_Drawing):
    """Draws a function as an LLM words it (`_Phrasing`): most boxes in words, ``_CODE_SHARE``
    of them as code, Start naming the function, breaks and continues as boxes ("Exit the loop"),
    try/except as a check "Did a ValueError occur?"."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng, words=True)
        self.max_text = _WORDED_TEXT
        self.phrase = _Phrasing(rng)
        self.errors: dict[str, str] = {}   # check id -> the exception a try/except check asks about
        self.trying = False                # the next box opens a try block: "Try to open the file"

    def node(self, text: str, shape: str, meaning: str, say: str) -> str:
        if self.trying and meaning not in ("check", "loop") and text[:1].isupper():
            text = f"Try to {text[0].lower()}{text[1:]}"
        self.trying = False
        return super().node(text, shape, meaning, say)

    def code(self) -> bool:
        return self.rng.random() < _CODE_SHARE

    def check(self, test: ast.expr, loop: bool = False) -> str:
        p, rng = self.phrase, self.rng
        clause = p.condition(test, True)
        if clause is None or self.code():
            text = rng.choice([f"{_src(test)}?", f"Is {_src(test)}?"]) if " is " not in f" {_src(test)} " else f"{_src(test)}?"
        elif loop and rng.random() < 0.5:
            text = rng.choice([f"While {clause}", f"Is it still true that {clause}?"])
        else:
            text = _as_question(clause, rng)
        said = p.condition(test, True) or condition_words(test, True)
        nid = self.node(text, "rhombus", "check", f"whether {said}")
        self.test[nid] = test
        return nid

    def assign_words(self, value_node: ast.expr, name: str) -> tuple[str, str]:
        p, rng = self.phrase, self.rng
        code = f"{name} = {_src(value_node)}"
        n, v = p.name(name), p.value(value_node)
        simple = isinstance(value_node, (ast.Constant, ast.List, ast.Dict)) or v.startswith("an empty")
        if self.code():
            text = code
        elif simple:
            text = rng.choice([f"Initialize {n} to {v}", f"Set {n} to {v}", f"Assign {v} to {n}", f"Start {n} at {v}"])
        elif isinstance(value_node, ast.Call) and not v.startswith("the length"):
            text = rng.choice([f"Call {_src(value_node.func)} and store the result in {n}",
                               f"Get {n} from {_src(value_node.func)}", f"Set {n} to {v}"])
        else:
            text = rng.choice([f"Set {n} to {v}", f"Store {v} in {n}", f"Compute {n} as {v}"])
        n, v = p.name(name), p.value(value_node)
        say = rng.choice([f"{n} is initialized to {v}", f"{n} is set to {v}", f"{n} gets the value {v}",
                          f"{n} starts at {v}"] if simple else
                         [f"{n} is set to {v}", f"{v} is stored in {n}", f"{n} is computed as {v}"])
        return text, say

    def update_words(self, s: ast.AugAssign, name: str) -> tuple[str, str]:
        p, rng = self.phrase, self.rng
        one = _is_const(s.value, 1)
        n = p.name(name)
        if isinstance(s.op, (ast.Add, ast.Sub)) and one:
            up = isinstance(s.op, ast.Add)
            boxes = ([f"Increment {n} by 1", f"Add one to {n}", f"Increase {n} by one", f"Increment {n}"] if up else
                     [f"Decrement {n} by 1", f"Subtract one from {n}", f"Decrease {n} by one", f"Decrement {n}"])
            n2 = p.name(name)
            says = ([f"{n2} is incremented", f"{n2} goes up by one", f"one is added to {n2}", f"{n2} is increased by 1"]
                    if up else [f"{n2} is decremented", f"{n2} goes down by one", f"one is subtracted from {n2}",
                                f"{n2} is decreased by 1"])
        elif isinstance(s.op, ast.Add):
            v = p.value(s.value)
            boxes = [f"Add {v} to {n}", f"Increase {n} by {v}", f"Update {n} by adding {v}"]
            n2, v2 = p.name(name), p.value(s.value)
            says = [f"{v2} is added to {n2}", f"{n2} is increased by {v2}", f"{n2} grows by {v2}"]
        else:
            boxes = [f"Update {n} with {_src(s.value)}", f"Update {n}"]
            says = [f"{p.name(name)} is updated", f"{p.name(name)} is updated with {_src(s.value)}"]
        text = _src(s) if self.code() else rng.choice(boxes)
        return text, rng.choice(says)

    def _message(self, call: ast.Call) -> tuple[str, str]:
        """What a print shows, for the box and for a question."""
        p = self.phrase
        if len(call.args) == 1 and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
            msg = call.args[0].value.strip()
            if re.search(r"error|invalid|fail|cannot|can't|not ", msg, re.I):
                return "an error message", "an error message"
            return f"the message '{msg}'" if msg else "an empty line", f"'{msg}'" if msg else "a blank line"
        if call.args and all(isinstance(a, (ast.Name, ast.Attribute)) for a in call.args):
            shown = " and ".join(p.name(_src(a)) for a in call.args)
            return shown, " and ".join(p.name(_src(a)) for a in call.args)
        return ", ".join(_src(a) for a in call.args) or "a blank line", "the output"

    def print_words(self, call: ast.Call) -> tuple[str, str]:
        rng = self.rng
        box, said = self._message(call)
        args = ", ".join(_src(a) for a in call.args)
        text = f"print({args})" if self.code() else rng.choice([f"Print {box}", f"Display {box}", f"Output {box}"])
        return text, rng.choice([f"the program prints {said}", f"{said} is printed", f"{said} is shown"])

    def call_words(self, call: ast.Call) -> tuple[str, str]:
        p, rng = self.phrase, self.rng
        func = call.func
        args = " and ".join(p.value(a) for a in call.args) if call.args else ""
        if isinstance(func, ast.Attribute) and func.attr in _METHOD_PHRASES and (args or "{a}" not in _METHOD_PHRASES[func.attr][0][0]):
            boxes, says = _METHOD_PHRASES[func.attr]
            o = p.name(_src(func.value))
            text = rng.choice(boxes).format(o=o, a=args)
            say = rng.choice(says).format(o=p.name(_src(func.value)), a=args)
        else:
            verb = _name_words(_src(func))
            text = rng.choice([f"Call {_src(func)}", f"Call {_src(func)} with {args}" if args else f"Invoke {_src(func)}",
                               f"{verb[0].upper()}{verb[1:]}" + (f" {args}" if args else "")])
            say = rng.choice([f"{_src(func)} is called", f"the program calls {_src(func)}", f"{verb} is done"])
        if self.code():
            text = _src(call)
        return text, say

    def return_words(self, value_node: ast.expr | None) -> tuple[str, str]:
        p, rng = self.phrase, self.rng
        if value_node is None or _is_const(value_node, None):
            text = rng.choice(["Return None", "Return nothing", "Exit the function"]) if value_node is None else "Return None"
            return text, rng.choice(["the function returns None", "the function exits without a value",
                                     "nothing is returned"])
        v = p.value(value_node)
        if self.code():
            text = f"return {_src(value_node)}"
        elif isinstance(value_node, (ast.Name, ast.Attribute)) and rng.random() < 0.5:
            text = rng.choice([f"Return the value of {v}", f"Return {v} as the result"])
        else:
            text = f"Return {v}"
        v2 = p.value(value_node)
        return text, rng.choice([f"the function returns {v2}", f"{v2} is returned", f"the function gives back {v2}"])

    def raise_words(self, exc: str) -> tuple[str, str]:
        rng = self.rng
        a = "an" if exc[:1].lower() in "aeiou" else "a"
        text = f"raise {exc}" if self.code() else rng.choice([f"Raise {a} {exc}", f"Throw {a} {exc} exception",
                                                               f"Raise {a} {exc} error"])
        return text, rng.choice([f"the function raises {a} {exc}", f"{a} {exc} is raised", f"{a} {exc} is thrown"])

    def counter_start_words(self, c: str, start: str) -> tuple[str, str]:
        rng = self.rng
        v = _NUMBER_WORDS.get(int(start), start) if start.isdigit() and rng.random() < 0.5 else start
        text = f"{c} = {start}" if self.code() else rng.choice([f"Initialize {c} to {v}", f"Set the index {c} to {v}",
                                                               f"Start the counter {c} at {v}"])
        return text, rng.choice([f"the counter {c} starts at {start}", f"the index {c} is set to {start}",
                                 f"{c} is initialized to {start}"])

    def counter_step_words(self, c: str) -> tuple[str, str]:
        rng = self.rng
        text = f"{c} += 1" if self.code() else rng.choice([f"Increment {c} by 1", f"Add one to {c}",
                                                            f"Move to the next index {c}", f"Increase {c} by one"])
        return text, rng.choice([f"the counter {c} is incremented", f"{c} goes up by one", f"one is added to {c}"])

    def each_words(self, var: str, seq: str) -> tuple[str, str]:
        p, rng = self.phrase, self.rng
        s = p.name(seq) if re.fullmatch(r"[\w.]+", seq) else seq
        text = rng.choice([f"Loop through each {var} in {s}", f"For each {var} in {s}", f"Iterate over {s}",
                           f"More items in {s}?", f"Are there more items in {s}?", f"Next {var} in {s}?"])
        s2 = p.name(seq) if re.fullmatch(r"[\w.]+", seq) else seq
        return text, rng.choice([f"whether there is another {var} in {s2}", f"whether the loop over {s2} goes on",
                                 f"whether any items of {s2} are left"])

    def jump_step(self, kind: str, exits: list[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
        """A break or continue as a box of its own half the time ("Exit the loop")."""
        rng = self.rng
        if rng.random() < 0.5:
            return exits
        if kind == "break":
            nid = self.node(rng.choice(["Exit the loop", "Break out of the loop", "Stop looping"]), "rect", "break",
                            rng.choice(["the loop is left early", "the program breaks out of the loop"]))
        else:
            nid = self.node(rng.choice(["Skip to the next item", "Continue with the next iteration", "Skip this item"]),
                            "rect", "continue", rng.choice(["the rest of this pass is skipped", "the item is skipped"]))
        self.join(exits, nid)
        return [(nid, None)]

    def attempt(self, s: ast.Try, exits: list[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
        """``try: body except E: handler`` as the body, then a check "Did an E occur?" whose Yes
        branch runs the handler; one handler, no ``else``/``finally``."""
        if len(s.handlers) != 1 or s.orelse or s.finalbody:
            raise _Unsupported("try")
        handler = s.handlers[0]
        exc = _src(handler.type) if handler.type is not None and isinstance(handler.type, (ast.Name, ast.Attribute)) \
            else "error"
        first = self.count
        self.trying = self.rng.random() < 0.5
        done = self.block(s.body, exits)
        if not done or self.count == first:
            raise _Unsupported("try without a plain body")
        rng = self.rng
        a = "an" if exc[:1].lower() in "aeiou" else "a"
        text = rng.choice([f"Did {a} {exc} occur?", f"{exc} raised?", f"Was {a} {exc} raised?"]) if exc != "error" \
            else rng.choice(["Did an error occur?", "Did the attempt fail?", "Exception raised?"])
        d = self.node(text, "rhombus", "check", f"whether {a} {exc} was raised")
        self.test[d] = None
        self.errors[d] = exc
        self.join(done, d)
        return self.block(handler.body, [(d, self.yes)]) + [(d, self.no)]

    def start_words(self, fn: str) -> str:
        words = _name_words(fn)
        return self.rng.choice([f"Start the {words} function", f"Start {fn}", f"Begin {fn}()", "Start",
                                f"Start {words}"])


def _draw(fn: ast.FunctionDef, rng: random.Random, *, worded: bool = False) -> RealProgram | None:
    """The chart of one function, or None when it has a statement the drawing does not cover,
    a check whose two branches meet at once, or a size outside `_NODE_RANGE`. ``worded``: drawn
    as an LLM words code (`_WordedDrawing`)."""
    from data_gen.qa import relabel_in_flow_order

    dr = _WordedDrawing(rng) if worded else _Drawing(rng, words=rng.random() < 0.5)
    try:
        opening = (dr.start_words(fn.name) if isinstance(dr, _WordedDrawing)
                   else rng.choice(["Start", "Begin", "START", f"Start {fn.name}"]))
        start = dr.node(opening, "stadium", "start", "the function starts")
        exits: list[tuple[str, str | None]] = [(start, None)]
        params = [a.arg for a in fn.args.args if a.arg not in ("self", "cls")]
        if params and rng.random() < 0.6:
            shown = ", ".join(params)
            inp = dr.node(rng.choice([f"Input {shown}", f"Read {shown}", f"Get {shown}"]), "lean_right", "input",
                          f"{shown} {'are' if len(params) > 1 else 'is'} read in")
            dr.join(exits, inp)
            exits = [(inp, None)]
        exits = dr.block(fn.body, exits)
    except (_Unsupported, RecursionError):
        return None
    end = dr.node(rng.choice(["End", "Stop", "END"]), "stadium", "end", "the program ends")
    dr.join(exits, end)
    for r in dr.returns:
        dr.fc.add_edge(Edge(r, end))
    fc = dr.fc
    checks = [n for n, m in dr.meaning.items() if m in ("check", "loop")]
    if not checks or not (_NODE_RANGE[0] <= len(fc) <= _NODE_RANGE[1]):
        return None
    for d in checks:
        targets = [e.target for e in fc.out_edges(d)]
        if len(targets) != 2 or len(set(targets)) != 2:
            return None
    fc, mapping = relabel_in_flow_order(fc, start)
    src = {mapping[k]: v for k, v in dr.test.items()}
    return RealProgram(fc, fn.name, {mapping[k]: v for k, v in dr.meaning.items()},
                       {mapping[k]: v for k, v in dr.say.items()}, src,
                       {mapping[k]: v for k, v in dr.each.items()},
                       {mapping[k]: v for k, v in dr.assigned.items()}, [mapping[r] for r in dr.returns],
                       worded, {mapping[k]: v for k, v in getattr(dr, "errors", {}).items()})


def held_out_function(name: str) -> bool:
    """Whether a function name belongs to the held-out fifth of the standard library's functions
    (a stable hash of the name, so a same-named method of another module is held out too):
    `--style codeword` test sets draw only these, tuning sets never do."""
    return zlib.crc32(name.encode()) % 5 == 0


def real_program(rng: random.Random, *, tries: int = 5000, worded: bool = False,
                 held_out: bool | None = None) -> RealProgram:
    """A chart drawn from a random function of the Python standard library (see `_Drawing`):
    functions with statements the drawing does not cover, or charts outside 6-25 nodes, are
    skipped. ``worded``: boxes in words (`_WordedDrawing`); ``held_out`` True / False: only
    functions `held_out_function` holds out / only the others (None: any)."""
    functions = _stdlib_functions()
    for _ in range(tries):
        fn = rng.choice(functions)
        if fn.name.startswith("__") or len(fn.body) < 2:  # dunders and one-liners: few charts
            continue
        if held_out is not None and held_out_function(fn.name) != held_out:
            continue
        program = _draw(fn, rng, worded=worded)
        if program is not None and (len(program.chart) >= 8 or rng.random() < 0.3):
            return program
    raise RuntimeError("no standard-library function fits a chart")


def _cap(text: str) -> str:
    """A sentence from a clause; a clause opening with a code name keeps its case ("i is 3.")."""
    first = text.split(" ", 1)[0]
    if first in ("the", "it", "when", "whether", "next", "there", "every"):
        text = f"{text[0].upper()}{text[1:]}"
    return f"{text}." if text else text


def _simple(node: ast.expr) -> bool:
    return isinstance(node, (ast.Name, ast.Attribute, ast.Subscript))


def settle_words(test: ast.expr | None, each: tuple[str, str] | None, holds: bool, rng: random.Random,
                 values: dict[str, Any]) -> str:
    """A clause of a story that settles a check the way a person tracing the code says it: the
    values the variables have ("this time x is -3", "nums has 0 items", "key is None") where the
    check compares a variable with a constant or another variable, else the condition in words
    ("the loop has gone through every line in lines"). ``values`` collects the numbers stated."""
    if test is None:
        var, seq = each or ("item", "items")
        return (rng.choice([f"there is still another {var} left in {seq}", f"{seq} still has items to visit"]) if holds
                else rng.choice([f"every {var} in {seq} has been visited", f"the loop has run out of items in {seq}"]))
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right, op = test.left, test.comparators[0], test.ops[0]
        want = holds
        if isinstance(right, ast.Constant) and isinstance(right.value, int) and not isinstance(right.value, bool) \
                and isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)):
            c = right.value
            candidates = [v for v in range(c - 6, c + 7) if _compare(op, v, c) == want]
            v = rng.choice(candidates)
            if isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len" \
                    and len(left.args) == 1 and v >= 0:
                seq = _src(left.args[0])
                values[seq] = v
                return rng.choice([f"{seq} has {v} items", f"{seq} holds {v} elements", f"len({seq}) is {v}"])
            if _simple(left):
                name = _src(left)
                values[name] = v
                return rng.choice([f"{name} is {v}", f"this time {name} = {v}", f"{name} comes out as {v}"])
        if _simple(left) and _simple(right) and isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
            a, b = rng.choice([(a, b) for a in range(13) for b in range(13) if _compare(op, a, b) == want])
            values[_src(left)], values[_src(right)] = a, b
            return rng.choice([f"{_src(left)} is {a} and {_src(right)} is {b}", f"{_src(left)} = {a} while {_src(right)} = {b}"])
        if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(right, ast.Constant) and right.value is None \
                and _simple(left):
            none = want == isinstance(op, ast.Is)
            return f"{_src(left)} is None" if none else rng.choice([f"{_src(left)} is not None", f"{_src(left)} has a value"])
    return condition_words(test, holds)


def condition_in_words(p: RealProgram, d: str, holds: bool, phrase: _Phrasing) -> str:
    """How an LLM asks about check ``d`` of a worded program holding or failing: "count is
    greater than 3", "the buffer is empty", "a KeyError is raised", "every line in lines has
    been processed"; a fresh draw of `_Phrasing`, not the box's words."""
    test, rng = p.test.get(d), phrase.rng
    if d in p.errors:
        exc = p.errors[d]
        a = "an" if exc[:1].lower() in "aeiou" else "a"
        return rng.choice([f"{a} {exc} is raised", f"{a} {exc} occurs"]) if holds else \
            rng.choice([f"no {exc} occurs", "everything succeeds without an error"])
    if test is None:
        var, seq = p.each.get(d, ("item", "items"))
        seq = phrase.name(seq) if re.fullmatch(r"[\w.]+", seq) else seq
        return rng.choice([f"there is still another {var} in {seq}", f"{seq} still has items left"]) if holds else \
            rng.choice([f"every {var} in {seq} has been processed", f"the loop through {seq} is finished"])
    return phrase.condition(test, holds) or condition_words(test, holds)


def _listing(count: int, rng: random.Random) -> str:
    """``count`` numbers read out as a list: "4, 9 and 2"."""
    nums = [str(rng.randint(1, 20)) for _ in range(count)]
    return nums[0] if count == 1 else f"{', '.join(nums[:-1])} and {nums[-1]}"


def settle_in_words(p: RealProgram, d: str, holds: bool, rng: random.Random, values: dict[str, Any],
                    phrase: _Phrasing) -> str:
    """A clause of a story about a worded program that settles check ``d`` by the input values,
    as an LLM writes them: "the count is 7", "the lines list holds 4, 9 and 2", "key is None",
    "x comes in as -3"; conditions without values in words ("the buffer is empty", "a KeyError
    is raised"). ``values`` collects the numbers stated (by code name)."""
    test = p.test.get(d)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and d not in p.errors:
        left, right, op = test.left, test.comparators[0], test.ops[0]
        if isinstance(right, ast.Constant) and isinstance(right.value, int) and not isinstance(right.value, bool) \
                and isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)):
            c = right.value
            if isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len" \
                    and len(left.args) == 1:
                sizes = [v for v in range(max(0, c - 4), c + 5) if _compare(op, v, c) == holds]
                if sizes:
                    v = rng.choice(sizes)
                    seq = _src(left.args[0])
                    values[seq] = v
                    s = phrase.name(seq)
                    if v == 0:
                        return rng.choice([f"{s} is empty", f"{s} has no items"])
                    return rng.choice([f"{s} holds {_listing(v, rng)}" if v <= 5 else f"{s} holds {v} items",
                                       f"{s} has {v} items"])
            if _simple(left):
                v = rng.choice([v for v in range(c - 6, c + 7) if _compare(op, v, c) == holds])
                values[_src(left)] = v
                n = phrase.name(_src(left))
                return rng.choice([f"{n} is {v}", f"{n} comes in as {v}", f"the input {n} is {v}", f"{n} equals {v}"])
        if isinstance(left, ast.BinOp) and isinstance(left.op, ast.Mod) and _simple(left.left) \
                and isinstance(left.right, ast.Constant) and isinstance(left.right.value, int) and left.right.value > 1 \
                and _is_const(right, 0) and isinstance(op, (ast.Eq, ast.NotEq)):
            k = left.right.value
            divides = isinstance(op, ast.Eq) == holds
            v = k * rng.randint(1, 9) + (0 if divides else rng.randint(1, k - 1))
            values[_src(left.left)] = v
            return rng.choice([f"{phrase.name(_src(left.left))} is {v}", f"the input is {v}"])
        if _simple(left) and _simple(right) and isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
            a, b = rng.choice([(a, b) for a in range(13) for b in range(13) if _compare(op, a, b) == holds])
            values[_src(left)], values[_src(right)] = a, b
            return f"{phrase.name(_src(left))} is {a} and {phrase.name(_src(right))} is {b}"
    return condition_in_words(p, d, holds, phrase)


def _compare(op: ast.cmpop, a: int, b: int) -> bool:
    return {ast.Lt: a < b, ast.LtE: a <= b, ast.Gt: a > b, ast.GtE: a >= b, ast.Eq: a == b,
            ast.NotEq: a != b}[type(op)]


def _trace(p: RealProgram, rng: random.Random) -> tuple[list[str], list[tuple[str, bool]]] | None:
    """A walk a run takes: from a random check through the branch chosen at each check it meets
    to a step (a return or print, or a step a few nodes on), never through a node twice; with the
    (check, holds) choices made on the way. None when the walk reaches nothing to ask about."""
    chart, meaning = p.chart, p.meaning
    checks = [n for n, m in meaning.items() if m in ("check", "loop")]
    cur = rng.choice(checks)
    walk, settled = [cur], []
    cap = rng.randint(2, 6)
    while True:
        if meaning[cur] in ("check", "loop"):
            options = [e for e in chart.out_edges(cur) if e.condition in ("yes", "no")]
            rng.shuffle(options)
            options = [e for e in options if e.target not in walk] or []
            if not options:
                return None
            e = options[0]
            settled.append((cur, e.condition == "yes"))
            nxt = e.target
        else:
            outs = chart.out_edges(cur)
            if len(outs) != 1:
                return None
            nxt = outs[0].target
        if meaning[nxt] in ("end", "start") or nxt in walk:
            break
        walk.append(nxt)
        cur = nxt
        if meaning[cur] in ("return", "print") or (len(walk) >= cap and meaning[cur] not in ("check", "loop")):
            break
    if meaning[walk[-1]] in ("check", "loop") or len(walk) < 2:
        return None
    return walk, settled


def make_real_code_questions(p: RealProgram, chart_id: str, rng: random.Random, *,
                             per_type: int = 1) -> list[dict[str, Any]]:
    """Questions of the four benchmark types about a `real_program` chart, as people ask about
    code: "what does the function return when x is negative", "after the counter is incremented,
    what is checked next", a run traced with given values through the checks ("this time n is
    4"), "how many decisions". Gold by docs/reasoning.md's conventions: a fact's node and the
    check a conditional fact settles; a scenario's walk from the first check its story settles to
    the answer (with the step it says was done just before, in a sentence after the opening one);
    a flow question's nodes and the decision it asks about; topological as `make_questions`."""
    from data_gen.qa import _q, make_questions

    chart, meaning, say = p.chart, p.meaning, p.say
    out: list[dict[str, Any]] = []
    fn = p.source

    def add(qtype: str, q: str, a: str, gold: list[str]) -> None:
        out.append(_q(chart_id, len(out), qtype, q, a, gold, "code", rng))

    checks = [n for n, m in meaning.items() if m in ("check", "loop")]
    steps = [n for n, m in meaning.items() if m not in ("start", "end", "check", "loop")]

    def does(n: str) -> str:
        """What the program does at node ``n``: "x is set to 0", "it checks whether x is set"."""
        return f"it checks {say[n]}" if meaning[n] in ("check", "loop") else say[n]

    phrase = _Phrasing(rng) if p.worded else None

    def words(d: str, holds: bool) -> str:
        test = p.test.get(d)
        if phrase is not None:
            return condition_in_words(p, d, holds, phrase)
        if test is None:
            var, seq = p.each.get(d, ("item", "items"))
            return f"there is another {var} in {seq}" if holds else f"the loop over {seq} has no items left"
        return condition_words(test, holds)

    for _ in range(per_type):  # fact retrieval
        branches = [(d, e) for d in checks for e in chart.out_edges(d)
                    if e.condition in ("yes", "no") and meaning[e.target] not in ("end", "check", "loop")]
        inits = [n for n in steps if meaning[n] in (("assign", "update") if p.worded else ("assign",))
                 and n in p.assigned]
        form = rng.choice((["branch"] * 3 if branches else []) + (["init"] if inits else [])
                          + (["cond"] if branches else []))
        if form == "branch":
            d, e = rng.choice(branches)
            cw, t = words(d, e.condition == "yes"), e.target
            if meaning[t] == "return":
                q = rng.choice([f"What does {fn} return when {cw}?", f"What does the function return if {cw}?",
                                f"If {cw}, what is returned?"])
            else:
                q = rng.choice([f"What happens if {cw}?", f"When {cw}, what does the program do?"])
            add("fact_retrieval", q, _cap(say[t]), [d, t])
        elif form == "init" and phrase is not None:  # "Which step updates the running total?"
            n = rng.choice(inits)
            var = phrase.name(p.assigned[n])
            verb = "updates" if meaning[n] == "update" else rng.choice(["sets", "assigns", "initializes"])
            q = rng.choice([f"Which step {verb} {var}?", f"Where in {fn} does the program change {var}?",
                            f"What is done to {var} in {fn}?"])
            add("fact_retrieval", q, _cap(say[n]), [n])
        elif form == "init":
            n = rng.choice(inits)
            name = p.assigned[n]
            value = say[n].split(" is set to ", 1)[-1].replace("the counter ", "").split(" starts at ")[-1]
            const = isinstance(ast.parse(value, mode="eval").body, ast.Constant) if value.isprintable() else False
            q = rng.choice([f"What is {name} set to?", f"What value does {name} get in {fn}?"]
                           + ([f"What is {name} initialised to?"] if const else []))
            add("fact_retrieval", q, rng.choice([value, f"{name} is set to {value}."]), [n])
        else:
            d, e = rng.choice(branches)
            t = e.target
            returned = say[t].split("the function returns ", 1)
            q = (f"When does {fn} return {returned[1]}?" if len(returned) == 2 and returned[1] and rng.random() < 0.5
                 else f"Under what condition does the program reach '{chart.nodes[t].text}'?")
            add("fact_retrieval", q, _cap(f"when {words(d, e.condition == 'yes')}"), [d, t])

    name = rng.choice(_NAMES)
    who = f"{name}, {rng.choice(_ROLES)},"
    made = 0
    for _ in range(per_type * 6):  # applied scenario: a run traced through the checks
        if made >= per_type:
            break
        traced = _trace(p, rng)
        if traced is None:
            continue
        walk, settled = traced
        values: dict[str, Any] = {}
        opening = rng.choice([f"{who} is tracing {fn}() by hand.", f"{who} runs {fn} on a small test input.",
                              f"{who} is stepping through {fn}() in a debugger."])
        facts, gold = [], []
        preds = chart.predecessors(walk[0])
        if len(preds) == 1 and meaning[preds[0]] in ("assign", "update", "call", "input") and preds[0] not in walk \
                and rng.random() < 0.4:
            facts.append(rng.choice([f"Just before that, {say[preds[0]]}.",
                                     f"{name} has just watched as {say[preds[0]]}."]))
            gold.append(preds[0])
        for d, holds in settled:
            if phrase is not None:
                clause = settle_in_words(p, d, holds, rng, values, phrase)
                lead = rng.choice(["Suppose ", "Say ", "At that point ", "This time ", "Assume "])
            else:
                clause = settle_words(p.test.get(d), p.each.get(d), holds, rng, values)
                lead = rng.choice(["At that point ", "Then ", "Here ", "This time ", "When it gets there, "])
            facts.append((lead + clause if not clause.startswith("this time") else f"T{clause[1:]}") + ".")
        answer = walk[-1]
        ask = (rng.choice([" What does the function return?", f" What value does {name} see returned?"])
               if meaning[answer] == "return" else
               rng.choice([" What gets printed?", " What does the program output?"]) if meaning[answer] == "print" else
               rng.choice([" What does the program do next?", f" Which step should {name} expect next?"]))
        add("applied_scenario", f"{opening} " + " ".join(facts) + ask, _cap(say[answer]), gold + walk)
        made += 1

    for _ in range(per_type):  # flow referential
        into_check = [n for n in steps if len(chart.out_edges(n)) == 1
                      and meaning[chart.out_edges(n)[0].target] in ("check", "loop")]
        plain = [n for n in steps if len(chart.out_edges(n)) == 1
                 and meaning[chart.out_edges(n)[0].target] not in ("end", "check", "loop")]
        before = [n for n in steps + checks if len(chart.predecessors(n)) == 1
                  and meaning[chart.predecessors(n)[0]] not in ("start",)]
        exits = [(d, e.target) for d in checks if meaning[d] == "loop" for e in chart.out_edges(d)
                 if e.condition == "no" and meaning[e.target] != "end"]
        branch_next = [(d, e) for d in checks for e in chart.out_edges(d)
                       if e.condition in ("yes", "no") and meaning[e.target] not in ("end", "check", "loop")]
        led = [(d, e, chart.out_edges(e.target)[0].target) for d in checks for e in chart.out_edges(d)
               if e.condition in ("yes", "no") and meaning[e.target] not in ("end", "check", "loop")
               and len(chart.out_edges(e.target)) == 1 and meaning[chart.out_edges(e.target)[0].target] != "end"]
        forms = [f for f, ok in (("into_check", into_check), ("after", plain), ("before", before),
                                 ("exit", exits), ("led", led), ("branch_next", branch_next)) if ok]
        if not forms:
            break
        form = rng.choice(forms)
        if form == "into_check":
            n = rng.choice(into_check)
            d = chart.out_edges(n)[0].target
            q = rng.choice([f"After {say[n]}, what is checked next?", f"Once {say[n]}, which condition is tested?"])
            add("flow_referential", q, _cap(f"it checks {say[d]}"), [n, d])
        elif form == "after":
            n = rng.choice(plain)
            t = chart.out_edges(n)[0].target
            q = rng.choice([f"What happens right after {say[n]}?", f"What is the next step after {say[n]}?"])
            add("flow_referential", q, _cap(does(t)), [n, t])
        elif form == "before":
            n = rng.choice(before)
            pr = chart.predecessors(n)[0]
            what = f"the program checks {say[n]}" if meaning[n] in ("check", "loop") else say[n]
            q = rng.choice([f"What happens just before {what}?", f"Which step comes immediately before {what}?"])
            add("flow_referential", q, _cap(say[pr] if meaning[pr] not in ("check", "loop") else f"it checks {say[pr]}"),
                [pr, n])
        elif form == "exit":
            d, t = rng.choice(exits)
            seq = p.each.get(d, (None, None))[1]
            one_loop = sum(meaning[n] == "loop" for n in checks) == 1
            q = (rng.choice([f"Once the loop over {seq} is done, what does the program do?",
                             f"When the loop over {seq} ends, what runs next?"]) if seq else
                 rng.choice([f"When {words(d, False)}, where does the loop go?"]
                            + (["When the loop ends, what is the next step?"] if one_loop else [])))
            add("flow_referential", q, _cap(does(t)), [d, t])
        elif form == "branch_next":  # "what comes after X" asked of a check's branch: the check and that step
            d, e = rng.choice(branch_next)
            q = rng.choice([f"If {words(d, e.condition == 'yes')}, what is the next step?",
                            f"Where does the program go next when {words(d, e.condition == 'yes')}?"])
            add("flow_referential", q, _cap(say[e.target]), [d, e.target])
        else:
            d, e, s = rng.choice(led)
            q = f"What is the immediate next step after {say[e.target]}, and what decision led to that step?"
            a = f"Next {does(s)}; {say[e.target]} only when {words(d, e.condition == 'yes')}."
            add("flow_referential", q, a, [d, e.target, s])

    for rec in make_questions(chart, chart_id, rng, per_type=per_type, domain="code"):
        if rec["type"] == "topological":
            add("topological", rec["question"], rec["answer"], rec["gold"])
    if rng.random() < 0.3:
        q = rng.choice(["How many decisions does the flowchart contain?", "How many decision points are there?"])
        add("topological", q, str(len(checks)), checks)
    return out
