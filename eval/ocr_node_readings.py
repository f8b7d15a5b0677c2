"""Per-node OCR error analysis on gold regions: every node crop read by each engine.

    python eval/ocr_node_readings.py /work/data/ocrhand_tune --out runs/ocrhand/tune.jsonl
    python eval/ocr_node_readings.py --summary runs/ocrhand/tune.jsonl

For every chart of a benchmark-layout folder, the gold node regions are labelled and the
`OCRTranscriber`'s own node crops are read by tesseract, by rapidocr's recogniser on blank-row
line bands (``rapidocr_split``: `RapidOCREngine.recognise`) and by rapidocr's detector +
recogniser (``rapidocr_det``: `RapidOCREngine.read`) and by the learned line recogniser
(``textrec``: `flowpath.transcribe.ocr.recogniser.LineRecogniserEngine`, ``--textrec-model``).
One JSON line per node: gold text and line count, the crop's line bands, and per engine the
text read, its confidence, its word true positives and CPU seconds. ``--summary`` prints word
F1 per engine, per gold line count and per font, the per-node oracle, and what
`flowpath.transcribe.ocr.choice` picks, so a rule can be judged without reading again.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ENGINES = ("tesseract", "rapidocr_split", "rapidocr_det", "textrec")


def read_records(paths: list[Path] | None) -> list[dict[str, Any]]:
    """Per-node (or per-chart) records written before, JSON lines, in order."""
    return [json.loads(line) for path in paths or () for line in path.read_text(encoding="utf-8").splitlines()]


def write_records(path: Path | None, records: list[dict[str, Any]]) -> None:
    """Write ``records`` as JSON lines to ``path`` (its folder made); nothing when None."""
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def gold_crops(chart: Any, transcriber: Any = None, read: bool = False) -> tuple[Any, Any]:
    """A benchmark chart's gold graph and the transcriber's node crops of its gold regions, in
    its reading order (`flowpath.transcribe.ocr.node_crops.record_node_crops`)."""
    from flowpath.io import load_image
    from flowpath.mermaid import parse_mermaid
    from flowpath.transcribe.ocr.node_crops import record_node_crops

    gold = parse_mermaid(chart.mermaid, strict=False)
    regions = {k: chart.regions[k] for k in gold.nodes if k in chart.regions}
    return gold, record_node_crops(load_image(chart.image_path), regions, transcriber, read=read)


def read_nodes(bench: Path, limit: int | None, engines: tuple[str, ...] = ENGINES,
               textrec_model: Path | None = None, extra_models: dict[str, Path] | None = None,
               as_needed: bool = False) -> list[dict[str, Any]]:
    """One record per gold node with text: each engine's reading of its crop.

    ``extra_models`` (name -> folder) are further learned recognisers, recorded as
    ``textrec:NAME``; ``as_needed``: rapidocr reads only the crops steps 1-2 of
    `flowpath.transcribe.ocr.choice` would hand it (the others record an empty reading).
    """
    from flowpath.datasets.febench import Benchmark
    from flowpath.transcribe.ocr import OCRTranscriber
    from flowpath.transcribe.ocr.choice import choose_engines
    from flowpath.transcribe.ocr.engines import RapidOCREngine, Reading, split_lines
    from flowpath.transcribe.ocr.recogniser import MODEL_DIR, LineRecogniserEngine

    rapid = RapidOCREngine()
    learned = LineRecogniserEngine(textrec_model or MODEL_DIR) if "textrec" in engines else None
    extra = {f"textrec:{name}": LineRecogniserEngine(path) for name, path in (extra_models or {}).items()}
    first_read: list[Reading] = []  # the transcriber's own reading of the chart's crops

    def asked(read: Any, which: str) -> Any:
        """``read`` on the crops steps 1-2 hand to rapidocr for ``which`` (split/det) only."""
        def some(crops: list[Any]) -> list[Reading]:
            plan = choose_engines([None if c is None else r.confidence for c, r in zip(crops, first_read, strict=True)])
            want = set(plan.second) if plan.handwritten == (which == "det") else set()
            got = iter(read([crops[i] for i in sorted(want)]) if want else [])
            return [next(got) if i in want else Reading() for i in range(len(crops))]
        return some if as_needed else read

    tr = OCRTranscriber(engine="tesseract")
    bm = Benchmark(bench)
    out = []
    for cid in bm.chart_ids[:limit] if limit else bm.chart_ids:
        chart = bm.chart(cid)
        gold, cut = gold_crops(chart, tr, read=True)
        ids = [n.node for n in cut.nodes]  # reading order: the order of the transcriber's crops
        crops = [n.crop for n in cut.nodes]
        first_read[:] = cut.readings
        readings: dict[str, list[Reading]] = {}
        seconds: dict[str, float] = {}
        for name, read in (("tesseract", tr.tesseract.read), ("rapidocr_split", asked(rapid.recognise, "split")),
                           ("rapidocr_det", asked(rapid.read, "det")),
                           ("textrec", learned.read if learned is not None else None),
                           *((k, e.read) for k, e in extra.items())):
            if name not in engines and name not in extra or read is None:
                readings[name], seconds[name] = [Reading() for _ in crops], 0.0
                continue
            t = time.process_time()
            readings[name] = read(crops)
            seconds[name] = (time.process_time() - t) / max(1, len(crops))
        texts = {name: tr._texts(rs) for name, rs in readings.items()}
        font = str((chart.meta or {}).get("style", {}).get("font", "")) if hasattr(chart, "meta") else ""
        js = json.loads(Path(chart.image_path).with_suffix(".json").read_text(encoding="utf-8"))
        font = str((js.get("style") or {}).get("font", font))
        for i, k in enumerate(ids):
            label = gold.nodes[k].text or ""
            if not label.strip() or crops[i] is None:
                continue
            out.append({
                "chart": cid, "node": k, "font": font, "gold": label, "line_h": cut.line_height,
                "gold_lines": label.count("<br>") + label.count("\n") + 1,
                "bands": [b - a for a, b in split_lines(crops[i].image)],
                **{name: {"text": texts[name][i], "conf": round(readings[name][i].confidence, 4),
                          "lines": len(readings[name][i].words) if name != "tesseract" else None,
                          "cpu_s": round(seconds[name], 4)}
                   for name in (*ENGINES, *extra)},
            })
    return out


#: step-3 settings the summary compares (choice.SMALL_PRINT_BELOW, choice.LEARNED_MARGIN; the
#: lower bound is choice.SMALL_PRINT_FROM)
_SMALL_BELOW = (12.0, 14.0, 16.0, 1e9)
_MARGINS = (-0.25, -0.2, -0.15, -0.1, 0.0, 0.2, 1.0)


def _get(record: dict[str, Any], engine: str) -> dict[str, Any]:
    """One engine's reading in a record (records written before an engine existed lack it)."""
    return record.get(engine) or {"text": "", "conf": 0.0, "lines": None, "cpu_s": 0.0}


def overlap(pred: str, gold: str) -> tuple[int, int, int]:
    """Word true positives, predicted words, gold words (the metric's bag-of-words overlap)."""
    from flowpath.metrics.transcription import words

    p, g = Counter(words(pred)), Counter(words(gold))
    return sum((p & g).values()), sum(p.values()), sum(g.values())


def f1(rows: list[tuple[int, int, int]]) -> float:
    tp, np_, ng = (sum(r[i] for r in rows) for i in range(3))
    return 2 * tp / (np_ + ng) if np_ + ng else 1.0


def steps_1_2(records: list[dict[str, Any]]) -> dict[int, tuple[str, str, float]]:
    """What steps 1-2 of `flowpath.transcribe.ocr.choice` keep per record (by ``id``): the
    engine, its text and its confidence."""
    from flowpath.transcribe.ocr.choice import choose_engines
    from flowpath.transcribe.ocr.text import fix_letter_slips

    by_chart: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_chart[r["chart"]].append(r)
    first: dict[int, tuple[str, str, float]] = {}
    for rs in by_chart.values():
        choice = choose_engines([r["tesseract"]["conf"] for r in rs])
        for i, r in enumerate(rs):
            name = "rapidocr_det" if choice.handwritten else "rapidocr_split"
            if i not in choice.second or not choice.keep_second(r["tesseract"]["conf"], _get(r, name)["conf"],
                                                                bool(_get(r, name)["text"])):
                name = "tesseract"
            # records written before the engine applied fix_letter_slips itself
            text = r[name]["text"] if name == "tesseract" else fix_letter_slips(r[name]["text"])
            first[id(r)] = (name, text, r[name]["conf"])
    return first


def takes_learned(kept: tuple[str, str, float], learned: dict[str, Any], **rule: float) -> bool:
    """`choice.prefer_learned` on recorded readings (``rule``: its keyword arguments)."""
    from flowpath.transcribe.ocr.choice import prefer_learned
    from flowpath.transcribe.ocr.engines import Reading

    engine = kept[0].split("_")[0]  # rapidocr_split / rapidocr_det -> rapidocr
    mine = Reading([(0, 0, 1, learned["text"])] if learned["text"] else [], learned["conf"], "textrec")
    return prefer_learned(Reading([(0, 0, 1, kept[1])], kept[2], engine), mine, **rule)


def summary(records: list[dict[str, Any]]) -> None:
    """Print word F1 per engine overall, per gold line count, per font, the oracle and rules."""
    from flowpath.transcribe.ocr.choice import SMALL_PRINT_FROM

    def table(title: str, key: Any) -> None:
        groups: dict[Any, list[dict[str, Any]]] = defaultdict(list)
        for r in records:
            groups[key(r)].append(r)
        print(f"\n{title:22s} {'nodes':>5s} " + " ".join(f"{e:>15s}" for e in ENGINES))
        for g in sorted(groups, key=str):
            rs = groups[g]
            print(f"{str(g):22s} {len(rs):5d} "
                  + " ".join(f"{f1([overlap(_get(r, e)['text'], r['gold']) for r in rs]):15.3f}" for e in ENGINES))

    table("overall", lambda r: "all")
    table("gold lines", lambda r: r["gold_lines"])
    table("font", lambda r: r["font"])
    best = [max((overlap(_get(r, e)["text"], r["gold"]) for e in ENGINES), key=lambda o: 2 * o[0] - o[1])
            for r in records]
    print(f"\noracle (best engine per node): {f1(best):.3f}")
    cpu = {e: sum(_get(r, e)["cpu_s"] for r in records) / len(records) for e in ENGINES}
    print("CPU s per node: " + ", ".join(f"{e} {v:.3f}" for e, v in cpu.items()))
    first = steps_1_2(records)  # id(record) -> (engine, text, conf) after steps 1-2
    picked = [overlap(first[id(r)][1], r["gold"]) for r in records]
    engines = Counter(first[id(r)][0] for r in records)
    print(f"choice.choose_engines: {f1(picked):.3f} ({dict(engines)})")
    if not any("textrec" in r for r in records):
        return
    # step 3 (choice.learned_opinion) on top of steps 1-2, for a few bounds and margins
    print(f"\nstep 3, learned recogniser on small print (line height from {SMALL_PRINT_FROM} px): word F1 (nodes it takes)")
    print(f"{'small_below':>12s} " + " ".join(f"{'margin ' + str(m):>16s}" for m in _MARGINS))
    for below in _SMALL_BELOW:
        cells = []
        for margin in _MARGINS:
            rows, taken = [], 0
            for r in records:
                name, text, conf = first[id(r)]
                tr = _get(r, "textrec")
                small = r.get("line_h") is not None and SMALL_PRINT_FROM <= r["line_h"] < below
                if small and takes_learned((name, text, conf), tr, margin=margin):
                    text, taken = tr["text"], taken + 1
                rows.append(overlap(text, r["gold"]))
            cells.append(f"{f1(rows):.3f} ({taken:4d})")
        print(f"{below:12.1f} " + " ".join(f"{c:>16s}" for c in cells))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bench", nargs="*", type=Path)
    ap.add_argument("--out", type=Path, help="write the per-node records here (JSON lines)")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--engines", default=",".join(ENGINES), help="engines to read with (others read nothing)")
    ap.add_argument("--summary", type=Path, nargs="*", help="summarise records written before")
    ap.add_argument("--textrec-model", type=Path, help="learned recogniser folder (default: the shipped one)")
    ap.add_argument("--textrec-extra", action="append", default=[], metavar="NAME=DIR",
                    help="another learned recogniser, recorded as textrec:NAME (repeatable)")
    ap.add_argument("--as-needed", action="store_true",
                    help="rapidocr reads only the crops steps 1-2 of the rule hand it (faster)")
    args = ap.parse_args()
    records = read_records(args.summary)
    for bench in args.bench:
        extra = dict(item.split("=", 1) for item in args.textrec_extra)
        records += read_nodes(bench, args.limit, tuple(args.engines.split(",")), args.textrec_model,
                              {k: Path(v) for k, v in extra.items()}, args.as_needed)
    write_records(args.out, records)
    summary(records)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
