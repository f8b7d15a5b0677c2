"""Sweep the blurred-chart lower bound of the small-print window on full-pipeline word F1.

    LOWS=6.5 SHARES=0.5,0.6,0.7 python eval/blur_window_sweep.py /work/data/textrec10_puml ...

Like `eval/learned_rule_pipeline_sweep.py` (segmentation, steps 1-2 readings and the learned
recogniser's readings cached per chart; a chart whose choices a setting leaves as an earlier one
did is not transcribed again), but the learned readings are taken for every chart under
`choice.SMALL_PRINT_BELOW`, and each setting (low, share) replays step 3 with the window opened
from ``low`` px on charts whose `crops.strong_ink_share` is under ``share`` (from
`choice.SMALL_PRINT_FROM` elsewhere). Prints per chart its line height, strong-ink share and the
degrade pass's blur sigma (replayed from its seed, `data_gen.pipeline.replay_degrade`), then
one JSON line per (set, low, share).
"""
from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
logging.disable(logging.WARNING)

from data_gen.pipeline import replay_degrade  # noqa: E402
from eval.learned_rule_pipeline_sweep import CachedSeg, crop_key  # noqa: E402
from flowpath.evaluation.transcription import evaluate_transcription  # noqa: E402
from flowpath.transcribe.ocr import OCRTranscriber, choice  # noqa: E402
from flowpath.transcribe.ocr import transcriber as tr_mod  # noqa: E402

LOWS = [float(x) for x in os.environ.get("LOWS", "6.5").split(",")]
SHARES = [float(x) for x in os.environ.get("SHARES", "0,0.5,0.6,0.65,0.7,0.75,0.8,1.01").split(",")]
CONFIG = {"low": 8.0, "share": 0.0}
SHARE: dict[str, float | None] = {"now": None}


def _capture(share: float | None) -> float:
    SHARE["now"] = share
    return 0.0


tr_mod.small_print_from = _capture  # every chart's learned readings are taken; the rule is replayed


class Replaying(OCRTranscriber):
    def __init__(self) -> None:
        super().__init__()
        self.cache: dict[str, tuple] = {}
        self.info: dict[str, tuple] = {}  # chart -> (crop key, line height, share)
        self.memo: dict[tuple, object] = {}
        self.current = ""

    def window_from(self, share: float | None) -> float:
        return CONFIG["low"] if share is not None and share < CONFIG["share"] else choice.SMALL_PRINT_FROM

    def signature(self) -> tuple:
        k, line_h, share = self.info[self.current]
        readings, learned = self.cache[k]
        if learned is None or not self.window_from(share) <= line_h:
            return ()
        return tuple(choice.prefer_learned(a, b) for a, b in zip(readings, learned, strict=True))

    def __call__(self, charts):
        (chart,) = charts
        self.current = str(chart.source)
        if self.current in self.info:
            key = (self.current, self.signature())
            if key in self.memo:
                return [self.memo[key]]
        out = super().__call__(charts)
        self.memo[(self.current, self.signature())] = out[0]
        return out

    def read(self, crops, line_height=None, small_from=0.0):
        k = crop_key(crops)
        if k not in self.cache:
            readings = self._second_opinion(crops, self.tesseract.read(crops))
            learned = None
            if line_height is not None and line_height < choice.SMALL_PRINT_BELOW and any(c is not None for c in crops):
                eng = self._learned_or_none()
                learned = eng.read(crops) if eng is not None else None
            self.cache[k] = (readings, learned)
        self.info[self.current] = (k, line_height, SHARE["now"])
        readings, learned = self.cache[k]
        if learned is None or not self.window_from(SHARE["now"]) <= (line_height or 0):
            return list(readings)
        return [a if c is None else b.noting(a) if choice.prefer_learned(a, b) else a.noting(b)
                for c, a, b in zip(crops, readings, learned, strict=True)]


def main() -> None:
    seg, tr = CachedSeg(), Replaying()
    configs = [(8.0, 0.0)] + [(lo, sh) for lo in LOWS for sh in SHARES if sh > 0]
    for s in sys.argv[1:]:
        for lo, sh in configs:
            CONFIG.update(low=lo, share=sh)
            rep = evaluate_transcription(Path(s), tr, segmenter=seg)
            if (lo, sh) == configs[0]:
                for src, (_k, lh, share) in sorted(tr.info.items()):
                    if not src.startswith(s) and Path(s).name not in src:
                        continue
                    meta = json.loads(Path(src).with_suffix(".json").read_text()) if Path(src).with_suffix(".json").exists() else {}
                    st = meta.get("style", {})
                    seed = meta.get("meta", {}).get("degrade", {}).get("seed")
                    sigma = replay_degrade(seed)[0] if seed is not None and st.get("family") == "wild" else 0.0
                    print(json.dumps({"chart": Path(src).name, "set": Path(s).name, "line_h": round(lh or 0, 2),
                                      "share": None if share is None else round(share, 3), "sigma": round(sigma, 2),
                                      "font": st.get("font"), "font_size": st.get("font_size")}), flush=True)
            row = {"set": Path(s).name, "low": lo, "share": sh, "word_F1": rep["overall"].get("word_f1"),
                   "failed": len(rep["failures"])}
            print("ROW", json.dumps(row), flush=True)
    print("load", os.getloadavg())


if __name__ == "__main__":
    main()
