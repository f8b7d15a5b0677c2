"""Synthetic QA generation (data_gen/qa.py): layout, gold validity, determinism."""

from __future__ import annotations

import json
import random
import re

import networkx as nx
import pytest

from data_gen.qa import (
    main,
    make_flowvqa_questions,
    make_hard_questions,
    make_questions,
    random_chart,
    settle,
)
from flowpath.datasets.febench import Benchmark
from flowpath.graph import FlowChart
from flowpath.mermaid import parse_mermaid
from flowpath.reason import QUESTION_TYPES, classify_question
from tests.markers import FEBENCH_DEV, require_febench


def _load(out):
    return [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]


def test_procedural_set_in_benchmark_layout(tmp_path):
    out = tmp_path / "qa"
    assert main(["--out", str(out), "--charts", "12", "--seed", "3", "--per-type", "2"]) == 0
    qs = _load(out)
    assert {q["type"] for q in qs} == set(QUESTION_TYPES)
    bench = Benchmark(out)  # the library's reader accepts the layout
    assert len(list(bench.questions)) == len(qs)
    for q in qs:
        rec = json.loads((out / "charts" / f"{q['chart']}.json").read_text())
        chart = parse_mermaid(rec["mermaid"])
        assert q["gold"] and set(q["gold"]) <= set(chart.nodes)
        assert set(q["gold"]) <= set(rec["nodes"])  # every gold node has a region to score against
        # the question wording is recognised as the type it was generated as
        assert classify_question(q["question"], q["answer"]) == q["type"]
        if q["type"] in ("applied_scenario", "flow_referential"):
            assert nx.is_weakly_connected(chart.to_networkx().subgraph(q["gold"]))


def test_generation_is_deterministic(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    main(["--out", str(a), "--charts", "5", "--seed", "11"])
    main(["--out", str(b), "--charts", "5", "--seed", "11"])
    assert (a / "questions.jsonl").read_text() == (b / "questions.jsonl").read_text()


def test_random_chart_shape():
    for seed in range(20):
        fc, domain = random_chart(random.Random(seed))
        g = fc.to_networkx()
        assert not any(g.has_edge(n, n) for n in g)  # no self loops
        start = fc.sources()
        assert len(start) == 1 and fc.nodes[start[0]].text == "Start"
        assert all(nx.has_path(g, start[0], n) for n in fc.nodes)  # everything reachable
        assert [n for n in fc.sinks()] and all(fc.nodes[n].text == "End" for n in fc.sinks())
        for n in fc:
            if n.kind == "decision":
                assert {e.condition for e in fc.out_edges(n.id)} == {"yes", "no"}


def test_topological_answers_match_graph():
    rng = random.Random(5)
    for i in range(15):
        fc, _ = random_chart(rng)
        g = fc.to_networkx()
        for q in make_questions(fc, f"c{i}", rng, per_type=3):
            if q["type"] == "topological" and "shortest path" in q["question"]:
                assert int(q["answer"]) == len(q["gold"]) - 1
                assert nx.shortest_path_length(g, q["gold"][0], q["gold"][-1]) == int(q["answer"])


def test_bad_arguments(tmp_path):
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path), "--charts", "0"])
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path), "--from-bench", str(tmp_path / "missing")])


@require_febench
def test_from_bench_copies_charts(tmp_path):
    out = tmp_path / "fromdev"
    assert main(["--out", str(out), "--from-bench", str(FEBENCH_DEV), "--limit", "3"]) == 0
    qs = _load(out)
    assert qs and len({q["chart"] for q in qs}) <= 3
    for q in qs:
        assert (out / "charts" / f"{q['chart']}.png").is_file()


def test_hard_questions_cover_all_types_with_grounded_gold():
    rng = random.Random(5)
    seen = set()
    for i in range(40):
        chart, domain = random_chart(rng, numeric_rate=0.5)
        g = chart.to_networkx()
        for q in make_hard_questions(chart, f"c{i}", rng, domain=domain):
            seen.add(q["type"])
            assert q["gold"] and set(q["gold"]) <= set(chart.nodes), q
            if q["type"] in ("applied_scenario", "flow_referential"):  # the gold is a walk through the chart
                assert nx.is_weakly_connected(g.subgraph(q["gold"])), q
            if q["type"] != "topological":  # reworded: no question quotes a node text
                assert not any(f'""{n.text}""' in q["question"] for n in chart), q
    assert seen == set(QUESTION_TYPES)


def test_hard_fact_questions_ground_single_node_facts_in_the_node_that_states_them():
    """Threshold and detail questions (gold: one node) sit beside the settled-branch kind
    (gold: decision and branch step); a one-node fact's answer is stated in its gold node."""
    rng = random.Random(7)
    by_size: dict[int, int] = {}
    for i in range(60):
        chart, domain = random_chart(rng, numeric_rate=0.5)
        for q in make_hard_questions(chart, f"c{i}", rng, domain=domain):
            if q["type"] != "fact_retrieval":
                continue
            by_size[len(q["gold"])] = by_size.get(len(q["gold"]), 0) + 1
            assert classify_question(q["question"]) == "fact_retrieval", q["question"]
            if len(q["gold"]) == 2:  # a settled decision and the step on its branch
                d, t = q["gold"]
                assert chart.nodes[d].kind == "decision" and t in chart.successors(d), q
            node = chart.nodes[q["gold"][0]].text.lower()
            numbers = re.findall(r"\d+", q["answer"])
            if len(q["gold"]) == 1 and numbers:  # a threshold: the decision that states it
                assert chart.nodes[q["gold"][0]].kind == "decision" and numbers[0] in node, q
    assert by_size.get(1, 0) >= 10 and by_size.get(2, 0) >= 10, by_size


def test_hard_flow_walks_ground_every_step_between_their_ends():
    """A multi-step flow question's gold is a directed path, both ends included, and the
    reasoner reads it as a flow question."""
    rng = random.Random(11)
    walks = 0
    for i in range(40):
        chart, domain = random_chart(rng, numeric_rate=0.5)
        g = chart.to_networkx()
        for q in make_hard_questions(chart, f"c{i}", rng, domain=domain):
            if q["type"] == "flow_referential" and len(q["gold"]) >= 3:
                walks += 1
                assert nx.is_path(g, q["gold"]), q
                assert classify_question(q["question"]) == "flow_referential", q["question"]
    assert walks >= 5


@pytest.mark.parametrize("decision", ["Is the credit score above 600?", "Is 'n' at most 10?", "Is the glue dry?",
                                      "Does the lid fit snugly?", "Has the fee been paid?", "Is 'i' less than 5?"])
@pytest.mark.parametrize("condition", ["yes", "no"])
def test_settle_reads_back_as_the_branch(decision, condition):
    """What the generator writes to settle a decision, the reasoner reads as that branch."""
    from flowpath.reason.branches import branch_taken

    rng = random.Random(0)
    for _ in range(5):
        clause = settle(decision, condition, rng)
        assert clause is not None
        assert branch_taken(decision, f"It turns out {clause}.") == condition, clause


def _flowvqa_questions(seed: int, n_charts: int):
    rng = random.Random(seed)
    for i in range(n_charts):
        chart, domain = random_chart(rng, numeric_rate=0.5)
        for q in make_flowvqa_questions(chart, f"c{i}", rng, domain=domain):
            yield chart, q


def test_flowvqa_style_golds_are_walks_the_reasoner_reads_as_their_type():
    """Every scenario and flow gold is a directed walk through the chart, in flow order, that
    stops at the answer (nothing after it); fact golds are one node; each question is read as
    the type it was made as."""
    seen = set()
    for chart, q in _flowvqa_questions(3, 40):
        g = chart.to_networkx()
        seen.add(q["type"])
        assert q["gold"] and set(q["gold"]) <= set(chart.nodes), q
        assert classify_question(q["question"], q["answer"]) == q["type"], q["question"]
        if q["type"] in ("applied_scenario", "flow_referential"):
            assert nx.is_path(g, q["gold"]), q
        if q["type"] == "fact_retrieval":
            assert len(q["gold"]) == 1, q
    assert seen == set(QUESTION_TYPES)


def test_flowvqa_stories_settle_every_check_on_the_gold_walk():
    """A persona story names the step the person is at or chose, and every other check on the
    gold walk is settled by the story on the branch the walk takes; scenery and the closing ask
    name no node."""
    from flowpath.reason.branches import branch_taken

    stories = choices = 0
    for chart, q in _flowvqa_questions(5, 60):
        if q["type"] != "applied_scenario":
            continue
        stories += 1
        gold, story = q["gold"], q["question"]
        assert story.rstrip().endswith("?") and len(re.split(r"(?<=[.!?])\s+", story)) >= 4, story
        chose = re.search(r"\b(opts|decides) to\b", story) is not None
        choices += chose
        for a, b in zip(gold, gold[1:], strict=False):
            if chart.nodes[a].kind != "decision":
                continue
            cond = next(e.condition for e in chart.out_edges(a) if e.target == b)
            if chose and a == gold[0]:
                # settled by the choice: the story names the step on that branch, reworded
                obj = chart.nodes[b].text.partition(" ")[2].lower().removeprefix("the ").removeprefix("a ")
                assert obj in story.lower(), (story, chart.nodes[b].text)
            else:
                assert branch_taken(chart.nodes[a].text, story) == cond, (story, chart.nodes[a].text)
    assert stories >= 40 and choices >= 10, (stories, choices)


def test_flowvqa_choice_story_background_step_is_not_gold():
    """The step a choice story mentions as background (in its opening sentence, as the paper's
    example does) lies before the first gold check and is not gold."""
    checked = 0
    for chart, q in _flowvqa_questions(9, 80):
        story = q["question"]
        if q["type"] != "applied_scenario" or not re.search(r"began when they had to|started with the need to", story):
            continue
        opening = re.split(r"(?<=[.!?])\s+", story)[0]
        first = q["gold"][0]
        assert chart.nodes[first].kind == "decision"
        background = [p for p in chart.predecessors(first) if chart.nodes[p].kind not in ("start", "decision")]
        assert background and background[0] not in q["gold"], q
        obj = chart.nodes[background[0]].text.partition(" ")[2].lower().removeprefix("the ").removeprefix("a ")
        assert obj in opening.lower(), (opening, chart.nodes[background[0]].text)
        checked += 1
    assert checked >= 5


def test_flowvqa_fact_questions_name_a_verb_or_object_one_step_has():
    """A one-node fact question names its step by a verb or an object no other step shares, so
    it has one answer."""
    asked = 0
    for chart, q in _flowvqa_questions(13, 40):
        if q["type"] != "fact_retrieval" or chart.nodes[q["gold"][0]].kind == "decision":
            continue
        steps = [n for n in chart if n.kind not in ("start", "end", "decision")]
        verb, _, obj = chart.nodes[q["gold"][0]].text.partition(" ")
        same_obj = [n for n in steps if n.text.partition(" ")[2].lower() == obj.lower()]
        same_verb = [n for n in steps if n.text.partition(" ")[0].lower() == verb.lower()]
        assert len(same_obj) == 1 or len(same_verb) == 1, q
        asked += 1
    assert asked >= 20


def test_style_option_writes_a_readable_set_and_refuses_a_clash(tmp_path):
    out = tmp_path / "fv"
    assert main(["--out", str(out), "--charts", "6", "--seed", "2", "--style", "flowvqa"]) == 0
    qs = _load(out)
    assert len(list(Benchmark(out).questions)) == len(qs) and {q["type"] for q in qs} == set(QUESTION_TYPES)
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path / "x"), "--charts", "2", "--hard", "--style", "flowvqa"])
    # --hard is unchanged: the same output as --style hard
    a, b = tmp_path / "a", tmp_path / "b"
    main(["--out", str(a), "--charts", "4", "--seed", "1", "--hard"])
    main(["--out", str(b), "--charts", "4", "--seed", "1", "--style", "hard"])
    assert (a / "questions.jsonl").read_text() == (b / "questions.jsonl").read_text()


@pytest.mark.parametrize("style", ["hard", "flowvqa", "code", "scenario", "fact", "facthard"])
def test_a_seed_writes_the_same_questions_under_any_hash_seed(tmp_path, style):
    """Python's string hashing differs per process (PYTHONHASHSEED): a generator that walks a
    set of node ids in hash order writes another set for the same --seed."""
    import os
    import subprocess
    import sys

    from tests.markers import REPO_ROOT

    written = []
    for hash_seed in ("1", "2", "3"):
        out = tmp_path / f"h{hash_seed}"
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(REPO_ROOT)}
        subprocess.run([sys.executable, "-m", "data_gen.qa", "--out", str(out), "--charts", "40",
                        "--seed", "9", "--style", style], check=True, cwd=REPO_ROOT, env=env, capture_output=True)
        written.append((out / "questions.jsonl").read_text(encoding="utf-8"))
    assert written[0] and written[0] == written[1] == written[2]


def _step_next_to_a_named_one(q: dict, chart: FlowChart) -> bool:
    """A "what do you do once you X" question of the fact styles: flow referential, grounded by X
    and the neighbour asked for (docs/reasoning.md "Gold conventions"; twelfth stretch)."""
    if q["type"] != "flow_referential":
        return False
    a, b = q["gold"]
    assert b in chart.successors(a) or b in chart.predecessors(a), q
    return True


def test_fact_style_golds_one_node_unless_the_question_settles_a_check(tmp_path):
    """--style fact: every question is a fact question the reasoner reads as one; its gold is the
    one node holding the fact, or a check and the step on its branch when the question settles
    the check (docs/reasoning.md, gold conventions); and most charts' steps carry details."""
    out = tmp_path / "fact"
    assert main(["--out", str(out), "--charts", "30", "--seed", "4", "--style", "fact"]) == 0
    qs = _load(out)
    charts = {q["chart"]: parse_mermaid(json.loads((out / "charts" / f"{q['chart']}.json").read_text())["mermaid"])
              for q in qs}
    settled = 0
    for q in qs:
        chart = charts[q["chart"]]
        if _step_next_to_a_named_one(q, chart):
            continue
        assert q["type"] == "fact_retrieval" and classify_question(q["question"]) == "fact_retrieval", q
        if len(q["gold"]) == 2:
            d, t = q["gold"]
            assert chart.nodes[d].kind == "decision" and t in chart.successors(d), q
            settled += 1
        else:
            assert len(q["gold"]) == 1, q
    assert 0 < settled < len(qs) / 2
    detailed = sum(any(len(n.text.split()) >= 5 for n in c if n.kind not in ("start", "end", "decision"))
                   for c in charts.values())
    assert detailed >= len(charts) * 0.8


def test_facthard_charts_share_words_and_golds_stay_one_node_unless_a_check_is_settled(tmp_path):
    """--style facthard: fact questions only, gold one node or a settled check and its branch
    step; the charts' node texts share words (steps repeating another step's wording, steps
    naming the check after them) and a share of the charts are programs."""
    out = tmp_path / "facthard"
    assert main(["--out", str(out), "--charts", "40", "--seed", "6", "--style", "facthard"]) == 0
    qs = _load(out)
    charts = {q["chart"]: parse_mermaid(json.loads((out / "charts" / f"{q['chart']}.json").read_text())["mermaid"])
              for q in qs}
    for q in qs:
        chart = charts[q["chart"]]
        if _step_next_to_a_named_one(q, chart):
            continue
        assert q["type"] == "fact_retrieval" and classify_question(q["question"]) == "fact_retrieval", q
        assert all(g in chart.nodes for g in q["gold"]), q
        if len(q["gold"]) == 2:
            d, t = q["gold"]
            assert chart.nodes[d].kind == "decision" and t in chart.successors(d), q
        else:
            assert len(q["gold"]) == 1, q
    def repeats_a_wording(c: FlowChart) -> bool:  # two steps opening with the same verb and object
        openings = [" ".join((n.text or "").split()[:3]) for n in c if n.kind not in ("start", "end", "decision")]
        return len(set(openings)) < len(openings)

    repeated = sum(repeats_a_wording(c) for c in charts.values())
    naming_check = sum(any("to see whether" in (n.text or "") or "and note" in (n.text or "") for n in c)
                       for c in charts.values())
    programs = sum(q["domain"] == "code" and "=" in "".join(n.text or "" for n in charts[q["chart"]])
                   for q in qs)
    assert repeated >= len(charts) * 0.3 and naming_check >= len(charts) * 0.3 and programs > 0
