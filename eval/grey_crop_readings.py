"""Gold node crops read CLEANED (`crops.to_text_crop`) and GREY (`crops.to_grey_crop`), per blur band.

    python eval/grey_crop_readings.py /work/data/textrec10_puml --out runs/grey11/textrec10_puml.jsonl \
        --grey-model /work/data/greyrec11_ft/run/checkpoint-600
    python eval/grey_crop_readings.py --summary runs/grey11/*.jsonl

For every chart of a benchmark-layout folder, the gold node regions are labelled and the
`OCRTranscriber` builds its node crops as usual; each crop's source (the node's colour pixels,
interior mask and the chart's line height) is recorded on the way
(`flowpath.transcribe.ocr.node_crops.record_node_crops`), and the same box is cleaned both
ways. Each variant is read by tesseract (``tess``), rapidocr's recogniser on line bands
(``rapid``: `RapidOCREngine.recognise`), the shipped learned recogniser (``textrec``, trained on
cleaned lines) and, with ``--grey-model``, a grey-input recogniser (``greyrec``). One JSON line
per node with its chart's line height, strong-ink share and the wild degrade pass's blur sigma
(replayed from its seed, `data_gen.pipeline.chart_blur`, capped as the generator caps it).
The summary prints word F1 per blur band (none, < 0.6 px, >= 0.6 px) for nodes in the small-print
window (chart line height < `crops.SMALL_LINE`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from data_gen.pipeline import blur_band, chart_blur  # noqa: E402
from eval.ocr_node_readings import f1, gold_crops, overlap, read_records, write_records  # noqa: E402


def read_nodes(bench: Path, limit: int | None, grey_model: Path | None,
               engines_wanted: tuple[str, ...] = ("tess", "rapid", "textrec", "greyrec")) -> list[dict[str, Any]]:
    from flowpath.datasets.febench import Benchmark
    from flowpath.transcribe.ocr import OCRTranscriber
    from flowpath.transcribe.ocr.engines import RapidOCREngine
    from flowpath.transcribe.ocr.recogniser import LineRecogniserEngine

    rapid = RapidOCREngine()
    learned = LineRecogniserEngine()
    grey = LineRecogniserEngine(grey_model) if grey_model else None
    tr = OCRTranscriber(engine="tesseract", learned=False)
    bm = Benchmark(bench)
    out: list[dict[str, Any]] = []
    for cid in bm.chart_ids[:limit] if limit else bm.chart_ids:
        chart = bm.chart(cid)
        gold, cut = gold_crops(chart, tr)
        ids = [n.node for n in cut.nodes]
        js = json.loads(Path(chart.image_path).with_suffix(".json").read_text(encoding="utf-8"))
        line_h = cut.line_height
        variants = {"clean": [n.crop for n in cut.nodes], "grey": [n.grey() for n in cut.nodes]}
        texts: dict[str, list[str]] = {}
        confs: dict[str, list[float]] = {}
        for vname, crops in variants.items():
            engines = {"tess": tr.tesseract.read, "rapid": rapid.recognise, "textrec": learned.read}
            if grey is not None:
                engines["greyrec"] = grey.read
            for ename, read in engines.items():
                if ename not in engines_wanted:
                    continue
                rs = read(crops)
                texts[f"{vname}/{ename}"] = tr._texts(rs)
                confs[f"{vname}/{ename}"] = [round(r.confidence, 4) for r in rs]
        for i, k in enumerate(ids):
            label = gold.nodes[k].text or ""
            if not label.strip() or variants["clean"][i] is None:
                continue
            out.append({"set": bench.name, "chart": cid, "node": k, "gold": label, "line_h": line_h,
                        "share": cut.measures.get("strong_ink_share"), "blur": chart_blur(js),
                        "font": str((js.get("style") or {}).get("font", "")),
                        **{name: {"text": t[i], "conf": confs[name][i]} for name, t in texts.items()}})
        print(f"{cid}: {len(ids)} nodes, line {line_h}, blur {chart_blur(js)}", file=sys.stderr, flush=True)
    return out


def band(r: dict[str, Any]) -> str:
    """A record's blur band (`data_gen.pipeline.blur_band` of its ``blur``)."""
    return blur_band(r["blur"])


def summary(records: list[dict[str, Any]]) -> None:
    from flowpath.transcribe.ocr.crops import SMALL_LINE

    names = sorted({k for r in records for k in r if "/" in k})
    records = [r for r in records if all(n in r for n in names)]  # nodes every engine read
    small = [r for r in records if r["line_h"] is not None and r["line_h"] < SMALL_LINE]
    for title, rows in (("all nodes", records), (f"small print (line < {SMALL_LINE} px)", small)):
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in rows:
            groups[band(r)].append(r)
            groups["all"].append(r)
        print(f"\n{title}: word F1 per blur band")
        print(f"{'band':8s} {'nodes':>5s} " + " ".join(f"{n:>13s}" for n in names))
        for g in ("none", "<0.6", ">=0.6", "all"):
            rs = groups.get(g, [])
            if rs:
                print(f"{g:8s} {len(rs):5d} "
                      + " ".join(f"{f1([overlap(r[n]['text'], r['gold']) for r in rs]):13.3f}" for n in names))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bench", nargs="*", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--grey-model", type=Path, help="a grey-input recogniser folder (greyrec)")
    ap.add_argument("--engines", default="tess,rapid,textrec,greyrec", help="engines to read with")
    ap.add_argument("--summary", type=Path, nargs="*", help="records written before (the new ones are merged "
                    "into them node by node: a later checkpoint read alone)")
    args = ap.parse_args()
    records = read_records(args.summary)
    by_node = {(r["set"], r["chart"], r["node"]): r for r in records}
    for bench in args.bench:
        for r in read_nodes(bench, args.limit, args.grey_model, tuple(args.engines.split(","))):
            key = (r["set"], r["chart"], r["node"])
            if key in by_node:
                by_node[key].update(r)
            else:
                by_node[key] = r
                records.append(r)
    write_records(args.out, records)
    summary(records)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
