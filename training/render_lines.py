"""Real-render text lines for the learned line recognisers: node text as the renderers draw it.

Every fine-tune before the twelfth stretch trained on lines drawn with PIL (`training.text_lines`):
their validation CER fell while the wild charts barely moved, i.e. those lines do not look like
what Chromium/PlantUML/Graphviz draw and the wild degrade pass does to them. This builder cuts the
lines of real generated charts (``python -m data_gen``, train split, train fonts and palettes)
exactly as the OCR transcriber cuts them at inference:

1. the chart's gold node regions are labelled and `OCRTranscriber` builds its node crops as
   usual (node interior, the chart's line height from `crops.chart_line_height`); the read step
   is skipped (`flowpath.transcribe.ocr.node_crops.record_node_crops`), so no OCR engine runs;
2. each node box is cleaned both ways: `crops.to_text_crop` (the shipped recogniser's input) and
   `crops.to_grey_crop` (the grey-input recogniser's), at the same line height;
3. each crop is cut into lines as the recognisers cut it (`recogniser.crop_lines`, i.e.
   `engines.split_lines`);
4. a node's lines are kept with their gold text only where the crop holds as many lines as the
   gold label (the generator records the renderer's line breaks in the chart JSON's
   ``nodes[id]["text"]`` as ``\\n``; the clean and the grey crop are aligned separately).

Output folder: ``clean/`` and ``grey/`` PNG line images and ``lines.jsonl`` (one record per
kept line: ``kind`` clean|grey, ``file``, ``text``, ``renderer``, ``family`` (style family),
``blur`` (the wild degrade pass's sigma, replayed), ``sharpness`` (the chart's
`crops.stroke_sharpness`), ``line_h``, ``chart``, ``node``), plus
``summary.json`` (nodes and lines seen and kept, per renderer and kind)::

    python training/render_lines.py /work/data/realline12_puml /work/data/realline12_gv ... \\
        --out /work/data/realline12_lines/train
    python training/render_lines.py /work/data/blurrec13_puml ... --blurred-only --out ...  # blurred charts

`RealLines` loads such folders for `training/train_text_recogniser.py` (``real_lines``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flowpath.transcribe.ocr.crops import TextCrop  # noqa: E402
from flowpath.transcribe.ocr.node_crops import record_node_crops  # noqa: E402
from flowpath.transcribe.ocr.recogniser import crop_lines  # noqa: E402

KINDS = ("clean", "grey")


def aligned_lines(crop: TextCrop | None, text: str) -> list[tuple[np.ndarray, str]] | None:
    """``(line image, gold line)`` pairs of one node crop; None where the crop's lines (as the
    recognisers cut them) do not match the gold text's lines one to one."""
    gold = [" ".join(line.split()) for line in text.split("\n")]
    gold = [g for g in gold if g]
    if crop is None or not gold:
        return None
    lines = crop_lines(crop.image)
    if len(lines) != len(gold):
        return None
    return [(band, g) for (_, _, band), g in zip(lines, gold, strict=True)]


def build(charts: list[Path], out: Path, limit: int | None = None, blurred_only: bool = False) -> dict[str, Any]:
    """Cut the aligned lines of every chart folder in ``charts`` (benchmark layout) into ``out``;
    ``blurred_only``: only the charts the transcriber's own gate calls blurred (`grey_print.is_blurred`
    of the chart's `crops.stroke_sharpness`: the blur specialist's training lines)."""
    from data_gen.pipeline import chart_blur
    from flowpath.datasets.febench import Benchmark
    from flowpath.io import load_image
    from flowpath.transcribe.ocr.grey_print import is_blurred

    for kind in KINDS:
        (out / kind).mkdir(parents=True, exist_ok=True)
    seen: Counter[str] = Counter()
    kept: Counter[str] = Counter()
    with (out / "lines.jsonl").open("w", encoding="utf-8") as index:
        for folder in charts:
            bench = Benchmark(folder)
            for cid in bench.chart_ids[:limit] if limit else bench.chart_ids:
                chart = bench.chart(cid)
                js = json.loads(Path(chart.image_path).with_suffix(".json").read_text(encoding="utf-8"))
                gold = {k: str(v.get("text") or "") for k, v in js["nodes"].items()}
                regions = {k: r for k, r in chart.regions.items() if k in gold}
                if not regions:
                    continue
                renderer = str(js.get("renderer", "mermaid"))
                meta = {"renderer": renderer, "family": str((js.get("style") or {}).get("family", "")),
                        "blur": chart_blur(js), "chart": cid}
                cut = record_node_crops(load_image(chart.image_path), regions)
                sharpness = cut.measures.get("stroke_sharpness")
                seen["charts"] += 1
                if blurred_only and not is_blurred(sharpness):
                    continue
                kept["charts"] += 1
                meta["sharpness"] = sharpness
                for nc in cut.nodes:
                    crops = {"clean": nc.crop, "grey": nc.grey()}
                    for kind in KINDS:
                        key = f"{renderer}/{kind}"
                        n_gold = len([g for g in gold[nc.node].split("\n") if g.strip()])
                        seen[key + "/nodes"] += 1
                        seen[key + "/lines"] += n_gold
                        pairs = aligned_lines(crops[kind], gold[nc.node])
                        if pairs is None:
                            continue
                        kept[key + "/nodes"] += 1
                        kept[key + "/lines"] += len(pairs)
                        for i, (band, text) in enumerate(pairs):
                            name = f"{kind}/{cid}_{nc.node}_{i}.png"
                            cv2.imwrite(str(out / name), band)
                            index.write(json.dumps({"kind": kind, "file": name, "text": text, **meta,
                                                    "line_h": cut.line_height, "node": nc.node}) + "\n")
                print(f"{cid}: {len(regions)} nodes", file=sys.stderr, flush=True)
    summary = {"sources": [str(c) for c in charts], "seen": dict(seen), "kept": dict(kept),
               "kept_share": {k: round(kept[k] / seen[k], 4) for k in sorted(seen) if seen[k]}}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return summary


@dataclass
class RealLine:
    """One real-render line: the image the recogniser reads and its gold text."""

    image: np.ndarray
    text: str
    renderer: str
    blur: float
    line_h: float | None


class RealLines:
    """The lines of `build`'s output folders for one crop ``kind`` (clean or grey), drawn with a
    seeded stream for training (`sample`) or read whole for validation (`lines`); ``max_line_h``
    keeps the lines of charts whose text line height is under it (the recognisers read small
    print only: `choice.SMALL_PRINT_BELOW`)."""

    def __init__(self, folders: list[str | Path], kind: str, seed: int = 0, charset: str | None = None,
                 max_line_h: float | None = None) -> None:
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        self.lines: list[RealLine] = []
        for folder in folders:
            folder = Path(folder)
            for raw in (folder / "lines.jsonl").read_text(encoding="utf-8").splitlines():
                rec = json.loads(raw)
                if rec["kind"] != kind:
                    continue
                if max_line_h is not None and (rec.get("line_h") is None or rec["line_h"] >= max_line_h):
                    continue
                text = rec["text"] if charset is None else "".join(c for c in rec["text"] if c in charset)
                if not text.strip():
                    continue
                image = cv2.imread(str(folder / rec["file"]), cv2.IMREAD_GRAYSCALE)
                self.lines.append(RealLine(image, text, rec["renderer"], float(rec["blur"]), rec.get("line_h")))
        if not self.lines:
            raise ValueError(f"no {kind} lines in {[str(f) for f in folders]}")
        self.rng = random.Random(seed)

    def sample(self) -> tuple[np.ndarray, str]:
        line = self.rng.choice(self.lines)
        return line.image, line.text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("charts", nargs="+", type=Path, help="generated chart folders (python -m data_gen)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--limit", type=int, help="charts per folder")
    ap.add_argument("--blurred-only", action="store_true",
                    help="keep only charts whose small print the transcriber calls blurred (grey_print.is_blurred)")
    args = ap.parse_args(argv)
    summary = build(args.charts, args.out, args.limit, args.blurred_only)
    print(json.dumps(summary["kept_share"], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
