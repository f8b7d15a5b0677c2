"""Every score flowpath computes, in one pure package (numpy + pycocotools, no torch).

* `flowpath.metrics.iou`: box and region (polygon / mask) IoU.
* `flowpath.metrics.matching`: the one matcher: one-to-one (`match_regions`, `match_nodes`)
  and the benchmark's most-overlapping gold node (`assign_to_gold`).
* `flowpath.metrics.scores`: `prf` and the `Tally` every accumulator sums its counts in.
* The ``update()``/``summary()``/``reset()`` accumulators: `AttributionMetric`,
  `SegmentationMetric`, `TranscriptionMetric`.

The runners that feed them (``evaluate_*``) live in `flowpath.evaluation`.
"""

from flowpath.metrics.attribution import (
    ATTRIBUTION_IOU,
    AttributionMetric,
    QuestionScore,
    is_connected_path,
)
from flowpath.metrics.iou import IOU_ON, BoxLike, IouOn, box_iou, iou_matrix, region_rle
from flowpath.metrics.matching import assign_to_gold, match_iou, match_nodes, match_regions
from flowpath.metrics.scores import Accumulator, Tally, prf
from flowpath.metrics.segmentation import IOU_THRESHOLDS, SegmentationMetric
from flowpath.metrics.transcription import TranscriptionMetric, words

__all__ = [
    "ATTRIBUTION_IOU",
    "IOU_ON",
    "IOU_THRESHOLDS",
    "Accumulator",
    "AttributionMetric",
    "BoxLike",
    "IouOn",
    "QuestionScore",
    "SegmentationMetric",
    "Tally",
    "TranscriptionMetric",
    "assign_to_gold",
    "box_iou",
    "iou_matrix",
    "is_connected_path",
    "match_iou",
    "match_nodes",
    "match_regions",
    "prf",
    "region_rle",
    "words",
]
