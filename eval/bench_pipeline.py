"""Whole-pipeline timing: seconds per chart (segment + label + transcribe) and per question
(reasoning alone, and end to end with each chart's parse shared by its questions).

    .venv/bin/python eval/bench_pipeline.py                      # the embedded examples
    .venv/bin/python eval/bench_pipeline.py --bench ../shared/data/febench_dev --charts 10

Prints one table; figures depend on the machine (the project's reference: 2 shared cores).
Also times the reasoner alone on gold graphs (oracle), the offline reasoner's target being
<= 50 ms per question.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _stats(xs: list[float]) -> str:
    if not xs:
        return "n/a"
    xs = sorted(xs)
    p90 = xs[min(len(xs) - 1, int(0.9 * len(xs)))]
    return (f"mean {1000 * statistics.mean(xs):8.1f} ms | median {1000 * statistics.median(xs):8.1f} ms"
            f" | p90 {1000 * p90:8.1f} ms | n={len(xs)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=str(Path(__file__).resolve().parents[1] / "examples"))
    ap.add_argument("--charts", type=int, default=None, help="only the first N charts")
    ap.add_argument("--segmenter", default="default")
    ap.add_argument("--transcriber", default="default")
    ap.add_argument("--reasoner", default="default")
    args = ap.parse_args()

    from flowpath.datasets.febench import Benchmark
    from flowpath.evaluation.attribution import oracle_parse
    from flowpath.pipeline import FlowPath, reason_on

    bench = Benchmark(args.bench)
    chart_ids = sorted({q.chart for q in bench.questions})[: args.charts]
    by_chart = {c: [q for q in bench.questions if q.chart == c] for c in chart_ids}
    t = time.perf_counter()
    fp = FlowPath.from_names(args.segmenter, args.transcriber, args.reasoner)
    t_build = time.perf_counter() - t

    # reasoner alone on gold graphs; the first call (lazy imports, caches) is reported apart
    oracle_times = []
    cold = None
    if chart_ids:
        q0 = by_chart[chart_ids[0]][0]
        cold = reason_on(fp.reasoner, oracle_parse(bench.chart(chart_ids[0])), q0.question,
                         q0.answer).timings["reason"]
    for c in chart_ids:
        parsed = oracle_parse(bench.chart(c))
        for q in by_chart[c]:
            oracle_times.append(reason_on(fp.reasoner, parsed, q.question, q.answer).timings["reason"])

    stage: dict[str, list[float]] = {}
    parse_times, reason_times, failures = [], [], 0
    n_q = 0
    t_all = time.perf_counter()
    for c in chart_ids:
        chart = bench.chart(c)
        try:
            parsed = fp.parse(chart.image_path)
        except Exception as exc:  # keep timing the others
            failures += 1
            print(f"  {c}: parse failed: {exc}", file=sys.stderr)
            continue
        for k, v in parsed.timings.items():
            stage.setdefault(k, []).append(v)
        parse_times.append(parsed.timings["total"])
        for q in by_chart[c]:
            att = fp.attribute(parsed, q.question, q.answer)
            reason_times.append(att.timings["reason"])
            n_q += 1
        fp.clear_cache()
    wall = time.perf_counter() - t_all

    print(f"bench {args.bench}: {len(chart_ids)} charts, {n_q} questions, {failures} parse failures")
    print(f"components: {fp.describe()} (built in {t_build:.2f} s)")
    print(f"{'parse per chart':28s} {_stats(parse_times)}")
    for k in ("load", "segment", "label", "transcribe"):
        if k in stage:
            print(f"{'  ' + k:28s} {_stats(stage[k])}")
    print(f"{'reason per question':28s} {_stats(reason_times)}")
    print(f"{'reason per question (gold)':28s} {_stats(oracle_times)}"
          + (f" (first call {1000 * cold:.0f} ms)" if cold is not None else ""))
    if n_q:
        print(f"{'end to end per question':28s} {1000 * wall / n_q:8.1f} ms "
              f"(wall {wall:.1f} s / {n_q} questions; parse shared by a chart's questions)")
    if chart_ids:
        print(f"{'end to end per chart':28s} {1000 * wall / len(chart_ids):8.1f} ms")


if __name__ == "__main__":
    main()
