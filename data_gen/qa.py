"""Synthetic attribution QA with gold node sets, in the benchmark layout.

Templated questions of the four benchmark types (fact retrieval, applied scenario, flow
referential, topological), each with the nodes that ground it, generated from `FlowChart`s:

* procedural charts (`random_chart`): steps, yes/no decisions that skip ahead, loop back or
  branch and rejoin, with texts from several domains; chart JSON gets a synthetic grid layout
  of node boxes, so ``flowpath eval attribution --oracle`` scores them (no images: oracle only);
* or the charts of an existing benchmark-layout folder (``--from-bench``, e.g. a set rendered by
  ``python -m data_gen``): their chart JSON and images are copied, so the pipeline mode works too.

Answers are paraphrased (words dropped, synonyms, framing) so that matching is not verbatim.

    python -m data_gen.qa --out /work/scratch/qa --charts 300 --seed 0
    python -m data_gen.qa --out OUT --charts 300 --seed 3 --style flowvqa   # FlowVQA-style questions
    python -m data_gen.qa --out OUT --from-bench GENERATED_SET --per-type 2
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import networkx as nx

from flowpath.graph import Edge, FlowChart, Node

# -- procedural charts -------------------------------------------------------------------------
# each domain: step verbs and objects, yes/no checks, and numeric checks (subject, comparison)
_DOMAINS: dict[str, dict[str, list[Any]]] = {
    "instruct": {
        "verbs": ["Gather", "Clean", "Measure", "Cut", "Mix", "Heat", "Attach", "Sand", "Paint", "Rinse",
                  "Fold", "Tighten", "Apply", "Remove", "Check", "Place", "Pour", "Stir", "Drain", "Label"],
        "objects": ["the wooden board", "two cups of flour", "the copper pipe", "the garden soil", "the bike chain",
                    "the glass jar", "the fabric strip", "the ceramic tile", "the rubber seal", "the metal bracket",
                    "the olive oil", "the paper template", "the drill bit", "the wall anchor", "the sugar syrup",
                    "the leather strap", "the window frame", "the seed tray", "the fish tank filter", "the baking tray"],
        "checks": ["Is the glue dry", "Does the lid fit snugly", "Is the water boiling", "Is the surface smooth",
                   "Are all screws tight", "Is the dough elastic", "Has the paint cured", "Is the mixture too runny",
                   "Does the seal leak", "Is the soil moist"],
        "numeric": [("the oven temperature", "above"), ("the water level", "below"), ("the board length", "at least"),
                    ("the drying time", "more than"), ("the paint thickness", "at most"), ("the soil pH", "less than")],
    },
    "code": {
        "verbs": ["Initialize", "Increment", "Append", "Return", "Compute", "Parse", "Validate", "Swap", "Sort",
                  "Read", "Write", "Split", "Merge", "Reset", "Decrement", "Print", "Store", "Load", "Hash", "Encode"],
        "objects": ["counter 'count'", "list 'result'", "variable 'total'", "index 'i'", "buffer 'buf'",
                    "string 'token'", "dictionary 'cache'", "pointer 'left'", "value 'max_val'", "array 'nums'",
                    "queue 'pending'", "flag 'found'", "matrix 'grid'", "set 'seen'", "field 'self.name'",
                    "socket 'conn'", "file 'log.txt'", "stack 'ops'", "node 'head'", "key 'k'"],
        "checks": ["Is 'i' less than 'n'", "Is 'count' equal to zero", "Is the list empty", "Is 'x' in 'seen'",
                   "Does the file exist", "Is 'left' greater than 'right'", "Is the token valid",
                   "Is 'n' divisible by 2", "Is the connection open", "Is 'max_val' None"],
        "numeric": [("'n'", "greater than"), ("len(nums)", "less than"), ("the retry count", "at least"),
                    ("'total'", "above"), ("the buffer size", "at most"), ("'depth'", "below")],
    },
    "wiki": {
        "verbs": ["Research", "Contact", "Schedule", "Review", "Register", "Prepare", "Submit", "Compare",
                  "Notify", "Document", "Practice", "Visit", "Request", "Plan", "Confirm", "Discuss", "Record",
                  "Select", "Update", "Monitor"],
        "objects": ["the local council", "a travel itinerary", "the credit report", "a meeting agenda",
                    "the insurance claim", "the tenant lease", "a workout routine", "the museum tickets",
                    "the election ballot", "the family budget", "a language course", "the passport form",
                    "the neighbourhood watch", "a volunteer shift", "the wedding venue", "the job application",
                    "the vaccination record", "the library card", "the rental deposit", "a support group"],
        "checks": ["Is the deadline close", "Did the agency respond", "Is the budget sufficient",
                   "Are documents complete", "Is the venue available", "Was the request approved",
                   "Is the area safe", "Does the plan need changes", "Is a visa required", "Has the fee been paid"],
        "numeric": [("the credit score", "above"), ("the monthly income", "at least"), ("the applicant's age", "below"),
                    ("the number of guests", "more than"), ("the account balance", "less than"), ("the wait time", "at most")],
    },
}

NAMES = ["Mia", "Liam", "Emma", "Noah", "Ava", "Kevin", "Julia", "Rachel", "Omar", "Priya", "Chen", "Sofia"]

_SYNONYMS = {"the": "", "a": "", "two": "2", "cups": "cup", "check": "verify", "remove": "take off",
             "place": "put", "gather": "collect", "initialize": "set up", "return": "give back",
             "compute": "calculate", "research": "look into", "contact": "reach out to", "submit": "send in",
             "review": "go over", "notify": "inform", "select": "choose", "mix": "combine", "cut": "trim"}


def random_chart(rng: random.Random, n_steps: int | None = None, domain: str | None = None,
                 numeric_rate: float = 0.0, decision_rate: float = 0.35) -> tuple[FlowChart, str]:
    """A procedural flowchart: start, process steps, yes/no decisions (skip, loop, branch), end.

    Args:
        rng: the random source.
        n_steps: number of process steps (default 5-14).
        domain: ``instruct`` | ``code`` | ``wiki`` (default random).
        numeric_rate: share of decisions that compare a quantity with a threshold
            ("Is the credit score above 600?") instead of a yes/no check.
        decision_rate: chance that a check follows a step (where one can).

    Returns:
        ``(chart, domain)``; node ids are ``A, B, ...`` in creation order.
    """
    from flowpath.labels import index_to_letters

    domain = domain or rng.choice(sorted(_DOMAINS))
    vocab = _DOMAINS[domain]
    n_steps = n_steps or rng.randint(5, 14)
    pairs = [(v, o) for v in vocab["verbs"] for o in vocab["objects"]]
    rng.shuffle(pairs)
    checks = list(vocab["checks"])
    rng.shuffle(checks)
    fc = FlowChart("TD")
    counter = iter(range(10_000))

    def new(text: str, shape: str) -> str:
        nid = index_to_letters(next(counter))
        fc.add_node(Node(nid, text, shape))
        return nid

    start = new("Start", "stadium")
    steps = [new(f"{v} {o}", rng.choice(["rect", "rect", "rect", "lean_right"])) for v, o in pairs[:n_steps]]
    # build the flow: `prev` links into the next step with `label` (a decision's branch answer)
    prev, label, i = start, None, 0
    joins: list[str] = []  # ends of alternative branches that rejoin at the next step
    end_id = new("End", "stadium")
    while i < len(steps):
        cur = steps[i]
        fc.add_edge(Edge(prev, cur, label))
        for j in joins:
            fc.add_edge(Edge(j, cur))
        joins, label, prev = [], None, cur
        if checks and i + 2 < len(steps) and rng.random() < decision_rate:
            if numeric_rate and rng.random() < numeric_rate:
                subject, comparison = rng.choice(vocab["numeric"])
                d = new(f"Is {subject} {comparison} {rng.choice([5, 10, 18, 50, 180, 600, 3000])}?", "rhombus")
            else:
                d = new(checks.pop() + "?", "rhombus")
            fc.add_edge(Edge(cur, d))
            go, stay = ("Yes", "No") if rng.random() < 0.7 else ("No", "Yes")
            kind = rng.choice(["skip", "loop", "branch"])
            if kind == "loop":  # not done yet: back to the current step; done: go on
                fc.add_edge(Edge(d, cur, stay))
                prev, label, i = d, go, i + 1
            elif kind == "skip":  # one answer does an extra step, the other skips it
                fc.add_edge(Edge(d, steps[i + 1], go))
                fc.add_edge(Edge(steps[i + 1], steps[i + 2]))
                prev, label, i = d, stay, i + 2
            else:  # two alternatives that rejoin at the step after them
                fc.add_edge(Edge(d, steps[i + 1], go))
                fc.add_edge(Edge(d, steps[i + 2], stay))
                joins = [steps[i + 1]]
                prev, label, i = steps[i + 2], None, i + 3
            continue
        i += 1
    fc.add_edge(Edge(prev, end_id, label))
    for j in joins:
        fc.add_edge(Edge(j, end_id))
    fc, _ = relabel_in_flow_order(fc, start)
    return fc, domain


def relabel_in_flow_order(chart: FlowChart, start: str) -> tuple[FlowChart, dict[str, str]]:
    """The chart with letter ids ``A, B, ...`` in flow order from ``start`` (as a reading-order
    labeller would assign them), not creation order, nodes listed in letter order; and the map
    from old ids to letters."""
    from flowpath.labels import index_to_letters

    g = chart.to_networkx()
    reached = list(nx.dfs_preorder_nodes(g, start))
    order = reached + [n for n in chart.nodes if n not in set(reached)]
    fc = chart.relabel({old: f"tmp_{k}" for k, old in enumerate(order)})
    fc = fc.relabel({f"tmp_{k}": index_to_letters(k) for k in range(len(order))})
    # relabel keeps dict order of the old ids: rebuild so nodes are listed in letter order
    d = fc.to_dict()
    d["nodes"].sort(key=lambda nd: (len(nd["id"]), nd["id"]))
    return FlowChart.from_dict(d), {old: index_to_letters(k) for k, old in enumerate(order)}


def grid_layout(chart: FlowChart) -> tuple[dict[str, dict[str, Any]], int, int]:
    """Synthetic node boxes on a grid (rows by flow depth), for oracle-mode scoring."""
    g = chart.to_networkx()
    start = chart.sources()[0] if chart.sources() else next(iter(chart.nodes))
    depth = nx.single_source_shortest_path_length(g, start)
    rows: dict[int, list[str]] = {}
    for n in chart.nodes:
        rows.setdefault(depth.get(n, len(chart)), []).append(n)
    boxes, w, h = {}, 0, 0
    for r, (_, ids) in enumerate(sorted(rows.items())):
        for c, n in enumerate(ids):
            x0, y0 = 20 + c * 260, 20 + r * 100
            box = [x0, y0, x0 + 220, y0 + 60]
            boxes[n] = {"bbox": box, "polygon": [[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]]}
            w, h = max(w, box[2] + 20), max(h, box[3] + 20)
    return boxes, w, h


def chart_mermaid(chart: FlowChart) -> str:
    """Mermaid text of a chart (`flowpath.mermaid.to_mermaid`)."""
    from flowpath.mermaid import to_mermaid

    return to_mermaid(chart)


# -- question templates ------------------------------------------------------------------------
def paraphrase(text: str, rng: random.Random) -> str:
    """A light paraphrase: synonyms, dropped articles, sometimes a framing sentence."""
    words = []
    for w in text.rstrip("?.").split():
        low = w.lower()
        if low in _SYNONYMS and rng.random() < 0.6:
            rep = _SYNONYMS[low]
            if rep:
                words.append(rep)
        else:
            words.append(w)
    core = " ".join(words) or text
    if text.rstrip().endswith("?"):  # a decision's text: no "you should" framing
        return core
    frame = rng.choice(["{}", "{}", "You should {}.", "The next step is to {}.", "{} is what happens.", "They {}."])
    if "{}" in frame and frame != "{}":
        core = core[0].lower() + core[1:] if core else core
    return frame.format(core)


def loose(text: str, rng: random.Random) -> str:
    """A loose mention of a node: about two thirds of its content words, verb often dropped."""
    words = [w for w in text.rstrip("?.").split() if w.lower() not in ("the", "a", "an", "is", "are", "does", "do")]
    if len(words) > 2 and rng.random() < 0.6:
        words = words[1:]  # drop the leading verb ("Clean the seed tray" -> "seed tray")
    keep = [w for w in words if rng.random() < 0.75] or words[-1:]
    return " ".join(keep).lower()


def _quote(text: str) -> str:
    return f'""{text}""'


def _decision_branches(chart: FlowChart) -> Iterator[tuple[str, Edge]]:
    for n in chart:
        if n.kind == "decision":
            for e in chart.out_edges(n.id):
                if e.label and chart.nodes[e.target].kind not in ("start", "end"):
                    yield n.id, e


def _q(chart_id: str, k: int, qtype: str, question: str, answer: str, gold: list[str], domain: str,
       rng: random.Random) -> dict[str, Any]:
    return {"id": f"{chart_id}_q{k}", "chart": chart_id, "image": f"charts/{chart_id}.png",
            "question": question, "answer": answer,
            "answers": [answer, paraphrase(answer, rng), paraphrase(answer, rng)],
            "type": qtype, "domain": domain, "gold": list(dict.fromkeys(gold)), "gold_missing_region": []}


def make_questions(chart: FlowChart, chart_id: str, rng: random.Random, *, per_type: int = 1,
                   domain: str = "synthetic") -> list[dict[str, Any]]:
    """Templated questions of all four types with the nodes that ground them.

    Args:
        chart: the flowchart.
        chart_id: id written into each record.
        rng: the random source.
        per_type: questions per type (fewer when the chart cannot support a template).
        domain: domain label for the records.

    Returns:
        Benchmark-layout question records (``gold`` = grounding node ids).
    """
    g = chart.to_networkx()
    text = {n.id: (n.text or n.id).strip() for n in chart}
    steps = [n.id for n in chart if n.kind not in ("start", "end", "terminal", "decision")]
    branches = list(_decision_branches(chart))
    out: list[dict[str, Any]] = []
    k = 0

    def add(qtype: str, q: str, a: str, gold: list[str]) -> None:
        nonlocal k
        out.append(_q(chart_id, k, qtype, q, a, gold, domain, rng))
        k += 1

    # fact retrieval: the branch target of a decision, or what follows a step
    for _ in range(per_type):
        if branches and rng.random() < 0.6:
            d, e = rng.choice(branches)
            cond = "not " if e.condition == "no" else ""
            subject = text[d].rstrip("?")
            q = rng.choice([f"What should be done if the answer to '{subject}?' is {e.label}?",
                            f"What happens when it is {cond}the case that {subject[0].lower() + subject[1:]}?",
                            f"Which action follows when '{subject}' is answered {e.label}?"])
            add("fact_retrieval", q, paraphrase(text[e.target], rng), [d, e.target])
        elif steps and rng.random() < 0.5:
            # a detail question: the object is named, the action is the answer
            n = rng.choice(steps)
            verb, _, obj = text[n].partition(" ")
            if not obj:
                continue
            before = [p for p in chart.predecessors(n) if chart.nodes[p].kind not in ("start", "decision")]
            ctx_txt = f" after you {loose(text[before[0]], rng)}" if before and rng.random() < 0.5 else ""
            q = rng.choice([f"What should you do with {obj}{ctx_txt}?", f"Which action involves {obj}{ctx_txt}?",
                            f"What happens to {loose(obj, rng) or obj}{ctx_txt}?"])
            a = rng.choice([f"{verb} it", f"It gets {verb.lower()}ed", f"You {verb.lower()} it"])
            add("fact_retrieval", q, a, [n])
        elif steps:
            s = rng.choice(steps)
            succ = [t for t in chart.successors(s) if chart.nodes[t].kind not in ("end", "decision")]
            if not succ:
                continue
            t = rng.choice(succ)
            add("fact_retrieval", f"What is done after you {text[s][0].lower() + text[s][1:]}?",
                paraphrase(text[t], rng), [t])

    # applied scenario: a person has done a few steps and asks what comes next
    for _ in range(per_type):
        if len(steps) < 3:
            break
        target = rng.choice(steps)
        anc = nx.ancestors(g, target)
        preds = [p for p in chart.nodes if p in anc and chart.nodes[p].kind not in ("start", "end")]
        if not preds:
            continue
        src = rng.choice(preds)
        try:
            path = nx.shortest_path(g, src, target)
        except nx.NetworkXNoPath:
            continue
        if len(path) > 5:
            path = path[-4:]
        name = rng.choice(NAMES)
        done = [n for n in path[:-1] if chart.nodes[n].kind != "decision"]
        # the story mentions the steps loosely (some words kept, verbs swapped) and not every
        # one of them, as real scenario questions do; the gold is still the whole path
        facts = []
        for j, n in enumerate(done):
            if j and rng.random() < 0.3:
                continue
            words = loose(text[n], rng)
            facts.append(rng.choice([f"{name} has already dealt with {words}.",
                                     f"Earlier, {name} spent some time on {words}.",
                                     f"{name} remembers the part about {words}."]))
        for a, b in zip(path, path[1:], strict=False):
            if chart.nodes[a].kind == "decision":
                lab = next((e.label for e in chart.out_edges(a) if e.target == b and e.label), None)
                if lab:
                    subject = loose(text[a], rng)
                    facts.append(f"Checking {subject}, {name} finds the answer is {lab.lower()}."
                                 if rng.random() < 0.5 else f"When asked '{text[a]}', the answer was {lab.lower()}.")
        q = (f"{name} is working through a procedure on a quiet afternoon. " + " ".join(facts)
             + f" What should {name} do next according to the chart?")
        add("applied_scenario", q, paraphrase(text[target], rng), path)

    # flow referential: where am I, what came before, what comes next
    for _ in range(per_type):
        if not steps:
            break
        c = rng.choice(steps)
        preds, succs = chart.predecessors(c), chart.successors(c)
        if not preds or not succs:
            continue
        if rng.random() < 0.5:
            p, s = rng.choice(preds), rng.choice(succs)
            q = (f"If I am currently at the step '{text[c]}', what was the step immediately before it, "
                 f"and what is the next step?")
            add("flow_referential", q, f"Before it: {paraphrase(text[p], rng)}; next: {paraphrase(text[s], rng)}", [p, c, s])
        else:
            start = next((n for n in chart.sources()), None)
            if start is None:
                continue
            try:
                path = nx.shortest_path(g, start, c)
            except nx.NetworkXNoPath:
                continue
            decisions = [n for n in path if chart.nodes[n].kind == "decision"]
            if decisions and rng.random() < 0.4:
                # counting decisions on the way: what is counted (the decisions) and where the
                # count ends ground it, i.e. the walk from the first decision passed
                q = f"Upon reaching the '{text[c]}' step, how many decision points have I passed, and what were they?"
                a = (f"{len(decisions)} decision point{'s' if len(decisions) > 1 else ''}: "
                     + "; ".join(paraphrase(text[d], rng) for d in decisions))
                add("flow_referential", q, a, path[path.index(decisions[0]):])
                continue
            q = f"How many steps are there from the '{text[start]}' node to the '{text[c]}' step, counting both?"
            add("flow_referential", q, f"There are {len(path)} steps.", path)

    # topological: adjacency, shortest path length, max degree
    nodes = list(chart.nodes)
    for j in range(per_type):
        kind = rng.choice(["succ", "pred", "path", "degree"]) if j else rng.choice(["succ", "path"])
        x, y = rng.sample(nodes, 2) if len(nodes) >= 2 else (nodes[0], nodes[0])
        if kind in ("succ", "pred"):
            if rng.random() < 0.5 and chart.edges:
                e = rng.choice(chart.edges)
                x, y = (e.target, e.source) if kind == "succ" else (e.source, e.target)
            rel = "successor" if kind == "succ" else "predecessor"
            yes = g.has_edge(y, x) if kind == "succ" else g.has_edge(x, y)
            q = f"Is the node {_quote(text[x])} direct {rel} of the node {_quote(text[y])}?"
            add("topological", q, "Yes" if yes else "No", [y, x] if kind == "succ" else [x, y])
        elif kind == "path":
            try:
                path = nx.shortest_path(g, x, y)
            except nx.NetworkXNoPath:
                try:
                    path = nx.shortest_path(g, y, x)
                    x, y = y, x
                except nx.NetworkXNoPath:
                    continue
            q = f"How many edges exist in the shortest path between {_quote(text[x])} and {_quote(text[y])}?"
            add("topological", q, str(len(path) - 1), path)
        else:
            which = rng.choice(["in", "out"])
            deg = chart.in_degree if which == "in" else chart.out_degree
            best = max(deg(n) for n in nodes)
            q = (f"An {which}degree is the number of {'incoming' if which == 'in' else 'outgoing'} edges for a "
                 f"node in a flowchart. What is the maximum {which}degree for the flowchart?")
            add("topological", q, str(best), [n for n in nodes if deg(n) == best])
    return out


# -- harder questions: reworded node texts, stories that settle decisions ----------------------
# verb rewordings: the question or answer names a step without its words
_REWORD = {"gather": "collect", "clean": "wipe down", "measure": "gauge", "cut": "trim", "mix": "blend",
           "heat": "warm up", "attach": "fasten", "sand": "smooth down", "paint": "coat", "rinse": "wash",
           "fold": "crease", "tighten": "secure", "apply": "put on", "remove": "take off", "check": "inspect",
           "place": "put", "pour": "tip", "stir": "whisk", "drain": "empty", "label": "tag",
           "initialize": "set up", "increment": "increase", "append": "add", "return": "give back",
           "compute": "calculate", "parse": "interpret", "validate": "verify", "swap": "exchange",
           "sort": "order", "read": "load", "write": "save", "split": "divide", "merge": "combine",
           "reset": "clear", "decrement": "decrease", "print": "output", "store": "keep", "load": "read in",
           "hash": "digest", "encode": "convert", "research": "look into", "contact": "reach out to",
           "schedule": "book", "review": "go over", "register": "sign up", "prepare": "get ready",
           "submit": "send in", "compare": "weigh up", "notify": "inform", "document": "write down",
           "practice": "rehearse", "visit": "go to", "request": "ask for", "plan": "organise",
           "confirm": "verify", "discuss": "talk over", "record": "log", "select": "choose",
           "update": "revise", "monitor": "keep an eye on"}
_COMPARE = {"above": 1, "greater than": 1, "more than": 1, "at least": 0, "below": -1, "less than": -1, "at most": 2}
_THRESHOLD = re.compile(r"^(?:Is|Are) (.+?) (above|greater than|more than|at least|below|less than|at most) (\d+)\?$")
_AUX = ("Is", "Are", "Was", "Has", "Does", "Did")


def reword(text: str, rng: random.Random) -> str:
    """A heavier paraphrase than `paraphrase`: the leading verb is swapped for a synonym and
    articles vary, so the wording shares few tokens with the node text."""
    words = text.rstrip("?.").split()
    if words and words[0].lower() in _REWORD:
        words = _REWORD[words[0].lower()].split() + words[1:]
    out = [w for w in words if not (w.lower() in ("the", "a") and rng.random() < 0.5)]
    return " ".join(out) or text


def threshold_value(comparison: str, t: int, condition: str, rng: random.Random) -> int:
    """A value on the ``condition`` (``"yes"``/``"no"``) side of ``comparison t``, within a
    fifth of ``t`` from it ("above 600", no: 480-600)."""
    yes, step, sign = condition == "yes", max(1, t // 5), _COMPARE[comparison]
    if sign == 1:
        return t + rng.randint(1, step) if yes else t - rng.randint(0, step)
    if sign == 0:
        return t + rng.randint(0, step) if yes else t - rng.randint(1, step)
    if sign == -1:
        return t - rng.randint(1, step) if yes else t + rng.randint(0, step)
    return t - rng.randint(0, step) if yes else t + rng.randint(1, step)


def settle(decision: str, condition: str, rng: random.Random) -> str | None:
    """A clause that settles ``decision`` (a node text) on ``condition`` (``"yes"``/``"no"``)
    without naming the branch: a number on the right side of the threshold for numeric checks,
    an affirmative or negated statement otherwise. ``None`` when the text cannot be restated."""
    yes = condition == "yes"
    m = _THRESHOLD.match(decision.strip())
    if m:
        subject, comparison, t = m.group(1), m.group(2), int(m.group(3))
        value = threshold_value(comparison, t, condition, rng)
        return rng.choice([f"{subject} is {value}", f"{subject} comes to {value}", f"{subject} reads {value}"])
    words = decision.strip().rstrip("?").split()
    if len(words) < 3 or words[0] not in _AUX:
        return None
    aux, rest = words[0].lower(), words[1:]
    n_subj = 2 if rest[0].lower() in ("the", "a", "an", "all") else 1
    subject, pred = " ".join(rest[:n_subj]), " ".join(rest[n_subj:])
    if not pred:
        return None
    aux = {"are": "are", "is": "is", "was": "was", "has": "has", "does": "does", "did": "did"}[aux]
    return f"{subject} {aux} {pred}" if yes else f"{subject} {aux} {rng.choice(['not', 'not', 'never'])} {pred}"


def _branch_condition(chart: FlowChart, source: str, target: str) -> str | None:
    """The condition (``yes``/``no``/label) of the edge ``source -> target``, None without one."""
    return next((e.condition for e in chart.out_edges(source) if e.target == target and e.condition), None)


def _pick_threshold(numeric: list[str], text: dict[str, str], rng: random.Random) -> tuple[str, str, str, str]:
    """A random numeric check among ``numeric`` and its parts: ``(id, subject, comparison, value)``."""
    d = rng.choice(numeric)
    m = _THRESHOLD.match(text[d])
    assert m is not None
    subject, comparison, t = m.groups()
    return d, subject, comparison, t


def _chart_views(chart: FlowChart) -> tuple[nx.DiGraph, dict[str, str], dict[str, str], list[str],
                                             list[tuple[str, Edge]]]:
    """What the question makers read off a chart: its graph, node texts and kinds, the process
    steps, and the decision branches that lead to a non-decision node."""
    text = {n.id: (n.text or n.id).strip() for n in chart}
    kind = {n.id: n.kind for n in chart}
    steps = [n for n in chart.nodes if kind[n] not in ("start", "end", "terminal", "decision")]
    branches = [(d, e) for d, e in _decision_branches(chart) if kind[e.target] != "decision"]
    return chart.to_networkx(), text, kind, steps, branches


def make_hard_questions(chart: FlowChart, chart_id: str, rng: random.Random, *, per_type: int = 1,
                        domain: str = "synthetic") -> list[dict[str, Any]]:
    """Questions whose wording does not copy node texts, in the benchmark's four types.

    Fact retrieval asks what follows when a decision is settled by a number or a (negated)
    statement (gold: the decision and the branch target), for a check's threshold (gold: that
    decision), or for a step named by its object or a detail of one asked through its reworded
    verb (gold: that step); applied scenarios tell a story that settles every decision on the way
    (gold: the path from the first settled decision, or a step the story says was done just
    before it, to the answer node, as in the benchmark's loan example); flow
    referential names the current step reworded and asks for a neighbour (gold: both) or walks
    several steps (`_walk_question`, gold: the whole walk); topological questions are
    `make_questions`' (they quote node names). The conventions and their sources are in
    docs/reasoning.md ("Gold conventions"). Arguments and records as `make_questions`.
    """
    g, text, kind, steps, branches = _chart_views(chart)
    out: list[dict[str, Any]] = []

    def add(qtype: str, q: str, a: str, gold: list[str]) -> None:
        out.append(_q(chart_id, len(out), qtype, q, a, gold, domain, rng))

    def lower_first(t: str) -> str:
        return t[0].lower() + t[1:] if t else t

    numeric = [d for d in chart.nodes if kind[d] == "decision" and _THRESHOLD.match(text[d])]
    for _ in range(per_type):  # fact retrieval
        r = rng.random()
        if branches and r < 0.45:
            d, e = rng.choice(branches)
            clause = settle(text[d], e.condition or "", rng)
            if clause is not None:
                q = rng.choice([f"What happens if {clause}?", f"What should be done when {clause}?",
                                f"Suppose {clause}. Which step follows?"])
                add("fact_retrieval", q, reword(text[e.target], rng), [d, e.target])
                continue
        if numeric and r < 0.6:
            # a value stated in one node: the check's threshold (gold: that decision alone)
            d, subject, comparison, t = _pick_threshold(numeric, text, rng)
            q = rng.choice([f"What value is {subject} compared against?",
                            f"Which threshold does the chart use for {subject}?",
                            f"According to the chart, what limit applies to {subject}?"])
            add("fact_retrieval", q, rng.choice([f"{comparison.capitalize()} {t}", f"{t}",
                                                 f"It must be {comparison} {t}"]), [d])
            continue
        if steps:
            n = rng.choice(steps)
            verb, _, obj = text[n].partition(" ")
            if obj and verb.lower() in _REWORD:
                if rng.random() < 0.5:
                    q = rng.choice([f"Which step is about {obj}?", f"What is done to {obj}?",
                                    f"What does the chart say to do with {obj}?"])
                    add("fact_retrieval", q, f"{_REWORD[verb.lower()].capitalize()} it", [n])
                else:
                    # a detail of one step asked through its reworded action: the answer is
                    # the object, and steps sharing its verb or object are not gold
                    q = rng.choice([f"What does the chart say to {_REWORD[verb.lower()]}?",
                                    f"Which item is {_REWORD[verb.lower()]} in this procedure?"])
                    add("fact_retrieval", q, rng.choice([obj, f"It is {obj}.", f"{obj[0].upper()}{obj[1:]}"]), [n])

    for _ in range(per_type):  # applied scenario: the story settles the decisions on the way
        targets = [t for t in steps if any(kind[a] == "decision" for a in nx.ancestors(g, t))]
        if not targets:
            break
        target = rng.choice(targets)
        # chart order, not the set's: a set of strings iterates in hash order, which changes
        # with PYTHONHASHSEED and would make the same --seed write different questions
        ancestors = nx.ancestors(g, target)
        decisions = [a for a in chart.nodes if a in ancestors and kind[a] == "decision"]
        first = rng.choice(decisions)
        path = nx.shortest_path(g, first, target)
        if len(path) > 6:
            path = path[path.index(max((p for p in path if kind[p] == "decision"),
                                       key=path.index)):]
        name = rng.choice(NAMES)
        facts = []
        before = [p for p in chart.predecessors(path[0]) if kind[p] not in ("start", "decision")]
        mentioned = before[:1] if before and rng.random() < 0.6 else []
        # a step the story says was done just before the first settled decision grounds the
        # situation too (docs/reasoning.md, "Gold conventions": a dev check turned the
        # opposite reading of the loan example down)
        facts += [f"{name} has already taken care of {loose(text[p], rng)}." for p in mentioned]
        ok = True
        for a, b in zip(path, path[1:], strict=False):
            if kind[a] == "decision":
                cond = _branch_condition(chart, a, b)
                clause = settle(text[a], cond or "", rng) if cond in ("yes", "no") else None
                if clause is None:
                    ok = False
                    break
                facts.append(rng.choice([f"It turns out {clause}.", f"{name} sees that {clause}.",
                                         f"{clause[0].upper() + clause[1:]}."]))
            elif a != path[0] and rng.random() < 0.5:
                facts.append(f"Then {name} goes on to {lower_first(reword(text[a], rng))}.")
        if not ok:
            continue
        q = (f"{name} is following this procedure. " + " ".join(facts)
             + rng.choice([f" What should {name} do now?", " What comes next for them?",
                           f" According to the chart, what is {name}'s next step?"]))
        add("applied_scenario", q, reword(text[target], rng), mentioned + path)

    for _ in range(per_type):  # flow referential: the current step, reworded
        cands = [c for c in steps if chart.successors(c) and chart.predecessors(c)]
        if not cands:
            break
        c = rng.choice(cands)
        walk = _walk_question(chart, g, c, text, rng) if rng.random() < 0.5 else None
        if walk is not None:
            add("flow_referential", *walk)
        elif rng.random() < 0.5:
            s = rng.choice(chart.successors(c))
            q = rng.choice([f"I have just finished the step where I {lower_first(reword(text[c], rng))}. What comes next?",
                            f"Right after I {lower_first(reword(text[c], rng))}, what is the immediate next step?"])
            add("flow_referential", q, reword(text[s], rng), [c, s])
        else:
            p = rng.choice(chart.predecessors(c))
            q = f"I am currently about to {lower_first(reword(text[c], rng))}. What was the previous step?"
            add("flow_referential", q, reword(text[p], rng), [p, c])

    topo = [q for q in make_questions(chart, chart_id, rng, per_type=per_type, domain=domain)
            if q["type"] == "topological"]
    for q in topo:
        add("topological", q["question"], q["answer"], q["gold"])
    return out


def _walk_question(chart: FlowChart, g: nx.DiGraph, c: str, text: dict[str, str],
                   rng: random.Random) -> tuple[str, str, list[str]] | None:
    """A flow-referential question that walks several steps from step ``c``: the next two steps,
    the steps between ``c`` and a later step, or how many steps lie between them. Its gold is
    every node of the walk, both ends included (docs/reasoning.md, "Gold conventions").
    ``None`` when nothing lies far enough downstream of ``c``."""
    kind = {n.id: n.kind for n in chart}
    later = [(n, p) for n, p in nx.single_source_shortest_path(g, c, cutoff=4).items()
             if len(p) >= 3 and kind[n] not in ("start", "end", "terminal", "decision")]
    if not later:
        return None
    y, path = rng.choice(sorted(later))
    here = reword(text[c], rng)
    here = here[0].lower() + here[1:]
    there = reword(text[y], rng)
    there = there[0].lower() + there[1:]
    between = [f"the check '{text[n]}'" if kind[n] == "decision"
               else reword(text[n], rng) for n in path[1:-1]]
    form = rng.choice(["two", "series", "count"]) if len(path) == 3 else rng.choice(["series", "count"])
    if form == "two":
        q = rng.choice([f"Once I {here}, what are the next two steps?",
                        f"I have just finished the step where I {here}. Which two steps follow, in order?"])
        return q, f"First {between[0][0].lower() + between[0][1:]}, then {there}.", path
    if form == "series":
        q = rng.choice([f"What series of steps leads from the step where I {here} to the step where I {there}?",
                        f"Starting from the step where I {here}, what sequence of steps brings me to {there}?"])
        return q, "; ".join(between) + f", and then {there}.", path
    q = f"How many steps are there from the step where I {here} to the one where I {there}, counting both?"
    return q, f"There are {len(path)} steps.", path


# -- FlowVQA-style questions: persona stories, "what next", decision-logic walks ---------------
# What each form follows is written down, with the sources, in docs/reasoning.md ("The
# benchmark's documented conventions"): FlowVQA's question types (arXiv 2406.19237) and
# FlowExplainBench's attribution rule, the minimum set of nodes the statement needs (arXiv
# 2506.01344; its applied-scenario figure counts a step the story only mentions as background,
# and the steps after the answer, as over-attribution).
_ROLES = {"instruct": ["a weekend hobbyist", "a first-time DIYer", "a retired carpenter", "a student on a craft course"],
          "code": ["a junior developer", "a student debugging an assignment", "a data analyst", "a code reviewer"],
          "wiki": ["a new tenant", "a volunteer coordinator", "a busy parent", "a small-business owner"]}
_COLLEAGUES = ["Melissa", "Jordan", "Aisha", "Tom", "Hana", "Lucas"]
_SCENERY = ["{name} is doing this on a tight schedule.", "{colleague} is waiting to hear how it went.",
            "{name} has set aside the whole evening for it.", "It is the first time {name} has tried this.",
            "{name} promised {colleague} an update by the end of the day."]


def _lower_first(t: str) -> str:
    return t[0].lower() + t[1:] if t else t


def _check_subject(decision: str) -> str:
    """What a check is about, without its predicate: "the credit score" for "Is the credit score
    above 600?", "the fee" for "Has the fee been paid?"."""
    m = _THRESHOLD.match(decision.strip())
    if m:
        return m.group(1)
    words = decision.strip().rstrip("?").split()
    rest = words[1:] if words and words[0] in _AUX else words
    n_subj = 2 if rest and rest[0].lower() in ("the", "a", "an", "all") else 1
    return " ".join(rest[:n_subj]) or decision


def _persona(name: str, domain: str, rng: random.Random) -> tuple[str, str]:
    """A story's opening: who the person is, and one sentence of scenery that grounds nothing."""
    role = rng.choice(_ROLES.get(domain, _ROLES["wiki"]))
    scenery = rng.choice(_SCENERY).format(name=name, colleague=rng.choice(_COLLEAGUES))
    return f"{name}, {role},", scenery


def make_flowvqa_questions(chart: FlowChart, chart_id: str, rng: random.Random, *, per_type: int = 1,
                           domain: str = "synthetic") -> list[dict[str, Any]]:
    """Questions in the style FlowVQA documents, labelled by FlowExplainBench's documented rule.

    Fact retrieval asks for information held in one node (an item a step handles, a check's
    threshold, what a step is for; gold: that node). Applied scenarios are persona stories with
    scenery that grounds nothing, in the two forms the papers show: "what should X see or do
    next" from the step the story places the person at (gold: that step, any check the story
    settles on the way, the next step), and a story that settles an earlier check by the choice
    the person made, is unsure about a later check and asks whether to act (gold: the walk from
    the first settled check to the step the later check's taken branch leads to; a step the story
    mentions only as background before that check is not gold). Flow referential questions walk
    a small subgraph around a decision, forwards or backwards ("what is the immediate next step
    after X, and what decision led to this step?"; gold: the decision, X and its neighbour).
    Topological questions are `make_questions`'. Arguments and records as `make_questions`.
    """
    g, text, kind, steps, branches = _chart_views(chart)
    out: list[dict[str, Any]] = []

    def add(qtype: str, q: str, a: str, gold: list[str]) -> None:
        out.append(_q(chart_id, len(out), qtype, q, a, gold, domain, rng))

    numeric = [d for d in chart.nodes if kind[d] == "decision" and _THRESHOLD.match(text[d])]
    for _ in range(per_type):  # fact retrieval: information localised in one node
        r = rng.random()
        if numeric and r < 0.3:
            d, subject, comparison, t = _pick_threshold(numeric, text, rng)
            q = rng.choice([f"What value does the flowchart compare {subject} with?",
                            f"According to the flowchart, what limit is set for {subject}?",
                            f"What is the threshold for {subject} in this process?"])
            add("fact_retrieval", q, rng.choice([f"{subject.capitalize()} is compared with {t}.",
                                                 f"The limit is {t}.", f"It has to be {comparison} {t}."]), [d])
            continue
        # a question names its node by the verb or by the object, so only a verb (or object)
        # that one step of the chart has makes a question with one answer (FlowVQA's pairs
        # were human-verified)
        verbs = [text[n].partition(" ")[0].lower() for n in steps]
        objs = [text[n].partition(" ")[2].lower() for n in steps]
        form = rng.random()
        cands = [n for n, v, o in zip(steps, verbs, objs, strict=True) if v in _REWORD and o
                 and (verbs.count(v) == 1 if form < 0.4 else objs.count(o) == 1)]
        if not cands:
            continue
        n = rng.choice(cands)
        verb, _, obj = text[n].partition(" ")
        done = _REWORD[verb.lower()]
        if form < 0.4:  # the item a step handles, asked through the reworded action
            q = rng.choice([f"According to the flowchart, what do you need to {done}?",
                            f"Which item does the process ask you to {done}?",
                            f"What is it that you {done} in this procedure?"])
            add("fact_retrieval", q, rng.choice([f"You need to {done} {obj}.", f"{obj[0].upper()}{obj[1:]}.",
                                                 f"The flowchart says to {done} {obj}."]), [n])
        elif form < 0.75:  # the action done to a named item
            q = rng.choice([f"What does the flowchart say to do with {obj}?",
                            f"What action is taken on {obj} according to the chart?",
                            f"How is {obj} handled in this process?"])
            add("fact_retrieval", q, rng.choice([f"It should be {done}.", f"You {done} it.",
                                                 f"The chart says to {done} it."]), [n])
        else:  # whether the process includes a step
            q = rng.choice([f"Does the process include a step to {done} {obj}?",
                            f"Is {obj} {done} at some point in the flowchart?"])
            add("fact_retrieval", q, rng.choice([f"Yes, there is a step to {done} {obj}.",
                                                 f"Yes, the chart includes {_lower_first(reword(text[n], rng))}."]), [n])

    for _ in range(per_type):  # applied scenario: persona stories
        name = rng.choice(NAMES)
        who, scenery = _persona(name, domain, rng)
        story = _choice_story(chart, g, text, kind, name, who, scenery, rng) if rng.random() < 0.5 else None
        if story is None:
            story = _next_story(chart, text, kind, name, who, scenery, rng)
        if story is not None:
            add("applied_scenario", *story)

    for _ in range(per_type):  # flow referential: a small subgraph around a decision
        if not branches:
            break
        d, e = rng.choice(branches)
        x, lab = e.target, e.label or (e.condition or "").capitalize()
        nxt = [s for s in chart.successors(x) if kind[s] not in ("start", "end", "terminal", "decision")]
        form = rng.random()
        if nxt and form < 0.5:
            s = rng.choice(nxt)
            q = rng.choice([f"What is the immediate next step after you {_lower_first(reword(text[x], rng))}, and what decision led to that step?",
                            f"After {_lower_first(reword(text[x], rng))}, what comes next, and which check leads there?"])
            a = (f"The next step is to {_lower_first(reword(text[s], rng))}; the step before it follows the "
                 f"'{lab}' answer to '{text[d]}'.")
            add("flow_referential", q, a, [d, x, s])
        elif form < 0.8:
            q = rng.choice([f"Which decision has to be answered before you {_lower_first(reword(text[x], rng))}, and with what answer?",
                            f"What check leads to the step where you {_lower_first(reword(text[x], rng))}?"])
            add("flow_referential", q, f"'{text[d]}' must be answered '{lab}'.", [d, x])
        else:
            clause = settle(text[d], e.condition or "", rng)
            if clause is None or not nxt:
                continue
            s = rng.choice(nxt)
            q = f"If {clause}, what are the next two steps?"
            add("flow_referential", q, f"First {_lower_first(reword(text[x], rng))}, then {_lower_first(reword(text[s], rng))}.", [d, x, s])

    for rec in make_questions(chart, chart_id, rng, per_type=per_type, domain=domain):
        if rec["type"] == "topological":
            add("topological", rec["question"], rec["answer"], rec["gold"])
    return out


def _next_story(chart: FlowChart, text: dict[str, str], kind: dict[str, str], name: str,
                who: str, scenery: str, rng: random.Random) -> tuple[str, str, list[str]] | None:
    """A "what should X see or do next" story: the person has just done a step; when a check
    follows it, the story settles it. Gold: that step, the check, the next step."""
    cands = [c for c in chart.nodes if kind[c] not in ("start", "end", "terminal", "decision")
             and any(kind[s] not in ("start", "end", "terminal") for s in chart.successors(c))]
    if not cands:
        return None
    c = rng.choice(cands)
    s = rng.choice([s for s in chart.successors(c) if kind[s] not in ("start", "end", "terminal")])
    facts, gold = [], [c]
    if kind[s] == "decision":
        outs = [e for e in chart.out_edges(s) if e.condition in ("yes", "no")
                and kind[e.target] not in ("start", "end", "terminal", "decision")]
        if not outs:
            return None
        branch = rng.choice(outs)
        clause = settle(text[s], branch.condition or "", rng)
        if clause is None:
            return None
        facts.append(rng.choice([f"{name} notices that {clause}.", f"It turns out {clause}."]))
        gold += [s, branch.target]
        answer_node = branch.target
    else:
        gold.append(s)
        answer_node = s
    goal = reword(text[answer_node], rng)
    done = reword(text[c], rng)
    opening = rng.choice([f"{who} wants to {_lower_first(goal)} without mistakes.",
                          f"{who} is working through this process to get things done properly."])
    where = rng.choice([f"{name} has just finished the part where you {_lower_first(done)}.",
                        f"{name} has already managed to {_lower_first(done)}."])
    ask = rng.choice([f"What should {name} see or do next?", f"What should {name} do next to stay on track?",
                      f"According to the flowchart, what is {name}'s next move?"])
    story = " ".join([opening, scenery, where, *facts, ask])
    answer = rng.choice([f"{name} should {_lower_first(goal)}.", f"The next thing to do is {_lower_first(goal)}."])
    return story, answer, gold


def _choice_story(chart: FlowChart, g: nx.DiGraph, text: dict[str, str], kind: dict[str, str],
                  name: str, who: str, scenery: str, rng: random.Random) -> tuple[str, str, list[str]] | None:
    """A story that settles an earlier check by the choice the person made, is unsure about a
    later check and asks what to do about it; an earlier step is mentioned as background only.
    Gold: the walk from the first check to the later check's taken branch (the background step
    and anything after the answer are not gold)."""
    decisions = [d for d in chart.nodes if kind[d] == "decision"]
    pairs = []
    for d1 in decisions:
        for d2 in decisions:
            if d1 != d2 and g.has_node(d2) and nx.has_path(g, d1, d2):
                path = nx.shortest_path(g, d1, d2)
                if 3 <= len(path) <= 5 and all(kind[p] != "decision" for p in path[1:-1]):
                    pairs.append(path)
    if not pairs:
        return None
    path = rng.choice(sorted(pairs))
    d1, chosen, d2 = path[0], path[1], path[-1]
    outs = [e for e in chart.out_edges(d2) if e.condition in ("yes", "no")
            and kind[e.target] not in ("start", "end", "terminal", "decision")]
    if not outs or _branch_condition(chart, d1, chosen) is None:
        return None
    e = rng.choice(outs)
    clause = settle(text[d2], e.condition or "", rng)
    if clause is None:
        return None
    # the background goes into the opening sentence, as in the paper's example ("Sophia is
    # working on a garden design that was initially measured in yards")
    opening = f"{who} is following this process."
    before = [p for p in chart.predecessors(d1) if kind[p] not in ("start", "decision")]
    if before:
        earlier = _lower_first(reword(text[before[0]], rng))
        opening = rng.choice([f"{who} is following this process, which began when they had to {earlier}.",
                              f"{who} is partway through a task that started with the need to {earlier}."])
    facts = []
    pick = reword(text[chosen], rng)
    facts.append(rng.choice([f"{name} opts to {_lower_first(pick)}.",
                             f"{name} decides to {_lower_first(pick)}."]))
    # the doubt names the later check by its subject only: restating the whole check would
    # read as settling it ("has the fee been paid?" reads as "the fee has been paid")
    subject = _check_subject(text[d2])
    facts.append(rng.choice([f"{name} is unsure what {subject} means for the next step.",
                             f"{name} then wonders whether {subject} matters here."]))
    facts.append(rng.choice([f"A quick look shows that {clause}.", f"As it happens, {clause}."]))
    ask = rng.choice([f"What should {name} do about it?", f"How should {name} proceed?",
                      f"Does {name} need to do anything before moving on?"])
    story = " ".join([opening, scenery, *facts, ask])
    target = reword(text[e.target], rng)
    answer = rng.choice([f"{name} should {_lower_first(target)}.", f"{name} needs to {_lower_first(target)}."])
    return story, answer, [*path, e.target]


# -- writing a set -----------------------------------------------------------------------------
STYLES = ("templated", "hard", "flowvqa", "code", "scenario", "story", "fact", "facthard", "contrast", "howto",
          "realcode", "factform", "codeword")
# ``factform``: the share of its charts drawn from the how-to procedures (the rest `hard_fact_chart`s)
_FACTFORM_HOWTO_RATE = 2 / 3


def write_procedural_set(out: Path, n_charts: int, seed: int, per_type: int = 1, *, hard: bool = False,
                         style: str | None = None, held_out: bool = False) -> int:
    """Procedural charts + questions in the benchmark layout (chart JSON only; oracle scoring).

    ``style`` (one of `STYLES`; ``hard=True`` is ``style="hard"``): ``templated`` asks with
    `make_questions`; ``hard`` and ``flowvqa`` make half the decisions compare numbers with
    thresholds and ask with `make_hard_questions` (reworded, stories that settle decisions) or
    `make_flowvqa_questions` (persona stories and questions in FlowVQA's documented style);
    ``code`` draws program flowcharts and asks about them in words
    (`data_gen.code_qa.make_code_questions`); ``realcode`` draws the charts of real functions
    of the Python standard library (`data_gen.code_qa.real_program`) and asks about them as
    people ask about code (`make_real_code_questions`); ``codeword`` draws the same functions
    worded as an LLM words code ("Initialize count to zero", "Is the buffer empty?") and asks
    in words; its tuning sets use four fifths of the functions, ``held_out=True`` (a test set)
    only the fifth they never use (`data_gen.code_qa.held_out_function`); ``scenario`` draws charts with more (numeric)
    decisions and asks only applied scenarios whose stories settle several of them in everyday
    words (`data_gen.scenario_qa.make_scenario_questions`, ``per_type`` + 1 stories a chart);
    ``story`` the same charts, asked in long stories (`data_gen.scenario_qa.make_story_questions`);
    ``contrast`` such long stories settling checks by opposites, negations, level words and
    comparison words (`data_gen.scenario_qa.make_contrast_questions`);
    ``fact`` gives steps details (numbers, tools, advice) and asks only fact questions the way
    people ask them (`data_gen.fact_qa.make_fact_questions`, ``per_type`` + 2 a chart);
    ``facthard`` asks fact questions on charts whose node texts share many words
    (`data_gen.fact_qa.hard_fact_chart`, `make_hard_fact_questions`; a fifth of the charts are
    programs, `make_program_fact_questions`); ``howto`` draws hand-written how-to procedures
    (long steps with details, free-text checks, loops, notes, several ends) and asks fact
    questions and applied scenarios the way an LLM writes them (`data_gen.howto_qa`), from the
    procedures train / val sets draw, or with ``held_out=True`` (test sets) from those no train
    or val set draws (`data_gen.howto_qa.PROCEDURE_GROUPS`);
    ``factform`` asks the fact forms an LLM writes that the other styles do not (why a step is
    done, which step uses a tool, first / last steps, yes/no claims, the options at a check,
    facts in other words only: `data_gen.howto_qa.make_howto_fact_form_questions`, ``per_type``
    + 3 a chart) on two thirds of its charts, how-to procedures, and `make_hard_fact_questions`
    on the rest."""
    from data_gen.code_qa import (
        make_code_questions,
        make_real_code_questions,
        random_program,
        real_program,
    )
    from data_gen.fact_qa import (
        _PROGRAM_RATE,
        fact_chart,
        hard_fact_chart,
        make_fact_questions,
        make_hard_fact_questions,
        make_program_fact_questions,
    )
    from data_gen.scenario_qa import (
        contrast_chart,
        make_contrast_questions,
        make_scenario_questions,
        make_story_questions,
        scenario_chart,
    )

    style = style or ("hard" if hard else "templated")
    if style not in STYLES:
        raise ValueError(f"style {style!r}: expected one of {', '.join(STYLES)}")
    rng = random.Random(seed)
    (out / "charts").mkdir(parents=True, exist_ok=True)
    n_q = 0
    with open(out / "questions.jsonl", "w", encoding="utf-8") as fq:
        for i in range(n_charts):
            cid = f"synth{i:05d}"
            if style == "howto":
                from data_gen.howto_qa import howto_chart, make_howto_questions

                drawn = howto_chart(rng, "held-out" if held_out else "shared")
                chart, domain = drawn.chart, drawn.domain
                questions = make_howto_questions(drawn, cid, rng, per_type=per_type)
            elif style == "factform" and rng.random() < _FACTFORM_HOWTO_RATE:
                from data_gen.howto_qa import howto_chart, make_howto_fact_form_questions

                drawn = howto_chart(rng)
                chart, domain = drawn.chart, drawn.domain
                questions = make_howto_fact_form_questions(drawn, cid, rng, n=per_type + 3)
            elif style == "factform":
                chart, domain, details, notes = hard_fact_chart(rng)
                questions = make_hard_fact_questions(chart, cid, rng, per_type=per_type, domain=domain,
                                                     details=details, notes=notes)
            elif style in ("realcode", "codeword"):
                real = (real_program(rng, worded=True, held_out=held_out) if style == "codeword"
                        else real_program(rng))
                chart, domain = real.chart, "code"
                questions = make_real_code_questions(real, cid, rng, per_type=per_type)
            elif style == "code":
                program = random_program(rng)
                chart, domain = program.chart, "code"
                questions = make_code_questions(program, cid, rng, per_type=per_type)
            elif style in ("scenario", "story", "contrast"):
                chart, domain, thresholds = (contrast_chart if style == "contrast" else scenario_chart)(rng)
                make_story = {"scenario": make_scenario_questions, "story": make_story_questions,
                              "contrast": make_contrast_questions}[style]
                questions = make_story(chart, cid, rng, per_type=per_type + 1, domain=domain, thresholds=thresholds)
            elif style == "fact":
                chart, domain, details = fact_chart(rng)
                questions = make_fact_questions(chart, cid, rng, per_type=per_type, domain=domain, details=details)
            elif style == "facthard" and rng.random() < _PROGRAM_RATE:
                program = random_program(rng)
                chart, domain = program.chart, "code"
                questions = make_program_fact_questions(program, cid, rng, per_type=per_type)
            elif style == "facthard":
                chart, domain, details, notes = hard_fact_chart(rng)
                questions = make_hard_fact_questions(chart, cid, rng, per_type=per_type, domain=domain,
                                                     details=details, notes=notes)
            else:
                chart, domain = random_chart(rng, numeric_rate=0.0 if style == "templated" else 0.5)
                make = {"templated": make_questions, "hard": make_hard_questions,
                        "flowvqa": make_flowvqa_questions}[style]
                questions = make(chart, cid, rng, per_type=per_type, domain=domain)
            boxes, w, h = grid_layout(chart)
            rec = {"mermaid": chart_mermaid(chart), "width": w, "height": h, "scale": [1.0, 1.0],
                   "nodes": boxes, "domain": domain, "synthetic_layout": True}
            (out / "charts" / f"{cid}.json").write_text(json.dumps(rec), encoding="utf-8")
            for q in questions:
                fq.write(json.dumps(q) + "\n")
                n_q += 1
    return n_q


def write_from_bench(src: Path, out: Path, seed: int, per_type: int = 1, limit: int | None = None) -> int:
    """Questions for the charts of an existing benchmark-layout folder (JSON and PNG copied)."""
    from flowpath.mermaid import parse_mermaid

    rng = random.Random(seed)
    (out / "charts").mkdir(parents=True, exist_ok=True)
    n_q = 0
    files = sorted((src / "charts").glob("*.json"))[: limit or None]
    # the source set's questions know each chart's domain when its chart JSON does not
    domains: dict[str, str] = {}
    if (src / "questions.jsonl").is_file():
        for line in (src / "questions.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                d = json.loads(line)
                domains.setdefault(d.get("chart", ""), d.get("domain", "synthetic"))
    with open(out / "questions.jsonl", "w", encoding="utf-8") as fq:
        for f in files:
            rec = json.loads(f.read_text(encoding="utf-8"))
            try:
                chart = parse_mermaid(rec["mermaid"], strict=False)
            except Exception as exc:  # a bad chart is skipped, the set goes on
                print(f"skipping {f.name}: {exc}", file=sys.stderr)
                continue
            cid = f.stem
            shutil.copyfile(f, out / "charts" / f.name)
            png = f.with_suffix(".png")
            if png.exists():
                shutil.copyfile(png, out / "charts" / png.name)
            domain = rec.get("domain") or domains.get(cid, "synthetic")
            for q in make_questions(chart, cid, rng, per_type=per_type, domain=domain):
                fq.write(json.dumps(q) + "\n")
                n_q += 1
    return n_q


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m data_gen.qa", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--out", required=True, type=Path, help="output folder (benchmark layout)")
    p.add_argument("--charts", type=int, default=200, help="procedural charts to make")
    p.add_argument("--per-type", type=int, default=1, help="questions per type per chart")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--hard", action="store_true",
                   help="procedural charts with numeric checks and reworded questions whose stories settle decisions")
    p.add_argument("--style", choices=STYLES, default=None,
                   help="question style: templated (default), hard (same as --hard), or flowvqa "
                        "(persona stories, 'what next' and decision-logic questions as FlowVQA documents "
                        "them, gold by FlowExplainBench's minimum-set rule; docs/reasoning.md), code "
                        "(program flowcharts asked about in words; data_gen/code_qa.py), or scenario "
                        "(applied scenarios only, stories settling several checks in everyday words; "
                        "data_gen/scenario_qa.py), story (the same, told as long stories: background "
                        "steps, checks settled by what the person does, the answer paraphrased), or fact "
                        "(fact questions only, on steps with details; data_gen/fact_qa.py), or howto "
                        "(hand-written how-to procedures asked about as an LLM would; data_gen/howto_qa.py), "
                        "realcode (charts of real standard-library functions) or codeword (the same, "
                        "worded as an LLM words code; data_gen/code_qa.py)")
    p.add_argument("--held-out", action="store_true",
                   help="test sets: draw only what no train or val set draws (--style howto: the held-out "
                        "procedures of data_gen/howto_procedures.py; --style codeword: the held-out fifth "
                        "of the functions)")
    p.add_argument("--from-bench", type=Path, default=None,
                   help="use the charts of this benchmark-layout folder instead of procedural ones")
    p.add_argument("--limit", type=int, default=None, help="with --from-bench: at most this many charts")
    args = p.parse_args(argv)
    if args.per_type < 1 or args.charts < 1:
        p.error("--charts and --per-type must be >= 1")
    if args.from_bench is not None:
        if not (args.from_bench / "charts").is_dir():
            p.error(f"--from-bench {args.from_bench}: no charts/ folder there")
        n = write_from_bench(args.from_bench, args.out, args.seed, args.per_type, args.limit)
    else:
        if args.hard and args.style not in (None, "hard"):
            p.error(f"--hard and --style {args.style} disagree: give one of them")
        if args.held_out and args.style not in ("howto", "codeword"):
            p.error("--held-out goes with --style howto or --style codeword")
        n = write_procedural_set(args.out, args.charts, args.seed, args.per_type, hard=args.hard, style=args.style,
                                 held_out=args.held_out)
    print(f"wrote {n} questions to {args.out / 'questions.jsonl'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
