"""Attribution evaluation on a benchmark-layout folder (``flowpath eval attribution``).

Two modes:

* **pipeline** (default): every chart image goes through segmentation, labelling and
  transcription, then the reasoner; the predicted regions are scored against the gold node
  regions (IoU >= 0.7, the benchmark's rule).
* **oracle** (``oracle=True``): the reasoner alone, on the gold Mermaid (parsed) with the gold
  node regions; perception errors are removed, so the gap to the pipeline figure is what
  segmentation + transcription cost.

Outputs (with ``out_dir``): ``attribution.json`` (summary), ``attribution.md`` (tables) and
``records.jsonl`` (one record per question).

>>> report = evaluate_attribution("../shared/data/febench_dev", oracle=True)  # doctest: +SKIP
>>> round(report["overall"]["f1"], 3)                                         # doctest: +SKIP
0.6
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

from flowpath.datasets.febench import BenchChart, Benchmark, BenchQuestion
from flowpath.metrics.attribution import AttributionMetric, QuestionScore
from flowpath.metrics.iou import IouOn
from flowpath.models.base import Reasoner
from flowpath.pipeline import Attribution, FlowPath, ParsedChart, reason_on

logger = logging.getLogger("flowpath.evaluation")

__all__ = ["evaluate_attribution", "markdown_report", "oracle_parse", "score_question"]


def oracle_parse(chart: BenchChart, *, with_image: bool = False) -> ParsedChart:
    """A `ParsedChart` from gold annotations: gold Mermaid parsed (lenient) + gold regions.

    Args:
        chart: a benchmark chart.
        with_image: also load the image and label the gold regions with the gold node ids
            (the labelled image an image-reading reasoner needs), drawn by the pipeline's own
            labeller so both modes show the same kind of labels; skipped otherwise, as loading
            8000 px charts costs more than rule-based reasoning.
    """
    from flowpath.mermaid import parse_mermaid

    graph = parse_mermaid(chart.mermaid, strict=False)
    image = labelled = None
    if with_image:
        from flowpath.io import load_image
        from flowpath.labeller import draw_labels

        image = load_image(chart.image_path)
        labelled, _ = draw_labels(image, list(chart.regions.values()), names=list(chart.regions))
    problems = list(graph.warnings)
    missing = [n for n in graph.nodes if n not in chart.regions]
    if missing:
        problems.append(f"gold nodes without a region: {', '.join(missing)}")
    return ParsedChart(image_hash=f"gold:{chart.id}", width=max(chart.width, 1),
                       height=max(chart.height, 1), regions=dict(chart.regions), graph=graph,
                       mermaid=chart.mermaid, problems=problems, source=str(chart.image_path),
                       meta={"oracle": True}, image=image, labelled_image=labelled)


def _needs_image(reasoner: Reasoner) -> bool:
    # the rule-based reasoner reads only the graph; LLM/VLM reasoners are shown the labelled image
    return getattr(reasoner, "name", "") != "offline"


def evaluate_attribution(bench_dir: str | Path, *, pipeline: FlowPath | None = None,
                         reasoner: Reasoner | None = None, oracle: bool = False,
                         limit: int | None = None, out_dir: str | Path | None = None,
                         progress: bool = False, iou_on: IouOn = "box") -> dict[str, Any]:
    """Score attribution on a benchmark-layout folder.

    Args:
        bench_dir: folder with ``charts/`` and ``questions.jsonl``.
        pipeline: the `FlowPath` to run (default `FlowPath.default()`); in oracle mode only its
            reasoner is used.
        reasoner: oracle mode only: the reasoner (default: the pipeline's, else
            `flowpath.reason.default_reasoner`).
        oracle: reason over gold Mermaid + gold regions instead of the perceived chart.
        limit: score only the first ``limit`` questions (quick checks).
        out_dir: write ``attribution.json``, ``attribution.md``, ``records.jsonl`` there.
        progress: tqdm progress bar.
        iou_on: match predicted to gold regions by ``"box"`` IoU (default) or ``"region"``
            IoU (node polygons / masks, the paper's node regions).

    Returns:
        ``{"mode", "bench", "questions", "errors", "overall": {...}, "by_type": {...},
        "by_domain": {...}, "iou_on", "timings": {...}, "components": {...}}``; each ``{...}`` holds
        questions, tp, fp, fn, precision, recall, f1, exact_match, first_node_hit,
        last_node_hit, connected_path, empty_predictions.

    Raises:
        ValueError: not a benchmark folder, or it has no questions.
    """
    bench = Benchmark(bench_dir)
    questions = list(bench.questions)
    if not questions:
        raise ValueError(f"{bench_dir}: benchmark has no questions.jsonl (or it is empty)")
    if limit is not None:
        questions = questions[:limit]
    if oracle:
        if reasoner is None:
            if pipeline is not None:
                reasoner = pipeline.reasoner
            else:
                from flowpath.reason import default_reasoner

                reasoner = default_reasoner()
        components = {"reasoner": getattr(reasoner, "name", type(reasoner).__name__)}
    else:
        pipeline = pipeline or FlowPath.default()
        components = pipeline.describe()

    # questions of one chart together, so each chart is parsed once (results keep file order)
    order = sorted(range(len(questions)), key=lambda i: (questions[i].chart, i))
    metric = AttributionMetric(iou_on=iou_on)
    records: list[dict[str, Any] | None] = [None] * len(questions)
    parsed_by_chart: dict[str, ParsedChart | str] = {}
    parse_times: list[float] = []
    reason_times: list[float] = []
    t_start = time.perf_counter()
    from tqdm import tqdm

    for i in tqdm(order, desc="eval attribution", disable=not progress, unit="q"):
        q = questions[i]
        try:
            chart = bench.chart(q.chart)
        except KeyError as exc:
            records[i] = _record(q, None, None, error=str(exc))
            continue
        parsed = parsed_by_chart.get(q.chart)
        if parsed is None:
            t = time.perf_counter()
            try:
                if oracle:
                    parsed = oracle_parse(chart, with_image=_needs_image(reasoner))  # type: ignore[arg-type]
                else:
                    assert pipeline is not None
                    parsed = pipeline.parse(chart.image_path)
                    parse_times.append(time.perf_counter() - t)
            except Exception as exc:  # a chart that cannot be parsed scores as no prediction
                parsed = f"{type(exc).__name__}: {exc}"
                logger.warning("chart %s failed: %s", q.chart, parsed)
            parsed_by_chart.clear()  # keep one chart's arrays in memory at a time
            parsed_by_chart[q.chart] = parsed
        if isinstance(parsed, str):
            att = Attribution(question=q.question, answer=q.answer, error=parsed)
        else:
            r = reasoner if oracle else pipeline.reasoner  # type: ignore[union-attr]
            att = reason_on(r, parsed, q.question, q.answer)  # type: ignore[arg-type]
            reason_times.append(att.timings.get("reason", 0.0))
        score = score_question(metric, q, chart, att, parsed)
        records[i] = _record(q, att, score.to_dict(), error=att.error)

    summary = metric.summary()
    done = [r for r in records if r is not None]
    report: dict[str, Any] = {
        "mode": "oracle" if oracle else "pipeline",
        "bench": str(bench_dir),
        "questions": len(done),
        "errors": sum(1 for r in done if r.get("error")),
        **{k: v for k, v in summary.items()},
        "timings": {
            "mean_parse_seconds_per_chart": _mean(parse_times),
            "mean_reason_seconds_per_question": _mean(reason_times),
            "wall_seconds": round(time.perf_counter() - t_start, 2),
        },
        "components": components,
    }
    if out_dir is not None:
        from flowpath.io import atomic_write_text

        out = Path(out_dir)
        atomic_write_text(out / "attribution.json", json.dumps(report, indent=1) + "\n")
        atomic_write_text(out / "attribution.md", markdown_report(report))
        atomic_write_text(out / "records.jsonl", "".join(json.dumps(r) + "\n" for r in done))
    return report


def score_question(metric: AttributionMetric, question: BenchQuestion, chart: BenchChart,
                   attribution: Attribution, parsed: ParsedChart | str) -> QuestionScore:
    """Add one question's attribution to ``metric`` (grouped by question type and domain).

    Args:
        metric: the accumulator.
        question: the benchmark question (gold ids, type, domain).
        chart: its chart (gold regions, image size).
        attribution: what the pipeline or reasoner attributed.
        parsed: the chart as the reasoner saw it (its edges give the connectedness
            diagnostic), or the error text of a chart that could not be parsed.

    Returns:
        The question's `QuestionScore`.
    """
    ok = not attribution.error and not isinstance(parsed, str)
    edges = [(e.source, e.target) for e in parsed.graph.edges] if ok else None  # type: ignore[union-attr]
    missing = set(question.gold_missing_region) | {g for g in question.gold if g not in chart.regions}
    return metric.update(list(attribution.regions),
                         question.gold, chart.regions, missing_region=sorted(missing),
                         pred_ids=attribution.node_ids if ok else None, pred_edges=edges,
                         groups={"type": question.type, "domain": question.domain or chart.domain},
                         image_size=_image_size(chart, parsed))


def _image_size(chart: BenchChart, parsed: ParsedChart | str) -> tuple[int, int] | None:
    """(height, width) of the chart image, for region IoU (predicted masks are that size)."""
    if not isinstance(parsed, str) and parsed.height > 0 and parsed.width > 0:
        return (parsed.height, parsed.width)
    return (chart.height, chart.width) if chart.height > 0 and chart.width > 0 else None


def _mean(xs: list[float]) -> float | None:
    return round(sum(xs) / len(xs), 4) if xs else None


def _record(q: BenchQuestion, att: Attribution | None, score: dict[str, Any] | None,
            error: str | None) -> dict[str, Any]:
    rec: dict[str, Any] = {"id": q.id, "chart": q.chart, "type": q.type, "domain": q.domain,
                           "question": q.question, "answer": q.answer, "gold": q.gold}
    if att is not None:
        rec.update({"pred": att.node_ids, "letters": att.letters,
                    "regions": [[round(v, 1) for v in r.bbox] for r in att.regions],
                    "reason": att.reason, "problems": att.problems,
                    "timings": {k: round(v, 4) for k, v in att.timings.items()}})
    if score is not None:
        rec.update({k: score[k] for k in ("tp", "fp", "fn", "hit", "mapped", "exact", "first_hit",
                                          "last_hit", "connected")})
    rec["error"] = error
    return rec


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.2f}"


def markdown_report(report: dict[str, Any]) -> str:
    """Markdown tables of a report: overall, per question type, per domain."""
    head = ("| group | questions | P | R | F1 | exact | first hit | last hit | connected |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")

    def row(name: str, s: dict[str, Any]) -> str:
        return (f"| {name} | {s['questions']} | {_pct(s['precision'])} | {_pct(s['recall'])} | "
                f"**{_pct(s['f1'])}** | {_pct(s['exact_match'])} | {_pct(s['first_node_hit'])} | "
                f"{_pct(s['last_node_hit'])} | {_pct(s['connected_path'])} |\n")

    comps = ", ".join(f"{k}={v}" for k, v in (report.get("components") or {}).items())
    lines = [f"# Attribution: {report['mode']} mode\n\n",
             f"bench `{report['bench']}`, {report['questions']} questions, "
             f"{report['errors']} errors; IoU >= {report.get('iou_threshold')} on "
             f"{report.get('iou_on', 'box')}; {comps}\n\n", head, row("**overall**", report["overall"])]
    for key in ("by_type", "by_domain"):
        for name, s in (report.get(key) or {}).items():
            lines.append(row(f"{key[3:]}: {name}", s))
    t = report.get("timings") or {}
    lines.append(f"\nmean parse per chart: {t.get('mean_parse_seconds_per_chart')} s; "
                 f"mean reasoning per question: {t.get('mean_reason_seconds_per_question')} s; "
                 f"wall: {t.get('wall_seconds')} s\n")
    return "".join(lines)
