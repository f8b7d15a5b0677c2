"""Per-renderer / per-style-family figures of today's pipeline on generated evaluation sets.

``flowpath eval segment/transcribe`` break their figures down by style family, renderer and
(family, renderer) pair, one command each. This script prints segmentation and transcription
side by side in one compact table, for several sets at once and for any chart-JSON key (e.g. a
``style`` key such as ``font``): it splits a set by that key into sub-folders of links (the
benchmark layout, nothing copied) and runs the very library calls those commands run,
`evaluate_segmenter` and `evaluate_transcription`, on each part.

    python eval/bench_gen_sets.py /work/data/gen_wild_eval --by renderer,family+renderer
    python eval/bench_gen_sets.py /work/data/gen_handdrawn_eval /work/data/gen_photo_eval --by family

Prints one row per (set, group): charts, node recall/precision at IoU 0.7 and 0.5, node-text
word F1, directed edge F1, seconds per chart; ``--json FILE`` writes them too.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def group_of(record: dict[str, Any], key: str) -> str:
    """The chart's group under ``key``: ``renderer``, ``family`` (style family), any top-level
    or ``style`` key of the chart JSON, or several joined by ``+`` (``family+renderer``)."""
    if "+" in key:
        return "+".join(group_of(record, k) for k in key.split("+"))
    if key == "family":
        return str((record.get("style") or {}).get("family", "default"))
    if key in record:
        return str(record[key])
    return str((record.get("style") or {}).get(key, "?"))


def split_set(bench: Path, key: str, into: Path) -> dict[str, Path]:
    """Sub-folders of ``into``, one per group, whose ``charts/`` link to ``bench``'s files."""
    parts: dict[str, list[Path]] = defaultdict(list)
    for js in sorted((bench / "charts").glob("*.json")):
        parts[group_of(json.loads(js.read_text(encoding="utf-8")), key)].append(js)
    out = {}
    for name, files in parts.items():
        d = into / f"{key}={name}"
        (d / "charts").mkdir(parents=True)
        for js in files:
            for f in (js, js.with_suffix(".png")):
                os.symlink(f.resolve(), d / "charts" / f.name)
        out[name] = d
    return out


def measure(bench: Path, transcribe: bool, gold_regions: bool = False, transcriber: Any = None) -> dict[str, Any]:
    from flowpath.evaluation.segmentation import evaluate_segmenter
    from flowpath.evaluation.transcription import evaluate_transcription
    from flowpath.segment import default_segmenter

    t0 = time.perf_counter()
    if gold_regions:  # transcription alone: no segmentation figures
        row: dict[str, Any] = {"charts": len(list((bench / "charts").glob("*.json")))}
    else:
        seg = evaluate_segmenter(default_segmenter(), bench, coco=False).summary["overall"]
        row = {"charts": seg["images"], "R@0.7": seg["recall@0.7"], "P@0.7": seg["precision@0.7"],
               "R@0.5": seg["recall@0.5"], "P@0.5": seg["precision@0.5"]}
    if transcribe:
        rep = evaluate_transcription(bench, transcriber, gold_regions=gold_regions)
        row.update({"word_F1": rep["overall"].get("word_f1"), "edge_F1": rep["overall"].get("edge_f1"),
                    "tr_failed": len(rep["failures"])})
    row["s/chart"] = (time.perf_counter() - t0) / max(1, row["charts"])
    return row


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sets", type=Path, nargs="+", help="benchmark-layout folders made by data_gen")
    p.add_argument("--by", default="family", help="comma list of chart keys to group by (renderer, family, family+renderer)")
    p.add_argument("--no-overall", action="store_true", help="skip the whole-set row")
    p.add_argument("--segment-only", action="store_true", help="no transcription (fast)")
    p.add_argument("--gold-regions", action="store_true", help="transcribe the gold node regions (no segmentation)")
    p.add_argument("--only", default="", help="keep only groups whose value starts with this (e.g. wild)")
    p.add_argument("--json", type=Path, default=None, help="also write the rows here")
    p.add_argument("--no-learned-ocr", action="store_true",
                   help="OCRTranscriber(learned=False): no learned recogniser on small print (the default before)")
    args = p.parse_args(argv)
    transcriber = None
    if args.no_learned_ocr:
        from flowpath.transcribe.ocr import OCRTranscriber

        transcriber = OCRTranscriber(learned=False)
    import logging

    logging.disable(logging.WARNING)
    rows = []
    for bench in args.sets:
        if not (bench / "charts").is_dir():
            p.error(f"{bench}: not a benchmark-layout folder (no charts/)")
        groups: list[tuple[str, Path]] = [] if args.no_overall else [("overall", bench)]
        with tempfile.TemporaryDirectory(prefix="gen-sets-") as tmp:
            for key in [k.strip() for k in args.by.split(",") if k.strip()]:
                groups += [(f"{key}={g}", d) for g, d in sorted(split_set(bench, key, Path(tmp)).items())
                           if g.startswith(args.only)]
            for name, d in groups:
                row = {"set": bench.name, "group": name,
                       **measure(d, not args.segment_only, gold_regions=args.gold_regions,
                                  transcriber=transcriber)}
                rows.append(row)
                print(" | ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in row.values()), flush=True)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(f"CPU s (this process): {usage.ru_utime + usage.ru_stime:.1f}; load: {os.getloadavg()}")
    cols = list(rows[0]) if rows else []
    print("\n| " + " | ".join(cols) + " |\n|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(f"{r[c]:.3f}" if isinstance(r[c], float) else str(r[c]) for c in cols) + " |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
