"""Synthetic flowchart-like images drawn with OpenCV, with their gold node boxes.

Not a renderer: just enough structure (stroked/filled shapes holding text, arrows, edge labels)
for segmenter tests that must run without Chromium.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

STYLES = {
    "default": {"fill": (236, 236, 255), "stroke": (147, 112, 219), "text": (51, 51, 51)},
    "black_white": {"fill": (255, 255, 255), "stroke": (0, 0, 0), "text": (0, 0, 0)},
    "single_color": {"fill": (180, 220, 200), "stroke": (60, 110, 90), "text": (20, 20, 20)},
    "multi_color": {"fill": (44, 62, 80), "stroke": (20, 30, 40), "text": (255, 255, 255)},
}
SHAPES = ("rect", "diamond", "round", "parallelogram", "circle")


def draw_chart(style: str = "default", shapes=SHAPES, scale: float = 1.0, edge_label: bool = True,
               columns: int = 1, backdrop: tuple[int, int, int] | None = None
               ) -> tuple[np.ndarray, list[tuple[float, float, float, float]]]:
    """A top-down chain of nodes (one per shape) joined by arrows; returns (RGB image, gold boxes).

    ``shapes`` may also hold ``"double_circle"`` (not in the default chain): a Mermaid
    ``(((text)))`` node, a circle with a second outline 5 px (x scale) outside it, whose gold box
    is the outer circle. ``backdrop``: an RGB colour to put all nodes on a subgraph-like filled,
    stroked box."""
    import cv2

    st = STYLES[style]
    s = scale
    node_w, node_h, gap = int(220 * s), int(70 * s), int(70 * s)
    rows = (len(shapes) + columns - 1) // columns
    W = int(columns * (node_w + 120 * s) + 60 * s)
    H = int(rows * (node_h + gap) + 60 * s + 60 * s)
    img = np.full((H, W, 3), 255, np.uint8)
    if backdrop is not None:
        m = int(12 * s)
        cv2.rectangle(img, (m, m), (W - m, H - m), backdrop, -1)
        cv2.rectangle(img, (m, m), (W - m, H - m), (170, 170, 51), 1, cv2.LINE_AA)
    boxes = []
    thick = max(1, round(2 * s))
    for k, shape in enumerate(shapes):
        col, row = k % columns, k // columns
        x0 = int(40 * s + col * (node_w + 120 * s))
        y0 = int(30 * s + row * (node_h + gap))
        if shape == "diamond":
            h = int(node_h * 1.6)
            y0 -= (h - node_h) // 2 - 0
            cx, cy = x0 + node_w // 2, y0 + h // 2
            pts = np.array([[cx, y0], [x0 + node_w, cy], [cx, y0 + h], [x0, cy]], np.int32)
            box = (x0, y0, x0 + node_w, y0 + h)
        elif shape == "parallelogram":
            sk = int(25 * s)
            pts = np.array([[x0 + sk, y0], [x0 + node_w, y0], [x0 + node_w - sk, y0 + node_h], [x0, y0 + node_h]], np.int32)
            box = (x0, y0, x0 + node_w, y0 + node_h)
        elif shape in ("circle", "double_circle"):
            r = node_h // 2 + int(10 * s)
            cx, cy = x0 + node_w // 2, y0 + node_h // 2
            t = np.linspace(0, 2 * np.pi, 64, endpoint=False)
            pts = np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], 1).astype(np.int32)
            box = (cx - r, cy - r, cx + r, cy + r)
        elif shape == "round":
            r = node_h // 2
            t = np.linspace(-np.pi / 2, np.pi / 2, 16)
            right = np.stack([x0 + node_w - r + r * np.cos(t), y0 + r + r * np.sin(t)], 1)
            left = np.stack([x0 + r - r * np.cos(t), y0 + r - r * np.sin(t)], 1)
            pts = np.concatenate([right, left]).astype(np.int32)
            box = (x0, y0, x0 + node_w, y0 + node_h)
        else:
            pts = np.array([[x0, y0], [x0 + node_w, y0], [x0 + node_w, y0 + node_h], [x0, y0 + node_h]], np.int32)
            box = (x0, y0, x0 + node_w, y0 + node_h)
        if shape == "double_circle":
            # as Mermaid draws it: outer circle 5 px (x scale) outside the inner one, 1 px
            # strokes (x scale); sub-pixel centres and radii (shift=4: 1/16 px)
            q = 16
            c16 = (round(cx * q), round(cy * q))
            cv2.circle(img, c16, round(r * q), st["fill"], -1, cv2.LINE_AA, shift=4)
            for rad in (r, r - 5 * s):
                cv2.circle(img, c16, round(rad * q), st["stroke"], max(1, round(s)), cv2.LINE_AA, shift=4)
        else:
            cv2.fillPoly(img, [pts], st["fill"], lineType=cv2.LINE_AA)
            cv2.polylines(img, [pts], True, st["stroke"], thick, lineType=cv2.LINE_AA)
        bx0, by0, bx1, by1 = box
        fs = 0.6 * s
        (tw, th), _ = cv2.getTextSize(f"Step {k}", cv2.FONT_HERSHEY_SIMPLEX, fs, max(1, round(s)))
        cv2.putText(img, f"Step {k}", ((bx0 + bx1 - tw) // 2, (by0 + by1 + th) // 2), cv2.FONT_HERSHEY_SIMPLEX,
                    fs, st["text"], max(1, round(s)), cv2.LINE_AA)
        boxes.append(tuple(float(v) for v in box))
    for a, b in zip(boxes, boxes[1:], strict=False):
        p, q = (int((a[0] + a[2]) / 2), int(a[3])), (int((b[0] + b[2]) / 2), int(b[1]))
        cv2.arrowedLine(img, p, q, (40, 40, 40), max(1, round(s)), cv2.LINE_AA, tipLength=0.15)
    if edge_label and len(boxes) > 1:
        # a stroke-less label box sized to its text, sitting on the first edge
        a, b = boxes[0], boxes[1]
        cx, cy = int((a[0] + a[2]) / 2), int((a[3] + b[1]) / 2)
        (tw, th), base = cv2.getTextSize("Yes", cv2.FONT_HERSHEY_SIMPLEX, 0.6 * s, max(1, round(s)))
        cv2.rectangle(img, (cx - tw // 2 - 1, cy - th - 2), (cx + tw // 2 + 1, cy + base), (232, 232, 232), -1)
        cv2.putText(img, "Yes", (cx - tw // 2, cy), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * s, (51, 51, 51),
                    max(1, round(s)), cv2.LINE_AA)
    return img, boxes


def write_coco(root: Path, n: int = 3, styles=("default", "black_white")) -> Path:
    """A tiny COCO instances set of synthetic charts under ``root``; returns the json path."""
    from PIL import Image

    (root / "charts").mkdir(parents=True, exist_ok=True)
    images, anns = [], []
    for i in range(n):
        style = styles[i % len(styles)]
        img, boxes = draw_chart(style, shapes=SHAPES[: 3 + i % 3])
        name = f"charts/syn{i:03d}.png"
        Image.fromarray(img).save(root / name)
        images.append({"id": i + 1, "file_name": name, "width": img.shape[1], "height": img.shape[0],
                       "style_family": style})
        for b in boxes:
            x0, y0, x1, y1 = b
            anns.append({"id": len(anns) + 1, "image_id": i + 1, "category_id": 1, "iscrowd": 0,
                         "bbox": [x0, y0, x1 - x0, y1 - y0], "area": (x1 - x0) * (y1 - y0),
                         "segmentation": [[x0, y0, x1, y0, x1, y1, x0, y1]]})
    path = root / "coco.json"
    path.write_text(json.dumps({"images": images, "annotations": anns,
                                "categories": [{"id": 1, "name": "node"}]}))
    return path


def write_bench(root: Path, styles=tuple(STYLES)) -> Path:
    """A benchmark-layout folder of synthetic charts (one per style)."""
    from PIL import Image

    (root / "charts").mkdir(parents=True, exist_ok=True)
    for i, style in enumerate(styles):
        img, boxes = draw_chart(style)
        Image.fromarray(img).save(root / "charts" / f"syn{i:03d}.png")
        nodes = {chr(65 + k): {"bbox": list(b)} for k, b in enumerate(boxes)}
        (root / "charts" / f"syn{i:03d}.json").write_text(json.dumps(
            {"mermaid": "", "width": img.shape[1], "height": img.shape[0], "nodes": nodes,
             "style": {"family": style}}))
    return root
