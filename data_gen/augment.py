"""Photometric / scan-like augmentation that keeps the annotations exact.

Geometric steps (rescale, slight rotation) map every annotated point through the same affine
transform as the pixels; the others (blur, noise, JPEG, contrast) leave geometry alone.
"""

from __future__ import annotations

import io
import math
import random
from typing import Any

import numpy as np


def _affine_points(pts: list[list[float]], m: np.ndarray) -> list[list[float]]:
    a = np.asarray(pts, dtype=float).reshape(-1, 2)
    if m.shape == (3, 3):  # a homography (perspective): divide by w
        h = a @ m[:, :2].T + m[:, 2]
        b = h[:, :2] / h[:, 2:3]
    else:
        b = a @ m[:, :2].T + m[:, 2]
    return [[round(float(x), 2), round(float(y), 2)] for x, y in b]


def _affine_box(box: list[float] | None, m: np.ndarray) -> list[float] | None:
    if box is None:
        return None
    x0, y0, x1, y1 = box
    c = np.asarray(_affine_points([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], m))
    return [round(float(c[:, 0].min()), 2), round(float(c[:, 1].min()), 2),
            round(float(c[:, 0].max()), 2), round(float(c[:, 1].max()), 2)]


def transform_annotations(ann: dict[str, Any], m: np.ndarray, width: int, height: int) -> dict[str, Any]:
    """Apply the 2x3 affine or 3x3 projective ``m`` (pixel -> pixel) to node/edge/cluster
    annotations. Node outlines are polygons, and a projective map keeps straight lines straight,
    so mapping their vertices maps the regions exactly."""
    out = {"nodes": {}, "edges": [], "clusters": []}
    for nid, n in ann["nodes"].items():
        poly = _affine_points(n["polygon"], m)
        poly = [[min(max(x, 0.0), width), min(max(y, 0.0), height)] for x, y in poly]
        a = np.asarray(poly)
        out["nodes"][nid] = {**n, "polygon": poly,
                             "bbox": [float(a[:, 0].min()), float(a[:, 1].min()), float(a[:, 0].max()), float(a[:, 1].max())],
                             "label_box": _affine_box(n.get("label_box"), m)}
    for e in ann["edges"]:
        pts = _affine_points(e["points"], m)
        out["edges"].append({**e, "points": pts, "start": pts[0], "end": pts[-1],
                             "label_box": _affine_box(e.get("label_box"), m)})
    for c in ann.get("clusters", []):
        out["clusters"].append({**c, "bbox": _affine_box(c.get("bbox"), m)})
    return out


def augment(img: np.ndarray, ann: dict[str, Any], rng: random.Random, *, scale: tuple[float, float] = (0.6, 1.15),
            max_rotation: float = 1.5, p_jpeg: float = 0.5, quality: tuple[int, int] = (35, 90),
            fill: tuple[int, int, int] = (255, 255, 255),
            max_blur: float | None = None, p_blur: float = 0.4,
            blur: tuple[float, float] = (0.3, 1.1)) -> tuple[np.ndarray, dict[str, Any]]:
    """Randomly rescale, rotate slightly, blur, add noise, change contrast and JPEG-compress.

    Args:
        img: RGB uint8 ``(H, W, 3)``.
        ann: ``{"nodes", "edges", "clusters"}`` in pixels (see `data_gen.raster.annotate`).
        rng: seeded generator.
        scale, max_rotation: ranges of the geometric steps.
        p_jpeg, quality: chance of JPEG re-compression and its quality range.
        fill: colour of the canvas a rotation uncovers (the chart's paper).
        max_blur: cap on the blur's sigma (px); the draw is the same, so a seed gives the same
            image wherever the cap does not bind.
        p_blur, blur: chance of the Gaussian blur and its sigma range (px); the defaults keep
            every generated set's random stream.

    Returns:
        ``(image, annotations)`` with annotations in the new image's pixels.
    """
    from PIL import Image, ImageEnhance, ImageFilter

    im = Image.fromarray(img)
    m = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    if rng.random() < 0.7:
        s = rng.uniform(*scale)
        W, H = max(8, round(im.width * s)), max(8, round(im.height * s))
        sx, sy = W / im.width, H / im.height
        im = im.resize((W, H), Image.LANCZOS if s < 1 else Image.BICUBIC)
        m = np.array([[sx, 0, 0], [0, sy, 0]]) @ np.vstack([m, [0, 0, 1]])
    if rng.random() < 0.35 and max_rotation > 0:
        deg = rng.uniform(-max_rotation, max_rotation)
        w, h = im.size
        im = im.rotate(deg, resample=Image.BICUBIC, expand=True, fillcolor=fill)
        # PIL rotates counter-clockwise about the centre and then expands the canvas
        t = math.radians(deg)
        c, s_ = math.cos(t), math.sin(t)
        nw, nh = im.size
        rot = np.array([[c, s_, nw / 2 - c * w / 2 - s_ * h / 2], [-s_, c, nh / 2 + s_ * w / 2 - c * h / 2], [0, 0, 1]])
        m = (rot @ np.vstack([m, [0, 0, 1]]))[:2]
    if rng.random() < p_blur:
        sigma = rng.uniform(*blur)
        im = im.filter(ImageFilter.GaussianBlur(sigma if max_blur is None else min(sigma, max_blur)))
    if rng.random() < 0.4:
        im = ImageEnhance.Contrast(im).enhance(rng.uniform(0.75, 1.15))
    arr = np.asarray(im).astype(np.float32)
    if rng.random() < 0.4:
        arr = arr + np.random.default_rng(rng.randrange(2**31)).normal(0, rng.uniform(2, 8), arr.shape)
    arr = np.clip(arr, 0, 255).astype(np.uint8)
    if rng.random() < p_jpeg:
        buf = io.BytesIO()
        Image.fromarray(arr).save(buf, format="JPEG", quality=rng.randint(*quality))
        arr = np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGB"))
    m = np.asarray(m)[:2]
    return arr, transform_annotations(ann, m, arr.shape[1], arr.shape[0])
