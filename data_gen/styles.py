"""The four style families (single colour, multi colour, default Mermaid, black and white),
applied by CSS injected into Mermaid's SVG, plus Mermaid themes, looks, curves and fonts.

Training and evaluation draw from *disjoint* palette sets (the paper rendered its training data
and its benchmark in different colour schemes): `palettes(family, split)`.

Colours are written as hex: cairosvg paints ``hsl()``/``var()`` black. (The renderer also bakes
computed ``rgb()`` values inline, so Mermaid's own hsl() theme colours survive too.)
"""

from __future__ import annotations

import colorsys
import random
from dataclasses import asdict, dataclass, field
from typing import Any

FAMILIES = ("single_color", "multi_color", "default", "black_white")
SPLITS = ("train", "eval")

#: Installed on Debian with fonts-dejavu-core + fonts-liberation (scripts/setup.sh). A font the
#: browser measures must be the one cairosvg draws, or text overflows its box.
FONTS = ("DejaVu Sans", "DejaVu Serif", "DejaVu Sans Mono", "Liberation Sans", "Liberation Serif",
         "Liberation Mono", "Liberation Sans Narrow")
EVAL_FONTS = ("DejaVu Sans", "Liberation Sans", "DejaVu Serif", "Liberation Serif")
CURVES = ("basis", "linear", "monotoneY", "stepBefore", "cardinal", "bumpY")


def _hex(h: float, s: float, lum: float) -> str:
    r, g, b = colorsys.hls_to_rgb(h % 1.0, min(max(lum, 0), 1), min(max(s, 0), 1))
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def _shade(hex_colour: str, factor: float) -> str:
    """Darken (factor < 1) a colour in HLS lightness, keeping its hue."""
    r, g, b = (int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    h, lum, s = colorsys.rgb_to_hls(r, g, b)
    return _hex(h, min(1.0, s * 1.1 + 0.1), lum * factor)


def _single_colours() -> list[str]:
    # 64 fills: 16 hues x 4 (lightness, saturation) variants, from pale pastel to strong.
    out = []
    for i in range(16):
        h = i / 16
        for lum, s in ((0.9, 0.6), (0.8, 0.55), (0.7, 0.5), (0.6, 0.45)):
            out.append(_hex(h + 0.013 * (lum * 10 % 3), s, lum))
    return out


def _multi_palettes() -> list[list[str]]:
    # 56 palettes of 4-5 fills from colour-harmony schemes, on a fixed golden-angle hue walk.
    schemes = {
        "analogous": (0.0, 0.07, 0.14, 0.21, 0.28),
        "triadic": (0.0, 0.333, 0.667, 0.167),
        "complementary": (0.0, 0.5, 0.04, 0.54, 0.25),
        "split": (0.0, 0.417, 0.583, 0.2),
        "tetradic": (0.0, 0.25, 0.5, 0.75, 0.125),
        "pastel": (0.0, 0.19, 0.38, 0.57, 0.76),
        "earth": (0.0, 0.03, 0.08, 0.12),
    }
    rng = random.Random(20240601)
    out = []
    names = list(schemes)
    for i in range(56):
        name = names[i % len(names)]
        h0 = (i * 0.618034) % 1.0
        sat = {"pastel": 0.55, "earth": 0.35}.get(name, rng.uniform(0.45, 0.75))
        out.append([_hex(h0 + dh, sat, rng.uniform(0.68, 0.88)) for dh in schemes[name]])
    return out


SINGLE_COLOURS = _single_colours()
MULTI_PALETTES = _multi_palettes()


def palettes(family: str, split: str) -> list[Any]:
    """The colours (single_color) or palettes (multi_color) of one split; train and eval are
    disjoint: every fourth entry is held out for evaluation."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; expected one of {SPLITS}")
    pool: list[Any]
    if family == "single_color":
        pool = SINGLE_COLOURS
    elif family == "multi_color":
        pool = MULTI_PALETTES
    else:
        return []
    return [p for i, p in enumerate(pool) if (i % 4 == 3) == (split == "eval")]


@dataclass
class StyleSpec:
    """One concrete look for one chart.

    Attributes:
        family: one of `FAMILIES`.
        split: ``train`` or ``eval`` (which palette pool it came from).
        theme, look, curve: Mermaid ``theme``, ``look`` and ``flowchart.curve``.
        font, font_size: the label font (must be installed, see `FONTS`).
        fills: node fill colours (one for single colour, 4-5 for multi colour).
        stroke, text, edge: node stroke, label and edge colours (None: the theme's own).
        stroke_width, edge_width: in SVG px.
        node_colours: node id -> fill, filled in per chart for multi colour.
    """

    family: str
    split: str = "train"
    theme: str = "default"
    look: str = "classic"
    curve: str = "basis"
    font: str = "DejaVu Sans"
    font_size: int = 16
    fills: list[str] = field(default_factory=list)
    stroke: str | None = None
    text: str | None = None
    edge: str | None = None
    stroke_width: float = 1.0
    edge_width: float = 2.0
    node_colours: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(f"unknown style family {self.family!r}; expected one of {FAMILIES}")

    def mermaid_config(self) -> dict[str, Any]:
        return {"theme": self.theme, "look": self.look, "fontFamily": self.font,
                "themeVariables": {"fontFamily": self.font, "fontSize": f"{self.font_size}px"},
                "flowchart": {"curve": self.curve}}

    def css(self) -> str:
        """CSS for the SVG; ``#{id}`` is the SVG id placeholder (id prefix + !important so the
        rules beat Mermaid's own ``#id .node rect`` rules)."""
        p = "#{id}"
        shapes = ", ".join(f"{p} .node {t}" for t in ("rect", "circle", "ellipse", "polygon", "path"))
        rules = [f"{p} text, {p} tspan {{ font-family: '{self.font}' !important; }}"]
        if self.family == "default":
            return "\n".join(rules)
        text = self.text or "#222222"
        edge = self.edge or "#333333"
        if self.fills:
            rules.append(f"{shapes} {{ fill: {self.fills[0]} !important; }}")
        if self.stroke:
            rules.append(f"{shapes} {{ stroke: {self.stroke} !important; stroke-width: {self.stroke_width}px !important; }}")
        for nid, colour in self.node_colours.items():
            sel = ", ".join(f'{p} g.node[id^="flowchart-{nid}-"] {t}' for t in ("rect", "circle", "ellipse", "polygon", "path"))
            rules.append(f"{sel} {{ fill: {colour} !important; stroke: {_shade(colour, 0.55)} !important; }}")
        rules += [
            f"{p} .node text, {p} .node tspan, {p} .cluster text, {p} .cluster tspan {{ fill: {text} !important; }}",
            f"{p} .flowchart-link {{ stroke: {edge} !important; stroke-width: {self.edge_width}px !important; }}",
            f"{p} marker path, {p} .marker {{ fill: {edge} !important; stroke: {edge} !important; }}",
            f"{p} .edgeLabel text, {p} .edgeLabel tspan {{ fill: {text} !important; }}",
        ]
        if self.family == "black_white":
            rules += [f"{p} .edgeLabel rect {{ fill: #ffffff !important; opacity: 1 !important; }}",
                      f"{p} .cluster rect {{ fill: #ffffff !important; stroke: #000000 !important; }}"]
        else:
            rules.append(f"{p} .cluster rect {{ fill: {_tint(self.fills[0] if self.fills else '#f4f4f4')} !important; "
                         f"stroke: {self.stroke or '#888888'} !important; }}")
        return "\n".join(rules)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("node_colours")
        return d


def _tint(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#{:02x}{:02x}{:02x}".format(*(round(v + (255 - v) * 0.7) for v in (r, g, b)))


def sample_style(family: str, split: str, rng: random.Random, node_ids: list[str] | None = None,
                 node_kinds: dict[str, str] | None = None) -> StyleSpec:
    """Draw a random `StyleSpec` of ``family`` from the ``split`` pools.

    Args:
        family: one of `FAMILIES`.
        split: ``train`` (all themes/looks/fonts) or ``eval`` (held-out palettes, classic look).
        rng: the chart's random generator (seeded: reproducible).
        node_ids, node_kinds: for multi colour, colours follow node kind (as people colour
            decisions/terminals) with some random per-node mixing.
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown style family {family!r}; expected one of {FAMILIES}")
    train = split == "train"
    font = rng.choice(FONTS if train else EVAL_FONTS)
    spec = StyleSpec(family=family, split=split, font=font,
                     font_size=rng.choice((14, 15, 16, 16, 16, 17, 18)) if train else 16,
                     curve=rng.choice(CURVES) if train else rng.choice(("basis", "basis", "linear")))
    if family == "default":
        spec.theme = rng.choice(("default", "default", "neutral", "forest", "base")) if train else "default"
        spec.look = "handDrawn" if train and rng.random() < 0.1 else "classic"
        return spec
    if family == "black_white":
        spec.theme = "base" if rng.random() < 0.5 else "neutral"
        spec.fills = ["#ffffff"]
        spec.stroke, spec.text, spec.edge = "#000000", "#000000", "#000000"
        spec.stroke_width = rng.choice((1.0, 1.5, 2.0)) if train else 1.5
        spec.edge_width = rng.choice((1.0, 1.5, 2.0))
        return spec
    pool = palettes(family, split)
    if family == "single_color":
        fill = rng.choice(pool)
        spec.fills = [fill]
        spec.stroke = _shade(fill, rng.uniform(0.35, 0.6))
        spec.edge = rng.choice(("#333333", "#222222", _shade(fill, 0.4)))
    else:
        pal = list(rng.choice(pool))
        spec.fills = pal
        spec.stroke = "#333333" if rng.random() < 0.5 else None
        spec.edge = rng.choice(("#333333", "#444444", "#222222"))
        ids = node_ids or []
        kinds = node_kinds or {}
        kind_colour: dict[str, str] = {}
        for nid in ids:
            k = kinds.get(nid, "process")
            if rng.random() < 0.25:
                colour = rng.choice(pal)
            else:
                colour = kind_colour.setdefault(k, pal[len(kind_colour) % len(pal)])
            spec.node_colours[nid] = colour
    spec.text = "#1a1a1a" if rng.random() < 0.8 else "#000000"
    spec.stroke_width = rng.choice((1.0, 1.5, 2.0)) if train else 1.5
    spec.theme = "base" if rng.random() < 0.5 else "default"
    return spec
