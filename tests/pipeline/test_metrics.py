"""flowpath.metrics: the one matcher (box and region IoU), P/R/F1, the shared accumulator and the
attribution metric (benchmark rule: best-overlap gold node at IoU >= 0.7, micro P/R/F1)."""

from __future__ import annotations

from contextlib import nullcontext as does_not_raise

import numpy as np
import pytest

from flowpath.geometry import Region
from flowpath.metrics import (
    Accumulator,
    AttributionMetric,
    SegmentationMetric,
    Tally,
    TranscriptionMetric,
    assign_to_gold,
    iou_matrix,
    is_connected_path,
    match_nodes,
    match_regions,
    prf,
)

# three stacked 100x50 nodes
GOLD = {"A": (0, 0, 100, 50), "B": (0, 100, 100, 150), "C": (0, 200, 100, 250)}


def shifted(box, dy):
    return (box[0], box[1] + dy, box[2], box[3] + dy)


@pytest.mark.parametrize(
    "pred, gold, thr, expected, ctx",
    [
        ([], [], 0.5, [], does_not_raise()),
        ([(0, 0, 10, 10)], [], 0.5, [], does_not_raise()),
        ([(0, 0, 10, 10)], [(0, 0, 10, 10)], 0.5, [(0, 0, 1.0)], does_not_raise()),
        # 0.81 with the first gold box, 0.16 with the second: one pair
        ([(0, 0, 10, 10)], [(1, 1, 10, 10), (0, 0, 4, 4)], 0.5, [(0, 0, 0.81)], does_not_raise()),
        # both preds prefer gold 0; the better one wins it, the other takes gold 1
        ([(0, 0, 10, 10), (0, 0, 10, 9)], [(0, 0, 10, 10), (0, 0, 10, 8)], 0.5,
         [(0, 0, 1.0), (1, 1, pytest.approx(80 / 90))], does_not_raise()),
        ([(0, 0, 10, 10)], [(5, 5, 15, 15)], 0.5, [], does_not_raise()),
        ([(0, 0, 10, 10)], [(0, 0, 10, 10)], 1.5, None, pytest.raises(ValueError, match="iou_threshold")),
        ([(0, 0, 10)], [(0, 0, 10, 10)], 0.5, None, pytest.raises(ValueError, match="xyxy")),
    ],
)
def test_match_regions(pred, gold, thr, expected, ctx):
    with ctx:
        assert match_regions(pred, gold, thr) == expected


@pytest.mark.parametrize(
    "pred, expected",
    [
        ([], []),
        ([GOLD["B"]], ["B"]),
        ([Region(GOLD["C"])], ["C"]),  # Regions work as boxes
        ([shifted(GOLD["A"], 5)], ["A"]),  # IoU 45/55 = 0.82
        ([shifted(GOLD["A"], 20)], [None]),  # IoU 30/70 = 0.43 < 0.7
        ([(0, 0, 100, 150)], [None]),  # spans A and B: overlaps each at 1/3
        ([GOLD["A"], GOLD["A"]], ["A", "A"]),  # not one-to-one
    ],
)
def test_assign_to_gold(pred, expected):
    assert assign_to_gold(pred, GOLD) == expected


@pytest.mark.parametrize(
    "tp, fp, fn, expected, ctx",
    [
        (0, 0, 0, (0.0, 0.0, 0.0), does_not_raise()),
        (0, 0, 2, (0.0, 0.0, 0.0), does_not_raise()),
        (1, 1, 1, (0.5, 0.5, 0.5), does_not_raise()),
        (3, 1, 0, (0.75, 1.0, 6 / 7), does_not_raise()),
        (0, 2, 3, (0.0, 0.0, 0.0), does_not_raise()),
        (-1, 0, 0, None, pytest.raises(ValueError, match="non-negative")),
    ],
)
def test_prf(tp, fp, fn, expected, ctx):
    with ctx:
        out = prf(tp, fp, fn)
        assert (out["precision"], out["recall"], out["f1"]) == pytest.approx(expected)


@pytest.mark.parametrize(
    "tp, fp, fn, expected",
    [
        (0, 0, 0, (1.0, 1.0, 1.0)),  # nothing to find, nothing found
        (0, 0, 2, (0.0, 0.0, 0.0)),  # nothing found, something missed
        (0, 2, 0, (0.0, 0.0, 0.0)),  # nothing to find, something found
        (1, 1, 0, (0.5, 1.0, 2 / 3)),  # ``empty`` only changes 0/0
    ],
)
def test_prf_empty_convention(tp, fp, fn, expected):
    out = prf(tp, fp, fn, empty=1.0)
    assert (out["precision"], out["recall"], out["f1"]) == pytest.approx(expected)


def test_tally_sums_overall_and_per_group():
    t = Tally()
    t.add({"tp": 1, "fp": 2}, groups={"domain": "code", "type": None})
    t.add({"tp": 3}, groups={"domain": "wiki", "type": "x"})
    rows = t.rows(lambda c: {"tp": c["tp"], "fp": c["fp"]})
    assert rows["overall"] == {"tp": 4, "fp": 2}
    assert rows["by_domain"] == {"code": {"tp": 1, "fp": 2}, "wiki": {"tp": 3, "fp": 0}}
    assert set(rows["by_type"]) == {"unknown", "x"}
    t.reset()
    assert t.rows(lambda c: dict(c)) == {"overall": {}}


@pytest.mark.parametrize("metric", [AttributionMetric(), SegmentationMetric(), TranscriptionMetric()])
def test_every_metric_has_the_accumulator_shape(metric):
    assert isinstance(metric, Accumulator)
    assert set(metric.summary()) >= {"overall"}


# a rhombus (decision node) inscribed in the box (0, 0, 40, 20): half the box's area
RHOMBUS = Region.from_polygon([(20, 0), (40, 10), (20, 20), (0, 10)])


@pytest.mark.parametrize(
    "pred, gold, on, expected, ctx",
    [
        ([RHOMBUS], [Region((0, 0, 40, 20))], "box", 1.0, does_not_raise()),
        # pixels: the rasterised rhombus covers about half of its box
        ([RHOMBUS], [Region((0, 0, 40, 20))], "region", pytest.approx(0.5, abs=0.08), does_not_raise()),
        ([RHOMBUS], [RHOMBUS], "region", 1.0, does_not_raise()),
        ([(0, 0, 10, 10)], [(0, 0, 10, 5)], "region", pytest.approx(0.5, abs=0.06), does_not_raise()),
        ([(0, 0, 10, 10)], [(20, 20, 30, 30)], "region", 0.0, does_not_raise()),
        ([RHOMBUS], [RHOMBUS], "pixels", None, pytest.raises(ValueError, match="iou on")),
    ],
)
def test_iou_on_box_and_region(pred, gold, on, expected, ctx):
    with ctx:
        assert float(iou_matrix(pred, gold, on=on, image_size=(40, 60))[0, 0]) == expected


def test_region_iou_uses_a_mask_of_the_image_size():
    from flowpath.segment.postprocess import encode_mask_rle

    mask = np.zeros((40, 60), bool)
    mask[0:20, 0:20] = True  # the left half of the box below
    masked = Region((0, 0, 40, 20), mask=encode_mask_rle(mask))
    iou = iou_matrix([masked], [Region((0, 0, 40, 20))], on="region", image_size=(40, 60))[0, 0]
    assert float(iou) == pytest.approx(0.5, abs=0.05)
    # a mask of another size cannot be compared: the polygon (here the box) is used
    assert float(iou_matrix([masked], [Region((0, 0, 40, 20))], on="region",
                            image_size=(50, 60))[0, 0]) == pytest.approx(1.0)


def test_region_iou_is_stricter_on_a_decision_node():
    # a box prediction around a diamond: counts as the node on boxes, not on regions
    gold = {"D": RHOMBUS, "E": Region((0, 40, 40, 60))}
    box_metric, region_metric = AttributionMetric(), AttributionMetric(iou_on="region")
    assert box_metric.update([Region((0, 0, 40, 20))], ["D"], gold).tp == 1
    s = region_metric.update([Region((0, 0, 40, 20))], ["D"], gold, image_size=(60, 40))
    assert (s.tp, s.fp, s.fn) == (0, 1, 1)
    assert region_metric.update([RHOMBUS], ["D"], gold, image_size=(60, 40)).tp == 1
    assert region_metric.summary()["iou_on"] == "region"
    with pytest.raises(ValueError, match="iou_on"):
        AttributionMetric(iou_on="mask")  # type: ignore[arg-type]


def test_match_nodes_maps_ids_one_to_one():
    pred = {"A": (0, 0, 10, 10), "B": (0, 0, 10, 9), "C": (100, 0, 110, 10)}
    gold = {"n1": (0, 0, 10, 10), "n2": (0, 0, 10, 8)}
    assert match_nodes(pred, gold) == {"A": "n1", "B": "n2"}


@pytest.mark.parametrize(
    "pred, gold, counts, exact, first, last",
    [
        ([GOLD["A"], GOLD["B"]], ["A", "B"], (2, 0, 0), True, True, True),
        ([GOLD["A"]], ["A", "B"], (1, 0, 1), False, True, False),
        ([GOLD["B"], GOLD["C"]], ["A", "B"], (1, 1, 1), False, False, True),
        ([], ["A"], (0, 0, 1), False, False, False),
        ([(500, 500, 600, 600)], ["C"], (0, 1, 1), False, False, False),
        # the same node predicted twice: the second one is a false positive
        ([GOLD["A"], shifted(GOLD["A"], 3)], ["A"], (1, 1, 0), False, True, True),
    ],
)
def test_question_score(pred, gold, counts, exact, first, last):
    m = AttributionMetric()
    s = m.update(pred, gold, GOLD)
    assert (s.tp, s.fp, s.fn) == counts
    assert (s.exact, s.first_hit, s.last_hit) == (exact, first, last)
    assert len(s.mapped) == len(pred)


def test_micro_average_sums_counts_over_questions():
    m = AttributionMetric()
    m.update([GOLD["A"]], ["A"], GOLD, groups={"type": "fact_retrieval", "domain": "code"})
    m.update([GOLD["A"], GOLD["B"], GOLD["C"]], ["C"], GOLD,
             groups={"type": "topological", "domain": "code"})
    s = m.summary()
    o = s["overall"]
    # micro: TP 2, FP 2, FN 0 (a macro average of per-question F1 would give (1 + 0.5) / 2)
    assert (o["tp"], o["fp"], o["fn"]) == (2, 2, 0)
    assert o["precision"] == pytest.approx(0.5) and o["recall"] == pytest.approx(1.0)
    assert o["f1"] == pytest.approx(2 / 3)
    assert s["by_type"]["fact_retrieval"]["f1"] == pytest.approx(1.0)
    assert s["by_type"]["topological"]["precision"] == pytest.approx(1 / 3)
    assert s["by_domain"]["code"]["questions"] == 2
    assert o["exact_match"] == pytest.approx(0.5)
    m.reset()
    assert m.summary()["overall"]["questions"] == 0


def test_missing_region_gold_counts_as_false_negative():
    m = AttributionMetric()
    s = m.update([GOLD["A"]], ["A", "Z"], GOLD, missing_region=["Z"])
    assert (s.tp, s.fp, s.fn) == (1, 0, 1)
    assert m.summary()["missing_region"] == 1
    with pytest.raises(ValueError, match="'Q' has no region"):
        m.update([], ["Q"], GOLD)


def test_connectedness_diagnostic():
    m = AttributionMetric()
    edges = [("A", "B"), ("B", "C")]
    assert m.update([GOLD["A"], GOLD["B"]], ["A", "B"], GOLD, pred_ids=["A", "B"],
                    pred_edges=edges).connected is True
    assert m.update([GOLD["A"], GOLD["C"]], ["A", "C"], GOLD, pred_ids=["A", "C"],
                    pred_edges=edges).connected is False
    assert m.update([GOLD["A"]], ["A"], GOLD).connected is None
    assert m.summary()["overall"]["connected_path"] == pytest.approx(0.5)


@pytest.mark.parametrize(
    "ids, edges, expected",
    [([], [], False), (["A"], [], True), (["A", "B"], [("B", "A")], True),
     (["A", "B", "C"], [("A", "B")], False), (["A", "A"], [], True)],
)
def test_is_connected_path(ids, edges, expected):
    assert is_connected_path(ids, edges) is expected


def test_bad_threshold():
    with pytest.raises(ValueError, match="iou_threshold"):
        AttributionMetric(iou_threshold=0)
