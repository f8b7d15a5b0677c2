"""Node-segmentation error analysis on a generated set: per-group figures and one crop per error.

Runs the default (classical) segmenter once per chart, matches its regions to the gold ones
one-to-one at box IoU 0.7 (`flowpath.metrics.match_regions`, the metric's matcher), and prints
node recall / precision per group (``--by family+renderer``: a chart-JSON key, as in
`eval/bench_gen_sets.py`). With ``--crops DIR`` every missed gold node and every false region is
saved as a PNG crop (gold box green, predicted red, with a margin) named after its chart and a
guessed cause, so the error buckets can be counted and looked at:

* ``low_iou``: a region overlaps the gold node at IoU 0.5-0.7 (outline offset: border, shadow);
* ``merged``: one region covers this and another gold node;
* ``split``: several regions lie inside the gold node, none matching it;
* ``missed``: nothing overlaps it;
* ``false``: a region that overlaps no gold node at IoU >= 0.5 (edge label, shadow, frame...).

    python eval/seg_errors.py /work/data/seg_tune_wild --by family+renderer --crops /tmp/crops

Tune on tuning sets only; the eval sets are for before/after figures.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _cause(gi: int, gold: list[Any], pred: list[Any], iou: Any) -> str:
    """Guessed cause of a missed gold node ``gi`` (see the module docstring)."""
    import numpy as np

    col = iou[:, gi] if len(pred) else np.zeros(0)
    if len(col) and col.max() >= 0.5:
        return "low_iou"
    gx0, gy0, gx1, gy1 = gold[gi].bbox
    garea = max((gx1 - gx0) * (gy1 - gy0), 1e-9)
    inside = 0
    for p in pred:
        px0, py0, px1, py1 = p.bbox
        ix = max(0.0, min(px1, gx1) - max(px0, gx0))
        iy = max(0.0, min(py1, gy1) - max(py0, gy0))
        inter = ix * iy
        parea = max((px1 - px0) * (py1 - py0), 1e-9)
        if inter >= 0.8 * garea and parea > 1.3 * garea:
            return "merged"
        if inter >= 0.5 * parea:
            inside += 1
    return "split" if inside else "missed"


def _save_crop(image: Any, boxes: list[tuple[tuple[float, ...], tuple[int, int, int]]], path: Path) -> None:
    import cv2
    import numpy as np

    xs = [v for b, _ in boxes for v in (b[0], b[2])]
    ys = [v for b, _ in boxes for v in (b[1], b[3])]
    m = 20
    h, w = image.shape[:2]
    x0, y0 = max(0, int(min(xs)) - m), max(0, int(min(ys)) - m)
    x1, y1 = min(w, int(max(xs)) + m), min(h, int(max(ys)) + m)
    crop = np.ascontiguousarray(image[y0:y1, x0:x1, ::-1])
    crop = cv2.resize(crop, None, fx=2, fy=2, interpolation=cv2.INTER_NEAREST)
    for b, colour in boxes:
        cv2.rectangle(crop, (int(2 * (b[0] - x0)), int(2 * (b[1] - y0))),
                      (int(2 * (b[2] - x0)), int(2 * (b[3] - y0))), colour, 1)
    cv2.imwrite(str(path), crop)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sets", type=Path, nargs="+", help="benchmark-layout folders made by data_gen")
    p.add_argument("--by", default="family+renderer", help="chart-JSON key to group by")
    p.add_argument("--crops", type=Path, default=None, help="write one crop per error here")
    p.add_argument("--limit", type=int, default=None, help="first N charts of each set")
    p.add_argument("--only", default=None, help="only charts of this group")
    p.add_argument("--json", type=Path, default=None, help="write per-chart rows here")
    args = p.parse_args(argv)
    import logging

    import numpy as np

    from flowpath.datasets.febench import Benchmark
    from flowpath.io import load_image
    from flowpath.metrics.iou import iou_matrix
    from flowpath.metrics.matching import match_regions
    from flowpath.segment import default_segmenter

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_gen_sets import group_of

    logging.disable(logging.WARNING)
    seg = default_segmenter()
    if args.crops:
        args.crops.mkdir(parents=True, exist_ok=True)
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # matched, gold, predicted
    causes: Counter[str] = Counter()
    rows = []
    cpu0 = time.process_time()
    for bench in args.sets:
        charts = list(Benchmark(bench).charts())[: args.limit]
        for c in charts:
            record = json.loads(c.image_path.with_suffix(".json").read_text(encoding="utf-8"))
            group = group_of(record, args.by)
            if args.only and group != args.only:
                continue
            img = load_image(c.image_path)
            gold = list(c.regions.values())
            pred = seg([img])[0]
            pairs = match_regions(pred, gold, 0.7)
            iou = iou_matrix(pred, gold) if pred and gold else np.zeros((len(pred), len(gold)))
            for key in (group, "overall"):
                t = tally[key]
                t[0] += len(pairs)
                t[1] += len(gold)
                t[2] += len(pred)
            got_g = {g for _, g, _ in pairs}
            got_p = {q for q, _, _ in pairs}
            errs = []
            for gi in range(len(gold)):
                if gi not in got_g:
                    cause = _cause(gi, gold, pred, iou)
                    errs.append((cause, gi, None))
            for pi in range(len(pred)):
                if pi not in got_p and not (len(gold) and iou[pi].max() >= 0.5):
                    errs.append(("false", None, pi))
            for cause, gi, pi in errs:
                causes[cause] += 1
                if args.crops:
                    boxes = []
                    if gi is not None:
                        boxes.append((gold[gi].bbox, (0, 200, 0)))
                        if len(pred) and iou[:, gi].max() > 0:
                            boxes.append((pred[int(iou[:, gi].argmax())].bbox, (0, 0, 255)))
                        name = f"{cause}_{c.id}_g{gi}.png"
                    else:
                        boxes.append((pred[pi].bbox, (0, 0, 255)))
                        name = f"{cause}_{c.id}_p{pi}.png"
                    _save_crop(img, boxes, args.crops / name)
            rows.append({"id": c.id, "group": group, "matched": len(pairs), "gold": len(gold),
                         "pred": len(pred), "errors": [e[0] for e in errs]})
            print(f"{c.id} {group}: {len(pairs)}/{len(gold)} gold, {len(pred)} pred "
                  f"{dict(Counter(e[0] for e in errs))}", flush=True)
    cpu = time.process_time() - cpu0
    print("\n| group | R@0.7 | P@0.7 | gold | pred |\n|---|---|---|---|---|")
    for key in sorted(tally, key=lambda k: (k != "overall", k)):
        m, g, q = tally[key]
        print(f"| {key} | {m / max(g, 1):.3f} | {m / max(q, 1):.3f} | {g} | {q} |")
    print(f"\nerror causes: {dict(causes.most_common())}")
    print(f"CPU s: {cpu:.1f} ({cpu / max(len(rows), 1):.3f} per chart); load: {os.getloadavg()}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
