"""Synthetic QA generation (data_gen/qa.py): layout, gold validity, determinism."""

from __future__ import annotations

import json
import random

import networkx as nx
import pytest

from data_gen.qa import main, make_questions, random_chart
from flowpath.datasets.febench import Benchmark
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
