"""Sweep the grey-crop rule (`flowpath.transcribe.ocr.grey_print`) on full-pipeline word F1.

    GREY_MODELS=ck600=/work/data/greyrec11_ft/run/checkpoint-600 STEPS_CACHE=runs/grey11/steps.jsonl \
        python eval/grey_rule_sweep.py /work/data/textrec10_puml /work/data/textrec10_gv ...

Like `eval/learned_rule_pipeline_sweep.py`: the segmentation, the readings of steps 1-3 and the
grey recogniser's readings of every chart under `grey_print.GREY_BELOW` are cached per chart
(read once), and each setting replays `grey_print.grey_opinion`'s choice on them; a chart whose
choices a setting leaves as an earlier one did is not transcribed again. Settings: the window's
lower bound ``LOWS``, its strong-ink share bound ``SHARES`` (0: any chart), ``MARGINS`` and
``FLOORS`` (environment, comma-separated), for each of ``GREY_MODELS`` (``name=folder``, comma-
separated), plus "off" (the grey step not taken). ``STEPS_CACHE``: a JSON-lines file the readings of
steps 1-3 are kept in between runs (keyed by the crops' bytes and the chart's line height), so a
new checkpoint costs the segmentation and its own reading only. Prints one JSON line per (set,
setting) with word F1 and the nodes the grey reading took.
"""
from __future__ import annotations

import itertools
import json
import logging
import os
import resource
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
logging.disable(logging.WARNING)

from eval.learned_rule_pipeline_sweep import CachedSeg, crop_key  # noqa: E402
from flowpath.evaluation.transcription import evaluate_transcription  # noqa: E402
from flowpath.transcribe.ocr import OCRTranscriber, choice, grey_print  # noqa: E402
from flowpath.transcribe.ocr import transcriber as tr_mod  # noqa: E402
from flowpath.transcribe.ocr.engines import Reading  # noqa: E402
from flowpath.transcribe.ocr.recogniser import LineRecogniserEngine  # noqa: E402


def _floats(name: str, default: str) -> list[float]:
    return [float(x) for x in os.environ.get(name, default).split(",")]


LOWS = _floats("LOWS", "6.5,8.0")
SHARES = _floats("SHARES", "0,0.9")
MARGINS = _floats("MARGINS", "-0.1,0,0.1")
FLOORS = _floats("FLOORS", "0.6,0.7,0.8")
#: the setting being replayed (None: the grey step off)
CONFIG: dict[str, Any] = {"rule": None}
WINDOW: dict[str, Any] = {}


def _capture(line_height: float | None, strong_share: float | None, **_: Any) -> bool:
    """Every chart under the window's top is read by the grey recogniser; the rule is replayed."""
    WINDOW.update(line_h=line_height, share=strong_share)
    return line_height is not None and line_height < grey_print.GREY_BELOW


tr_mod.in_grey_window = _capture


def _to_json(readings: list[Reading]) -> list[Any]:
    return [[r.words, r.confidence, r.engine, list(r.alternates)] for r in readings]


def _from_json(rows: list[Any]) -> list[Reading]:
    return [Reading([tuple(w) for w in words], conf, engine, tuple(alt)) for words, conf, engine, alt in rows]


class Replaying(OCRTranscriber):
    def __init__(self, models: dict[str, Path], steps_cache: Path | None) -> None:
        super().__init__()
        self.grey_engines = {name: LineRecogniserEngine(path) for name, path in models.items()}
        self.steps: dict[str, list] = {}  # crop key -> readings of steps 1-3
        self.greys: dict[str, dict[str, list]] = {}  # crop key -> model -> grey readings
        self.steps_cache = steps_cache
        if steps_cache is not None and steps_cache.is_file():
            for line in steps_cache.read_text(encoding="utf-8").splitlines():
                k, rows = json.loads(line)
                self.steps[k] = _from_json(rows)
        self.info: dict[str, tuple] = {}  # chart -> (crop key, line height, share)
        self.memo: dict[tuple, object] = {}
        self.current = ""
        self.taken = 0

    def decisions(self, k: str, line_h: float | None, share: float | None) -> tuple:
        rule = CONFIG["rule"]
        if rule is None or k not in self.greys:
            return ()
        model, low, share_from, margin, floor = rule
        greys = self.greys[k][model]
        if not grey_print.in_grey_window(line_h, share, low=low, share_from=share_from):
            return ()
        takes = tuple(choice.prefer_learned(a, b, margin=margin, floor=floor)
                      for a, b in zip(self.steps[k], greys, strict=True))
        return (model, *takes) if any(takes) else ()

    def __call__(self, charts: list) -> list:
        (chart,) = charts
        self.current = str(chart.source)
        if self.current in self.info:
            key = (self.current, self.decisions(*self.info[self.current]))
            if key in self.memo:
                self.taken += sum(key[1][1:])
                return [self.memo[key]]
        WINDOW.clear()
        out = super().__call__(charts)
        if self.current not in self.info:  # no crops were read (no regions)
            return out
        k = self.info[self.current][0]
        self.info[self.current] = (k, WINDOW.get("line_h"), WINDOW.get("share"))
        sig = self.decisions(*self.info[self.current])
        self.taken += sum(sig[1:])
        self.memo[(self.current, sig)] = out[0]
        return out

    def read(self, crops, line_height=None, small_from=choice.SMALL_PRINT_FROM):
        k = f"{crop_key(crops)}/{line_height}/{small_from}"
        if k not in self.steps:
            self.steps[k] = super().read(crops, line_height, small_from)
            if self.steps_cache is not None:
                with self.steps_cache.open("a", encoding="utf-8") as f:
                    f.write(json.dumps([k, _to_json(self.steps[k])]) + "\n")
        self.info[self.current] = (k, line_height, None)
        return list(self.steps[k])

    def grey_read(self, grey_crops, readings):
        k = self.info[self.current][0]
        if k not in self.greys:
            self.greys[k] = {name: e.read(grey_crops) for name, e in self.grey_engines.items()}
        sig = self.decisions(k, WINDOW.get("line_h"), WINDOW.get("share"))
        if not sig:
            return list(readings)
        return [b.noting(a) if take else a.noting(b)
                for take, a, b in zip(sig[1:], readings, self.greys[k][sig[0]], strict=True)]


def main() -> None:
    models = dict(item.split("=", 1) for item in os.environ["GREY_MODELS"].split(","))
    cache = os.environ.get("STEPS_CACHE")
    seg = CachedSeg()
    tr = Replaying({k: Path(v) for k, v in models.items()}, Path(cache) if cache else None)
    rules: list[Any] = [None, *itertools.product(models, LOWS, SHARES, MARGINS, FLOORS)]
    for s in sys.argv[1:]:
        for rule in rules:
            CONFIG["rule"] = rule
            tr.taken = 0
            rep = evaluate_transcription(Path(s), tr, segmenter=seg)
            row = {"set": Path(s).name, "rule": rule, "word_F1": rep["overall"].get("word_f1"),
                   "taken": tr.taken, "failed": len(rep["failures"])}
            u = resource.getrusage(resource.RUSAGE_SELF)
            print(json.dumps(row), f"cpu={u.ru_utime + u.ru_stime:.0f}", flush=True)
    print("load", os.getloadavg())


if __name__ == "__main__":
    main()
