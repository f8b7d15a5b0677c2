"""The style families, applied by CSS injected into Mermaid's SVG, plus Mermaid themes, looks,
curves and fonts: the paper's four (single colour, multi colour, default Mermaid, black and
white), ``wild`` (web/Office look: saturated fills, same-hue darker thick borders, gradients,
drop shadows, Office-metric fonts, off-white or grey paper, small JPEG rasters) and
``handdrawn`` (Mermaid's rough.js ``handDrawn`` look, handwriting fonts, pen colours, gaps at
corners, open/missing/circled/dot arrowheads, arrows stopping short, wobbly baselines).

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

#: The paper's four families: the default of every run.
PAPER_FAMILIES = ("single_color", "multi_color", "default", "black_white")
FAMILIES = (*PAPER_FAMILIES, "wild", "handdrawn")
SPLITS = ("train", "eval")

#: Installed on Debian with fonts-dejavu-core + fonts-liberation (scripts/setup.sh). A font the
#: browser measures must be the one cairosvg draws, or text overflows its box.
FONTS = ("DejaVu Sans", "DejaVu Serif", "DejaVu Sans Mono", "Liberation Sans", "Liberation Serif",
         "Liberation Mono", "Liberation Sans Narrow")
EVAL_FONTS = ("DejaVu Sans", "Liberation Sans", "DejaVu Serif", "Liberation Serif")
#: Office-like faces (Debian fonts-crosextra-carlito/-caladea: Calibri/Cambria metrics;
#: Liberation: Arial/Times/Courier metrics). Eval holds out Caladea and DejaVu Sans.
WILD_FONTS = ("Carlito", "Liberation Sans", "Liberation Serif", "Liberation Sans Narrow")
WILD_EVAL_FONTS = ("Caladea", "DejaVu Sans")
#: Smallest font size, in image pixels, of a wild (web) chart's node text. Web charts are made
#: to be read at 1x: below ~10 px (x-height under ~4.7 px in Caladea) even undegraded text is
#: read by tesseract at 0.65-0.88 word recall and the blurred JPEG copies not by a person either
#: (audit: `eval/wild_text_audit.py`, docs/transcription.md).
WILD_MIN_TEXT_PX = 10.0
#: Strongest Gaussian blur (sigma, px) of the wild web-image pass per px of font size: a blur
#: of a fifth of the x-height still leaves strokes apart; more than that a publisher would see.
WILD_MAX_BLUR_PER_TEXT_PX = 0.1
#: Handwriting faces from Debian packages (scripts/setup.sh): fonts-humor-sans, fonts-comic-neue,
#: fonts-bwht, fonts-klee (train); fonts-dkg-handwriting, fonts-breip, fonts-femkeklaver are
#: held out for evaluation (never used by a train split).
HAND_FONTS = ("Humor Sans", "Comic Neue", "Because We Build", "Because We Create", "Because We Learn",
              "Klee One")
HAND_EVAL_FONTS = ("DkgHandwriting", "Breip", "femkeklaver")
#: Pen colours (ballpoint blue/black, marker), with their share of draws.
PENS = ("#1a1a1a", "#1a1a1a", "#202a6b", "#0d3a8c", "#2b2b2b", "#7a1010")
HEADS = ("filled", "filled", "open", "open", "missing")
#: A drawn head may instead be a ring or a dot at the line's end (people mark the end of a line
#: that way): an open head becomes a ring, a filled one a dot, at this rate. Drawn from the
#: hand seed's own generator, so every other draw of a chart (and so of an existing set) is
#: unchanged by it.
ROUND_HEADS = {"open": "circle", "filled": "dot"}
ROUND_HEAD_RATE = 1 / 3
CURVES = ("basis", "linear", "monotoneY", "stepBefore", "cardinal", "bumpY")
#: WCAG 2.1 level AA contrast for normal-size text. Every label must reach it against every
#: colour its fill passes through (each gradient stop): below it a chart tests nothing but
#: illegible ink (black text on a deep blue or black fill), for people and OCR alike.
MIN_TEXT_CONTRAST = 4.5
#: The light text colour of dark fills (Office's white-on-dark look).
LIGHT_TEXT = "#ffffff"


def _hex(h: float, s: float, lum: float) -> str:
    r, g, b = colorsys.hls_to_rgb(h % 1.0, min(max(lum, 0), 1), min(max(s, 0), 1))
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def _shade(hex_colour: str, factor: float) -> str:
    """Darken (factor < 1) a colour in HLS lightness, keeping its hue."""
    r, g, b = (int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    h, lum, s = colorsys.rgb_to_hls(r, g, b)
    return _hex(h, min(1.0, s * 1.1 + 0.1), lum * factor)


def contrast(a: str, b: str) -> float:
    """WCAG 2.1 contrast ratio of two hex colours: 1 (same luminance) to 21 (black on white)."""
    from coloraide import Color

    return float(Color(a).contrast(Color(b), method="wcag21"))


def gradient_stops(colour: str) -> list[str]:
    """The stops of a node's vertical gradient fill in ``colour`` (light top, the colour, darker
    bottom); every renderer draws the wild family's gradients from these."""
    return [_tint(colour, 0.55), colour, _shade(colour, 0.8)]


def readable(text: str, fill: str, gradient: bool = False) -> bool:
    """Whether ``text`` reaches `MIN_TEXT_CONTRAST` against every colour of ``fill`` (each
    `gradient_stops` colour when the fill is a gradient)."""
    stops = gradient_stops(fill) if gradient else [fill]
    return all(contrast(text, stop) >= MIN_TEXT_CONTRAST for stop in stops)


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
    background: str | None = None
    gradient: bool = False
    shadow: bool = False
    raster_width: int | None = None
    hand: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(f"unknown style family {self.family!r}; expected one of {FAMILIES}")

    def mermaid_config(self) -> dict[str, Any]:
        cfg: dict[str, Any] = {
            "theme": self.theme, "look": self.look, "fontFamily": self.font,
            "themeVariables": {"fontFamily": self.font, "fontSize": f"{self.font_size}px"},
            "flowchart": {"curve": self.curve}}
        if self.look == "handDrawn" and "seed" in self.hand:
            cfg["handDrawnSeed"] = self.hand["seed"]  # rough.js strokes reproducible per chart
        if self.family == "handdrawn":
            # rough.js takes its colours and pen width from the theme, not from CSS (its node
            # groups are g.rough-node, and the fill is a hachure of strokes in the fill colour)
            pen, fill = self.stroke or "#1a1a1a", self.fills[0] if self.fills else "#ffffff"
            cfg["themeVariables"].update(
                primaryColor=fill, mainBkg=fill, nodeBorder=pen, primaryBorderColor=pen, lineColor=pen,
                primaryTextColor=self.text or pen, textColor=self.text or pen, clusterBkg="#ffffff",
                clusterBorder=pen, edgeLabelBackground="#ffffff", strokeWidth=self.stroke_width)
        return cfg

    def gradient_defs(self) -> dict[str, str]:
        """Fill colour -> id of a vertical linear gradient (light top, the colour, darker bottom)
        that `css` uses; the page adds ``<linearGradient>`` elements with these ids."""
        if not self.gradient:
            return {}
        colours = dict.fromkeys([*self.fills, *self.node_colours.values()])
        return {c: f"fpgrad{i}" for i, c in enumerate(colours)}

    def page_options(self) -> dict[str, Any]:
        """What the page does beyond CSS: gradient stops, hand-drawn stroke effects."""
        grads = [{"id": gid, "stops": gradient_stops(c)} for c, gid in self.gradient_defs().items()]
        return {"gradients": grads, "hand": self.hand}

    def css(self) -> str:
        """CSS for the SVG; ``#{id}`` is the SVG id placeholder (id prefix + !important so the
        rules beat Mermaid's own ``#id .node rect`` rules)."""
        p = "#{id}"
        shapes = ", ".join(f"{p} .node {t}" for t in ("rect", "circle", "ellipse", "polygon", "path"))
        rules = [f"{p} text, {p} tspan {{ font-family: '{self.font}' !important; }}"]
        if self.family == "default":
            return "\n".join(rules)
        if self.family == "handdrawn":
            shapes = ", ".join(f"{p} .rough-node {t}" for t in ("rect", "circle", "ellipse", "polygon", "path"))
            rules.append(f"{shapes} {{ stroke-width: {self.stroke_width}px; }}")
        text = self.text or "#222222"
        edge = self.edge or "#333333"
        grad = self.gradient_defs()

        def paint(colour: str) -> str:
            return f"url(#{grad[colour]})" if colour in grad else colour

        if self.background:
            rules.append(f"{p} {{ background-color: {self.background} !important; }}")
        if self.shadow:
            rules.append(f"{p} .node {{ filter: drop-shadow(3px 3px 2px rgba(0,0,0,0.45)); }}")
        if self.fills and self.family != "handdrawn":
            rules.append(f"{shapes} {{ fill: {paint(self.fills[0])} !important; }}")
        if self.stroke and self.family != "handdrawn":
            rules.append(f"{shapes} {{ stroke: {self.stroke} !important; stroke-width: {self.stroke_width}px !important; }}")
        for nid, colour in self.node_colours.items():
            sel = ", ".join(f'{p} g.node[id^="flowchart-{nid}-"] {t}' for t in ("rect", "circle", "ellipse", "polygon", "path"))
            border = _shade(colour, 0.55)
            rules.append(f"{sel} {{ fill: {paint(colour)} !important; stroke: {border} !important; }}")
        cluster_fill = "#ffffff" if self.family in ("black_white", "handdrawn") else _tint(self.fills[0] if self.fills else "#f4f4f4")
        rules += [
            f"{p} .node text, {p} .node tspan {{ fill: {text} !important; }}",
            f"{p} .cluster text, {p} .cluster tspan {{ fill: {_text_on(text, cluster_fill)} !important; }}",
            f"{p} .flowchart-link {{ stroke: {edge} !important; stroke-width: {self.edge_width}px !important; }}",
            f"{p} marker path, {p} .marker {{ fill: {edge} !important; stroke: {edge} !important; }}",
            # edge labels sit on the paper: light node text (on dark fills) would vanish there
            f"{p} .edgeLabel text, {p} .edgeLabel tspan {{ fill: {_text_on(text, self.background or '#ffffff')} !important; }}",
        ]
        if self.hand.get("head") in ("open", "circle"):
            rules.append(f"{p} marker path, {p} .marker {{ fill: none !important; stroke-width: 1.5px !important; }}")
        elif self.hand.get("head") == "missing":
            rules.append(f"{p} marker path, {p} .marker {{ display: none !important; }}")
        if self.family in ("black_white", "handdrawn"):
            rules += [f"{p} .edgeLabel rect {{ fill: #ffffff !important; opacity: 1 !important; }}",
                      f"{p} .cluster rect {{ fill: #ffffff !important; stroke: #000000 !important; }}"]
        else:
            rules.append(f"{p} .cluster rect {{ fill: {cluster_fill} !important; "
                         f"stroke: {self.stroke or '#888888'} !important; }}")
        return "\n".join(rules)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("node_colours")
        return d


def _text_on(text: str, fill: str) -> str:
    """``text`` where it is `readable` on ``fill``, else whichever of near-black and white
    contrasts more with it."""
    if readable(text, fill):
        return text
    return max(("#1a1a1a", LIGHT_TEXT), key=lambda c: contrast(c, fill))


def _tint(hex_colour: str, amount: float = 0.7) -> str:
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#{:02x}{:02x}{:02x}".format(*(round(v + (255 - v) * amount) for v in (r, g, b)))


def _saturated_colours() -> list[str]:
    # 72 strong fills as web/Office charts use them: 24 hues x (vivid, strong, deep)
    return [_hex(i / 24, s, lum) for i in range(24) for s, lum in ((0.85, 0.62), (0.7, 0.5), (0.75, 0.33))]


SATURATED_COLOURS = _saturated_colours()


def _held_out(pool: list[Any], split: str) -> list[Any]:
    return [p for i, p in enumerate(pool) if (i % 4 == 3) == (split == "eval")]


def _wild_style(spec: StyleSpec, split: str, rng: random.Random, ids: list[str], kinds: dict[str, str]) -> StyleSpec:
    """Web/Office look: saturated fills (per node kind, as people colour decisions and terminals),
    same-hue darker thick borders, gradients or drop shadows, off-white/grey paper, small raster."""
    spec.font = rng.choice(WILD_FONTS if split == "train" else WILD_EVAL_FONTS)
    spec.font_size = rng.choice((13, 14, 15, 16, 17))
    spec.theme = "base"
    spec.curve = rng.choice(("linear", "basis", "stepBefore", "linear"))
    # text first, then only fills it reads on (every gradient stop included): dark text on the
    # light and vivid fills, white text on the deep ones as Office draws them
    spec.gradient = rng.random() < 0.45
    dark = "#000000" if rng.random() < 0.8 else "#1a1a1a"
    spec.text = LIGHT_TEXT if rng.random() < 0.3 else dark
    pool = [c for c in _held_out(SATURATED_COLOURS, split) if readable(spec.text, c, spec.gradient)]
    if len(pool) < 4:  # no gradient runs from white-readable dark to dark: keep dark text
        spec.text = dark
        pool = [c for c in _held_out(SATURATED_COLOURS, split) if readable(dark, c, spec.gradient)]
    pal = rng.sample(pool, 4)
    spec.fills = [pal[0]]
    kind_colour: dict[str, str] = {}
    per_kind = rng.random() < 0.7
    for nid in ids:
        k = kinds.get(nid, "process") if per_kind else "process"
        spec.node_colours[nid] = kind_colour.setdefault(k, pal[len(kind_colour) % len(pal)])
    spec.stroke = _shade(pal[0], 0.6)
    spec.stroke_width = rng.choice((2.0, 2.5, 3.0, 4.0))
    spec.edge = rng.choice(("#000000", "#333333", "#1f3864", "#404040"))
    spec.edge_width = rng.choice((1.5, 2.0, 2.5))
    spec.shadow = rng.random() < 0.5
    spec.background = rng.choice(("#ffffff", "#f7f7f2", "#efefef", "#e8e8e8", "#f4f1e8", "#dcdcdc"))
    spec.raster_width = rng.randint(300, 550)
    return spec


def _handdrawn_style(spec: StyleSpec, split: str, rng: random.Random) -> StyleSpec:
    """Pen on paper or whiteboard: rough.js strokes (seeded), handwriting font, one pen colour,
    mostly unfilled shapes, and the page's stroke effects (`page.js` ``handStrokes``)."""
    spec.look = "handDrawn"
    spec.theme = "base"
    spec.font = rng.choice(HAND_FONTS if split == "train" else HAND_EVAL_FONTS)
    spec.font_size = rng.choice((15, 16, 17, 18, 20))
    spec.curve = rng.choice(("basis", "linear", "cardinal", "basis"))
    pen = rng.choice(PENS)
    spec.stroke = spec.edge = spec.text = pen
    spec.stroke_width = rng.choice((1.0, 1.5, 2.0, 2.5, 3.0))
    spec.edge_width = rng.choice((1.0, 1.5, 2.0, 2.5))
    spec.fills = ["#ffffff"] if rng.random() < 0.75 else [_tint(rng.choice(SINGLE_COLOURS), 0.3)]
    if not readable(pen, spec.fills[0]):  # a dark red pen on a mid-tone wash: wash it out more
        spec.fills = [_tint(spec.fills[0], 0.5)]
    seed, head = rng.randrange(1, 2**31), rng.choice(HEADS)
    if head in ROUND_HEADS and random.Random(seed).random() < ROUND_HEAD_RATE:
        head = ROUND_HEADS[head]
    spec.hand = {
        "seed": seed,
        "head": head,
        "corner_gap": rng.choice((0.0, 0.0, 4.0, 7.0, 10.0)),   # px of outline left undrawn
        "short": rng.choice((0.0, 0.0, 6.0, 12.0)),             # px an arrow stops short at its tail
        "wobble": rng.choice((0.0, 1.0, 2.0, 3.0)),             # px baseline wobble, degrees of tilt x2
    }
    return spec


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
    if family == "wild":
        return _wild_style(spec, split, rng, node_ids or [], node_kinds or {})
    if family == "handdrawn":
        return _handdrawn_style(spec, split, rng)
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
    if not all(readable(spec.text, c) for c in {*spec.fills, *spec.node_colours.values()}):
        spec.text = "#000000"  # the mid-tone fills (a #776bc7 purple) need the last bit of contrast
    spec.stroke_width = rng.choice((1.0, 1.5, 2.0)) if train else 1.5
    spec.theme = "base" if rng.random() < 0.5 else "default"
    return spec
