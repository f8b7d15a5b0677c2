"""Skip markers of the OCR engines (tesserocr + Debian's language data; rapidocr)."""

from __future__ import annotations

from importlib.util import find_spec

import pytest


def _tessdata() -> bool:
    from flowpath.transcribe.ocr.engines import find_tessdata

    return find_tessdata("eng") is not None


require_tesserocr = pytest.mark.skipif(
    find_spec("tesserocr") is None or not _tessdata(),
    reason="needs tesserocr (pip) and Debian tesseract-ocr-eng")
require_rapidocr = pytest.mark.skipif(
    find_spec("rapidocr") is None or find_spec("onnxruntime") is None,
    reason="needs rapidocr + onnxruntime (flowpath[ocr])")
