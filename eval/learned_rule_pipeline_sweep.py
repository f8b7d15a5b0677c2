"""Sweep the small-print rule's margin against tesseract and floor on full-pipeline word F1.

    MARGINS=-0.15,0 FLOORS=0.8,0.7 python eval/learned_rule_pipeline_sweep.py /work/data/textrec9_gv

`eval/learned_rule_sweep.py` sweeps the rule on gold node crops; this runs the whole pipeline
(default segmenter, `evaluate_transcription`) once per setting, but reads each chart only once:
the segmentation, the readings of steps 1-2 of `flowpath.transcribe.ocr.choice` and the learned
recogniser's readings are cached per chart, each setting replays `choice.prefer_learned` on them,
and a chart whose choices a setting leaves as an earlier one did is not transcribed again. Prints
one JSON line per (set, margin, floor): overall and per style family word F1.

``LEARNED_MODELS`` (``name=folder``, comma-separated; default the shipped model) compares
recogniser weights in the full pipeline: each model's readings are cached beside the others',
the segmentation and steps 1-2 are shared, and every (set, model, margin, floor) is one line
(``GREY_MODEL``: the grey step's weights, default the shipped `recogniser.GREY_MODEL_DIR`)::

    LEARNED_MODELS=shipped=flowpath/resources/text_recogniser,new=RUN/checkpoint-600 MARGINS=0 \
        FLOORS=0.7 python eval/learned_rule_pipeline_sweep.py /work/data/textrec10_puml

``BLUR_MODELS`` (``off`` or ``name=folder``, comma-separated; default the transcriber's own
setting) compares blur specialists (`OCRTranscriber(blur_model=...)`: the weights that read the
grey crops of charts `grey_print.is_blurred` calls blurred; ``off``: the grey model reads them);
only blurred charts are transcribed again per specialist, and each line counts the charts the
blur gate sends to the specialist (``blur_charts``)::

    BLUR_MODELS=off,blur=RUN MARGINS=0 FLOORS=0.7 python eval/learned_rule_pipeline_sweep.py SETS
"""
from __future__ import annotations

import hashlib
import itertools
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
#: the reader vote (`OCRTranscriber(vote=...)`, `text.vote_words`) off and/or on: ``VOTES=off,on``
VOTES = [v == "on" for v in os.environ.get("VOTES", "on").split(",")]
CONFIG: dict[str, object] = {"margin": -0.15, "floor": 0.8, "model": "shipped", "vote": True, "blur": None}
#: per sweep line: charts the blur gate sends to the specialist (blurred, read by the grey step),
#: whichever model then reads them (``off``: the grey model)
BLUR_READ: list[str] = []


def crop_key(crops) -> str:
    h = hashlib.md5()
    for c in crops:
        h.update(b"N" if c is None else c.image.tobytes() + repr(c.image.shape).encode())
    return h.hexdigest()


class Replaying(OCRTranscriber):
    def __init__(self, models: dict[str, str] | None = None, blur_models: dict[str, str] | None = None) -> None:
        super().__init__(**({"blur_model": True} if blur_models else {}))
        self.models = models or {}  # name -> folder; none: the shipped model, named "shipped"
        self.blur_models = blur_models or {}  # name -> folder ("off": none); none: as configured
        self.blur_engines: dict[str, object] = {}
        self.sharpness: dict[str, float | None] = {}  # chart -> `crops.stroke_sharpness` seen
        self.engines: dict[str, object] = {}
        self.cache: dict[str, tuple] = {}
        self.path_key: dict[str, str] = {}
        self.memo: dict[tuple, object] = {}
        self.current = ""
        self.replayed = 0

    def learned_engine(self):
        name = str(CONFIG["model"])
        if name not in self.models:
            return self._learned_or_none()
        if name not in self.engines:
            from flowpath.transcribe.ocr.recogniser import LineRecogniserEngine

            self.engines[name] = LineRecogniserEngine(self.models[name])
        return self.engines[name]

    def _blur_or_none(self):
        name = CONFIG["blur"]
        if not self.blur_models:
            return super()._blur_or_none()
        if name == "off" or name is None:
            return None
        if name not in self.blur_engines:
            from flowpath.transcribe.ocr.recogniser import LineRecogniserEngine

            eng = LineRecogniserEngine(self.blur_models[str(name)])
            eng.name = "blurrec"
            self.blur_engines[str(name)] = eng
        return self.blur_engines[str(name)]

    def blur_key(self) -> object:
        """The specialist in the memo key of a blurred chart (sharp charts read the same under all)."""
        from flowpath.transcribe.ocr.grey_print import is_blurred

        return CONFIG["blur"] if is_blurred(self.sharpness.get(self.current)) else None

    def signature(self, k: str) -> tuple:
        readings, learned = self.cache[k][0], self.cache[k][1].get(CONFIG["model"])
        if learned is None:
            return ()
        choice.LEARNED_MARGIN["tesseract"] = CONFIG["margin"]
        takes = tuple(choice.prefer_learned(a, b, floor=CONFIG["floor"]) for a, b in zip(readings, learned, strict=True))
        # the same choices with another model: other text (and alternates)
        return (CONFIG["model"], CONFIG["vote"], *takes)

    def __call__(self, charts):
        (chart,) = charts
        self.current = str(chart.source)
        k = self.path_key.get(self.current)
        if k is not None and self.current in self.sharpness:
            key = (self.current, self.signature(k), self.blur_key())
            if key in self.memo:
                return self._counted([self.memo[key]])
        out = super().__call__(charts)
        self.sharpness[self.current] = out[0].meta.get("stroke_sharpness")
        k = self.path_key.get(self.current)
        if k is not None:
            self.memo[(self.current, self.signature(k), self.blur_key())] = out[0]
            self.replayed += 1
        return self._counted(out)

    def _counted(self, out):
        from flowpath.transcribe.ocr.grey_print import is_blurred

        if out[0].meta.get("grey_reader") and is_blurred(out[0].meta.get("stroke_sharpness")):
            BLUR_READ.append(self.current)
        return out

    def read(self, crops, line_height=None, small_from=choice.SMALL_PRINT_FROM):
        k = crop_key(crops)
        if k not in self.cache:
            self.cache[k] = (self._second_opinion(crops, self.tesseract.read(crops)), {})
        by_model = self.cache[k][1]
        if CONFIG["model"] not in by_model:
            learned = None
            if (line_height is not None and small_from <= line_height < choice.SMALL_PRINT_BELOW
                    and any(c is not None for c in crops)):
                eng = self.learned_engine()
                learned = eng.read(crops) if eng is not None else None
            by_model[CONFIG["model"]] = learned
        self.path_key[self.current] = k
        readings, learned = self.cache[k][0], by_model[CONFIG["model"]]
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
    models = dict(item.split("=", 1) for item in os.environ["LEARNED_MODELS"].split(",")) \
        if os.environ.get("LEARNED_MODELS") else {}
    if os.environ.get("GREY_MODEL"):
        from flowpath.transcribe.ocr import recogniser

        recogniser.GREY_MODEL_DIR = Path(os.environ["GREY_MODEL"])  # read when the grey step first loads
    blur_models = {item.split("=", 1)[0]: item.split("=", 1)[-1] for item in os.environ["BLUR_MODELS"].split(",")} \
        if os.environ.get("BLUR_MODELS") else {}
    seg, tr = CachedSeg(), Replaying(models, blur_models)
    out = []
    # one specialist over every set before the next (its lines together; a run still training is
    # measured last)
    for blur, s in itertools.product(blur_models or [None], sys.argv[1:]):
        for name, m, f, vote in itertools.product(models or ["shipped"], MARGINS, FLOORS, VOTES):
            CONFIG.update(margin=m, floor=f, model=name, vote=vote, blur=blur)
            tr.vote = vote
            BLUR_READ.clear()
            rep = evaluate_transcription(Path(s), tr, segmenter=seg)
            row = {"set": Path(s).name, "model": name, "blur": blur, "blur_charts": len(set(BLUR_READ)),
                   "margin": m, "floor": f, "vote": vote,
                   "word_F1": rep["overall"].get("word_f1"),
                   "by_family": {k: v.get("word_f1") for k, v in rep.get("by_family", {}).items()},
                   "failed": len(rep["failures"])}
            out.append(row)
            u = resource.getrusage(resource.RUSAGE_SELF)
            print(json.dumps(row), f"cpu={u.ru_utime + u.ru_stime:.0f}", flush=True)
    print("load", os.getloadavg())


if __name__ == "__main__":
    main()
