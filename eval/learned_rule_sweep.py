"""Compare learned-recogniser checkpoints and settings of the small-print rule on recorded readings.

    python eval/ocr_node_readings.py /work/data/gvword6_gv --as-needed --textrec-extra new=CHECKPOINT \\
        --out runs/tr/gvword6_gv.old.jsonl
    python eval/learned_rule_sweep.py runs/tr/gvword6_gv runs/tr/ocrhand_tune --models old,new \\
        --guard ocrhand_tune

Each SET argument names ``SET.MODEL.jsonl`` files written by `eval/ocr_node_readings.py`; the
first model's file holds the tesseract and rapidocr readings (steps 1-2 of
`flowpath.transcribe.ocr.choice`) and that model's ``textrec``; another model's readings are in
the same records (``--textrec-extra MODEL=DIR``) or in its own ``SET.MODEL.jsonl``. Prints per set word F1 of
tesseract, steps 1-2, each model alone and each model under the rule as shipped (`choice`'s
constants), word F1 per chart line-height band, and then, for the last model, the settings of
the rule (line-height window, margin against tesseract, floor) that raise the other sets most
while no ``--guard`` set (clean renders, handwriting) loses. Nothing is read again: a sweep
over hundreds of settings takes seconds.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ocr_node_readings import f1, overlap, steps_1_2, takes_learned  # noqa: E402

#: line-height bands (px) of the per-band table
_BANDS = (0.0, 7.0, 8.0, 8.5, 10.0, 12.0, 14.0, 16.0, 20.0, 1e9)
#: the grid of the sweep
_FROM = (6.0, 7.0, 7.5, 8.0, 8.5)
_BELOW = (14.0, 16.0, 18.0, 1e9)
_MARGIN = (-0.25, -0.2, -0.15, -0.1, -0.05, 0.0)
_FLOOR = (0.7, 0.75, 0.8, 0.85, 0.9)


def load(stem: Path, models: list[str]) -> list[dict[str, Any]]:
    """The first model's records with every model's learned reading under ``textrec:MODEL``: from
    the record itself (``--textrec-extra MODEL=DIR``; the first model: ``textrec``) or from
    ``STEM.MODEL.jsonl``."""
    records = [json.loads(line) for line in Path(f"{stem}.{models[0]}.jsonl").read_text(encoding="utf-8").splitlines()]
    for model in models:
        key = f"textrec:{model}"
        if all(key in r for r in records):
            continue
        if model == models[0]:
            for r in records:
                r[key] = r["textrec"]
            continue
        path = Path(f"{stem}.{model}.jsonl")
        other = {(r["chart"], r["node"]): r["textrec"] for r in
                 (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())}
        for r in records:
            r[key] = other.get((r["chart"], r["node"]), {"text": "", "conf": 0.0})
    return records


def apply_rule(records: list[dict[str, Any]], first: dict[int, tuple[str, str, float]], model: str,
               small_from: float, small_below: float, margin: float | None = None,
               floor: float | None = None) -> tuple[float, int]:
    """Word F1 after step 3 with these settings, and how many nodes took the learned reading.

    ``margin`` (None: `choice.LEARNED_MARGIN` per engine) applies against tesseract; against
    rapidocr the shipped margin stays. ``floor`` None: `choice.LEARNED_FLOOR`.
    """
    rows, taken = [], 0
    for r in records:
        name, text, conf = first[id(r)]
        learned = r[f"textrec:{model}"]
        h = r.get("line_h")
        if h is not None and small_from <= h < small_below:
            rule: dict[str, float] = {} if floor is None else {"floor": floor}
            if margin is not None and name == "tesseract":
                rule["margin"] = margin
            ok = takes_learned((name, text, conf), learned, **rule)
            if ok:
                text, taken = learned["text"], taken + 1
        rows.append(overlap(text, r["gold"]))
    return f1(rows), taken


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="+", type=Path, help="record stems: SET.MODEL.jsonl files exist")
    ap.add_argument("--models", default="old,new", help="model tags, the first with tesseract/rapidocr readings")
    ap.add_argument("--guard", default="", help="comma list of set names that must not lose (clean, hand-drawn)")
    ap.add_argument("--top", type=int, default=12, help="settings printed by the sweep (0: no sweep)")
    args = ap.parse_args()
    from flowpath.transcribe.ocr import choice

    models = args.models.split(",")
    guard = set(filter(None, args.guard.split(",")))
    data = {stem.name: load(stem, models) for stem in args.sets}
    firsts = {name: steps_1_2(rs) for name, rs in data.items()}
    shipped = (choice.SMALL_PRINT_FROM, choice.SMALL_PRINT_BELOW)

    head = ["set", "nodes", "in window", "tesseract", "steps 1-2"]
    head += [f"{m} alone" for m in models] + [f"{m} rule" for m in models]
    print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for name, rs in data.items():
        first = firsts[name]
        cells = [name, str(len(rs)), str(sum(1 for r in rs if r.get("line_h") is not None
                                            and shipped[0] <= r["line_h"] < shipped[1]))]
        cells.append(f"{f1([overlap(r['tesseract']['text'], r['gold']) for r in rs]):.3f}")
        cells.append(f"{f1([overlap(first[id(r)][1], r['gold']) for r in rs]):.3f}")
        cells += [f"{f1([overlap(r[f'textrec:{m}']['text'], r['gold']) for r in rs]):.3f}" for m in models]
        for m in models:
            score, taken = apply_rule(rs, first, m, *shipped)
            cells.append(f"{score:.3f} ({taken})")
        print("| " + " | ".join(cells) + " |")

    print("\nper chart line-height band (all sets): nodes, steps 1-2, then each model alone and under the "
          "shipped margin/floor with the window opened to the band")
    everything = [(name, r) for name, rs in data.items() for r in rs]
    for lo, hi in itertools.pairwise(_BANDS):
        band = [(n, r) for n, r in everything if r.get("line_h") is not None and lo <= r["line_h"] < hi]
        if not band:
            continue
        base = f1([overlap(firsts[n][id(r)][1], r["gold"]) for n, r in band])
        cells = [f"{m} {f1([overlap(r[f'textrec:{m}']['text'], r['gold']) for _, r in band]):.3f}" for m in models]
        for m in models:
            rows = []
            for n, r in band:
                kept = firsts[n][id(r)]
                rows.append(overlap(r[f"textrec:{m}"]["text"] if takes_learned(kept, r[f"textrec:{m}"]) else kept[1],
                                    r["gold"]))
            cells.append(f"{m} rule {f1(rows):.3f}")
        sets = sorted({n for n, _ in band})
        print(f"[{lo:g}, {hi:g}) px: {len(band):4d} nodes, steps 1-2 {base:.3f}; " + ", ".join(cells)
              + f"  ({', '.join(sets)})")

    if args.top <= 0:
        return 0
    model = models[-1]
    base = {name: f1([overlap(firsts[name][id(r)][1], r["gold"]) for r in rs]) for name, rs in data.items()}
    results = []
    for small_from, small_below, margin, floor in itertools.product(_FROM, _BELOW, _MARGIN, _FLOOR):
        gains = {name: apply_rule(rs, firsts[name], model, small_from, small_below, margin, floor)[0] - base[name]
                 for name, rs in data.items()}
        worst_guard = min((gains[g] for g in guard if g in gains), default=0.0)
        gain = sum(v for k, v in gains.items() if k not in guard) / max(1, len(set(gains) - guard))
        results.append((worst_guard >= -1e-9, gain, worst_guard, (small_from, small_below, margin, floor), gains))
    results.sort(key=lambda x: (x[0], x[1]), reverse=True)
    print(f"\nsweep for {model}: mean word-F1 gain over steps 1-2 on the unguarded sets, guards ({', '.join(sorted(guard))}) "
          "never lower; settings (from, below, margin vs tesseract, floor)")
    for ok, gain, worst, setting, gains in results[:args.top]:
        print(f"{'ok ' if ok else 'LOW'} {gain:+.4f} guard min {worst:+.4f} {setting}  "
              + " ".join(f"{k} {v:+.3f}" for k, v in gains.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
