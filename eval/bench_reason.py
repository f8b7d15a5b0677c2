"""Reasoner benchmark in oracle mode: gold Mermaid in, node ids out; P/R/F1 and time per question.

In oracle mode the node ids are the gold Mermaid ids and the regions are the gold regions; each
question is scored by `flowpath.evaluation.attribution.score_question`, the same attribution
metric as ``flowpath eval attribution --oracle`` (micro P/R/F1, TP/FP/FN summed per question).

    python eval/bench_reason.py ../shared/data/febench_dev          # dev check only
    python -m data_gen.qa --out /tmp/qa --charts 300 && python eval/bench_reason.py /tmp/qa
    python eval/bench_reason.py DIR --reasoner offline --json out.json --errors 20

Prints a table: overall and per question type, plus reasoning milliseconds per question (wall
mean, median, p95, and mean CPU milliseconds, the figure to trust when others share the machine;
chart parsing and the embedding model's load excluded, as in the pipeline where a chart is
parsed once and the model loaded once).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from flowpath.datasets import Benchmark
from flowpath.evaluation.attribution import oracle_parse, score_question
from flowpath.graph import FlowChart
from flowpath.metrics import AttributionMetric
from flowpath.models.base import Reasoner, ReasoningRequest
from flowpath.pipeline import reason_on
from flowpath.reason import OfflineReasoner, classify_question, make_reasoner
from flowpath.reason.semantic import SentenceEncoder, onnx_available, semantic_available


def corrupt_texts(chart: Any, rate: float, rng: random.Random) -> Any:
    """A copy of ``chart`` whose node texts carry OCR-like character errors (substitution,
    deletion, merged words) at ``rate`` per character: how robust is matching to a noisy
    transcription?"""
    out = chart.copy()
    confusable = {"l": "1", "1": "l", "o": "0", "0": "o", "e": "c", "c": "e", "m": "rn", "i": "l", "s": "5", "a": "o"}
    for node in chart:
        chars = []
        for ch in node.text:
            r = rng.random()
            if r < rate / 3:
                chars.append(confusable.get(ch.lower(), ch))
            elif r < 2 * rate / 3:
                continue
            elif r < rate and ch == " ":
                continue
            else:
                chars.append(ch)
        out.add_node(dataclasses.replace(node, text="".join(chars)))
    return out


def corrupt_labels(chart: Any, rate: float, rng: random.Random) -> Any:
    """A copy of ``chart`` with the edge-label slips the transcriber makes on febench_dev
    (docs/transcription.md, "conditions"): each labelled edge loses its label (a label box not
    found or read as nothing) at ``rate``, and each unlabelled edge gets a junk label read from
    a connector fragment (``ee``, ``an``) at ``rate / 4``."""
    out = chart.copy()
    for e in chart.edges:
        r = rng.random()
        if e.label is not None and r < rate:
            out.replace_edge(e, dataclasses.replace(e, label=None))
        elif e.label is None and r < rate / 4:
            out.replace_edge(e, dataclasses.replace(e, label=rng.choice(["ee", "an", "i", "se"])))
    return out


def run(bench: Path, reasoner_name: str = "offline", limit: int | None = None, noise: float = 0.0,
        seed: int = 0, reasoner: Reasoner | None = None, label_noise: float = 0.0) -> dict[str, Any]:
    """Score a reasoner on a benchmark-layout folder in oracle mode (optionally with noisy node
    texts, ``noise`` = per-character error rate, and edge-label slips, ``label_noise``); scoring
    is flowpath's own attribution metric."""
    rng = random.Random(seed)
    reasoner = reasoner or make_reasoner(reasoner_name)  # an explicit reasoner wins
    if isinstance(reasoner, OfflineReasoner):
        # the embedding model's lazy load and first forward pass belong to start-up, not to a
        # question: spend them on a throw-away chart before the clock runs
        reasoner(ReasoningRequest(FlowChart.from_edges([("A", "B")]), "What comes after A?", "B"))
    data = Benchmark(bench)
    questions = data.questions[:limit] if limit else list(data.questions)
    questions.sort(key=lambda q: q.chart)  # one parse per chart
    parsed: dict[str, Any] = {}
    metric = AttributionMetric()
    times: list[float] = []
    cpu_times: list[float] = []  # the figure to trust on a shared, busy machine
    type_hits = 0
    records = []
    for q in questions:
        chart = data.chart(q.chart)
        if q.chart not in parsed:
            parsed[q.chart] = oracle_parse(chart)
            if noise > 0:
                parsed[q.chart].graph = corrupt_texts(parsed[q.chart].graph, noise, rng)
            if label_noise > 0:
                parsed[q.chart].graph = corrupt_labels(parsed[q.chart].graph, label_noise, rng)
        cpu0 = time.process_time()
        att = reason_on(reasoner, parsed[q.chart], q.question, q.answer)
        cpu_times.append(time.process_time() - cpu0)
        times.append(att.timings.get("reason", 0.0))
        score_question(metric, q, chart, att, parsed[q.chart])
        type_hits += int(classify_question(q.question, q.answer) == q.type)
        records.append({"id": q.id, "type": q.type, "gold": sorted(set(q.gold)), "pred": att.node_ids,
                        "error": att.error, "reason": att.reason})
    ms = [t * 1000 for t in times]
    summary = metric.summary()
    table = {"overall": summary["overall"]}
    table.update(summary.get("by_type", {}))
    table.update({f"domain:{k}": v for k, v in summary.get("by_domain", {}).items()})
    return {"bench": str(bench), "reasoner": reasoner_name, "questions": len(questions), "table": table,
            "type_accuracy": type_hits / max(len(questions), 1),
            "ms_per_question": {"mean": statistics.fmean(ms) if ms else 0.0,
                                "median": statistics.median(ms) if ms else 0.0,
                                "p95": sorted(ms)[int(0.95 * (len(ms) - 1))] if ms else 0.0},
            "cpu_ms_per_question": 1000 * statistics.fmean(cpu_times) if cpu_times else 0.0,
            "records": records}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("bench", type=Path, help="benchmark-layout folder (charts/, questions.jsonl)")
    p.add_argument("--reasoner", default="offline")
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--json", type=Path, default=None, help="write the full report (with per-question records)")
    p.add_argument("--errors", type=int, default=0, help="print this many mismatching questions")
    p.add_argument("--semantic", choices=["auto", "on", "off"], default="auto",
                   help="offline reasoner: embedding similarity (the semantic extra) when installed / required / never")
    p.add_argument("--learned", action="store_true",
                   help="offline reasoner: let the learned node scorer re-decide the rules' nodes (needs semantic matching)")
    p.add_argument("--runtime", choices=["auto", "onnx", "torch"], default="auto",
                   help="offline reasoner with semantic matching: auto = the reasoner's shared encoder "
                        "(int8 onnx when onnxruntime is installed); onnx/torch = a float encoder run there")
    p.add_argument("--int8", action="store_true",
                   help="with --runtime onnx: int8 weights")
    p.add_argument("--threads", type=int, default=None,
                   help="offline reasoner with semantic matching: intra-op threads of the encoder "
                        "(default: the reasoner's own choice, flowpath.reason.semantic.shared_encoder_threads: "
                        "$FLOWPATH_ENCODER_THREADS, else 2 on a machine with 2 or more cores)")
    p.add_argument("--noise", type=float, default=0.0,
                   help="per-character OCR-like error rate applied to node texts (robustness check)")
    p.add_argument("--label-noise", type=float, default=0.0,
                   help="share of edge labels lost (and a quarter of that of unlabelled edges given a junk "
                        "label), the transcriber's slips on febench_dev (robustness check)")
    args = p.parse_args(argv)
    if not (args.bench / "questions.jsonl").is_file():
        p.error(f"{args.bench}: no questions.jsonl")
    reasoner = None
    if args.reasoner == "offline":
        encoder = None
        if args.semantic != "off" and args.runtime != "auto" and semantic_available():
            encoder = SentenceEncoder(runtime=args.runtime, int8=args.int8, threads=args.threads or 1)
        elif args.semantic != "off" and args.threads is not None and semantic_available():
            # the shared encoder's settings (int8 onnx when installed) with more threads
            encoder = SentenceEncoder(int8=onnx_available(), threads=args.threads)
        reasoner = OfflineReasoner(semantic={"auto": None, "on": True, "off": False}[args.semantic],
                                   encoder=encoder, learned=args.learned)
    cpu0 = time.process_time()
    rep = run(args.bench, args.reasoner, args.limit, noise=args.noise, reasoner=reasoner,
              label_noise=args.label_noise)
    cpu = time.process_time() - cpu0
    print(f"{rep['bench']}  reasoner={rep['reasoner']}  noise={args.noise}  label-noise={args.label_noise}  questions={rep['questions']}  "
          f"type-recognition accuracy={rep['type_accuracy']:.3f}")
    print(f"{'slice':<22}{'n':>6}{'P':>8}{'R':>8}{'F1':>8}{'exact':>8}")
    for k in sorted(rep["table"], key=lambda k: (k != "overall", k.startswith("domain:"), k)):
        s = rep["table"][k]
        print(f"{k:<22}{s['questions']:>6}{100 * s['precision']:>8.2f}{100 * s['recall']:>8.2f}"
              f"{100 * s['f1']:>8.2f}{100 * s['exact_match']:>8.1f}")
    t = rep["ms_per_question"]
    print(f"reasoning time per question: mean {t['mean']:.2f} ms, median {t['median']:.2f} ms, p95 {t['p95']:.2f} ms "
          f"(wall); CPU {rep['cpu_ms_per_question']:.2f} ms")
    encoder = getattr(reasoner, "_encoder", None)
    loaded = ("no" if encoder is None
              else f"{encoder.runtime}{' int8' if encoder.int8 else ''}, {encoder.threads} thread(s)")
    print(f"embedding model loaded: {loaded}; CPU seconds {cpu:.1f} (model load included); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    shown = 0
    for r in rep["records"]:
        if shown >= args.errors:
            break
        if set(r["pred"]) != set(r["gold"]):
            print(f"  {r['id']} [{r['type']}] gold={r['gold']} pred={r['pred']} {r['error'] or ''}")
            shown += 1
    if args.json:
        args.json.write_text(json.dumps(rep, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
