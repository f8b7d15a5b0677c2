"""Harder applied-scenario questions: stories that walk several decisions of a chart.

`data_gen.qa --hard` tells a scenario by restating each check it settles ("the credit score is
720", "the glue is not dry"), so the reasoner recognises nearly every settled check (generated
scenario recall 94-99) and the generated sets cannot tell good scenario rules from bad ones.
The benchmark's scenarios tell stories that settle checks the way people talk (issue 15's loan
example: the story mentions a credit score and an income, the gold is credit check -> income
check -> reject). `make_scenario_questions` asks in that way, on procedural charts with more
decisions than ``--hard``'s:

* numbers against thresholds in everyday words ("a score of 720", "earns $2,450 a month",
  "is 16 years old" against "Is the applicant's age under 18?"), thousands written with a
  separator, the check's own text in several forms ("Credit score > 600?", "... over 600?");
* negations in their short and long forms ("hasn't", "is no longer", "never");
* checks restated in other words, some by their opposite ("the glue is still wet" for "Is the
  glue dry?" -> no), or answered explicitly ("the answer is no");
* checks settled implicitly: a check between two settled ones the story does not mention,
  or one settled by the step the person chose on its branch ("opts to ...");
* irrelevant details: scenery, numbers that belong to no check, clauses out of chart order.

Gold (docs/reasoning.md, "Gold conventions"): the walk from the first decision the story settles
to the answer node, through the branch taken at each decision, the steps between included;
plus the step the story says was done just before that decision (in a sentence after the
opening one); nothing after the answer.

    python -m data_gen.qa --out /work/data/scen8_val --charts 300 --seed 200 --style scenario
"""

from __future__ import annotations

import random
from typing import Any

import networkx as nx

from data_gen.qa import (
    _DOMAINS,
    _THRESHOLD,
    NAMES,
    _branch_condition,
    _chart_views,
    _lower_first,
    _persona,
    _q,
    random_chart,
    reword,
    settle,
    threshold_value,
)
from flowpath.graph import FlowChart, Node

# how a story gives each numeric check's quantity: ``{v}`` the value, ``{name}`` the person.
# Some share the quantity's head noun with the check ("a credit score of 720"), some none
# ("earns 2,450 a month"): both are how people tell it.
_QUANTITY_PHRASES: dict[str, list[str]] = {
    "the oven temperature": ["the oven has reached {v} degrees", "the oven thermometer shows {v}",
                             "the oven temperature is {v}"],
    "the water level": ["the water stands at {v}", "the water level gauge shows {v}", "the level reads {v}"],
    "the board length": ["the board measures {v}", "the board is {v} long", "the length of the board is {v}"],
    "the drying time": ["it has been drying for {v} minutes", "the drying time so far is {v}",
                        "{name} has let it dry for {v} minutes"],
    "the paint thickness": ["the coat of paint is {v} thick", "the paint thickness comes to {v}",
                            "the paint layer measures {v}"],
    "the soil pH": ["the soil tests at a pH of {v}", "a soil pH of {v} shows on the meter", "the pH is {v}"],
    "'n'": ["n is {v}", "n holds {v}", "the input n equals {v}"],
    "len(nums)": ["nums has {v} elements", "the list nums holds {v} items", "the length of nums is {v}"],
    "the retry count": ["it has retried {v} times", "the retry counter shows {v}", "{name} sees {v} retries logged"],
    "'total'": ["total has reached {v}", "the running total is {v}", "total comes to {v}"],
    "the buffer size": ["the buffer holds {v} bytes", "the buffer is {v} bytes", "a buffer size of {v}"],
    "'depth'": ["depth is {v}", "the recursion is {v} levels deep", "the depth counter reads {v}"],
    "the credit score": ["{name} has a credit score of {v}", "the score comes back at {v}",
                         "{name} scored {v} on the credit check"],
    "the monthly income": ["{name} earns {v} a month", "{name} has a monthly income of {v}",
                           "{name} takes home {v} each month"],
    "the applicant's age": ["{name} is {v} years old", "{name} has just turned {v}", "the applicant is {v}"],
    "the number of guests": ["{v} guests have said they will come", "{name} expects {v} guests",
                             "the guest list has {v} names"],
    "the account balance": ["{name} has {v} in the account", "the balance stands at {v}",
                            "the account holds {v}"],
    "the wait time": ["the wait is {v} minutes", "{name} has been waiting {v} minutes", "the queue takes {v} minutes"],
}
_MONEY = ("the monthly income", "the account balance")
# the check's own text in other forms the benchmark's charts use ("Credit score > 600?")
_COMPARATOR_FORMS = {"above": ["above", "over", ">", "greater than"], "greater than": ["greater than", "over", ">"], "below": ["below", "under", "<", "less than"],
                     "more than": ["more than", "over", ">"], "less than": ["less than", "under", "fewer than", "<"],
                     "at least": ["at least", ">=", "no less than"], "at most": ["at most", "<=", "no more than"]}
# each yes/no check restated in other words: (a "yes" reading, a "no" reading); some readings
# say the opposite ("still wet" for "dry"), some use no word of the check
_CHECK_PHRASES: dict[str, tuple[list[str], list[str]]] = {
    "Is the glue dry": (["the glue has dried", "the glue has set completely"], ["the glue is still wet", "the glue has not set yet"]),
    "Does the lid fit snugly": (["the lid sits tight", "the lid fits snugly"], ["the lid is loose", "the lid doesn't fit snugly"]),
    "Is the water boiling": (["the water is bubbling hard", "the water has come to the boil"], ["the water is only lukewarm", "the water isn't boiling yet"]),
    "Is the surface smooth": (["the surface feels even", "the surface is smooth now"], ["the surface is still rough", "the surface isn't smooth"]),
    "Are all screws tight": (["every screw is fastened", "all the screws are tight"], ["a couple of screws are loose", "not all screws are tight"]),
    "Is the dough elastic": (["the dough springs back", "the dough is nice and elastic"], ["the dough tears easily", "the dough isn't elastic"]),
    "Has the paint cured": (["the paint has hardened", "the paint has fully cured"], ["the paint is still tacky", "the paint hasn't cured"]),
    "Is the mixture too runny": (["the mixture is watery", "the mixture is far too runny"], ["the mixture holds its shape", "the mixture isn't runny at all"]),
    "Does the seal leak": (["water drips from the seal", "the seal leaks"], ["the seal holds without a drop", "the seal doesn't leak"]),
    "Is the soil moist": (["the soil feels damp", "the soil is moist"], ["the soil is bone dry", "the soil isn't moist"]),
    "Is 'i' less than 'n'": (["i is still below n", "i is less than n"], ["i has reached n", "i is no longer less than n"]),
    "Is 'count' equal to zero": (["count is 0", "count is equal to zero"], ["count is 3", "count isn't zero"]),
    "Is the list empty": (["the list has no items", "the list is empty"], ["the list holds a few items", "the list isn't empty"]),
    "Is 'x' in 'seen'": (["x was seen before", "x is already in seen"], ["x is new", "x is not in seen"]),
    "Does the file exist": (["the file is there", "the file exists"], ["the file is missing", "the file doesn't exist"]),
    "Is 'left' greater than 'right'": (["left has passed right", "left is greater than right"], ["left is still smaller than right", "left isn't greater than right"]),
    "Is the token valid": (["the token checks out", "the token is valid"], ["the token has expired", "the token isn't valid"]),
    "Is 'n' divisible by 2": (["n is even", "n is divisible by 2"], ["n is odd", "n isn't divisible by 2"]),
    "Is the connection open": (["the connection is up", "the connection is open"], ["the connection has dropped", "the connection isn't open"]),
    "Is 'max_val' None": (["max_val was never set", "max_val is None"], ["max_val holds a value", "max_val is no longer None"]),
    "Is the deadline close": (["the deadline is only days away", "the deadline is close"], ["the deadline is months off", "the deadline isn't close"]),
    "Did the agency respond": (["the agency wrote back", "the agency responded"], ["the agency never replied", "the agency didn't respond"]),
    "Is the budget sufficient": (["the budget covers it", "the budget is sufficient"], ["the budget falls short", "the budget isn't sufficient"]),
    "Are documents complete": (["every document is in order", "the documents are complete"], ["some documents are missing", "the documents aren't complete"]),
    "Is the venue available": (["the venue is free that day", "the venue is available"], ["the venue is already booked", "the venue isn't available"]),
    "Was the request approved": (["the request went through", "the request was approved"], ["the request was turned down", "the request wasn't approved"]),
    "Is the area safe": (["the area is safe", "the area is known to be safe"], ["the area is dangerous", "the area isn't safe"]),
    "Does the plan need changes": (["the plan needs rework", "the plan needs changes"], ["the plan is fine as it is", "the plan doesn't need changes"]),
    "Is a visa required": (["a visa is needed", "a visa is required"], ["no visa is needed", "a visa isn't required"]),
    "Has the fee been paid": (["the fee is settled", "the fee has been paid"], ["{name} has not paid the fee", "the fee hasn't been paid"]),
}
# details that belong to no check, some with numbers of their own
_DISTRACTORS = ["{name} has {k} kids at home.", "It is {k} o'clock and the office is quiet.",
                "{name} has been at it for {k} hours.", "{colleague} has asked about it {k} times already.",
                "{name} keeps the notes in a blue folder.", "The weather outside is grey.",
                "{name} had coffee with {colleague} this morning."]
_COLLEAGUES = ["Melissa", "Jordan", "Aisha", "Tom", "Hana", "Lucas"]


def scenario_chart(rng: random.Random) -> tuple[FlowChart, str, dict[str, tuple[str, str, int]]]:
    """A procedural chart with more decisions than ``--hard``'s (0.6 of them numeric), numeric
    checks written in varied forms. Returns ``(chart, domain, thresholds)``: ``thresholds``
    maps each numeric decision to ``(subject, comparison, value)`` as drawn."""
    chart, domain = random_chart(rng, n_steps=rng.randint(7, 14), numeric_rate=0.6, decision_rate=0.5)
    thresholds: dict[str, tuple[str, str, int]] = {}
    quantities: list[tuple[str, str]] = list(_DOMAINS[domain]["numeric"])
    for n in list(chart):
        m = _THRESHOLD.match(n.text or "")
        if n.kind != "decision" or m is None:
            continue
        subject, comparison, t = m.group(1), m.group(2), int(m.group(3))
        used = {s for s, _, _ in thresholds.values()}
        if subject in used:
            # one number in a story settles every check on its quantity: a chart compares each
            # quantity once, so a story's gold walk holds every check its numbers settle
            free = [q for q in quantities if q[0] not in used]
            if not free:
                texts = {x.text for x in chart}
                checks = [c for c in _DOMAINS[domain]["checks"] if f"{c}?" not in texts]
                chart.add_node(Node(n.id, rng.choice(checks) + "?", n.shape))
                continue
            subject, comparison = rng.choice(free)
        thresholds[n.id] = (subject, comparison, t)
        value = _number(t, subject, rng)
        form = rng.choice(_COMPARATOR_FORMS[comparison])
        head = f"{subject[0].upper()}{subject[1:]}"
        text = rng.choice([f"Is {subject} {form} {value}?", f"{head} {form} {value}?"])
        chart.add_node(Node(n.id, text, n.shape))
    return chart, domain, thresholds


def _number(v: int, subject: str, rng: random.Random) -> str:
    """``v`` as a story or a chart writes it: thousands with a separator at times, money with
    a currency sign."""
    out = f"{v:,}" if v >= 1000 and rng.random() < 0.6 else str(v)
    return f"${out}" if subject in _MONEY and rng.random() < 0.5 else out


def settle_in_words(text: str, threshold: tuple[str, str, int] | None, condition: str, name: str,
                    rng: random.Random) -> str | None:
    """A clause that settles the check ``text`` on ``condition`` the way a story tells it:
    a number in everyday words for a numeric check, else the check restated in other words,
    by its opposite, in a short negation, or answered explicitly; ``None`` when it cannot."""
    if threshold is not None:
        subject, comparison, t = threshold
        v = _number(threshold_value(comparison, t, condition, rng), subject, rng)
        phrases = _QUANTITY_PHRASES.get(subject, [f"{subject} is {{v}}"])
        return rng.choice(phrases).format(v=v, name=name)
    key = text.rstrip("?").strip()
    r = rng.random()
    if key in _CHECK_PHRASES and r < 0.6:
        yes, no = _CHECK_PHRASES[key]
        return rng.choice(yes if condition == "yes" else no).format(name=name)
    clause = settle(text, condition, rng)
    if clause is None:
        return None
    if r < 0.8:
        return clause.replace(" is not ", " isn't ").replace(" has not ", " hasn't ").replace(" are not ", " aren't ") \
            .replace(" does not ", " doesn't ").replace(" was not ", " wasn't ").replace(" did not ", " didn't ")
    question = _lower_first(text.rstrip("?"))
    return f"when {name} asks '{question}?', the answer is {condition}"


def make_scenario_questions(chart: FlowChart, chart_id: str, rng: random.Random, *, per_type: int = 2,
                            domain: str = "synthetic",
                            thresholds: dict[str, tuple[str, str, int]] | None = None) -> list[dict[str, Any]]:
    """Applied-scenario questions whose stories settle several checks the way people tell them
    (module docstring), with the gold walk of docs/reasoning.md's conventions.

    Args:
        chart: the flowchart.
        chart_id: id written into each record.
        rng: the random source.
        per_type: scenario questions per chart (fewer when the chart has no check to settle).
        domain: domain label for the records.
        thresholds: numeric checks' ``(subject, comparison, value)`` (`scenario_chart`); a
            check missing here is read from its text as ``--hard`` writes it.

    Returns:
        Benchmark-layout question records of type ``applied_scenario``.
    """
    return _told(chart, chart_id, rng, per_type, domain, thresholds, _story)


def _told(chart: FlowChart, chart_id: str, rng: random.Random, per_type: int, domain: str,
          thresholds: dict[str, tuple[str, str, int]] | None, tell: Any) -> list[dict[str, Any]]:
    """``per_type`` scenario records of ``chart``, each story told by ``tell`` (`_story` or
    `_long_story`) walking to a step with a check upstream; a numeric check missing from
    ``thresholds`` is read from its text."""
    g, text, kind, steps, _ = _chart_views(chart)
    thresholds = dict(thresholds or {})
    for d in chart.nodes:
        m = _THRESHOLD.match(text[d])
        if kind[d] == "decision" and d not in thresholds and m:
            thresholds[d] = (m.group(1), m.group(2), int(m.group(3)))
    out: list[dict[str, Any]] = []
    targets = [t for t in steps if any(kind[a] == "decision" for a in nx.ancestors(g, t))]
    for _ in range(per_type):
        if not targets:
            break
        story = tell(chart, g, text, kind, thresholds, rng.choice(targets), domain, rng)
        if story is not None:
            out.append(_q(chart_id, len(out), "applied_scenario", *story, domain, rng))
    return out


def _walk(g: nx.DiGraph, kind: dict[str, str], target: str, rng: random.Random) -> list[str]:
    """The walk a story takes to ``target``: from an upstream decision, preferring one with
    another decision between it and the target (stories that settle several checks)."""
    ancestors = nx.ancestors(g, target)
    walks = [nx.shortest_path(g, d, target) for d in sorted(ancestors) if kind[d] == "decision"]
    walks = [w for w in walks if len(w) <= 8] or [min(walks, key=len)]
    several = [w for w in walks if sum(kind[n] == "decision" for n in w) >= 2]
    return rng.choice(several if several and rng.random() < 0.8 else walks)


def _story(chart: FlowChart, g: nx.DiGraph, text: dict[str, str], kind: dict[str, str],
           thresholds: dict[str, tuple[str, str, int]], target: str, domain: str,
           rng: random.Random) -> tuple[str, str, list[str]] | None:
    """One story walking to ``target``: ``(question, answer, gold)``, ``None`` when a check on
    the walk cannot be told."""
    path = _walk(g, kind, target, rng)
    name = rng.choice(NAMES)
    who, scenery = _persona(name, domain, rng)
    colleague = rng.choice(_COLLEAGUES)
    settled: list[str] = []  # one sentence (or clause) per check the story settles
    for i, (a, b) in enumerate(zip(path, path[1:], strict=False)):
        if kind[a] != "decision":
            if i and rng.random() < 0.3:
                settled.append(f"Then {name} goes on to {_lower_first(reword(text[a], rng))}.")
            continue
        cond = _branch_condition(chart, a, b)
        if cond not in ("yes", "no"):
            return None
        if i and rng.random() < 0.25:
            continue  # settled implicitly: the walk passes it, the story does not say
        if kind[b] not in ("decision", "start", "end", "terminal") and b != target and rng.random() < 0.2:
            # settled by the choice the person made on its branch (FlowExplainBench's scenario
            # figure: "opts for an online calculator")
            verb = rng.choice(["opts to", "decides to", "chooses to"])
            settled.append(f"{name} {verb} {_lower_first(reword(text[b], rng))}.")
            continue
        clause = settle_in_words(text[a], thresholds.get(a), cond, name, rng)
        if clause is None:
            return None
        settled.append(clause)
    settled = [_sentence(s, name, rng) for s in settled]
    if len(settled) >= 2 and rng.random() < 0.3:
        # two facts in one sentence, or told out of the chart's order
        i = rng.randrange(len(settled) - 1)
        x, y = settled[i].rstrip("."), settled[i + 1].rstrip(".")
        joined = rng.choice([f"{x}, and {_lower_first(y)}.", f"{x}, but {_lower_first(y)}.",
                             f"{y}, although {_lower_first(x)}."])
        settled[i: i + 2] = [joined]
    gold = list(path)
    before = _steps_before(chart, kind, path[0], target)
    facts: list[str] = []
    if before and rng.random() < 0.4:
        # a step done just before the first settled check, told after the opening: gold
        facts.append(f"{name} has already taken care of the part where you {_lower_first(reword(text[before[0]], rng))}.")
        gold.insert(0, before[0])
    facts += settled
    for _ in range(rng.choice([0, 1, 1, 2])):
        facts.insert(rng.randint(0, len(facts)), rng.choice(_DISTRACTORS).format(
            name=name, colleague=colleague, k=rng.randint(2, 12)))
    opening = f"{who} is working through this process."
    if rng.random() < 0.5:
        facts.insert(0, scenery)
    ask = rng.choice([f"What should {name} do next?", f"According to the chart, what happens next for {name}?",
                      f"Where does this leave {name}?", f"What is {name}'s next step?"])
    goal = _lower_first(reword(text[target], rng))
    answer = rng.choice([f"{name} should {goal}.", f"The next thing is to {goal}.", f"{goal[0].upper()}{goal[1:]}."])
    return " ".join([opening, *facts, ask]), answer, gold


def _steps_before(chart: FlowChart, kind: dict[str, str], node: str, target: str) -> list[str]:
    """The steps just before ``node`` (no terminal, no check, not the answer ``target``): what a
    story may say was done just before its first settled check (gold when told)."""
    return [p for p in chart.predecessors(node) if kind[p] not in ("start", "end", "terminal", "decision") and p != target]


def _sentence(clause: str, name: str, rng: random.Random) -> str:
    """A settling clause told as a sentence of the story."""
    if clause.endswith("."):
        return clause
    frame = rng.choice(["{}.", "It turns out {}.", "{name} finds that {}.", "As it happens, {}."])
    body = clause if frame == "{}." else _lower_first(clause) if not clause.startswith(name) else clause
    out = frame.format(body, name=name)
    return out[0].upper() + out[1:]



# -- long stories (``--style story``, ninth stretch) -------------------------------------------
# FlowVQA's applied scenarios are written by GPT-4 from the chart (docs/reasoning.md, F2-F3, P4):
# several sentences about one person and why they follow the chart, steps already behind them
# told as background, checks settled by what the person goes on to do, the answer a paraphrase
# of the step. These lists are the generator's own words.
_GOALS = {"instruct": ["is following a printed guide for a weekend project", "is working from a recipe card taped to the fridge",
                       "is repairing something at home with the help of a how-to chart"],
          "code": ["is tracing a function by hand to find a bug", "is stepping through the program in a debugger",
                   "is reviewing what this routine does before a release"],
          "wiki": ["is following the official procedure step by step", "is helping a friend through the paperwork",
                   "is trying to get everything sorted before the end of the month"]}
_MOTIVES = ["{name} wants to get it right the first time.", "{name} has put this off for weeks and wants it done.",
            "{colleague} recommended the chart to {name}.", "{name} would rather not have to start over.",
            "Last time {name} skipped a step and regretted it."]
# quantities told with none of their words (an age as "just turned 16", a temperature in degrees)
_QUANTITY_PLAIN: dict[str, list[str]] = {
    "the oven temperature": ["the dial reads {v} degrees", "it is {v} degrees inside the oven"],
    "the water level": ["there are {v} centimetres of water in the tank", "the gauge stops at {v}"],
    "the board length": ["the plank is {v} centimetres from end to end", "it comes to {v} cm"],
    "the drying time": ["{v} minutes have passed since the last coat", "{name} waited {v} minutes"],
    "the paint thickness": ["the coat came out {v} microns thick", "the layer is {v} microns"],
    "the soil pH": ["the test strip shows {v}", "the meter reads {v} in the bed"],
    "'n'": ["the input is {v}", "the argument passed in is {v}"],
    "len(nums)": ["the array holds {v} numbers", "there are {v} entries to process"],
    "the retry count": ["{name} counts {v} failed attempts", "the request has failed {v} times"],
    "'total'": ["the sum so far is {v}", "everything added up gives {v}"],
    "the buffer size": ["{v} bytes are queued", "the incoming chunk is {v} bytes"],
    "'depth'": ["the call stack is {v} frames deep", "it has recursed {v} times"],
    "the credit score": ["the bureau reports {v}", "the rating comes back at {v}"],
    "the monthly income": ["{name} brings in {v} every month", "the salary is {v} a month"],
    "the applicant's age": ["{name} has just turned {v}", "{name} celebrated a {v}th birthday last week"],
    "the number of guests": ["{v} people have replied yes", "{v} friends are coming"],
    "the account balance": ["{name} has {v} saved", "there is {v} left in savings"],
    "the wait time": ["the queue is moving slowly, about {v} minutes", "{name} was told to expect {v} minutes"],
}
# what a person does on a check's branch, told as the next thing they do (no choice cue)
_ACTION_FRAMES = ["So {name} moves on to {x}.", "{name} ends up having to {x}.", "That means {name} gets to {x}.",
                  "Next, {name} has to {x}.", "Because of that, {name} goes ahead and has to {x}."]
_ASKS = ["Following the chart, what does {name} end up doing?", "What is the step {name} reaches after this?",
         "Based on the flowchart, what should {name} do now?", "Where in the process does {name} land next?"]
_ANSWERS = ["{name} needs to {x}.", "The chart sends {name} on to {x}.", "Next comes the part where {name} has to {x}.",
            "{X}."]


def _short_object(text: str, rng: random.Random) -> str:
    """A step told the way a person retells it: its verb reworded (`reword`) and its object
    shortened at times ("the wooden board" -> "the board", "list 'result'" -> "'result'")."""
    words = reword(text, rng).split()
    if len(words) >= 3 and rng.random() < 0.5:
        head, obj = words[: len(words) - 2], words[-2:]
        while head[1:] and head[-1].lower() in ("the", "a"):
            head = head[:-1]
        if obj[0].lower() not in ("the", "a", "of") and not obj[0].startswith("'"):
            words = head + ["the", obj[1]] if not obj[1].startswith("'") else head + [obj[1]]
    return " ".join(words)


def _settle_plain(text: str, threshold: tuple[str, str, int] | None, condition: str, name: str,
                  rng: random.Random) -> str | None:
    """Like `settle_in_words`, with a number told with none of its quantity's words or a check
    restated in other words more often (the harder half of the benchmark's stories)."""
    if threshold is not None and threshold[0] in _QUANTITY_PLAIN and rng.random() < 0.5:
        subject, comparison, t = threshold
        v = _number(threshold_value(comparison, t, condition, rng), subject, rng)
        return rng.choice(_QUANTITY_PLAIN[subject]).format(v=v, name=name)
    key = text.rstrip("?").strip()
    if threshold is None and key in _CHECK_PHRASES and rng.random() < 0.5:
        yes, no = _CHECK_PHRASES[key]
        return rng.choice(yes if condition == "yes" else no).format(name=name)
    return settle_in_words(text, threshold, condition, name, rng)


def make_story_questions(chart: FlowChart, chart_id: str, rng: random.Random, *, per_type: int = 2,
                         domain: str = "synthetic",
                         thresholds: dict[str, tuple[str, str, int]] | None = None) -> list[dict[str, Any]]:
    """Applied scenarios told as long stories (``--style story``): `make_scenario_questions`'
    charts, walks and gold conventions, told the way FlowVQA's GPT-written scenarios are — a
    persona with a goal and a motive, steps already done told as background in the opening
    sentence (the story starts mid-chart; not gold, P4), checks settled by what the person goes
    on to do on a branch, quantities named with none of their words, the answer step
    paraphrased. Gold as in `make_scenario_questions`."""
    return _told(chart, chart_id, rng, per_type, domain, thresholds, _long_story)


def _long_story(chart: FlowChart, g: nx.DiGraph, text: dict[str, str], kind: dict[str, str],
                thresholds: dict[str, tuple[str, str, int]], target: str, domain: str,
                rng: random.Random, settle: Any = None) -> tuple[str, str, list[str]] | None:
    """One long story walking to ``target``: ``(question, answer, gold)``; ``None`` when a check
    on the walk cannot be told. ``settle`` tells each check (default `_settle_plain`)."""
    path = _walk(g, kind, target, rng)
    name = rng.choice(NAMES)
    who, scenery = _persona(name, domain, rng)
    colleague = rng.choice(_COLLEAGUES)
    told: list[str] = []
    for i, (a, b) in enumerate(zip(path, path[1:], strict=False)):
        if kind[a] != "decision":
            if i and rng.random() < 0.3:
                told.append(f"After that {name} has to {_lower_first(_short_object(text[a], rng))}.")
            continue
        cond = _branch_condition(chart, a, b)
        if cond not in ("yes", "no"):
            return None
        others = [e.target for e in chart.out_edges(a) if e.target != b]
        only_here = kind[b] not in ("decision", "start", "end", "terminal") and b != target \
            and not any(b == o or b in nx.descendants(g, o) for o in others)
        if only_here and rng.random() < 0.4:
            # settled by what the person does next: the step only that branch leads to
            told.append(rng.choice(_ACTION_FRAMES).format(name=name, x=_lower_first(_short_object(text[b], rng))))
            continue
        if i and rng.random() < 0.2:
            continue  # passed without a word
        clause = (settle or _settle_plain)(text[a], thresholds.get(a), cond, name, rng)
        if clause is None:
            return None
        told.append(_sentence(clause, name, rng))
    gold = list(path)
    preds = _steps_before(chart, kind, path[0], target)
    facts: list[str] = []
    if preds and rng.random() < 0.4:
        facts.append(f"Just before this, {name} managed to {_lower_first(_short_object(text[preds[0]], rng))}.")
        gold.insert(0, preds[0])
    facts += told
    for _ in range(rng.choice([1, 2, 2, 3])):
        facts.insert(rng.randint(0, len(facts)), rng.choice(_DISTRACTORS + _MOTIVES).format(
            name=name, colleague=colleague, k=rng.randint(2, 12)))
    # the story starts mid-chart: earlier steps, already behind the person, are background
    behind = sorted(p for p in nx.ancestors(g, path[0])
                    if kind[p] not in ("start", "end", "terminal", "decision") and p not in preds and p != target)
    opening = f"{who} {rng.choice(_GOALS.get(domain, _GOALS['wiki']))}."
    if behind and rng.random() < 0.6:
        done = [_lower_first(_short_object(text[p], rng)) for p in rng.sample(behind, min(len(behind), rng.choice([1, 2])))]
        opening = opening[:-1] + f", and has already been through the steps to {' and to '.join(done)}."
    facts.insert(0, scenery)
    ask = rng.choice(_ASKS).format(name=name)
    goal = _lower_first(_short_object(text[target], rng))
    answer = rng.choice(_ANSWERS).format(name=name, x=goal, X=goal[0].upper() + goal[1:])
    return " ".join([opening, *facts, ask]), answer, gold


# -- contrast stories (``--style contrast``, tenth stretch) ------------------------------------
# Stories settle a check the way people say it when the check's own word would be awkward: by
# its opposite ("the file is missing" for "Does the file exist?"), by a negation whose scope is
# part of the reading ("the part did not pass inspection", "the seal holds without a drop"), by
# a prefix ("the token is invalid"), by a level word for a quantity ("her score is low" against
# "Credit score above 600?") and by a number with a comparison word on either side of the
# threshold ("earns more than 3,000 a month", "is under 18"). The generator's own phrases
# (issue 15: the sentence encoder picks the right side of such phrases ~7 of 13 times).
# (yes readings, no readings) per yes/no check of `_DOMAINS`, each told by an opposite or a negation
_CONTRAST_PHRASES: dict[str, tuple[list[str], list[str]]] = {
    "Is the glue dry": (["the glue is no longer wet", "the glue isn't sticky anymore"], ["the glue is still damp", "the glue is wet to the touch"]),
    "Does the lid fit snugly": (["the lid is not loose at all", "the lid no longer sits loosely"], ["the lid is loose", "the lid fails to fit snugly"]),
    "Is the water boiling": (["the water is far from cold now, it is boiling hard", "the water is not cold at all"], ["the water is still cold", "the water has not started to boil"]),
    "Is the surface smooth": (["the surface is no longer rough", "the surface is not rough anywhere"], ["the surface is rough", "the surface feels uneven"]),
    "Are all screws tight": (["none of the screws is loose", "no screw is loose anymore"], ["some screws are loose", "a few screws are still loose"]),
    "Is the dough elastic": (["the dough is not stiff at all", "the dough is no longer stiff"], ["the dough is stiff", "the dough is inelastic and tears"]),
    "Has the paint cured": (["the paint is not soft anymore", "the paint is no longer uncured"], ["the paint is still soft", "the paint is uncured"]),
    "Is the mixture too runny": (["the mixture is thin and watery", "the mixture is not thick at all"], ["the mixture is thick", "the mixture is not runny"]),
    "Does the seal leak": (["the seal is not watertight", "the seal fails to hold water"], ["the seal is watertight", "the seal holds without a drop"]),
    "Is the soil moist": (["the soil is not dry at all", "the soil is no longer dry"], ["the soil is dry", "the soil is parched and dry"]),
    "Is 'i' less than 'n'": (["i has not reached n yet", "i is still under n"], ["i is not less than n", "i is greater than n by now"]),
    "Is 'count' equal to zero": (["count is not positive", "count is not above zero"], ["count is not equal to zero", "count is nonzero"]),
    "Is the list empty": (["the list is not full, it has nothing in it", "the list holds nothing"], ["the list is not empty", "the list is full of items"]),
    "Is 'x' in 'seen'": (["x is not absent from seen", "x is not missing from seen"], ["x is missing from seen", "x is absent from seen"]),
    "Does the file exist": (["the file is not missing", "the file is present"], ["the file is missing", "the file is absent"]),
    "Is 'left' greater than 'right'": (["left is not smaller than right", "left is not less than right"], ["left is smaller than right", "left is less than right"]),
    "Is the token valid": (["the token is not invalid", "the token has not expired"], ["the token is invalid", "the token has expired"]),
    "Is 'n' divisible by 2": (["n is not odd", "n is even"], ["n is odd", "n is indivisible by 2"]),
    "Is the connection open": (["the connection is not closed", "the connection has not been closed"], ["the connection is closed", "the connection was shut"]),
    "Is 'max_val' None": (["max_val is not set", "max_val has no value"], ["max_val is not None", "max_val is set"]),
    "Is the deadline close": (["the deadline is not far off", "the deadline is near"], ["the deadline is far away", "the deadline is distant"]),
    "Did the agency respond": (["the agency did not ignore the letter", "the agency did not stay silent"], ["the agency did not respond", "the agency failed to respond"]),
    "Is the budget sufficient": (["the budget is not insufficient", "the budget is not short"], ["the budget is insufficient", "the budget is not sufficient"]),
    "Are documents complete": (["none of the documents is missing", "the documents are not incomplete"], ["the documents are incomplete", "some documents are missing"]),
    "Is the venue available": (["the venue is not booked", "the venue is not unavailable"], ["the venue is unavailable", "the venue is booked"]),
    "Was the request approved": (["the request was not rejected", "the request was not denied"], ["the request was rejected", "the request was denied"]),
    "Is the area safe": (["the area is not dangerous", "the area is not unsafe"], ["the area is unsafe", "the area is dangerous"]),
    "Does the plan need changes": (["the plan is not final yet", "the plan is not fine as it is"], ["the plan is final", "the plan needs no changes"]),
    "Is a visa required": (["a visa is not optional", "a visa is mandatory"], ["a visa is not required", "a visa is optional"]),
    "Has the fee been paid": (["the fee is not unpaid", "the fee is not outstanding"], ["the fee is unpaid", "the fee is still outstanding"]),
}
# checks whose natural readings are opposites, in the short forms charts use ("Adult?"), added to
# a contrast chart in place of some of its yes/no checks: (text, yes readings, no readings)
_CONTRAST_CHECKS: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "instruct": [("Did the part pass inspection?", ["the part did not fail inspection", "the part passed inspection"], ["the part did not pass inspection", "the part failed inspection"]),
                 ("Paint even?", ["the paint is not uneven", "the coat is even"], ["the paint is uneven", "the coat is not even"]),
                 ("Is the tank full?", ["the tank is not empty, it is full", "the tank is full to the brim"], ["the tank is empty", "the tank is not full"]),
                 ("Tool sharp?", ["the blade is not dull", "the tool is sharp"], ["the tool is blunt", "the blade is dull"]),
                 ("Is the light on?", ["the light is not off", "the light has been switched on"], ["the light is off", "the light is not on"])],
    "code": [("File exists?", ["the file is not missing", "the file is present"], ["the file is missing", "the file does not exist"]),
             ("Input valid?", ["the input is not invalid", "the input is valid"], ["the input is invalid", "the input is malformed and invalid"]),
             ("Is the cache enabled?", ["the cache is not disabled", "the cache is enabled"], ["the cache is disabled", "the cache is not enabled"]),
             ("Request succeeded?", ["the request did not fail", "the request succeeded"], ["the request failed", "the request did not succeed"]),
             ("Is the lock free?", ["the lock is not held", "the lock is not busy"], ["the lock is busy", "the lock is held"])],
    "wiki": [("Adult?", ["the applicant is not a minor", "the applicant is an adult"], ["the applicant is a minor", "the applicant is underage"]),
             ("Is the applicant employed?", ["the applicant is not unemployed", "the applicant has a job"], ["the applicant is unemployed", "the applicant is out of work"]),
             ("Is the form signed?", ["the form is not unsigned", "the form is signed"], ["the form is unsigned", "the form has not been signed"]),
             ("Office open?", ["the office is not closed", "the office is open"], ["the office is closed", "the office is not open today"]),
             ("Is the account active?", ["the account is not inactive", "the account is active"], ["the account is inactive", "the account is dormant"])],
}
# a quantity told by a level word, without a number: (high readings, low readings)
_QUANTITY_LEVEL: dict[str, tuple[list[str], list[str]]] = {
    "the oven temperature": (["the oven is already hot", "the oven is very hot"], ["the oven is still cold", "the oven isn't hot yet"]),
    "the water level": (["the water level is high", "the water is deep"], ["the water level is low", "the water is shallow"]),
    "the board length": (["the board is long", "the board is plenty long"], ["the board is too short", "the board isn't long enough"]),
    "the drying time": (["it has been drying for a long time", "the drying time has been long"], ["the drying time has been short", "it has only dried for a short time"]),
    "the paint thickness": (["the coat of paint is thick", "the paint went on thick"], ["the coat of paint is thin", "the paint layer is not thick"]),
    "the soil pH": (["the soil is alkaline", "the soil pH is high"], ["the soil is acidic", "the soil pH is low"]),
    "'n'": (["n is large", "n is a big number"], ["n is small", "n is a tiny number"]),
    "len(nums)": (["nums is a long list", "nums holds many numbers"], ["nums is a short list", "nums holds only a few numbers"]),
    "the retry count": (["the retry count is high", "it has retried many times"], ["the retry count is low", "it has retried only a few times"]),
    "'total'": (["total is large", "the total is high"], ["total is small", "the total is low"]),
    "the buffer size": (["the buffer is large", "the buffer is big"], ["the buffer is small", "the buffer is tiny"]),
    "'depth'": (["the recursion is deep", "depth is high"], ["the recursion is shallow", "depth is low"]),
    "the credit score": (["{name}'s credit score is excellent", "the credit score is high"], ["her score is low", "{name} has a poor credit score"]),
    "the monthly income": (["{name}'s monthly income is high", "{name} earns a large income"], ["{name}'s income is low", "{name} earns little each month"]),
    "the applicant's age": (["{name} is an adult", "{name} is old enough"], ["{name} is underage", "{name} is still too young"]),
    "the number of guests": (["many guests are coming", "the guest list is long"], ["only a few guests are coming", "the guest list is short"]),
    "the account balance": (["the account balance is high", "{name} has plenty in the account"], ["the account balance is low", "the account is nearly empty"]),
    "the wait time": (["the wait is long", "the wait time is long"], ["the wait is short", "the wait time is short"]),
}
_UP = ("above", "greater than", "more than", "at least")
_HIGH_WORDS = ["more than", "over", "above", "well over", "at least"]
_LOW_WORDS = ["less than", "under", "below", "just under", "at most"]


def _bound_clause(threshold: tuple[str, str, int], condition: str, name: str, rng: random.Random) -> str:
    """A number told with a comparison word that settles the check ("earns more than 3,000 a
    month" for "monthly income at least 2,500?"): a bound beyond the threshold on the side the
    branch takes, or the threshold itself restated (negated for ``no``)."""
    subject, comparison, t = threshold
    high = (condition == "yes") == (comparison in _UP)
    phrases = _QUANTITY_PHRASES.get(subject, [f"{subject} is {{v}}"])
    if rng.random() < 0.2:
        # the threshold restated: "is above 600" / "is not above 600"
        bound = f"{comparison} {_number(t, subject, rng)}" if condition == "yes" else f"not {comparison} {_number(t, subject, rng)}"
        return f"{subject} is {bound}"
    step = max(1, t // 5)
    b = t + rng.randint(1, step) if high else max(0, t - rng.randint(1, step))
    word = rng.choice(_HIGH_WORDS if high else _LOW_WORDS)
    return rng.choice(phrases).format(v=f"{word} {_number(b, subject, rng)}", name=name)


def _settle_contrast(text: str, threshold: tuple[str, str, int] | None, condition: str, name: str,
                     rng: random.Random) -> str | None:
    """A clause that settles the check ``text`` by an opposite, a negation, a level word or a
    bound (module section above); the plain readings of `_settle_plain` now and then."""
    r = rng.random()
    if threshold is not None:
        subject, comparison, _ = threshold
        if r < 0.45 and subject in _QUANTITY_LEVEL:
            high = (condition == "yes") == (comparison in _UP)
            return rng.choice(_QUANTITY_LEVEL[subject][0 if high else 1]).format(name=name)
        if r < 0.85:
            return _bound_clause(threshold, condition, name, rng)
        return _settle_plain(text, threshold, condition, name, rng)
    key = text.rstrip("?").strip()
    readings = _CONTRAST_PHRASES.get(key) or next(
        ((y, n) for checks in _CONTRAST_CHECKS.values() for c, y, n in checks if c == text), None)
    if readings is not None and r < 0.85:
        return rng.choice(readings[0] if condition == "yes" else readings[1]).format(name=name)
    return _settle_plain(text, threshold, condition, name, rng)


def contrast_chart(rng: random.Random) -> tuple[FlowChart, str, dict[str, tuple[str, str, int]]]:
    """`scenario_chart`, with some yes/no checks replaced by `_CONTRAST_CHECKS`' ones (checks whose
    natural readings are opposites, some in short forms: "Adult?", "File exists?")."""
    chart, domain, thresholds = scenario_chart(rng)
    extra = list(_CONTRAST_CHECKS.get(domain, []))
    rng.shuffle(extra)
    for n in list(chart):
        if n.kind == "decision" and n.id not in thresholds and extra and rng.random() < 0.5:
            chart.add_node(Node(n.id, extra.pop()[0], n.shape))
    return chart, domain, thresholds


def make_contrast_questions(chart: FlowChart, chart_id: str, rng: random.Random, *, per_type: int = 2,
                            domain: str = "synthetic",
                            thresholds: dict[str, tuple[str, str, int]] | None = None) -> list[dict[str, Any]]:
    """Long stories (`make_story_questions`) whose checks are settled by opposites, negations,
    level words and comparison words (``--style contrast``). Gold as in
    `make_scenario_questions`."""
    def tell(*args: Any) -> tuple[str, str, list[str]] | None:
        return _long_story(*args, settle=_settle_contrast)

    return _told(chart, chart_id, rng, per_type, domain, thresholds, tell)
