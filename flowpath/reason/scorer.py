"""Learned node scorer: decides which candidate nodes ground a statement.

The offline reasoner's rules (`flowpath.reason.offline`) propose a node set; this scorer
re-decides membership for those nodes and the nodes around them from per-node cues: how the
question and answer match the node (lexically and by sentence embedding), its kind, where it
sits relative to the answer node, whether it is a decision the statement settles or the step on
the branch taken there, and whether the rules chose it. One logistic regression per question
type, trained on generated QA (``training/train_node_scorer.py``); inference is a dot product
and a sigmoid over weights read from ``flowpath/resources/node_scorer/node_scorer.json`` (no
pickle, no scikit-learn at run time). The model card next to it gives the data, seed, command
and figures.

The cues need the sentence encoder (the ``semantic`` extra): without it the reasoner keeps its
rule-based answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from flowpath.reason.kinds import node_kind

if TYPE_CHECKING:
    from flowpath.reason.offline import _ChartContext

WEIGHTS = Path(__file__).resolve().parents[1] / "resources" / "node_scorer" / "node_scorer.json"

# per-node cues, in the order the weights expect
FEATURES = (
    "in_rule",           # the rules chose the node
    "rule_endpoint",     # first or last of the rules' node set in flow order
    "is_answer_node",    # best answer match
    "answer_score",      # blended answer match (question adds context)
    "answer_gap",        # answer_score minus the best one in the chart
    "q_node_cov",        # share of the node's words the question has (semantic blended)
    "q_text_cov",        # share of the question's words the node has
    "a_node_cov",
    "a_text_cov",
    "story_node_cov",    # the question without its closing sentence (a scenario's story)
    "sem_q",             # rescaled embedding similarity to the question
    "sem_a",             # ... to the answer
    "q_rank1",           # the node the question names best
    "is_decision",
    "is_terminal",       # start or end
    "near_answer",       # 1 / (1 + undirected hops to the answer node)
    "ancestor",          # upstream of the answer node
    "descendant",        # downstream of the answer node
    "pred_of_answer",
    "succ_of_answer",
    "settled_decision",  # a decision whose branch the statement settles
    "taken_branch",      # the step on a settled decision's taken branch
    "depth_delta",       # (depth - answer depth) / 10, clipped to [-1, 1]
    "rule_size",         # size of the rules' node set / 10
)


@dataclass(frozen=True)
class TypeModel:
    """One question type's logistic regression over standardised `FEATURES`."""

    coef: np.ndarray
    intercept: float
    mean: np.ndarray
    scale: np.ndarray
    threshold: float

    def proba(self, x: np.ndarray) -> np.ndarray:
        """Membership probability for each row of ``x`` (shape ``(n, len(FEATURES))``)."""
        z = ((x - self.mean) / self.scale) @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-z))


class NodeScorer:
    """The shipped per-type node scorers.

    Args:
        models: question type -> `TypeModel`; types without one keep the rules' answer.
        meta: the card fields stored with the weights (data, seed, command).
    """

    def __init__(self, models: dict[str, TypeModel], meta: dict[str, Any] | None = None) -> None:
        self.models = models
        self.meta = meta or {}

    @classmethod
    def load(cls, path: str | Path | None = None) -> NodeScorer:
        """Read weights written by ``training/train_node_scorer.py``.

        Raises:
            ValueError: the file is not a node-scorer weight file for these `FEATURES`.
        """
        p = Path(path) if path is not None else WEIGHTS
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"{p}: cannot read node-scorer weights: {exc}") from exc
        if list(data.get("features", [])) != list(FEATURES):
            raise ValueError(f"{p}: weights were trained on other features "
                             f"({data.get('features')!r}); retrain with training/train_node_scorer.py")
        models = {}
        for qtype, m in data.get("types", {}).items():
            arr = [np.asarray(m[k], dtype=np.float64) for k in ("coef", "mean", "scale")]
            if any(a.shape != (len(FEATURES),) for a in arr):
                raise ValueError(f"{p}: type {qtype!r} has weights of the wrong length")
            models[qtype] = TypeModel(arr[0], float(m["intercept"]), arr[1], arr[2], float(m["threshold"]))
        return cls(models, data.get("meta", {}))

    def select(self, qtype: str, candidates: list[str], x: np.ndarray) -> list[str] | None:
        """Candidates whose probability reaches the type's threshold (at least the most
        probable one); ``None`` when this type has no model."""
        model = self.models.get(qtype)
        if model is None or not candidates:
            return None
        p = model.proba(x)
        keep = [c for c, v in zip(candidates, p, strict=True) if v >= model.threshold]
        return keep or [candidates[int(np.argmax(p))]]


def node_features(ctx: _ChartContext, rule_ids: list[str], scores: dict[str, Any]) -> tuple[list[str], np.ndarray]:
    """Candidate nodes (the rules' set and everything within two hops of it) and their cue
    matrix, rows in candidate order, columns in `FEATURES` order.

    Args:
        ctx: the chart's precomputed context.
        rule_ids: the node set the rules chose.
        scores: the statement's matches computed by the reasoner (`OfflineReasoner._cues`).
    """
    import networkx as nx

    chart, ug = ctx.chart, ctx.ug
    rule = [n for n in rule_ids if n in chart.nodes]
    cands: dict[str, None] = dict.fromkeys(rule)
    for n in rule:
        for m in nx.single_source_shortest_path_length(ug, n, cutoff=2):
            cands.setdefault(m, None)
    ids = sorted(cands, key=lambda n: (ctx.depth.get(n, 0), n))
    s, q, a, st = scores["answer"], scores["question"], scores["answer_cov"], scores["story"]
    sem_q, sem_a = scores["sem_q"], scores["sem_a"]
    best = scores["best"]
    top_s = max(s.values()) if s else 0.0
    q_top = max(ctx.index.ids, key=lambda n: q[n][0])
    hops = nx.single_source_shortest_path_length(ug, best)
    anc, desc = nx.ancestors(ctx.g, best), nx.descendants(ctx.g, best)
    preds, succs = set(chart.predecessors(best)), set(chart.successors(best))
    settled, taken = scores["settled"], scores["taken"]
    ordered_rule = sorted(rule, key=lambda n: (ctx.depth.get(n, 0), n))
    ends = {ordered_rule[0], ordered_rule[-1]} if ordered_rule else set()
    rule_set = set(rule)
    rows = []
    for n in ids:
        kind = node_kind(ctx.chart, n)
        d = hops.get(n)
        rows.append([
            float(n in rule_set), float(n in ends), float(n == best), s[n], s[n] - top_s,
            q[n][0], q[n][1], a[n][0], a[n][1], st[n][0], sem_q.get(n, 0.0), sem_a.get(n, 0.0),
            float(n == q_top), float(kind == "decision"), float(kind in ("start", "end")),
            0.0 if d is None else 1.0 / (1.0 + d), float(n in anc), float(n in desc),
            float(n in preds), float(n in succs), float(n in settled), float(n in taken),
            max(-1.0, min(1.0, (ctx.depth.get(n, 0) - ctx.depth.get(best, 0)) / 10.0)),
            len(rule_set) / 10.0,
        ])
    x = np.asarray(rows, dtype=np.float64) if rows else np.zeros((0, len(FEATURES)))
    if not np.all(np.isfinite(x)):  # a degenerate text must not poison the dot product
        x = np.nan_to_num(x, nan=0.0, posinf=1.0, neginf=-1.0)
    return ids, x

