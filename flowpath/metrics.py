"""Scoring: box matching and the benchmark's attribution metric (numpy only, no torch).

The attribution metric follows FlowExplainBench ("Follow the Flow", see
``../shared/data/README.md``): every *predicted* region is mapped to the gold node whose region
it overlaps most, provided that IoU >= 0.7; a mapped node that belongs to the question's gold
attribution is a true positive (once per node), everything else a false positive, and gold nodes
nobody hit are false negatives. TP/FP/FN are summed over questions (micro average) before
precision, recall and F1 are computed.

>>> m = AttributionMetric()
>>> gold = {"A": (0, 0, 10, 10), "B": (0, 20, 10, 30)}
>>> s = m.update([(0, 0, 10, 10), (50, 50, 60, 60)], ["A", "B"], gold)
>>> (s.tp, s.fp, s.fn)
(1, 1, 1)
>>> m.summary()["overall"]["f1"]
0.5
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from flowpath.geometry import Region, box_iou, box_iou_matrix

__all__ = [
    "ATTRIBUTION_IOU",
    "AttributionMetric",
    "QuestionScore",
    "assign_to_gold",
    "box_iou",
    "is_connected_path",
    "match_boxes",
    "prf",
]

#: IoU a predicted region needs with a gold node region to count as that node (benchmark rule)
ATTRIBUTION_IOU = 0.7

BoxLike = Sequence[float] | Region


def _box(b: BoxLike) -> tuple[float, float, float, float]:
    if isinstance(b, Region):
        return b.bbox
    if len(b) != 4:
        raise ValueError(f"a box must be xyxy (4 numbers), got {b!r}")
    return (float(b[0]), float(b[1]), float(b[2]), float(b[3]))


def _boxes(boxes: Iterable[BoxLike]) -> np.ndarray:
    arr = np.array([_box(b) for b in boxes], dtype=float)
    return arr.reshape(-1, 4)


def match_boxes(pred: Sequence[BoxLike], gold: Sequence[BoxLike],
                iou_threshold: float = 0.5) -> list[tuple[int, int, float]]:
    """One-to-one matching of predicted to gold boxes, greedily by decreasing IoU.

    Greedy matching (rather than Hungarian) keeps the core free of scipy; on node boxes, which
    barely overlap each other, the two give the same pairs.

    Args:
        pred: predicted boxes (xyxy or `Region`).
        gold: gold boxes (xyxy or `Region`).
        iou_threshold: smallest IoU that counts as a match, in [0, 1].

    Returns:
        ``(pred_index, gold_index, iou)`` triples, sorted by ``pred_index``.

    >>> match_boxes([(0, 0, 10, 10)], [(1, 1, 10, 10), (0, 0, 4, 4)])
    [(0, 0, 0.81)]
    """
    if not 0.0 <= iou_threshold <= 1.0:
        raise ValueError(f"iou_threshold must be in [0, 1], got {iou_threshold!r}")
    iou = box_iou_matrix(_boxes(pred), _boxes(gold))
    pairs: list[tuple[int, int, float]] = []
    if iou.size == 0:
        return pairs
    used_p: set[int] = set()
    used_g: set[int] = set()
    # stable order: highest IoU first, ties by (pred, gold) index
    order = sorted((-iou[i, j], i, j) for i in range(iou.shape[0]) for j in range(iou.shape[1])
                    if iou[i, j] >= iou_threshold and iou[i, j] > 0)
    for neg, i, j in order:
        if i in used_p or j in used_g:
            continue
        used_p.add(i)
        used_g.add(j)
        pairs.append((i, j, round(float(-neg), 4)))
    return sorted(pairs)


def assign_to_gold(pred: Sequence[BoxLike], gold_regions: Mapping[str, BoxLike],
                   iou_threshold: float = ATTRIBUTION_IOU) -> list[str | None]:
    """The benchmark's mapping: each predicted box -> the gold node it overlaps most, or None.

    Not one-to-one: two predicted boxes may map to the same gold node (the metric then counts
    the second one as a false positive).

    Args:
        pred: predicted boxes.
        gold_regions: node id -> gold box/region, for *all* nodes of the chart.
        iou_threshold: the IoU the best overlap must reach.

    Returns:
        One gold node id (or None) per predicted box.
    """
    ids = list(gold_regions)
    if not pred:
        return []
    if not ids:
        return [None] * len(pred)
    iou = box_iou_matrix(_boxes(pred), _boxes(gold_regions[i] for i in ids))
    out: list[str | None] = []
    for row in iou:
        j = int(np.argmax(row))
        out.append(ids[j] if row[j] >= iou_threshold else None)
    return out


def prf(tp: int, fp: int, fn: int) -> dict[str, float]:
    """Precision, recall and F1 from counts (0.0 when undefined)."""
    if min(tp, fp, fn) < 0:
        raise ValueError(f"counts must be non-negative, got tp={tp} fp={fp} fn={fn}")
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": p, "recall": r, "f1": f}


def is_connected_path(node_ids: Sequence[str], edges: Iterable[tuple[str, str]]) -> bool:
    """True when ``node_ids`` induce a weakly connected subgraph of the given edges.

    One node is connected; an empty selection is not. Used as a path diagnostic: a grounding
    path that falls apart into pieces usually means a missed intermediate node.

    >>> is_connected_path(["A", "B", "C"], [("A", "B"), ("B", "C")])
    True
    >>> is_connected_path(["A", "C"], [("A", "B"), ("B", "C")])
    False
    """
    from flowpath.graph.tools import induces_connected_subgraph

    return induces_connected_subgraph(node_ids, edges)


@dataclass
class QuestionScore:
    """One question's contribution to the attribution metric.

    Attributes:
        tp, fp, fn: counts for this question.
        hit: gold node ids a prediction hit (in gold order).
        mapped: per predicted region, the gold node it was mapped to (None: no node >= IoU).
        exact: the hit set equals the gold set and there is no false positive.
        first_hit, last_hit: the first / last gold node (the path's ends) was hit.
        connected: the predicted nodes form a connected piece of the predicted graph (None when
            no graph was given).
    """

    tp: int
    fp: int
    fn: int
    hit: list[str] = field(default_factory=list)
    mapped: list[str | None] = field(default_factory=list)
    exact: bool = False
    first_hit: bool = False
    last_hit: bool = False
    connected: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> QuestionScore:
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})


class _Counts:
    __slots__ = ("tp", "fp", "fn", "n", "exact", "first", "last", "conn", "conn_n", "empty")

    def __init__(self) -> None:
        self.tp = self.fp = self.fn = self.n = 0
        self.exact = self.first = self.last = self.conn = self.conn_n = self.empty = 0

    def add(self, s: QuestionScore, n_pred: int) -> None:
        self.tp += s.tp
        self.fp += s.fp
        self.fn += s.fn
        self.n += 1
        self.exact += s.exact
        self.first += s.first_hit
        self.last += s.last_hit
        self.empty += n_pred == 0
        if s.connected is not None:
            self.conn_n += 1
            self.conn += s.connected

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"questions": self.n, "tp": self.tp, "fp": self.fp, "fn": self.fn}
        out.update(prf(self.tp, self.fp, self.fn))
        n = max(self.n, 1)
        out["exact_match"] = self.exact / n
        out["first_node_hit"] = self.first / n
        out["last_node_hit"] = self.last / n
        out["connected_path"] = self.conn / self.conn_n if self.conn_n else None
        out["empty_predictions"] = self.empty
        return out


class AttributionMetric:
    """Micro P/R/F1 of attributed regions against gold nodes, plus path diagnostics.

    An ``update()``/``summary()``/``reset()`` accumulator (the doctr metric shape). Pass
    ``groups`` (e.g. ``{"domain": "code", "type": "topological"}``) to ``update`` to also get
    the figures per value of each grouping key.

    Args:
        iou_threshold: IoU a predicted region needs with a gold node's region (0.7 in the
            benchmark).
    """

    def __init__(self, iou_threshold: float = ATTRIBUTION_IOU) -> None:
        if not 0.0 < iou_threshold <= 1.0:
            raise ValueError(f"iou_threshold must be in (0, 1], got {iou_threshold!r}")
        self.iou_threshold = iou_threshold
        self.reset()

    def reset(self) -> None:
        """Forget every question seen so far."""
        self._all = _Counts()
        self._groups: dict[str, dict[str, _Counts]] = defaultdict(lambda: defaultdict(_Counts))
        self.missing_region = 0

    def update(self, pred: Sequence[BoxLike], gold_ids: Sequence[str],
               chart_regions: Mapping[str, BoxLike], *,
               missing_region: Sequence[str] = (),
               pred_ids: Sequence[str] | None = None,
               pred_edges: Iterable[tuple[str, str]] | None = None,
               groups: Mapping[str, str | None] | None = None) -> QuestionScore:
        """Score one question and add it to the totals.

        Args:
            pred: the predicted regions (boxes) for this question, in path order.
            gold_ids: the gold attribution (node ids, in path order).
            chart_regions: node id -> gold region for every node drawn in the chart.
            missing_region: gold ids that have no drawn region (the benchmark's
                ``gold_missing_region``); they stay in the gold set, so they can only be
                false negatives, and are counted separately.
            pred_ids: predicted node ids (in the predicted graph), for the connectedness check.
            pred_edges: ``(source, target)`` edges of the predicted graph; with ``pred_ids``
                enables the connectedness diagnostic.
            groups: grouping key -> value for the per-group tables; a None value is "unknown".

        Returns:
            The question's `QuestionScore`.

        Raises:
            ValueError: a gold id that has neither a region nor a ``missing_region`` entry.
        """
        gold = list(dict.fromkeys(gold_ids))
        for g in gold:
            if g not in chart_regions and g not in missing_region:
                raise ValueError(f"gold node {g!r} has no region in the chart and is not listed "
                                 f"as missing_region; chart nodes: {sorted(chart_regions)}")
        mapped = assign_to_gold(list(pred), chart_regions, self.iou_threshold)
        gold_set = set(gold)
        hit: set[str] = set()
        fp = 0
        for m in mapped:
            if m is not None and m in gold_set and m not in hit:
                hit.add(m)
            else:
                fp += 1
        tp = len(hit)
        fn = len(gold_set) - tp
        connected = None
        if pred_ids is not None and pred_edges is not None:
            connected = is_connected_path(list(pred_ids), pred_edges) if pred_ids else False
        score = QuestionScore(
            tp=tp, fp=fp, fn=fn, hit=[g for g in gold if g in hit], mapped=mapped,
            exact=bool(gold) and fp == 0 and fn == 0,
            first_hit=bool(gold) and gold[0] in hit, last_hit=bool(gold) and gold[-1] in hit,
            connected=connected)
        self._all.add(score, len(mapped))
        self.missing_region += sum(1 for g in gold if g in missing_region)
        for key, value in (groups or {}).items():
            self._groups[key][str(value) if value is not None else "unknown"].add(score, len(mapped))
        return score

    def summary(self) -> dict[str, Any]:
        """``{"overall": {...}, "by_<key>": {value: {...}}, "missing_region": n}`` where each
        ``{...}`` has questions, tp, fp, fn, precision, recall, f1 and the path diagnostics."""
        out: dict[str, Any] = {"iou_threshold": self.iou_threshold, "overall": self._all.summary()}
        for key, per in self._groups.items():
            out[f"by_{key}"] = {v: c.summary() for v, c in sorted(per.items())}
        out["missing_region"] = self.missing_region
        return out
