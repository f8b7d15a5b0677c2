"""Train a Mask2Former node segmenter on the generator's COCO sets.

    python training/train_segmenter.py --config configs/segmenter_cpu.yaml
    accelerate launch training/train_segmenter.py --config configs/segmenter_paper.yaml
    accelerate launch training/train_segmenter.py --config configs/segmenter_paper.yaml --resume

Built on the transformers ``Trainer`` (so ``accelerate launch`` spreads it over GPUs unchanged;
``--resume`` restores model, optimizer, scheduler, RNG and data position from the newest
``checkpoint-N``). Every chart is decoded, scaled and rasterised into an instance map once, when
the dataset is built (`ChartCache`); a training sample is then a slice of those arrays turned
into tensors, with no image decoding or processor call per step. Two ways to sample a chart
(``sampling``):

* ``whole`` (the paper): the whole chart, scaled so its shorter side is ``short_side`` px (the
  inference scale of `flowpath.segment.mask2former.plan_tiles`, never upscaled) and its longer
  side at most ``max_side`` px; batches are padded to their largest chart (``pixel_mask`` marks
  the padding).
* ``crop``: one random ``short_side`` square window of the chart at the inference scale per
  sample (nodes cut by the window are left out of the targets): cheaper steps on a CPU.

Every node instance becomes one mask of the single class ``node``.

The run writes ``OUTPUT_DIR/final/``: ``model.safetensors``, ``config.json``,
``preprocessor_config.json``, ``flowpath_segmenter.json`` (inference settings),
``train_config.yaml`` (the resolved config) and ``eval_metrics.json`` (the segmentation
metrics of `flowpath.evaluation.segmentation` on the evaluation set).
"""

from __future__ import annotations

import json
import logging
import os
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `python training/x.py` from anywhere

from flowpath.segment.mask2former import INFERENCE_FILE  # noqa: E402
from training.config import CommonTrainingArguments, ConfigError, ConfigParser, save_config  # noqa: E402
from training.run import checkpoint_callback, prepare_run, write_log  # noqa: E402

logger = logging.getLogger("train_segmenter")

#: instance-map value of background and padding
IGNORE = 255
#: ImageNet statistics, the normalisation of ``Mask2FormerImageProcessorPil``
IMAGE_MEAN = np.array([0.485, 0.456, 0.406], np.float32)
IMAGE_STD = np.array([0.229, 0.224, 0.225], np.float32)


@dataclass(kw_only=True)
class SegTrainConfig(CommonTrainingArguments):
    """One segmenter experiment (``configs/segmenter_*.yaml``); shared knobs in the base."""

    train_data: list[str] = field(default_factory=list)  # COCO jsons (file_name relative to the json)
    eval_data: str | None = None  # benchmark-layout folder or COCO json, scored after training
    eval_limit: int | None = None
    output_dir: str = "runs/segmenter"
    # model: a local/hub checkpoint to fine-tune, or "scratch" for a small random-init model
    init: str = "scratch"
    allow_download: bool = False  # fetch `init` from the Hugging Face hub if not cached
    # scratch backbone: "swin" (the paper's family) or "resnet" (basic blocks; a convolutional
    # stem learns edges and corners from scratch in far fewer CPU steps than patch attention)
    backbone: str = "swin"
    embed_dim: int = 32  # Swin embedding width; ResNet stem width (stages: 1x, 2x, 4x, 8x)
    depths: list[int] = field(default_factory=lambda: [1, 1, 2, 1])
    num_heads: list[int] = field(default_factory=lambda: [1, 2, 4, 8])
    hidden_dim: int = 64
    encoder_layers: int = 2
    decoder_layers: int = 3
    num_queries: int = 50
    # data
    sampling: str = "whole"  # "whole" chart (the paper) or one random "crop" window per sample
    short_side: int = 384  # shorter side after scaling (the inference scale), px
    max_side: int = 1536  # whole charts: longer side cap after scaling, px
    hflip: bool = False  # flowcharts read top-down/left-right: no flips by default
    # the paper's optimisation defaults
    num_train_epochs: float = 20.0
    learning_rate: float = 1e-5
    lr_scheduler_type: str = "cosine"
    weight_decay: float = 0.05
    per_device_train_batch_size: int = 4
    gradient_accumulation_steps: int = 4
    save_steps: int = 200
    threads: int | None = None  # torch threads on CPU
    score_threshold: float = 0.5

    def validate(self) -> None:
        """Fail fast, before any model or data is loaded.

        Raises:
            ConfigError: a missing file, a value out of range.
        """
        self.check_common()
        if not self.train_data:
            raise ConfigError("train_data: give at least one COCO json")
        for p in self.train_data:
            if not Path(p).is_file():
                raise ConfigError(f"train_data: {p} does not exist")
        if self.eval_data is not None and not Path(self.eval_data).exists():
            raise ConfigError(f"eval_data: {self.eval_data} does not exist")
        if self.short_side < 64 or self.short_side % 32:
            raise ConfigError(f"short_side must be a multiple of 32 and >= 64, got {self.short_side}")
        if self.max_side < self.short_side:
            raise ConfigError(f"max_side {self.max_side} < short_side {self.short_side}")
        if self.sampling not in ("whole", "crop"):
            raise ConfigError(f"sampling must be 'whole' or 'crop', got {self.sampling!r}")
        if self.backbone not in ("swin", "resnet"):
            raise ConfigError(f"backbone must be 'swin' or 'resnet', got {self.backbone!r}")
        if self.init != "scratch" and not Path(self.init).exists() and "/" not in self.init:
            raise ConfigError(f"init: {self.init!r} is neither 'scratch', a local path nor a hub id")


# --- data ---------------------------------------------------------------------------------------
def read_coco_nodes(coco_paths: list[str]) -> list[tuple[Path, list[list[float]]]]:
    """``(image path, node polygons)`` of every image of the COCO jsons that exists on disk."""
    items: list[tuple[Path, list[list[float]]]] = []
    for cp in map(Path, coco_paths):
        data = json.loads(cp.read_text(encoding="utf-8"))
        polys: dict[Any, list[list[float]]] = {im["id"]: [] for im in data["images"]}
        for a in data["annotations"]:
            seg = a.get("segmentation")
            if isinstance(seg, list) and seg and len(seg[0]) >= 6:
                polys[a["image_id"]].append(seg[0])
            else:  # no polygon: the box
                x, y, w, h = a["bbox"]
                polys[a["image_id"]].append([x, y, x + w, y, x + w, y + h, x, y + h])
        for im in data["images"]:
            path = cp.parent / im["file_name"]
            if not path.exists():
                logger.warning("%s: image %s missing, skipped", cp, path)
                continue
            items.append((path, polys[im["id"]]))
    if not items:
        raise ConfigError(f"no usable images in {coco_paths}")
    return items


def chart_scale(height: int, width: int, short_side: int, max_side: int | None) -> float:
    """The training scale of a chart: shorter side ``short_side`` (never upscaled), as at
    inference; with ``max_side`` the longer side is capped too (whole-chart sampling)."""
    from flowpath.segment.mask2former import plan_tiles

    scale = plan_tiles(height, width, short_side)[0]
    if max_side is not None:
        scale = min(scale, max_side / max(height, width))
    return scale


@dataclass
class CachedChart:
    """One chart at its training scale: the image, its instance map (ids 1..n without gaps,
    `IGNORE` elsewhere; larger nodes drawn first so a small node over a big one keeps its
    pixels) and each instance's pixel count (index = id)."""

    image: np.ndarray
    instances: np.ndarray
    areas: np.ndarray


def cache_chart(path: Path, polys: list[list[float]], scale_of: Any) -> CachedChart:
    """Decode, scale and rasterise one chart (``scale_of(height, width) -> scale``)."""
    import cv2

    from flowpath.io import load_image

    img = load_image(path)
    H, W = img.shape[:2]
    scale = scale_of(H, W)
    sh, sw = max(1, round(H * scale)), max(1, round(W * scale))
    work = cv2.resize(img, (sw, sh), interpolation=cv2.INTER_AREA) if scale < 1 else img
    inst = np.full((sh, sw), IGNORE, np.uint8)
    order = sorted(range(len(polys)), key=lambda k: -_poly_area(polys[k]))
    for n, k in enumerate(order[:IGNORE - 1], start=1):
        pts = np.round(np.asarray(polys[k], dtype=float).reshape(-1, 2) * scale).astype(np.int32)
        cv2.fillPoly(inst, [pts], n)
    areas = np.bincount(inst.ravel(), minlength=256)
    present = np.flatnonzero(areas[:IGNORE])  # a node drawn over entirely is not a target
    if len(present) and present[-1] != len(present):
        remap = np.full(256, IGNORE, np.uint8)
        remap[present] = np.arange(1, len(present) + 1)
        inst = remap[inst]
        areas = np.bincount(inst.ravel(), minlength=256)
    return CachedChart(np.ascontiguousarray(work), inst, areas)


class CocoNodeDataset:
    """Node instances of one or more COCO jsons, served as model-ready training samples.

    Every chart is decoded and scaled once, here (memory: about 4 bytes per pixel at the
    training scale); workers forked by the data loader share these arrays. Random choices (crop
    window, flip) come from a generator seeded by (``seed``, process rank, worker id), so no two
    workers or processes draw the same windows.
    """

    def __init__(self, coco_paths: list[str], short_side: int, *, sampling: str = "whole",
                 max_side: int | None = None, seed: int = 0, hflip: bool = False) -> None:
        self.items = read_coco_nodes(coco_paths)
        self.short_side, self.sampling, self.seed, self.hflip = short_side, sampling, seed, hflip
        self.max_side = max_side
        cap = max_side if sampling == "whole" else None
        self.charts = [cache_chart(p, polys, lambda h, w: chart_scale(h, w, short_side, cap))
                       for p, polys in self.items]
        self._rng: random.Random | None = None
        self._rng_owner: tuple[int, int] | None = None

    def __len__(self) -> int:
        return len(self.charts)

    @property
    def rng(self) -> random.Random:
        """This process's and this data-loader worker's own generator."""
        import torch

        worker = torch.utils.data.get_worker_info()
        owner = (int(os.environ.get("RANK", "0")), worker.id if worker is not None else -1)
        if self._rng is None or owner != self._rng_owner:
            self._rng, self._rng_owner = random.Random(f"{self.seed}/{owner[0]}/{owner[1]}"), owner
        return self._rng

    def sample(self, idx: int, rng: random.Random | None = None) -> tuple[np.ndarray, np.ndarray, int]:
        """A training sample: ``(image (h, w, 3) uint8, instance map (h, w), n_instances)``,
        instance ids 1..n, `IGNORE` = background/padding."""
        rng = rng or self.rng
        chart = self.charts[idx]
        if self.sampling == "crop":
            img, inst = self._window(chart, rng)
            n = int(np.count_nonzero(np.bincount(inst.ravel(), minlength=256)[:IGNORE]))
        else:
            img, inst, n = chart.image, chart.instances, int(np.count_nonzero(chart.areas[:IGNORE]))
        if self.hflip and rng.random() < 0.5:
            img, inst = img[:, ::-1], inst[:, ::-1]
        return img, inst, n

    def _window(self, chart: CachedChart, rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
        """A random ``short_side`` square of the chart, padded white; instances cut by it dropped."""
        S = self.short_side
        sh, sw = chart.instances.shape
        y0, x0 = rng.randint(0, max(0, sh - S)), rng.randint(0, max(0, sw - S))
        crop, icrop = chart.image[y0:y0 + S, x0:x0 + S], chart.instances[y0:y0 + S, x0:x0 + S]
        inside = np.bincount(icrop.ravel(), minlength=256)
        keep = [v for v in np.flatnonzero(inside[:IGNORE]) if inside[v] >= 0.9 * chart.areas[v]]
        remap = np.full(256, IGNORE, np.uint8)
        remap[keep] = np.arange(1, len(keep) + 1)
        out_img = np.full((S, S, 3), 255, np.uint8)
        out_map = np.full((S, S), IGNORE, np.uint8)
        out_img[:crop.shape[0], :crop.shape[1]] = crop
        out_map[:icrop.shape[0], :icrop.shape[1]] = remap[icrop]
        return out_img, out_map

    def __getitem__(self, idx: int) -> dict[str, Any]:
        img, inst, n = self.sample(idx)
        for _ in range(3 if n == 0 and self.sampling == "crop" else 0):  # a window with no whole node
            img, inst, n = self.sample(idx)
            if n:
                break
        # uint8 arrays as they are: `collate` normalises and builds the masks once per batch
        return {"image": np.ascontiguousarray(img), "instances": np.ascontiguousarray(inst), "n": n}


def _poly_area(flat: list[float]) -> float:
    p = np.asarray(flat, dtype=float).reshape(-1, 2)
    x, y = p[:, 0], p[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)


def collate(batch: list[dict[str, Any]], size_divisor: int = 32) -> dict[str, Any]:
    """The model inputs ``Mask2FormerImageProcessorPil`` makes of unresized samples (rescale to
    [0, 1], ImageNet normalisation, zero padding to the batch's largest size rounded up to
    ``size_divisor``, ``pixel_mask`` 1 on real pixels, one binary mask and class 0 per
    instance), computed in one pass over the batch; masks/classes are per-sample lists."""
    import torch

    H = max(b["image"].shape[0] for b in batch)
    W = max(b["image"].shape[1] for b in batch)
    H, W = -(-H // size_divisor) * size_divisor, -(-W // size_divisor) * size_divisor
    images = torch.zeros((len(batch), H, W, 3), dtype=torch.uint8)
    instances = torch.full((len(batch), H, W), IGNORE, dtype=torch.uint8)
    pixel_mask = torch.zeros((len(batch), H, W), dtype=torch.long)
    for i, b in enumerate(batch):
        h, w = b["instances"].shape
        images[i, :h, :w] = torch.from_numpy(b["image"])
        instances[i, :h, :w] = torch.from_numpy(b["instances"])
        pixel_mask[i, :h, :w] = 1
    mean, std = torch.from_numpy(IMAGE_MEAN), torch.from_numpy(IMAGE_STD)
    pixels = ((images.float() / 255.0 - mean) / std).permute(0, 3, 1, 2) * pixel_mask[:, None]
    masks, classes = [], []
    for i, b in enumerate(batch):
        ids = torch.arange(1, b["n"] + 1, dtype=torch.uint8)
        masks.append((instances[i][None] == ids[:, None, None]).float())
        classes.append(torch.zeros((b["n"],), dtype=torch.long))
    return {"pixel_values": pixels.contiguous(), "pixel_mask": pixel_mask, "mask_labels": masks,
            "class_labels": classes}


# --- model --------------------------------------------------------------------------------------
def build_model(cfg: SegTrainConfig) -> tuple[Any, Any]:
    """``(model, processor)``: fine-tune ``cfg.init`` or build a small random-init model."""
    from transformers import (
        Mask2FormerConfig,
        Mask2FormerForUniversalSegmentation,
        ResNetConfig,
        SwinConfig,
    )
    from transformers.models.mask2former.image_processing_pil_mask2former import (
        Mask2FormerImageProcessorPil,
    )

    labels = {"id2label": {0: "node"}, "label2id": {"node": 0}}
    processor = Mask2FormerImageProcessorPil(do_resize=False, ignore_index=255, size_divisor=32,
                                             do_reduce_labels=False)
    if cfg.init == "scratch":
        stages = ["stage1", "stage2", "stage3", "stage4"]
        backbone: Any
        if cfg.backbone == "resnet":
            backbone = ResNetConfig(embedding_size=cfg.embed_dim, depths=list(cfg.depths), layer_type="basic",
                                    hidden_sizes=[cfg.embed_dim * 2 ** i for i in range(len(cfg.depths))],
                                    out_features=stages[:len(cfg.depths)])
        else:
            backbone = SwinConfig(image_size=cfg.short_side, embed_dim=cfg.embed_dim, depths=list(cfg.depths),
                                  num_heads=list(cfg.num_heads), window_size=7, out_features=stages)
        mcfg = Mask2FormerConfig(backbone_config=backbone, num_labels=1, num_queries=cfg.num_queries,
                                 hidden_dim=cfg.hidden_dim, mask_feature_size=cfg.hidden_dim,
                                 feature_size=cfg.hidden_dim, encoder_layers=cfg.encoder_layers,
                                 decoder_layers=cfg.decoder_layers, encoder_feedforward_dim=4 * cfg.hidden_dim,
                                 dim_feedforward=4 * cfg.hidden_dim, use_pretrained_backbone=False, **labels)
        model = Mask2FormerForUniversalSegmentation(mcfg)
    else:
        model = Mask2FormerForUniversalSegmentation.from_pretrained(
            cfg.init, num_labels=1, ignore_mismatched_sizes=True, use_safetensors=None,
            local_files_only=not cfg.allow_download, **labels)
    return model, processor


# --- main ---------------------------------------------------------------------------------------
def train(cfg: SegTrainConfig, argv: list[str] | None = None) -> dict[str, Any]:
    """Run training (or continue it with ``cfg.resume``) and evaluation; returns the evaluation
    summary (empty without eval_data, and on every process but the main one). ``argv`` (the
    script arguments) goes into the model card as the reproducing command."""
    cfg.validate()
    import torch
    from transformers import set_seed

    from flowpath.io import atomic_write_text
    from training.trainer_state import SafetensorsStateTrainer

    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    out = Path(cfg.output_dir)
    resume_from = prepare_run(cfg)
    set_seed(cfg.seed)
    model, processor = build_model(cfg)
    n_params = sum(p.numel() for p in model.parameters())
    logger.info("model: %s, %.2f M parameters", cfg.init, n_params / 1e6)
    data = CocoNodeDataset(cfg.train_data, cfg.short_side, sampling=cfg.sampling, max_side=cfg.max_side,
                           seed=cfg.seed, hflip=cfg.hflip)
    use_cpu = not torch.cuda.is_available()
    args = cfg.training_arguments(
        fp16=cfg.fp16 and not use_cpu, save_strategy="steps", remove_unused_columns=False, report_to=[],
        use_cpu=use_cpu, disable_tqdm=True)  # Mask2Former leaves parameters unused: DDP must look
    settings = {"short_side": cfg.short_side, "score_threshold": cfg.score_threshold, "parameters": n_params}

    def complete(ckpt: Path) -> None:  # every checkpoint-N loads as a segmenter
        processor.save_pretrained(str(ckpt))
        atomic_write_text(ckpt / INFERENCE_FILE, json.dumps(settings, indent=2))

    trainer = SafetensorsStateTrainer(model=model, args=args, train_dataset=data, data_collator=collate,
                                      callbacks=[checkpoint_callback(complete)])
    result = trainer.train(resume_from_checkpoint=str(resume_from) if resume_from else None)

    final = out / "final"
    summary: dict[str, Any] = {}
    if trainer.is_world_process_zero():
        trainer.accelerator.unwrap_model(trainer.model).save_pretrained(str(final))  # safetensors
        complete(final)
        save_config(cfg, final / "train_config.yaml")
        write_log(trainer.state.log_history, out / "train_log.jsonl")
        losses = [e["loss"] for e in trainer.state.log_history if "loss" in e]
        record = {"command": _command_line(argv), "parameters": n_params, "steps": trainer.state.global_step,
                  "train_seconds": round(float(result.metrics.get("train_runtime", 0.0)), 1),
                  "first_loss": losses[0] if losses else None, "final_loss": losses[-1] if losses else None,
                  "train_data": [_data_record(p) for p in cfg.train_data], "torch": torch.__version__,
                  "threads": torch.get_num_threads(), "device": "cpu" if use_cpu else "cuda",
                  "processes": trainer.accelerator.num_processes}
        # a run that continues one of ours keeps that run's record, so the card tells the whole story
        parent = Path(cfg.init) / TRAIN_RECORD
        if cfg.init != "scratch" and parent.is_file():
            record["init_record"] = json.loads(parent.read_text(encoding="utf-8"))
        atomic_write_text(final / TRAIN_RECORD, json.dumps(record, indent=2))
        write_model_card(final)
        if cfg.eval_data:
            summary = evaluate(final, cfg)
    trainer.accelerator.wait_for_everyone()
    return summary


def evaluate(model_dir: Path, cfg: SegTrainConfig, name: str | None = None) -> dict[str, Any]:
    """Score a saved checkpoint with flowpath's segmentation metrics; writes
    ``eval_metrics.json`` (or ``eval_metrics_<name>.json``) and refreshes the model card."""
    from flowpath.evaluation.segmentation import evaluate_segmenter
    from flowpath.io import atomic_write_text
    from flowpath.segment.mask2former import Mask2FormerSegmenter

    if not cfg.eval_data:
        raise ConfigError("eval_data is not set: nothing to evaluate on")
    seg = Mask2FormerSegmenter(model_dir, device="auto", score_threshold=cfg.score_threshold)
    report = evaluate_segmenter(seg, cfg.eval_data, limit=cfg.eval_limit)
    out = report.to_dict()
    out["limit"] = cfg.eval_limit
    out["score_threshold"] = cfg.score_threshold
    fname = f"eval_metrics_{name}.json" if name else "eval_metrics.json"
    atomic_write_text(Path(model_dir) / fname, json.dumps(out, indent=2))
    logger.info("\n%s", report.format_table())
    write_model_card(Path(model_dir))
    return report.summary


# --- model card ---------------------------------------------------------------------------------
TRAIN_RECORD = "train_record.json"


def _command_line(argv: list[str] | None) -> str:
    """The command that reproduces this run (the script's own arguments, as given)."""
    import shlex

    args = sys.argv[1:] if argv is None else argv
    return " ".join(["python training/train_segmenter.py", *(shlex.quote(a) for a in args)])


def _data_record(coco_path: str) -> dict[str, Any]:
    """Size of one training COCO json and, when the generator wrote it, how it was generated."""
    p = Path(coco_path)
    rec: dict[str, Any] = {"path": str(p)}
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
        rec["images"], rec["instances"] = len(data["images"]), len(data["annotations"])
    except (OSError, ValueError, KeyError):
        pass
    gen = p.parent / "summary.json"  # data_gen's run summary sits beside its coco.json
    if gen.is_file():
        try:
            rec["generator_options"] = json.loads(gen.read_text(encoding="utf-8")).get("options")
        except ValueError:
            pass
    return rec


def _num(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _run_lines(rec: dict[str, Any]) -> list[str]:
    """Markdown bullets for one training run's record."""
    lines = [f"- command: `{rec.get('command', '?')}`",
             f"- parameters: {rec.get('parameters', 0) / 1e6:.2f} M; steps: {rec.get('steps')}; "
             f"wall time: {rec.get('train_seconds', 0) / 60:.1f} min on {rec.get('device')} "
             f"({rec.get('threads')} threads, torch {rec.get('torch')})",
             f"- loss: {_num(rec.get('first_loss'))} (first logged) -> {_num(rec.get('final_loss'))} (last logged)"]
    for d in rec.get("train_data", []):
        lines.append(f"- data: `{d.get('path')}`: {d.get('images', '?')} images, "
                     f"{d.get('instances', '?')} node instances")
        if d.get("generator_options"):
            opts = {k: v for k, v in d["generator_options"].items() if k not in ("out", "workers")}
            lines.append(f"  - generated with `python -m data_gen` options: `{json.dumps(opts)}`")
    return lines


def write_model_card(model_dir: Path) -> Path:
    """(Re)write ``README.md`` in a checkpoint directory from what the run left beside the
    weights: the training record (command, data, loss), the resolved config and every
    ``eval_metrics*.json``. Returns the card's path."""
    from flowpath.io import atomic_write_text

    model_dir = Path(model_dir)
    rec = json.loads((model_dir / TRAIN_RECORD).read_text(encoding="utf-8")) if (model_dir / TRAIN_RECORD).is_file() else {}
    cfg_text = (model_dir / "train_config.yaml").read_text(encoding="utf-8") if (model_dir / "train_config.yaml").is_file() else ""
    lines = ["# flowpath node segmenter (Mask2Former, trained from scratch on generated charts)", "",
             "Instance segmentation of flowchart nodes (one class, `node`), trained by "
             "`training/train_segmenter.py` on charts rendered by `data_gen` (real Mermaid in "
             "Chromium). No pretrained weights were used. Load it with "
             "`flowpath.segment.Mask2FormerSegmenter(model_dir)`.", ""]
    # the run's own record, then the records of the runs it continued (oldest last)
    runs: list[dict[str, Any]] = []
    while rec:
        runs.append(rec)
        rec = rec.get("init_record") or {}
    for stage, run in enumerate(runs):
        title = "## Training" if stage == 0 else f"### Initialised from an earlier run ({stage} back)"
        lines += [title, ""] + _run_lines(run) + [""]
    settings_file = model_dir / INFERENCE_FILE
    if settings_file.is_file():
        settings = json.loads(settings_file.read_text(encoding="utf-8"))
        chosen = settings.get("score_threshold_chosen_on")
        lines += ["## Inference settings", "",
                  f"- working scale: shorter side {settings.get('short_side')} px (tiling: see "
                  "`flowpath.segment.mask2former`)",
                  f"- score threshold: {settings.get('score_threshold')}"
                  + (f", chosen by `eval/sweep_seg_threshold.py` for the best {chosen.get('by')} on "
                     f"`{chosen.get('data')}` ({chosen.get('images')} images)" if chosen else ""), ""]
    for f in sorted(model_dir.glob("eval_metrics*.json")):
        ev = json.loads(f.read_text(encoding="utf-8"))
        summ = ev.get("summary", {})
        name = f.stem.removeprefix("eval_metrics").lstrip("_") or "training evaluation set"
        lines += [f"## Evaluation: {name}", "",
                  f"`{ev.get('dataset')}`" + (f", first {ev['limit']} charts" if ev.get("limit") else "")
                  + f", score threshold {ev.get('score_threshold', '?')}.", "",
                  "| set | images | gold | R@0.5 | P@0.5 | R@0.7 | P@0.7 | mean IoU | AP | AP50 |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        rows = [("overall", summ.get("overall", {}))] + sorted(summ.get("by_family", {}).items())
        for rname, row in rows:
            def fmt(k: str, row: dict[str, Any] = row) -> str:
                v = row.get(k)
                return "-" if v is None else (str(v) if isinstance(v, int) else f"{v:.3f}")
            lines.append(f"| {rname} | " + " | ".join(fmt(k) for k in (
                "images", "gold", "recall@0.5", "precision@0.5", "recall@0.7", "precision@0.7",
                "mean_iou", "AP", "AP50")) + " |")
        lines.append("")
    if cfg_text:
        lines += ["## Resolved training config", "", "```yaml", cfg_text.rstrip(), "```", ""]
    card = model_dir / "README.md"
    atomic_write_text(card, "\n".join(lines))
    return card


def main(argv: list[str] | None = None) -> int:
    parser = ConfigParser(SegTrainConfig, description=__doc__.splitlines()[0])
    parser.add_argument("--eval-only", metavar="MODEL_DIR", help="only score an existing checkpoint")
    parser.add_argument("--eval-name", metavar="NAME",
                        help="with --eval-only: write eval_metrics_NAME.json (a second evaluation set)")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        cfg, extras = parser.parse(argv)
        cfg.validate()
        if extras.eval_only:
            summary = evaluate(Path(extras.eval_only), cfg, name=extras.eval_name)
        else:
            summary = train(cfg, argv)
    except ValueError as exc:
        print(f"train_segmenter: {exc}", file=sys.stderr)
        return 2
    if summary:
        print(json.dumps(summary.get("overall", {}), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
