"""Hand-written charts drawn with PIL in a Debian handwriting font: a known graph, wobbly pen
strokes, node text in the font, so OCR engines can be compared on real rendered handwriting.

A stop-gap builder for the OCR engine tests and ``eval/bench_ocr_engines.py`` until the
generator's hand-drawn style family is the source of such charts.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from flowpath.geometry import Region
from flowpath.graph import Edge, FlowChart, Node

#: Debian handwriting fonts (package -> file)
FONTS = {
    "fonts-dkg-handwriting": "/usr/share/fonts/truetype/fifthhorseman/dkg.ttf",
    "fonts-humor-sans": "/usr/share/fonts/truetype/humor-sans/Humor-Sans.ttf",
    "fonts-breip": "/usr/share/fonts/truetype/breip/Breip.ttf",
    "fonts-femkeklaver": "/usr/share/fonts/truetype/femkeklaver/femkeklaver.ttf",
    "fonts-bwht": "/usr/share/fonts/opentype/bwht/BecauseWeLearn-Regular.otf",
}

WORDS = ("start", "end", "read", "input", "value", "check", "order", "send", "email", "to", "the",
         "customer", "is", "valid", "save", "record", "open", "file", "print", "report", "update",
         "stock", "count", "items", "ask", "user", "for", "name", "login", "error", "retry", "pay",
         "invoice", "ship", "parcel", "wait", "reply", "close", "ticket", "load", "data", "sort",
         "list", "add", "total", "found", "empty", "queue", "call", "manager", "approve", "request")


def available_fonts() -> dict[str, str]:
    """The handwriting fonts of `FONTS` installed here."""
    return {k: v for k, v in FONTS.items() if Path(v).is_file()}


def _wobbly(draw: ImageDraw.ImageDraw, a: tuple[float, float], b: tuple[float, float],
            rng: np.random.Generator, width: int) -> None:
    """A pen stroke from a to b that drifts a pixel or two sideways."""
    n = 8
    t = np.linspace(0, 1, n)
    pts = np.outer(1 - t, a) + np.outer(t, b)
    normal = np.array([a[1] - b[1], b[0] - a[0]], float)
    normal /= max(np.hypot(*normal), 1e-6)
    drift = np.cumsum(rng.normal(0, 0.6, n))
    drift -= np.linspace(drift[0], drift[-1], n)  # both ends stay put
    pts = pts + np.outer(drift, normal)
    draw.line([tuple(p) for p in pts], fill=(20, 20, 30), width=width, joint="curve")


def render_chart(font_path: str, seed: int, *, nodes: int = 4, size: int = 30
                 ) -> tuple[np.ndarray, dict[str, Region], FlowChart]:
    """A top-down chain of ``nodes`` boxes with 1-3 handwritten words each, joined by arrows.

    Returns:
        (RGB image, letter -> gold region, gold graph with the node texts and edges).
    """
    rng = np.random.default_rng(seed)
    font = ImageFont.truetype(font_path, size)
    texts = [" ".join(rng.choice(WORDS, size=int(rng.integers(1, 5)))) for _ in range(nodes)]
    # nodes of four words are written on two lines (multi-line nodes need line detection)
    drawn = [" ".join(t.split()[:2]) + "\n" + " ".join(t.split()[2:]) if t.count(" ") >= 3 else t
             for t in texts]
    draw0 = ImageDraw.Draw(Image.new("RGB", (8, 8)))
    boxes = [draw0.multiline_textbbox((0, 0), d, font=font, spacing=8) for d in drawn]
    widths = [b[2] for b in boxes]
    W = int(max(widths) + 160)
    box_h = int(size * 2.2) + max(b[3] for b in boxes) - size
    gap = int(size * 2.4)
    H = nodes * box_h + (nodes - 1) * gap + 60
    img = Image.new("RGB", (W, H), (250, 249, 244))
    draw = ImageDraw.Draw(img)
    regions: dict[str, Region] = {}
    gold = FlowChart("TD")
    pen = 3
    for i, (text, tw) in enumerate(zip(texts, widths, strict=True)):
        th = boxes[i][3]
        letter = chr(65 + i)
        x0, y0 = (W - tw) / 2 - 30, 30 + i * (box_h + gap)
        x1, y1 = x0 + tw + 60, y0 + box_h
        corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        for a, b in zip(corners, corners[1:] + corners[:1], strict=True):
            _wobbly(draw, a, b, rng, pen)
        draw.multiline_text((x0 + 30, y0 + (box_h - th) / 2), drawn[i], font=font, fill=(20, 20, 30), spacing=8)
        regions[letter] = Region((x0 - pen, y0 - pen, x1 + pen, y1 + pen))
        gold.add_node(Node(letter, text))
        if i:
            cx, top = W / 2, y0 - pen - 2
            _wobbly(draw, (cx, top - gap + 2 * pen + 4), (cx, top - 10), rng, pen)
            draw.polygon([(cx, top), (cx - 8, top - 16), (cx + 8, top - 16)], fill=(20, 20, 30))
            gold.add_edge(Edge(chr(64 + i), letter))
    return np.asarray(img), regions, gold
