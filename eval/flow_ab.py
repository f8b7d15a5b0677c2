"""A/B of the transcriber's edge rules with the text held fixed: every chart's node and label OCR is
read once, then each variant rebuilds only the connectors and the graph.

    python eval/flow_ab.py SET [SET ...] [--gold-regions] [--variants base,new] [--by family+renderer]
        [--list] [--cache DIR]

A variant: ``base`` (the code as it is), ``none`` (every ``AB_*`` flag of
`flowpath.transcribe.ocr.connectors` off) and ``no_X`` (flag ``AB_X`` off): a rule under test is
put behind such a module flag while it is measured, and the flag taken out before it is committed
(none today). Prints edge F1 and the reversed count per group and variant, the charts whose flow sign differs from gold (the sign
along the chart's axis that most gold edges take) with ``--list``. ``--cache DIR`` keeps each chart's
readings (JSON) so a second run reads no text at all.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


@contextlib.contextmanager
def _nothing() -> Iterator[None]:
    yield


def _patched(obj: Any, name: str, value: Any) -> Callable[[], contextlib.AbstractContextManager[None]]:
    @contextlib.contextmanager
    def ctx() -> Iterator[None]:
        old = getattr(obj, name)
        setattr(obj, name, value)
        try:
            yield
        finally:
            setattr(obj, name, old)
    return ctx


def variants() -> dict[str, Callable[[], contextlib.AbstractContextManager[None]]]:
    from flowpath.transcribe.ocr import connectors as cx

    out: dict[str, Callable[[], contextlib.AbstractContextManager[None]]] = {"base": _nothing}
    for name in dir(cx):
        if name.startswith("AB_"):  # module flags a rule under test reads (True = on)
            out["no_" + name[3:].lower()] = _patched(cx, name, False)
    flags = [name for name in dir(cx) if name.startswith("AB_")]

    @contextlib.contextmanager
    def none() -> Iterator[None]:
        old = {f: getattr(cx, f) for f in flags}
        for f in flags:
            setattr(cx, f, False)
        try:
            yield
        finally:
            for f, v in old.items():
                setattr(cx, f, v)
    out["none"] = none
    return out


def main(argv: list[str] | None = None) -> None:
    import numpy as np

    from eval.bench_gen_sets import group_of
    from eval.edge_errors import classify
    from flowpath.datasets.febench import Benchmark
    from flowpath.io import load_image
    from flowpath.labeller import draw_labels
    from flowpath.mermaid import parse_mermaid
    from flowpath.metrics.matching import match_nodes
    from flowpath.metrics.transcription import directed_edges
    from flowpath.models.base import LabelledChart
    from flowpath.transcribe.ocr import OCRTranscriber
    from flowpath.transcribe.ocr import connectors as cx
    from flowpath.transcribe.ocr.engines import Reading

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench", nargs="+")
    ap.add_argument("--gold-regions", action="store_true")
    ap.add_argument("--by", default="family+renderer")
    ap.add_argument("--variants", default="")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--cache", type=Path)
    ap.add_argument("--limit", type=int)
    args = ap.parse_args(argv)
    all_variants = variants()
    names = [v for v in args.variants.split(",") if v] or list(all_variants)
    tr = OCRTranscriber()
    segmenter = None
    if not args.gold_regions:
        from flowpath.segment import default_segmenter

        segmenter = default_segmenter()
    table: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    listing: list[str] = []
    flows: list[tuple[str, str, str]] = []
    cpu = time.process_time()
    seen_flow: dict[str, Any] = {}
    orig_chart_flow = cx.chart_flow

    def spy(*a: Any, **k: Any) -> Any:
        f = orig_chart_flow(*a, **k)
        seen_flow["flow"] = f
        return f

    cx.chart_flow = spy  # type: ignore[assignment]
    for bench_dir in args.bench:
        bench = Benchmark(bench_dir)
        for cid in bench.chart_ids[:args.limit] if args.limit else bench.chart_ids:
            chart = bench.chart(cid)
            record = json.loads(Path(chart.image_path).with_suffix(".json").read_text())
            group = group_of(record, args.by)
            image = load_image(chart.image_path)
            gold = parse_mermaid(chart.mermaid, strict=False)
            if args.gold_regions:
                regions = [chart.regions[k] for k in gold.nodes if k in chart.regions]
            else:
                assert segmenter is not None
                regions = segmenter([image])[0]
            labelled, letter_regions = draw_labels(image, regions)
            lc = LabelledChart(image, labelled, letter_regions, str(chart.image_path))
            img = load_image(lc.image)
            page = tr._foreground(img, lc)
            key = f"{Path(bench_dir).name}__{cid}__{'gold' if args.gold_regions else 'seg'}.json"
            cached = args.cache / key if args.cache else None
            nodes = tr._nodes(page)
            boxes, conn, shadowed = tr._edge_labels(page, nodes.line_h)
            if cached is not None and cached.exists():
                data = json.loads(cached.read_text())
                readings = [Reading(**r) for r in data["nodes"]]
                labels = data["labels"]
                nodes.reading.result()
            else:
                readings = nodes.reading.result()
                comps = tr._connectors(page, conn, boxes, nodes.line_h, shadowed)
                labels = tr._read_labels(page, boxes, comps, nodes.line_h)
                if cached is not None:
                    cached.parent.mkdir(parents=True, exist_ok=True)
                    cached.write_text(json.dumps({"nodes": [r.__dict__ for r in readings], "labels": labels}))
            from concurrent.futures import Future

            fut: Future[list[Any]] = Future()
            fut.set_result(readings)
            nodes.reading = fut
            gold_edges = directed_edges(gold)
            gold_pts = {k: chart.regions[k].center for k in gold.nodes if k in chart.regions}
            for vname in names:
                with all_variants[vname]():
                    comps = tr._connectors(page, conn, boxes, nodes.line_h, shadowed)
                    orig_read = tr._read_labels
                    tr._read_labels = lambda *a, _texts=labels, **k: _texts  # type: ignore[method-assign]
                    try:
                        out = tr._graph(page, nodes, boxes, copy.deepcopy(comps))
                    finally:
                        tr._read_labels = orig_read  # type: ignore[method-assign]
                pred = out.chart
                mapping = match_nodes({k: v for k, v in letter_regions.items() if k in pred.nodes},
                                      {k: v for k, v in chart.regions.items() if k in gold.nodes})
                pred_edges = directed_edges(pred, mapping)
                t = table[(group, vname)]
                t["charts"] += 1
                t["gold edges"] += len(gold_edges)
                t["found"] += sum(e in gold_edges for e in pred_edges)
                t["predicted"] += len(pred_edges)
                import re

                loose = {mapping[m] for p in out.problems
                         for m in re.findall(r"connector at node (\w+) leads nowhere", p) if m in mapping}
                errs = classify(pred_edges, gold_edges, set(mapping.values()), loose)
                for bucket, text in errs:
                    t[bucket] += 1
                    if args.list:
                        listing.append(f"{vname}\t{Path(bench_dir).name}/{cid}\t{group}\t{bucket}\t{text}")
                f = seen_flow.get("flow")
                if f is not None:
                    vote = sum(np.sign(gold_pts[b][f.axis] - gold_pts[a][f.axis])
                               for a, b in gold_edges if a in gold_pts and b in gold_pts)
                    gs = 1 if vote >= 0 else -1
                    t["flow wrong"] += int(gs != f.sign)
                    if gs != f.sign:
                        flows.append((vname, f"{Path(bench_dir).name}/{cid}", f"{group} axis {f.axis} sign {f.sign} "
                                      f"terminals {f.from_terminals} rev {sum(b == 'reversed' for b, _ in errs)}"))
    cols = ("charts", "gold edges", "found", "predicted", "reversed", "wrong node", "spurious", "flow wrong")
    print("| group | variant | " + " | ".join(cols) + " | edge F1 |")
    print("|" + "---|" * (len(cols) + 3))
    groups = sorted({g for g, _ in table})
    for g in [*groups, "all"]:
        for v in names:
            if g == "all":
                t: Counter[str] = Counter()
                for gg in groups:
                    t.update(table[(gg, v)])
            else:
                t = table[(g, v)]
            f1 = 2 * t["found"] / max(t["gold edges"] + t["predicted"], 1)
            print(f"| {g} | {v} | " + " | ".join(str(t[c]) for c in cols) + f" | {f1:.3f} |")
    print(f"CPU {time.process_time() - cpu:.1f} s")
    for v, c, s in flows:
        print("flow", v, c, s)
    if args.list:
        print("\n".join(listing))


if __name__ == "__main__":
    main()
