"""Fact-retrieval questions asked the way people ask them, on charts whose steps carry details.

`data_gen.qa --hard` and ``--style flowvqa`` ask fact questions about short node texts ("Heat
the olive oil"), and nearly every conditional question there settles a check (gold: the check
and its branch), so a reasoner that adds a neighbouring check whenever a question says "if" or
"when" loses nothing on them (generated fact F1 ~95 against the benchmark's ~62, whose
precision is the weak part: the reasoner adds nodes the gold does not have). FlowVQA's fact
retrieval is information localised in a node, and FlowPathAgent's task is the minimum set of
nodes directly associated with the statement (docs/reasoning.md, F3 and P6; issue 15 item 3: a
check is needed only when the statement takes its branch). `make_fact_questions` asks in that
way, on procedural charts whose steps read like recipe or instruction steps (a detail with a
number, a tool, a deadline, a second sentence of advice):

* a step's detail, paraphrased ("How long should the olive oil be warmed up?" -> "About 10
  minutes"; gold: that step);
* yes/no facts ("Do you warm up the olive oil for 20 minutes?" -> "No, for 10 minutes");
* the step before or after a named step ("What do you do once the olive oil is warmed up?"):
  a flow-referential question (gold: the named step and the one asked for, docs/reasoning.md
  "Gold conventions"; until 2026-11-25, twelfth stretch, a fact question grounded by the
  neighbour alone);
* questions that say "if" / "when" / "whether" without settling any check ("When you warm up
  the olive oil, how long should it take?"; gold: the step);
* answers that restate the question's context ("After rinsing the jar, heat the oil for 10
  minutes"; the context step is not gold);
* what a check asks ("What does the chart check about the glue?" -> "Whether it is dry";
  gold: the check alone);
* the settled-branch question of the documented convention ("What should be done if the glue
  is not dry?"; gold: the check and the step on the branch taken), about a quarter.

    python -m data_gen.qa --out /work/data/fact9_val --charts 300 --seed 901 --style fact
"""

from __future__ import annotations

import random
from typing import Any

from data_gen.qa import (
    _REWORD,
    _THRESHOLD,
    _chart_views,
    _check_subject,
    _lower_first,
    _q,
    loose,
    random_chart,
    reword,
    settle,
)
from flowpath.graph import FlowChart, Node

# a step's detail: how the node says it (``{n}`` a number), how a question asks for it
# (``{do}`` the reworded action with its object), and the answer's forms
_Detail = tuple[str, list[str], list[str], list[int]]
_DETAILS: dict[str, list[_Detail]] = {
    "instruct": [
        ("for {n} minutes", ["How long should you {do}?", "For how many minutes do you {do}?",
                             "How much time does the chart give to {do}?"],
         ["For {n} minutes.", "About {n} minutes.", "{n} minutes, according to the chart."], [2, 5, 10, 15, 20, 30, 45]),
        ("at {n} degrees", ["At what temperature do you {do}?", "What temperature is needed to {do}?"],
         ["At {n} degrees.", "{n} degrees.", "It should be done at {n} degrees."], [40, 60, 90, 120, 180, 200, 220]),
        ("with {n} ml of warm water", ["How much water is used to {do}?", "What amount of water do you need to {do}?"],
         ["{n} ml of warm water.", "About {n} ml.", "You need {n} ml of warm water."], [50, 100, 150, 250, 500]),
        ("using a soft brush", ["What tool should you use to {do}?", "What do you need in order to {do}?"],
         ["A soft brush.", "You use a soft brush.", "The chart says a soft brush."], []),
        ("with a wooden spoon", ["What should you use to {do}?", "Which utensil is needed to {do}?"],
         ["A wooden spoon.", "With a wooden spoon.", "Use a wooden spoon."], []),
        ("until it is smooth", ["How far should you {do}?", "How do you know you have finished when you {do}?"],
         ["Until it is smooth.", "Keep going until it is smooth.", "When it is smooth."], []),
        ("in {n} thin layers", ["In how many layers do you {do}?", "How many layers are needed to {do}?"],
         ["In {n} thin layers.", "{n} layers.", "It takes {n} thin layers."], [2, 3, 4]),
    ],
    "code": [
        ("with a limit of {n} items", ["What limit applies when you {do}?", "How many items at most when you {do}?"],
         ["{n} items.", "A limit of {n} items.", "At most {n} items."], [10, 50, 100, 256, 1000]),
        ("with a timeout of {n} seconds", ["What timeout is used to {do}?", "How long may it take to {do}?"],
         ["{n} seconds.", "A timeout of {n} seconds.", "It times out after {n} seconds."], [5, 10, 30, 60]),
        ("in ascending order", ["In which order do you {do}?", "What order is used to {do}?"],
         ["In ascending order.", "Ascending.", "Smallest first, in ascending order."], []),
        ("using a hash map", ["Which data structure is used to {do}?", "What helps you {do}?"],
         ["A hash map.", "It uses a hash map.", "With a hash map."], []),
        ("starting at index {n}", ["From which index do you {do}?", "Where does the program start when you {do}?"],
         ["From index {n}.", "At index {n}.", "Index {n}."], [0, 1, 2]),
    ],
    "wiki": [
        ("at least {n} days in advance", ["How early should you {do}?", "How many days ahead do you {do}?"],
         ["At least {n} days in advance.", "{n} days ahead.", "No later than {n} days before."], [3, 5, 7, 14, 30]),
        ("by email", ["How should you {do}?", "Through which channel do you {do}?"],
         ["By email.", "Send it by email.", "The chart says by email."], []),
        ("through the online portal", ["Where do you {do}?", "Which channel is used to {do}?"],
         ["Through the online portal.", "Online, on the portal.", "Via the online portal."], []),
        ("in person at the office", ["How do you {do}?", "Where must you go to {do}?"],
         ["In person at the office.", "At the office, in person.", "You go to the office."], []),
        ("for a fee of {n} dollars", ["How much does it cost to {do}?", "What fee is charged to {do}?"],
         ["{n} dollars.", "A fee of {n} dollars.", "It costs {n} dollars."], [10, 25, 40, 60, 120]),
    ],
}
# a second sentence of advice on some steps (recipe and instruction charts have long nodes)
_TIPS: dict[str, list[_Detail]] = {
    "instruct": [("Wear gloves while doing this.", ["What protection does the chart recommend when you {do}?"],
                  ["Gloves.", "Wear gloves.", "It says to wear gloves."], []),
                 ("Keep children away from the work area.", ["Who should stay away while you {do}?"],
                  ["Children.", "Keep children away.", "Children should stay away."], [])],
    "code": [("Log the result for debugging.", ["What else is done for debugging when you {do}?"],
              ["The result is logged.", "Log the result.", "It logs the result."], [])],
    "wiki": [("Keep a copy for your records.", ["What should you keep when you {do}?"],
              ["A copy for your records.", "Keep a copy.", "A copy, for your records."], [])],
}
_DETAIL_RATE = 0.7
_SHARED_OBJECT_RATE = 0.3



def _settled_branch_question(clause: str, rng: random.Random) -> str:
    """The documented settled-branch fact question ("What should be done if the glue is dry?")
    for the clause that settles a check's branch; gold: the check and the branch's step."""
    return rng.choice([f"What should be done if {clause}?", f"What happens when {clause}?",
                       f"If {clause}, what should you do?"])

def fact_chart(rng: random.Random, *, shared_object_rate: float = _SHARED_OBJECT_RATE,
               ) -> tuple[FlowChart, str, dict[str, tuple[str, _Detail, int]]]:
    """A procedural chart (`random_chart`, half the checks numeric) whose steps carry details:
    most get a detail clause, some a second sentence of advice; a share ``shared_object_rate``
    of the steps work on an object an earlier step names. Returns ``(chart, domain, details)``
    with each detailed step's id mapped to ``(its original text, the detail, the number in
    it)``."""
    chart, domain = random_chart(rng, numeric_rate=0.5)
    details: dict[str, tuple[str, _Detail, int]] = {}
    pool = list(_DETAILS[domain])
    seen_objects: list[str] = []
    for node in list(chart):
        if node.kind in ("start", "end", "terminal", "decision"):
            continue
        verb, _, obj = (node.text or "").partition(" ")
        if seen_objects and obj and rng.random() < shared_object_rate:
            # recipe steps work on the same thing ("Knead the dough", "Shape the dough"): the
            # object alone does not name the step
            obj = rng.choice(seen_objects)
            node = Node(node.id, f"{verb} {obj}", node.shape)
            chart.add_node(node)
        seen_objects.append(obj)
        if rng.random() > _DETAIL_RATE:
            continue
        detail = rng.choice(_TIPS[domain]) if rng.random() < 0.15 else rng.choice(pool)
        n = rng.choice(detail[3]) if detail[3] else 0
        phrase = detail[0].format(n=n)
        # a detail clause continues the step; a tip is its own sentence
        text = f"{node.text}. {phrase}" if phrase[0].isupper() else f"{node.text} {phrase}"
        details[node.id] = (node.text or "", detail, n)
        chart.add_node(Node(node.id, text, node.shape))
    return chart, domain, details


def _action(text: str, rng: random.Random) -> str:
    """How a question names a step: its verb reworded (sometimes kept), its object loosely."""
    verb, _, obj = text.partition(" ")
    do = _REWORD.get(verb.lower(), verb.lower()) if rng.random() < 0.7 else verb.lower()
    return f"{do} {loose(obj, rng) if obj and rng.random() < 0.4 else obj}".strip()


def make_fact_questions(chart: FlowChart, chart_id: str, rng: random.Random, *, per_type: int = 1,
                        domain: str = "synthetic",
                        details: dict[str, tuple[str, _Detail, int]] | None = None) -> list[dict[str, Any]]:
    """Fact-retrieval questions (``per_type`` + 2 a chart) in the forms of the module docstring,
    each with the nodes that ground it. ``details`` is `fact_chart`'s map."""
    g, text, kind, steps, branch_edges = _chart_views(chart)
    details = details or {}
    out: list[dict[str, Any]] = []

    def add(q: str, a: str, gold: list[str], qtype: str = "fact_retrieval") -> None:
        out.append(_q(chart_id, len(out), qtype, q, a, gold, domain, rng))

    def base(n: str) -> str:  # a step's text without its detail
        return details[n][0] if n in details else text[n]

    plain = [n for n in steps if n not in details]
    for _ in range(per_type + 2):
        r = rng.random()
        if branch_edges and r < 0.25:  # the documented settled-branch fact: the check and its branch
            d, e = rng.choice(branch_edges)
            clause = settle(text[d], e.condition or "", rng)
            if clause is not None:
                add(_settled_branch_question(clause, rng), reword(base(e.target), rng), [d, e.target])
                continue
        if details and r < 0.7:  # a step's detail, asked plainly, as yes/no, or with "if"/"when"
            n = rng.choice(sorted(details))
            orig, (_, asks, answers, numbers), num = details[n]
            do = _action(orig, rng)
            form = rng.random()
            if form < 0.5:
                q = rng.choice(asks).format(do=do)
            elif form < 0.75:
                lead = rng.choice(["When you {do}", "If you need to {do}", "When it is time to {do}",
                                   "If you are about to {do}"]).format(do=do)
                q = f"{lead}, {_lower_first(rng.choice(asks).format(do='do it'))}"
            else:
                shown = rng.choice(answers).format(n=num).rstrip(".")
                other = rng.choice([x for x in numbers if x != num] or [num + 1])
                wrong = rng.choice(answers).format(n=other).rstrip(".")
                claim = shown if rng.random() < 0.5 else wrong
                q = rng.choice([f"Does the chart say to {do} — {_lower_first(claim)}?",
                                f"Is it right that you {do}: {_lower_first(claim)}?"])
                add(q, f"Yes. {shown}." if claim == shown else f"No. {shown}.", [n])
                continue
            a = rng.choice(answers).format(n=num)
            preds = [p for p in chart.predecessors(n) if kind[p] not in ("start", "end", "terminal", "decision")]
            if preds and rng.random() < 0.3:  # an answer that restates where the step comes
                a = f"After you {_lower_first(reword(base(preds[0]), rng))}, {_lower_first(a)}"
            add(q, a, [n])
            continue
        if r < 0.85 and steps:  # the step next to a named one: gold is the step asked for
            s = rng.choice(steps)
            succ = [t for t in chart.successors(s) if kind[t] not in ("start", "end", "terminal", "decision")]
            pred = [t for t in chart.predecessors(s) if kind[t] not in ("start", "end", "terminal", "decision")]
            if succ and (not pred or rng.random() < 0.7):
                t = rng.choice(succ)
                q = rng.choice([f"What do you do once you {_action(base(s), rng)}?",
                                f"What is done after you {_action(base(s), rng)}?",
                                f"Once you {_action(base(s), rng)}, what follows?"])
            elif pred:
                t = rng.choice(pred)
                q = rng.choice([f"What has to be done before you {_action(base(s), rng)}?",
                                f"What do you do just before you {_action(base(s), rng)}?"])
            else:
                continue
            # "what do you do once / just before you X" asks about the sequence: a flow-referential
            # question grounded by X and the neighbour asked for (docs/reasoning.md "Gold
            # conventions"; the how-to generator was mended the same way, eleventh stretch)
            add(q, rng.choice([f"You {_lower_first(reword(text[t], rng))}.", f"{reword(text[t], rng)}."]), [s, t],
                "flow_referential")
            continue
        checks = [d for d in chart.nodes if kind[d] == "decision"]
        if checks:  # what a check asks: the check alone
            d = rng.choice(checks)
            subject = _check_subject(text[d])
            q = rng.choice([f"What does the chart check about {subject}?",
                            f"Which question is asked about {subject}?",
                            f"What condition on {subject} does the process test?"])
            m = _THRESHOLD.match(text[d])
            asked = f"{m.group(1)} is {m.group(2)} {m.group(3)}" if m else settle(text[d], "yes", rng)
            if asked is None:
                continue
            add(q, rng.choice([f"Whether {asked}.", f"It checks whether {asked}.",
                               f"It asks if {asked}."]), [d])
        elif plain or steps:
            n = rng.choice(plain or steps)
            add(f"Is there a step to {_action(base(n), rng)}?", f"Yes: {reword(base(n), rng)}.", [n])
    return out


# -- harder fact questions (tenth stretch): words shared between nodes ------------------------
# The fact sets above score ~97 while the benchmark's fact retrieval scores ~64 with precision
# the weak side. What makes a fact question hard to ground is a chart whose node texts share
# words: steps on the same object with the same verb (only their details differ), long steps
# that name a neighbour or the check after them ("Press the glue to see whether the glue is
# dry"), questions that name a neighbour as context, answers that restate context, program
# charts whose nodes all name the same variables. Gold stays FlowVQA's information localised
# in a node and P6's minimum set (docs/reasoning.md): one node, the check and its branch step
# only when the question settles the check.
_NEAR_DUPLICATE_RATE = 0.35
_NEIGHBOUR_MENTION_RATE = 0.2
_CHECK_MENTION_RATE = 0.6
_PROGRAM_RATE = 0.2


def _detail_phrase(detail: _Detail, n: int) -> str:
    return detail[0].format(n=n)


def _with_detail(base: str, detail: _Detail, n: int) -> str:
    phrase = _detail_phrase(detail, n)
    return f"{base}. {phrase}" if phrase[0].isupper() else f"{base} {phrase}"


def hard_fact_chart(rng: random.Random) -> tuple[FlowChart, str, dict[str, tuple[str, _Detail, int]],
                                                 dict[str, tuple[str, str]]]:
    """A `fact_chart` whose node texts share many words: most steps work on an object an earlier
    step names, some repeat an earlier step's verb and object with another detail ("Stir the
    sauce for 5 minutes", "Stir the sauce until it is smooth"), some name the step after them
    ("Rinse the jar, then heat the oil"), and the step before a check often says it tests what
    the check asks ("Press the glue to see whether the glue is dry"). Returns ``(chart, domain,
    details, notes)``; ``notes`` maps such a step to ``(the check, the clause it tests)``."""
    chart, domain, details = fact_chart(rng, shared_object_rate=0.6)
    kind = {n.id: n.kind for n in chart}
    steps = [n for n in chart.nodes if kind[n] not in ("start", "end", "terminal", "decision")]
    detailed = [n for n in steps if n in details]
    for i, n in enumerate(detailed):
        if rng.random() >= _NEAR_DUPLICATE_RATE:
            continue
        template = details[n][1][0]
        # an earlier step to repeat, so that no two steps with one wording share a kind of detail
        # (each question then has one answer)
        earlier = [m for m in detailed[:i] if details[m][0] != details[n][0]
                   and all(details[k][1][0] != template for k in detailed if details[k][0] == details[m][0])]
        if not earlier:
            continue
        base = details[rng.choice(earlier)][0]
        _, detail, num = details[n]
        details[n] = (base, detail, num)
        chart.add_node(Node(n, _with_detail(base, detail, num), chart.nodes[n].shape))
    notes: dict[str, tuple[str, str]] = {}
    for d in [n for n in chart.nodes if kind[n] == "decision"]:
        preds = [p for p in chart.predecessors(d) if kind[p] not in ("start", "end", "terminal", "decision")
                 and not any(e.condition for e in chart.out_edges(p))]
        if not preds or rng.random() >= _CHECK_MENTION_RATE:
            continue
        p, dtext = preds[0], (chart.nodes[d].text or "").strip()
        m = _THRESHOLD.match(dtext)
        clause = m.group(1) if m else settle(dtext, "yes", rng)
        if clause is None or p in notes or (p in details and _detail_phrase(*details[p][1:])[0].isupper()):
            continue  # (a step with a sentence of advice keeps it last)
        tail = f"and note {clause}" if m else f"to see whether {clause}"
        chart.add_node(Node(p, f"{chart.nodes[p].text} {tail}", chart.nodes[p].shape))
        notes[p] = (d, clause)
    for s in steps:
        succ = [t for t in chart.successors(s) if t in steps and t not in notes]
        if s in notes or not succ or (chart.nodes[s].text or "").endswith(".") \
                or rng.random() >= _NEIGHBOUR_MENTION_RATE:
            continue
        t = succ[0]
        verb, _, obj = (details[t][0] if t in details else chart.nodes[t].text or "").partition(" ")
        if obj:
            chart.add_node(Node(s, f"{chart.nodes[s].text}, then {verb.lower()} {obj}", chart.nodes[s].shape))
    return chart, domain, details, notes


def make_hard_fact_questions(chart: FlowChart, chart_id: str, rng: random.Random, *, per_type: int = 1,
                             domain: str = "synthetic", details: dict[str, tuple[str, _Detail, int]] | None = None,
                             notes: dict[str, tuple[str, str]] | None = None) -> list[dict[str, Any]]:
    """Fact questions (``per_type`` + 2 a chart) on a `hard_fact_chart`: a step's detail asked
    with a neighbour named as context ("Once you rinse the jar, how long do you heat the oil?")
    or answered with it ("About 10 minutes, right after you rinse the jar"), a step found by its
    detail ("What is done with a wooden spoon?"), the step that tests what a check asks ("How do
    you find out whether the glue is dry?"; gold: that step, not the check), the step after a
    named one (flow referential: both steps), what a check asks, and the documented
    settled-branch question (gold: the check and its branch step), about a fifth."""
    g, text, kind, steps, branch_edges = _chart_views(chart)
    details = details or {}
    notes = notes or {}
    out: list[dict[str, Any]] = []

    def add(q: str, a: str, gold: list[str], qtype: str = "fact_retrieval") -> None:
        out.append(_q(chart_id, len(out), qtype, q, a, gold, domain, rng))

    def base(n: str) -> str:  # a step's text without its detail, its note or the neighbour it names
        if n in details:
            return details[n][0]
        return text[n].split(", then ")[0].split(" to see whether ")[0].split(" and note ")[0]

    def step_preds(n: str) -> list[str]:  # steps before ``n`` worded otherwise (context that names a step)
        return [p for p in chart.predecessors(n) if p in steps and base(p) != base(n)]

    phrases = [_detail_phrase(d, num) for _, d, num in details.values()]
    for _ in range(per_type + 2):
        r = rng.random()
        if branch_edges and r < 0.2:
            d, e = rng.choice(branch_edges)
            clause = settle(text[d], e.condition or "", rng)
            if clause is not None:
                add(_settled_branch_question(clause, rng), reword(base(e.target), rng), [d, e.target])
                continue
        if notes and r < 0.4:  # the step that tests what a check asks: that step alone
            p = rng.choice(sorted(notes))
            d, clause = notes[p]
            if _THRESHOLD.match(text[d]):
                q = rng.choice([f"At which step do you note {clause}?", f"When is {clause} noted?",
                                f"What are you doing when you note {clause}?"])
            else:  # an embedded question, or the goal the step serves
                q = rng.choice([f"How do you find out whether {clause}?", f"What do you do to tell if {clause}?",
                                f"Which step lets you see whether {clause}?", f"What do you do to make sure {clause}?",
                                f"How can you confirm that {clause}?"])
            add(q, rng.choice([f"You {_lower_first(reword(base(p), rng))}.", f"{reword(base(p), rng)}."]), [p])
            continue
        if details and r < 0.8:
            n = rng.choice(sorted(details))
            orig, (_, asks, answers, numbers), num = details[n]
            do = _action(orig, rng)
            a = rng.choice(answers).format(n=num)
            phrase = _detail_phrase(details[n][1], num)
            preds = step_preds(n)
            form = rng.random()
            if form < 0.35 and preds:  # a neighbour named as the question's context
                p = rng.choice(preds)
                lead = rng.choice(["Once you {p}", "After you {p}", "Having done the step to {p}"]).format(
                    p=_action(base(p), rng))
                add(f"{lead}, {_lower_first(rng.choice(asks).format(do=do))}", a, [n])
            elif form < 0.6 and phrases.count(phrase) == 1 and not phrase[0].isupper():  # found by its detail
                q = rng.choice([f"What do you do {phrase}?", f"Which step is done {phrase}?",
                                f"According to the chart, what is done {phrase}?"])
                add(q, rng.choice([f"You {_lower_first(reword(orig, rng))}.", f"{reword(orig, rng)}."]), [n])
            elif form < 0.8 and preds:  # an answer that restates where the step comes
                tail = rng.choice([", right after you {p}.", ", once you {p}.", ", just after the step to {p}."])
                add(rng.choice(asks).format(do=do), a.rstrip(".") + tail.format(p=_action(base(preds[0]), rng)), [n])
            else:
                add(rng.choice(asks).format(do=do), a, [n])
            continue
        if r < 0.92 and steps:  # the step after a named one: flow referential, both steps
            s = rng.choice(steps)
            succ = [t for t in chart.successors(s) if t in steps]
            if not succ:
                continue
            t = rng.choice(succ)
            q = rng.choice([f"What do you do once you {_action(base(s), rng)}?",
                            f"Once you {_action(base(s), rng)}, what follows?"])
            a = reword(base(t), rng)
            if t in details:
                a = f"{a} {_detail_phrase(details[t][1], details[t][2])}".rstrip(".")
            add(q, rng.choice([f"You {_lower_first(a)}.", f"{a}."]), [s, t], "flow_referential")  # as above
            continue
        checks = [d for d in chart.nodes if kind[d] == "decision"]
        if checks:  # what a check asks: the check alone
            d = rng.choice(checks)
            subject = _check_subject(text[d])
            m = _THRESHOLD.match(text[d])
            asked = f"{m.group(1)} is {m.group(2)} {m.group(3)}" if m else settle(text[d], "yes", rng)
            if asked is None:
                continue
            q = rng.choice([f"What does the chart check about {subject}?", f"Which question is asked about {subject}?"])
            add(q, rng.choice([f"Whether {asked}.", f"It checks whether {asked}."]), [d])
    return out


def make_program_fact_questions(program: Any, chart_id: str, rng: random.Random, *,
                                per_type: int = 1) -> list[dict[str, Any]]:
    """Fact questions on a program chart (`data_gen.code_qa.random_program`), whose nodes all
    name the same few variables: `make_code_questions`' fact questions and questions about the
    input, the element loaded in the loop and the counter's update (gold: that node)."""
    from data_gen.code_qa import make_code_questions

    role, var = program.role, program.var
    out = [q for q in make_code_questions(program, chart_id, rng, per_type=per_type)
           if q["type"] == "fact_retrieval"]
    forms = [("input", [f"What does the program read in before {var['acc']} is set?",
                        "Which values does the program take as input?"],
              [f"{var['arr']} and {var['b']}.", f"It reads {var['arr']} and {var['b']}."]),
             ("body", [f"What is stored in {var['x']} on each pass of the loop?",
                       f"Where does {var['x']} get its value inside the loop?"],
              [f"The next element of {var['arr']}.", f"{var['arr']}[{var['c']}], the current element."])]
    for r, asks, answers in rng.sample(forms, 2):
        q = _q(chart_id, len(out), "fact_retrieval", rng.choice(asks), rng.choice(answers), [role[r]], "code", rng)
        out.append(q)
    for k, q in enumerate(out):
        q["id"] = f"{chart_id}_q{k}"
    return out
