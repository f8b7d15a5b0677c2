"""Regions and box geometry (numpy only).

Box convention, everywhere in flowpath: absolute-pixel ``xyxy`` = ``(x0, y0, x1, y1)`` in the
coordinates of the *original* image, x to the right, y down, ``x1 > x0`` and ``y1 > y0``.
Polygons are lists of ``(x, y)`` vertices in the same frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

BBox = tuple[float, float, float, float]


def validate_xyxy(box: Sequence[float], what: str = "bbox") -> BBox:
    """Return ``box`` as a float tuple, or raise ``ValueError`` naming what is wrong."""
    if len(box) != 4:
        raise ValueError(f"{what} must have 4 numbers (x0, y0, x1, y1), got {len(box)}: {box!r}")
    x0, y0, x1, y1 = (float(v) for v in box)
    if not all(np.isfinite([x0, y0, x1, y1])):
        raise ValueError(f"{what} has a non-finite coordinate: {box!r}")
    if x1 < x0 or y1 < y0:
        raise ValueError(f"{what} must be xyxy with x1 >= x0 and y1 >= y0, got {box!r}")
    return (x0, y0, x1, y1)


@dataclass
class Region:
    """A node region in original-image pixels.

    Attributes:
        bbox: ``xyxy`` box.
        polygon: outline vertices ``[(x, y), ...]``; defaults to the box corners.
        score: detector confidence in [0, 1] (1.0 for gold or given regions).
        mask: optional COCO RLE ``{"size": [h, w], "counts": str}`` of the exact pixel mask.
    """

    bbox: BBox
    polygon: list[tuple[float, float]] = field(default_factory=list)
    score: float = 1.0
    mask: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        self.bbox = validate_xyxy(self.bbox)
        if not self.polygon:
            x0, y0, x1, y1 = self.bbox
            self.polygon = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        else:
            pts = [(float(p[0]), float(p[1])) for p in self.polygon]
            if len(pts) < 3:
                raise ValueError(f"Region polygon needs at least 3 vertices, got {len(pts)}")
            self.polygon = pts
        if not 0.0 <= float(self.score) <= 1.0:
            raise ValueError(f"Region score must be in [0, 1], got {self.score!r}")
        self.score = float(self.score)

    @property
    def width(self) -> float:
        return self.bbox[2] - self.bbox[0]

    @property
    def height(self) -> float:
        return self.bbox[3] - self.bbox[1]

    @property
    def area(self) -> float:
        return self.width * self.height

    @property
    def center(self) -> tuple[float, float]:
        return ((self.bbox[0] + self.bbox[2]) / 2, (self.bbox[1] + self.bbox[3]) / 2)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "bbox": [round(v, 2) for v in self.bbox],
            "polygon": [[round(x, 2), round(y, 2)] for x, y in self.polygon],
            "score": round(self.score, 4),
        }
        if self.mask is not None:
            d["mask"] = self.mask
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Region:
        return cls(bbox=tuple(d["bbox"]), polygon=[tuple(p) for p in d.get("polygon") or []],  # type: ignore[arg-type]
                   score=float(d.get("score", 1.0)), mask=d.get("mask"))

    @classmethod
    def from_polygon(cls, polygon: Sequence[Sequence[float]], score: float = 1.0) -> Region:
        arr = np.asarray(polygon, dtype=float)
        return cls(bbox=(arr[:, 0].min(), arr[:, 1].min(), arr[:, 0].max(), arr[:, 1].max()),
                   polygon=[(float(x), float(y)) for x, y in arr], score=score)


def box_iou(a: Sequence[float], b: Sequence[float]) -> float:
    """IoU of two ``xyxy`` boxes (0 when either is empty)."""
    ix0, iy0 = max(a[0], b[0]), max(a[1], b[1])
    ix1, iy1 = min(a[2], b[2]), min(a[3], b[3])
    inter = max(0.0, ix1 - ix0) * max(0.0, iy1 - iy0)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return float(inter / union) if union > 0 else 0.0


def box_holds(outer: Sequence[float], inner: Sequence[float]) -> bool:
    """Whether ``xyxy`` box ``outer`` holds box ``inner`` whole (edges may coincide)."""
    return bool(outer[0] <= inner[0] and outer[1] <= inner[1] and outer[2] >= inner[2] and outer[3] >= inner[3])


def box_intersection_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise intersection areas of ``(N, 4)`` and ``(M, 4)`` xyxy arrays -> ``(N, M)``."""
    a = np.asarray(a, dtype=float).reshape(-1, 4)
    b = np.asarray(b, dtype=float).reshape(-1, 4)
    ix0 = np.maximum(a[:, None, 0], b[None, :, 0])
    iy0 = np.maximum(a[:, None, 1], b[None, :, 1])
    ix1 = np.minimum(a[:, None, 2], b[None, :, 2])
    iy1 = np.minimum(a[:, None, 3], b[None, :, 3])
    return np.asarray(np.clip(ix1 - ix0, 0, None) * np.clip(iy1 - iy0, 0, None))


def box_iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise IoU of ``(N, 4)`` and ``(M, 4)`` xyxy arrays -> ``(N, M)``."""
    a = np.asarray(a, dtype=float).reshape(-1, 4)
    b = np.asarray(b, dtype=float).reshape(-1, 4)
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)))
    inter = box_intersection_matrix(a, b)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a[:, None] + area_b[None, :] - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(union > 0, inter / union, 0.0)


def polygon_area(polygon: Sequence[Sequence[float]]) -> float:
    """Shoelace area of a simple polygon."""
    p = np.asarray(polygon, dtype=float)
    if len(p) < 3:
        return 0.0
    x, y = p[:, 0], p[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)


def reading_order(regions: Sequence[Region], row_tolerance: float = 0.5) -> list[int]:
    """Indices of ``regions`` in reading order: top-to-bottom, then left-to-right.

    Regions whose vertical centres lie within ``row_tolerance`` x (median region height) of a
    row's first member count as one row, so nodes drawn side by side at slightly different
    heights are still read left to right.
    """
    if not regions:
        return []
    heights = [max(r.height, 1.0) for r in regions]
    tol = row_tolerance * float(np.median(heights))
    order = sorted(range(len(regions)), key=lambda i: (regions[i].center[1], regions[i].center[0]))
    rows: list[list[int]] = []
    row_y = 0.0
    for i in order:
        cy = regions[i].center[1]
        if rows and cy - row_y <= tol:
            rows[-1].append(i)
        else:
            rows.append([i])
            row_y = cy
    return [i for row in rows for i in sorted(row, key=lambda j: regions[j].center[0])]
