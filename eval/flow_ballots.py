"""Per two-ended connector of each chart (gold regions): its contacts as the transcriber measured
them (arrow flag, thickness, pixels, ink, spread), whether each end is a decision (by the
transcriber's own node kinds), and the gold direction; one JSON line per connector, with the
chart's flow. A diagnostic for the chart-flow vote and the arrowhead flag (docs/transcription.md).

    python eval/flow_ballots.py SET [SET ...] --cache DIR > ballots.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import Future
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> None:
    from eval.bench_gen_sets import group_of
    from flowpath.datasets.febench import Benchmark
    from flowpath.graph import infer_kind
    from flowpath.io import load_image
    from flowpath.labeller import draw_labels
    from flowpath.mermaid import parse_mermaid
    from flowpath.metrics.matching import match_nodes
    from flowpath.metrics.transcription import directed_edges
    from flowpath.models.base import LabelledChart
    from flowpath.transcribe.ocr import OCRTranscriber
    from flowpath.transcribe.ocr import connectors as cx
    from flowpath.transcribe.ocr.engines import Reading
    from flowpath.transcribe.ocr.transcriber import _without_blank_labels

    ap = argparse.ArgumentParser()
    ap.add_argument("bench", nargs="+")
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--by", default="family+renderer")
    args = ap.parse_args(argv)
    tr = OCRTranscriber()
    for bench_dir in args.bench:
        bench = Benchmark(bench_dir)
        for cid in bench.chart_ids:
            chart = bench.chart(cid)
            record = json.loads(Path(chart.image_path).with_suffix(".json").read_text())
            group = group_of(record, args.by)
            image = load_image(chart.image_path)
            gold = parse_mermaid(chart.mermaid, strict=False)
            regions = [chart.regions[k] for k in gold.nodes if k in chart.regions]
            labelled, letter_regions = draw_labels(image, regions)
            lc = LabelledChart(image, labelled, letter_regions, str(chart.image_path))
            page = tr._foreground(load_image(lc.image), lc)
            nodes = tr._nodes(page)
            boxes, conn, shadowed = tr._edge_labels(page, nodes.line_h)
            cached = args.cache / f"{Path(bench_dir).name}__{cid}__gold.json"
            comps = tr._connectors(page, conn, boxes, nodes.line_h, shadowed)
            if cached.exists():
                data = json.loads(cached.read_text())
                readings = [Reading(**r) for r in data["nodes"]]
                labels = data["labels"]
                nodes.reading.result()
            else:
                readings = nodes.reading.result()
                labels = tr._read_labels(page, boxes, comps, nodes.line_h)
                cached.parent.mkdir(parents=True, exist_ok=True)
                cached.write_text(json.dumps({"nodes": [r.__dict__ for r in readings], "labels": labels}))
            fut: Future[list[Any]] = Future()
            fut.set_result(readings)
            nodes.reading = fut
            texts = tr._texts(readings)
            kinds = [infer_kind(nodes.shapes.get(i, "rect"), t) for i, t in enumerate(texts)]
            # as `OCRTranscriber._graph` sees them: blank label boxes dropped, unconfirmed vertex
            # heads left out of the vote
            comps = {k: _without_blank_labels(c, labels) for k, c in comps.items()}
            flow = cx.chart_flow(cx.without_unconfirmed_vertex_heads(comps, frozenset(
                i for i, k in enumerate(kinds) if k == "decision")), page.regions, ([i for i, k in enumerate(kinds) if k == "start"],
                                                       [i for i, k in enumerate(kinds) if k == "end"]))
            mapping = match_nodes(dict(letter_regions), {k: v for k, v in chart.regions.items() if k in gold.nodes})
            gold_edges = directed_edges(gold)
            gold_kind = {n: gold.node(n).kind if hasattr(gold, "node") else "" for n in gold.nodes}
            decisions = frozenset(i for i, k in enumerate(kinds) if k == "decision")
            for c in comps.values():
                edges, notes = cx.component_edges(c, page.regions, page.letters, flow, decisions)
                if notes and len(edges) == 1:
                    edges = [cx.level_branch(edges[0], page.regions, decisions, flow)]
                cts = [ct for ct in c.contacts if ct.count >= 2]
                if len(cts) != 2 or cts[0].region == cts[1].region:
                    continue
                ga, gb = (mapping.get(page.letters[ct.region]) for ct in cts)
                truth = 1 if (ga, gb) in gold_edges else -1 if (gb, ga) in gold_edges else 0
                pred = 1 if (cts[0].region, cts[1].region) in edges else -1 if (cts[1].region, cts[0].region) in edges else 0
                print(json.dumps({"pred": pred, "guessed": bool(notes),
                    "chart": f"{Path(bench_dir).name}/{cid}", "group": group, "flow": [flow.axis, flow.sign],
                    "terminals": flow.from_terminals, "labelled": bool(c.label_boxes), "truth": truth,
                    "label_texts": [labels[b] for b in c.label_boxes],
                    "line_h": round(nodes.line_h, 1),
                    "ends": [{"region": ct.region, "kind": kinds[ct.region], "shape": nodes.shapes.get(ct.region),
                              "gold_kind": gold_kind.get(mapping.get(page.letters[ct.region]), ""),
                              "center": [round(v) for v in page.regions[ct.region].center],
                              "point": [round(v) for v in ct.point],
                              "arrow": ct.arrow, "thick": round(ct.thickness, 2), "count": ct.count,
                              "mass": round(ct.mass), "along": ct.along, "gap": ct.gap} for ct in cts],
                }))


if __name__ == "__main__":
    main()
