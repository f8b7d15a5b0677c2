"""Transcription metric: a predicted letter-id graph vs the gold Mermaid graph of a chart.

Predicted nodes are letters; gold nodes are Mermaid ids. They are matched through geometry:
each letter came from a region, and letter <-> gold node is the one-to-one box-IoU matching of
those regions with the gold regions (IoU >= 0.5, `flowpath.metrics.matching.match_nodes`). Then:

* **word F1**: node-text word overlap (the paper's metric), micro over words: matched pairs
  contribute their common words; unmatched nodes contribute only to the denominators.
* **node F1**: a predicted node is right when it is matched and its normalised text
  (lower-case, letters and digits only) equals the gold node's.
* **edge P/R/F1**: directed edges after mapping letters to gold ids.
* **condition accuracy**: over correctly found edges where gold or prediction has a label, the
  share whose condition agrees (``yes``/``no`` normalised, free text by normalised words).
* **exact graph**: all nodes matched with equal text, same edge set, same conditions.

Figures are given overall and per group (domain, style family).

>>> from flowpath.graph import FlowChart
>>> from flowpath.geometry import Region
>>> g = FlowChart.from_edges([("s", "t", "Yes")], {"s": "Is it ok?", "t": "Done"})
>>> p = FlowChart.from_edges([("A", "B", "yes")], {"A": "Is it ok", "B": "Done"})
>>> reg = {"s": Region((0, 0, 10, 10)), "t": Region((0, 20, 10, 30))}
>>> m = TranscriptionMetric()
>>> row = m.update(p, {"A": reg["s"], "B": reg["t"]}, g, reg)
>>> s = m.summary()["overall"]; (s["word_f1"], s["edge_f1"], s["condition_accuracy"])
(1.0, 1.0, 1.0)
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from flowpath.geometry import Region
from flowpath.graph import FlowChart
from flowpath.metrics.matching import match_nodes
from flowpath.metrics.scores import Tally, prf

__all__ = ["TranscriptionMetric", "directed_edges", "words"]

_WORD = re.compile(r"[a-z0-9]+")


def words(text: str | None) -> list[str]:
    """Lower-case alphanumeric words of a text (the unit of the word-overlap F1)."""
    return _WORD.findall((text or "").lower())


def _norm(text: str | None) -> str:
    return " ".join(words(text))


def _cond(label: str | None) -> str | None:
    from flowpath.graph.core import normalize_condition

    c = normalize_condition(label)
    return None if c is None else (c if c in ("yes", "no") else _norm(c) or None)


def directed_edges(chart: FlowChart, mapping: Mapping[str, str] | None = None
                   ) -> dict[tuple[str, str], str | None]:
    """``(source, target) -> normalised condition`` of a chart's edges, the first label of
    parallel edges kept. With ``mapping`` (predicted id -> gold id) the ends are renamed to
    gold ids, ``?id`` for a node that matches none."""
    out: dict[tuple[str, str], str | None] = {}
    for e in chart.edges:
        key = (e.source, e.target) if mapping is None else \
            (mapping.get(e.source, "?" + e.source), mapping.get(e.target, "?" + e.target))
        out.setdefault(key, _cond(e.label))
    return out


def _row(c: Counter[str]) -> dict[str, Any]:
    r = lambda x: round(x, 4)  # noqa: E731
    out: dict[str, Any] = {"charts": c["charts"]}
    for unit in ("word", "node", "edge"):
        tp = c[f"{unit}_tp"]
        s = prf(tp, c[f"{unit}_pred"] - tp, c[f"{unit}_gold"] - tp, empty=1.0)
        out.update({f"{unit}_{k}": r(v) for k, v in s.items()})
    out.update({
        "condition_accuracy": r(c["cond_ok"] / c["cond_n"]) if c["cond_n"] else None,
        "condition_edges": c["cond_n"],
        "exact_graph_rate": r(c["exact"] / c["charts"]) if c["charts"] else None,
        "seconds_per_chart": r(c["seconds"] / c["charts"]) if c["charts"] else None,
    })
    return out


class TranscriptionMetric:
    """Accumulates transcription scores, overall and per group (domain, style family).

    ``summary()`` returns ``{"overall": row, "by_<group>": {value: row}}``.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget every chart seen so far."""
        self._tally = Tally()

    def update(self, pred: FlowChart, pred_regions: Mapping[str, Region], gold: FlowChart,
               gold_regions: Mapping[str, Region], *,
               groups: Mapping[str, str | None] | None = None,
               seconds: float = 0.0) -> dict[str, Any]:
        """Score one chart and add it to the totals.

        Args:
            pred: predicted graph (node ids are the letters).
            pred_regions: letter -> region the letter labels.
            gold: gold graph (Mermaid ids).
            gold_regions: gold id -> gold region.
            groups: e.g. ``{"domain": "code", "family": "default"}``.
            seconds: time the transcription took (for seconds per chart).

        Returns:
            This chart's own figures (same keys as a summary row) plus ``mapping``.
        """
        mapping = match_nodes({k: v for k, v in pred_regions.items() if k in pred.nodes},
                              {k: v for k, v in gold_regions.items() if k in gold.nodes})
        c: Counter[str] = Counter(charts=1)
        c["seconds"] = seconds  # type: ignore[assignment]
        exact = True
        for pid, node in pred.nodes.items():
            pw = Counter(words(node.text))
            c["word_pred"] += sum(pw.values())
            c["node_pred"] += 1
            gid = mapping.get(pid)
            if gid is None:
                exact = False
                continue
            gw = Counter(words(gold.nodes[gid].text))
            c["word_tp"] += sum((pw & gw).values())
            if _norm(node.text) == _norm(gold.nodes[gid].text):
                c["node_tp"] += 1
            else:
                exact = False
        for gnode in gold.nodes.values():
            c["word_gold"] += len(words(gnode.text))
            c["node_gold"] += 1
        if len(mapping) != len(gold.nodes):
            exact = False
        gold_edges = directed_edges(gold)
        pred_edges = directed_edges(pred, mapping)
        c["edge_pred"], c["edge_gold"] = len(pred_edges), len(gold_edges)
        for key, pc in pred_edges.items():
            if key in gold_edges:
                c["edge_tp"] += 1
                gc = gold_edges[key]
                if gc is not None or pc is not None:
                    c["cond_n"] += 1
                    if gc == pc:
                        c["cond_ok"] += 1
                    else:
                        exact = False
        if c["edge_tp"] != len(gold_edges) or c["edge_tp"] != len(pred_edges):
            exact = False
        c["exact"] = int(exact)
        self._tally.add(c, groups)
        row = _row(c)
        row["mapping"] = mapping
        return row

    def summary(self) -> dict[str, Any]:
        """``{"overall": row, "by_<group>": {value: row}}``."""
        return self._tally.rows(_row)
