"""IoU between predicted and gold node regions: on boxes, or on the regions' own shapes.

``on="box"`` compares the ``xyxy`` boxes (numpy only). ``on="region"`` compares the pixel
areas the nodes cover: a region's COCO RLE mask when it has one of the image's size, else its
polygon rasterised by pycocotools (a core dependency, imported only here). A diamond's box is
twice its area, so region IoU is the stricter and, for non-rectangular nodes, the truer figure.

>>> from flowpath.geometry import Region
>>> diamond = Region.from_polygon([(10, 0), (20, 10), (10, 20), (0, 10)])
>>> float(iou_matrix([diamond], [Region((0, 0, 20, 20))])[0, 0])
1.0
>>> round(float(iou_matrix([diamond], [Region((0, 0, 20, 20))], on="region",
...                        image_size=(30, 30))[0, 0]), 2)
0.5
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal

import numpy as np

from flowpath.geometry import Region, box_iou, box_iou_matrix

__all__ = ["IOU_ON", "BoxLike", "IouOn", "box_iou", "iou_matrix", "region_rle", "regions_extent"]

#: what the IoU is computed on: ``box`` (xyxy boxes) or ``region`` (polygon / mask pixels)
IouOn = Literal["box", "region"]
IOU_ON: tuple[IouOn, ...] = ("box", "region")

#: an ``xyxy`` box or a `Region`
BoxLike = Sequence[float] | Region


def _box(b: BoxLike) -> tuple[float, float, float, float]:
    if isinstance(b, Region):
        return b.bbox
    if len(b) != 4:
        raise ValueError(f"a box must be xyxy (4 numbers), got {b!r}")
    return (float(b[0]), float(b[1]), float(b[2]), float(b[3]))


def _boxes(boxes: Iterable[BoxLike]) -> np.ndarray:
    return np.array([_box(b) for b in boxes], dtype=float).reshape(-1, 4)


def region_rle(region: BoxLike, height: int, width: int) -> dict[str, Any]:
    """COCO RLE (bytes ``counts``, as pycocotools takes it) of a region in an ``height x width``
    image: its own mask when it has one of that size, else its polygon (a box: its corners)."""
    from pycocotools import mask as mask_utils

    if isinstance(region, Region) and region.mask is not None \
            and list(region.mask["size"]) == [height, width]:
        counts = region.mask["counts"]
        return {"size": [height, width],
                "counts": counts.encode("ascii") if isinstance(counts, str) else counts}
    if isinstance(region, Region):
        polygon = region.polygon
    else:
        x0, y0, x1, y1 = _box(region)
        polygon = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    flat = [float(v) for p in polygon for v in p]
    return mask_utils.merge(mask_utils.frPyObjects([flat], height, width))


def regions_extent(regions: Sequence[BoxLike]) -> tuple[int, int]:
    """``(height, width)`` of the smallest image that holds every region."""
    boxes = _boxes(regions)
    if not len(boxes):
        return (1, 1)
    return (int(np.ceil(boxes[:, 3].max())) + 1, int(np.ceil(boxes[:, 2].max())) + 1)


def iou_matrix(pred: Sequence[BoxLike], gold: Sequence[BoxLike], *, on: IouOn = "box",
               image_size: tuple[int, int] | None = None) -> np.ndarray:
    """IoU of every predicted with every gold region, shape ``(len(pred), len(gold))``.

    Args:
        pred: predicted regions (`Region` or ``xyxy`` boxes).
        gold: gold regions.
        on: ``"box"`` or ``"region"`` (polygon / mask pixels; plain boxes count as rectangles).
        image_size: ``(height, width)`` of the image, for ``on="region"``; default: the extent
            of all the regions (masks of another size are then ignored for their polygon).

    Raises:
        ValueError: an unknown ``on`` or a box that is not ``xyxy``.
    """
    if on not in IOU_ON:
        raise ValueError(f"iou on must be one of {IOU_ON}, got {on!r}")
    if on == "box" or not len(pred) or not len(gold):
        return box_iou_matrix(_boxes(pred), _boxes(gold))
    from pycocotools import mask as mask_utils

    h, w = image_size or regions_extent([*pred, *gold])
    dt = [region_rle(r, h, w) for r in pred]
    gt = [region_rle(r, h, w) for r in gold]
    return np.asarray(mask_utils.iou(dt, gt, [0] * len(gt)), dtype=float).reshape(len(dt), len(gt))
