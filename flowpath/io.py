"""Image IO at the edges: every input form becomes an RGB ``uint8`` array, or a clear error."""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from flowpath.errors import ImageLoadError

#: Default cap on an accepted image, in pixels. Benchmark charts reach 1600 x 8052 = 12.9 Mpx;
#: a 64 Mpx image took 2.2 GB and 32 s through the pipeline, so the default stops at about twice
#: the largest real chart. Raise it per call (``max_pixels=``), per pipeline
#: (``FlowPath(max_pixels=...)``) or on the command line (``--max-pixels``).
MAX_PIXELS = 25_000_000

# The process umask, read once at import (os.umask can only be read by setting it, which is not
# thread-safe later): files we write through mkstemp (mode 0600) get the mode open() would give.
_UMASK = os.umask(0o022)
os.umask(_UMASK)

ImageInput = str | os.PathLike | bytes | np.ndarray | Any  # Any: a PIL.Image.Image


def _flatten_alpha(img: Any) -> Any:
    """Composite RGBA/LA/P-with-transparency onto white: flowcharts are drawn on white, and a
    transparent background must not turn black."""
    from PIL import Image

    if img.mode == "P":
        img = img.convert("RGBA")
    if img.mode in ("RGBA", "LA", "PA"):
        bg = Image.new("RGBA", img.size, (255, 255, 255, 255))
        bg.alpha_composite(img.convert("RGBA"))
        return bg.convert("RGB")
    return img.convert("RGB")


def _to_uint8(arr: np.ndarray, label: str, *, sixteen_bit: bool = False) -> np.ndarray:
    """Bring an array of any numeric dtype to ``uint8`` by its value range, or refuse it.

    ``uint16`` (and ``sixteen_bit=True``, PIL's 16-bit modes) scale 0..65535 to 0..255; floats
    in 0..1 scale to 0..255, other floats clip; other integers keep 0..255 as is and scale
    0..65535 like 16 bit. Object, complex and out-of-range inputs raise `ImageLoadError`.
    """
    if arr.dtype == np.uint8:
        return arr
    if arr.dtype == np.bool_:
        return arr.astype(np.uint8) * 255
    if np.issubdtype(arr.dtype, np.floating):
        if arr.size and float(np.nanmax(arr)) <= 1.0:
            arr = arr * 255.0
        return np.clip(np.nan_to_num(arr), 0, 255).astype(np.uint8)
    if not np.issubdtype(arr.dtype, np.integer):
        raise ImageLoadError(f"{label}: unsupported pixel type {arr.dtype}; pass uint8, "
                             "uint16, bool or float pixels")
    lo, hi = (int(arr.min()), int(arr.max())) if arr.size else (0, 0)
    if lo < 0 or hi > 65535:
        raise ImageLoadError(f"{label}: {arr.dtype} pixel values {lo}..{hi} are outside 0..65535")
    if sixteen_bit or arr.dtype == np.uint16 or hi > 255:
        return ((arr.astype(np.uint32) * 255 + 32767) // 65535).astype(np.uint8)
    return arr.astype(np.uint8)


def _pil_to_rgb(img: Any, label: str) -> np.ndarray:
    """A decoded PIL image as RGB ``uint8``; 16-bit and float modes go through `_to_uint8`
    (PIL's own ``convert("RGB")`` clips 16-bit grey to white)."""
    if img.mode in ("I", "F") or img.mode.startswith("I;16"):
        grey = _to_uint8(np.asarray(img), label, sixteen_bit=img.mode.startswith("I;16"))
        return np.repeat(grey[:, :, None], 3, axis=2)
    return np.asarray(_flatten_alpha(img))


def load_image(image: ImageInput, *, name: str | None = None,
               max_pixels: int | None = None) -> np.ndarray:
    """Load a path, image file bytes, PIL image or array as an RGB ``uint8`` array ``(H, W, 3)``.

    Args:
        image: a path, the bytes of an image file (e.g. read from object storage), a PIL image
            or a numpy array (grey, RGB or RGBA; uint8, uint16, bool or float pixels).
        name: how to call the input in messages (default: its path or type).
        max_pixels: refuse larger images (default `MAX_PIXELS`).

    Raises:
        ImageLoadError: missing/unreadable/corrupt file, zero-size image, an image over
            ``max_pixels``, or an array of the wrong shape or dtype. The message names the input.
    """
    from PIL import Image

    limit = MAX_PIXELS if max_pixels is None else int(max_pixels)
    label = name or (str(image) if isinstance(image, (str, os.PathLike)) else type(image).__name__)
    if isinstance(image, np.ndarray):
        arr = image
        if arr.ndim == 2:
            arr = arr[:, :, None]
        if arr.ndim != 3 or arr.shape[2] not in (1, 3, 4):
            raise ImageLoadError(f"{label}: expected an (H, W, 3) RGB array, got shape {arr.shape}")
        if arr.shape[0] == 0 or arr.shape[1] == 0:
            raise ImageLoadError(f"{label}: image has zero size {arr.shape[:2]}")
        _check_size((arr.shape[1], arr.shape[0]), label, limit)
        arr = _to_uint8(arr, label)
        if arr.shape[2] == 1:
            arr = np.repeat(arr, 3, axis=2)
        elif arr.shape[2] == 4:
            return np.asarray(_flatten_alpha(Image.fromarray(arr, "RGBA")))
        return np.ascontiguousarray(arr)

    if isinstance(image, (str, os.PathLike)):
        path = Path(image)
        if not path.exists():
            raise ImageLoadError(f"{label}: no such file")
        if path.is_dir():
            raise ImageLoadError(f"{label}: is a directory, not an image")
        if path.stat().st_size == 0:
            raise ImageLoadError(f"{label}: file is empty")
        return _decode(path, label, limit)

    if isinstance(image, (bytes, bytearray, memoryview)):
        if not len(image):
            raise ImageLoadError(f"{label}: file is empty")
        return _decode(io.BytesIO(image), label, limit)

    if isinstance(image, Image.Image):
        _check_size(image.size, label, limit)
        return _pil_to_rgb(image, label)
    raise ImageLoadError(f"{label}: unsupported image input type {type(image).__name__}; "
                         "pass a path, image file bytes, a PIL image or a numpy array")


def _decode(file: Path | io.BytesIO, label: str, limit: int) -> np.ndarray:
    """Decode an image file (a path or its bytes) with PIL; every failure names ``label``."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(file) as im:
            _check_size(im.size, label, limit)
            im.load()
            return _pil_to_rgb(im, label)
    except ImageLoadError:
        raise
    except Image.DecompressionBombError as exc:
        raise ImageLoadError(f"{label}: image is too large (decompression bomb guard): {exc}") from None
    except UnidentifiedImageError:
        raise ImageLoadError(f"{label}: not an image file PIL can read") from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise ImageLoadError(f"{label}: corrupt or truncated image ({exc})") from None


def _check_size(size: tuple[int, int], label: str, limit: int) -> None:
    w, h = size
    if w <= 0 or h <= 0:
        raise ImageLoadError(f"{label}: image has zero size {w}x{h}")
    if w * h > limit:
        raise ImageLoadError(f"{label}: image is {w}x{h} = {w * h / 1e6:.1f} Mpx, over the "
                             f"{limit / 1e6:g} Mpx limit; raise it with --max-pixels "
                             "(FlowPath(max_pixels=...)) if this really is one chart")


def save_image(image: np.ndarray, path: str | os.PathLike) -> None:
    """Write an RGB array as PNG (or the format the suffix says), atomically."""
    from PIL import Image

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=path.suffix or ".png")
    os.close(fd)
    try:
        Image.fromarray(np.asarray(image, dtype=np.uint8)).save(tmp)
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write text to ``path`` through a temp file + rename, so a crash never leaves half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
