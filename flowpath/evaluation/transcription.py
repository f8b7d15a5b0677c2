"""Transcription evaluation: transcribe every chart of a benchmark-layout folder and score it
against the gold Mermaid with `flowpath.metrics.TranscriptionMetric` (``flowpath eval
transcribe``; the metric's docstring says what each figure means).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from flowpath.metrics.scores import style_groups
from flowpath.metrics.transcription import TranscriptionMetric

logger = logging.getLogger("flowpath.evaluation")

__all__ = ["evaluate_transcription", "markdown_report"]


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
        The report: ``overall``, ``by_domain``, ``by_family`` (and, for charts that name their
        renderer, ``by_renderer`` and ``by_family+renderer``) rows, settings and per-chart failures.
    """
    from flowpath.datasets.febench import Benchmark
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
                            groups={"domain": chart.domain or "unknown",
                                    **style_groups(chart.style_family, chart.renderer)},
                            seconds=dt)
        records.append({"chart": cid, "domain": chart.domain, "family": chart.style_family,
                        "renderer": chart.renderer,
                        **{k: v for k, v in row.items() if k != "charts"},
                        "problems": tr.problems, "mermaid": tr.mermaid, "meta": tr.meta})
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
                fh.write(json.dumps(r, default=str) + "\n")
    report["records"] = records
    return report


_COLS = (("charts", "charts"), ("word_f1", "word F1"), ("node_f1", "node F1"),
         ("edge_precision", "edge P"), ("edge_recall", "edge R"), ("edge_f1", "edge F1"),
         ("condition_accuracy", "cond acc"), ("exact_graph_rate", "exact"),
         ("seconds_per_chart", "s/chart"))


def markdown_report(report: dict[str, Any]) -> str:
    """The report as Markdown tables (overall, per domain, per style family, and per renderer
    and (family, renderer) pair where the charts name their renderer)."""
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
    for g in ("domain", "family", "renderer", "family+renderer"):
        for k, v in report.get(f"by_{g}", {}).items():
            rows.append((f"{g}={k}", v))
    for name, row in rows:
        lines.append(f"| {name} | " + " | ".join(fmt(row.get(c[0])) for c in _COLS) + " |")
    if report.get("failures"):
        lines.append(f"\n{len(report['failures'])} chart(s) failed: "
                     + ", ".join(f["chart"] for f in report["failures"]))
    return "\n".join(lines) + "\n"
