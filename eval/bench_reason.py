"""Reasoner benchmark in oracle mode: gold Mermaid in, node ids out; P/R/F1 and time per question.

In oracle mode the node ids are the gold Mermaid ids and the regions are the gold regions, so the
benchmark's IoU mapping reduces to id matching: precision/recall/F1 are micro-averaged over
questions from set overlap of predicted and gold ids (TP/FP/FN summed per question).

    python eval/bench_reason.py ../shared/data/febench_dev          # dev check only
    python -m data_gen.qa --out /tmp/qa --charts 300 && python eval/bench_reason.py /tmp/qa
    python eval/bench_reason.py DIR --reasoner offline --json out.json --errors 20

Prints a table: overall and per question type, plus reasoning milliseconds per question (mean,
median, p95; chart parsing excluded, as in the pipeline where a chart is parsed once).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from flowpath.mermaid import parse_mermaid
from flowpath.models.base import Reasoner, ReasoningRequest
from flowpath.reason import classify_question, make_reasoner


def _prf(tp: int, fp: int, fn: int) -> dict[str, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}


def corrupt_texts(chart: Any, rate: float, rng: random.Random) -> Any:
    """A copy of ``chart`` whose node texts carry OCR-like character errors (substitution,
    deletion, merged words) at ``rate`` per character: how robust is matching to a noisy
    transcription?"""
    out = chart.copy()
    confusable = {"l": "1", "1": "l", "o": "0", "0": "o", "e": "c", "c": "e", "m": "rn", "i": "l", "s": "5", "a": "o"}
    for node in out:
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
        node.text = "".join(chars)
    return out


def run(bench: Path, reasoner_name: str = "offline", limit: int | None = None, noise: float = 0.0,
        seed: int = 0, reasoner: Reasoner | None = None) -> dict[str, Any]:
    """Score a reasoner on a benchmark-layout folder in oracle mode (optionally with noisy node
    texts, ``noise`` = per-character error rate); ``reasoner`` overrides ``reasoner_name``."""
    rng = random.Random(seed)
    reasoner = reasoner or make_reasoner(reasoner_name)
    questions = [json.loads(line) for line in (bench / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    if limit:
        questions = questions[:limit]
    questions.sort(key=lambda q: q["chart"])  # one parse per chart
    charts: dict[str, Any] = {}
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])  # tp fp fn n exact
    times: list[float] = []
    type_hits = 0
    records = []
    for q in questions:
        if q["chart"] not in charts:
            rec = json.loads((bench / "charts" / f"{q['chart']}.json").read_text(encoding="utf-8"))
            charts[q["chart"]] = parse_mermaid(rec["mermaid"], strict=False)
            if noise > 0:
                charts[q["chart"]] = corrupt_texts(charts[q["chart"]], noise, rng)
        chart = charts[q["chart"]]
        t0 = time.perf_counter()
        res = reasoner(ReasoningRequest(chart, q["question"], q["answer"]))
        times.append(time.perf_counter() - t0)
        pred, gold = set(res.node_ids), set(q["gold"])
        tp = len(pred & gold)
        for key in ("overall", q.get("type", "unknown"), f"domain:{q.get('domain', '?')}"):
            c = counts[key]
            c[0] += tp
            c[1] += len(pred) - tp
            c[2] += len(gold) - tp
            c[3] += 1
            c[4] += int(pred == gold)
        type_hits += int(classify_question(q["question"], q["answer"]) == q.get("type"))
        records.append({"id": q["id"], "type": q.get("type"), "gold": sorted(gold), "pred": res.node_ids,
                        "error": res.error, "reason": res.reason})
    ms = [t * 1000 for t in times]
    table = {k: {**_prf(*v[:3]), "questions": v[3], "exact_match": v[4] / v[3]} for k, v in counts.items()}
    return {"bench": str(bench), "reasoner": reasoner_name, "questions": len(questions), "table": table,
            "type_accuracy": type_hits / max(len(questions), 1),
            "ms_per_question": {"mean": statistics.fmean(ms) if ms else 0.0,
                                "median": statistics.median(ms) if ms else 0.0,
                                "p95": sorted(ms)[int(0.95 * (len(ms) - 1))] if ms else 0.0},
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
    p.add_argument("--noise", type=float, default=0.0,
                   help="per-character OCR-like error rate applied to node texts (robustness check)")
    args = p.parse_args(argv)
    if not (args.bench / "questions.jsonl").is_file():
        p.error(f"{args.bench}: no questions.jsonl")
    reasoner = None
    if args.reasoner == "offline":
        from flowpath.reason import OfflineReasoner

        reasoner = OfflineReasoner(semantic={"auto": None, "on": True, "off": False}[args.semantic])
    cpu0 = time.process_time()
    rep = run(args.bench, args.reasoner, args.limit, noise=args.noise, reasoner=reasoner)
    cpu = time.process_time() - cpu0
    print(f"{rep['bench']}  reasoner={rep['reasoner']}  noise={args.noise}  questions={rep['questions']}  "
          f"type-recognition accuracy={rep['type_accuracy']:.3f}")
    print(f"{'slice':<22}{'n':>6}{'P':>8}{'R':>8}{'F1':>8}{'exact':>8}")
    for k in sorted(rep["table"], key=lambda k: (k != "overall", k.startswith("domain:"), k)):
        s = rep["table"][k]
        print(f"{k:<22}{s['questions']:>6}{100 * s['precision']:>8.2f}{100 * s['recall']:>8.2f}"
              f"{100 * s['f1']:>8.2f}{100 * s['exact_match']:>8.1f}")
    t = rep["ms_per_question"]
    print(f"reasoning time per question: mean {t['mean']:.2f} ms, median {t['median']:.2f} ms, p95 {t['p95']:.2f} ms")
    loaded = getattr(reasoner, "_encoder", None) is not None
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
