"""Derived outputs built from the per-chart benchmark-layout files.

COCO instances (``coco.json``)::

    {"info", "images": [{"id", "file_name": "charts/<id>.png", "width", "height", "chart_id",
                          "style_family", "domain"}],
     "annotations": [{"id", "image_id", "category_id": 1, "segmentation": [[x0, y0, x1, y1, ...]],
                      "bbox": [x, y, w, h], "area", "iscrowd": 0, "node_id"}],
     "categories": [{"id": 1, "name": "node", "supercategory": "flowchart"}]}

(COCO boxes are xywh; ``area`` is the polygon area.) Loads in ``pycocotools.coco.COCO``.

Flow2Mermaid SFT (``sft.jsonl``), the chat-messages format of transformers/TRL vision SFT::

    {"id", "images": ["sft/<id>.png"],
     "messages": [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": PROMPT}]},
                  {"role": "assistant", "content": [{"type": "text", "text": MERMAID}]}],
     "letters": {source node id: letter}, "style_family", "domain"}

The image is the chart with red letters drawn by `flowpath.labeller.draw_labels` (the same
function the pipeline uses at inference), and MERMAID's node ids are those letters.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from data_gen.geometry import shoelace
from flowpath.io import atomic_write_text


def write_coco(out: Path, files: list[Path]) -> dict[str, int]:
    images, anns = [], []
    aid = 0
    for iid, f in enumerate(files, 1):
        d = json.loads(f.read_text(encoding="utf-8"))
        images.append({"id": iid, "file_name": f"charts/{f.stem}.png", "width": d["width"],
                       "height": d["height"], "chart_id": f.stem,
                       "style_family": (d.get("style") or {}).get("family", "default"),
                       "domain": d.get("domain")})
        for nid, n in d["nodes"].items():
            poly = n["polygon"]
            x0, y0, x1, y1 = n["bbox"]
            if len(poly) < 3 or x1 - x0 < 1 or y1 - y0 < 1:
                continue
            aid += 1
            anns.append({"id": aid, "image_id": iid, "category_id": 1,
                         "segmentation": [[round(c, 2) for p in poly for c in p]],
                         "bbox": [round(x0, 2), round(y0, 2), round(x1 - x0, 2), round(y1 - y0, 2)],
                         "area": round(abs(shoelace(poly)), 2), "iscrowd": 0, "node_id": nid})
    coco = {"info": {"description": "flowpath synthetic flowcharts (data_gen)", "version": "1"},
            "licenses": [], "images": images, "annotations": anns,
            "categories": [{"id": 1, "name": "node", "supercategory": "flowchart"}]}
    atomic_write_text(out / "coco.json", json.dumps(coco))
    return {"images": len(images), "annotations": len(anns)}


def write_sft(out: Path, files: list[Path], prompt: str) -> dict[str, int]:
    lines = []
    for f in files:
        d = json.loads(f.read_text(encoding="utf-8"))
        s = d.get("sft")
        if not s:
            continue
        rec: dict[str, Any] = {
            "id": f.stem, "images": [s["image"]],
            "messages": [
                {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": prompt}]},
                {"role": "assistant", "content": [{"type": "text", "text": s["target"]}]},
            ],
            "letters": s["letters"], "style_family": (d.get("style") or {}).get("family"),
            "domain": d.get("domain"),
        }
        lines.append(json.dumps(rec))
    atomic_write_text(out / "sft.jsonl", "\n".join(lines) + ("\n" if lines else ""))
    return {"records": len(lines)}
