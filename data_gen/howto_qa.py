"""How-to charts and questions in the manner of FlowVQA (``--style howto``, eleventh stretch).

FlowVQA's charts are drawn by an LLM from WikiHow articles and Instructables DIY guides (and
code), and its questions written by an LLM about each chart (docs/reasoning.md, F1-F3). The
generator's other styles build charts from a verb x object vocabulary ("Heat the olive oil"),
so their node texts are short and their questions restate them; rules tuned on them moved no
benchmark answer in three stretches. This style draws the charts from hand-written procedures
(`data_gen.howto_procedures.PROCEDURES`: cooking, repair, crafts, health, paperwork, gardening,
...) whose steps are long, multi-clause instructions carrying details (a time, an amount, a
tool, a place, a purpose), whose decisions are free-text questions ("Do you have a spare tire
and a jack in the trunk?") with Yes/No or free-text branches, loops back, side notes and
several end nodes; and asks:

* fact retrieval as an LLM asks it: a detail inside a long step, paraphrased ("What should be
  used to combine the dry ingredients?" -> the mixing step), the purpose, tool, amount or time
  a step mentions, what to do when a check goes
  one way ("What should you do if the dough keeps clinging to your fingers?"), what a check
  asks (with the branch step the question names: "What decides whether you nail on a back
  panel?"), and the tip a side note gives;
* flow referential: the step right after or before a named one (gold: both steps);
* applied scenarios as an LLM tells them: a person's situation in a few sentences, the checks
  settled indirectly by what the person sees ("the spare bulges noticeably at the bottom"),
  the step done just before told in passing, some scenery, and "what should she do next" with
  the answer a paraphrase or a restatement of the step (sometimes of two steps).

Gold follows docs/reasoning.md "Gold conventions": fact -> the node holding the information
(a settled check and its branch step for the conditional question); scenario -> the walk from
the first settled check to the answer node (the last step the answer names), plus the step the
story says was done just before it; a "what next" story with no settled check -> the step the
person is at and the next one.

    python -m data_gen.qa --out /work/data/howto11_val --charts 300 --seed 1111 --style howto
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from data_gen.howto_procedures import HELD_OUT_PROCEDURES, PROCEDURES
from data_gen.qa import _lower_first, _q, relabel_in_flow_order, settle
from flowpath.graph import Edge, FlowChart, Node

_DETAIL = re.compile(r"\[([^\]|]+)\|(\w+)\]")


@dataclass
class Step:
    """One line of a procedure: a step, a decision, an end or a side note."""

    id: str
    kind: str  # step | decision | end | note
    text: str  # the node text, details unmarked
    details: list[tuple[str, str]] = field(default_factory=list)  # (phrase, kind)
    plain: str = ""  # how a person names the step in other words
    goto: str | None = None  # where a step goes instead of the next line
    branches: list[tuple[str, str]] = field(default_factory=list)  # decision: (label, target)
    clauses: list[str] = field(default_factory=list)  # decision: one settling clause per branch


@dataclass
class Procedure:
    domain: str
    title: str  # a gerund phrase: "baking a simple sandwich loaf"
    steps: list[Step]


def parse_procedures(source: str = PROCEDURES) -> list[Procedure]:
    """The procedures of `data_gen.howto_procedures` (format in its docstring)."""
    out: list[Procedure] = []
    for block in source.strip().split("\n# ")[0:]:
        lines = [ln.strip() for ln in block.strip().lstrip("# ").splitlines() if ln.strip()]
        domain, title = (x.strip() for x in lines[0].split("|"))
        steps: list[Step] = []
        for ln in lines[1:]:
            head, _, rest = ln.partition(" | ")
            mark = head[0] if head[0] in "?!*" else ""
            sid = head[1:].strip() if mark else head.strip()
            if mark == "?":
                q, branches, clauses = (x.strip() for x in rest.split(" | "))
                pairs = [tuple(x.strip().split(">")) for x in branches.split(";")]
                steps.append(Step(sid, "decision", q, branches=[(lab, tgt.lstrip("!?")) for lab, tgt in pairs],
                                  clauses=[c.strip() for c in clauses.split(" / ")]))
                continue
            goto = None
            if " > " in rest:
                rest, goto = (x.strip() for x in rest.rsplit(" > ", 1))
            body, _, plain = rest.partition(" ~ ")
            details = [(m.group(1), m.group(2)) for m in _DETAIL.finditer(body)]
            text = _DETAIL.sub(lambda m: m.group(1), body).strip()
            kind = {"!": "end", "*": "note"}.get(mark, "step")
            steps.append(Step(sid, kind, text, details, plain.strip(), goto))
        ids = [s.id for s in steps]
        if len(set(ids)) != len(ids) or {"start", "end"} & set(ids):
            raise ValueError(f"procedure {title!r}: ids repeat or use start/end")
        targets = [t for s in steps for _, t in s.branches] + [s.goto.lstrip("!?") for s in steps if s.goto]
        if any(t not in ids for t in targets):
            raise ValueError(f"procedure {title!r}: a branch or jump goes nowhere: {targets}")
        out.append(Procedure(domain, title, steps))
    return out


# "shared": the eleventh stretch's procedures, drawn by train and val sets (and by the test sets made
# before the twelfth stretch); "held-out": procedures only test sets draw, so a test set measures
# how rules chosen on the shared ones carry to procedures they were never fitted to
PROCEDURE_GROUPS = {"shared": PROCEDURES, "held-out": HELD_OUT_PROCEDURES}
_PARSED: dict[str, list[Procedure]] = {}


def procedures(group: str = "shared") -> list[Procedure]:
    """The procedures of one of `PROCEDURE_GROUPS`."""
    if group not in _PARSED:
        _PARSED[group] = parse_procedures(PROCEDURE_GROUPS[group])
    return _PARSED[group]


@dataclass
class HowtoChart:
    """A drawn procedure: the chart (letter ids in flow order) and what the questions need,
    keyed by letter."""

    chart: FlowChart
    domain: str
    title: str
    steps: dict[str, Step]  # letter -> its procedure line (start / "End" nodes have none)


def howto_chart(rng: random.Random, group: str = "shared") -> HowtoChart:
    """One procedure of ``group`` (`PROCEDURE_GROUPS`) drawn as a chart: Start, its lines
    (decisions as rhombi with their labelled branches, side notes hung on their step by a dotted
    edge), its ends; sometimes every end leads on to a shared "End" terminal."""
    proc = rng.choice(procedures(group))
    fc = FlowChart("TD")
    fc.add_node(Node("start", rng.choice(["Start", "Start", "Begin", f"Start {proc.title}"]), "stadium"))
    shared_end = rng.random() < 0.35
    by_id = {s.id: s for s in proc.steps}
    flow = [s for s in proc.steps if s.kind != "note"]
    for s in proc.steps:
        shape = {"decision": "rhombus", "end": "rect" if shared_end else "stadium"}.get(s.kind, "rect")
        text = f"{rng.choice(['Note', 'Tip'])}: {s.text}" if s.kind == "note" else s.text
        fc.add_node(Node(s.id, text, shape))
    fc.add_edge(Edge("start", flow[0].id))
    for i, s in enumerate(proc.steps):
        if s.kind == "note":
            host = proc.steps[i - 1].id
            fc.add_edge(Edge(host, s.id, stroke="dotted"))
        elif s.kind == "decision":
            for label, target in s.branches:
                fc.add_edge(Edge(s.id, target, label))
        elif s.kind == "step":
            k = flow.index(s)
            target = s.goto.lstrip("!?") if s.goto else flow[k + 1].id
            fc.add_edge(Edge(s.id, target))
        elif shared_end:
            fc.add_edge(Edge(s.id, "end"))
    if shared_end:
        fc.add_node(Node("end", "End", "stadium"))
    fc, letters = relabel_in_flow_order(fc, "start")
    return HowtoChart(fc, proc.domain, proc.title,
                      {letters[sid]: by_id[sid] for sid in by_id if sid in letters})


# -- wording helpers ---------------------------------------------------------------------------
_IRREGULAR = {"get": "got", "make": "made", "put": "put", "take": "took", "give": "gave", "let": "let",
              "set": "set", "cut": "cut", "find": "found", "keep": "kept", "see": "saw", "do": "did",
              "have": "had", "bring": "brought", "build": "built", "buy": "bought", "choose": "chose",
              "drink": "drank", "hide": "hid", "leave": "left", "send": "sent", "shut": "shut", "tell": "told",
              "undo": "undid", "write": "wrote", "go": "went", "feed": "fed", "hang": "hung", "lay": "laid",
              "run": "ran", "stick": "stuck", "deal": "dealt", "fit": "fitted", "ring": "rang", "hold": "held",
              "pay": "paid", "dig": "dug", "throw": "threw", "tip": "tipped", "plan": "planned", "stop": "stopped",
              "pre-wet": "pre-wetted", "wet": "wetted", "trim": "trimmed", "saw": "sawed", "begin": "began",
              "form": "formed", "work": "worked", "flatten": "flattened", "sew": "sewed"}


def past(phrase: str) -> str:
    """A verb phrase in the simple past ("combine the dry ingredients" -> "combined ...")."""
    verb, _, rest = phrase.partition(" ")
    v = verb.lower()
    if v in _IRREGULAR:
        out = _IRREGULAR[v]
    elif v.endswith("e"):
        out = v + "d"
    elif v.endswith("y") and len(v) > 2 and v[-2] not in "aeiou":
        out = v[:-1] + "ied"
    else:
        out = v + "ed"
    return f"{out} {rest}".strip()


def _head(s: Step) -> str:
    """The step's own wording up to its first detail or second clause ("Knead the dough")."""
    text = s.text
    cut = min([text.find(p) for p, _ in s.details if text.find(p) > 0] + [len(text)])
    head = re.split(r",| and | then ", text[:cut])[0].strip().rstrip(".")
    return head if len(head.split()) >= 2 else ""


def _do(s: Step, rng: random.Random) -> str:
    """How a question names a step: mostly in other words, else by the head of its own text."""
    head = _head(s)
    if s.plain and (not head or rng.random() < 0.6):
        return s.plain
    return _lower_first(head or s.text.rstrip("."))


_PEOPLE = [("Maria", "she", "her", "her"), ("Tom", "he", "his", "him"), ("Aisha", "she", "her", "her"),
           ("Daniel", "he", "his", "him"), ("Sophie", "she", "her", "her"), ("Raj", "he", "his", "him"),
           ("Elena", "she", "her", "her"), ("Marcus", "he", "his", "him"), ("Hannah", "she", "her", "her"),
           ("Kenji", "he", "his", "him"), ("Lucy", "she", "her", "her"), ("Oliver", "he", "his", "him")]


def _pronouns(clause: str, they: str, their: str, them: str) -> str:
    return clause.replace("{they}", they).replace("{their}", their).replace("{them}", them)


def _clause_for_you(clause: str) -> str | None:
    """A settling clause said to "you" (fact questions), None where the verb would not agree."""
    if re.search(r"\{they\} (?:is|has|was|\w+s)\b", clause):
        return None
    return _pronouns(clause, "you", "your", "you")


def _whether(question: str, rng: random.Random) -> str:
    """A check's question as a "whether" clause ("whether the dough is too sticky to handle")."""
    said = settle(question, "yes", rng)
    if said is None:
        words = question.rstrip("?").split()
        said = " ".join(words[1:] if words and words[0] in ("Do", "Does", "Did", "Can", "How") else words)
    return f"whether {_lower_first(said)}"


def _for_person(t: str, their: str) -> str:
    """A step said of the person in a story ("clean the flat to get your deposit back" ->
    "... her deposit back")."""
    return re.sub(r"\byour\b", their, t)


_DURATION = re.compile(r"^(?:for|about|up to|at least|another|within|\d)")


# -- fact retrieval ------------------------------------------------------------------------------
_DETAIL_ASKS: dict[str, list[str]] = {
    "time": ["How long should you {do}?", "For how long do you {do}?", "How much time should be allowed to {do}?"],
    "when": ["When should you {do}?", "At what point does the flowchart say to {do}?", "When is the right time to {do}?"],
    "amount": ["How much is needed to {do}?", "What quantity does the flowchart give when you {do}?",
               "How much should you use to {do}?"],
    "tool": ["What should be used to {do}?", "Which tool is recommended to {do}?", "What do you need to {do}?",
             "What item does the flowchart suggest using to {do}?"],
    "place": ["Where should you {do}?", "Where does the flowchart say to {do}?", "In what location do you {do}?"],
    "until": ["How do you know when to stop when you {do}?", "Until when should you {do}?",
              "What is the sign that you have done enough when you {do}?"],
    "purpose": ["Why should you {do}?", "What is the purpose of the step where you {do}?",
                "What is the reason given to {do}?"],
    "temp": ["At what temperature should you {do}?", "What temperature does the flowchart give to {do}?"],
    "manner": ["How should you {do}?", "In what way does the flowchart say to {do}?"],
    "freq": ["How often should you {do}?", "How frequently does the flowchart say to {do}?"],
}


_PREPOSITIONS = ("in", "on", "at", "for", "with", "by", "to", "until", "from", "into", "onto", "under", "before",
                 "after", "while", "within", "about", "up", "over", "around", "through", "along", "once", "every",
                 "each", "twice", "the", "a", "so", "half", "out", "inside", "behind", "between", "away", "near")


def _detail_answer(phrase: str, do: str, rng: random.Random) -> str:
    """A detail as an answer: bare, or restated with the step when it reads as a sentence."""
    r = rng.random()
    if r < 0.45 or phrase.split()[0].lower() not in _PREPOSITIONS:
        return phrase[0].upper() + phrase[1:] + "."
    if r < 0.75:
        return f"You should {do} {phrase}."
    return f"The flowchart says to {do} {phrase}."


def make_howto_fact_questions(hc: HowtoChart, chart_id: str, rng: random.Random, *, n: int = 3,
                              start: int = 0) -> list[dict[str, Any]]:
    """``n`` fact questions on a `howto_chart` (forms in the module docstring)."""
    chart, steps = hc.chart, hc.steps
    out: list[dict[str, Any]] = []

    def add(q: str, a: str, gold: list[str], qtype: str = "fact_retrieval") -> None:
        out.append(_q(chart_id, start + len(out), qtype, q, a, gold, hc.domain, rng))

    detailed = [n_ for n_, s in steps.items() if s.kind in ("step", "end") and s.details]
    plain_steps = [n_ for n_, s in steps.items() if s.kind in ("step", "end")]
    decisions = [n_ for n_, s in steps.items() if s.kind == "decision"]
    notes = [n_ for n_, s in steps.items() if s.kind == "note"]
    tries = 0
    while len(out) < n and tries < 20:
        tries += 1
        r = rng.random()
        if r < 0.5 and detailed:  # a detail inside a long step
            node = rng.choice(detailed)
            s = steps[node]
            phrase, kind = rng.choice(s.details)
            do = _do(s, rng)
            if phrase in do:
                continue
            if kind == "time" and not _DURATION.match(phrase):
                kind = "when"
            q = rng.choice(_DETAIL_ASKS[kind]).format(do=do)
            if rng.random() < 0.2 and "flowchart" not in q:
                q = f"According to the flowchart, {_lower_first(q)}"
            add(q, _detail_answer(phrase, do, rng), [node])
        elif r < 0.7 and decisions:  # what to do when a check goes one way
            d = rng.choice(decisions)
            s = steps[d]
            i = rng.randrange(len(s.branches))
            label, _ = s.branches[i]
            target = next((e.target for e in chart.out_edges(d) if e.label == label), None)
            if target is None or target not in steps or steps[target].kind not in ("step", "end"):
                continue
            clause = settle(s.text, label.lower(), rng) if label in ("Yes", "No") and rng.random() < 0.4 else None
            clause = clause or _clause_for_you(s.clauses[i])
            if clause is None:
                continue
            q = rng.choice([f"What should you do if {clause}?", f"According to the flowchart, what is the next step if {clause}?",
                            f"If {clause}, what does the flowchart recommend?"])
            t = steps[target]
            do = _do(t, rng)
            a = rng.choice([f"You should {do}.", f"{t.text}.", f"{_cap(do)}."])
            add(q, a, [d, target])
        elif r < 0.82 and plain_steps:  # the step right after / before a named one
            node = rng.choice(plain_steps)
            succ = [t for t in chart.successors(node) if t in steps and steps[t].kind != "note"]
            pred = [p for p in chart.predecessors(node) if p in steps and steps[p].kind == "step"]
            if succ and (not pred or rng.random() < 0.7):
                t = succ[0]
                q = rng.choice([f"What should you do after you {_do(steps[node], rng)}?",
                                f"What comes right after the step to {_do(steps[node], rng)}?",
                                f"Once you {_do(steps[node], rng)}, what is the next step?"])
            elif pred:
                t = pred[0]
                q = rng.choice([f"What should be done before you {_do(steps[node], rng)}?",
                                f"Which step comes just before you {_do(steps[node], rng)}?"])
            else:
                continue
            ts = steps[t]
            if ts.kind == "decision":
                a = rng.choice([f"You check: {ts.text}", f"You need to check {_whether(ts.text, rng)}."])
            else:
                a = rng.choice([f"You should {_do(ts, rng)}.", f"{ts.text}."])
            # "what comes after / before X" asks about the sequence: a flow-referential question,
            # grounded by X and the neighbour asked for (docs/reasoning.md "Gold conventions")
            add(q, a, [node, t], "flow_referential")
        elif r < 0.94 and decisions:  # what a check asks, named by the step before or after it
            d = rng.choice(decisions)
            before = [p for p in chart.predecessors(d) if p in steps and steps[p].kind == "step"]
            after = [t for t in chart.successors(d) if t in steps and steps[t].kind in ("step", "end")]
            gold = [d]
            if before and rng.random() < 0.5:
                q = rng.choice([f"What needs to be checked after you {_do(steps[before[0]], rng)}?",
                                f"What question does the flowchart ask once you {_do(steps[before[0]], rng)}?"])
            elif after:
                q = rng.choice([f"What decides whether you {_do(steps[after[0]], rng)}?",
                                f"Which question determines if you need to {_do(steps[after[0]], rng)}?"])
                gold.append(after[0])  # the check and the branch step the question names
            else:
                continue
            add(q, rng.choice([f"{_cap(_whether(steps[d].text, rng))}.", steps[d].text]), gold)
        elif notes:  # the tip a side note gives
            nt = rng.choice(notes)
            host = next(iter(chart.predecessors(nt)), None)
            if host is None or host not in steps:
                continue
            q = rng.choice([f"What tip does the flowchart give about the step to {_do(steps[host], rng)}?",
                            f"Is there any advice given when you {_do(steps[host], rng)}?"])
            add(q, f"{steps[nt].text}.", [nt])
    return out


# -- applied scenarios ---------------------------------------------------------------------------
_OPENINGS = ["{Name} is {title} for the first time.", "{Name} is {title} this weekend.",
             "{Name} has decided to try {title} and is following a flowchart.",
             "{Name}, who has never done this before, is {title}.",
             "On a quiet Saturday, {Name} is {title}."]
_SCENERY = ["{They} has set aside the whole afternoon for it.", "{Their} neighbour offered to help if needed.",
            "{They} is keen to get it right without spending extra money.", "A friend recommended the flowchart to {them}.",
            "{They} is listening to the radio while working."]
_SETTLE_FRAMES = ["{c}.", "{Name} notices that {c}.", "Unfortunately, {c}.", "When {they} checks, {c}.",
                  "It turns out that {c}.", "{Name} sees that {c}."]
_GOOD_FRAMES = ["{c}.", "Luckily, {c}.", "{Name} is pleased to find that {c}.", "When {they} checks, {c}."]
_ASKS = ["What should {Name} do next?", "According to the flowchart, what should {they} do now?",
         "Based on the flowchart, what is the next step for {Name}?", "What should {they} do in this situation?",
         "What does the flowchart suggest {Name} should do?"]


def _cap(t: str) -> str:
    return t[0].upper() + t[1:] if t else t


def make_howto_scenario_questions(hc: HowtoChart, chart_id: str, rng: random.Random, *, n: int = 2,
                                  start: int = 0) -> list[dict[str, Any]]:
    """``n`` applied scenarios on a `howto_chart` (forms and gold in the module docstring)."""
    chart, steps = hc.chart, hc.steps
    g = chart.to_networkx()
    out: list[dict[str, Any]] = []
    targets = [t for t, s in steps.items() if s.kind in ("step", "end")]
    tries = 0
    while len(out) < n and tries < 30:
        tries += 1
        name, they, their, them = rng.choice(_PEOPLE)
        fill = {"Name": name, "They": _cap(they), "Their": _cap(their), "they": they, "their": their, "them": them,
                "title": hc.title}
        opening = rng.choice(_OPENINGS).format(**fill)
        facts: list[str] = []
        target = rng.choice(targets)
        # sorted: a set of node ids iterates in an order PYTHONHASHSEED picks, and the sets came out
        # different from run to run
        walks = [nx.shortest_path(g, d, target) for d in sorted(nx.ancestors(g, target))
                 if d in steps and steps[d].kind == "decision"]
        walks = [w for w in walks if len(w) <= 7]
        if walks and rng.random() < 0.75:
            several = [w for w in walks if sum(x in steps and steps[x].kind == "decision" for x in w) >= 2]
            walk = rng.choice(several if several and rng.random() < 0.6 else walks)
            told = True
            for a, b in zip(walk, walk[1:], strict=False):
                s = steps[a]
                if s.kind != "decision":
                    continue
                label = next((e.label for e in chart.out_edges(a) if e.target == b), None)
                i = next((k for k, (lab, _) in enumerate(s.branches) if lab == label), None)
                if i is None or i >= len(s.clauses):
                    told = False
                    break
                c = _pronouns(s.clauses[i], they, their, them)
                frames = _SETTLE_FRAMES if rng.random() < 0.5 else _GOOD_FRAMES
                sent = rng.choice(frames).format(c=c, **fill)
                facts.append(_cap(sent))
            if not told:
                continue
            gold = list(walk)
            before = [p for p in chart.predecessors(walk[0]) if p in steps and steps[p].kind == "step" and p != target]
            if before and rng.random() < 0.5:
                facts.insert(0, rng.choice([f"{_cap(they)} already {_for_person(past(_do(steps[before[0]], rng)), their)}.",
                                            f"{name} {_for_person(past(_do(steps[before[0]], rng)), their)} a few minutes ago.",
                                            f"{_cap(they)} {_for_person(past(_do(steps[before[0]], rng)), their)} without any trouble."]))
                gold.insert(0, before[0])
        else:  # "what next" from the step the person has just done
            at = rng.choice([t for t in targets if steps[t].kind == "step"])
            succ = [t for t in chart.successors(at) if t in steps and steps[t].kind != "note"]
            if not succ:
                continue
            facts.append(rng.choice([f"{_cap(they)} just {_for_person(past(_do(steps[at], rng)), their)}.",
                                     f"{name} {_for_person(past(_do(steps[at], rng)), their)} a moment ago."]))
            target = succ[0]
            gold = [at, target]
            if steps[target].kind == "decision":
                if rng.random() < 0.5:
                    facts.append(_cap(rng.choice(["{They} is not sure what comes next.", "{They} pauses to look at the chart."]).format(**fill)))
                ask = rng.choice(_ASKS).format(**fill)
                ans = rng.choice([f"{name} should check {_whether(steps[target].text, rng)}.",
                                  f"The flowchart asks: {steps[target].text}"])
                if rng.random() < 0.5:
                    facts.append(_cap(rng.choice(_SCENERY).format(**fill)))
                out.append(_q(chart_id, start + len(out), "applied_scenario", " ".join([opening, *facts, ask]),
                              ans, gold, hc.domain, rng))
                continue
        if rng.random() < 0.5:
            facts.insert(rng.randint(0, len(facts)), _cap(rng.choice(_SCENERY).format(**fill)))
        t = steps[target]
        do = _do(t, rng) if rng.random() < 0.6 else _lower_first(t.text.rstrip("."))
        succ = [x for x in chart.successors(target) if x in steps and steps[x].kind == "step"]
        if succ and target != gold[0] and rng.random() < 0.15:  # an answer naming two steps
            do = f"{do} and then {_do(steps[succ[0]], rng)}"
            gold.append(succ[0])
        do = _for_person(do, their)
        ask = rng.choice(_ASKS).format(**fill)
        ans = rng.choice([f"{name} should {do}.", f"{_cap(they)} should {do}.", f"The next step is to {do}.",
                          f"{_cap(do)}."])
        out.append(_q(chart_id, start + len(out), "applied_scenario", " ".join([opening, *facts, ask]), ans,
                      gold, hc.domain, rng))
    return out


def make_howto_questions(hc: HowtoChart, chart_id: str, rng: random.Random, *, per_type: int = 1) -> list[dict[str, Any]]:
    """Fact questions (``per_type`` + 2) and applied scenarios (``per_type`` + 1) on one chart."""
    facts = make_howto_fact_questions(hc, chart_id, rng, n=per_type + 2)
    return facts + make_howto_scenario_questions(hc, chart_id, rng, n=per_type + 1, start=len(facts))


# -- fact forms an LLM writes that the forms above do not ask (twelfth stretch) -------------------
# FlowVQA's fact questions were written by GPT-4 from the chart and its source article: besides
# a detail asked in the step's words they ask why a step is done, which step uses a tool, the
# first or last step (of the process or of a branch), yes/no claims answered "Yes, ..." / "No,
# ...", what the chart offers at a check, and facts asked in other words only. Gold follows
# docs/reasoning.md "Gold conventions" (fact: the node stating the answer, a check the question
# settles with its branch's node; the options at a check: the check and its branch steps; "what
# is the first thing once you X": flow referential, X and the next step).
_FACT_FORMS = ("purpose", "tool_step", "tool_use", "first", "last", "branch_first", "branch_last", "yesno_detail",
               "yesno_branch", "options", "shared_words", "paraphrase")


def _bare(phrase: str) -> str:
    """A detail without its leading preposition ("with a wooden spoon" -> "a wooden spoon")."""
    words = phrase.split()
    while len(words) > 1 and words[0].lower() in ("with", "using", "by", "in", "on", "onto", "into", "at", "to",
                                                   "from", "through", "under", "inside"):
        words = words[1:]
    return " ".join(words)


def _words(t: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", t.lower()) if len(w) > 3}


def _walk_to_end(chart: FlowChart, steps: dict[str, Step], node: str) -> str | None:
    """The end a step leads to through plain steps only (no check on the way), None otherwise."""
    seen = {node}
    while node in steps and steps[node].kind == "step":
        succ = [t for t in chart.successors(node) if t in steps and steps[t].kind != "note"]
        if len(succ) != 1 or succ[0] in seen:
            return None
        node = succ[0]
        seen.add(node)
    return node if node in steps and steps[node].kind == "end" else None


def _branch_clause(s: Step, i: int, label: str, rng: random.Random) -> str | None:
    clause = settle(s.text, label.lower(), rng) if label in ("Yes", "No") and rng.random() < 0.4 else None
    return clause or _clause_for_you(s.clauses[i])


def make_howto_fact_form_questions(hc: HowtoChart, chart_id: str, rng: random.Random, *, n: int = 4,
                                   start: int = 0) -> list[dict[str, Any]]:
    """``n`` questions on a `howto_chart` in the fact forms above (`_FACT_FORMS`), one form drawn
    at a time; "the first thing once you X" is labelled flow referential, the rest fact."""
    chart, steps = hc.chart, hc.steps
    out: list[dict[str, Any]] = []

    def add(q: str, a: str, gold: list[str], qtype: str = "fact_retrieval") -> None:
        out.append(_q(chart_id, start + len(out), qtype, q, a, gold, hc.domain, rng))

    def unique(phrase: str) -> bool:  # a detail only one node's text holds
        return sum(phrase.lower() in (chart.nodes[x].text or "").lower() for x in chart.nodes) == 1

    def say(x: str) -> str:  # a node as an answer
        t = steps[x]
        if t.kind == "decision":
            return _cap(_whether(t.text, rng)) + "."
        return rng.choice([f"You should {_do(t, rng)}.", f"{t.text.rstrip('.')}.", f"{_cap(_do(t, rng))}."])

    detailed = [x for x, s in steps.items() if s.kind in ("step", "end") and s.details]
    decisions = [x for x, s in steps.items() if s.kind == "decision"]
    flow_steps = [x for x, s in steps.items() if s.kind in ("step", "end")]
    tries = 0
    while len(out) < n and tries < 40:
        tries += 1
        form = rng.choice(_FACT_FORMS)
        if form == "purpose":  # "Why should you let the dough rest?" -> the purpose the step gives
            cands = [(x, p) for x in detailed for p, k in steps[x].details if k == "purpose"]
            if not cands:
                continue
            x, phrase = rng.choice(cands)
            do = _do(steps[x], rng)
            q = rng.choice([f"Why does the flowchart tell you to {do}?", f"For what reason do you {do}?",
                            f"What is the point of the step where you {do}?", f"Why is it important to {do}?"])
            add(q, rng.choice([f"{_cap(phrase)}.", f"You do it {phrase}.", f"The flowchart says it is {phrase}."]), [x])
        elif form in ("tool_step", "tool_use"):  # which step uses a tool / amount, or what a tool is for
            cands = [(x, p) for x in detailed for p, k in steps[x].details if k in ("tool", "amount") and unique(p)]
            if not cands:
                continue
            x, phrase = rng.choice(cands)
            thing, do = _bare(phrase), _do(steps[x], rng)
            if form == "tool_step":
                q = rng.choice([f"At which step do you need {thing}?", f"Which step calls for {thing}?",
                                f"In which step is {thing} used?", f"When does the flowchart have you use {thing}?"])
                add(q, rng.choice([f"When you {do}.", f"The step to {do}.", f"{steps[x].text.rstrip('.')}."]), [x])
            else:
                q = rng.choice([f"What is {thing} used for?", f"What does the flowchart say {thing} is for?",
                                f"What do you do with {thing}?"])
                add(q, rng.choice([f"To {do}.", f"You use it to {do}.", f"It is used to {do}."]), [x])
        elif form == "first":  # the first step of the process, or the first thing once you X (flow)
            if rng.random() < 0.5:
                first = next((t for t in chart.successors("A") if t in steps), None)
                if first is None:
                    continue
                q = rng.choice(["What is the first thing to do according to the flowchart?",
                                "What does the process begin with?", "What is the initial step?",
                                f"What should you do first when {hc.title}?"])
                add(q, say(first), [first])
            else:
                x = rng.choice(flow_steps)
                succ = [t for t in chart.successors(x) if t in steps and steps[t].kind != "note"]
                if steps[x].kind != "step" or len(succ) != 1:
                    continue
                q = rng.choice([f"What is the first thing to do once you {_do(steps[x], rng)}?",
                                f"Once you {_do(steps[x], rng)}, what do you do first?"])
                add(q, say(succ[0]), [x, succ[0]], "flow_referential")
        elif form == "last":  # the final step of a process with one end
            ends = [x for x, s in steps.items() if s.kind == "end"]
            if len(ends) != 1:
                continue
            q = rng.choice(["What is the final step in the flowchart?", "What is the last thing you do?",
                            f"How does the process of {hc.title} end?", "What is the last step of the process?"])
            add(q, say(ends[0]), ends)
        elif form in ("branch_first", "branch_last", "yesno_branch") and decisions:  # a settled branch
            d = rng.choice(decisions)
            s = steps[d]
            i = rng.randrange(len(s.branches))
            label = s.branches[i][0]
            target = next((e.target for e in chart.out_edges(d) if e.label == label), None)
            if target is None or target not in steps or steps[target].kind not in ("step", "end"):
                continue
            clause = _branch_clause(s, i, label, rng)
            if clause is None:
                continue
            if form == "branch_first":
                q = rng.choice([f"What is the first thing to do if {clause}?", f"If {clause}, what should you do first?",
                                f"What is the initial step when {clause}?"])
                add(q, say(target), [d, target])
            elif form == "branch_last":
                end = _walk_to_end(chart, steps, target)
                if end is None or end == target:
                    continue
                q = rng.choice([f"What is the final step if {clause}?", f"If {clause}, how does the process end?",
                                f"What is the last thing you do when {clause}?"])
                add(q, say(end), [d, end])
            else:  # "If the dough is sticky, do you knead it?" -> "No, ..." (the taken branch's step)
                others = [e.target for e in chart.out_edges(d) if e.target != target and e.target in steps
                          and steps[e.target].kind in ("step", "end")]
                if others and rng.random() < 0.5:
                    q = f"If {clause}, should you {_do(steps[others[0]], rng)}?"
                    add(q, f"No, you should {_do(steps[target], rng)}.", [d, target])
                else:
                    q = f"If {clause}, should you {_do(steps[target], rng)}?"
                    add(q, rng.choice(["Yes, that is what the flowchart says.",
                                       f"Yes, you should {_do(steps[target], rng)}."]), [d, target])
        elif form == "yesno_detail" and detailed:  # "Do you knead the dough for 5 minutes?" -> "No, ..."
            x = rng.choice(detailed)
            phrase, kind = rng.choice(steps[x].details)
            do = _do(steps[x], rng)
            if phrase.lower() in do.lower():
                continue
            # a wrong claim: the detail's number changed, or the same kind of detail of another step
            # where any step's would read sensibly (a time, a temperature, a tool)
            num = re.search(r"\d+", phrase)
            wrong = ([phrase[:num.start()] + str(int(num.group()) * 2 + 5) + phrase[num.end():]] if num
                     else [p for y in detailed if y != x for p, k in steps[y].details
                           if k == kind and k in ("time", "temp", "freq", "tool") and p != phrase])
            if wrong and rng.random() < 0.5:
                q = rng.choice([f"Does the flowchart say to {do} {rng.choice(wrong)}?",
                                f"Should you {do} {rng.choice(wrong)}?"])
                add(q, f"No, it says to {do} {phrase}.", [x])
            else:
                q = rng.choice([f"Does the flowchart say to {do} {phrase}?", f"Should you {do} {phrase}?",
                                f"Is it right that you {do} {phrase}?"])
                add(q, rng.choice([f"Yes, {phrase}.", f"Yes, the flowchart says to {do} {phrase}."]), [x])
        elif form == "options" and decisions:  # what the chart offers at a check, no branch taken
            d = rng.choice(decisions)
            outs = [(e.label, e.target) for e in chart.out_edges(d) if e.label and e.target in steps
                    and steps[e.target].kind in ("step", "end", "decision")]
            if len(outs) < 2:
                continue
            w = _whether(steps[d].text, rng)
            q = rng.choice([f"What are the options depending on {w}?", f"What does the flowchart say to do depending on {w}?",
                            f"What are the possible outcomes of checking {w}?"])
            parts = [f"if {lab.lower() if lab in ('Yes', 'No') else lab}, {_do(steps[t], rng)}"
                     if steps[t].kind != "decision" else f"if {lab.lower()}, check {_whether(steps[t].text, rng)}"
                     for lab, t in outs]
            add(q, _cap("; ".join(parts)) + ".", [d] + [t for _, t in outs])
        elif form == "shared_words" and detailed:  # a detail of a long step that shares words with a neighbour
            def overlap(x: str) -> int:
                near = set(chart.successors(x)) | set(chart.predecessors(x))
                return max([len(_words(steps[x].text) & _words(chart.nodes[y].text or "")) for y in near] + [0])
            best = max(overlap(x) for x in detailed)
            if best < 2:
                continue
            x = rng.choice([y for y in detailed if overlap(y) == best])
            phrase, kind = rng.choice(steps[x].details)
            if kind == "time" and not _DURATION.match(phrase):
                kind = "when"
            do = _lower_first(steps[x].text.split(",")[0].rstrip("."))
            if phrase in do:
                do = _lower_first(_head(steps[x]) or do)
                if phrase in do or not do:
                    continue
            add(rng.choice(_DETAIL_ASKS[kind]).format(do=do), _detail_answer(phrase, do, rng), [x])
        elif form == "paraphrase":  # asked in other words only
            cands = [x for x in flow_steps if steps[x].plain]
            if not cands:
                continue
            x = rng.choice(cands)
            q = rng.choice([f"Does the flowchart tell you to {steps[x].plain}?", f"Is there a step where you {steps[x].plain}?",
                            f"At some point, do you {steps[x].plain}?"])
            add(q, rng.choice(["Yes, it does.", "Yes.", f"Yes, you {steps[x].plain}."]), [x])
    return out
