"""Mask2Former segmenter with a tiny random-init model: a real training step through
training/train_segmenter.py (real loss, Trainer), save_pretrained -> load round
trip, and inference with the real post-processing and tiling."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.markers import REPO_ROOT, require_transformers

pytestmark = require_transformers


def _tiny_config(tmp_path, coco, **extra) -> str:
    import yaml

    cfg = {"train_data": [str(coco)], "output_dir": str(tmp_path / "run"), "init": "scratch",
           "embed_dim": 16, "depths": [1, 1, 1, 1], "num_heads": [1, 1, 2, 2], "hidden_dim": 32,
           "encoder_layers": 1, "decoder_layers": 2, "num_queries": 10, "short_side": 64,
           "max_steps": 2, "learning_rate": 1e-3, "per_device_train_batch_size": 2,
           "gradient_accumulation_steps": 1, "sampling": "crop",
           "save_steps": 1000, "logging_steps": 1, "threads": 1, **extra}
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return str(path)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """Two real optimisation steps of a tiny model on synthetic charts, then save + evaluate."""
    import sys

    sys.path.insert(0, str(REPO_ROOT))
    from tests.segment.synth import write_bench, write_coco
    from training import train_segmenter

    tmp = tmp_path_factory.mktemp("m2f")
    coco = write_coco(tmp / "data", n=3)
    bench = write_bench(tmp / "bench", styles=("default",))
    cfg_path = _tiny_config(tmp, coco, eval_data=str(bench), score_threshold=0.0)
    assert train_segmenter.main(["--config", cfg_path]) == 0
    return tmp / "run" / "final", coco


def test_training_writes_a_loadable_checkpoint_with_config_and_metrics(trained):
    final, _ = trained
    assert (final / "model.safetensors").is_file()
    assert not list(final.glob("*.bin")) and not list(final.glob("*.pt"))  # no pickle
    assert (final / "config.json").is_file() and (final / "preprocessor_config.json").is_file()
    assert (final / "train_config.yaml").is_file()
    metrics = json.loads((final / "eval_metrics.json").read_text())
    assert metrics["segmenter"] == "mask2former"
    assert {"recall@0.7", "precision@0.7", "AP"} <= set(metrics["summary"]["overall"])


@pytest.mark.parametrize("sampling", ["whole", "crop"])
def test_real_loss_is_finite_and_trainable(trained, sampling):
    """One more step by hand: the dataset's masks/classes, padded by collate, give a finite loss
    with gradients, for whole charts (sizes differ within a batch) and for crops."""
    import torch
    from transformers import Mask2FormerForUniversalSegmentation

    from training.train_segmenter import CocoNodeDataset, collate

    final, coco = trained
    model = Mask2FormerForUniversalSegmentation.from_pretrained(str(final))
    data = CocoNodeDataset([str(coco)], short_side=64, sampling=sampling, max_side=256, seed=1)
    batch = collate([data[0], data[1]])
    assert all(m.shape[-2:] == batch["pixel_values"].shape[-2:] for m in batch["mask_labels"])
    assert batch["pixel_values"].shape[-1] % 32 == 0 and batch["pixel_values"].shape[-2] % 32 == 0
    assert sum(len(c) for c in batch["class_labels"]) > 0
    model.train()
    out = model(**batch)
    assert torch.isfinite(out.loss)
    out.loss.backward()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    assert grads and all(torch.isfinite(g).all() for g in grads)


def test_save_load_round_trip_gives_identical_outputs(trained, tmp_path):
    import torch
    from transformers import Mask2FormerForUniversalSegmentation

    final, _ = trained
    a = Mask2FormerForUniversalSegmentation.from_pretrained(str(final)).eval()
    a.save_pretrained(str(tmp_path / "again"))
    b = Mask2FormerForUniversalSegmentation.from_pretrained(str(tmp_path / "again")).eval()
    x = torch.rand(1, 3, 64, 128)
    with torch.no_grad():
        oa, ob = a(pixel_values=x), b(pixel_values=x)
    assert torch.allclose(oa.class_queries_logits, ob.class_queries_logits, atol=1e-6)
    assert torch.allclose(oa.masks_queries_logits, ob.masks_queries_logits, atol=1e-6)


@pytest.mark.parametrize("shape", [(300, 200), (900, 150), (120, 700)])
def test_inference_maps_regions_back_to_original_pixels(trained, shape):
    from flowpath.geometry import Region
    from flowpath.segment import Mask2FormerSegmenter
    from flowpath.segment.postprocess import decode_rle

    final, _ = trained
    seg = Mask2FormerSegmenter(final, device="cpu", score_threshold=0.0)
    assert seg.short_side == 64  # read from the checkpoint's flowpath_segmenter.json
    h, w = shape
    img = np.full((h, w, 4), 255, np.uint8)  # RGBA is accepted
    img[h // 4:h // 2, w // 4:3 * w // 4, :3] = 80
    (regions,) = seg([img])
    if max(h, w) <= 2 * min(h, w):  # one window: nothing is cut, so every query survives
        assert regions, "score_threshold=0 keeps every query that survives post-processing"
    for r in regions:
        assert isinstance(r, Region)
        x0, y0, x1, y1 = r.bbox
        assert 0 <= x0 <= x1 <= w and 0 <= y0 <= y1 <= h
        assert decode_rle(r.mask).shape == (h, w)


def test_missing_or_pickle_only_checkpoint_is_a_clear_error(tmp_path):
    from flowpath.segment import Mask2FormerSegmenter

    with pytest.raises(ValueError, match="config.json"):
        Mask2FormerSegmenter(tmp_path)
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "pytorch_model.bin").write_bytes(b"not loaded")
    with pytest.raises(ValueError, match="safetensors"):
        Mask2FormerSegmenter(tmp_path)


def test_bad_training_config_fails_before_loading_anything(tmp_path):
    from training import train_segmenter

    bad = tmp_path / "bad.yaml"
    bad.write_text("train_data: [missing.json]\nshort_side: 100\n")
    assert train_segmenter.main(["--config", str(bad)]) == 2
    bad.write_text("nonsense_key: 1\n")
    assert train_segmenter.main(["--config", str(bad)]) == 2


def test_model_card_records_command_data_and_every_evaluation(trained, tmp_path):
    """The card is rebuilt from what lies beside the weights; a second evaluation set run with
    --eval-only --eval-name gets its own metrics file and its own section."""
    import shutil

    from tests.segment.synth import write_bench
    from training import train_segmenter

    final, _ = trained
    card = (final / "README.md").read_text()
    record = json.loads((final / "train_record.json").read_text())
    assert record["steps"] == 2 and record["train_data"][0]["images"] == 3
    assert "train_segmenter" in record["command"] and record["command"] in card
    assert "## Evaluation: training evaluation set" in card

    model = tmp_path / "model"
    shutil.copytree(final, model)
    second = write_bench(tmp_path / "second", styles=("black_white",))
    cfg = tmp_path / "eval.yaml"
    cfg.write_text((final / "train_config.yaml").read_text())
    rc = train_segmenter.main(["--config", str(cfg), "--eval-only", str(model), "--eval-name", "second",
                               "--eval_data", str(second), "--score_threshold", "0.0"])
    assert rc == 0
    metrics = json.loads((model / "eval_metrics_second.json").read_text())
    assert metrics["dataset"] and metrics["summary"]["overall"]["images"] >= 1
    card2 = (model / "README.md").read_text()
    assert "## Evaluation: second" in card2 and "## Evaluation: training evaluation set" in card2


def test_resnet_backbone_trains_saves_and_segments(tmp_path):
    """The convolutional backbone option goes through the same Trainer, save and inference path."""
    from flowpath.segment import Mask2FormerSegmenter
    from tests.segment.synth import write_coco
    from training import train_segmenter

    coco = write_coco(tmp_path / "data", n=2)
    cfg = _tiny_config(tmp_path, coco, backbone="resnet", max_steps=1)
    assert train_segmenter.main(["--config", cfg]) == 0
    final = tmp_path / "run" / "final"
    conf = json.loads((final / "config.json").read_text())
    assert conf["backbone_config"]["model_type"] == "resnet"
    seg = Mask2FormerSegmenter(final, score_threshold=0.0)
    regions = seg([np.full((90, 200, 3), 255, np.uint8)])[0]
    assert all(0 <= r.bbox[0] <= r.bbox[2] <= 200 and 0 <= r.bbox[1] <= r.bbox[3] <= 90 for r in regions)

    # a second run continuing this one keeps its parent's record and shows both in the card
    cont = _tiny_config(tmp_path, coco, max_steps=1, init=str(final), output_dir=str(tmp_path / "cont"))
    assert train_segmenter.main(["--config", cont]) == 0
    child = tmp_path / "cont" / "final"
    parent = json.loads((final / "train_record.json").read_text())
    record = json.loads((child / "train_record.json").read_text())
    assert record["init_record"] == parent and "init_record" not in parent
    card = (child / "README.md").read_text()
    assert "## Training" in card and "### Initialised from an earlier run" in card

    bad = tmp_path / "bad.yaml"
    bad.write_text(f"train_data: [{coco}]\nbackbone: vgg\n")
    assert train_segmenter.main(["--config", str(bad)]) == 2


def test_threshold_sweep_prints_every_threshold_and_stores_the_best(trained, tmp_path, capsys):
    """eval/sweep_seg_threshold.py: one model pass, a row per threshold, --write puts the best
    one into the copy's flowpath_segmenter.json, which the segmenter then loads by default."""
    import importlib.util
    import shutil

    from flowpath.segment import Mask2FormerSegmenter
    from tests.segment.synth import write_bench

    spec = importlib.util.spec_from_file_location("sweep", REPO_ROOT / "eval" / "sweep_seg_threshold.py")
    sweep = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sweep)
    final, _ = trained
    model = tmp_path / "model"
    shutil.copytree(final, model)
    bench = write_bench(tmp_path / "bench", styles=("default",))
    assert sweep.main(["--model-dir", str(model), "--data", str(bench), "--thresholds", "0.01,0.5,0.99",
                       "--write"]) == 0
    out = capsys.readouterr().out
    for t in ("0.01", "0.50", "0.99"):
        assert f"| {t} |" in out
    settings = json.loads((model / "flowpath_segmenter.json").read_text())
    assert settings["score_threshold"] in (0.01, 0.5, 0.99)
    assert settings["score_threshold_chosen_on"]["images"] >= 1
    assert Mask2FormerSegmenter(model).score_threshold == settings["score_threshold"]
    with pytest.raises(SystemExit):  # thresholds outside (0, 1) are refused before any work
        sweep.main(["--model-dir", str(model), "--data", str(bench), "--thresholds", "0,2"])
