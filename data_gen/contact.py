"""Contact sheet: a grid PNG with a few charts of each style family (and labelled SFT images)
to eyeball a generated set: text inside boxes, arrows meeting shapes, colours as intended."""

from __future__ import annotations

import json
from pathlib import Path

from data_gen.styles import FAMILIES


def contact_sheet(out: Path, dest: Path, *, per_row: int = 4, tile: tuple[int, int] = (420, 560),
                  regions: bool = False) -> Path:
    """Write a contact sheet of set ``out`` to ``dest``.

    Rows: one per style family present (up to ``per_row`` charts each), then a row of SFT
    labelled images if the set has them. Each tile shows the top of the chart at readable size.

    Args:
        out: a generated set folder (``charts/*.json`` + ``.png``).
        dest: PNG path to write.
        regions: outline every node polygon in red (to check the regions, not the look).

    Returns:
        ``dest``.
    """
    from PIL import Image, ImageDraw

    out, dest = Path(out), Path(dest)
    by_family: dict[str, list[Path]] = {f: [] for f in FAMILIES}
    sft: list[Path] = []
    for f in sorted((out / "charts").glob("*.json")):
        d = json.loads(f.read_text(encoding="utf-8"))
        fam = (d.get("style") or {}).get("family", "default")
        if len(by_family.setdefault(fam, [])) < per_row:
            by_family[fam].append(f)
        if d.get("sft") and len(sft) < per_row:
            sft.append(out / d["sft"]["image"])
    rows = [(fam, [(p.with_suffix(".png"), p) for p in ps]) for fam, ps in by_family.items() if ps]
    if sft:
        rows.append(("sft labelled", [(p, None) for p in sft]))
    if not rows:
        raise ValueError(f"no charts in {out / 'charts'}")
    tw, th = tile
    head = 22
    sheet = Image.new("RGB", (per_row * tw, len(rows) * (th + head)), "white")
    draw = ImageDraw.Draw(sheet)
    for r, (name, items) in enumerate(rows):
        y0 = r * (th + head)
        draw.text((6, y0 + 4), name, fill=(0, 0, 0))
        for c, (png, js) in enumerate(items):
            im = Image.open(png).convert("RGB")
            if regions and js is not None:
                dd = ImageDraw.Draw(im)
                for n in json.loads(js.read_text(encoding="utf-8"))["nodes"].values():
                    dd.polygon([tuple(p) for p in n["polygon"]], outline=(255, 0, 0))
            # keep text readable: scale to the tile width, then show the top part
            s = min(1.0, tw / im.width)
            im = im.resize((max(1, round(im.width * s)), max(1, round(im.height * s))), Image.LANCZOS)
            im = im.crop((0, 0, min(im.width, tw), min(im.height, th)))
            sheet.paste(im, (c * tw, y0 + head))
            draw.rectangle([c * tw, y0 + head, c * tw + tw - 1, y0 + head + th - 1], outline=(200, 200, 200))
    dest.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(dest)
    return dest
