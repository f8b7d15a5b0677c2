"""Synthetic text lines for the learned line recogniser (`flowpath.transcribe.ocr.recogniser`).

Each sample is one line of flowchart-like text drawn with PIL in a Debian font at 8-16 px on a
node-like fill (dark on light, light on saturated, dark on saturated light; sometimes a vertical
gradient), degraded as web images are (blur, downscale-upscale, noise, slight rotation, JPEG
quality 35-90), then cleaned by `flowpath.transcribe.ocr.crops.to_text_crop` with the line height
`median_line_height` measures, and cut to its line band as `recogniser.crop_lines` cuts lines at
inference. So the network sees what it will read: the cleaned crops of the OCR transcriber.

A share of lines (``wild_share``, 0 by default: the first runs' stream) takes the "wild small
print" look of web Graphviz/PlantUML images instead: 7-11 px, mostly serif (Times-like) or
narrow faces, often squeezed horizontally, blurred up to 0.1 x the font size (`data_gen.styles.WILD_MAX_BLUR_PER_TEXT_PX`), gradients more often.

A further share (``blur_share``, 0 by default) is *blurred* small print degraded as the wild
renders are (`web_degrade`: the steps of `data_gen.augment.augment` as `data_gen.pipeline` calls
it for a wild chart, with its Gaussian blur always on and drawn from the strong end), 8.5-11.5 px:
the text every engine read at 0.2-0.3 word F1 after cleaning (docs/transcription.md, tenth stretch).

Held out: the wild eval set's fonts (Caladea, DejaVu Sans and its condensed/light cuts) and the
handwriting faces are never drawn (`train_fonts`).
"""

from __future__ import annotations

import colorsys
import random
import string
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from data_gen.procedural import random_flowchart
from data_gen.styles import (
    HAND_EVAL_FONTS,
    HAND_FONTS,
    WILD_EVAL_FONTS,
    WILD_MAX_BLUR_PER_TEXT_PX,
    contrast,
)
from flowpath.transcribe.ocr.crops import (
    color_distance,
    fill_color,
    median_line_height,
    to_grey_crop,
    to_text_crop,
)
from flowpath.transcribe.ocr.recogniser import crop_lines

#: families never drawn: the wild eval set's held-out print faces, handwriting (train and eval
#: faces: not print), and symbol/maths faces
EXCLUDED_FAMILIES = frozenset({*WILD_EVAL_FONTS, *HAND_FONTS, *HAND_EVAL_FONTS, "Humor Sans", "Comic Neue",
                               "Because We Connect", "Because We Mentor", "Because We Organize",
                               "Standard Symbols PS", "D050000L", "DejaVu Math TeX Gyre", "Klee One",
                               # decorative: keycaps, initials, chancery script
                               "Linux Biolinum Keyboard O", "Linux Libertine Initials O", "Z003",
                               "TeX Gyre Chorus"})
_EXCLUDED_WORDS = ("math", "symbol", "dingbat", "caladea")
_PUNCT_WORDS = ["?", ":", "(x)", "N != 0 ?", "i++", "x > 0?", "a = b + 1", "#3", "50%", "$12.50", "3/4",
                "e-mail", "don't", "Yes/No", "[OK]", "{id}", "<= 10", "A & B", "5 min", "1.", "2)", "x_1"]


@dataclass(frozen=True)
class Font:
    """One font file and the family it belongs to."""

    path: str
    family: str
    style: str


@lru_cache(maxsize=1)
def installed_fonts() -> tuple[Font, ...]:
    """Every TrueType/OpenType font fontconfig knows of (first family name of each file)."""
    out = subprocess.run(["fc-list", "--format", "%{file}\t%{family[0]}\t%{style[0]}\n"], check=True,
                         capture_output=True, text=True).stdout
    fonts = []
    for line in sorted(set(out.splitlines())):
        parts = line.split("\t")
        if len(parts) == 3 and parts[0].lower().endswith((".ttf", ".otf")):
            fonts.append(Font(*parts))
    return tuple(fonts)


def train_fonts(extra_excluded: tuple[str, ...] = ()) -> list[Font]:
    """Installed fonts a training run may draw: `EXCLUDED_FAMILIES` and ``extra_excluded`` left out."""
    excluded = EXCLUDED_FAMILIES | set(extra_excluded)
    out = []
    for f in installed_fonts():
        low = (f.family + " " + f.path).lower()
        if f.family in excluded or any(w in low for w in _EXCLUDED_WORDS):
            continue
        if f.family.startswith("DejaVu Sans") and "Mono" not in f.family:
            continue  # DejaVu Sans Condensed/Light are cuts of a held-out face
        out.append(f)
    if not out:
        raise RuntimeError("no training fonts installed (fc-list found none outside the held-out ones)")
    return out


class TextSampler:
    """Line texts: chunks of generated flowchart node text, dictionary words, codes and numbers."""

    def __init__(self, rng: random.Random, words: list[str]) -> None:
        self.rng = rng
        self.words = words or list(string.ascii_lowercase)
        self._pool: list[str] = []

    def _node_line(self) -> str:
        if not self._pool:
            chart, _ = random_flowchart(self.rng, min_nodes=8, max_nodes=20)
            self._pool = [n.text.replace("\n", " ") for n in chart if n.text]
        words = self._pool.pop().split()
        if not words:
            return "Start"
        n = self.rng.randint(1, min(len(words), 6))
        i = self.rng.randint(0, len(words) - n)
        return " ".join(words[i:i + n])

    def _dictionary_line(self) -> str:
        out = []
        for _ in range(self.rng.randint(1, 5)):
            w = self.rng.choice(self.words)
            r = self.rng.random()
            out.append(w.capitalize() if r < 0.3 else w.upper() if r < 0.38 else w)
        return " ".join(out)

    def _code_line(self) -> str:
        r = self.rng.random()
        if r < 0.3:
            return self.rng.choice(_PUNCT_WORDS)
        if r < 0.55:
            return str(self.rng.choice([self.rng.randint(0, 99), self.rng.randint(100, 99999),
                                        round(self.rng.uniform(0, 100), self.rng.randint(1, 2))]))
        alphabet = string.ascii_letters + string.digits + string.punctuation
        parts = ["".join(self.rng.choice(alphabet) for _ in range(self.rng.randint(1, 8)))
                 for _ in range(self.rng.randint(1, 4))]
        return " ".join(parts)

    def __call__(self) -> str:
        r = self.rng.random()
        text = self._node_line() if r < 0.5 else self._dictionary_line() if r < 0.85 else self._code_line()
        return text[:32].strip() or "x"


def _hex_rgb(h: float, lum: float, s: float) -> tuple[int, int, int]:
    r, g, b = colorsys.hls_to_rgb(h % 1.0, min(max(lum, 0.0), 1.0), min(max(s, 0.0), 1.0))
    return round(r * 255), round(g * 255), round(b * 255)


def _wcag_contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """WCAG 2.1 contrast ratio of two RGB colours (`data_gen.styles.contrast`, coloraide)."""
    return contrast("#{:02x}{:02x}{:02x}".format(*a), "#{:02x}{:02x}{:02x}".format(*b))


def sample_colours(rng: random.Random) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """``(fill, text)`` colours with at least 3:1 contrast."""
    for _ in range(50):
        mode = rng.random()
        h = rng.random()
        if mode < 0.35:  # dark text on white / pale fills (plain renders, pastel nodes)
            fill = _hex_rgb(h, rng.uniform(0.85, 1.0), rng.uniform(0, 0.8))
            text = _hex_rgb(rng.random(), rng.uniform(0.0, 0.3), rng.uniform(0, 0.7))
        elif mode < 0.7:  # light text on saturated or dark fills (Office / Graphviz look)
            fill = _hex_rgb(h, rng.uniform(0.15, 0.55), rng.uniform(0.4, 1.0))
            text = (255, 255, 255) if rng.random() < 0.8 else _hex_rgb(h, rng.uniform(0.85, 1.0), 0.5)
        else:  # dark text on saturated light fills (yellow, green, pink nodes)
            fill = _hex_rgb(h, rng.uniform(0.45, 0.75), rng.uniform(0.5, 1.0))
            text = _hex_rgb(rng.random(), rng.uniform(0.0, 0.25), rng.uniform(0, 0.8))
        if _wcag_contrast(fill, text) >= 3.0:
            return fill, text
    return (255, 255, 255), (0, 0, 0)


#: family-name words of the serif (Times-like) and narrow faces that the wild look draws most
_SERIF_OR_NARROW_WORDS = ("serif", "roman", "termes", "pagella", "bonum", "schola", "bookman", "libertine",
                          "c059", "p052", "narrow", "condensed", " cn")


def is_serif_or_narrow(family: str) -> bool:
    """Whether a family is a serif or a narrow/condensed face ("Sans" faces named "... Serif" aside)."""
    low = " " + family.lower()
    return "sans serif" not in low and any(w in low for w in _SERIF_OR_NARROW_WORDS)


def _squeeze(rgb: np.ndarray, factor: float) -> np.ndarray:
    """``rgb`` narrowed horizontally by ``factor`` (a narrow face, or a browser fitting a label)."""
    return cv2.resize(rgb, (max(4, round(rgb.shape[1] * factor)), rgb.shape[0]), interpolation=cv2.INTER_AREA)


#: sigma (px) of the blurred look's Gaussian blur: the strong end of the wild renders' draw
#: (`data_gen.augment.augment` draws 0.3-1.1, capped at `WILD_MAX_BLUR_PER_TEXT_PX` x font size);
#: docs/transcription.md's lost bucket is blur >= 0.6 px
BLURRED_SIGMA = (0.5, 1.1)


def web_degrade(rng: random.Random, rgb: np.ndarray, size: float, fill: tuple[int, int, int]) -> np.ndarray:
    """``rgb`` passed through the wild renders' web-image pass, blur always on.

    `data_gen.augment.augment` as `data_gen.pipeline._degrade` calls it for a wild chart (no
    rescale, rotation up to 1 degree, contrast, noise, always JPEG at quality 40-85), except
    that the Gaussian blur is always applied with sigma from `BLURRED_SIGMA` under the renders'
    cap (`WILD_MAX_BLUR_PER_TEXT_PX` x ``size``), and 25 % of lines are first downscaled to
    0.6-0.9 and scaled back (a web page's resized copy of the image).
    """
    from data_gen.augment import augment

    if rng.random() < 0.25:
        f = rng.uniform(0.6, 0.9)
        small = cv2.resize(rgb, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        rgb = cv2.resize(small, (rgb.shape[1], rgb.shape[0]), interpolation=cv2.INTER_LINEAR)
    out, _ = augment(np.ascontiguousarray(rgb), {"nodes": {}, "edges": []}, rng, scale=(1.0, 1.0),
                     max_rotation=1.0, p_jpeg=1.0, quality=(40, 85), fill=fill,
                     max_blur=WILD_MAX_BLUR_PER_TEXT_PX * size, p_blur=1.0, blur=BLURRED_SIGMA)
    return out


def render_line(rng: random.Random, font: Font, text: str, size: float, wild: bool = False,
                blurred: bool = False) -> np.ndarray:
    """The coloured, degraded picture of ``text`` on a node-like fill (RGB uint8); ``wild``: the
    web small-print look (squeezed, blurred and graded more often and more strongly);
    ``blurred`` (with ``wild``): degraded by `web_degrade` instead of the steps below."""
    fill, ink = sample_colours(rng)
    supersample = 1 if rng.random() < 0.5 else rng.choice((2, 3, 4))
    face = ImageFont.truetype(font.path, max(4, round(size * supersample)))
    left, top, right, bottom = face.getbbox(text)
    pad_x = int(rng.uniform(3, 12) * supersample)
    pad_y = int(rng.uniform(2, 8) * supersample)
    w, h = right - left + 2 * pad_x, max(bottom, int(size * supersample)) - min(top, 0) + 2 * pad_y
    img = Image.new("RGB", (max(w, 8), max(h, 8)), fill)
    ImageDraw.Draw(img).text((pad_x - left + rng.random(), pad_y - min(top, 0) + rng.random()), text,
                             font=face, fill=ink)
    rgb = np.asarray(img).copy()
    if rng.random() < (0.4 if wild else 0.2):  # vertical gradient over the fill (Office look)
        k = np.linspace(rng.uniform(0.8, 1.0), rng.uniform(0.8, 1.0), rgb.shape[0])[:, None, None]
        rgb = np.clip(rgb.astype(np.float32) * k, 0, 255).astype(np.uint8)
    if supersample > 1:
        rgb = cv2.resize(rgb, (max(4, rgb.shape[1] // supersample), max(4, rgb.shape[0] // supersample)),
                         interpolation=cv2.INTER_AREA)
    if wild and rng.random() < 0.4:
        rgb = _squeeze(rgb, rng.uniform(0.75, 0.95))
    if blurred:
        return web_degrade(rng, rgb, size, fill)
    if rng.random() < 0.15:
        angle = rng.uniform(-1.2, 1.2)
        m = cv2.getRotationMatrix2D((rgb.shape[1] / 2, rgb.shape[0] / 2), angle, 1.0)
        rgb = cv2.warpAffine(rgb, m, (rgb.shape[1], rgb.shape[0]), flags=cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_REPLICATE)
    if rng.random() < (0.6 if wild else 0.4):
        sigma = rng.uniform(0.1, (0.1 if wild else 0.08) * size)
        rgb = cv2.GaussianBlur(rgb, (0, 0), sigma)
    if rng.random() < 0.3:
        f = rng.uniform(0.6, 0.9)
        small = cv2.resize(rgb, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        rgb = cv2.resize(small, (rgb.shape[1], rgb.shape[0]), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.3:
        noise = np.random.default_rng(rng.getrandbits(32)).normal(0, rng.uniform(1, 6), rgb.shape)
        rgb = np.clip(rgb + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.85:
        ok, enc = cv2.imencode(".jpg", rgb[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, rng.randint(35, 90)])
        if ok:
            rgb = cv2.imdecode(enc, cv2.IMREAD_COLOR)[:, :, ::-1].copy()
    return rgb


def clean_line(rgb: np.ndarray, size: float, grey: bool = False) -> np.ndarray | None:
    """The line as the OCR transcriber hands it to an engine: `to_text_crop` (``grey``:
    `to_grey_crop`, the grey-input recogniser's crop) at the measured line height, cut to its
    band; None when cleaning finds no ink or splits it into several lines."""
    inside = np.ones(rgb.shape[:2], bool)
    ink = (color_distance(rgb, fill_color(rgb, inside)) > 60) & inside
    line_h = median_line_height([ink]) or size * 1.15
    crop = (to_grey_crop if grey else to_text_crop)(rgb, None, line_height=line_h)
    if crop is None:
        return None
    lines = crop_lines(crop.image)
    if len(lines) != 1:
        return None
    return lines[0][2]


class LineSynth:
    """An endless, seeded stream of ``(cleaned line image, text)`` training samples.

    Args:
        seed: the stream is a pure function of it.
        fonts: fonts to draw from (default `train_fonts`).
        words: dictionary words for random lines.
        sizes: smallest and largest font size (px).
        wild_share: share of lines in the wild small-print look (`render_line` ``wild``), drawn
            at ``wild_sizes`` px, 70 % of them in a serif or narrow face (`is_serif_or_narrow`);
            0 leaves the stream exactly as before (no extra random draws).
        wild_sizes: smallest and largest font size (px) of those lines.
        blur_share: share of lines in the blurred look (wild drawing, `web_degrade`), drawn at
            ``blur_sizes`` px, half of them in a serif or narrow face; 0 leaves the stream as
            ``wild_share`` alone gives it. ``wild_share + blur_share`` is at most 1.
        blur_sizes: smallest and largest font size (px) of those lines.
        grey: lines cut from the uncleaned grey crop (`crops.to_grey_crop`) instead of the
            cleaned one: the grey-input recogniser's stream (same drawing, same random draws).
    """

    def __init__(self, seed: int, fonts: list[Font] | None = None, words: list[str] | None = None,
                 sizes: tuple[float, float] = (8.0, 16.0), wild_share: float = 0.0,
                 wild_sizes: tuple[float, float] = (7.0, 11.0), blur_share: float = 0.0,
                 blur_sizes: tuple[float, float] = (8.5, 11.5), grey: bool = False) -> None:
        if wild_share + blur_share > 1 + 1e-9:
            raise ValueError(f"wild_share + blur_share must be <= 1, got {wild_share} + {blur_share}")
        self.rng = random.Random(seed)
        self.fonts = fonts or train_fonts()
        # draw a family first, then one of its files: URW ships 8 cuts a face, Roboto 20
        self.families: dict[str, list[Font]] = {}
        for f in self.fonts:
            self.families.setdefault(f.family, []).append(f)
        self.text = TextSampler(self.rng, words or [])
        self.sizes = sizes
        self.wild_share = wild_share
        self.wild_sizes = wild_sizes
        self.blur_share = blur_share
        self.blur_sizes = blur_sizes
        self.grey = grey
        self.serif_or_narrow = sorted(f for f in self.families if is_serif_or_narrow(f))

    def sample(self) -> tuple[np.ndarray, str, Font]:
        while True:
            wild = self.wild_share > 0 and self.rng.random() < self.wild_share
            # no extra draw without the blurred look: a wild-only seed gives its earlier stream
            blurred = (not wild and self.blur_share > 0
                       and self.rng.random() < self.blur_share / max(1e-9, 1 - self.wild_share))
            if wild and self.serif_or_narrow and self.rng.random() < 0.7:
                family = self.rng.choice(self.serif_or_narrow)
            elif blurred and self.serif_or_narrow and self.rng.random() < 0.5:
                family = self.rng.choice(self.serif_or_narrow)
            else:
                family = self.rng.choice(sorted(self.families))
            font = self.rng.choice(self.families[family])
            text = self.text()
            if wild:
                size = self.rng.uniform(*self.wild_sizes)
            elif blurred:
                size = self.rng.uniform(*self.blur_sizes)
            else:  # more mass on the hard 9-12 px range
                size = min(max(self.rng.triangular(self.sizes[0], self.sizes[1], 10.5), self.sizes[0]),
                           self.sizes[1])
            try:
                rgb = render_line(self.rng, font, text, size, wild or blurred, blurred)
            except OSError:
                continue  # a font file PIL cannot open
            line = clean_line(rgb, size, self.grey)
            if line is not None:
                return line, text, font


def font_names(fonts: list[Font]) -> list[str]:
    """Sorted distinct family names (for the model card)."""
    return sorted({f.family for f in fonts})


def save_examples(synth: LineSynth, out: Path, n: int = 24) -> None:
    """A contact sheet of ``n`` samples (for a person to look at)."""
    rows = []
    for _ in range(n):
        line, text, _ = synth.sample()
        h = 32
        rows.append(cv2.resize(line, (max(8, int(line.shape[1] * h / line.shape[0])), h)))
    width = max(r.shape[1] for r in rows)
    sheet = np.full((len(rows) * 36, width), 255, np.uint8)
    for i, r in enumerate(rows):
        sheet[i * 36:i * 36 + 32, :r.shape[1]] = r
    cv2.imwrite(str(out), sheet)
