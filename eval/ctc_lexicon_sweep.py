"""Sweep lexicon-aware CTC decoding (`flowpath.transcribe.ocr.ctc_lexicon`) on full-pipeline word F1.

    MARGINS=0,1,2,4 WHERE=both,learned,grey python eval/ctc_lexicon_sweep.py /work/data/textrec10_puml ...

Like `eval/grey_rule_sweep.py`: the segmentation, the readings of steps 1-2 (tesseract, rapidocr)
and the learned and grey recognisers' posteriors are cached per chart (read once); each setting
decodes the cached posteriors again and replays the shipped rules (`choice.learned_opinion`,
`grey_print.grey_opinion`, spelling); a chart whose node readings a setting leaves as an earlier
one did is not transcribed again. Settings: "off" (greedy decoding) and ``WHERE`` (which readers
decode with the lexicon: ``both``, ``learned`` (cleaned crops), ``grey``) x ``MARGINS`` x
``CANDIDATES`` x ``PRIORS`` (environment, comma-separated), or the list ``RULES`` (JSON: ``[["both", {"margin": 5}], ...]``). Prints one JSON line per (set,
setting): word F1, words the decoding changed, and the decoding's CPU seconds.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import logging
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
logging.disable(logging.WARNING)

from eval.learned_rule_pipeline_sweep import CachedSeg, crop_key  # noqa: E402
from flowpath.evaluation.transcription import evaluate_transcription  # noqa: E402
from flowpath.transcribe.ocr import OCRTranscriber, choice  # noqa: E402
from flowpath.transcribe.ocr.ctc_lexicon import LexiconSetting  # noqa: E402
from flowpath.transcribe.ocr.grey_print import GREY_MARGIN, grey_opinion  # noqa: E402
from flowpath.transcribe.ocr.recogniser import GREY_MODEL_DIR, MODEL_DIR, LineRecogniserEngine  # noqa: E402


def _list(name: str, default: str, kind: Any = float) -> list[Any]:
    return [kind(x) for x in os.environ.get(name, default).split(",")]


WHERE = _list("WHERE", "both", str)
MARGINS = _list("MARGINS", "0,1,2,4")
CANDIDATES = _list("CANDIDATES", "24", int)
PRIORS = _list("PRIORS", "0")
#: the setting replayed: (where, LexiconSetting) or None (greedy)
CONFIG: dict[str, Any] = {"rule": None}
#: per setting: the decoding's CPU seconds and the lines it changed (counted once per chart)
STATS: dict[str, Any] = {"decode_cpu": 0.0, "changed": 0, "on": True}


class CachingRecogniser(LineRecogniserEngine):
    """The shipped recogniser whose posteriors are computed once per batch of lines; the
    decoding follows `CONFIG`."""

    def __init__(self, model_dir: Path, role: str) -> None:
        super().__init__(model_dir)
        self.role = role
        self.cache: dict[str, tuple] = {}

    def posteriors(self, lines):  # type: ignore[no-untyped-def]
        h = hashlib.md5()
        for ln in lines:
            h.update(ln.tobytes() + repr(ln.shape).encode())
        k = h.hexdigest()
        if k not in self.cache:
            self.cache[k] = super().posteriors(lines)
        return self.cache[k]

    def read_lines(self, lines):  # type: ignore[no-untyped-def]
        rule = CONFIG["rule"]
        self.lexicon = None if rule is None or rule[0] not in ("both", self.role) else rule[1]
        t = time.process_time()
        out = super().read_lines(lines)
        if self.lexicon is not None and STATS["on"]:
            STATS["decode_cpu"] += time.process_time() - t
            self.lexicon = None
            greedy = super().read_lines(lines)
            STATS["changed"] += sum(a[0] != b[0] for a, b in zip(out, greedy, strict=True))
        return out


class Replaying(OCRTranscriber):
    def __init__(self) -> None:
        super().__init__()
        self._learned = CachingRecogniser(MODEL_DIR, "learned")
        self._grey = CachingRecogniser(GREY_MODEL_DIR, "grey")
        self.steps: dict[str, list] = {}  # crop key -> readings of steps 1-2
        self.info: dict[str, dict[str, Any]] = {}  # chart -> what its node reading was given
        self.memo: dict[tuple, object] = {}
        self.current = ""

    def signature(self) -> tuple | None:
        info = self.info.get(self.current)
        if info is None or "crops" not in info:
            return None
        readings = self.read(info["crops"], info["line_h"], info["small_from"])
        if "grey" in info:
            readings = self.grey_read(info["grey"], readings, info["grey_margin"])
        return tuple((r.text, r.engine, r.alternates) for r in readings)

    def __call__(self, charts: list) -> list:
        (chart,) = charts
        self.current = str(chart.source)
        STATS["on"] = True
        sig = self.signature()
        if sig is not None and (self.current, sig) in self.memo:
            return [self.memo[(self.current, sig)]]
        STATS["on"] = sig is None
        out = super().__call__(charts)
        STATS["on"] = False
        sig = self.signature()
        if sig is not None:
            self.memo[(self.current, sig)] = out[0]
        return out

    def read(self, crops, line_height=None, small_from=choice.SMALL_PRINT_FROM):  # type: ignore[no-untyped-def]
        k = crop_key(crops)
        if k not in self.steps:
            self.steps[k] = self._second_opinion(crops, self.tesseract.read(crops))
        self.info.setdefault(self.current, {}).update(crops=crops, line_h=line_height, small_from=small_from)
        return choice.learned_opinion(crops, list(self.steps[k]), lambda: self._learned, line_height,
                                      small_from=small_from)

    def grey_read(self, grey_crops, readings, margin=GREY_MARGIN):  # type: ignore[no-untyped-def]
        self.info[self.current].update(grey=grey_crops, grey_margin=margin)
        return grey_opinion(grey_crops, readings, lambda: self._grey, margin=margin)


def main() -> None:
    seg, tr = CachedSeg(), Replaying()
    rules: list[Any] = [None, *((w, LexiconSetting(margin=m, candidates=c, prior=p))
                                for w, m, c, p in itertools.product(WHERE, MARGINS, CANDIDATES, PRIORS))]
    if os.environ.get("RULES"):  # a JSON list of [where, {LexiconSetting fields}] instead of the product
        rules = [None, *((w, LexiconSetting(**kw)) for w, kw in json.loads(os.environ["RULES"]))]
    for s in sys.argv[1:]:
        for rule in rules:
            CONFIG["rule"] = rule
            STATS.update(decode_cpu=0.0, changed=0)
            rep = evaluate_transcription(Path(s), tr, segmenter=seg)
            row = {"set": Path(s).name, "rule": None if rule is None else [rule[0], *rule[1].__dict__.values()],
                   "word_F1": round(rep["overall"].get("word_f1"), 4), "changed_lines": STATS["changed"],
                   "decode_cpu": round(STATS["decode_cpu"], 2), "failed": len(rep["failures"])}
            u = resource.getrusage(resource.RUSAGE_SELF)
            print(json.dumps(row), f"cpu={u.ru_utime + u.ru_stime:.0f}", flush=True)
    print("load", os.getloadavg())


if __name__ == "__main__":
    main()
