"""The learned node scorer (issue 15): weight files, selection, the reasoner's use of it, training."""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from flowpath.graph import FlowChart
from flowpath.models.base import ReasoningRequest
from flowpath.reason import OfflineReasoner
from flowpath.reason.scorer import FEATURES, WEIGHTS, NodeScorer, TypeModel
from flowpath.reason.semantic import semantic_available

require_semantic = pytest.mark.skipif(not semantic_available(), reason="needs flowpath[semantic]")
LEARNED = ("fact_retrieval", "applied_scenario", "flow_referential")


def _one_cue_scorer(feature: str, threshold: float = 0.5) -> NodeScorer:
    """A scorer that keeps exactly the candidates whose ``feature`` is 1 (a 0/1 cue)."""
    coef = np.zeros(len(FEATURES))
    coef[FEATURES.index(feature)] = 20.0
    model = TypeModel(coef, -10.0, np.zeros(len(FEATURES)), np.ones(len(FEATURES)), threshold)
    return NodeScorer({t: model for t in LEARNED})


@pytest.fixture(scope="module")
def chart() -> FlowChart:
    return FlowChart.from_edges(
        [("A", "B"), ("B", "C"), ("C", "D", "Yes"), ("C", "E", "No"), ("E", "B"), ("D", "F"), ("F", "G")],
        {"A": "Start", "B": "Boil a pot of salted water", "C": "Is the water boiling?",
         "D": "Add the pasta to the pot", "E": "Wait two more minutes", "F": "Drain the pasta", "G": "End"})


def test_selection_keeps_candidates_over_the_threshold_and_never_nothing():
    m = TypeModel(np.array([1.0] + [0.0] * (len(FEATURES) - 1)), 0.0, np.zeros(len(FEATURES)),
                  np.ones(len(FEATURES)), 0.6)
    x = np.zeros((3, len(FEATURES)))
    x[:, 0] = [-3.0, 0.0, 3.0]
    p = m.proba(x)
    assert p[0] < p[1] < p[2]  # monotone in a positively weighted cue
    s = NodeScorer({"fact_retrieval": m})
    assert s.select("fact_retrieval", ["a", "b", "c"], x) == ["c"]
    x[:, 0] = -5.0  # nothing reaches the threshold: the most probable candidate still answers
    x[1, 0] = -4.0
    assert s.select("fact_retrieval", ["a", "b", "c"], x) == ["b"]
    assert s.select("topological", ["a"], x[:1]) is None  # no model for the type: the rules stand


def test_weight_files_are_checked(tmp_path):
    bad = tmp_path / "w.json"
    bad.write_text(json.dumps({"features": ["in_rule"], "types": {}}))
    with pytest.raises(ValueError, match="other features"):
        NodeScorer.load(bad)
    short = {"coef": [0.0], "intercept": 0.0, "mean": [0.0], "scale": [1.0], "threshold": 0.5}
    bad.write_text(json.dumps({"features": list(FEATURES), "types": {"fact_retrieval": short}}))
    with pytest.raises(ValueError, match="wrong length"):
        NodeScorer.load(bad)
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="cannot read"):
        NodeScorer.load(bad)


def test_shipped_weights_load_for_the_learned_types():
    scorer = NodeScorer.load()
    assert set(scorer.models) == set(LEARNED)
    assert scorer.meta.get("command", "").startswith("python training/train_node_scorer.py")
    assert (WEIGHTS.parent / "README.md").is_file()  # the model card


@require_semantic
def test_reasoner_follows_its_scorer(chart):
    """The scorer re-decides the rules' set: keeping only the rules' nodes gives the rules'
    answer; keeping only the answer node gives that node alone; no scorer is the rules."""
    from flowpath.reason.semantic import shared_encoder

    enc = shared_encoder()
    q, a = "What should be done if the water is not boiling?", "Wait a couple of minutes."
    rules = OfflineReasoner(encoder=enc, learned=False)(ReasoningRequest(chart, q, a))
    same = OfflineReasoner(encoder=enc, scorer=_one_cue_scorer("in_rule"))(ReasoningRequest(chart, q, a))
    only = OfflineReasoner(encoder=enc, scorer=_one_cue_scorer("is_answer_node"))(ReasoningRequest(chart, q, a))
    assert "E" in rules.node_ids and len(rules.node_ids) >= 2
    assert set(same.node_ids) == set(rules.node_ids)
    assert only.node_ids == ["E"] and "learned node scorer" in only.reason


@require_semantic
def test_learned_scorer_is_not_worse_than_the_rules_on_generated_hard_qa():
    """Generated hard QA of a seed the shipped weights were not trained or validated on."""
    from data_gen.qa import make_hard_questions, random_chart
    from flowpath.reason.semantic import shared_encoder

    enc = shared_encoder()
    rng = random.Random(424242)
    learned, rules = OfflineReasoner(encoder=enc, learned=True), OfflineReasoner(encoder=enc)
    counts = {"learned": [0, 0, 0], "rules": [0, 0, 0]}
    for i in range(25):
        fc, domain = random_chart(rng, numeric_rate=0.5)
        for q in make_hard_questions(fc, f"c{i}", rng, domain=domain):
            g = set(q["gold"])
            for name, r in (("learned", learned), ("rules", rules)):
                p = set(r(ReasoningRequest(fc, q["question"], q["answer"])).node_ids)
                c = counts[name]
                c[0], c[1], c[2] = c[0] + len(p & g), c[1] + len(p - g), c[2] + len(g - p)
    f1 = {k: 2 * tp / (2 * tp + fp + fn) for k, (tp, fp, fn) in counts.items()}
    assert f1["learned"] >= f1["rules"] - 0.01, f1


@pytest.mark.slow
@require_semantic
@pytest.mark.skipif(importlib.util.find_spec("sklearn") is None, reason="training needs scikit-learn (flowpath[train])")
def test_training_script_writes_weights_the_library_reads(tmp_path):
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-m", "data_gen.qa", "--out", str(tmp_path / "qa"), "--charts", "8",
                    "--seed", "5", "--hard"], check=True, cwd=root, capture_output=True)
    out = tmp_path / "w.json"
    run = subprocess.run([sys.executable, "training/train_node_scorer.py", "--train", str(tmp_path / "qa"),
                          "--val", str(tmp_path / "qa"), "--out", str(out), "--C", "1.0"],
                         cwd=root, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    scorer = NodeScorer.load(out)
    assert scorer.models and all(0.0 < m.threshold < 1.0 for m in scorer.models.values())
