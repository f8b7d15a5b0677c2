"""Segmentation gold: chart images with their node regions, from a benchmark-layout folder or a
COCO instances json (what ``flowpath eval segment`` and the segmenter trainer read).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flowpath.datasets.febench import Benchmark
from flowpath.geometry import Region

__all__ = ["GoldImage", "load_gold"]


@dataclass
class GoldImage:
    """One evaluation image: where it is, its gold regions, its style family and (generated
    charts) the renderer that drew it."""

    id: str
    path: Path
    regions: list[Region]
    family: str = "default"
    renderer: str | None = None


def load_gold(source: str | Path) -> tuple[str, list[GoldImage]]:
    """Gold images of a benchmark-layout folder or a COCO instances json.

    COCO: ``images[].file_name`` is resolved against the json's folder (then ``images/`` and
    ``../images/`` under it); ``annotations[].segmentation`` polygons become region polygons; an
    optional ``images[].style_family`` (or ``style.family``) gives the family, an optional
    ``images[].renderer`` the engine that drew it.

    Raises:
        ValueError: ``source`` is neither.
    """
    src = Path(source)
    if src.is_dir():
        bench = Benchmark(src)
        return str(src), [GoldImage(c.id, c.image_path, list(c.regions.values()), c.style_family,
                                    c.renderer) for c in bench.charts()]
    if src.suffix == ".json" and src.is_file():
        try:
            data = json.loads(src.read_text(encoding="utf-8"))
            images, anns = data["images"], data["annotations"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ValueError(f"{src}: not a COCO instances json ({exc})") from None
        by_image: dict[Any, list[Region]] = defaultdict(list)
        for a in anns:
            x, y, w, h = a["bbox"]
            seg = a.get("segmentation")
            poly = None
            if isinstance(seg, list) and seg and len(seg[0]) >= 6:
                flat = seg[0]
                poly = [(flat[i], flat[i + 1]) for i in range(0, len(flat) - 1, 2)]
            by_image[a["image_id"]].append(Region((x, y, x + w, y + h), polygon=poly or []))
        out = []
        for im in images:
            path = _resolve_image(src.parent, im["file_name"])
            fam = im.get("style_family") or (im.get("style") or {}).get("family") or "default"
            out.append(GoldImage(str(im.get("id")), path, by_image.get(im["id"], []), fam,
                                 im.get("renderer")))
        return str(src), out
    raise ValueError(f"{src}: expected a benchmark-layout folder or a COCO instances .json")


def _resolve_image(root: Path, name: str) -> Path:
    for base in (root, root / "images", root.parent / "images"):
        if (base / name).exists():
            return base / name
    return root / name
