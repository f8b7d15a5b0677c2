"""Replay the node-reading choice on recorded readings, spelling included, and fit a chooser.

    python eval/reading_choice_replay.py runs/gvw10/gvword10_a.jsonl runs/gvw10/gvword10_b.jsonl
    python eval/reading_choice_replay.py --fit runs/gvw10/gvword10_a.jsonl -- runs/gvw10/gvword10_b.jsonl

Records come from `eval/ocr_node_readings.py` (every engine's reading of every gold node crop).
Per chart this replays what the `OCRTranscriber` keeps: steps 1-2 of
`flowpath.transcribe.ocr.choice` (rapidocr only on the crops they hand it), step 3 (the learned
recogniser on small print) and the small-print spelling against the chart's own words
(`text.chart_words`, `text.correct_spelling`), and prints node word F1 per set and per line-height
band for: the shipped rule, the shipped rule with `choose_reading` (a pairwise logistic chooser
fitted with ``--fit``) instead of step 3's `prefer_learned`, and the oracle (best available
reading per node) with spelling (``oracle+sp``) and before it (``oracle``). ``--fit`` fits the chooser's weights (a pairwise logistic regression on
`reading_features`) on the given records and prints them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eval.ocr_node_readings import _get, f1, overlap  # noqa: E402

BANDS = ((0.0, 8.0), (8.0, 8.5), (8.5, 11.0), (11.0, 14.0), (14.0, 1e9))


#: the features `reading_features` gives each reading of a small-print node, in order
FEATURES = ("tesseract", "rapidocr", "textrec", "conf_tesseract", "conf_rapidocr", "conf_textrec",
            "known", "unknown", "chart", "agree", "words", "empty")
#: weights of the pairwise logistic chooser (`choose_reading`): `fit`'s output
CHOOSER_WEIGHTS: dict[str, float] = {}


def reading_features(have: dict[str, Any], others: list[dict[str, Any]]) -> dict[str, list[float]]:
    """Per engine's reading of one node (``have``: engine -> reading), the `FEATURES`: which
    engine read it and how sure it was (per engine: the engines' confidences are not on one
    scale), the share of its words the English frequency list knows and how many it does not,
    the share of them read in the chart's other nodes (``others``: their readings, any engine),
    how close it is to the other engines' readings of this node (word overlap), its word count
    against the longest reading's, and whether it is empty."""
    from collections import Counter

    from flowpath.metrics.transcription import words
    from flowpath.transcribe.ocr.text import frequency_words

    def word_overlap(a: list[str], b: list[str]) -> float:
        if not a and not b:
            return 1.0
        return 2 * sum((Counter(a) & Counter(b)).values()) / (len(a) + len(b))

    freq = frequency_words()
    toks = {e: words(r.text) for e, r in have.items()}
    elsewhere = {w for o in others for r in o.values() for w in words(r.text)}
    most = max((len(t) for t in toks.values()), default=0) or 1
    out = {}
    for e, r in have.items():
        t = toks[e]
        long = [w for w in t if len(w) >= 3 and w.isalpha()]
        known = sum(w in freq for w in long)
        agree = [word_overlap(t, toks[o]) for o in have if o != e]
        out[e] = [float(e == "tesseract"), float(e == "rapidocr"), float(e == "textrec"),
                  r.confidence * (e == "tesseract"), r.confidence * (e == "rapidocr"), r.confidence * (e == "textrec"),
                  known / len(long) if long else 0.0, float(len(long) - known),
                  sum(w in elsewhere for w in long) / len(long) if long else 0.0,
                  sum(agree) / len(agree) if agree else 0.0, len(t) / most, float(not t)]
    return out


def choose_reading(kept: Any, have: dict[str, Any], others: list[dict[str, Any]]) -> str:
    """The engine whose reading scores highest under `CHOOSER_WEIGHTS`; ties keep ``kept``."""
    feats = reading_features(have, others)
    score = {e: sum(CHOOSER_WEIGHTS.get(k, 0.0) * v for k, v in zip(FEATURES, f, strict=True)) for e, f in feats.items()}
    best = max(score.values())
    return str(kept.engine) if score.get(kept.engine) == best else max(score, key=lambda e: score[e])


def load(paths: list[Path]) -> list[dict[str, Any]]:
    out = []
    for p in paths:
        for line in p.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            r["set"] = p.stem
            out.append(r)
    return out


def by_chart(records: list[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        groups[(r["set"], r["chart"])].append(r)
    return groups


def candidates(rs: list[dict[str, Any]], rapid_all: bool = False) -> list[dict[str, Any]]:
    """Per node of one chart: the readings the transcriber has (engine -> Reading), the kept
    one after steps 1-2 and the small-print flag."""
    from flowpath.transcribe.ocr.choice import SMALL_PRINT_BELOW, SMALL_PRINT_FROM, choose_engines
    from flowpath.transcribe.ocr.engines import Reading
    from flowpath.transcribe.ocr.text import fix_letter_slips

    def reading(rec: dict[str, Any], engine: str, name: str) -> Reading:
        g = _get(rec, engine)
        text = g["text"] if engine in ("tesseract", "textrec") else fix_letter_slips(g["text"])
        return Reading([(0, 0, 1, text)] if text else [], float(g["conf"]), name)

    plan = choose_engines([r["tesseract"]["conf"] for r in rs])
    rname = "rapidocr_det" if plan.handwritten else "rapidocr_split"
    line_h = rs[0].get("line_h")
    small = line_h is not None and SMALL_PRINT_FROM <= line_h < SMALL_PRINT_BELOW
    out = []
    for i, r in enumerate(rs):
        # the transcriber keeps rapidocr's reading only where steps 1-2 keep it (the one they
        # pass over survives as text in `Reading.alternates`, without its confidence)
        have = {"tesseract": reading(r, "tesseract", "tesseract")}
        rapid = reading(r, rname, "rapidocr")
        kept, alternates = have["tesseract"], []
        if i in plan.second:
            if plan.keep_second(kept.confidence, rapid.confidence, bool(rapid.words)):
                kept = have["rapidocr"] = rapid
            elif rapid.text:
                alternates.append(rapid.text)
        if rapid_all and small:
            have["rapidocr"] = rapid
        if small:
            have["textrec"] = reading(r, "textrec", "textrec")
        out.append({"have": have, "kept": kept, "alternates": alternates, "gold": r["gold"], "small": small, "line_h": line_h, "handwritten": plan.handwritten})
    return out


Chooser = Callable[[dict[str, Any], list[dict[str, Any]]], str]


def shipped(node: dict[str, Any], chart: list[dict[str, Any]]) -> str:
    from flowpath.transcribe.ocr.choice import prefer_learned

    kept = node["kept"]
    if node["small"] and prefer_learned(kept, node["have"]["textrec"]):
        return "textrec"
    return kept.engine


def oracle_chooser(node: dict[str, Any], chart: list[dict[str, Any]]) -> str:
    """The available reading with the most word overlap with the gold text (ties: the kept)."""
    def util(e: str) -> tuple[int, bool]:
        o = overlap(node["have"][e].text, node["gold"])
        return 2 * o[0] - o[1], e == node["kept"].engine
    return max(node["have"], key=util)


def learned_chooser(node: dict[str, Any], chart: list[dict[str, Any]]) -> str:
    if not node["small"]:
        return node["kept"].engine
    i = chart.index(node)
    others = [n["have"] for j, n in enumerate(chart) if j != i]
    return choose_reading(node["kept"], node["have"], others)


def replay_texts(records: list[dict[str, Any]], chooser: Chooser, rapid_all: bool = False,
                 spell: bool = True) -> list[tuple[dict[str, Any], str, str]]:
    """(record, engine chosen, final text) per node: the chooser's pick, then the transcriber's
    small-print spelling against the chart's words (kept readings and the others)."""
    from flowpath.transcribe.ocr import text as tx
    from flowpath.transcribe.ocr.crops import SMALL_LINE

    out = []
    for rs in by_chart(records).values():
        chart = candidates(rs, rapid_all)
        picks = [chooser(n, chart) for n in chart]
        texts = [n["have"][p].text for n, p in zip(chart, picks, strict=True)]
        alts = [n["have"][e].text for n, p in zip(chart, picks, strict=True) for e in n["have"] if e != p]
        alts += [a for n in chart for a in n["alternates"]]
        line_h = chart[0]["line_h"]
        if spell and line_h is not None and line_h < SMALL_LINE:
            words = tx.chart_words([*texts, *alts])
            texts = [tx.correct_spelling(t, "eng", words, keep_acronyms=p != "rapidocr")
                     for t, p in zip(texts, picks, strict=True)]
        out += list(zip(rs, picks, texts, strict=True))
    return out


def band(r: dict[str, Any]) -> str:
    h = r.get("line_h") or 0.0
    for lo, hi in BANDS:
        if lo <= h < hi:
            return f"{lo:g}-{hi:g}"
    return "?"


def report(records: list[dict[str, Any]], rapid_all: bool = False) -> None:
    rules: dict[str, Chooser] = {"shipped": shipped, "oracle+sp": oracle_chooser}
    if CHOOSER_WEIGHTS:
        rules["chooser"] = learned_chooser
    results = {name: replay_texts(records, rule, rapid_all) for name, rule in rules.items()}
    oracle = []
    for rs in by_chart(records).values():
        for r, n in zip(rs, candidates(rs, rapid_all), strict=True):
            oracle.append(max((overlap(x.text, r["gold"]) for x in n["have"].values()), key=lambda o: 2 * o[0] - o[1]))
    groups: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(records_in_order(records)):
        groups[r["set"]].append(i)
        groups[f"  {r['set']} {band(r)}"].append(i)
        groups["all"].append(i)
    print(f"{'group':30s} {'nodes':>5s} " + " ".join(f"{n:>9s}" for n in rules) + f" {'oracle':>9s}")
    for g in sorted(groups, key=lambda k: (k.strip().split()[0] if k != 'all' else '~', k)):
        idx = groups[g]
        cells = [f1([overlap(results[n][i][2], results[n][i][0]["gold"]) for i in idx]) for n in rules]
        print(f"{g:30s} {len(idx):5d} " + " ".join(f"{c:9.3f}" for c in cells) + f" {f1([oracle[i] for i in idx]):9.3f}")


def records_in_order(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for rs in by_chart(records).values() for r in rs]


def fit(records: list[dict[str, Any]], rapid_all: bool = False, c: float = 1.0) -> dict[str, float]:
    """Pairwise logistic regression: for two readings of a node whose word overlap with the gold
    text differs, the feature difference predicts which one is better."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    xs, ys, ws = [], [], []
    for rs in by_chart(records).values():
        chart = candidates(rs, rapid_all)
        for i, (r, n) in enumerate(zip(rs, chart, strict=True)):
            if not n["small"]:
                continue
            others = [m["have"] for j, m in enumerate(chart) if j != i]
            feats = reading_features(n["have"], others)
            util = {e: (lambda o: 2 * o[0] - o[1])(overlap(x.text, r["gold"])) for e, x in n["have"].items()}
            names = list(n["have"])
            for a in range(len(names)):
                for b in range(a + 1, len(names)):
                    ea, eb = names[a], names[b]
                    if util[ea] == util[eb]:
                        continue
                    d = np.array(feats[ea]) - np.array(feats[eb])
                    xs += [d, -d]
                    ys += [int(util[ea] > util[eb]), int(util[eb] > util[ea])]
                    ws += [abs(util[ea] - util[eb])] * 2
    model = LogisticRegression(C=c, fit_intercept=False, max_iter=2000)
    model.fit(np.array(xs), np.array(ys), sample_weight=np.array(ws, float))
    print(f"pairs: {len(xs) // 2}, train accuracy {model.score(np.array(xs), np.array(ys)):.3f}")
    return {k: round(float(w), 4) for k, w in zip(FEATURES, model.coef_[0], strict=True)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("records", nargs="*", type=Path)
    ap.add_argument("--fit", nargs="*", type=Path, help="fit the chooser's weights on these records")
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--rapid-all", action="store_true", help="rapidocr's reading of every small-print node too")
    args = ap.parse_args()
    if args.fit:
        weights = fit(load(args.fit), args.rapid_all, args.C)
        print(json.dumps(weights))
        CHOOSER_WEIGHTS.update(weights)
    if args.records:
        report(load(args.records), args.rapid_all)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
