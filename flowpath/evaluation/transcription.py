"""Transcription evaluation: predicted letter-id graphs vs the gold Mermaid of a benchmark folder.

Predicted nodes are letters; gold nodes are Mermaid ids. They are matched through geometry:
each letter came from a region, and letter <-> gold node is the one-to-one box-IoU matching of
those regions with the gold regions (IoU >= 0.5, greedy from the highest). Then:

* **word F1**: node-text word overlap (the paper's metric), micro over words: matched pairs
  contribute their common words; unmatched nodes contribute only to the denominators.
* **node F1**: a predicted node is right when it is matched and its normalised text
  (lower-case, letters and digits only) equals the gold node's.
* **edge P/R/F1**: directed edges after mapping letters to gold ids.
* **condition accuracy**: over correctly found edges where gold or prediction has a label, the
  share whose condition agrees (``yes``/``no`` normalised, free text by normalised words).
* **exact graph**: all nodes matched with equal text, same edge set, same conditions.

Figures are given overall, per domain and per style family. `TranscriptionMetric` is an
``update()``/``summary()``/``reset()`` accumulator; `evaluate_transcription` runs a transcriber
over a benchmark-layout folder.

>>> from flowpath.graph import FlowChart
>>> from flowpath.geometry import Region
>>> g = FlowChart.from_edges([("s", "t", "Yes")], {"s": "Is it ok?", "t": "Done"})
>>> p = FlowChart.from_edges([("A", "B", "yes")], {"A": "Is it ok", "B": "Done"})
>>> reg = {"s": Region((0, 0, 10, 10)), "t": Region((0, 20, 10, 30))}
>>> m = TranscriptionMetric()
>>> m.update(p, {"A": reg["s"], "B": reg["t"]}, g, reg)
>>> s = m.summary()["overall"]; (s["word_f1"], s["edge_f1"], s["condition_accuracy"])
(1.0, 1.0, 1.0)
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flowpath.geometry import Region
from flowpath.graph import FlowChart

logger = logging.getLogger("flowpath.evaluation")

__all__ = ["TranscriptionMetric", "evaluate_transcription", "markdown_report", "words",
           "match_nodes"]

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


def match_nodes(pred_regions: dict[str, Region], gold_regions: dict[str, Region],
                iou_threshold: float = 0.5) -> dict[str, str]:
    """Predicted id -> gold id by one-to-one box IoU matching of their regions."""
    from flowpath.evaluation.segmentation import match_regions

    pk, gk = list(pred_regions), list(gold_regions)
    pairs = match_regions([pred_regions[k] for k in pk], [gold_regions[k] for k in gk], iou_threshold)
    return {pk[i]: gk[j] for i, j, _ in pairs}


@dataclass
class _Counts:
    charts: int = 0
    word_tp: int = 0
    word_pred: int = 0
    word_gold: int = 0
    node_tp: int = 0
    node_pred: int = 0
    node_gold: int = 0
    edge_tp: int = 0
    edge_pred: int = 0
    edge_gold: int = 0
    cond_ok: int = 0
    cond_n: int = 0
    exact: int = 0
    seconds: float = 0.0

    def add(self, o: _Counts) -> None:
        for k in self.__dataclass_fields__:
            setattr(self, k, getattr(self, k) + getattr(o, k))

    def summary(self) -> dict[str, Any]:
        def prf(tp: int, p: int, g: int) -> tuple[float, float, float]:
            pr = tp / p if p else (1.0 if g == 0 else 0.0)
            rc = tp / g if g else (1.0 if p == 0 else 0.0)
            f = 2 * pr * rc / (pr + rc) if pr + rc else 0.0
            return pr, rc, f

        wp, wr, wf = prf(self.word_tp, self.word_pred, self.word_gold)
        npr, nr, nf = prf(self.node_tp, self.node_pred, self.node_gold)
        ep, er, ef = prf(self.edge_tp, self.edge_pred, self.edge_gold)
        r = lambda x: round(x, 4)  # noqa: E731
        return {
            "charts": self.charts,
            "word_precision": r(wp), "word_recall": r(wr), "word_f1": r(wf),
            "node_precision": r(npr), "node_recall": r(nr), "node_f1": r(nf),
            "edge_precision": r(ep), "edge_recall": r(er), "edge_f1": r(ef),
            "condition_accuracy": r(self.cond_ok / self.cond_n) if self.cond_n else None,
            "condition_edges": self.cond_n,
            "exact_graph_rate": r(self.exact / self.charts) if self.charts else None,
            "seconds_per_chart": r(self.seconds / self.charts) if self.charts else None,
        }


class TranscriptionMetric:
    """Accumulates transcription scores, overall and per group (domain, style family)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._groups: dict[str, dict[str, _Counts]] = defaultdict(lambda: defaultdict(_Counts))
        self._all = _Counts()

    def update(self, pred: FlowChart, pred_regions: dict[str, Region], gold: FlowChart,
               gold_regions: dict[str, Region], *, groups: dict[str, str | None] | None = None,
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
        c = _Counts(charts=1, seconds=seconds)
        exact = True
        for pid, node in pred.nodes.items():
            pw = Counter(words(node.text))
            c.word_pred += sum(pw.values())
            c.node_pred += 1
            gid = mapping.get(pid)
            if gid is None:
                exact = False
                continue
            gw = Counter(words(gold.nodes[gid].text))
            c.word_tp += sum((pw & gw).values())
            if _norm(node.text) == _norm(gold.nodes[gid].text):
                c.node_tp += 1
            else:
                exact = False
        for gnode in gold.nodes.values():
            c.word_gold += len(words(gnode.text))
            c.node_gold += 1
        if len(mapping) != len(gold.nodes):
            exact = False
        gold_edges: dict[tuple[str, str], str | None] = {}
        for e in gold.edges:
            gold_edges.setdefault((e.source, e.target), _cond(e.label))
        pred_edges: dict[tuple[str, str], str | None] = {}
        for e in pred.edges:
            key = (mapping.get(e.source, "?" + e.source), mapping.get(e.target, "?" + e.target))
            pred_edges.setdefault(key, _cond(e.label))
        c.edge_pred, c.edge_gold = len(pred_edges), len(gold_edges)
        for key, pc in pred_edges.items():
            if key in gold_edges:
                c.edge_tp += 1
                gc = gold_edges[key]
                if gc is not None or pc is not None:
                    c.cond_n += 1
                    if gc == pc:
                        c.cond_ok += 1
                    else:
                        exact = False
        if c.edge_tp != len(gold_edges) or c.edge_tp != len(pred_edges):
            exact = False
        c.exact = int(exact)
        self._all.add(c)
        for gname, gval in (groups or {}).items():
            self._groups[gname][str(gval)].add(c)
        row = c.summary()
        row["mapping"] = mapping
        return row

    def summary(self) -> dict[str, Any]:
        """``{"overall": row, "<group>": {value: row}}``."""
        out: dict[str, Any] = {"overall": self._all.summary()}
        for gname, vals in self._groups.items():
            out[gname] = {k: v.summary() for k, v in sorted(vals.items())}
        return out


def evaluate_transcription(bench_dir: str | Path, transcriber: Any = None, *, segmenter: Any = None,
                           gold_regions: bool = False, limit: int | None = None,
                           out_dir: str | Path | None = None, progress: bool = False) -> dict[str, Any]:
    """Transcribe every chart of a benchmark-layout folder and score it against the gold Mermaid.

    Args:
        bench_dir: folder with ``charts/*.png`` + ``charts/*.json``.
        transcriber: a `Transcriber` (default `flowpath.transcribe.default_transcriber`).
        segmenter: a `Segmenter` giving the regions (default `flowpath.segment.default_segmenter`),
            unless ``gold_regions``.
        gold_regions: label the gold node regions instead of segmenting (isolates transcription).
        limit: only the first N charts.
        out_dir: write ``transcription.json``, ``transcription.md`` and ``records.jsonl`` here.
        progress: show a progress bar.

    Returns:
        The report: ``overall``, ``domain``, ``family`` rows, settings and per-chart failures.
    """
    from flowpath.bench import Benchmark
    from flowpath.io import load_image
    from flowpath.labeller import draw_labels
    from flowpath.mermaid import parse_mermaid
    from flowpath.models.base import LabelledChart

    bench = Benchmark(bench_dir)
    if transcriber is None:
        from flowpath.transcribe import default_transcriber

        transcriber = default_transcriber()
    if segmenter is None and not gold_regions:
        from flowpath.segment import default_segmenter

        segmenter = default_segmenter()
    metric = TranscriptionMetric()
    records = []
    ids = bench.chart_ids[:limit] if limit else bench.chart_ids
    it: Sequence[str] = ids
    if progress:
        from tqdm import tqdm

        it = tqdm(ids, desc="transcribe", unit="chart")
    failures = []
    t_all = time.perf_counter()
    for cid in it:
        chart = bench.chart(cid)
        try:
            image = load_image(chart.image_path)
            gold = parse_mermaid(chart.mermaid, strict=False)
            if gold_regions:
                regions = [chart.regions[k] for k in gold.nodes if k in chart.regions]
            else:
                regions = segmenter([image])[0]
            labelled, letter_regions = draw_labels(image, regions)
            t = time.perf_counter()
            tr = transcriber([LabelledChart(image, labelled, letter_regions, str(chart.image_path))])[0]
            dt = time.perf_counter() - t
        except Exception as exc:  # keep going past a bad chart; it is reported
            logger.warning("%s: %s", cid, exc)
            failures.append({"chart": cid, "error": f"{type(exc).__name__}: {exc}"})
            continue
        row = metric.update(tr.chart, letter_regions, gold, chart.regions,
                            groups={"domain": chart.domain or "unknown", "family": chart.style_family},
                            seconds=dt)
        records.append({"chart": cid, "domain": chart.domain, "family": chart.style_family,
                        **{k: v for k, v in row.items() if k != "charts"},
                        "problems": tr.problems, "mermaid": tr.mermaid})
    report = metric.summary()
    report["settings"] = {"bench": str(bench_dir), "transcriber": getattr(transcriber, "name", "?"),
                          "regions": "gold" if gold_regions else getattr(segmenter, "name", "?"),
                          "charts": len(ids), "wall_seconds": round(time.perf_counter() - t_all, 1)}
    report["failures"] = failures
    if out_dir is not None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "transcription.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
        (out / "transcription.md").write_text(markdown_report(report), encoding="utf-8")
        with (out / "records.jsonl").open("w", encoding="utf-8") as fh:
            for r in records:
                fh.write(json.dumps(r) + "\n")
    report["records"] = records
    return report


_COLS = (("charts", "charts"), ("word_f1", "word F1"), ("node_f1", "node F1"),
         ("edge_precision", "edge P"), ("edge_recall", "edge R"), ("edge_f1", "edge F1"),
         ("condition_accuracy", "cond acc"), ("exact_graph_rate", "exact"),
         ("seconds_per_chart", "s/chart"))


def markdown_report(report: dict[str, Any]) -> str:
    """The report as Markdown tables (overall, per domain, per style family)."""
    def fmt(v: Any) -> str:
        if v is None:
            return "-"
        if isinstance(v, float):
            return f"{v:.3f}"
        return str(v)

    head = "| group | " + " | ".join(c[1] for c in _COLS) + " |"
    sep = "|" + "---|" * (len(_COLS) + 1)
    lines = []
    s = report.get("settings", {})
    if s:
        lines.append(f"transcriber `{s.get('transcriber')}`, regions `{s.get('regions')}`, "
                     f"{s.get('charts')} charts, bench `{s.get('bench')}`\n")
    lines += [head, sep]
    rows = [("overall", report["overall"])]
    for g in ("domain", "family"):
        for k, v in report.get(g, {}).items():
            rows.append((f"{g}={k}", v))
    for name, row in rows:
        lines.append(f"| {name} | " + " | ".join(fmt(row.get(c[0])) for c in _COLS) + " |")
    if report.get("failures"):
        lines.append(f"\n{len(report['failures'])} chart(s) failed: "
                     + ", ".join(f["chart"] for f in report["failures"]))
    return "\n".join(lines) + "\n"
