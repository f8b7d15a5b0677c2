"""Where tesseract's language data lives.

Its own module because both the engine (`flowpath.transcribe.ocr.engines`) and the text cleanup
(`flowpath.transcribe.ocr.text`, which reads tesseract's word list) need it, and the engine also
uses the text cleanup: keeping the lookup here keeps those two free of an import cycle.
"""

from __future__ import annotations

import os
from pathlib import Path

#: where Debian (and the tesseract defaults of other distributions) keep the language data
TESSDATA_DIRS = ("/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata",
                 "/usr/share/tessdata", "/usr/local/share/tessdata")


def find_tessdata(lang: str = "eng") -> Path | None:
    """The tessdata directory holding ``{lang}.traineddata``: ``$TESSDATA_PREFIX`` first, then
    the Debian/distribution locations; None when there is none.

    The tesserocr wheel bundles libtesseract but no language data, and looks in ``./`` unless
    told otherwise, so the path is always passed explicitly.
    """
    for base in (os.environ.get("TESSDATA_PREFIX"), *TESSDATA_DIRS):
        if base and (Path(base) / f"{lang.split('+')[0]}.traineddata").is_file():
            return Path(base)
    return None
