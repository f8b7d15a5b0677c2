"""SourceTranscriber (geometry and OCR-text id mapping), the transcription metric, and
``flowpath eval transcribe`` end to end."""

from __future__ import annotations

import json
import shutil

import pytest

from flowpath.datasets.febench import Benchmark
from flowpath.geometry import Region
from flowpath.graph import FlowChart
from flowpath.models.base import LabelledChart
from tests.markers import REPO_ROOT, require_tesseract

EXAMPLES = REPO_ROOT / "examples"


def _labelled(chart_dir, chart_id, with_json=True, with_mmd=True):
    from flowpath.io import load_image
    from flowpath.labeller import draw_labels
    from flowpath.mermaid import parse_mermaid

    src = Benchmark(EXAMPLES).chart(chart_id)
    png = chart_dir / f"{chart_id}.png"
    shutil.copy(src.image_path, png)
    if with_json:
        shutil.copy(EXAMPLES / "charts" / f"{chart_id}.json", chart_dir / f"{chart_id}.json")
    if with_mmd:
        (chart_dir / f"{chart_id}.mmd").write_text(src.mermaid)
    gold = parse_mermaid(src.mermaid)
    img = load_image(png)
    lab, regions = draw_labels(img, [src.regions[k] for k in gold.nodes])
    by_box = {tuple(r.bbox): letter for letter, r in regions.items()}
    truth = {k: by_box[tuple(src.regions[k].bbox)] for k in gold.nodes}
    return LabelledChart(img, lab, regions, str(png)), gold.relabel(truth)


def _edges(fc: FlowChart):
    return sorted((e.source, e.target, e.condition) for e in fc.edges)


def test_source_by_geometry_maps_ids_onto_letters(tmp_path):
    from flowpath.transcribe import make_transcriber

    chart, want = _labelled(tmp_path, "loan")
    tr = make_transcriber("source")([chart])[0]
    assert tr.meta["matched_by"] == "geometry"
    assert _edges(tr.chart) == _edges(want)
    assert {k: n.text for k, n in tr.chart.nodes.items()} == {k: n.text for k, n in want.nodes.items()}
    assert list(tr.chart.nodes) == list(chart.regions)  # letter order
    assert not tr.problems


@require_tesseract
def test_source_by_ocr_text_when_no_geometry_is_given(tmp_path):
    from flowpath.transcribe import make_transcriber

    chart, want = _labelled(tmp_path, "tea", with_json=False)
    tr = make_transcriber("source")([chart])[0]
    assert tr.meta["matched_by"] == "text"
    assert _edges(tr.chart) == _edges(want)


def test_source_missing_is_reported(tmp_path):
    from flowpath.transcribe import make_transcriber

    chart, _ = _labelled(tmp_path, "loan", with_json=False, with_mmd=False)
    tr = make_transcriber("source")([chart])[0]
    assert set(tr.chart.nodes) == set(chart.regions) and not tr.chart.edges
    assert "no Mermaid source" in tr.problems[0]


R = {"s": Region((0, 0, 10, 10)), "t": Region((0, 20, 10, 30)), "u": Region((0, 40, 10, 50))}
GOLD = FlowChart.from_edges([("s", "t", "Yes"), ("s", "u", "No")], {"s": "Is it ok?", "t": "Go on", "u": "Stop now"})
PRED_R = {"A": R["s"], "B": R["t"], "C": R["u"]}


@pytest.mark.parametrize("edges, texts, regions, expect", [
    ([("A", "B", "yes"), ("A", "C", "no")], {"A": "Is it ok", "B": "Go on", "C": "Stop now"}, PRED_R,
     {"word_f1": 1.0, "node_f1": 1.0, "edge_f1": 1.0, "condition_accuracy": 1.0, "exact_graph_rate": 1.0}),
    ([("B", "A", "yes"), ("A", "C", "no")], {"A": "Is it ok", "B": "Go on", "C": "Stop now"}, PRED_R,
     {"edge_f1": 0.5, "condition_accuracy": 1.0, "exact_graph_rate": 0.0}),
    ([("A", "B", "no"), ("A", "C", None)], {"A": "Is it ok", "B": "Go", "C": "Stop now"}, PRED_R,
     {"edge_f1": 1.0, "condition_accuracy": 0.0, "node_f1": 2 / 3}),
    ([("A", "B", "Yes")], {"A": "Is it ok", "B": "Go on"}, {"A": R["s"], "B": Region((50, 50, 60, 60))},
     {"edge_f1": 0.0, "node_recall": 1 / 3}),
])
def test_metric_cases(edges, texts, regions, expect):
    from flowpath.metrics import TranscriptionMetric

    m = TranscriptionMetric()
    m.update(FlowChart.from_edges(edges, texts), regions, GOLD, R, groups={"family": "x"})
    s = m.summary()
    for k, v in expect.items():
        assert s["overall"][k] == pytest.approx(v, abs=1e-3), k
    assert s["by_family"]["x"]["charts"] == 1


def test_cli_eval_transcribe_source_on_examples(tmp_path, capsys):
    from flowpath.cli import main

    rc = main(["eval", "transcribe", "--bench", str(EXAMPLES), "--gold-regions", "--transcriber", "source",
               "--out", str(tmp_path), "--json", "--no-progress"])
    assert rc == 0
    report = json.loads(capsys.readouterr().out)
    assert report["overall"]["charts"] == len(Benchmark(EXAMPLES))
    # the source transcriber on gold regions reproduces the gold graph
    assert report["overall"]["edge_f1"] == 1.0 and report["overall"]["exact_graph_rate"] == 1.0
    assert (tmp_path / "transcription.md").read_text().count("| overall |") == 1
    assert len((tmp_path / "records.jsonl").read_text().splitlines()) == len(Benchmark(EXAMPLES))


def test_eval_transcribe_reports_per_renderer_when_the_charts_name_one(tmp_path, capsys):
    from flowpath.cli import main

    bench = tmp_path / "bench"
    shutil.copytree(EXAMPLES, bench)
    charts = sorted((bench / "charts").glob("*.json"))
    for k, path in enumerate(charts):
        d = json.loads(path.read_text())
        path.write_text(json.dumps({**d, "renderer": "graphviz" if k % 2 else "mermaid"}))
    assert main(["eval", "transcribe", "--bench", str(bench), "--gold-regions", "--transcriber", "source",
                 "--json", "--no-progress"]) == 0
    report = json.loads(capsys.readouterr().out)
    per = report["by_renderer"]
    assert sum(row["charts"] for row in per.values()) == len(charts)
    assert per["mermaid"]["charts"] == (len(charts) + 1) // 2
    assert all("+" in k for k in report["by_family+renderer"])
