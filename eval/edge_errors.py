"""Why gold edges are lost: a per-edge error listing of the transcriber on a benchmark-layout set.

Every gold edge that the transcription misses, and every predicted edge that is not gold, is put
in one bucket, so that a figure like "edge F1 0.80" can be split into segmentation's share and
the connector tracer's own:

* ``endpoint not segmented``: a gold endpoint has no predicted region at IoU 0.5 (the metric's
  matching), or a predicted edge ends at a region matching no gold node (segmentation's share);
* ``reversed``: the predicted edge runs the other way;
* ``wrong node``: a predicted edge shares one endpoint with the gold edge and ends at another
  (matched) node: attached to the wrong node, or a connector merged with a neighbour;
* ``missed, loose end``: no predicted edge, and the transcriber reported a connector at one of its
  nodes that leads nowhere (a connector broken at a crossing, elbow or label, or stopping short);
* ``missed``: no predicted edge and no loose end reported (not traced at all);
* ``spurious``: a predicted edge between matched nodes that has no gold counterpart in either
  direction and shares no endpoint with a lost gold edge (text, fill or shadow remnants);
* ``condition``: a found edge whose condition differs from gold (label on the wrong edge or
  misread).

    python eval/edge_errors.py /work/data/edges_tune_wild [--gold-regions] [--by family+renderer]
        [--limit N] [--list]

Prints a table of bucket counts per group; ``--list`` prints every error with its chart.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BUCKETS = ("endpoint not segmented", "reversed", "wrong node", "missed, loose end", "missed",
           "spurious", "condition")


def classify(pred_edges: dict[tuple[str, str], str | None], gold_edges: dict[tuple[str, str], str | None],
             matched_gold: set[str], loose_gold: set[str]) -> list[tuple[str, str]]:
    """(bucket, edge text) for every error of one chart; edges are in gold ids, a predicted node
    that matches no gold node is ``?letter``."""
    out: list[tuple[str, str]] = []
    lost = [e for e in gold_edges if e not in pred_edges]
    extra = [e for e in pred_edges if e not in gold_edges]
    explained: set[tuple[str, str]] = set()
    for s, t in lost:
        name = f"{s}->{t}"
        if s not in matched_gold or t not in matched_gold:
            out.append(("endpoint not segmented", name))
        elif (t, s) in pred_edges:
            out.append(("reversed", name))
            explained.add((t, s))
        else:
            near = [e for e in extra if (e[0] == s) != (e[1] == t) and not e[0].startswith("?")
                    and not e[1].startswith("?") and (e[0] in (s, t) or e[1] in (s, t))]
            if near:
                out.append(("wrong node", name))
                explained.update(near)
            elif s in loose_gold or t in loose_gold:
                out.append(("missed, loose end", name))
            else:
                out.append(("missed", name))
    for e in extra:
        if e in explained:
            continue
        if e[0].startswith("?") or e[1].startswith("?"):
            out.append(("endpoint not segmented", f"extra {e[0]}->{e[1]}"))
        else:
            out.append(("spurious", f"extra {e[0]}->{e[1]}"))
    for e, gc in gold_edges.items():
        if e in pred_edges and (gc is not None or pred_edges[e] is not None) and gc != pred_edges[e]:
            out.append(("condition", f"{e[0]}->{e[1]} {gc!r} vs {pred_edges[e]!r}"))
    return out


def main(argv: list[str] | None = None) -> None:
    from flowpath.datasets.febench import Benchmark
    from flowpath.io import load_image
    from flowpath.labeller import draw_labels
    from flowpath.mermaid import parse_mermaid
    from flowpath.metrics.matching import match_nodes
    from flowpath.metrics.transcription import directed_edges
    from flowpath.models.base import LabelledChart
    from flowpath.transcribe import default_transcriber

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench", nargs="+")
    ap.add_argument("--gold-regions", action="store_true")
    ap.add_argument("--by", default="family+renderer")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    from eval.bench_gen_sets import group_of

    transcriber = default_transcriber()
    segmenter = None
    if not args.gold_regions:
        from flowpath.segment import default_segmenter

        segmenter = default_segmenter()
    table: dict[str, Counter[str]] = defaultdict(Counter)
    listing: list[str] = []
    cpu = time.process_time()
    for bench_dir in args.bench:
        bench = Benchmark(bench_dir)
        for cid in bench.chart_ids[:args.limit] if args.limit else bench.chart_ids:
            chart = bench.chart(cid)
            record: dict[str, Any] = chart.record if hasattr(chart, "record") else {}
            if not record:
                import json

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
            tr = transcriber([LabelledChart(image, labelled, letter_regions, str(chart.image_path))])[0]
            pred = tr.chart
            mapping = match_nodes({k: v for k, v in letter_regions.items() if k in pred.nodes},
                                  {k: v for k, v in chart.regions.items() if k in gold.nodes})
            gold_edges, pred_edges = directed_edges(gold), directed_edges(pred, mapping)
            loose = {mapping[m] for p in tr.problems
                     for m in re.findall(r"connector at node (\w+) leads nowhere", p) if m in mapping}
            t = table[group]
            t["charts"] += 1
            t["gold edges"] += len(gold_edges)
            t["found"] += sum(e in gold_edges for e in pred_edges)
            t["predicted"] += len(pred_edges)
            for bucket, text in classify(pred_edges, gold_edges, set(mapping.values()), loose):
                t[bucket] += 1
                listing.append(f"{bench.name if hasattr(bench, 'name') else bench_dir}/{cid}\t{group}\t{bucket}\t{text}")
    cols = ("charts", "gold edges", "found", "predicted", *BUCKETS)
    print("| group | " + " | ".join(cols) + " | edge F1 |")
    print("|" + "---|" * (len(cols) + 2))
    total: Counter[str] = Counter()
    for g in sorted(table):
        total.update(table[g])
    for g, t in [*sorted(table.items()), ("all", total)]:
        f1 = 2 * t["found"] / max(t["gold edges"] + t["predicted"], 1)
        print(f"| {g} | " + " | ".join(str(t[c]) for c in cols) + f" | {f1:.3f} |")
    print(f"CPU {time.process_time() - cpu:.1f} s")
    if args.list:
        print("\n".join(listing))


if __name__ == "__main__":
    main()
