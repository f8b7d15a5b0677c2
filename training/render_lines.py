"""Real-render text lines for the learned line recognisers: node text as the renderers draw it.

Every fine-tune before the twelfth stretch trained on lines drawn with PIL (`training.text_lines`):
their validation CER fell while the wild charts barely moved, i.e. those lines do not look like
what Chromium/PlantUML/Graphviz draw and the wild degrade pass does to them. This builder cuts the
lines of real generated charts (``python -m data_gen``, train split, train fonts and palettes)
exactly as the OCR transcriber cuts them at inference:

1. the chart's gold node regions are labelled and `OCRTranscriber` builds its node crops as
   usual (node interior, the chart's line height from `crops.chart_line_height`); the read step
   is skipped (`_CropRecorder`), so no OCR engine runs;
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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flowpath.transcribe.ocr import OCRTranscriber  # noqa: E402
from flowpath.transcribe.ocr import transcriber as transcriber_module  # noqa: E402
from flowpath.transcribe.ocr.crops import TextCrop, to_grey_crop  # noqa: E402
from flowpath.transcribe.ocr.engines import Reading  # noqa: E402
from flowpath.transcribe.ocr.recogniser import crop_lines  # noqa: E402

KINDS = ("clean", "grey")


@dataclass
class NodeCrops:
    """One gold node's crops as the transcriber builds them (None: no interior / no ink)."""

    node: str
    clean: TextCrop | None
    grey: TextCrop | None
    line_h: float | None
    #: the chart's `crops.stroke_sharpness` as the transcriber measures it (None: not small print)
    sharpness: float | None = None


class _CropRecorder(OCRTranscriber):
    """The OCR transcriber with its read step replaced: it keeps the node crops it is handed and
    reads nothing (every later step then sees empty readings, which is all the builder needs)."""

    def __init__(self) -> None:
        super().__init__(engine="tesseract", learned=False, grey=False, workers=1)
        self.crops: list[TextCrop | None] = []
        self.line_h: float | None = None

    def read(self, crops: list[TextCrop | None], line_height: float | None = None,
             small_from: float = 0.0) -> list[Reading]:
        self.crops = list(crops)
        self.line_h = line_height
        return [Reading() for _ in crops]


@contextmanager
def _recording_sources() -> Iterator[dict[int, tuple[np.ndarray, np.ndarray | None, float | None]]]:
    """While open, every `to_text_crop` the transcriber makes is remembered by the crop's id with
    its source (colour pixels, interior mask, line height): the grey crop is cut from the same."""
    sources: dict[int, tuple[np.ndarray, np.ndarray | None, float | None]] = {}
    real = transcriber_module.to_text_crop

    def recording(rgb: np.ndarray, mask: np.ndarray | None = None, **kw: Any) -> TextCrop | None:
        crop = real(rgb, mask, **kw)
        if crop is not None:
            sources[id(crop)] = (rgb, mask, kw.get("line_height"))
        return crop

    transcriber_module.to_text_crop = recording
    try:
        yield sources
    finally:
        transcriber_module.to_text_crop = real


def node_crops(recorder: _CropRecorder, image: np.ndarray, regions: dict[str, Any]) -> list[NodeCrops]:
    """The clean and grey crops of each region of ``regions`` (node id -> `Region`), cut from
    ``image`` as `OCRTranscriber` cuts them."""
    from flowpath.labeller import draw_labels
    from flowpath.models.base import LabelledChart

    ids = list(regions)
    labelled, letter_regions = draw_labels(image, [regions[k] for k in ids], names=ids)
    with _recording_sources() as sources:
        sharpness = recorder.transcribe(LabelledChart(image, labelled, letter_regions, "")).meta.get("stroke_sharpness")
        out = []
        for node, crop in zip(letter_regions, recorder.crops, strict=False):
            src = sources.get(id(crop)) if crop is not None else None
            grey = None if src is None else to_grey_crop(src[0], src[1], line_height=src[2])
            out.append(NodeCrops(node, crop, grey, recorder.line_h, sharpness))
    return out


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
    from eval.grey_crop_readings import chart_blur
    from flowpath.datasets.febench import Benchmark
    from flowpath.io import load_image
    from flowpath.transcribe.ocr.grey_print import is_blurred

    for kind in KINDS:
        (out / kind).mkdir(parents=True, exist_ok=True)
    recorder = _CropRecorder()
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
                crops = node_crops(recorder, load_image(chart.image_path), regions)
                sharpness = crops[0].sharpness if crops else None
                seen["charts"] += 1
                if blurred_only and not is_blurred(sharpness):
                    continue
                kept["charts"] += 1
                meta["sharpness"] = sharpness
                for nc in crops:
                    for kind in KINDS:
                        key = f"{renderer}/{kind}"
                        n_gold = len([g for g in gold[nc.node].split("\n") if g.strip()])
                        seen[key + "/nodes"] += 1
                        seen[key + "/lines"] += n_gold
                        pairs = aligned_lines(getattr(nc, kind), gold[nc.node])
                        if pairs is None:
                            continue
                        kept[key + "/nodes"] += 1
                        kept[key + "/lines"] += len(pairs)
                        for i, (band, text) in enumerate(pairs):
                            name = f"{kind}/{cid}_{nc.node}_{i}.png"
                            cv2.imwrite(str(out / name), band)
                            index.write(json.dumps({"kind": kind, "file": name, "text": text, **meta,
                                                    "line_h": nc.line_h, "node": nc.node}) + "\n")
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
