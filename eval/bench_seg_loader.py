"""Segmenter data-loader throughput alone (no model): samples/s of today's loader against the
per-step decoding it replaced.

    python eval/bench_seg_loader.py                        # synthetic 2x charts (no data needed)
    python eval/bench_seg_loader.py --data data/seg_train/coco.json --limit 64

``per-step`` is what every sample cost before (the loader of main up to issue 20): decode the
PNG, scale it, rasterise its instance map and run ``Mask2FormerImageProcessorPil`` on the
window. ``cached`` is `training.train_segmenter.CocoNodeDataset` with its ``collate``: charts decoded, scaled and
rasterised once when the dataset is built (that time is printed apart), samples made from the
arrays directly. Both run through a ``torch.utils.data.DataLoader`` with ``--workers`` worker
processes (default 2: the 2 cores of this machine) and one torch thread each.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


class PerStepDataset:
    """The loader before the cache: every sample decodes, scales, rasterises and runs the
    processor again (kept here only as the benchmark's baseline)."""

    def __init__(self, cached: Any, processor: Any) -> None:
        self.cached, self.processor = cached, processor

    def __len__(self) -> int:
        return len(self.cached)

    def __getitem__(self, idx: int) -> dict[str, Any]:
        import torch

        from training.train_segmenter import cache_chart, chart_scale

        ds = self.cached
        path, polys = ds.items[idx]
        cap = ds.max_side if ds.sampling == "whole" else None
        chart = cache_chart(path, polys, lambda h, w: chart_scale(h, w, ds.short_side, cap))
        img, inst = ds._window(chart, ds.rng) if ds.sampling == "crop" else (chart.image, chart.instances)
        n = int(inst[inst != 255].max()) if (inst != 255).any() else 0
        enc = self.processor(images=[img], segmentation_maps=[inst] if n else None,
                             instance_id_to_semantic_id=[{i: 0 for i in range(1, n + 1)}] if n else None,
                             ignore_index=255, do_resize=False, return_tensors="pt")
        masks = enc["mask_labels"][0].float() if n else torch.zeros((0, *enc["pixel_values"].shape[-2:]))
        classes = enc["class_labels"][0].long() if n else torch.zeros((0,), dtype=torch.long)
        return {"pixel_values": enc["pixel_values"][0], "pixel_mask": enc["pixel_mask"][0],
                "mask_labels": masks, "class_labels": classes}


def per_step_collate(batch: list[dict[str, Any]]) -> dict[str, Any]:
    """The baseline's collate: crops are all one size, so tensors stack."""
    import torch

    return {"pixel_values": torch.stack([b["pixel_values"] for b in batch]),
            "pixel_mask": torch.stack([b["pixel_mask"] for b in batch]),
            "mask_labels": [b["mask_labels"] for b in batch], "class_labels": [b["class_labels"] for b in batch]}


def synthetic_coco(root: Path, n: int) -> Path:
    """``n`` synthetic charts drawn at 2x (about 800 x 1600 px, like the generator's renders)."""
    import json

    from PIL import Image

    from tests.segment.synth import SHAPES, draw_chart

    (root / "charts").mkdir(parents=True, exist_ok=True)
    images: list[dict[str, Any]] = []
    anns: list[dict[str, Any]] = []
    for i in range(n):
        img, boxes = draw_chart(("default", "black_white", "single_color", "multi_color")[i % 4],
                                shapes=SHAPES, scale=2.0, columns=1 + i % 2)
        name = f"charts/c{i:03d}.png"
        Image.fromarray(img).save(root / name)
        images.append({"id": i + 1, "file_name": name, "width": img.shape[1], "height": img.shape[0]})
        for x0, y0, x1, y1 in boxes:
            anns.append({"id": len(anns) + 1, "image_id": i + 1, "category_id": 1,
                         "bbox": [x0, y0, x1 - x0, y1 - y0], "area": (x1 - x0) * (y1 - y0), "iscrowd": 0})
    path = root / "coco.json"
    path.write_text(json.dumps({"images": images, "annotations": anns, "categories": [{"id": 1, "name": "node"}]}))
    return path


def throughput(dataset: Any, collate: Any, samples: int, workers: int, batch_size: int) -> float:
    """Samples per second drawn through a DataLoader (after one warm-up batch)."""
    import torch

    loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=workers,
                                         collate_fn=collate, persistent_workers=workers > 0,
                                         generator=torch.Generator().manual_seed(0))
    it = iter(loader)
    next(it)
    done, t0 = 0, time.perf_counter()
    while done < samples:
        try:
            batch = next(it)
        except StopIteration:
            it = iter(loader)
            continue
        done += batch["pixel_values"].shape[0]
    return done / (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=None, help="COCO json (default: synthetic charts)")
    p.add_argument("--charts", type=int, default=24, help="synthetic charts to draw")
    p.add_argument("--samples", type=int, default=96, help="samples timed per loader")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--sampling", choices=("crop", "whole"), default="crop",
                   help="crop: compared with the per-step loader (which only cut crops); whole: cached only")
    p.add_argument("--short-side", type=int, default=384)
    p.add_argument("--max-side", type=int, default=1536)
    args = p.parse_args(argv)
    import torch
    from transformers.models.mask2former.image_processing_pil_mask2former import (
        Mask2FormerImageProcessorPil,
    )

    from training.train_segmenter import CocoNodeDataset, collate

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        coco = args.data or synthetic_coco(Path(tmp), args.charts)
        t0, c0 = time.perf_counter(), time.process_time()
        cached = CocoNodeDataset([str(coco)], args.short_side, sampling=args.sampling, max_side=args.max_side)
        build_s, build_cpu = time.perf_counter() - t0, time.process_time() - c0
        processor = Mask2FormerImageProcessorPil(do_resize=False, ignore_index=255, size_divisor=32,
                                                 do_reduce_labels=False)
        after = throughput(cached, collate, args.samples, args.workers, args.batch_size)
        before = throughput(PerStepDataset(cached, processor), per_step_collate, args.samples, args.workers,
                            args.batch_size) if args.sampling == "crop" else None
    print(f"charts: {len(cached)} ({'synthetic 2x' if args.data is None else args.data}), sampling {args.sampling}, "
          f"short side {args.short_side}, {args.workers} workers, batch {args.batch_size}")
    print(f"cache build: {build_s:.1f} s wall, {build_cpu:.1f} CPU s (once per run)")
    if before is not None:
        print(f"per-step decode + processor: {before:.1f} samples/s")
    print(f"cached arrays:               {after:.1f} samples/s" + (f"  ({after / before:.1f}x)" if before else ""))
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
