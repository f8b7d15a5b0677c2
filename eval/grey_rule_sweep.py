"""Sweep the grey-crop rule (`flowpath.transcribe.ocr.grey_print`) on full-pipeline word F1.

    GREY_MODELS=ck600=/work/data/greyrec11_ft/run/checkpoint-600 STEPS_CACHE=runs/grey11/steps.jsonl \
        python eval/grey_rule_sweep.py /work/data/textrec10_puml /work/data/textrec10_gv ...

Like `eval/learned_rule_pipeline_sweep.py`: the segmentation, the readings of steps 1-3 and the
grey recogniser's readings of every chart under `grey_print.GREY_BELOW` are cached per chart
(read once), and each setting replays `grey_print.grey_opinion`'s choice on them; a chart whose
choices a setting leaves as an earlier one did is not transcribed again. Settings (environment,
comma-separated): the window's lower bound ``LOWS``; its blur gate ``GATES`` (``inf``: every
small-print chart; ``sharpN``: `crops.stroke_sharpness` under N; ``shareN``: `crops.strong_ink_share`
at least N, the eleventh stretch's gate); the grey reading's ``MARGINS`` and ``FLOORS``;
``BLURREDS`` (``T:m``: on charts whose sharpness is under T the margin is m, ``inf`` allowed: the
grey reading the default there; ``off``); ``RAPIDS`` (``m:f``: on those blurred charts rapidocr's
recogniser reads the grey crops too and its reading replaces the one kept where
`choice.prefer_learned` with that margin and floor says so; ``off``); for each of ``GREY_MODELS``
(``name=folder``, comma-separated), plus "off" (the grey step not taken). ``STEPS_CACHE``: a JSON-lines file the readings of
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


LOWS = _floats("LOWS", "6.5")
GATES = os.environ.get("GATES", "inf,share0.8").split(",")
MARGINS = _floats("MARGINS", "0")
FLOORS = _floats("FLOORS", "0.7")
BLURREDS = os.environ.get("BLURREDS", "off").split(",")
RAPIDS = os.environ.get("RAPIDS", "off").split(",")
#: the setting being replayed (None: the grey step off)
CONFIG: dict[str, Any] = {"rule": None}
#: what the transcriber measured of the chart being read
WINDOW: dict[str, Any] = {}


def _recorder(name: str, real: Any) -> Any:
    def record(*a: Any) -> Any:
        WINDOW[name] = real(*a)
        return WINDOW[name]
    return record


def _capture(line_height: float | None, **_: Any) -> bool:
    """Every chart under the window's top is read by the grey recogniser; the rule is replayed."""
    WINDOW["line_h"] = line_height
    return line_height is not None and line_height < grey_print.GREY_BELOW


tr_mod.in_grey_window = _capture
tr_mod.strong_ink_share = _recorder("share", tr_mod.strong_ink_share)
tr_mod.stroke_sharpness = _recorder("sharpness", tr_mod.stroke_sharpness)


def gated(line_h: float | None, blur: tuple | None, low: float, gate: str) -> bool:
    """The grey window (`grey_print.in_grey_window`) with ``gate`` (see ``GATES``) as a blur gate."""
    if not grey_print.in_grey_window(line_h, low=low):
        return False
    share, sharpness = blur or (None, None)
    if gate.startswith("share"):
        return share is not None and share >= float(gate[5:])
    if gate.startswith("sharp"):
        return grey_print.is_blurred(sharpness, below=float(gate[5:]))
    return True


def _to_json(readings: list[Reading]) -> list[Any]:
    return [[r.words, r.confidence, r.engine, list(r.alternates)] for r in readings]


def _from_json(rows: list[Any]) -> list[Reading]:
    return [Reading([tuple(w) for w in words], conf, engine, tuple(alt)) for words, conf, engine, alt in rows]


class Replaying(OCRTranscriber):
    def __init__(self, models: dict[str, Path], steps_cache: Path | None) -> None:
        super().__init__()
        self.grey_engines = {name: LineRecogniserEngine(path) for name, path in models.items()}
        self.rapid = self._rapidocr_or_none() if RAPIDS != ["off"] else None
        self.steps: dict[str, list] = {}  # crop key -> readings of steps 1-3
        self.greys: dict[str, dict[str, list]] = {}  # crop key -> model (or "rapid") -> grey readings
        self.steps_cache = steps_cache
        if steps_cache is not None and steps_cache.is_file():
            for line in steps_cache.read_text(encoding="utf-8").splitlines():
                k, rows = json.loads(line)
                self.steps[k] = _from_json(rows)
        self.info: dict[str, tuple] = {}  # chart -> (crop key, line height, (share, sharpness))
        self.memo: dict[tuple, object] = {}
        self.current = ""
        self.taken = 0

    def decisions(self, k: str, line_h: float | None, blur: tuple | None) -> tuple:
        """(model, rapid asked, per node 0 kept / 1 grey / 2 rapidocr on grey), () for no change."""
        rule = CONFIG["rule"]
        if rule is None or k not in self.greys:
            return ()
        model, low, gate, margin, floor, blurred, rapid = rule
        if not gated(line_h, blur, low, gate):
            return ()
        is_blurred = blurred != "off" and grey_print.is_blurred((blur or (None, None))[1],
                                                                below=float(blurred.split(":")[0]))
        if is_blurred:
            margin = float(blurred.split(":")[1])
        else:
            rapid = "off"
        takes = []
        for i, (a, b) in enumerate(zip(self.steps[k], self.greys[k][model], strict=True)):
            t = 1 if choice.prefer_learned(a, b, margin=margin, floor=floor) else 0
            if rapid != "off":
                rm, rf = (float(x) for x in rapid.split(":"))
                if choice.prefer_learned(b if t else a, self.greys[k]["rapid"][i], margin=rm, floor=rf):
                    t = 2
            takes.append(t)
        return (model, rapid, *takes) if any(takes) or rapid != "off" else ()

    def __call__(self, charts: list) -> list:
        (chart,) = charts
        self.current = str(chart.source)
        if self.current in self.info:
            key = (self.current, self.decisions(*self.info[self.current]))
            if key in self.memo:
                self.taken += sum(1 for t in key[1][2:] if t)
                return [self.memo[key]]
        WINDOW.clear()
        out = super().__call__(charts)
        if self.current not in self.info:  # no crops were read (no regions)
            return out
        self.info[self.current] = self._info()
        sig = self.decisions(*self.info[self.current])
        self.taken += sum(1 for t in sig[2:] if t)
        self.memo[(self.current, sig)] = out[0]
        return out

    def _info(self) -> tuple:
        return (self.info[self.current][0], WINDOW.get("line_h"), (WINDOW.get("share"), WINDOW.get("sharpness")))

    def read(self, crops, line_height=None, small_from=choice.SMALL_PRINT_FROM):
        k = f"{crop_key(crops)}/{line_height}/{small_from}"
        if k not in self.steps:
            self.steps[k] = super().read(crops, line_height, small_from)
            if self.steps_cache is not None:
                with self.steps_cache.open("a", encoding="utf-8") as f:
                    f.write(json.dumps([k, _to_json(self.steps[k])]) + "\n")
        self.info[self.current] = (k, line_height, None)
        return list(self.steps[k])

    def grey_read(self, grey_crops, readings, margin=grey_print.GREY_MARGIN):
        k = self.info[self.current][0]
        if k not in self.greys:
            self.greys[k] = {name: e.read(grey_crops) for name, e in self.grey_engines.items()}
            if self.rapid is not None:
                self.greys[k]["rapid"] = self.rapid.recognise(grey_crops)
        sig = self.decisions(*self._info())
        if not sig:
            return list(readings)
        out = []
        for i, (take, a, b) in enumerate(zip(sig[2:], readings, self.greys[k][sig[0]], strict=True)):
            r = b.noting(a) if take == 1 else a.noting(b)
            if sig[1] != "off":
                c = self.greys[k]["rapid"][i]
                r = c.noting(r) if take == 2 else r.noting(c)
            out.append(r)
        return out


def main() -> None:
    models = dict(item.split("=", 1) for item in os.environ["GREY_MODELS"].split(","))
    cache = os.environ.get("STEPS_CACHE")
    seg = CachedSeg()
    tr = Replaying({k: Path(v) for k, v in models.items()}, Path(cache) if cache else None)
    rules: list[Any] = [None, *itertools.product(models, LOWS, GATES, MARGINS, FLOORS, BLURREDS, RAPIDS)]
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
