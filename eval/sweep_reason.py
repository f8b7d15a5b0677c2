"""Choose an offline-reasoner setting on generated QA: score each candidate, print the table.

Every rule and weight of the offline reasoner is chosen here on ``python -m data_gen.qa``
output (never on the benchmark's dev slice). The embedding memo is filled once in large
batches, so candidates differing only in how similarity is blended cost no model time.

    python -m data_gen.qa --out /tmp/qa_hard --charts 300 --seed 1 --hard
    python eval/sweep_reason.py /tmp/qa_hard --weights 0 0.2 0.35 0.5
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from flowpath.mermaid import parse_mermaid
from flowpath.reason import OfflineReasoner
from flowpath.reason.text import SemanticBlend

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_reason import run  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("bench", type=Path)
    p.add_argument("--weights", type=float, nargs="+", default=[0.0, 0.2, 0.35, 0.5])
    p.add_argument("--floors", type=float, nargs="+", default=[0.2])
    p.add_argument("--ceilings", type=float, nargs="+", default=[0.75])
    args = p.parse_args(argv)
    from flowpath.reason.semantic import shared_encoder

    encoder = shared_encoder()
    if encoder is None:
        p.error("the semantic extra is not installed")
    qs = [json.loads(line) for line in (args.bench / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    texts = [q[k] for q in qs for k in ("question", "answer")]
    for f in sorted((args.bench / "charts").glob("*.json")):
        texts += [n.text or n.id for n in parse_mermaid(json.loads(f.read_text(encoding="utf-8"))["mermaid"], strict=False)]
    encoder.memo_size = len(texts) + 1
    encoder.encode(texts, batch_size=128)
    print(f"{'weight':>7}{'floor':>7}{'ceil':>7}{'overall':>9}{'fact':>7}{'scen':>7}{'flow':>7}{'topo':>7}")
    for w in args.weights:
        for lo in args.floors:
            for hi in args.ceilings:
                r = OfflineReasoner(encoder=encoder, blend=SemanticBlend(weight=w, floor=lo, ceiling=hi)) if w else \
                    OfflineReasoner(semantic=False)
                t = run(args.bench, reasoner=r)["table"]
                f1 = [100 * t.get(k, {}).get("f1", 0.0) for k in
                      ("overall", "fact_retrieval", "applied_scenario", "flow_referential", "topological")]
                print(f"{w:>7.2f}{lo:>7.2f}{hi:>7.2f}" + "".join(f"{v:>9.2f}" if i == 0 else f"{v:>7.2f}" for i, v in enumerate(f1)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
