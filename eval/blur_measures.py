"""Blur measures of each chart's node text against the blur its degrade pass drew (issue 14).

    python eval/blur_measures.py /work/data/textrec10_puml ... --out runs/blur/measures.jsonl

For every chart (gold node regions), the chart-level blur measures `OCRTranscriber` takes of its
node text (`crops.strong_ink_share`, `crops.stroke_sharpness`: recorded as it calls them by
`eval/ocr_node_readings.gold_crops`; no OCR is run) and the chart's drawn blur:
sigma replayed from its degrade seed (`data_gen.pipeline.chart_blur`), JPEG quality, font
px. Prints, per measure, how well it separates blurred charts (sigma >= ``--blurred``) from the
rest among small-print charts (line height in [6.5, 14) px): ROC AUC (taken in the direction that
separates them) and the best balanced accuracy with its threshold.
"""
from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
logging.disable(logging.WARNING)

from data_gen.pipeline import chart_blur, replay_degrade  # noqa: E402
from eval.ocr_node_readings import gold_crops, read_records, write_records  # noqa: E402


def measure_set(bench: Path, limit: int | None) -> list[dict[str, Any]]:
    from flowpath.datasets.febench import Benchmark

    bm = Benchmark(bench)
    out = []
    for cid in bm.chart_ids[:limit] if limit else bm.chart_ids:
        chart = bm.chart(cid)
        seen = gold_crops(chart)[1].measures
        js = json.loads(Path(chart.image_path).with_suffix(".json").read_text(encoding="utf-8"))
        deg = (js.get("meta") or {}).get("degrade") or {}
        quality = replay_degrade(int(deg["seed"]))[1] if deg.get("kind") == "wild" else None
        style = js.get("style") or {}
        row = {"set": bench.name, "chart": cid, "blur": chart_blur(js), "jpeg": quality,
               "font": style.get("font"), "font_px": (style.get("font_size") or 0) * statistics.mean(js.get("scale") or [1.0]),
               "line_h": seen.get("chart_line_height"), "share": seen.get("strong_ink_share"),
               "sharpness": seen.get("stroke_sharpness")}
        out.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    return out


def auc(pos: list[float], neg: list[float]) -> float:
    """P(a positive scores above a negative), ties half."""
    if not pos or not neg:
        return float("nan")
    p, n = np.asarray(pos)[:, None], np.asarray(neg)[None, :]
    return float((p > n).mean() + 0.5 * (p == n).mean())


def report(rows: list[dict[str, Any]], blurred: float) -> None:
    small = [r for r in rows if r["line_h"] is not None and 6.5 <= r["line_h"] < 14]
    names = sorted(k for k in small[0] if k not in {"set", "chart", "blur", "jpeg", "font", "font_px", "line_h"}
                   and isinstance(small[0][k], (int, float)))
    pos = [r for r in small if r["blur"] >= blurred]
    neg = [r for r in small if r["blur"] < blurred]
    print(f"small-print charts {len(small)}: blurred (sigma >= {blurred}) {len(pos)}, other {len(neg)}")
    for n in names:
        ps = [r[n] for r in pos if r[n] is not None]
        ns = [r[n] for r in neg if r[n] is not None]
        a = auc(ps, ns)
        if not ps or not ns:
            continue
        sign = 1 if a >= 0.5 else -1  # -1: the measure is lower on blurred charts
        a = max(a, 1 - a)
        best = (0.0, 0.0)
        for t in sorted(set(ps + ns)):
            tpr = np.mean([sign * v >= sign * t for v in ps]) if ps else 0
            tnr = np.mean([sign * v < sign * t for v in ns]) if ns else 0
            best = max(best, ((tpr + tnr) / 2, t))
        print(f"{n:24s} AUC {a:.3f}  best balanced acc {best[0]:.3f} at {'>=' if sign > 0 else '<='} {best[1]:.4f}"
              f"  blurred median {statistics.median(ps):.4f}, other median {statistics.median(ns):.4f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bench", nargs="*", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--blurred", type=float, default=0.6, help="sigma from which a chart counts as blurred")
    ap.add_argument("--summary", type=Path, nargs="*", help="rows written before")
    args = ap.parse_args()
    rows = read_records(args.summary)
    for bench in args.bench:
        rows += measure_set(bench, args.limit)
    write_records(args.out, rows)
    report(rows, args.blurred)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
