"""The benchmark's attribution metric (numpy only, no torch).

The attribution metric follows FlowExplainBench ("Follow the Flow", see
``../shared/data/README.md``): every *predicted* region is mapped to the gold node whose region
it overlaps most, provided that IoU >= 0.7; a mapped node that belongs to the question's gold
attribution is a true positive (once per node), everything else a false positive, and gold nodes
nobody hit are false negatives. TP/FP/FN are summed over questions (micro average) before
precision, recall and F1 are computed. The IoU is on boxes by default; ``iou_on="region"``
compares the node polygons / masks (see `flowpath.metrics.iou`).

>>> m = AttributionMetric()
>>> gold = {"A": (0, 0, 10, 10), "B": (0, 20, 10, 30)}
>>> s = m.update([(0, 0, 10, 10), (50, 50, 60, 60)], ["A", "B"], gold)
>>> (s.tp, s.fp, s.fn)
(1, 1, 1)
>>> m.summary()["overall"]["f1"]
0.5
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flowpath.metrics.iou import IOU_ON, BoxLike, IouOn
from flowpath.metrics.matching import assign_to_gold
from flowpath.metrics.scores import Tally, prf

__all__ = ["ATTRIBUTION_IOU", "AttributionMetric", "QuestionScore", "is_connected_path"]

#: IoU a predicted region needs with a gold node region to count as that node (benchmark rule)
ATTRIBUTION_IOU = 0.7


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


class AttributionMetric:
    """Micro P/R/F1 of attributed regions against gold nodes, plus path diagnostics.

    An ``update()``/``summary()``/``reset()`` accumulator (the doctr metric shape). Pass
    ``groups`` (e.g. ``{"domain": "code", "type": "topological"}``) to ``update`` to also get
    the figures per value of each grouping key.

    Args:
        iou_threshold: IoU a predicted region needs with a gold node's region (0.7 in the
            benchmark).
        iou_on: ``"box"`` (default) or ``"region"``: IoU of the node polygons / masks, the
            paper's node regions (pass ``image_size`` to ``update``).
    """

    def __init__(self, iou_threshold: float = ATTRIBUTION_IOU, *, iou_on: IouOn = "box") -> None:
        if not 0.0 < iou_threshold <= 1.0:
            raise ValueError(f"iou_threshold must be in (0, 1], got {iou_threshold!r}")
        if iou_on not in IOU_ON:
            raise ValueError(f"iou_on must be one of {IOU_ON}, got {iou_on!r}")
        self.iou_threshold = iou_threshold
        self.iou_on: IouOn = iou_on
        self.reset()

    def reset(self) -> None:
        """Forget every question seen so far."""
        self._tally = Tally()
        self.missing_region = 0

    def update(self, pred: Sequence[BoxLike], gold_ids: Sequence[str],
               chart_regions: Mapping[str, BoxLike], *,
               missing_region: Sequence[str] = (),
               pred_ids: Sequence[str] | None = None,
               pred_edges: Iterable[tuple[str, str]] | None = None,
               groups: Mapping[str, str | None] | None = None,
               image_size: tuple[int, int] | None = None) -> QuestionScore:
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
            image_size: ``(height, width)`` of the chart image, for region IoU.

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
        mapped = assign_to_gold(list(pred), chart_regions, self.iou_threshold, on=self.iou_on,
                                image_size=image_size)
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
        counts = {"tp": tp, "fp": fp, "fn": fn, "questions": 1, "exact": score.exact,
                  "first": score.first_hit, "last": score.last_hit, "empty": not mapped,
                  "conn_n": connected is not None, "conn": bool(connected)}
        self._tally.add(counts, groups)
        self.missing_region += sum(1 for g in gold if g in missing_region)
        return score

    def summary(self) -> dict[str, Any]:
        """``{"overall": {...}, "by_<key>": {value: {...}}, "missing_region": n}`` where each
        ``{...}`` has questions, tp, fp, fn, precision, recall, f1 and the path diagnostics."""
        out: dict[str, Any] = {"iou_threshold": self.iou_threshold, "iou_on": self.iou_on}
        out.update(self._tally.rows(_row))
        out["missing_region"] = self.missing_region
        return out


def _row(c: Counter[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"questions": c["questions"], "tp": c["tp"], "fp": c["fp"], "fn": c["fn"]}
    out.update(prf(c["tp"], c["fp"], c["fn"]))
    n = max(c["questions"], 1)
    out["exact_match"] = c["exact"] / n
    out["first_node_hit"] = c["first"] / n
    out["last_node_hit"] = c["last"] / n
    out["connected_path"] = c["conn"] / c["conn_n"] if c["conn_n"] else None
    out["empty_predictions"] = c["empty"]
    return out
