"""Error taxonomy of applied-scenario answers (oracle mode): why each wrong scenario attribution
is wrong, counted per cause.

    python eval/bench_reason.py SET --threads 1 --json report.json
    python eval/scenario_errors.py SET report.json [--show 20] [--tag missed_check]

Each scenario question whose predicted node set differs from the gold is tagged with every
cause that applies, read off the chart and the two node sets (the gold is the walk of
docs/reasoning.md "Gold conventions": from the first settled check, or the step done just
before it, through the taken branches to the answer node):

* ``through_loop`` (not a cause, a setting: the gold walk reaches its answer through a loop back
  to a step before its first node);
* ``wrong_end`` (the answer matched to the wrong step), ``stops_short`` (the predicted end is a
  gold node before the gold end), ``runs_past`` (the predicted end lies after the gold end);
* ``missed_check:FORM``: the first gold node, or a gold node before the walk's middle, is a check
  the prediction leaves out; FORM says how the story settles it, from the procedure's clause for
  the taken branch when the chart is a `--style howto` one (``number``: the clause gives a
  number; ``negation``: it says no / not / never / without; ``shares_words``: it shares a content
  word with the check; ``outcome``: none of these, what the person sees or hears);
* ``missed_done_step`` (the step done just before the first check), ``missed_situation`` (a
  "what next" story's step the person is at), ``missed_middle`` (a gold step or check inside the
  walk);
* ``wrong_check`` (a check the prediction holds that the gold does not), ``extra_before`` (steps
  before the first gold node), ``branch_misread`` (a node on a branch of a gold check that the
  gold walk does not take), ``extra_other`` (anything else).

The first tag in that order (after ``through_loop``) is the question's primary cause; both counts are printed.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import networkx as nx

from flowpath.datasets import Benchmark
from flowpath.evaluation.attribution import oracle_parse
from flowpath.reason.kinds import node_kind
from flowpath.reason.text import tokens

ORDER = ["through_loop", "wrong_end", "stops_short", "runs_past", "missed_check", "missed_done_step", "missed_situation",
         "missed_middle", "wrong_check", "extra_before", "branch_misread", "extra_other"]
_NEGATION = re.compile(r"\b(?:no|not|never|without|nothing|none|barely|only|n't)\b|n't\b", re.I)
_NUMBER = re.compile(r"\d|\b(?:two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|thirty|hundred|"
                     r"sixteenth)\b", re.I)


def _clauses() -> dict[str, dict[str, str]]:
    """Check text -> branch label -> the procedure's settling clause (`--style howto`)."""
    try:
        from data_gen.howto_qa import PROCEDURE_GROUPS, procedures
    except ImportError:  # pragma: no cover - run outside the repository root
        return {}
    out: dict[str, dict[str, str]] = {}
    for group in PROCEDURE_GROUPS:
        for proc in procedures(group):
            for s in proc.steps:
                if s.kind == "decision":
                    out[s.text] = {lab: c for (lab, _), c in zip(s.branches, s.clauses, strict=False)}
    return out


def settling_form(check: str, clause: str | None) -> str:
    """How a clause settles ``check`` (module docstring, ``missed_check:FORM``)."""
    if not clause:
        return "unknown"
    if _NUMBER.search(clause):
        return "number"
    if _NEGATION.search(clause):
        return "negation"
    if set(tokens(check)) & set(tokens(clause)):
        return "shares_words"
    return "outcome"


def _ends(g: Any, nodes: set[str]) -> tuple[list[str], list[str]]:
    """The nodes of ``nodes`` no other one leads into (firsts) and leads out of (lasts), by
    edges inside ``nodes``."""
    sub = g.subgraph(nodes)
    firsts = [n for n in nodes if not any(p != n for p in sub.predecessors(n))]
    lasts = [n for n in nodes if not any(s != n for s in sub.successors(n))]
    return firsts, lasts


def tags_of(chart: Any, record: dict[str, Any], clauses: dict[str, dict[str, str]],
            walk: list[str] | None = None) -> list[str]:
    """The causes of one wrong scenario answer (module docstring). ``walk``: the gold in walk
    order (the generators write it so: first node first, answer node last); without it the
    ends are read off the chart (wrong where the walk runs through a loop back)."""
    g = chart.to_networkx()
    gold, pred = set(record["gold"]), set(record["pred"])
    depth = nx.single_source_shortest_path_length(g, next(iter(n for n in g if g.in_degree(n) == 0), next(iter(g))))
    if walk and set(walk) == gold:
        gold_first, gold_end = walk[0], walk[-1]
    else:
        firsts, lasts = _ends(g, gold)
        gold_first = min(firsts or sorted(gold), key=lambda n: (depth.get(n, 99), n))
        gold_end = max(lasts or sorted(gold), key=lambda n: (depth.get(n, -1), n))
    m = re.search(r"answer node (\S+)", record.get("reason") or "")
    pred_end = m.group(1) if m and m.group(1) in pred else (record["pred"][-1] if record["pred"] else None)
    tags: list[str] = []
    if gold_end != gold_first and nx.has_path(g, gold_end, gold_first):
        tags.append("through_loop")  # the answer lies upstream: the walk reaches it through a loop back
    if pred_end != gold_end:
        if pred_end in gold:
            tags.append("stops_short")
        elif pred_end is not None and nx.has_path(g, gold_end, pred_end) and not nx.has_path(g, pred_end, gold_end):
            tags.append("runs_past")
        else:
            tags.append("wrong_end")
    missing = gold - pred
    checks = [n for n in gold if node_kind(chart, n) == "decision"]
    gold_sub = g.subgraph(gold)
    for n in sorted(missing, key=lambda n: (depth.get(n, 99), n)):
        if n == gold_end:
            continue
        if node_kind(chart, n) == "decision":
            nxt = [e for e in chart.out_edges(n) if e.target in gold and e.target != n]
            label = nxt[0].label if nxt else None
            text = chart.nodes[n].text or ""
            clause = clauses.get(text, {}).get(label or "")
            tags.append(f"missed_check:{settling_form(text, clause)}")
        elif n == gold_first and checks:
            tags.append("missed_done_step")
        elif n == gold_first:
            tags.append("missed_situation")
        else:
            tags.append("missed_middle")
    del gold_sub
    for n in sorted(pred - gold):
        if n == pred_end and "wrong_end" in tags:
            continue
        if node_kind(chart, n) == "decision":
            tags.append("wrong_check")
        elif nx.has_path(g, n, gold_first) and not nx.has_path(g, gold_first, n):
            tags.append("extra_before")
        elif nx.has_path(g, gold_end, n):
            if "runs_past" not in tags:  # (a node past the answer is the running past)
                tags.append("extra_other")
        elif any(n == e.target or nx.has_path(g, e.target, n) for c in checks for e in chart.out_edges(c)
                 if e.target not in gold):
            tags.append("branch_misread")
        else:
            tags.append("extra_other")
    return list(dict.fromkeys(tags)) or ["extra_other"]


def taxonomy(bench: Path, report: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per wrong scenario question: id, tags, question, answer, gold, pred."""
    data = Benchmark(bench)
    by_id = {q.id: q for q in data.questions}
    clauses = _clauses()
    graphs: dict[str, Any] = {}
    rows = []
    for r in report["records"]:
        if r["type"] != "applied_scenario" or set(r["gold"]) == set(r["pred"]):
            continue
        q = by_id[r["id"]]
        if q.chart not in graphs:
            graphs[q.chart] = oracle_parse(data.chart(q.chart)).graph
        rows.append({"id": r["id"], "tags": tags_of(graphs[q.chart], r, clauses, list(q.gold)), "question": q.question,
                     "answer": q.answer, "gold": r["gold"], "pred": r["pred"], "chart": graphs[q.chart]})
    return rows


def _family(tag: str) -> str:
    return tag.split(":")[0]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("bench", type=Path)
    p.add_argument("report", type=Path, help="eval/bench_reason.py --json output on the same set")
    p.add_argument("--show", type=int, default=0, help="print this many questions (with --tag: of that tag)")
    p.add_argument("--tag", default=None, help="show only questions carrying this tag (or tag family)")
    args = p.parse_args(argv)
    report = json.loads(args.report.read_text(encoding="utf-8"))
    rows = taxonomy(args.bench, report)
    total = sum(r["type"] == "applied_scenario" for r in report["records"])
    print(f"{args.bench}: {len(rows)} of {total} scenario questions wrong")
    every = Counter(t for r in rows for t in r["tags"])
    primary = Counter(min([t for t in r["tags"] if t != "through_loop"] or r["tags"], key=lambda t: ORDER.index(_family(t)))
                      for r in rows)
    print(f"{'cause':<28}{'any':>6}{'primary':>9}")
    for t in sorted(every, key=lambda t: (ORDER.index(_family(t)), t)):
        print(f"{t:<28}{every[t]:>6}{primary[t]:>9}")
    shown = 0
    for r in rows:
        if shown >= args.show:
            break
        if args.tag and not any(t == args.tag or _family(t) == args.tag for t in r["tags"]):
            continue
        shown += 1
        c = r["chart"]
        print(f"\n{r['id']} {r['tags']}\n  Q: {r['question']}\n  A: {r['answer']}")
        for n in sorted(set(r["gold"]) | set(r["pred"])):
            mark = ("G" if n in r["gold"] else " ") + ("P" if n in r["pred"] else " ")
            print(f"  {mark} {n} [{node_kind(c, n)}] {c.nodes[n].text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
