"""Image IO at the edges: every input form becomes an RGB ``uint8`` array, or a clear error."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from flowpath.errors import ImageLoadError

#: Largest image accepted, in pixels (benchmark charts reach 1600 x 8052 = 12.9 Mpx; a chart
#: beyond ~64 Mpx is treated as a decompression bomb rather than a flowchart).
MAX_PIXELS = 64_000_000

ImageInput = str | os.PathLike | np.ndarray | Any  # Any: a PIL.Image.Image


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


def load_image(image: ImageInput, *, name: str | None = None) -> np.ndarray:
    """Load a path, PIL image or array as an RGB ``uint8`` array ``(H, W, 3)``.

    Raises:
        ImageLoadError: missing/unreadable/corrupt file, zero-size image, an image over
            `MAX_PIXELS`, or an array of the wrong shape or dtype. The message names the input.
    """
    from PIL import Image, UnidentifiedImageError

    label = name or (str(image) if isinstance(image, (str, os.PathLike)) else type(image).__name__)
    if isinstance(image, np.ndarray):
        arr = image
        if arr.ndim == 2:
            arr = np.stack([arr] * 3, axis=-1)
        if arr.ndim != 3 or arr.shape[2] not in (1, 3, 4):
            raise ImageLoadError(f"{label}: expected an (H, W, 3) RGB array, got shape {arr.shape}")
        if arr.shape[0] == 0 or arr.shape[1] == 0:
            raise ImageLoadError(f"{label}: image has zero size {arr.shape[:2]}")
        if arr.dtype != np.uint8:
            if np.issubdtype(arr.dtype, np.floating) and arr.size and float(np.nanmax(arr)) <= 1.0:
                arr = arr * 255.0
            arr = np.clip(np.nan_to_num(arr), 0, 255).astype(np.uint8)
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
        try:
            with Image.open(path) as im:
                _check_size(im.size, label)
                im.load()
                return np.asarray(_flatten_alpha(im))
        except ImageLoadError:
            raise
        except Image.DecompressionBombError as exc:
            raise ImageLoadError(f"{label}: image is too large (decompression bomb guard): {exc}") from None
        except UnidentifiedImageError:
            raise ImageLoadError(f"{label}: not an image file PIL can read") from None
        except (OSError, SyntaxError, ValueError) as exc:
            raise ImageLoadError(f"{label}: corrupt or truncated image ({exc})") from None

    if isinstance(image, Image.Image):
        _check_size(image.size, label)
        return np.asarray(_flatten_alpha(image))
    raise ImageLoadError(f"{label}: unsupported image input type {type(image).__name__}; "
                         "pass a path, a PIL image or a numpy array")


def _check_size(size: tuple[int, int], label: str) -> None:
    w, h = size
    if w <= 0 or h <= 0:
        raise ImageLoadError(f"{label}: image has zero size {w}x{h}")
    if w * h > MAX_PIXELS:
        raise ImageLoadError(f"{label}: image is {w}x{h} = {w * h / 1e6:.1f} Mpx, over the "
                             f"{MAX_PIXELS / 1e6:.0f} Mpx limit (decompression-bomb guard)")


def save_image(image: np.ndarray, path: str | os.PathLike) -> None:
    """Write an RGB array as PNG (or the format the suffix says), atomically."""
    from PIL import Image

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=path.suffix or ".png")
    os.close(fd)
    try:
        Image.fromarray(np.asarray(image, dtype=np.uint8)).save(tmp)
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
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
