"""Train the offline reasoner's learned node scorer on generated QA; write its JSON weights.

Every statement of a benchmark-layout folder (``python -m data_gen.qa --hard``) is run through
the rules of `flowpath.reason.OfflineReasoner`; each candidate node (`flowpath.reason.scorer`)
becomes one row: its cues, labelled by gold membership. One scikit-learn logistic regression per
question type is fitted on the training folders; the regularisation and the decision threshold
are chosen on a validation folder of other seeds by the attribution F1 of the sets they select
(gold nodes outside the candidates count as misses). scikit-learn is needed here only: the
library reads the weights with numpy.

    python -m data_gen.qa --out /work/data/reason_hard_train --charts 1200 --seed 100 --hard
    python -m data_gen.qa --out /work/data/reason_hard_val --charts 300 --seed 200 --hard
    python training/train_node_scorer.py --train /work/data/reason_hard_train \\
        --val /work/data/reason_hard_val --out flowpath/resources/node_scorer/node_scorer.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from flowpath.datasets import Benchmark
from flowpath.evaluation.attribution import oracle_parse
from flowpath.models.base import ReasoningRequest
from flowpath.reason import OfflineReasoner
from flowpath.reason.scorer import FEATURES, TypeModel

LEARNED_TYPES = ("fact_retrieval", "applied_scenario", "flow_referential")


def extract(folders: list[Path], reasoner: OfflineReasoner) -> list[dict[str, Any]]:
    """One record per statement of a learned type: candidates, cues, gold and the rules' set."""
    out = []
    for folder in folders:
        data = Benchmark(folder)
        graphs: dict[str, Any] = {}
        for q in sorted(data.questions, key=lambda q: q.chart):
            if q.chart not in graphs:
                graphs[q.chart] = oracle_parse(data.chart(q.chart)).graph
            qtype, rule, cands, x = reasoner.features(ReasoningRequest(graphs[q.chart], q.question, q.answer))
            if qtype in LEARNED_TYPES and cands:
                out.append({"type": qtype, "rule": rule, "cands": cands, "x": x, "gold": set(q.gold)})
    return out


def set_f1(records: list[dict[str, Any]], chosen: list[set[str]]) -> float:
    """Micro F1 of the chosen sets against gold (summed TP/FP/FN, as the benchmark scores)."""
    tp = fp = fn = 0
    for r, c in zip(records, chosen, strict=True):
        tp += len(c & r["gold"])
        fp += len(c - r["gold"])
        fn += len(r["gold"] - c)
    return 2 * tp / max(2 * tp + fp + fn, 1)


def select(model: TypeModel, records: list[dict[str, Any]]) -> list[set[str]]:
    out = []
    for r in records:
        p = model.proba(r["x"])
        keep = {c for c, v in zip(r["cands"], p, strict=True) if v >= model.threshold}
        out.append(keep or {r["cands"][int(np.argmax(p))]})
    return out


def fit(train: list[dict[str, Any]], val: list[dict[str, Any]], cs: list[float],
        thresholds: np.ndarray, seed: int) -> tuple[TypeModel, dict[str, float]]:
    """The (C, threshold) pair with the best validation F1, refitted on train only."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    x = np.vstack([r["x"] for r in train])
    y = np.concatenate([[c in r["gold"] for c in r["cands"]] for r in train]).astype(int)
    scaler = StandardScaler().fit(x)
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    best: tuple[float, TypeModel, float] | None = None
    for c in cs:
        lr = LogisticRegression(C=c, max_iter=2000, random_state=seed).fit((x - scaler.mean_) / scale, y)
        for t in thresholds:
            m = TypeModel(lr.coef_[0].astype(float), float(lr.intercept_[0]), scaler.mean_.astype(float), scale, float(t))
            f = set_f1(val, select(m, val))
            if best is None or f > best[0] + 1e-9:
                best = (f, m, c)
    assert best is not None
    f, model, c = best
    return model, {"val_f1": 100 * f, "C": c,
                   "val_rules_f1": 100 * set_f1(val, [set(r["rule"]) for r in val]),
                   "train_rows": int(len(y)), "train_positive": int(y.sum())}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--train", type=Path, nargs="+", required=True, help="benchmark-layout folders to learn from")
    p.add_argument("--val", type=Path, nargs="+", required=True, help="folders (other seeds) choosing C and threshold")
    p.add_argument("--out", type=Path, required=True, help="weights JSON to write")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--C", type=float, nargs="+", default=[0.01, 0.1, 1.0, 10.0])
    args = p.parse_args(argv)
    for d in args.train + args.val:
        if not (d / "questions.jsonl").is_file():
            p.error(f"{d}: no questions.jsonl (make one with python -m data_gen.qa --hard)")
    reasoner = OfflineReasoner(semantic=True, learned=False)
    t0 = time.process_time()
    train, val = extract(args.train, reasoner), extract(args.val, reasoner)
    print(f"cues of {len(train)} + {len(val)} statements in {time.process_time() - t0:.0f} CPU s", flush=True)
    types: dict[str, Any] = {}
    figures: dict[str, Any] = {}
    for qtype in LEARNED_TYPES:
        tr = [r for r in train if r["type"] == qtype]
        va = [r for r in val if r["type"] == qtype]
        if not tr or not va:
            continue
        model, fig = fit(tr, va, args.C, np.round(np.arange(0.2, 0.81, 0.05), 2), args.seed)
        types[qtype] = {"coef": model.coef.tolist(), "intercept": model.intercept, "mean": model.mean.tolist(),
                        "scale": model.scale.tolist(), "threshold": model.threshold}
        figures[qtype] = fig
        print(f"{qtype:<18} rules F1 {fig['val_rules_f1']:.2f} -> learned {fig['val_f1']:.2f} "
              f"(C={fig['C']}, threshold {model.threshold}, {fig['train_rows']} rows)", flush=True)
    meta = {"train": [str(d) for d in args.train], "val": [str(d) for d in args.val], "seed": args.seed,
            "command": "python training/train_node_scorer.py " + " ".join(sys.argv[1:] if argv is None else argv),
            "validation": figures}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"features": list(FEATURES), "types": types, "meta": meta}, indent=1) + "\n",
                        encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
