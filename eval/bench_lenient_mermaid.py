"""How much of a chart lenient parsing recovers from damaged model-style Mermaid.

Takes clean Mermaid charts (the benchmark's, or any benchmark-layout folder), applies one
seeded corruption of the kinds transcription models produce, and compares strict and lenient
parsing of the damaged text with the clean chart:

  parsed   share of damaged texts that give a chart at all (strict raises on most)
  node R   share of the clean chart's nodes recovered with the same id and text
  edge R/P recall / precision of (source, target, label) edges

Truncation keeps only the complete lines before the cut as the reference (what a model that ran
out of tokens did write). Figures are printed per corruption kind and overall.

Run: python eval/bench_lenient_mermaid.py [--bench ../shared/data/febench_dev] [--seeds 3]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flowpath.graph import FlowChart  # noqa: E402
from flowpath.mermaid import MermaidSyntaxError, parse_mermaid  # noqa: E402


def _lines_with(text: str, pattern: str) -> list[int]:
    return [i for i, ln in enumerate(text.split("\n")) if re.search(pattern, ln)]


def _edit_line(text: str, idx: int, fn: Callable[[str], str]) -> str:
    lines = text.split("\n")
    lines[idx] = fn(lines[idx])
    return "\n".join(lines)


def corrupt(kind: str, text: str, rng: random.Random) -> tuple[str, str]:
    """Damage ``text``; returns (damaged text, reference text the damaged one should mean)."""
    lines = text.split("\n")
    body = list(range(1, len(lines)))
    if kind == "fenced_chatter":
        return (f"Sure! Here is the Mermaid code for the flowchart:\n\n```mermaid\n{text}\n```\n\n"
                "This flowchart shows the process from start to end.", text)
    if kind == "header_mid_line":
        return "Here it is: " + text, text
    if kind == "unclosed_bracket":
        cand = _lines_with(text, r'"[\])}]+(\s|$)')
        if not cand:
            return text, text
        i = rng.choice(cand)
        return _edit_line(text, i, lambda ln: re.sub(r'"([\])}]+)(\s|$)', r'"\2', ln, count=1)), text
    if kind == "inner_quotes":
        cand = _lines_with(text, r'\["[^"]+ [^"]+"\]')
        if not cand:
            return text, text
        i = rng.choice(cand)
        damaged = _edit_line(text, i, lambda ln: re.sub(r'\["([^" ]+) ', r'["\1 "quoted" ', ln, count=1))
        reference = _edit_line(text, i, lambda ln: re.sub(r'\["([^" ]+) ', r'["\1 #quot;quoted#quot; ', ln, count=1))
        return damaged, reference
    if kind == "single_dash_arrow":
        cand = _lines_with(text, r" --> ")
        if not cand:
            return text, text
        return _edit_line(text, rng.choice(cand), lambda ln: ln.replace(" --> ", " -> ", 1)), text
    if kind == "duplicate_header":
        return lines[0] + "\n" + text, text
    if kind == "repetition_loop":
        k = rng.randint(1, max(1, len(body) // 3))
        start = rng.choice(body[: max(1, len(body) - k)])
        block = lines[start: start + k]
        return "\n".join(lines + block * 3), text
    if kind == "chatter_line":
        i = rng.choice(body)
        return "\n".join(lines[:i] + ["Note: the decision below has two branches."] + lines[i:]), text
    if kind == "lowercase_direction":
        head, _, direction = lines[0].rpartition(" ")
        return "\n".join([f"{head} {direction.lower()}", *lines[1:]]), text
    if kind == "unclosed_pipe":
        cand = _lines_with(text, r"\|[^|]+\|")
        if not cand:
            return text, text
        return _edit_line(text, rng.choice(cand), lambda ln: re.sub(r"\|([^|]+)\|", r"|\1 ", ln, count=1)), text
    # kinds the lenient repairs were not written for: how far generic salvage goes
    if kind == "merged_lines":
        i = rng.choice(body[:-1]) if len(body) > 1 else body[0]
        merged = lines[:i] + [lines[i] + " " + lines[i + 1].strip()] + lines[i + 2:] if i + 1 < len(lines) else lines
        return "\n".join(merged), text
    if kind == "smart_quotes":
        cand = _lines_with(text, r'"[^"]*"')
        if not cand:
            return text, text
        return _edit_line(text, rng.choice(cand), lambda ln: re.sub(r'"([^"]*)"', "\u201c\\1\u201d", ln)), text
    if kind == "html_entities":
        cand = _lines_with(text, r"'")
        if not cand:
            return text, text
        return _edit_line(text, rng.choice(cand), lambda ln: ln.replace("'", "&#39;")), text
    if kind == "missing_arrow_head":
        cand = _lines_with(text, r" --> ")
        if not cand:
            return text, text
        return _edit_line(text, rng.choice(cand), lambda ln: ln.replace(" --> ", " -- ", 1)), text
    if kind == "truncated":
        cut = rng.randint(len(text) * 2 // 3, len(text) - 1)
        damaged = text[:cut]
        complete = damaged.rsplit("\n", 1)[0]
        return damaged, complete
    raise ValueError(f"unknown corruption {kind!r}")


KINDS = ["fenced_chatter", "header_mid_line", "unclosed_bracket", "inner_quotes", "single_dash_arrow",
         "duplicate_header", "repetition_loop", "chatter_line", "lowercase_direction", "unclosed_pipe",
         "truncated", "merged_lines", "smart_quotes", "html_entities", "missing_arrow_head"]


def _score(ref: FlowChart, orig: FlowChart, got: FlowChart | None) -> tuple[float, float, float]:
    """Node and edge recall against ``ref``; edge precision against ``ref`` or the undamaged
    original (a truncated line's edge that was salvaged is right, not a false positive)."""
    if got is None:
        return 0.0, 0.0, 1.0
    ref_nodes = {(n.id, n.text) for n in ref.nodes.values()}
    got_nodes = {(n.id, n.text) for n in got.nodes.values()}
    ref_edges = {(e.source, e.target, e.label) for e in ref.edges}
    ok_edges = ref_edges | {(e.source, e.target, e.label) for e in orig.edges}
    got_edges = {(e.source, e.target, e.label) for e in got.edges}
    node_r = len(ref_nodes & got_nodes) / max(1, len(ref_nodes))
    edge_r = len(ref_edges & got_edges) / max(1, len(ref_edges))
    edge_p = len(ok_edges & got_edges) / len(got_edges) if got_edges else 1.0
    return node_r, edge_r, edge_p


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", type=Path, default=Path(__file__).resolve().parents[2] / "shared/data/febench_dev",
                    help="benchmark-layout folder whose charts/*.json hold clean Mermaid")
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args(argv)
    sources = [json.loads(p.read_text())["mermaid"] for p in sorted((args.bench / "charts").glob("*.json"))]
    if not sources:
        print(f"no charts under {args.bench / 'charts'}")
        return 2
    stats: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for seed in range(args.seeds):
        rng = random.Random(seed)
        for src in sources:
            for kind in KINDS:
                damaged, reference = corrupt(kind, src, rng)
                ref = parse_mermaid(reference, strict=False)
                orig = parse_mermaid(src)
                for mode in ("strict", "lenient"):
                    try:
                        got = parse_mermaid(damaged, strict=mode == "strict")
                    except MermaidSyntaxError:
                        got = None
                    nr, er, ep = _score(ref, orig, got)
                    for key, val in (("parsed", float(got is not None)), ("node_r", nr), ("edge_r", er), ("edge_p", ep)):
                        stats[(kind, mode)][key].append(val)
                        stats[("ALL", mode)][key].append(val)

    def mean(xs: list[float]) -> float:
        return 100.0 * sum(xs) / max(1, len(xs))

    print(f"{len(sources)} clean charts x {len(KINDS)} corruptions x {args.seeds} seeds")
    print(f"{'corruption':22s} | {'strict parsed':>13s} {'node R':>7s} {'edge R':>7s} | "
          f"{'lenient parsed':>14s} {'node R':>7s} {'edge R':>7s} {'edge P':>7s}")
    for kind in [*KINDS, "ALL"]:
        st, le = stats[(kind, "strict")], stats[(kind, "lenient")]
        print(f"{kind:22s} | {mean(st['parsed']):12.1f}% {mean(st['node_r']):6.1f}% {mean(st['edge_r']):6.1f}% | "
              f"{mean(le['parsed']):13.1f}% {mean(le['node_r']):6.1f}% {mean(le['edge_r']):6.1f}% "
              f"{mean(le['edge_p']):6.1f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
