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
* the step before or after a named step ("What do you do once the olive oil is warmed up?";
  gold: the step asked for, not the one named, as `make_questions` labels it);
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


def fact_chart(rng: random.Random) -> tuple[FlowChart, str, dict[str, tuple[str, _Detail, int]]]:
    """A procedural chart (`random_chart`, half the checks numeric) whose steps carry details:
    most get a detail clause, some a second sentence of advice. Returns ``(chart, domain,
    details)`` with each detailed step's id mapped to ``(its original text, the detail, the
    number in it)``."""
    chart, domain = random_chart(rng, numeric_rate=0.5)
    details: dict[str, tuple[str, _Detail, int]] = {}
    pool = list(_DETAILS[domain])
    seen_objects: list[str] = []
    for node in list(chart):
        if node.kind in ("start", "end", "terminal", "decision"):
            continue
        verb, _, obj = (node.text or "").partition(" ")
        if seen_objects and obj and rng.random() < _SHARED_OBJECT_RATE:
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

    def add(q: str, a: str, gold: list[str]) -> None:
        out.append(_q(chart_id, len(out), "fact_retrieval", q, a, gold, domain, rng))

    def base(n: str) -> str:  # a step's text without its detail
        return details[n][0] if n in details else text[n]

    plain = [n for n in steps if n not in details]
    for _ in range(per_type + 2):
        r = rng.random()
        if branch_edges and r < 0.25:  # the documented settled-branch fact: the check and its branch
            d, e = rng.choice(branch_edges)
            clause = settle(text[d], e.condition or "", rng)
            if clause is not None:
                q = rng.choice([f"What should be done if {clause}?", f"What happens when {clause}?",
                                f"If {clause}, what should you do?"])
                add(q, reword(base(e.target), rng), [d, e.target])
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
            add(q, rng.choice([f"You {_lower_first(reword(text[t], rng))}.", f"{reword(text[t], rng)}."]), [t])
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
