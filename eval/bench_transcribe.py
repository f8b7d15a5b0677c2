"""Speed of the offline transcriber: seconds per chart, on gold regions (transcription alone).

    python eval/bench_transcribe.py [--bench ../shared/data/febench_dev] [--limit 20] [--workers 2]

Prints one line per chart (nodes, wall seconds, CPU seconds of this process and its children,
CPU seconds of the calling thread) and a summary: mean seconds per chart, seconds per node, the
mean over charts with 16-24 nodes (the "20-node chart" of the target) and where their CPU time
went: the transcriber's steps on the calling thread (``Transcription.meta["cpu_s"]``), the
node-crop cleaning on the reading thread, and the rest (tesseract's worker threads, OpenCV's
thread pool). On a loaded machine compare CPU seconds; on an idle one, wall = calling thread +
what it waits for, so "cpu - wall" is the time both cores were busy. Segmentation and labelling are
not timed. The transcriber keeps its OCR engines loaded between charts; loading them is
timed once, separately, on a warm-up chart (``--no-warmup`` to count it in the first chart).
The learned small-print recogniser (torch) loads on the first chart whose text lines are small
(`flowpath.transcribe.ocr.choice`); the summary says whether it did and on how many charts its
readings were kept (``--no-learned``: `OCRTranscriber(learned=False)`, for an A/B).
The target is <= 0.9 s per 16-24-node chart on 2 idle cores; under load, compare CPU seconds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "febench_dev"))
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--workers", type=int, default=2, help="parallel tesseract engines per chart")
    ap.add_argument("--engine", default="auto", help="OCRTranscriber engine: auto, tesseract, rapidocr")
    ap.add_argument("--min-nodes", type=int, default=0, help="only charts with at least this many nodes")
    ap.add_argument("--no-warmup", action="store_true", help="do not transcribe one chart before timing")
    ap.add_argument("--no-learned", action="store_true", help="OCRTranscriber(learned=False)")
    args = ap.parse_args()

    from flowpath.datasets.febench import Benchmark
    from flowpath.io import load_image
    from flowpath.labeller import draw_labels
    from flowpath.models.base import LabelledChart
    from flowpath.transcribe import OCRTranscriber

    bench = Benchmark(args.bench)
    tr = OCRTranscriber(workers=args.workers, engine=args.engine, learned=not args.no_learned)
    if not args.no_warmup and bench.chart_ids:
        chart = bench.chart(bench.chart_ids[0])
        img = load_image(chart.image_path)
        lab, regions = draw_labels(img, list(chart.regions.values()))
        t = time.perf_counter()
        tr([LabelledChart(img, lab, regions)])
        print(f"warm-up (loads the OCR engines) {time.perf_counter() - t:.2f} s")
    rows = []
    learned_charts = 0
    for cid in bench.chart_ids:
        chart = bench.chart(cid)
        if len(chart.regions) < args.min_nodes:
            continue
        img = load_image(chart.image_path)
        lab, regions = draw_labels(img, list(chart.regions.values()))
        t, c, m = time.perf_counter(), _cpu(), time.thread_time()
        result = tr([LabelledChart(img, lab, regions)])[0]
        dt, dc, dm = time.perf_counter() - t, _cpu() - c, time.thread_time() - m
        rows.append((cid, len(regions), dt, dc, dm, result.meta.get("cpu_s", {})))
        kept = list(result.meta.get("node_engines", {}).values()).count("textrec")
        print(f"{cid:24s} nodes={len(regions):3d} {dt:6.2f} s  cpu {dc:6.2f} s  calling thread {dm:6.2f} s  "
              f"lines {result.meta.get('line_height', 0):4.1f} px  learned kept {kept}")
        learned_charts += bool(kept)
        if len(rows) >= args.limit:
            break
    if not rows:
        print("no charts")
        return 1
    secs = [r[2] for r in rows]
    nodes = sum(r[1] for r in rows)
    mid = [r for r in rows if 16 <= r[1] <= 24]
    print(f"\ncharts={len(rows)} mean={statistics.mean(secs):.2f} s/chart median={statistics.median(secs):.2f} "
          f"per-node={sum(secs) / nodes:.3f} s cpu={statistics.mean(r[3] for r in rows):.2f} s/chart "
          f"workers={args.workers} engine={args.engine}")
    if mid:
        print(f"16-24-node charts: n={len(mid)} mean={statistics.mean(r[2] for r in mid):.2f} s/chart "
              f"cpu={statistics.mean(r[3] for r in mid):.2f} s/chart "
              f"calling thread={statistics.mean(r[4] for r in mid):.2f} s/chart")
        stages = {k: statistics.mean(r[5].get(k, 0.0) for r in mid) for k in mid[0][5]}
        rest = statistics.mean(r[3] for r in mid) - sum(stages.values())
        print("  CPU s/chart by step: " + " ".join(f"{k}={v:.3f}" for k, v in stages.items())
              + f" tesseract+other threads={rest:.3f}")
    print(f"learned recogniser: {'loaded' if 'torch' in sys.modules else 'not loaded (no small print)'}, "
          f"its reading kept on {learned_charts} of {len(rows)} charts")
    print(f"load average {os.getloadavg()[0]:.1f} (2 idle cores: compare wall; else CPU seconds)")
    return 0


def _cpu() -> float:
    """CPU seconds of this process (all threads) and its finished children."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


if __name__ == "__main__":
    raise SystemExit(main())
