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


def test_oracle_labels_are_drawn_by_the_pipeline_labeller():
    """An image-reading reasoner sees the same labels in oracle and real runs: the oracle image
    is the labeller's, with the gold ids as names, and when the gold ids are the letters the
    labeller would assign (reading order) the two images are identical pixel for pixel."""
    import numpy as np

    from flowpath.geometry import reading_order
    from flowpath.io import load_image
    from flowpath.labeller import draw_labels

    chart = BENCH.chart("loan")
    image = load_image(chart.image_path)
    parsed = oracle_parse(chart, with_image=True)
    ids, regions = list(chart.regions), list(chart.regions.values())
    expected, mapping = draw_labels(image, regions, names=ids)
    assert np.array_equal(parsed.labelled_image, expected)
    assert mapping == {i: chart.regions[i] for i in mapping} and set(mapping) == set(ids)
    real, by_letter = draw_labels(image, regions)  # what a real run with these regions draws
    letters = {regions[i].bbox: letter for i, letter in zip(reading_order(regions), by_letter, strict=True)}
    as_letters, _ = draw_labels(image, regions, names=[letters[r.bbox] for r in regions])
    assert np.array_equal(as_letters, real)
    assert not np.array_equal(real, image)


def test_region_iou_on_gold_regions_scores_like_box_iou(tmp_path):
    box = evaluate_attribution(EXAMPLES, reasoner=GoldReasoner(), oracle=True)
    region = evaluate_attribution(EXAMPLES, reasoner=GoldReasoner(), oracle=True, iou_on="region",
                                  out_dir=tmp_path)
    assert region["iou_on"] == "region" and box["iou_on"] == "box"
    assert region["overall"]["f1"] == box["overall"]["f1"] == pytest.approx(1.0)
    assert "on region" in (tmp_path / "attribution.md").read_text()


def test_not_a_benchmark(tmp_path):
    with pytest.raises(ValueError, match="not a benchmark"):
        evaluate_attribution(tmp_path, oracle=True)
    (tmp_path / "charts").mkdir()
    with pytest.raises(ValueError, match="no questions"):
        evaluate_attribution(tmp_path, oracle=True)
