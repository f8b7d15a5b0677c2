"""The ``evaluate_*`` runners: run a stage over a benchmark-layout folder and score it with
`flowpath.metrics` (no torch at import time; each runner imports its stage lazily).

* `flowpath.evaluation.segmentation.evaluate_segmenter` (``flowpath eval segment``)
* `flowpath.evaluation.transcription.evaluate_transcription` (``flowpath eval transcribe``)
* `flowpath.evaluation.attribution.evaluate_attribution` (``flowpath eval attribution``)

Submodules are imported by name so that importing one runner does not load the others' stages.
"""
