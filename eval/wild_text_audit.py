"""Realism audit of a generated set's wild-look text: size, blur, JPEG, and legibility per node.

    python eval/wild_text_audit.py /work/data/ocr_gen_wild_eval --sheet runs/ocrwild/failing.png

For every wild-family chart of a benchmark-layout folder written by ``data_gen``, the text size
in the image (font px = the style's font size times the raster scale; x-height and cap height
from the font's own glyph outlines) and the degrade pass's blur and JPEG quality (replayed from
the record's seed, as `data_gen.augment.augment` draws them). Legibility per node: its gold
text drawn again in the chart's font at the chart's text size on its fill, read by tesseract
three ways: clean at that size, with the chart's blur + JPEG at that size, and clean at twice
that size. Text tesseract reads clean at 2x but not degraded at 1x is what the degrade pass
destroyed. ``--sheet`` writes a contact sheet of the real crops of nodes lost that way (3x
nearest-neighbour, gold text under each) to look at by eye.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import statistics
import subprocess
import sys
from collections import defaultdict
from functools import cache
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def replay_degrade(seed: int, p_blur: float = 0.4) -> tuple[float, int]:
    """Blur sigma (0 when none) and JPEG quality of the wild degrade pass with this seed: the
    same draws, in the same order, as `data_gen.augment.augment` with the wild pass's options
    (``p_blur``: the chart's ``degrade["p_blur"]``, `python -m data_gen --wild-blur`)."""
    rng = random.Random(seed)
    if rng.random() < 0.7:
        rng.uniform(1.0, 1.0)
    if rng.random() < 0.35:
        rng.uniform(-1.0, 1.0)
    sigma = rng.uniform(0.3, 1.1) if rng.random() < p_blur else 0.0
    if rng.random() < 0.4:
        rng.uniform(0.75, 1.15)
    if rng.random() < 0.4:
        rng.randrange(2**31)
        rng.uniform(2, 8)
    return sigma, rng.randint(40, 85)


@cache
def font_file(family: str) -> str:
    """Path of the regular face fontconfig picks for a family name."""
    return subprocess.run(["fc-match", "-f", "%{file}", f"{family}:style=Regular"], capture_output=True,
                          text=True, check=True).stdout


@cache
def glyph_ratios(family: str) -> tuple[float, float]:
    """(x-height, cap height) as fractions of the font size, from the glyphs' ink boxes."""
    from PIL import ImageFont

    f = ImageFont.truetype(font_file(family), 200)
    x, cap = f.getbbox("x"), f.getbbox("H")
    return (x[3] - x[1]) / 200, (cap[3] - cap[1]) / 200


def draw_text(text: str, family: str, px: float, fill: str, ink: str) -> Any:
    """The text's lines drawn centred in ``family`` at ``px`` font size on ``fill``."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(font_file(family), max(1, round(px)))
    lines = text.replace("<br>", "\n").split("\n")
    w = max(int(font.getlength(line)) for line in lines) + 2 * round(px)
    h = round(px * 1.25) * len(lines) + 2 * round(px)
    im = Image.new("RGB", (w, h), fill)
    ImageDraw.Draw(im).multiline_text((w / 2, h / 2), "\n".join(lines), font=font, fill=ink, anchor="mm",
                                      align="center", spacing=round(px * 0.25))
    return im


def degrade(im: Any, sigma: float, quality: int) -> Any:
    """The wild pass's blur and JPEG on one image."""
    from PIL import Image, ImageFilter

    if sigma:
        im = im.filter(ImageFilter.GaussianBlur(sigma))
    buf = io.BytesIO()
    im.save(buf, format="JPEG", quality=quality)
    return Image.open(io.BytesIO(buf.getvalue())).convert("RGB")


class Reader:
    """Tesseract on a grey image upscaled to ~24-px capitals (the same for every condition)."""

    def __init__(self) -> None:
        import tesserocr

        from flowpath.transcribe.ocr.engines import find_tessdata

        self.api = tesserocr.PyTessBaseAPI(path=str(find_tessdata("eng")), psm=tesserocr.PSM.SINGLE_BLOCK)

    def __call__(self, im: Any, cap_px: float) -> str:
        from PIL import Image

        f = max(1.0, 24.0 / max(cap_px, 1.0))
        g = im.convert("L").resize((round(im.width * f), round(im.height * f)), Image.LANCZOS)
        self.api.SetImage(g)
        return " ".join(self.api.GetUTF8Text().split())


def recall(pred: str, gold: str) -> tuple[int, int]:
    """(gold words read, gold words) under the transcription metric's word split."""
    from collections import Counter

    from flowpath.metrics.transcription import words

    p, g = Counter(words(pred)), Counter(words(gold.replace("<br>", " ")))
    return sum((p & g).values()), sum(g.values())


def audit(bench: Path, limit: int | None, max_blur_per_px: float | None = None) -> list[dict[str, Any]]:
    """One record per wild-family node with text."""
    from flowpath.mermaid import parse_mermaid

    reader = Reader()
    out: list[dict[str, Any]] = []
    records = sorted((bench / "charts").glob("*.json"))
    for path in records:
        rec = json.loads(path.read_text(encoding="utf-8"))
        style = rec.get("style") or {}
        deg = (rec.get("meta") or {}).get("degrade") or {}
        if style.get("family") != "wild" or deg.get("kind") != "wild":
            continue
        if limit is not None and len({r["chart"] for r in out}) >= limit:
            break
        px = float(style["font_size"]) * statistics.mean(rec["scale"])
        xr, cr = glyph_ratios(style["font"])
        sigma, quality = replay_degrade(int(deg["seed"]))
        if max_blur_per_px is not None and sigma:  # the generator's cap (`WILD_MAX_BLUR_PER_TEXT_PX`)
            sigma = min(sigma, max_blur_per_px * px)
        gold = parse_mermaid(rec["mermaid"], strict=False)
        colours = style.get("node_colours") or {}
        for nid, node in gold.nodes.items():
            text = (node.text or "").strip()
            if not text or nid not in rec["nodes"]:
                continue
            fill = colours.get(nid) or (style.get("fills") or ["#ffffff"])[0]
            ink = style.get("text") or "#000000"
            clean = draw_text(text, style["font"], px, fill, ink)
            reads = {
                "clean_1x": reader(clean, px * cr),
                "degraded_1x": reader(degrade(clean, sigma, quality), px * cr),
                "clean_2x": reader(draw_text(text, style["font"], 2 * px, fill, ink), 2 * px * cr),
            }
            out.append({"chart": path.stem, "renderer": rec.get("renderer"), "node": nid, "gold": text,
                        "font": style["font"], "font_px": round(px, 2), "x_height_px": round(px * xr, 2),
                        "cap_px": round(px * cr, 2), "blur": round(sigma, 2), "jpeg": quality,
                        "bbox": rec["nodes"][nid]["bbox"],
                        **{k: {"text": v, "hit": recall(v, text)} for k, v in reads.items()}})
    return out


def summarise(rows: list[dict[str, Any]]) -> None:
    """Print the size/blur distribution per chart and gold-word recall per condition and size band."""
    charts: dict[str, dict[str, Any]] = {}
    for r in rows:
        charts.setdefault(r["chart"], r)
    print(f"{len(charts)} wild charts, {len(rows)} nodes")
    for key in ("font_px", "x_height_px", "cap_px", "blur", "jpeg"):
        v = sorted(c[key] for c in charts.values())
        q = statistics.quantiles(v, n=10) if len(v) > 1 else v * 9
        print(f"  {key:12s} min {v[0]:6.2f}  p10 {q[0]:6.2f}  median {statistics.median(v):6.2f}  "
              f"p90 {q[-1]:6.2f}  max {v[-1]:6.2f}")
    print(f"  charts blurred: {sum(c['blur'] > 0 for c in charts.values())} of {len(charts)}")
    bands: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        x = r["x_height_px"]
        bands["x < 4 px" if x < 4 else "x 4-5 px" if x < 5 else "x 5-6 px" if x < 6 else "x >= 6 px"].append(r)
        bands[f"blur/x {'> 0.2' if r['blur'] / x > 0.2 else '<= 0.2'}"].append(r)
        bands[f"renderer {r['renderer']}"].append(r)
    print(f"\n{'group':22s} {'nodes':>5s} {'clean 1x':>9s} {'degraded 1x':>12s} {'clean 2x':>9s}   (gold-word recall)")
    for name in sorted(bands):
        rs = bands[name]
        cells = []
        for cond in ("clean_1x", "degraded_1x", "clean_2x"):
            hit, tot = (sum(r[cond]["hit"][i] for r in rs) for i in range(2))
            cells.append(hit / tot if tot else 1.0)
        print(f"{name:22s} {len(rs):5d} {cells[0]:9.3f} {cells[1]:12.3f} {cells[2]:9.3f}")


def contact_sheet(rows: list[dict[str, Any]], bench: Path, out: Path, n: int = 24) -> None:
    """Real crops (3x nearest) of nodes read clean at 2x but lost degraded at 1x, gold under each."""
    from PIL import Image, ImageDraw

    lost = [r for r in rows if r["clean_2x"]["hit"][0] == r["clean_2x"]["hit"][1]
            and r["degraded_1x"]["hit"][0] < r["degraded_1x"]["hit"][1] / 2]
    random.Random(0).shuffle(lost)
    tiles = []
    for r in lost[:n]:
        im = Image.open(bench / "charts" / f"{r['chart']}.png").convert("RGB")
        x0, y0, x1, y1 = r["bbox"]
        crop = im.crop((int(x0), int(y0), int(x1) + 1, int(y1) + 1))
        crop = crop.resize((crop.width * 3, crop.height * 3), Image.NEAREST)
        tile = Image.new("RGB", (max(crop.width, 360), crop.height + 30), "white")
        tile.paste(crop, (0, 0))
        ImageDraw.Draw(tile).text((2, crop.height + 2), f"{r['chart']} x={r['x_height_px']} blur={r['blur']} "
                                  f"q={r['jpeg']}\n{r['gold'][:60]}", fill="black")
        tiles.append(tile)
    if not tiles:
        return
    w = max(t.width for t in tiles)
    cols = 3
    rows_h = [max(t.height for t in tiles[i:i + cols]) for i in range(0, len(tiles), cols)]
    sheet = Image.new("RGB", (w * cols, sum(rows_h)), "#888888")
    y = 0
    for k, i in enumerate(range(0, len(tiles), cols)):
        for j, t in enumerate(tiles[i:i + cols]):
            sheet.paste(t, (j * w, y))
        y += rows_h[k]
    out.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(out)
    print(f"contact sheet: {out} ({len(tiles)} of {len(lost)} lost nodes)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench", type=Path)
    ap.add_argument("--limit", type=int, help="first N wild charts only")
    ap.add_argument("--max-blur-per-px", type=float, help="the set was made with this blur cap per px of font "
                    "size (data_gen.styles.WILD_MAX_BLUR_PER_TEXT_PX; sets made before it had none)")
    ap.add_argument("--out", type=Path, help="write the per-node records as JSON lines")
    ap.add_argument("--sheet", type=Path, help="write a contact sheet of the lost nodes' real crops")
    args = ap.parse_args()
    rows = audit(args.bench, args.limit, args.max_blur_per_px)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    summarise(rows)
    if args.sheet:
        contact_sheet(rows, args.bench, args.sheet)


if __name__ == "__main__":
    main()
