"""Error analysis by stage of the segmenter on generated photo sets: where each missed node is lost.

Each chart of a photo set (``data_gen --photo 1``) is made again from the clean render of the
same chart (the same generator run with ``--photo 0`` writes it: the chart and its style do not
depend on the photo pass) and the photo's own seed, with the photo's degradations switched on
one at a time (`data_gen.photo.photo_scan`'s ``stages``), and the segmenter is run on each:

1. ``clean``: the clean render through the sheet segmenter (`flowpath.segment.page.segment_sheet`,
   as a perfectly cleaned page would be): a node lost here is the **segmenter's**;
2. ``geometry``: plain paper in perspective on the desk, nothing else: lost here = **page quad,
   rectification, cleaning of a plain page**;
3. ``+ruling``: the paper's lines: lost here = **ruling removal**;
4. ``+light``: uneven light and shadow: lost here = **lighting normalisation**;
5. ``+camera``: blur, noise and JPEG, i.e. the photo itself: lost here = **blur / denoise**.

A node counts as lost at the first stage whose segmentation does not match it at box IoU 0.5
(later stages may find it again by chance; those are counted as ``regained``). The full photo's
sheet corners are also compared with the generator's (``corner_px``).

    python eval/photo_stages.py /work/data/seg_tune_photo:/work/data/photo4_clean_tp ...

Tune on tuning sets only; eval sets are for before/after figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

STAGES: list[tuple[str, frozenset[str] | None]] = [
    ("clean", None),
    ("geometry", frozenset()),
    ("+ruling", frozenset({"ruling"})),
    ("+light", frozenset({"ruling", "light"})),
    ("+camera", frozenset({"ruling", "light", "camera"})),
]


def _matched(pred: list[Any], gold: list[Any], iou: float = 0.5) -> set[int]:
    from flowpath.metrics.matching import match_regions

    return {g for _, g, _ in match_regions(pred, gold, iou)} if pred and gold else set()


def _corner_error(page: Any, record: dict[str, Any]) -> float | None:
    import numpy as np

    corners = (record.get("meta") or {}).get("photo", {}).get("page_corners")
    if page is None or not corners:
        return None
    return float(np.linalg.norm(page.corners - np.asarray(corners, float), axis=1).max())


def analyse(photo_dir: Path, clean_dir: Path, seg: Any, limit: int | None) -> list[dict[str, Any]]:
    """One row per chart: gold count, per-stage matched sets, loss stage of each gold node."""
    from data_gen.photo import photo_scan
    from flowpath.datasets.febench import Benchmark
    from flowpath.io import load_image
    from flowpath.segment.page import find_page, segment_sheet

    rows = []
    clean_bench = Benchmark(clean_dir)
    for c in list(Benchmark(photo_dir).charts())[:limit]:
        record = json.loads(c.image_path.with_suffix(".json").read_text(encoding="utf-8"))
        clean_path = clean_dir / "charts" / c.image_path.name
        if not clean_path.exists():
            print(f"{c.id}: no clean render in {clean_dir}, skipped", flush=True)
            continue
        clean_img = load_image(clean_path)
        clean_rec = json.loads(clean_path.with_suffix(".json").read_text(encoding="utf-8"))
        clean_gold = clean_bench.chart(c.id).regions
        ids = list(c.regions)
        ann = {"nodes": {k: {"polygon": v["polygon"], "bbox": v["bbox"], "label_box": v.get("label_box"),
                             "text": v.get("text", "")} for k, v in clean_rec["nodes"].items()},
               "edges": clean_rec["edges"], "clusters": clean_rec.get("clusters", [])}
        seed = record["meta"]["degrade"]["seed"]
        found: dict[str, set[int]] = {}
        page = None
        for name, stages in STAGES:
            if stages is None:
                pred, _ = segment_sheet(seg, clean_img)
                gold = [clean_gold[k] for k in ids]
            else:
                img, _ = photo_scan(clean_img, ann, random.Random(seed), stages=stages,
                                    hard=bool(record["meta"]["degrade"].get("hard", False)))
                pred = seg([img])[0]
                gold = [c.regions[k] for k in ids]
                if name == "+camera":
                    page = find_page(img)
            found[name] = _matched(pred, gold)
        lost: dict[str, str] = {}
        for gi, k in enumerate(ids):
            stage = next((n for n, _ in STAGES if gi not in found[n]), "found")
            if stage != "found" and gi in found["+camera"]:
                stage = "regained"
            lost[k] = stage
        row = {"set": photo_dir.name, "id": c.id, "family": record["style"]["family"],
               "ruling": record["meta"]["photo"]["ruling"], "blur": record["meta"]["photo"]["blur"],
               "gold": len(ids), "found": {n: len(v) for n, v in found.items()},
               "lost": {k: v for k, v in lost.items() if v not in ("found",)},
               "seen": {k: "".join("1" if gi in found[n] else "0" for n, _ in STAGES)
                        for gi, k in enumerate(ids)},
               "corner_px": _corner_error(page, record)}
        rows.append(row)
        print(f"{c.id} {row['family']:<11} {row['ruling']:<7} blur {row['blur']:.2f} "
              f"corner {row['corner_px'] if row['corner_px'] is None else round(row['corner_px'], 1)}: "
              + " ".join(f"{n} {len(v)}/{len(ids)}" for n, v in found.items()), flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("pairs", nargs="+", help="PHOTO_SET:CLEAN_SET folder pairs (same seed and options)")
    p.add_argument("--limit", type=int, default=None, help="first N charts of each set")
    p.add_argument("--json", type=Path, default=None, help="write per-chart rows here")
    args = p.parse_args(argv)
    import logging

    from flowpath.segment import default_segmenter

    logging.disable(logging.WARNING)
    seg = default_segmenter()
    cpu0 = time.process_time()
    rows: list[dict[str, Any]] = []
    for pair in args.pairs:
        photo, _, clean = pair.partition(":")
        rows += analyse(Path(photo), Path(clean), seg, args.limit)
    gold = sum(r["gold"] for r in rows)
    print(f"\n{len(rows)} charts, {gold} gold nodes; found per stage (R@0.5):")
    for name, _ in STAGES:
        n = sum(r["found"][name] for r in rows)
        print(f"  {name:<9} {n:4d}  {n / max(gold, 1):.3f}")
    for key in ("all", "handdrawn", "black_white"):
        sel = [r for r in rows if key == "all" or r["family"] == key]
        tally = Counter(v for r in sel for v in r["lost"].values())
        print(f"lost at ({key}, {sum(r['gold'] for r in sel)} gold): {dict(tally.most_common())}")
    # a node the photo misses is put down to the stage after the last one that found it
    names = [n for n, _ in STAGES]
    final: Counter[tuple[str, str]] = Counter()
    for r in rows:
        for seen in r.get("seen", {}).values():
            if seen[-1] == "0":
                last = seen.rfind("1")
                final[(r["family"], "segmenter (never found)" if last < 0 else names[last + 1])] += 1
    print(f"missed in the photo, by the stage after the last that found it: {dict(sorted(final.items()))}")
    by_ruling = Counter((r["ruling"], v) for r in rows for v in r["lost"].values())
    print(f"lost by paper: {dict(sorted(by_ruling.items()))}")
    corners = [r["corner_px"] for r in rows if r["corner_px"] is not None]
    print(f"sheet found in {len(corners)}/{len(rows)}; corner error px max {max(corners, default=0):.1f}")
    cpu = time.process_time() - cpu0
    print(f"CPU s: {cpu:.1f}; load: {os.getloadavg()}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
