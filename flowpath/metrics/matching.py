"""The one region matcher, in the two forms the evaluations need.

* **One-to-one** (`match_regions`, `match_nodes`): segmentation recall/precision and the
  letter <-> gold-id mapping of transcription. Pairs are taken greedily from the highest IoU
  down, ties by (pred, gold) index. On flowchart nodes, which do not overlap each other, this
  gives the same pairs as Hungarian matching (doctr's ``linear_sum_assignment(-iou)``) without
  scipy in the core, and keeps every published figure where it was.
* **Most-overlapping gold node** (`assign_to_gold`): the benchmark's attribution rule; not
  one-to-one, two predictions may map to the same gold node.

>>> match_regions([(0, 0, 10, 10)], [(1, 1, 10, 10), (0, 0, 4, 4)])
[(0, 0, 0.81)]
>>> assign_to_gold([(0, 0, 10, 10), (0, 0, 10, 9)], {"A": (0, 0, 10, 10), "B": (50, 0, 60, 9)})
['A', 'A']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from flowpath.metrics.iou import BoxLike, IouOn, iou_matrix

__all__ = ["assign_to_gold", "match_iou", "match_nodes", "match_regions"]


def _check_threshold(iou_threshold: float) -> None:
    if not 0.0 <= iou_threshold <= 1.0:
        raise ValueError(f"iou_threshold must be in [0, 1], got {iou_threshold!r}")


def match_iou(iou: np.ndarray, iou_threshold: float) -> list[tuple[int, int, float]]:
    """One-to-one pairs ``(row, col, iou)`` of an IoU matrix with IoU >= ``iou_threshold`` (and
    > 0), greedily from the highest IoU; sorted by row."""
    _check_threshold(iou_threshold)
    if iou.size == 0:
        return []
    rows, cols = np.nonzero((iou >= iou_threshold) & (iou > 0))
    # stable sort on -IoU keeps row-major (pred, gold) order among ties
    order = np.argsort(-iou[rows, cols], kind="stable")
    used_p: set[int] = set()
    used_g: set[int] = set()
    pairs: list[tuple[int, int, float]] = []
    for k in order:
        i, j = int(rows[k]), int(cols[k])
        if i in used_p or j in used_g:
            continue
        used_p.add(i)
        used_g.add(j)
        pairs.append((i, j, float(iou[i, j])))
    return sorted(pairs)


def match_regions(pred: Sequence[BoxLike], gold: Sequence[BoxLike], iou_threshold: float = 0.5,
                  *, on: IouOn = "box",
                  image_size: tuple[int, int] | None = None) -> list[tuple[int, int, float]]:
    """One-to-one matching of predicted to gold regions.

    Args:
        pred: predicted regions (`Region` or ``xyxy`` boxes).
        gold: gold regions.
        iou_threshold: smallest IoU that counts as a match, in [0, 1].
        on: IoU on ``"box"`` or ``"region"`` (see `flowpath.metrics.iou.iou_matrix`).
        image_size: ``(height, width)`` for region IoU.

    Returns:
        ``(pred_index, gold_index, iou)`` triples, sorted by ``pred_index``.

    Raises:
        ValueError: a threshold outside [0, 1] or a malformed box.
    """
    _check_threshold(iou_threshold)
    return match_iou(iou_matrix(pred, gold, on=on, image_size=image_size), iou_threshold)


def match_nodes(pred_regions: Mapping[str, BoxLike], gold_regions: Mapping[str, BoxLike],
                iou_threshold: float = 0.5) -> dict[str, str]:
    """Predicted node id -> gold node id by one-to-one box-IoU matching of their regions.

    >>> match_nodes({"A": (0, 0, 10, 10)}, {"n1": (50, 0, 60, 10), "n2": (0, 0, 10, 11)})
    {'A': 'n2'}
    """
    pk, gk = list(pred_regions), list(gold_regions)
    pairs = match_regions([pred_regions[k] for k in pk], [gold_regions[k] for k in gk],
                          iou_threshold)
    return {pk[i]: gk[j] for i, j, _ in pairs}


def assign_to_gold(pred: Sequence[BoxLike], gold_regions: Mapping[str, BoxLike],
                   iou_threshold: float = 0.7, *, on: IouOn = "box",
                   image_size: tuple[int, int] | None = None) -> list[str | None]:
    """The benchmark's mapping: each predicted region -> the gold node it overlaps most, or None.

    Not one-to-one: two predicted regions may map to the same gold node (the attribution metric
    then counts the second one as a false positive).

    Args:
        pred: predicted regions.
        gold_regions: node id -> gold region, for *all* nodes of the chart.
        iou_threshold: the IoU the best overlap must reach.
        on: IoU on ``"box"`` or ``"region"``.
        image_size: ``(height, width)`` for region IoU.

    Returns:
        One gold node id (or None) per predicted region.
    """
    _check_threshold(iou_threshold)
    ids = list(gold_regions)
    if not pred:
        return []
    if not ids:
        return [None] * len(pred)
    iou = iou_matrix(pred, [gold_regions[i] for i in ids], on=on, image_size=image_size)
    out: list[str | None] = []
    for row in iou:
        j = int(np.argmax(row))
        out.append(ids[j] if row[j] >= iou_threshold else None)
    return out
