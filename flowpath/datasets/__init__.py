"""Readers for evaluation data on disk (pure Python, no torch).

* `flowpath.datasets.febench`: the *benchmark layout* of FlowExplainBench and of the sets that
  ``data_gen`` writes (`Benchmark`, `BenchChart`, `BenchQuestion`).
* `flowpath.datasets.segmentation`: segmentation gold (`load_gold`) from a benchmark-layout
  folder or a COCO instances json.
"""

from flowpath.datasets.febench import (
    QUESTION_TYPES,
    STYLE_FAMILIES,
    BenchChart,
    Benchmark,
    BenchQuestion,
)
from flowpath.datasets.segmentation import GoldImage, load_gold

__all__ = ["QUESTION_TYPES", "STYLE_FAMILIES", "BenchChart", "BenchQuestion", "Benchmark",
           "GoldImage", "load_gold"]
