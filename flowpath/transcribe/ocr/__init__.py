"""The ``ocr`` transcriber: `OCRTranscriber` and its parts.

* `transcriber`: `OCRTranscriber`, the five steps from image to graph.
* `crops`: node interiors and edge-label boxes cleaned to dark text on white, rescaled.
* `engines`: the OCR engines behind one interface (`TesseractEngine`, `RapidOCREngine`).
* `text`: cleanup of what an engine read (lines, cut-off words, branch words).
* `connectors`: classical recovery of connectors, arrowheads, label boxes.
"""

from flowpath.transcribe.ocr.transcriber import OCRTranscriber

__all__ = ["OCRTranscriber"]
