"""Mermaid parse time per KB, from 1 KB to 1 MB, strict and lenient (issue 12, item 8).

Parsing must be linear in the input size: the CPU time per KB printed for each input family
should stay flat as the size grows 1000-fold (a quadratic parser's grows with the size). Families:

  chart      a realistic chart (shapes, quoted and markdown labels, link labels, subgraphs,
             comments, styling), repeated with fresh node ids
  stars      one markdown label of unpaired ``*`` as long as the input (a regex took 97 s on
             96 KB before)
  unclosed   lines whose quote, markdown string or ``@{`` is never closed (lenient: 66 s / 32 KB)
  garbage    a chart, then as many bytes of chat lines, each dropped by lenient mode (4000
             lines took 25-60 s before)

Strict mode rejects the damaged families at their first error, so only the lenient figure is
printed for them. Times are CPU seconds (``time.process_time``), the best of ``--repeat`` runs.

Run: python eval/bench_parse.py [--max-kb 1024] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flowpath.mermaid import MermaidSyntaxError, parse_mermaid  # noqa: E402

_HEADER = "flowchart TD\n"


def _chart_block(k: int) -> str:
    return (f'  %% block {k}\n'
            f'  S{k}(["Start {k}"]) --> C{k}{{"Is the value > {k}?"}}\n'
            f'  C{k} -->|"Yes"| W{k}["Write the #quot;record#quot;"]\n'
            f'  C{k} -- No --> R{k}[/"Read input"/] -.-> C{k}\n'
            f'  subgraph G{k}["Group {k}"]\n'
            f'    W{k} ==> D{k}[("Database")] & L{k}>Log entry]\n'
            f'  end\n'
            f'  D{k} --> M{k}["`**Done** with *step* {k}`"]\n'
            f'  style D{k} fill:#f9f,stroke:#333\n')


def _stars_text(size: int) -> str:
    head, tail = _HEADER + '  N0["`', '`"] --> N1\n'
    return head + " *a" * ((size - len(head) - len(tail)) // 3) + tail


def _unclosed_block(k: int) -> str:
    return f'  Q{k}["label {k}\n  M{k}["`md {k}\n  T{k}@{{ label: "x{k}\n  P{k}[' + "\t" * 20 + "\n"


def _garbage_block(k: int) -> str:
    return f"Note {k}: the model kept talking about the chart here.\n"


def _text(block: Callable[[int], str], size: int, head: str = "") -> str:
    parts, n, k = [_HEADER, head], len(_HEADER) + len(head), 0
    while n < size:
        b = block(k)
        parts.append(b)
        n += len(b)
        k += 1
    return "".join(parts)[:size]


def _garbage_text(size: int) -> str:
    return _text(_garbage_block, size, head=_text(_chart_block, size // 2)[len(_HEADER):])


FAMILIES: dict[str, tuple[Callable[[int], str], tuple[bool, ...]]] = {
    "chart": (lambda size: _text(_chart_block, size), (True, False)),
    "stars": (_stars_text, (True, False)),
    "unclosed": (lambda size: _text(_unclosed_block, size), (False,)),
    "garbage": (_garbage_text, (False,)),
}


def time_parse(text: str, strict: bool, repeat: int) -> float:
    """Best CPU seconds of ``repeat`` parses (strict errors count: the parser did its work)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        try:
            parse_mermaid(text, strict=strict)
        except MermaidSyntaxError:
            pass
        best = min(best, time.process_time() - t0)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--max-kb", type=int, default=1024, help="largest input, in KB (sizes go up by 4x from 1 KB)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per size below 256 KB (the best counts)")
    ap.add_argument("--families", nargs="+", default=list(FAMILIES), choices=list(FAMILIES))
    args = ap.parse_args(argv)
    sizes = []
    kb = 1
    while kb <= args.max_kb:
        sizes.append(kb)
        kb *= 4
    if sizes[-1] != args.max_kb:
        sizes.append(args.max_kb)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; ms of CPU per KB of input")
    print(f"{'family':10s} {'mode':8s}" + "".join(f"{f'{s} KB':>10s}" for s in sizes) + f"{'max/min':>9s}")
    for name in args.families:
        make, modes = FAMILIES[name]
        texts = {s: make(s * 1024) for s in sizes}
        for strict in modes:
            per_kb = [1000 * time_parse(texts[s], strict, args.repeat if s < 256 else 1) / s for s in sizes]
            spread = max(per_kb) / max(min(per_kb), 1e-9)
            print(f"{name:10s} {'strict' if strict else 'lenient':8s}"
                  + "".join(f"{v:10.3f}" for v in per_kb) + f"{spread:9.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
