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

``--why`` splits every lost or extra gold edge by its cause (`causes`), counted per group and
variant: the connector piece that gave the wrong edge (a two-ended piece, a line traced out of a
tangle, a line joined sideways into another, a tangle left untraced) and how its direction was
decided (a head told by thickness, the ink, a branch label, the layout's guess), a label on the
wrong connector, and whether the gold edge runs back up the chart (a loop back).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import re
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


#: the causes `causes` tells apart (prefix ``back-edge, `` where the gold edge runs upstream)
CAUSES = ("reversed: head flagged at the source", "reversed: head missed, ink", "reversed: head missed, branch label",
          "reversed: head missed, layout guess", "reversed: traced line", "reversed: joined line",
          "wrong node: two-ended piece", "wrong node: traced line", "wrong node: joined line",
          "wrong node: tangle not traced", "missed: tangle not traced", "missed: loose end (broken line)",
          "missed: through a shape", "missed: not traced", "spurious", "label on the wrong connector",
          "condition misread")


def edge_how(c: Any, edge: tuple[int, int], notes: list[str], decisions: frozenset[int]) -> str:
    """How `component_edges` (or `joined_edge`) came to ``edge`` of piece ``c``: the piece's kind
    (``traced``, ``joined``, ``tangle`` for three or more ends left as one piece, ``two``) and
    for a two-ended piece the rule that gave its direction."""
    from flowpath.transcribe.ocr import connectors as cx

    if c.joins is not None:
        return "joined"
    if c.traced:
        return "traced"
    ends = c.ends
    if len({ct.region for ct in ends}) >= 3:
        return "tangle"
    if notes:
        return "layout"
    at = {ct.region: ct for ct in ends}
    s, t = at.get(edge[0]), at.get(edge[1])
    if s is not None and t is not None and t.arrow and not s.arrow:
        return "thickness"
    if s is not None and s.arrow and not (t is not None and t.arrow):
        return "thickness"
    src = cx.decision_source(c, ends, decisions)
    if src is not None and src.region == edge[0]:
        return "branch label"
    return "ink"


def causes(pred_edges: dict[tuple[str, str], str | None], gold_edges: dict[tuple[str, str], str | None],
           how: dict[tuple[str, str], str], pieces: list[set[str]], loose: set[str], shapes: list[set[str]],
           upstream: set[tuple[str, str]]) -> list[tuple[str, str]]:
    """(cause, edge text) for every lost gold edge, extra predicted edge and wrong condition of one
    chart (gold ids): ``how`` (predicted edge -> `edge_how`), ``pieces`` (the gold nodes of every
    tangle left untraced), ``loose`` (gold nodes with a connector that leads nowhere), ``shapes``
    (the nodes of pieces left out as running through a shape), ``upstream`` (gold edges running
    back against the chart's flow)."""
    out: list[tuple[str, str]] = []
    explained: set[tuple[str, str]] = set()
    lost = [e for e in gold_edges if e not in pred_edges]
    extra = [e for e in pred_edges if e not in gold_edges]
    kind = {"traced": "traced line", "joined": "joined line", "tangle": "tangle not traced"}
    for s, t in lost:
        back = "back-edge, " if (s, t) in upstream else ""
        name = f"{s}->{t}"
        if (t, s) in pred_edges:
            h = how.get((t, s), "ink")
            cause = {"thickness": "reversed: head flagged at the source", "ink": "reversed: head missed, ink",
                     "branch label": "reversed: head missed, branch label",
                     "layout": "reversed: head missed, layout guess", "traced": "reversed: traced line",
                     "joined": "reversed: joined line"}.get(h, "reversed: head missed, ink")
            out.append((back + cause, name))
            explained.add((t, s))
            continue
        near = [e for e in extra if (e[0] == s) != (e[1] == t) and not e[0].startswith("?")
                and not e[1].startswith("?") and (e[0] in (s, t) or e[1] in (s, t))]
        if near:
            out.append((back + "wrong node: " + kind.get(how.get(near[0], ""), "two-ended piece"), name))
            explained.update(near)
        elif any({s, t} <= p for p in pieces):
            out.append((back + "missed: tangle not traced", name))
        elif any({s, t} <= p for p in shapes):
            out.append((back + "missed: through a shape", name))
        elif s in loose or t in loose:
            out.append((back + "missed: loose end (broken line)", name))
        else:
            out.append((back + "missed: not traced", name))
    for e in extra:
        if e not in explained:
            out.append(("spurious", f"extra {e[0]}->{e[1]} ({how.get(e, '?')})"))
    for e, gc in gold_edges.items():
        if e in pred_edges and (gc is not None or pred_edges[e] is not None) and gc != pred_edges[e]:
            elsewhere = gc is not None and any(c == gc for k, c in pred_edges.items() if k != e)
            out.append(("label on the wrong connector" if elsewhere or (gc is None) else "condition misread",
                        f"{e[0]}->{e[1]} {gc!r} vs {pred_edges[e]!r}"))
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
    ap.add_argument("--why", action="store_true", help="split the errors by cause (`causes`)")
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
    # every edge's piece and rule, for ``--why``
    made: list[tuple[Any, list[tuple[int, int]], list[str]]] = []
    seen_decisions: list[frozenset[int]] = [frozenset()]
    orig_component_edges, orig_joined_edge = cx.component_edges, cx.joined_edge

    def spy_edges(c: Any, *a: Any, **k: Any) -> Any:
        edges, notes = orig_component_edges(c, *a, **k)
        seen_decisions[0] = a[3] if len(a) > 3 else k.get("decisions", frozenset())
        made.append((c, list(edges), list(notes)))
        return edges, notes

    def spy_joined(c: Any, *a: Any, **k: Any) -> Any:
        edge = orig_joined_edge(c, *a, **k)
        made.append((c, [edge], []))
        return edge

    cx.component_edges = spy_edges  # type: ignore[assignment]
    cx.joined_edge = spy_joined  # type: ignore[assignment]
    why: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
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
            with all_variants["none"]():
                boxes, conn, shadowed = tr._edge_labels(page, nodes.line_h)
            if cached is not None and cached.exists():
                data = json.loads(cached.read_text())
                readings = [Reading(**r) for r in data["nodes"]]
                labels = data["labels"]
                nodes.reading.result()
                if len(labels) != len(boxes):  # read on the boxes of another code
                    comps = tr._connectors(page, conn, boxes, nodes.line_h, shadowed)
                    labels = tr._read_labels(page, boxes, comps, nodes.line_h)
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
                made.clear()
                with all_variants[vname]():
                    # the label boxes and the connector mask too (a rule under test may change
                    # them: frames, shadows); their text is read again only where the boxes moved
                    v_boxes, v_conn, v_shadowed = tr._edge_labels(page, nodes.line_h)
                    comps = tr._connectors(page, v_conn, v_boxes, nodes.line_h, v_shadowed)
                    v_labels = labels if v_boxes == boxes else tr._read_labels(page, v_boxes, comps, nodes.line_h)
                    orig_read = tr._read_labels
                    tr._read_labels = lambda *a, _texts=v_labels, **k: _texts  # type: ignore[method-assign]
                    try:
                        out = tr._graph(page, nodes, v_boxes, copy.deepcopy(comps))
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
                loose = {mapping[m] for p in out.problems
                         for m in re.findall(r"connector at node (\w+) leads nowhere", p) if m in mapping}
                errs = classify(pred_edges, gold_edges, set(mapping.values()), loose)
                for bucket, text in errs:
                    t[bucket] += 1
                    if args.list:
                        listing.append(f"{vname}\t{Path(bench_dir).name}/{cid}\t{group}\t{bucket}\t{text}")
                f = seen_flow.get("flow")
                if args.why:
                    g_of = {i: mapping.get(page.letters[i], "?" + page.letters[i]) for i in range(len(page.letters))}
                    how: dict[tuple[str, str], str] = {}
                    tangles: list[set[str]] = []
                    for c, edges, notes in made:
                        regs = {ct.region for ct in c.ends}
                        if len(regs) >= 3 and not c.traced and c.joins is None:
                            tangles.append({g_of[r] for r in regs})
                        for e in edges:
                            how.setdefault((g_of[e[0]], g_of[e[1]]), edge_how(c, e, notes, seen_decisions[0]))
                    shapes = [{mapping.get(r, "") for r in re.findall(r"(?<=[ ,])([A-Z]+)", p)}
                              for p in out.problems if "runs through a shape" in p]
                    gpos = {k: chart.regions[k].center for k in gold.nodes if k in chart.regions}
                    span = np.zeros(2)
                    for a, b in gold_edges:
                        if a in gpos and b in gpos:
                            span += np.abs(np.subtract(gpos[b], gpos[a]))
                    ax = 1 if span[1] >= span[0] else 0
                    gsign = 1 if sum(np.sign(gpos[b][ax] - gpos[a][ax]) for a, b in gold_edges
                                     if a in gpos and b in gpos) >= 0 else -1
                    upstream = {(a, b) for a, b in gold_edges if a in gpos and b in gpos
                                and gsign * (gpos[b][ax] - gpos[a][ax]) < 0}
                    for cause, text in causes(pred_edges, gold_edges, how, tangles, loose, shapes, upstream):
                        why[(group, vname)][cause] += 1
                        if args.list:
                            listing.append(f"why\t{vname}\t{Path(bench_dir).name}/{cid}\t{group}\t{cause}\t{text}")
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
    if args.why:
        print("\n| group | variant | cause | count |")
        print("|---|---|---|---|")
        for g in [*groups, "all"]:
            for v in names:
                cnt: Counter[str] = Counter()
                for gg in groups if g == "all" else [g]:
                    cnt.update(why[(gg, v)])
                for cause, n in sorted(cnt.items(), key=lambda kv: -kv[1]):
                    print(f"| {g} | {v} | {cause} | {n} |")
    print(f"CPU {time.process_time() - cpu:.1f} s")
    for v, c, s in flows:
        print("flow", v, c, s)
    if args.list:
        print("\n".join(listing))


if __name__ == "__main__":
    main()
