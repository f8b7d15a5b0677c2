"""SVG -> PNG with cairosvg, and node/edge annotations in PNG pixels.

Runs in worker processes (no browser here), so rasterising chart *n* overlaps the browser
rendering chart *n+1*.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from data_gen.geometry import (
    bbox_of,
    box_to_pixels,
    node_outline,
    raster_size,
    sample_path,
    simplify,
    to_pixels,
)


def rasterize_svg(svg: str, width: int, height: int, background: str = "white") -> np.ndarray:
    """Rasterise a (style-baked) SVG to an RGB uint8 array of exactly ``(height, width, 3)``."""
    import cairosvg
    from PIL import Image

    # The annotations map viewBox units with (sx, sy) = (width / vb_w, height / vb_h); rounding
    # the size to whole pixels makes sx != sy, and the default "xMidYMid meet" would then scale
    # uniformly and centre, shifting everything by up to half the rounding slack (7 px seen on a
    # 1600 x 57 LR chart). Stretch exactly instead.
    svg = _stretch(svg)
    png = cairosvg.svg2png(bytestring=svg.encode("utf-8"), output_width=width, output_height=height,
                           background_color=background)
    im = Image.open(io.BytesIO(png)).convert("RGB")
    if im.size != (width, height):  # cairosvg rounds; keep the size the annotations assume
        im = im.resize((width, height), Image.BILINEAR)
    return np.asarray(im)


def _stretch(svg: str) -> str:
    head_end = svg.index(">", svg.index("<svg"))
    head = svg[:head_end]
    if "preserveAspectRatio" in head:
        import re

        head = re.sub(r'preserveAspectRatio="[^"]*"', 'preserveAspectRatio="none"', head)
    else:
        head += ' preserveAspectRatio="none"'
    return head + svg[head_end:]


def decode_png(png: bytes, width: int, height: int) -> np.ndarray:
    from PIL import Image

    im = Image.open(io.BytesIO(png)).convert("RGB")
    if im.size != (width, height):
        im = im.resize((width, height), Image.BILINEAR)
    return np.asarray(im)


def annotate(render: dict[str, Any], width: int, height: int, scale: tuple[float, float]) -> dict[str, Any]:
    """Node regions, edges and clusters of one render, in PNG pixels.

    Args:
        render: ``{"view_box", "nodes", "edges", "clusters"}`` as measured by ``page.js``.
        width, height, scale: the raster size and ``(sx, sy)`` from `raster_size`.

    Returns:
        ``{"nodes": {id: {"bbox", "polygon", "text", "label_box"}}, "edges": [...],
        "clusters": [...]}`` (node order = Mermaid's drawing order).
    """
    vb = render["view_box"]
    nodes: dict[str, Any] = {}
    for n in render["nodes"]:
        if not n["shapes"]:
            continue
        poly = to_pixels(node_outline(n["shapes"]), vb, scale)
        poly = [(min(max(x, 0.0), width), min(max(y, 0.0), height)) for x, y in poly]
        nodes[n["id"]] = {
            "bbox": [round(v, 2) for v in bbox_of(poly)],
            "polygon": [[round(x, 2), round(y, 2)] for x, y in poly],
            "text": n.get("text", ""),
            "label_box": box_to_pixels(n.get("label_box"), vb, scale),
        }
    edges = []
    for e in render["edges"]:
        raw = e["points"] or (sample_path(e["d"], e["m"], per_curve=6) if e.get("d") else [])
        if not raw:
            continue
        pts = to_pixels(raw, vb, scale)
        edges.append({
            "source": e["source"], "target": e["target"], "label": e.get("label"),
            "label_box": box_to_pixels(e.get("label_box"), vb, scale),
            "start": [round(pts[0][0], 2), round(pts[0][1], 2)],
            "end": [round(pts[-1][0], 2), round(pts[-1][1], 2)],
            "points": [[round(x, 1), round(y, 1)] for x, y in simplify(pts, 0.5)],
            "stroke": {"thick": "thick", "invisible": "invisible"}.get(e.get("thickness"), "normal")
            if e.get("pattern") != "dotted" else "dotted",
            "head": _marker(e.get("marker_end")), "tail": _marker(e.get("marker_start")),
        })
    clusters = [{"id": c["id"], "title": c.get("title", ""), "bbox": box_to_pixels(c.get("box"), vb, scale)}
                for c in render.get("clusters", [])]
    return {"nodes": nodes, "edges": edges, "clusters": clusters}


def _marker(ref: str | None) -> str:
    if not ref:
        return "none"
    for key, name in (("point", "arrow"), ("circle", "circle"), ("cross", "cross")):
        if key in ref:
            return name
    return "arrow"


def plan_raster(view_box: tuple[float, float, float, float], **kw: Any) -> tuple[int, int, tuple[float, float]]:
    """`raster_size` re-exported for callers that only import this module."""
    return raster_size(view_box, **kw)
