"""The eval scripts of this area still run (smoke tests; their figures are not asserted)."""

from __future__ import annotations

import importlib.util
import json

from flowpath.graph import tools as gt
from tests.markers import REPO_ROOT


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "eval" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_tools_prints_every_tool(capsys, tmp_path):
    bench = _load("bench_tools")
    chart = bench.build_chart()
    assert len(chart) == 44 and any(n.kind == "decision" for n in chart)
    assert bench.scan_max_in_degree(chart) == gt.max_in_degree(chart)
    bench.main(["--repeat", "20", "--json", str(tmp_path / "b.json")])
    out = capsys.readouterr().out
    for name in gt.TOOL_FUNCTIONS:
        assert name in out
    figures = json.loads((tmp_path / "b.json").read_text())
    assert figures["nodes"] == 44 and set(figures["tools"]) >= {"max_in_degree", "max_out_degree"}


def test_bench_lenient_runs_on_a_benchmark_layout_folder(capsys, tmp_path):
    bench = _load("bench_lenient_mermaid")
    charts = tmp_path / "charts"
    charts.mkdir()
    src = ('flowchart TD\n    A(["Start"]) --> B{"Valid input?"}\n    B -->|"Yes"| C["Save the record"]\n'
           '    B -->|"No"| D["Ask again"]\n    D --> B\n    C --> E(["End"])\n')
    (charts / "c1.json").write_text(json.dumps({"mermaid": src}))
    assert bench.main(["--bench", str(tmp_path), "--seeds", "1"]) == 0
    out = capsys.readouterr().out
    for kind in bench.KINDS:
        assert kind in out


def test_bench_reason_scores_with_the_attribution_metric(capsys, tmp_path):
    from flowpath.evaluation.attribution import evaluate_attribution

    bench = _load("bench_reason")
    examples = REPO_ROOT / "examples"
    rep = bench.run(examples, "offline")
    # the script's oracle figures are those of `flowpath eval attribution --oracle`
    ref = evaluate_attribution(examples, reasoner=bench.make_reasoner("offline"), oracle=True)
    for key in ("tp", "fp", "fn", "f1", "exact_match"):
        assert rep["table"]["overall"][key] == ref["overall"][key]
    assert set(rep["table"]) >= {"overall", *ref["by_type"], *(f"domain:{d}" for d in ref["by_domain"])}
    assert bench.main([str(examples), "--noise", "0.1", "--json", str(tmp_path / "r.json")]) == 0
    assert "overall" in capsys.readouterr().out
    assert json.loads((tmp_path / "r.json").read_text())["questions"] == len(rep["records"])
