"""Sweep the small-print rule's margin against tesseract and floor on full-pipeline word F1.

    MARGINS=-0.15,0 FLOORS=0.8,0.7 python eval/learned_rule_pipeline_sweep.py /work/data/textrec9_gv

`eval/learned_rule_sweep.py` sweeps the rule on gold node crops; this runs the whole pipeline
(default segmenter, `evaluate_transcription`) once per setting, but reads each chart only once:
the segmentation, the readings of steps 1-2 of `flowpath.transcribe.ocr.choice` and the learned
recogniser's readings are cached per chart, each setting replays `choice.prefer_learned` on them,
and a chart whose choices a setting leaves as an earlier one did is not transcribed again. Prints
one JSON line per (set, margin, floor): overall and per style family word F1.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import resource
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
logging.disable(logging.WARNING)

from flowpath.evaluation.transcription import evaluate_transcription  # noqa: E402
from flowpath.segment import default_segmenter  # noqa: E402
from flowpath.transcribe.ocr import OCRTranscriber, choice  # noqa: E402

MARGINS = [float(x) for x in os.environ.get("MARGINS", "-0.15,-0.1,-0.05,0").split(",")]
FLOORS = [float(x) for x in os.environ.get("FLOORS", "0.8,0.75,0.7").split(",")]
CONFIG = {"margin": -0.15, "floor": 0.8}


def crop_key(crops) -> str:
    h = hashlib.md5()
    for c in crops:
        h.update(b"N" if c is None else c.image.tobytes() + repr(c.image.shape).encode())
    return h.hexdigest()


class Replaying(OCRTranscriber):
    def __init__(self) -> None:
        super().__init__()
        self.cache: dict[str, tuple] = {}
        self.path_key: dict[str, str] = {}
        self.memo: dict[tuple, object] = {}
        self.current = ""
        self.replayed = 0

    def signature(self, k: str) -> tuple:
        readings, learned = self.cache[k]
        if learned is None:
            return ()
        choice.LEARNED_MARGIN["tesseract"] = CONFIG["margin"]
        return tuple(choice.prefer_learned(a, b, floor=CONFIG["floor"]) for a, b in zip(readings, learned, strict=True))

    def __call__(self, charts):
        (chart,) = charts
        self.current = str(chart.source)
        k = self.path_key.get(self.current)
        if k is not None:
            key = (self.current, self.signature(k))
            if key in self.memo:
                return [self.memo[key]]
        out = super().__call__(charts)
        k = self.path_key.get(self.current)
        if k is not None:
            self.memo[(self.current, self.signature(k))] = out[0]
            self.replayed += 1
        return out

    def read(self, crops, line_height=None, small_from=choice.SMALL_PRINT_FROM):
        k = crop_key(crops)
        if k not in self.cache:
            readings = self._second_opinion(crops, self.tesseract.read(crops))
            learned = None
            if (line_height is not None and small_from <= line_height < choice.SMALL_PRINT_BELOW
                    and any(c is not None for c in crops)):
                eng = self._learned_or_none()
                learned = eng.read(crops) if eng is not None else None
            self.cache[k] = (readings, learned)
        self.path_key[self.current] = k
        readings, learned = self.cache[k]
        if learned is None:
            return list(readings)
        choice.LEARNED_MARGIN["tesseract"] = CONFIG["margin"]
        return [a if c is None else b.noting(a) if choice.prefer_learned(a, b, floor=CONFIG["floor"]) else a.noting(b)
                for c, a, b in zip(crops, readings, learned, strict=True)]


class CachedSeg:
    def __init__(self) -> None:
        self.seg = default_segmenter()
        self.cache: dict[str, list] = {}

    def __call__(self, images):
        k = hashlib.md5(images[0].tobytes()).hexdigest()
        if k not in self.cache:
            self.cache[k] = self.seg(images)[0]
        return [self.cache[k]]


def main() -> None:
    seg, tr = CachedSeg(), Replaying()
    out = []
    for s in sys.argv[1:]:
        for m in MARGINS:
            for f in FLOORS:
                CONFIG.update(margin=m, floor=f)
                rep = evaluate_transcription(Path(s), tr, segmenter=seg)
                row = {"set": Path(s).name, "margin": m, "floor": f, "word_F1": rep["overall"].get("word_f1"),
                       "by_family": {k: v.get("word_f1") for k, v in rep.get("by_family", {}).items()},
                       "failed": len(rep["failures"])}
                out.append(row)
                u = resource.getrusage(resource.RUSAGE_SELF)
                print(json.dumps(row), f"cpu={u.ru_utime + u.ru_stime:.0f}", flush=True)
    print("load", os.getloadavg())


if __name__ == "__main__":
    main()
