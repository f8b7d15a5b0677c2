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

import random
from dataclasses import dataclass, field
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

