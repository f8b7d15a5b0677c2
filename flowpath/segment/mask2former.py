"""Mask2Former node segmenter (transformers ``Mask2FormerForUniversalSegmentation``).

Resize / tiling policy (shared with ``training/train_segmenter.py`` through `plan_tiles`, so the
model sees charts at the scale it was trained at):

* the image is scaled so its *shorter* side is ``short_side`` px (never upscaled): a 1600 x 8052
  top-down chart at ``short_side=384`` becomes 384 x 1932;
* the long side is cut into windows of ``2 * short_side`` px overlapping by ``short_side / 2``;
  each window is padded with white to a multiple of 32 and segmented on its own;
* a detection touching a window cut (not the image border) is dropped, since the overlap holds
  the whole node in the neighbouring window; the rest are mapped back to original pixels and
  de-duplicated (`flowpath.segment.postprocess.resolve_overlaps`).

torch and transformers are imported when a segmenter is built, never at module import.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from flowpath.errors import require
from flowpath.geometry import Region
from flowpath.models.base import Segmenter
from flowpath.models.hf import quiet_from_pretrained
from flowpath.segment.postprocess import polygon_of_contour, region_from_polygon, resolve_overlaps

logger = logging.getLogger(__name__)

#: inference settings saved next to a checkpoint by the training script
INFERENCE_FILE = "flowpath_segmenter.json"
#: where a shipped checkpoint lives inside the package
SHIPPED_DIR = Path(__file__).resolve().parents[1] / "resources" / "segmenter"


@dataclass(frozen=True)
class Tile:
    """A window of the scaled image: ``[y0:y1, x0:x1]`` in scaled pixels."""

    x0: int
    y0: int
    x1: int
    y1: int


def plan_tiles(height: int, width: int, short_side: int) -> tuple[float, int, int, list[Tile]]:
    """Scale and windows for an ``height x width`` image (see the module docstring).

    Returns:
        ``(scale, scaled_height, scaled_width, tiles)``.
    """
    if height <= 0 or width <= 0:
        raise ValueError(f"image has zero size {height}x{width}")
    if short_side < 32:
        raise ValueError(f"short_side must be >= 32, got {short_side}")
    scale = min(1.0, short_side / min(height, width))
    sh, sw = max(1, round(height * scale)), max(1, round(width * scale))
    window, step = 2 * short_side, 2 * short_side - short_side // 2
    tiles: list[Tile] = []
    if sh >= sw:
        y = 0
        while True:
            y1 = min(y + window, sh)
            tiles.append(Tile(0, max(0, y1 - window), sw, y1))
            if y1 >= sh:
                break
            y += step
    else:
        x = 0
        while True:
            x1 = min(x + window, sw)
            tiles.append(Tile(max(0, x1 - window), 0, x1, sh))
            if x1 >= sw:
                break
            x += step
    return scale, sh, sw, tiles


def pad_to_multiple(image: np.ndarray, multiple: int = 32, value: int = 255) -> np.ndarray:
    """Pad an ``(H, W, C)`` / ``(H, W)`` array at the bottom/right to multiples of ``multiple``."""
    h, w = image.shape[:2]
    ph, pw = (-h) % multiple, (-w) % multiple
    if not ph and not pw:
        return image
    pad = ((0, ph), (0, pw)) + ((0, 0),) * (image.ndim - 2)
    return np.pad(image, pad, constant_values=value)


class Mask2FormerSegmenter(Segmenter):
    """Segments nodes with a Mask2Former checkpoint saved by ``training/train_segmenter.py``.

    Args:
        model_dir: a ``save_pretrained`` directory (safetensors weights, ``config.json``,
            ``preprocessor_config.json``); default: the checkpoint shipped in
            ``flowpath/resources/segmenter`` when there is one.
        device: torch device (``cpu``, ``cuda``, ``auto``).
        score_threshold: minimum query score of a kept instance; default from the
            checkpoint's ``flowpath_segmenter.json``, else 0.5.
        mask_threshold: mask probability threshold.
        short_side: working scale (see module docstring); default from the checkpoint's
            ``flowpath_segmenter.json``, else 384.

    >>> seg = Mask2FormerSegmenter("runs/seg/final", device="cpu")  # doctest: +SKIP
    >>> regions = seg([image])[0]  # doctest: +SKIP
    """

    name = "mask2former"

    def __init__(self, model_dir: str | Path | None = None, *, device: str = "cpu",
                 score_threshold: float | None = None, mask_threshold: float = 0.5,
                 short_side: int | None = None, model: Any = None, processor: Any = None) -> None:
        require("torch", "models", "the Mask2Former segmenter")
        require("transformers", "models", "the Mask2Former segmenter")
        import torch
        from transformers import Mask2FormerForUniversalSegmentation
        from transformers.models.mask2former.image_processing_pil_mask2former import (
            Mask2FormerImageProcessorPil,
        )

        settings: dict[str, Any] = {}
        if model is None:
            path = Path(model_dir) if model_dir is not None else SHIPPED_DIR
            if not (path / "config.json").is_file():
                raise ValueError(f"{path}: not a Mask2Former checkpoint directory (no config.json)"
                                 + ("; no segmenter model is shipped, train one with "
                                    "training/train_segmenter.py" if model_dir is None else ""))
            if not any(path.glob("*.safetensors")):
                raise ValueError(f"{path}: no .safetensors weights (pickle checkpoints are not loaded)")
            model = quiet_from_pretrained(Mask2FormerForUniversalSegmentation, path)
            processor = Mask2FormerImageProcessorPil.from_pretrained(str(path), local_files_only=True)
            if (path / INFERENCE_FILE).is_file():
                settings = json.loads((path / INFERENCE_FILE).read_text(encoding="utf-8"))
        elif processor is None:
            raise ValueError("Mask2FormerSegmenter(model=...) needs processor= too")
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = torch.device(device)
        self.model = model.to(self.device).eval()
        self.processor = processor
        if score_threshold is None:
            score_threshold = settings.get("score_threshold", 0.5)
        self.score_threshold = float(score_threshold)
        self.mask_threshold = float(mask_threshold)
        self.short_side = int(short_side or settings.get("short_side", 384))
        self.last_reasons: list[str] = []

    def __call__(self, images: list[np.ndarray]) -> list[list[Region]]:
        from flowpath.io import load_image

        out = []
        self.last_reasons = []
        for k, image in enumerate(images):
            arr = load_image(image, name=f"image {k}")
            regions = self.segment(arr)
            self.last_reasons.append("" if regions else "the model found no node above the score threshold")
            out.append(regions)
        return out

    def segment(self, image: np.ndarray) -> list[Region]:
        """Regions of one RGB image, in original pixels."""
        import cv2
        import torch

        H, W = image.shape[:2]
        scale, sh, sw, tiles = plan_tiles(H, W, self.short_side)
        work = image if scale >= 1.0 else cv2.resize(image, (sw, sh), interpolation=cv2.INTER_AREA)
        regions: list[Region] = []
        for t in tiles:
            crop = pad_to_multiple(np.ascontiguousarray(work[t.y0:t.y1, t.x0:t.x1]))
            th, tw = t.y1 - t.y0, t.x1 - t.x0
            # do_resize=False: the tiling above already fixed the scale the model sees
            inputs = self.processor(images=[crop], do_resize=False, return_tensors="pt")
            with torch.inference_mode():
                outputs = self.model(pixel_values=inputs["pixel_values"].to(self.device),
                                     pixel_mask=inputs["pixel_mask"].to(self.device))
            result = self.processor.post_process_instance_segmentation(
                outputs, threshold=self.score_threshold, mask_threshold=self.mask_threshold,
                target_sizes=[crop.shape[:2]], return_binary_maps=True)[0]
            maps = result["segmentation"]
            if maps is None or not result["segments_info"]:
                continue
            maps = maps.cpu().numpy().astype(bool)
            if maps.ndim == 2:
                maps = maps[None]
            for info, mask in zip(result["segments_info"], maps, strict=False):
                mask = mask[:th, :tw]
                r = self._region(mask, t, sh, sw, scale, float(info["score"]), (H, W))
                if r is not None:
                    regions.append(r)
        return resolve_overlaps(regions, iou_threshold=0.5, containment=0.85)

    @staticmethod
    def _region(mask: np.ndarray, t: Tile, sh: int, sw: int, scale: float, score: float,
                out_size: tuple[int, int]) -> Region | None:
        import cv2

        if mask.sum() < 4:
            return None
        ys, xs = np.nonzero(mask)
        # touching a window cut that is not the image border: the neighbour window has it whole
        cut = 1
        if (ys.min() <= cut and t.y0 > 0) or (ys.max() >= mask.shape[0] - 1 - cut and t.y1 < sh) or \
           (xs.min() <= cut and t.x0 > 0) or (xs.max() >= mask.shape[1] - 1 - cut and t.x1 < sw):
            return None
        contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        c = max(contours, key=cv2.contourArea)
        if cv2.contourArea(c) < 4:
            return None
        poly = [((x + 0.5 + t.x0) / scale, (y + 0.5 + t.y0) / scale) for x, y in polygon_of_contour(c)]
        return region_from_polygon(poly, out_size[0], out_size[1], score)
