"""Photo/scan degradation of a rendered chart: the drawing goes onto off-white, plain, lined or
squared paper (multiplied in, so the ruling shows through unfilled shapes as on real paper),
under uneven light and a soft shadow, and the page is photographed in slight perspective and
rotation on a desk, then blurred, noised and JPEG-compressed.

``hard=True`` adds what real phone photos have and the plain pass lacks (issue 21 item 4): a
mottled grey desk close to the paper's own lightness, a strong soft shadow (a hand or a phone)
falling across sheet and desk alike, and the sheet filling most of the frame with its corners
off it, so the image border shows little desk.

Every geometric step is one 3x3 projective map of the chart's pixels, applied to the
annotations by `data_gen.augment.transform_annotations`, so regions and edges stay exact.
"""

from __future__ import annotations

import io
import math
import random
from typing import Any

import numpy as np

from data_gen.augment import transform_annotations

RULINGS = ("plain", "lined", "squared", "squared")
#: the degradations `photo_scan` can switch off one by one (error analysis by stage): the
#: paper's ruling, uneven light and shadow, and the camera's blur, noise and JPEG
PHOTO_STAGES = frozenset({"ruling", "light", "camera"})
DESKS = ((92, 64, 44), (140, 110, 80), (60, 60, 64), (30, 30, 32), (170, 170, 165), (110, 120, 130))
#: hard photos: grey desks (laminate, concrete, a grey tablecloth) within a few Lab steps of
#: paper in shade
GREY_DESKS = ((196, 196, 192), (184, 186, 188), (205, 202, 196), (176, 176, 172), (215, 214, 210))


def _paper(h: int, w: int, rng: random.Random) -> tuple[np.ndarray, str]:
    import cv2

    tone = rng.uniform(0.90, 0.99)
    warm = rng.uniform(0.0, 0.04)
    paper = np.empty((h, w, 3), np.float32)
    paper[:] = (tone, tone - warm * 0.5, tone - warm)
    ruling = rng.choice(RULINGS)
    if ruling != "plain":
        step = rng.uniform(16, 30)
        col = rng.choice(((0.62, 0.72, 0.88), (0.70, 0.70, 0.72), (0.55, 0.75, 0.80)))
        strength = rng.uniform(0.35, 0.8)
        colour = tuple(float(tone - (tone - c) * strength) for c in col)
        thick = rng.choice((1, 1, 2))
        off = rng.uniform(0, step)
        y = off
        while y < h:
            cv2.line(paper, (0, round(y)), (w - 1, round(y)), colour, thick, cv2.LINE_AA)
            y += step
        if ruling == "squared":
            x = rng.uniform(0, step)
            while x < w:
                cv2.line(paper, (round(x), 0), (round(x), h - 1), colour, thick, cv2.LINE_AA)
                x += step
    return paper, ruling


def _lighting(h: int, w: int, rng: random.Random) -> np.ndarray:
    """Multiplicative light field: a tilted ramp, a vignette and a soft shadow blob."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, 2 * math.pi)
    ramp = (xx * math.cos(a) + yy * math.sin(a)) / max(h, w)
    ramp = (ramp - ramp.min()) / max(float(np.ptp(ramp)), 1e-6)
    light = 1.0 - rng.uniform(0.05, 0.25) * ramp
    r2 = ((xx - w / 2) / (0.8 * w)) ** 2 + ((yy - h / 2) / (0.8 * h)) ** 2
    light *= 1.0 - rng.uniform(0.0, 0.15) * r2
    if rng.random() < 0.6:  # a hand's or phone's shadow near one side
        cx, cy = rng.uniform(-0.2, 1.2) * w, rng.choice((rng.uniform(-0.2, 0.1), rng.uniform(0.9, 1.2))) * h
        sx, sy = rng.uniform(0.2, 0.5) * w, rng.uniform(0.15, 0.4) * h
        light *= 1.0 - rng.uniform(0.15, 0.35) * np.exp(-(((xx - cx) / sx) ** 2 + ((yy - cy) / sy) ** 2))
    return np.clip(light, 0.3, 1.0)


def _mottled_desk(ch: int, cw: int, rgb: np.ndarray, rng: random.Random,
                  nrng: np.random.Generator) -> np.ndarray:
    """A grey desk with blotches at three scales and a fine grain (concrete, laminate)."""
    import cv2

    field = np.zeros((ch, cw), np.float32)
    for cell, amp in ((rng.uniform(60, 140), rng.uniform(0.05, 0.10)), (rng.uniform(12, 30), rng.uniform(0.03, 0.07)),
                      (rng.uniform(3, 6), rng.uniform(0.01, 0.04))):
        coarse = nrng.normal(0, amp, (max(2, round(ch / cell)), max(2, round(cw / cell)))).astype(np.float32)
        field += cv2.resize(coarse, (cw, ch), interpolation=cv2.INTER_CUBIC)
    field += nrng.normal(0, rng.uniform(0.01, 0.03), (ch, cw)).astype(np.float32)
    return np.clip(rgb[None, None, :] * (1 + field[..., None]), 0, 1)


def _cast_shadow(ch: int, cw: int, rng: random.Random) -> np.ndarray:
    """Multiplicative light field of a strong soft shadow (a hand or a phone held over the
    sheet): a blurred ellipse reaching in from one side of the frame to across its middle."""
    import cv2

    side = rng.randrange(4)
    along = rng.uniform(0.2, 0.8)
    reach = rng.uniform(0.35, 0.65)  # how far in the shadow's tip comes, as a share of the frame
    cx, cy = {0: (along * cw, -0.1 * ch), 1: (1.1 * cw, along * ch), 2: (along * cw, 1.1 * ch),
              3: (-0.1 * cw, along * ch)}[side]
    long_ax = (reach + 0.1) * (ch if side in (0, 2) else cw)
    short_ax = rng.uniform(0.15, 0.3) * (cw if side in (0, 2) else ch)
    axes = (short_ax, long_ax) if side in (0, 2) else (long_ax, short_ax)
    mask = np.zeros((ch, cw), np.float32)
    cv2.ellipse(mask, (round(cx), round(cy)), (max(1, round(axes[0])), max(1, round(axes[1]))),
                rng.uniform(-25, 25), 0, 360, 1.0, -1)
    soft = rng.uniform(0.03, 0.09) * max(ch, cw)
    shade = cv2.GaussianBlur(mask, (0, 0), soft)
    return 1.0 - rng.uniform(0.35, 0.6) * shade


def photo_scan(img: np.ndarray, ann: dict[str, Any], rng: random.Random, *, max_tilt: float = 4.0,
               max_skew: float = 0.035, stages: frozenset[str] = PHOTO_STAGES, hard: bool = False
               ) -> tuple[np.ndarray, dict[str, Any]]:
    """Make ``img`` look like a phone photo or scan of a drawing on paper.

    Args:
        img: RGB uint8 ``(H, W, 3)``, the clean render (white background).
        ann: ``{"nodes", "edges", "clusters"}`` in ``img`` pixels.
        rng: seeded generator (the whole result is a function of it).
        max_tilt: degrees of in-plane rotation either way.
        max_skew: corner displacement for the perspective, as a fraction of the page size.
        stages: the degradations applied (`PHOTO_STAGES`); one left out still draws its random
            numbers, so the rest of the photo (geometry, desk, the other stages) is unchanged.
        hard: a mottled grey desk near the paper's lightness, a strong soft shadow across the
            sheet, and the sheet filling the frame with corners off it (extra random numbers
            are drawn only then, so photos without it are unchanged).

    Returns:
        ``(photo, annotations)``; ``annotations`` in the photo's pixels, plus ``"photo"``: what
        was drawn (ruling, desk, tilt) for the record.
    """
    import cv2
    from PIL import Image

    h, w = img.shape[:2]
    m = round(max(h, w) * rng.uniform(0.03, 0.08)) + 8
    ph, pw = h + 2 * m, w + 2 * m
    page, ruling = _paper(ph, pw, rng)
    if "ruling" not in stages:
        page[:] = np.median(page.reshape(-1, 3), axis=0)  # the paper's tone: lines are a minority
    page[m:m + h, m:m + w] *= img.astype(np.float32) / 255.0  # ink multiplies the paper
    light = _lighting(ph, pw, rng)
    if "light" in stages:
        page *= light[..., None]

    border = rng.uniform(0.04, 0.14)
    cw, ch = round(pw * (1 + 2 * border)), round(ph * (1 + 2 * border))
    desk_rgb = np.array(rng.choice(DESKS), np.float32) / 255.0
    nrng = np.random.default_rng(rng.randrange(2**31))
    low = cv2.resize(nrng.normal(0, 0.06, (max(2, ch // 40), max(2, cw // 40))).astype(np.float32), (cw, ch),
                     interpolation=cv2.INTER_CUBIC)
    desk = np.clip(desk_rgb[None, None, :] * (1 + low[..., None]), 0, 1)

    t = math.radians(rng.uniform(-max_tilt, max_tilt))
    cx, cy = cw / 2, ch / 2
    if hard:
        # the sheet fills the frame: each side shows a little desk or cuts into the sheet's
        # margin (never into the drawing), and the sheet sits off-centre
        frac = m / max(pw, ph)
        bx, by = rng.uniform(-0.8 * frac, 0.04), rng.uniform(-0.8 * frac, 0.04)
        cw, ch = round(pw * (1 + 2 * bx)), round(ph * (1 + 2 * by))
        cx = cw / 2 + rng.uniform(-0.3, 0.3) * max(0.0, bx) * pw
        cy = ch / 2 + rng.uniform(-0.3, 0.3) * max(0.0, by) * ph
        desk = _mottled_desk(ch, cw, np.array(rng.choice(GREY_DESKS), np.float32) / 255.0, rng, nrng)
    src = np.array([[0, 0], [pw, 0], [pw, ph], [0, ph]], np.float32)
    dst = []
    for x, y in src:
        dx, dy = x - pw / 2, y - ph / 2
        rx, ry = dx * math.cos(t) - dy * math.sin(t), dx * math.sin(t) + dy * math.cos(t)
        dst.append([cx + rx + rng.uniform(-max_skew, max_skew) * pw, cy + ry + rng.uniform(-max_skew, max_skew) * ph])
    hom = cv2.getPerspectiveTransform(src, np.array(dst, np.float32))
    warped = cv2.warpPerspective(page, hom, (cw, ch), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0))
    mask = cv2.warpPerspective(np.ones((ph, pw), np.float32), hom, (cw, ch), flags=cv2.INTER_LINEAR)
    out = desk * (1 - mask[..., None]) + warped * mask[..., None]
    if hard:  # the shadow falls on desk and sheet alike
        shadow = _cast_shadow(ch, cw, rng)
        if "light" in stages:
            out = out * shadow[..., None]

    sigma = rng.uniform(0.4, 1.4)
    noise = rng.uniform(1.5, 5.0)
    quality = rng.randint(45, 85)
    if "camera" in stages:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
        out = out * 255 + nrng.normal(0, noise, out.shape)
    else:
        out = out * 255
    arr = np.clip(out, 0, 255).astype(np.uint8)
    if "camera" in stages:
        buf = io.BytesIO()
        Image.fromarray(arr).save(buf, format="JPEG", quality=quality)
        arr = np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGB"))

    shift = np.array([[1, 0, m], [0, 1, m], [0, 0, 1]], np.float64)
    total = hom.astype(np.float64) @ shift
    out_ann = transform_annotations(ann, total, arr.shape[1], arr.shape[0])
    out_ann["photo"] = {"ruling": ruling, "tilt_deg": round(math.degrees(t), 2), "blur": round(sigma, 2),
                        "page_corners": [[round(float(x), 1), round(float(y), 1)] for x, y in dst]}
    if hard:
        out_ann["photo"]["hard"] = True
    return arr, out_ann
