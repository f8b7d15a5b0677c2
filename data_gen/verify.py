"""Region verification: each node's polygon (from SVG geometry) against a raster of that node's
own shape elements, drawn by cairosvg from the same SVG with everything else hidden.

Used by tests/gen/test_regions.py and eval/bench_gen.py (which prints the IoU figures).
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np
from lxml import etree


def node_shape_masks(svg: str, width: int, height: int, dom_ids: list[str],
                boxes: list[list[float]]) -> dict[str, tuple[np.ndarray, tuple[int, int]]]:
    """Rasterise every node group's own shapes (labels, edges, clusters hidden) in one cairosvg
    pass, node i filled with its own flat colour. Returns per node its mask inside a window
    around its region (the region's box grown by a quarter of its size + 6 px) and the offset."""
    import colorsys

    import cairosvg
    from PIL import Image

    # distinct hues: an anti-aliased edge pixel is a blend of its node's colour with white, so it
    # lies on the segment colour->white; coverage >= 0.5 along that segment counts as inside
    colours = [tuple(round(255 * v) for v in colorsys.hsv_to_rgb((i * 0.618034) % 1.0, 1.0, 0.8))
               for i in range(len(dom_ids))]
    root = etree.fromstring(svg.encode("utf-8"))
    targets = {root.xpath(f"//*[@id='{d}']")[0]: c for d, c in zip(dom_ids, colours, strict=True)}
    keep = {a for t in targets for a in t.iterancestors()} | set(targets)
    for el in root.iter():
        # a node's id is on a group of shapes (Mermaid, Graphviz) or on the shape itself
        # (flowchart.js): a childless target is painted like a shape inside a group
        if not isinstance(el.tag, str) or el is root or (el in keep and not (el in targets and not len(el))):
            continue
        owner = targets.get(el) or next((targets[a] for a in el.iterancestors() if a in targets), None)
        if owner is None:
            el.set("style", "display:none")
            continue
        is_label = el.tag.endswith("text") or el.xpath(".//*[local-name()='text']")
        if is_label or (el.tag.endswith("rect") and not el.get("width")):
            el.set("style", "display:none")
        else:
            el.set("style", "fill:rgb({},{},{});stroke:none;opacity:1;display:inline".format(*owner))
    root.set("preserveAspectRatio", "none")  # same exact (sx, sy) stretch as data_gen.raster
    png = cairosvg.svg2png(bytestring=etree.tostring(root), output_width=width, output_height=height,
                           background_color="white")
    arr = np.asarray(Image.open(io.BytesIO(png)).convert("RGB").resize((width, height))).astype(np.float64)
    white = np.array([255.0, 255.0, 255.0])
    out = {}
    for d, c, box in zip(dom_ids, colours, boxes, strict=True):
        x0, y0, x1, y1 = box
        gx, gy = (x1 - x0) / 4 + 6, (y1 - y0) / 4 + 6
        X0, Y0 = max(0, int(x0 - gx)), max(0, int(y0 - gy))
        X1, Y1 = min(width, int(x1 + gx) + 1), min(height, int(y1 + gy) + 1)
        q = white - arr[Y0:Y1, X0:X1].reshape(-1, 3)
        v = white - np.asarray(c, dtype=float)
        t = q @ v / (v @ v)
        resid = np.linalg.norm(q - t[:, None] * v[None], axis=1)
        out[d] = (((t >= 0.5) & (resid < 25)).reshape(Y1 - Y0, X1 - X0), (X0, Y0))
    return out


def polygon_mask(poly: list[list[float]], shape: tuple[int, int], offset: tuple[int, int],
                 supersample: int = 4) -> np.ndarray:
    """Pixels (in a window at ``offset``) at least half covered by the polygon. Drawn at
    ``supersample`` x and averaged: PIL fills every pixel its outline touches, which alone would
    grow small shapes by half a pixel all round."""
    from PIL import Image, ImageDraw

    k = supersample
    im = Image.new("L", (shape[1] * k, shape[0] * k), 0)
    # PIL puts integer coordinates at pixel centres; our polygons use pixel edges (0 = left edge)
    ImageDraw.Draw(im).polygon([((x - offset[0]) * k - 0.5, (y - offset[1]) * k - 0.5) for x, y in poly], fill=255)
    a = np.asarray(im, dtype=np.float32).reshape(shape[0], k, shape[1], k).mean(axis=(1, 3))
    return a >= 127.5


def region_ious(out: Any, width: int, height: int, scale: tuple[float, float]) -> tuple[dict[str, float], dict[str, Any]]:
    """Mask IoU per node id between its polygon and its rasterised shape; also the annotations."""
    from data_gen.raster import annotate

    ann = annotate({"view_box": out.view_box, "nodes": out.nodes, "edges": out.edges,
                    "clusters": out.clusters}, width, height, scale)
    masks = node_shape_masks(out.svg, width, height, [n["dom_id"] for n in out.nodes],
                        [ann["nodes"][n["id"]]["bbox"] for n in out.nodes])
    res = {}
    for n in out.nodes:
        a, off = masks[n["dom_id"]]
        b = polygon_mask(ann["nodes"][n["id"]]["polygon"], a.shape, off)
        res[n["id"]] = float((a & b).sum() / max(1, (a | b).sum()))
    return res, ann


def record_problems(record: dict[str, Any], tol: float = 3.0) -> list[str]:
    """What is wrong with one chart record's gold (benchmark layout, PNG pixels), any renderer:
    a node whose label box is not inside its region's box, or an edge whose start (end) lies
    more than ``tol`` px outside its source (target) region. Empty when the gold is sound.

    >>> record_problems({"nodes": {}, "edges": []})
    []
    """
    import cv2

    polys = {k: np.asarray(v["polygon"], dtype=np.float32).reshape(-1, 1, 2) for k, v in record["nodes"].items()}
    out = []
    for nid, n in record["nodes"].items():
        lb, (x0, y0, x1, y1) = n.get("label_box"), n["bbox"]
        if n.get("text") and (lb is None or lb[0] < x0 - tol or lb[1] < y0 - tol or lb[2] > x1 + tol
                              or lb[3] > y1 + tol):
            out.append(f"node {nid!r}: text {n.get('text')!r} at {lb} outside its region {n['bbox']}")
    for e in record["edges"]:
        for end, nid in (("start", e["source"]), ("end", e["target"])):
            if nid not in polys:
                out.append(f"edge {e['source']}->{e['target']}: no region for {nid!r}")
                continue
            # signed distance: positive inside the polygon, negative outside
            d = cv2.pointPolygonTest(polys[nid], (float(e[end][0]), float(e[end][1])), True)
            if d < -tol:
                out.append(f"edge {e['source']}->{e['target']}: {end} {e[end]} is {-d:.1f} px from {nid!r}")
    return out


def drawn_problem(chart: Any, render: Any) -> str:
    """What an engine left out of its drawing of ``chart`` ("" if nothing): the node ids of
    ``render.nodes`` against the chart's nodes, and its edges' (source, target) pairs, repeats
    counted, against the chart's edges."""
    drawn = {n["id"] for n in render.nodes}
    if drawn != set(chart.nodes):
        return f"nodes drawn {sorted(drawn)} != nodes {sorted(chart.nodes)}"
    want = sorted((e.source, e.target) for e in chart.edges)
    got = sorted((e["source"], e["target"]) for e in render.edges)
    if got != want:
        return f"edges drawn {got} != edges {want}"
    return ""
