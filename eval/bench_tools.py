"""Median time of each graph tool on a 44-node flowchart.

Target (issue "Foundation"): every tool <= 20 us median, and max_in_degree no slower than
max_out_degree (FlowPathAgent's in-degree scanned every node, which made it its slowest tool).

The tools are thin networkx calls on the chart's MultiDiGraph; what they compute is kept with
`FlowChart.derived` in networkx's per-graph cache, which every change to the graph empties. Two
figures per tool: "repeat" is a call on a chart already asked the same (the reasoner's next
question on a chart, an agent re-reading a path), the acceptance figure; "first" empties the cache
before every call, the cost of the first question after the chart was built or changed. A
paper-style scanning max_in_degree is timed alongside for reference.

Run: python eval/bench_tools.py [--repeat 2000] [--rounds 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flowpath.graph import Edge, FlowChart, Node  # noqa: E402
from flowpath.graph import tools as gt  # noqa: E402
from flowpath.mermaid import parse_mermaid, to_mermaid  # noqa: E402

N_NODES = 44


def build_chart(n_nodes: int = N_NODES) -> FlowChart:
    """A realistic chart of ``n_nodes`` nodes: start, process steps and yes/no decisions whose
    branches rejoin, retry loops back to earlier steps, one end. Built procedurally, then exported
    to Mermaid and parsed back so the bench runs on exactly what the parser produces."""
    fc = FlowChart()
    fc.add_node(Node("N0", "Start", "stadium"))
    i, step, prev = 1, 0, "N0"
    while i < n_nodes - 1:
        if step % 3 == 2 and i + 3 < n_nodes - 1:  # decision, two branches, join
            d, yes, no, join = (f"N{i + k}" for k in range(4))
            fc.add_node(Node(d, f"Is condition {i} met?", "rhombus"))
            fc.add_node(Node(yes, f"Handle case {i} (yes)"))
            fc.add_node(Node(no, f"Handle case {i} (no)", "lean_right"))
            fc.add_node(Node(join, f"Continue after {i}"))
            fc.add_edge(Edge(prev, d))
            fc.add_edge(Edge(d, yes, "Yes"))
            fc.add_edge(Edge(d, no, "No"))
            fc.add_edge(Edge(yes, join))
            fc.add_edge(Edge(no, join))
            if step % 6 == 5:  # a retry loop back to the step before the decision
                fc.add_edge(Edge(join, prev, "retry"))
            prev = join
            i += 4
        else:
            nid = f"N{i}"
            fc.add_node(Node(nid, f"Process step {i}"))
            fc.add_edge(Edge(prev, nid))
            prev, i = nid, i + 1
        step += 1
    end = f"N{i}"
    fc.add_node(Node(end, "End", "stadium"))
    fc.add_edge(Edge(prev, end))
    return parse_mermaid(to_mermaid(fc))


def _median_us(fn: Callable[[], object], repeat: int, batch: int = 10) -> float:
    """Median per-call time in microseconds over ``repeat`` calls, timed in batches of ``batch``
    to keep timer overhead out."""
    fn()  # warm-up (imports)
    samples = []
    pc = time.perf_counter_ns
    for _ in range(max(1, repeat // batch)):
        t0 = pc()
        for _ in range(batch):
            fn()
        samples.append((pc() - t0) / batch)
    return statistics.median(samples) / 1000.0


def scan_max_in_degree(chart: FlowChart) -> dict:
    """The paper's approach: for every node, scan every edge for ones that enter it."""
    best, nodes = -1, []
    for n in chart.nodes:
        d = sum(1 for e in chart.edges if e.target == n)
        if d > best:
            best, nodes = d, [n]
        elif d == best:
            nodes.append(n)
    return {"degree": best, "nodes": nodes}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=2000, help="calls per tool and round")
    ap.add_argument("--rounds", type=int, default=3,
                    help="rounds over all tools; each tool's figure is its best round's median "
                         "(on a shared machine other jobs only ever add time)")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)

    fc = build_chart()
    ids = list(fc.nodes)
    start, end = ids[0], ids[-1]
    decisions = [n.id for n in fc.nodes.values() if n.kind == "decision"]
    mid = ids[len(ids) // 2]
    conds = {d: ("yes" if k % 2 else "no") for k, d in enumerate(decisions)}
    assert gt.path_between(fc, start, end, conds), "benchmark chart: conditioned path must exist"

    calls: dict[str, Callable[[], object]] = {
        "get_statement": lambda: gt.get_statement(fc, mid),
        "get_ancestors": lambda: gt.get_ancestors(fc, end),
        "get_ancestors(levels=2,stmts)": lambda: gt.get_ancestors(fc, end, 2, True),
        "get_descendants": lambda: gt.get_descendants(fc, start),
        "get_descendants(stmts)": lambda: gt.get_descendants(fc, start, None, True),
        "get_neighbours": lambda: gt.get_neighbours(fc, decisions[0]),
        "in_degree": lambda: gt.in_degree(fc, mid),
        "out_degree": lambda: gt.out_degree(fc, mid),
        "max_in_degree": lambda: gt.max_in_degree(fc),
        "max_out_degree": lambda: gt.max_out_degree(fc),
        "bfs": lambda: gt.bfs(fc),
        "bfs(conditions)": lambda: gt.bfs(fc, start, conds),
        "dfs": lambda: gt.dfs(fc),
        "dfs(conditions,stmts)": lambda: gt.dfs(fc, start, conds, True),
        "path_between(conditions)": lambda: gt.path_between(fc, start, end, conds),
        "shortest_path": lambda: gt.shortest_path(fc, start, end),
        "get_out_edges": lambda: gt.get_out_edges(fc, decisions[0]),
        "next_hop": lambda: gt.next_hop(fc, decisions[0], "no"),
        "is_terminal": lambda: gt.is_terminal(fc, end),
        "start_nodes": lambda: gt.start_nodes(fc),
    }
    kept = fc.graph.__networkx_cache__  # what FlowChart.derived fills and networkx empties on a change
    best: dict[str, float] = {}
    first: dict[str, float] = {}
    for _ in range(max(1, args.rounds)):
        for name, fn in calls.items():
            best[name] = min(best.get(name, float("inf")), _median_us(fn, args.repeat))
            cold = _median_us(lambda fn=fn: (kept.clear(), fn()), args.repeat)  # type: ignore[misc]
            first[name] = min(first.get(name, float("inf")), cold)
    rows = list(best.items())
    scan = _median_us(lambda: scan_max_in_degree(fc), max(200, args.repeat // 10))

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"graph tools on a {len(fc)}-node, {len(fc.edges)}-edge chart "
          f"({len(decisions)} decisions), best of {args.rounds} rounds of the median of {args.repeat} calls, Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs, load average {load:.1f} (timings scale with load)")
    print(f"{'tool':32s} {'repeat us':>9s} {'first us':>9s}")
    for name, us in rows:
        flag = "" if us <= 20 else "  > 20 us"
        print(f"{name:32s} {us:9.2f} {first[name]:9.2f}{flag}")
    print(f"{'median over the tools':32s} {statistics.median(best.values()):9.2f} "
          f"{statistics.median(first.values()):9.2f}")
    print(f"{'(paper-style scanning max_in_degree)':32s} {scan:9.2f}")
    worst = max(rows, key=lambda r: r[1])
    by = {r[0]: r for r in rows}
    ok_all = all(r[1] <= 20 for r in rows)
    ok_in = by["max_in_degree"][1] <= by["max_out_degree"][1] * 1.10
    print(f"slowest: {worst[0]} {worst[1]:.2f} us; all <= 20 us: {ok_all}; "
          f"max_in_degree within 10% of max_out_degree: {ok_in}")
    if args.json:
        args.json.write_text(json.dumps({"nodes": len(fc), "edges": len(fc.edges), "repeat": args.repeat,
                                         "tools": {n: {"median_us": us, "first_call_median_us": first[n]}
                                                   for n, us in rows},
                                         "scan_max_in_degree_us": scan}, indent=2))
    return 0 if ok_all and ok_in else 1


if __name__ == "__main__":
    raise SystemExit(main())
