"""`flowpath.evaluation.attribution` on the committed examples (a tiny benchmark-layout set),
with test-only reasoners whose answers are known, so the scores are known."""

from __future__ import annotations

import json

import pytest

from flowpath.datasets.febench import Benchmark
from flowpath.evaluation.attribution import evaluate_attribution, markdown_report, oracle_parse
from flowpath.models.base import Reasoner, Reasoning, ReasoningRequest
from tests.markers import REPO_ROOT

EXAMPLES = REPO_ROOT / "examples"
BENCH = Benchmark(EXAMPLES)
GOLD = {q.question: q.gold for q in BENCH.questions}


class GoldReasoner(Reasoner):
    """Answers with the gold nodes (perfect reasoning)."""

    name = "gold"

    def __call__(self, request: ReasoningRequest) -> Reasoning:
        return Reasoning(node_ids=list(GOLD[request.question]), reason="gold")


class FirstNodeReasoner(Reasoner):
    """Always answers the first node of the graph, plus a made-up id."""

    name = "first"

    def __call__(self, request: ReasoningRequest) -> Reasoning:
        return Reasoning(node_ids=[next(iter(request.chart.nodes)), "NOPE"])


class BrokenReasoner(Reasoner):
    name = "broken"

    def __call__(self, request: ReasoningRequest) -> Reasoning:
        return Reasoning(node_ids=[], error="server error 500")


def test_oracle_with_perfect_reasoning_scores_100(tmp_path):
    report = evaluate_attribution(EXAMPLES, reasoner=GoldReasoner(), oracle=True, out_dir=tmp_path)
    n_gold = sum(len(q.gold) for q in BENCH.questions)
    o = report["overall"]
    assert (o["tp"], o["fp"], o["fn"]) == (n_gold, 0, 0)
    assert o["f1"] == pytest.approx(1.0) and o["exact_match"] == pytest.approx(1.0)
    assert set(report["by_domain"]) == {"code", "wiki", "instruct"}
    assert sum(s["questions"] for s in report["by_type"].values()) == len(BENCH.questions)
    recs = [json.loads(x) for x in (tmp_path / "records.jsonl").read_text().splitlines()]
    assert [r["id"] for r in recs] == [q.id for q in BENCH.questions]  # file order kept
    assert all(r["hit"] == r["gold"] for r in recs)
    assert json.loads((tmp_path / "attribution.json").read_text())["mode"] == "oracle"
    assert "| **overall** | 8 |" in (tmp_path / "attribution.md").read_text()


def test_oracle_scores_what_the_reasoner_says():
    report = evaluate_attribution(EXAMPLES, reasoner=FirstNodeReasoner(), oracle=True)
    o = report["overall"]
    # every chart's first node is "Start" (A): a TP only where A is gold, "NOPE" has no region
    expected_tp = sum("A" in q.gold for q in BENCH.questions)
    assert o["tp"] == expected_tp
    assert o["fp"] == len(BENCH.questions) - expected_tp
    assert o["fn"] == sum(len(q.gold) for q in BENCH.questions) - expected_tp


def test_reasoner_errors_count_as_empty_predictions():
    report = evaluate_attribution(EXAMPLES, reasoner=BrokenReasoner(), oracle=True, limit=3)
    assert report["questions"] == 3 and report["errors"] == 3
    assert report["overall"]["tp"] == 0 and report["overall"]["empty_predictions"] == 3
    assert "oracle mode" in markdown_report(report)


def test_oracle_parse_uses_gold_graph_and_regions():
    chart = BENCH.chart("loan")
    parsed = oracle_parse(chart, with_image=True)
    assert set(parsed.graph.nodes) == set(chart.regions)
    assert parsed.labelled_image.shape == (chart.height, chart.width, 3)


def test_not_a_benchmark(tmp_path):
    with pytest.raises(ValueError, match="not a benchmark"):
        evaluate_attribution(tmp_path, oracle=True)
    (tmp_path / "charts").mkdir()
    with pytest.raises(ValueError, match="no questions"):
        evaluate_attribution(tmp_path, oracle=True)
