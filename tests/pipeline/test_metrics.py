"""The attribution metric (benchmark rule: best-overlap gold node at IoU >= 0.7, micro P/R/F1)."""

from __future__ import annotations

from contextlib import nullcontext as does_not_raise

import pytest

from flowpath.geometry import Region
from flowpath.metrics import (
    AttributionMetric,
    assign_to_gold,
    is_connected_path,
    match_boxes,
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
         [(0, 0, 1.0), (1, 1, round(80 / 90, 4))], does_not_raise()),
        ([(0, 0, 10, 10)], [(5, 5, 15, 15)], 0.5, [], does_not_raise()),
        ([(0, 0, 10, 10)], [(0, 0, 10, 10)], 1.5, None, pytest.raises(ValueError, match="iou_threshold")),
        ([(0, 0, 10)], [(0, 0, 10, 10)], 0.5, None, pytest.raises(ValueError, match="xyxy")),
    ],
)
def test_match_boxes(pred, gold, thr, expected, ctx):
    with ctx:
        assert match_boxes(pred, gold, thr) == expected


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
