"""The segmenter's training data: charts cached once at the training scale, whole-chart and
crop sampling, per-process/per-worker random streams, and a collate that gives what the
Mask2Former image processor gives."""

from __future__ import annotations

import numpy as np
import pytest

from tests.markers import require_transformers

pytestmark = require_transformers


@pytest.fixture(scope="module")
def coco(tmp_path_factory):
    from tests.segment.synth import write_coco

    return write_coco(tmp_path_factory.mktemp("seg_data"), n=3)


def test_collate_gives_what_the_image_processor_gives(coco):
    import torch
    from transformers.models.mask2former.image_processing_pil_mask2former import (
        Mask2FormerImageProcessorPil,
    )

    from training.train_segmenter import CocoNodeDataset, collate

    ds = CocoNodeDataset([str(coco)], 96, sampling="whole", max_side=200)
    processor = Mask2FormerImageProcessorPil(do_resize=False, ignore_index=255, size_divisor=32,
                                             do_reduce_labels=False)
    samples = [ds[0], ds[1]]
    ours = collate(samples)
    ref = processor(images=[s["image"] for s in samples], segmentation_maps=[s["instances"] for s in samples],
                    instance_id_to_semantic_id=[{i: 0 for i in range(1, s["n"] + 1)} for s in samples],
                    ignore_index=255, do_resize=False, return_tensors="pt")
    # the processor pads to the largest sample; collate also rounds up to a multiple of 32
    h, w = ref["pixel_values"].shape[-2:]
    H, W = ours["pixel_values"].shape[-2:]
    assert H % 32 == 0 and W % 32 == 0 and H - h < 32 and W - w < 32
    assert torch.allclose(ours["pixel_values"][..., :h, :w], ref["pixel_values"], atol=1e-5)
    assert torch.equal(ours["pixel_mask"][..., :h, :w], ref["pixel_mask"].long())
    assert not ours["pixel_mask"][..., h:, :].any() and not ours["pixel_mask"][..., :, w:].any()
    assert not ours["pixel_values"][..., h:, :].any() and not ours["pixel_values"][..., :, w:].any()
    for mine, theirs, s in zip(ours["mask_labels"], ref["mask_labels"], samples, strict=True):
        assert mine.shape[0] == s["n"] > 0
        sh, sw = s["instances"].shape  # the processor fills mask padding with 255; collate with 0
        assert torch.equal(mine[..., :sh, :sw], theirs[..., :sh, :sw].float())
        assert mine.sum() == mine[..., :sh, :sw].sum()
    assert all(torch.equal(a, b.long()) for a, b in zip(ours["class_labels"], ref["class_labels"], strict=True))


def test_whole_chart_sampling_keeps_every_node_at_the_inference_scale(coco):
    import json

    from flowpath.segment.mask2former import plan_tiles
    from training.train_segmenter import CocoNodeDataset

    ds = CocoNodeDataset([str(coco)], 64, sampling="whole", max_side=10_000)
    meta = json.loads(coco.read_text())
    for k, im in enumerate(meta["images"]):
        nodes = sum(a["image_id"] == im["id"] for a in meta["annotations"])
        img, inst, n = ds.sample(k)
        _, sh, sw, _ = plan_tiles(im["height"], im["width"], 64)
        assert img.shape[:2] == inst.shape == (sh, sw)
        assert n == nodes and set(np.unique(inst)) == set(range(1, nodes + 1)) | {255}
    capped = CocoNodeDataset([str(coco)], 64, sampling="whole", max_side=100)
    assert all(max(c.image.shape[:2]) <= 100 for c in capped.charts)


def test_each_process_and_worker_draws_its_own_windows(coco, monkeypatch):
    """Crop windows come from a stream seeded by (seed, rank, worker): two processes do not cut
    the same windows, and the same process cuts the same ones again in a new run."""
    from training.train_segmenter import CocoNodeDataset

    def windows(rank):
        monkeypatch.setenv("RANK", str(rank))
        ds = CocoNodeDataset([str(coco)], 64, sampling="crop", seed=3)
        return [ds.sample(0)[1].tobytes() for _ in range(6)]

    assert windows(0) != windows(1)
    assert windows(0) == windows(0)


def test_charts_are_decoded_once(coco, monkeypatch):
    import flowpath.io
    from training.train_segmenter import CocoNodeDataset

    ds = CocoNodeDataset([str(coco)], 64, sampling="crop")
    calls = []
    monkeypatch.setattr(flowpath.io, "load_image", lambda *a, **k: calls.append(a))
    for _ in range(2):
        for i in range(len(ds)):
            ds[i]
    assert calls == []
