"""Segmentation metrics and ``flowpath eval segment`` on synthetic benchmark/COCO sets."""

from __future__ import annotations

import json

import pytest

from flowpath.cli import main
from flowpath.datasets import load_gold
from flowpath.evaluation.segmentation import SegmentationReport, evaluate_segmenter
from flowpath.geometry import Region
from flowpath.metrics import SegmentationMetric
from flowpath.models.base import Segmenter
from tests.segment.synth import write_bench, write_coco


class GoldEcho(Segmenter):
    """Returns fixed regions: a test double for the *metric*, not for a segmenter."""

    name = "echo"

    def __init__(self, regions):
        self.regions = regions

    def __call__(self, images):
        return [list(self.regions) for _ in images]


def test_perfect_predictions_score_one_and_misses_lower_recall():
    gold = [Region((10, 10, 50, 40)), Region((100, 10, 150, 40))]
    m = SegmentationMetric()
    m.update(gold, gold, "default", size=(100, 200))
    s = m.summary()["overall"]
    assert s["recall@0.7"] == s["precision@0.7"] == 1.0
    assert s["AP"] == pytest.approx(1.0) and s["segm_AP50"] == pytest.approx(1.0)
    m.reset()
    m.update(gold[:1], gold, "black_white", size=(100, 200))
    s = m.summary()
    assert s["overall"]["recall@0.5"] == 0.5 and s["by_family"]["black_white"]["precision@0.5"] == 1.0
    assert s["overall"]["AP50"] < 1.0


def test_report_round_trips_and_renders_a_table(tmp_path):
    bench = write_bench(tmp_path / "b", styles=("default", "multi_color"))
    rep = evaluate_segmenter(GoldEcho([Region((0, 0, 5, 5))]), bench)
    again = SegmentationReport.from_dict(json.loads(json.dumps(rep.to_dict())))
    assert again.summary == rep.summary and len(again.charts) == 2
    table = rep.format_table()
    assert "multi_color" in table and "recall@0.7" in table


def test_charts_that_name_their_renderer_are_also_scored_per_renderer(tmp_path):
    bench = write_bench(tmp_path / "b", styles=("default", "multi_color", "default"))
    plain = evaluate_segmenter(GoldEcho([Region((0, 0, 5, 5))]), bench, coco=False)
    assert "by_renderer" not in plain.summary  # the benchmark's own charts name no renderer
    for path, renderer in zip(sorted((bench / "charts").glob("*.json")), ("mermaid", "graphviz", "graphviz"),
                              strict=True):
        d = json.loads(path.read_text())
        path.write_text(json.dumps({**d, "renderer": renderer}))
    rep = evaluate_segmenter(GoldEcho([Region((0, 0, 5, 5))]), bench, coco=False)
    by_renderer, by_pair = rep.summary["by_renderer"], rep.summary["by_family+renderer"]
    assert {k: v["images"] for k, v in by_renderer.items()} == {"graphviz": 2, "mermaid": 1}
    assert set(by_pair) == {"default+mermaid", "multi_color+graphviz", "default+graphviz"}
    assert by_renderer["graphviz"]["gold"] == by_pair["multi_color+graphviz"]["gold"] + by_pair["default+graphviz"]["gold"]
    table = rep.format_table()
    assert "multi_color+graphviz" in table and [c["renderer"] for c in rep.charts].count("graphviz") == 2


def test_coco_and_benchmark_sources_load_the_same_gold(tmp_path):
    coco = write_coco(tmp_path / "c", n=2)
    name, images = load_gold(coco)
    assert len(images) == 2 and all(im.path.exists() and im.regions for im in images)
    assert {im.family for im in images} == {"default", "black_white"}
    with pytest.raises(ValueError, match="COCO"):
        load_gold(tmp_path / "c" / "charts" / "syn000.png")


def test_cli_eval_segment_writes_json_and_prints_a_table(tmp_path, capsys):
    bench = write_bench(tmp_path / "b")
    out = tmp_path / "out"
    assert main(["eval", "segment", "--bench", str(bench), "--segmenter", "classical",
                 "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "overall" in printed and "black_white" in printed
    data = json.loads((out / "segmentation.json").read_text())
    assert data["summary"]["overall"]["recall@0.7"] >= 0.9
    assert set(data["summary"]["by_family"]) == {"default", "black_white", "single_color", "multi_color"}


def test_cli_on_a_coco_json_and_a_bad_source(tmp_path, capsys):
    coco = write_coco(tmp_path / "c", n=2)
    assert main(["eval", "segment", "--coco", str(coco), "--json", "--no-coco-ap", "--no-progress"]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert summary["overall"]["images"] == 2
    assert main(["eval", "segment", "--bench", str(tmp_path / "nothing"), "--no-progress"]) == 2


def test_unreadable_chart_is_recorded_and_the_rest_scored(tmp_path):
    bench = write_bench(tmp_path / "b", styles=("default", "black_white"))
    (bench / "charts" / "syn000.png").write_bytes(b"garbage")
    rep = evaluate_segmenter(GoldEcho([]), bench, coco=False)
    assert len(rep.failures) == 1 and "syn000" in rep.failures[0]["error"]
    assert rep.summary["overall"]["images"] == 1
