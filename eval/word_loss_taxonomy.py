"""Where the full pipeline loses node-text words: one class per lost gold word (issue 14).

    python eval/word_loss_taxonomy.py /work/data/textrec10_puml --out runs/taxonomy/textrec10_puml.jsonl
    python eval/word_loss_taxonomy.py --summary runs/taxonomy/*.jsonl

Runs the shipped pipeline (default segmenter, `OCRTranscriber`, `evaluate_transcription`'s node
matching) and records, per predicted node, what every stage read: tesseract, the reading steps 1-2
of `flowpath.transcribe.ocr.choice` kept (tesseract or rapidocr), the learned recogniser's and the
grey recogniser's (on a blurred chart the blur specialist's) readings both greedy and
lexicon-decoded (`ctc_lexicon`), which reader's
reading was kept, the text before spelling and the final text. Every gold word the final text
lacks (the metric's bag of words, `overlap`) is given the first class that explains it:

``node_missed``  no predicted node matches the gold node;
``other_node``   the word is read, but in another predicted node (where that node's gold lacks it);
``space_lost`` / ``space_added``  a word boundary: the word and its gold neighbour read as one
                 token, or the word read as two or three tokens (exact letters);
``punctuation``  the gold writes the word joined to its neighbour by punctuation (``e-mail``) and
                 the reading has the two as one token, or the reverse;
``spelling_broke``  the text before spelling had the word, spelling (or the readers' vote,
                 `text.vote_words`, which runs after it) "mended" it away;
``lexicon_broke``  the kept learned reader's greedy line had the word, its lexicon decoding lost it;
``line_cut``     the kept reader read another number of lines than the gold has (merged or split
                 lines: `crop_lines`' bands for the learned readers, `text.group_lines` for the
                 first engines);
``choice``       another reader of the same crop (after spelling) read the word, the kept one did not;
``near_miss``    misread, and the misread token is within the edits spelling and the lexicon search
                 (`text.near_words`) so the right word was reachable: "the lexicon left a wrong one";
``misread``      misread beyond reach (or not read at all).

Each record keeps every flag, so the summary also cross-tabulates (e.g. line_cut words another
reader had). Excess predicted words (the F1's false positives) are split into ``paired`` (a lost
word's misreading in the same node), ``other_node`` (another node's gold word) and ``extra``
(nothing to pair with: text outside the node's gold, specks). The summary prints words per class
and per kept reader.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
logging.disable(logging.WARNING)

from eval.learned_rule_pipeline_sweep import CachedSeg  # noqa: E402
from flowpath.metrics.transcription import words  # noqa: E402
from flowpath.transcribe.ocr import OCRTranscriber  # noqa: E402
from flowpath.transcribe.ocr import text as tx  # noqa: E402
from flowpath.transcribe.ocr.crops import SMALL_LINE  # noqa: E402

CLASSES = ("node_missed", "other_node", "space_lost", "space_added", "punctuation", "spelling_broke",
           "lexicon_broke", "line_cut", "choice", "near_miss", "misread")
#: the learned line readers: the cleaned-crop and grey recognisers, and the blur specialist that
#: reads a blurred chart's grey crops in the grey recogniser's place (`grey_print.BLUR_SPECIALIST`)
LEARNED_READERS = ("textrec", "greyrec", "blurrec")
READERS = ("tesseract", "rapidocr", *LEARNED_READERS)


class _Recorder:
    """A learned engine that also reads greedily (lexicon off) and keeps both per chart."""

    def __init__(self, engine: Any, log: dict[str, Any]) -> None:
        self.engine, self.log, self.name = engine, log, engine.name

    def read(self, crops: Any) -> Any:
        out = self.engine.read(crops)
        lexicon, self.engine.lexicon = self.engine.lexicon, None
        try:
            greedy = self.engine.read(crops)
        finally:
            self.engine.lexicon = lexicon
        self.log[self.name] = {"lex": out, "greedy": greedy}
        return out


class Tracing(OCRTranscriber):
    """The shipped transcriber, recording every stage's readings per chart (``self.traces``)."""

    def __init__(self) -> None:
        super().__init__()
        self.traces: dict[str, dict[str, Any]] = {}
        self.log: dict[str, Any] = {}

    def __call__(self, charts: Any) -> Any:
        (chart,) = charts
        self.log = {}
        out = super().__call__(charts)
        self.traces[str(chart.source)] = self.log
        return out

    def _learned_or_none(self) -> Any:
        eng = super()._learned_or_none()
        return None if eng is None else _Recorder(eng, self.log)

    def _grey_or_none(self) -> Any:
        eng = super()._grey_or_none()
        return None if eng is None else _Recorder(eng, self.log)

    def _blur_or_none(self) -> Any:
        eng = super()._blur_or_none()
        return None if eng is None else _Recorder(eng, self.log)

    def _second_opinion(self, crops: Any, readings: Any) -> Any:
        self.log["crops"] = crops
        self.log["tesseract"] = readings
        out = super()._second_opinion(crops, readings)
        self.log["first"] = out
        return out

    def _graph(self, page: Any, nodes: Any, boxes: Any, components: Any) -> Any:
        readings = nodes.reading.result()
        self.log["letters"] = list(page.letters)
        self.log["line_h"] = nodes.line_h
        self.log["kept"] = readings
        self.log["pre_spell"] = self._texts(readings)
        self.log["chart_words"] = tx.chart_words([*self.log["pre_spell"], *(a for r in readings for a in r.alternates)])
        tr = super()._graph(page, nodes, boxes, components)
        self.log["final"] = [tr.chart.nodes[k].text if k in tr.chart.nodes else "" for k in page.letters]
        return tr


def _lines(reading: Any) -> int:
    """Lines a reading holds: one word per line for the line readers, grouped for tesseract."""
    return len(tx.group_lines(reading.words)) if reading.words else 0


def node_records(bench: Path, limit: int | None, seg: CachedSeg, tr: Tracing) -> list[dict[str, Any]]:
    """One record per gold node with text: the stages' readings of the node it was matched to."""
    from flowpath.datasets.febench import Benchmark
    from flowpath.evaluation.transcription import evaluate_transcription

    rep = evaluate_transcription(bench, tr, segmenter=seg, limit=limit)
    bm = Benchmark(bench)
    out: list[dict[str, Any]] = []
    for rec in rep["records"]:
        chart = bm.chart(rec["chart"])
        js = json.loads(Path(chart.image_path).with_suffix(".json").read_text(encoding="utf-8"))
        trace = tr.traces.get(str(chart.image_path), {})
        letters = trace.get("letters", [])
        by_gold = {g: p for p, g in rec["mapping"].items()}
        finals = dict(zip(letters, trace.get("final", []), strict=False))
        spell_on = trace.get("line_h", 99) < SMALL_LINE
        chart_words = trace.get("chart_words")

        def spelt(text: str, engine: str, *, on: bool = spell_on, counter: Any = chart_words) -> str:
            if not on or not text:
                return text
            return tx.correct_spelling(text, chart=counter, keep_acronyms=engine != "rapidocr")

        for gid, node in js["nodes"].items():
            gold = (node.get("text") or "").strip()
            if not words(gold):
                continue
            r: dict[str, Any] = {"set": bench.name, "chart": rec["chart"], "node": gid, "gold": gold,
                                 "gold_lines": gold.count("\n") + 1, "line_h": trace.get("line_h"),
                                 "others": {k: v for k, v in finals.items() if k != by_gold.get(gid)},
                                 "others_gold": {}}
            letter = by_gold.get(gid)
            for p, g in rec["mapping"].items():
                if p != letter:
                    r["others_gold"][p] = js["nodes"].get(g, {}).get("text") or ""
            if letter is None or letter not in letters:
                r["pred"] = None
                out.append(r)
                continue
            i = letters.index(letter)
            kept = trace["kept"][i]
            crop = trace["crops"][i]
            r.update(pred=finals[letter], pre_spell=trace["pre_spell"][i], kept=kept.engine,
                     clipped=bool(crop is not None and crop.clipped), kept_lines=_lines(kept),
                     readers={})
            first = trace["first"][i]
            readers = {"tesseract": trace["tesseract"][i], first.engine: first}
            for name in LEARNED_READERS:
                if name in trace:
                    readers[name] = trace[name]["lex"][i]
                    readers[name + "_greedy"] = trace[name]["greedy"][i]
            for name, reading in readers.items():
                text = self_text(tr, reading)
                r["readers"][name] = {"text": text, "spelt": spelt(text, name), "conf": round(reading.confidence, 4),
                                      "lines": _lines(reading)}
            out.append(r)
    return out


def self_text(tr: OCRTranscriber, reading: Any) -> str:
    """A reading's text as the transcriber joins it (`OCRTranscriber._texts`)."""
    return tr._texts([reading])[0]


_PUNCT_JOIN = re.compile(r"[A-Za-z0-9]+(?:[^\sA-Za-z0-9]+[A-Za-z0-9]+)+")


def classify(r: dict[str, Any]) -> list[dict[str, Any]]:
    """The lost gold words of a record, each with its class and every flag that holds."""
    from flowpath.transcribe.ocr.text import near_words

    gold_words = words(r["gold"])
    if r.get("pred") is None:
        return [{"word": w, "cls": "node_missed", "reader": None, "flags": ["node_missed"]} for w in gold_words]
    pred_words = words(r["pred"])
    lost = Counter(gold_words) - Counter(pred_words)
    excess = Counter(pred_words) - Counter(gold_words)
    other_excess: Counter[str] = Counter()
    for p, text in r["others"].items():
        other_excess += Counter(words(text)) - Counter(words(r["others_gold"].get(p, "")))
    pre = Counter(words(r["pre_spell"]))
    kept = r["kept"]
    readers = r["readers"]
    greedy = readers.get(kept + "_greedy")
    lex = readers.get(kept)
    out = []
    for w, n in lost.items():
        for _ in range(n):
            flags = []
            idx = [k for k, g in enumerate(gold_words) if g == w]
            neighbours = [gold_words[k + d] for k in idx for d in (-1, 1) if 0 <= k + d < len(gold_words)]
            if w in other_excess:
                flags.append("other_node")
            joined = {gold_words[a:b] and "".join(gold_words[a:b]) for k in idx for a in range(max(0, k - 2), k + 1)
                      for b in range(k + 1, min(len(gold_words), k + 3) + 1) if b - a >= 2}
            if any(t in joined for t in excess):
                flags.append("space_lost")
            runs = {"".join(pred_words[a:b]) for a in range(len(pred_words))
                    for b in range(a + 2, min(len(pred_words), a + 3) + 1)}
            if w in runs:
                flags.append("space_added")
            for m in _PUNCT_JOIN.finditer(r["gold"]):
                parts = words(m.group(0))
                if w in parts and "".join(parts) in excess:
                    flags.append("punctuation")
                    break
            if w in pre and w not in pred_words:
                flags.append("spelling_broke")
            if kept in LEARNED_READERS and greedy and lex and w in words(greedy["spelt"]) \
                    and w not in words(lex["spelt"]):
                flags.append("lexicon_broke")
            if r["kept_lines"] and r["kept_lines"] != r["gold_lines"]:
                flags.append("line_cut")
            if any(w in words(v["spelt"]) for k, v in readers.items() if k not in (kept, kept + "_greedy")
                   and not k.endswith("_greedy")):
                flags.append("choice")
            near = [t for t in excess if abs(len(t) - len(w)) <= 3 and any(h[0] == w for h in near_words(t))]
            if near:
                flags.append("near_miss")
            flags.append("misread")
            cls = next(c for c in CLASSES if c in flags)
            out.append({"word": w, "cls": cls, "reader": kept, "flags": flags, "neighbours": neighbours})
    return out


def excess_words(r: dict[str, Any], lost: list[dict[str, Any]]) -> Counter[str]:
    """The record's excess predicted words by kind (``paired``, ``other_node``, ``extra``)."""
    if r.get("pred") is None:
        return Counter()
    excess = Counter(words(r["pred"])) - Counter(words(r["gold"]))
    others_gold: Counter[str] = Counter()
    for g in r["others_gold"].values():
        others_gold += Counter(words(g))
    kinds: Counter[str] = Counter()
    n_lost = len(lost)
    for t, n in excess.items():
        for _ in range(n):
            if n_lost > 0:
                kinds["paired"] += 1
                n_lost -= 1
            elif t in others_gold:
                kinds["other_node"] += 1
            else:
                kinds["extra"] += 1
    return kinds


def summary(records: list[dict[str, Any]]) -> None:
    """Words lost per class and per kept reader, per set and overall; flags crossed with choice."""
    by_set: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_set[r["set"]].append(r)
    by_set["ALL"] = records
    for name, rs in by_set.items():
        gold = sum(len(words(r["gold"])) for r in rs)
        lost = [(r, w) for r in rs for w in classify(r)]
        extra: Counter[str] = Counter()
        for r in rs:
            extra += excess_words(r, [w for rr, w in lost if rr is r])
        print(f"\n{name}: {len(rs)} gold nodes, {gold} gold words, {len(lost)} lost ({len(lost) / max(gold, 1):.3f}); "
              f"excess predicted {sum(extra.values())} {dict(extra)}")
        table: dict[str, Counter[str]] = defaultdict(Counter)
        for _r, w in lost:
            table[w["cls"]][w["reader"] or "-"] += 1
        cols = (*READERS, "-")
        print(f"{'class':16s} {'words':>6s} " + " ".join(f"{c:>9s}" for c in cols))
        for c in CLASSES:
            row = table.get(c, Counter())
            print(f"{c:16s} {sum(row.values()):6d} " + " ".join(f"{row.get(k, 0):9d}" for k in cols))
        flag_counts = Counter(f for _r, w in lost for f in w["flags"])
        print("flags (any, overlapping): " + ", ".join(f"{f} {flag_counts.get(f, 0)}" for f in CLASSES))
        kept_lines = Counter((r.get("kept"), "fewer" if r["kept_lines"] < r["gold_lines"] else "more")
                             for r, w in lost if w["cls"] == "line_cut")
        if kept_lines:
            print("line_cut by reader and direction: " + ", ".join(f"{k[0]}/{k[1]} {v}" for k, v in kept_lines.items()))


def examples(records: list[dict[str, Any]], cls: str, n: int) -> None:
    """Print up to ``n`` lost words of class ``cls`` with their node's readings (tuning sets only)."""
    shown = 0
    for r in records:
        for w in classify(r):
            if w["cls"] != cls or shown >= n:
                continue
            shown += 1
            print(f"{r['set']}/{r['chart']}/{r['node']} lost {w['word']!r} flags {w['flags']} kept {r.get('kept')}")
            print(f"   gold  {r['gold']!r}\n   final {r.get('pred')!r}  pre-spell {r.get('pre_spell')!r}")
            for k, v in (r.get("readers") or {}).items():
                print(f"   {k:16s} {v['conf']:.3f} lines {v['lines']} {v['text']!r} -> {v['spelt']!r}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bench", nargs="*", type=Path)
    ap.add_argument("--out", type=Path, help="write the per-node records here (JSON lines)")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--summary", type=Path, nargs="*", help="summarise records written before")
    ap.add_argument("--examples", help="print examples of this class")
    ap.add_argument("-n", type=int, default=20)
    args = ap.parse_args()
    records: list[dict[str, Any]] = []
    for path in args.summary or ():
        records += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    seg, tr = CachedSeg(), Tracing()
    for bench in args.bench:
        got = node_records(bench, args.limit, seg, tr)
        records += got
        if args.out:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            path = args.out if len(args.bench) == 1 else args.out.with_name(f"{bench.name}.jsonl")
            path.write_text("".join(json.dumps(r) + "\n" for r in got), encoding="utf-8")
    summary(records)
    if args.examples:
        examples(records, args.examples, args.n)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
