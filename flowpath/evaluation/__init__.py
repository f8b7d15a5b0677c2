"""Stage evaluations (segmentation here; no torch at import time)."""

from flowpath.evaluation.segmentation import (
    SegmentationMetric,
    SegmentationReport,
    evaluate_segmenter,
    load_gold,
    match_regions,
)

__all__ = ["SegmentationMetric", "SegmentationReport", "evaluate_segmenter", "load_gold", "match_regions"]
