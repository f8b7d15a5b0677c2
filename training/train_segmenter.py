"""Train a Mask2Former node segmenter on the generator's COCO sets.

    python training/train_segmenter.py --config configs/segmenter_cpu.yaml
    accelerate launch training/train_segmenter.py --config configs/segmenter_paper.yaml

Built on the transformers ``Trainer`` (so ``accelerate launch`` spreads it over GPUs unchanged).
Samples follow the inference tiling policy of `flowpath.segment.mask2former.plan_tiles`: a chart
is scaled so its shorter side is ``short_side`` px, then a random window is cut and
padded to a fixed ``short_side`` square (so tall and wide charts stack in one batch without the
processor's own padding). Every node instance becomes one mask of the single class ``node``.

The run writes ``OUTPUT_DIR/final/``: ``model.safetensors``, ``config.json``,
``preprocessor_config.json``, ``flowpath_segmenter.json`` (inference settings),
``train_config.yaml`` (the resolved config) and ``eval_metrics.json`` (the segmentation
metrics of `flowpath.evaluation.segmentation` on the evaluation set).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from flowpath.config import load_flat_config, parse_overrides
from flowpath.segment.mask2former import INFERENCE_FILE

logger = logging.getLogger("train_segmenter")


@dataclass
class SegTrainConfig:
    """One flat training config (``configs/segmenter_*.yaml``)."""

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
    short_side: int = 256
    hflip: bool = False  # flowcharts read top-down/left-right: no flips by default
    # optimisation
    epochs: float = 20.0
    max_steps: int = -1
    learning_rate: float = 1e-5
    lr_scheduler: str = "cosine"
    warmup_ratio: float = 0.0
    weight_decay: float = 0.05
    batch_size: int = 4
    grad_accum: int = 4
    fp16: bool = False
    bf16: bool = False
    seed: int = 0
    save_steps: int = 200
    save_total_limit: int = 2
    logging_steps: int = 10
    num_workers: int = 0
    threads: int | None = None  # torch threads on CPU
    score_threshold: float = 0.5

    @classmethod
    def from_yaml(cls, path: str | Path, overrides: list[str] | None = None) -> SegTrainConfig:
        cfg = load_flat_config(cls, path, parse_overrides(overrides))
        cfg.validate()
        return cfg

    def validate(self) -> None:
        """Fail fast, before any model or data is loaded."""
        if not self.train_data:
            raise ValueError("train_data: give at least one COCO json")
        for p in self.train_data:
            if not Path(p).is_file():
                raise ValueError(f"train_data: {p} does not exist")
        if self.eval_data is not None and not Path(self.eval_data).exists():
            raise ValueError(f"eval_data: {self.eval_data} does not exist")
        if self.short_side < 64 or self.short_side % 32:
            raise ValueError(f"short_side must be a multiple of 32 and >= 64, got {self.short_side}")
        if self.batch_size < 1 or self.grad_accum < 1:
            raise ValueError("batch_size and grad_accum must be >= 1")
        if self.epochs <= 0 and self.max_steps <= 0:
            raise ValueError("set epochs > 0 or max_steps > 0")
        if self.backbone not in ("swin", "resnet"):
            raise ValueError(f"backbone must be 'swin' or 'resnet', got {self.backbone!r}")
        if self.fp16 and self.bf16:
            raise ValueError("fp16 and bf16 are exclusive")
        if self.init != "scratch" and not Path(self.init).exists() and "/" not in self.init:
            raise ValueError(f"init: {self.init!r} is neither 'scratch', a local path nor a hub id")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


# --- data ---------------------------------------------------------------------------------------
class CocoNodeDataset:
    """Node instances of one or more COCO jsons, served as processor-ready training windows."""

    def __init__(self, coco_paths: list[str], processor: Any, short_side: int, seed: int = 0,
                 hflip: bool = False) -> None:
        self.items: list[tuple[Path, list[list[float]]]] = []
        for cp in coco_paths:
            cp = Path(cp)
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
                self.items.append((path, polys[im["id"]]))
        if not self.items:
            raise ValueError(f"no usable images in {coco_paths}")
        self.processor = processor
        self.short_side = short_side
        self.rng = random.Random(seed)
        self.hflip = hflip

    def __len__(self) -> int:
        return len(self.items)

    def sample(self, idx: int, rng: random.Random | None = None) -> tuple[np.ndarray, np.ndarray, int]:
        """A training window: ``(image (S, S, 3), instance map (S, S), n_instances)``;
        instance ids 1..n, 255 = background/padding."""
        import cv2

        from flowpath.io import load_image
        from flowpath.segment.mask2former import plan_tiles

        rng = rng or self.rng
        path, polys = self.items[idx]
        img = load_image(path)
        H, W = img.shape[:2]
        scale, sh, sw, tiles = plan_tiles(H, W, self.short_side)
        work = cv2.resize(img, (sw, sh), interpolation=cv2.INTER_AREA) if scale < 1 else img
        inst = np.full((sh, sw), 255, np.uint8)
        # larger nodes first so a small node drawn over a big one keeps its pixels
        order = sorted(range(len(polys)), key=lambda k: -_poly_area(polys[k]))
        for n, k in enumerate(order[:254], start=1):
            pts = np.round(np.asarray(polys[k], dtype=float).reshape(-1, 2) * scale).astype(np.int32)
            cv2.fillPoly(inst, [pts], n)
        # square S x S windows so that tall and wide charts stack in one batch (inference runs
        # S x 2S windows; the model is convolutional/attention-based and size-agnostic)
        S = self.short_side
        win_h, win_w = S, S
        y0 = rng.randint(0, max(0, sh - win_h))
        x0 = rng.randint(0, max(0, sw - win_w))
        crop = work[y0:y0 + win_h, x0:x0 + win_w]
        icrop = inst[y0:y0 + win_h, x0:x0 + win_w]
        # drop instances cut by the window (a partial node is not a node to learn)
        keep: dict[int, int] = {}
        for v in np.unique(icrop):
            if v == 255:
                continue
            full = int((inst == v).sum())
            if (icrop == v).sum() >= 0.9 * full:
                keep[int(v)] = len(keep) + 1
        remap = np.full(256, 255, np.uint8)
        for old, new in keep.items():
            remap[old] = new
        icrop = remap[icrop]
        out_img = np.full((win_h, win_w, 3), 255, np.uint8)
        out_map = np.full((win_h, win_w), 255, np.uint8)
        out_img[:crop.shape[0], :crop.shape[1]] = crop
        out_map[:icrop.shape[0], :icrop.shape[1]] = icrop
        if self.hflip and rng.random() < 0.5:
            out_img, out_map = out_img[:, ::-1].copy(), out_map[:, ::-1].copy()
        return out_img, out_map, len(keep)

    def __getitem__(self, idx: int) -> dict[str, Any]:
        img, inst, n = self.sample(idx)
        if n == 0:  # a window with no whole node: try another window of the same chart
            for _ in range(3):
                img, inst, n = self.sample(idx)
                if n:
                    break
        mapping = {i: 0 for i in range(1, n + 1)}
        enc = self.processor(images=[img], segmentation_maps=[inst] if n else None,
                             instance_id_to_semantic_id=[mapping] if n else None,
                             ignore_index=255, do_resize=False, return_tensors="pt")
        import torch

        if n:
            masks, classes = enc["mask_labels"][0].float(), enc["class_labels"][0].long()
        else:
            masks = torch.zeros((0, *enc["pixel_values"].shape[-2:]))
            classes = torch.zeros((0,), dtype=torch.long)
        return {"pixel_values": enc["pixel_values"][0], "pixel_mask": enc["pixel_mask"][0],
                "mask_labels": masks, "class_labels": classes}


def _poly_area(flat: list[float]) -> float:
    p = np.asarray(flat, dtype=float).reshape(-1, 2)
    x, y = p[:, 0], p[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)


def collate(batch: list[dict[str, Any]]) -> dict[str, Any]:
    """Stack pixels; masks/classes stay per-image lists (their counts differ)."""
    import torch

    return {"pixel_values": torch.stack([b["pixel_values"] for b in batch]),
            "pixel_mask": torch.stack([b["pixel_mask"] for b in batch]),
            "mask_labels": [b["mask_labels"] for b in batch],
            "class_labels": [b["class_labels"] for b in batch]}


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


def _checkpoint_callback(processor: Any, settings: dict[str, Any]) -> Any:
    """A Trainer callback that makes every ``checkpoint-*`` a complete, loadable segmenter
    (processor config + inference settings beside the weights) and keeps it to safetensors +
    json: the Trainer also writes ``training_args.bin`` (a pickle); flowpath keeps no pickles."""
    from transformers import TrainerCallback

    class SegmenterCheckpoints(TrainerCallback):
        def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            for ck in Path(args.output_dir).glob("checkpoint-*"):
                for ext in ("*.bin", "*.pt", "*.pth", "*.pkl"):
                    for f in ck.glob(ext):
                        f.unlink()
                if not (ck / "preprocessor_config.json").exists():
                    processor.save_pretrained(str(ck))
                    (ck / INFERENCE_FILE).write_text(json.dumps(settings, indent=2))

    return SegmenterCheckpoints()


# --- main ---------------------------------------------------------------------------------------
def train(cfg: SegTrainConfig, argv: list[str] | None = None) -> dict[str, Any]:
    """Run training + evaluation; returns the evaluation summary (empty without eval_data).
    ``argv`` (the script arguments) goes into the model card as the reproducing command."""
    import torch
    from transformers import Trainer, TrainingArguments, set_seed

    from flowpath.io import atomic_write_text

    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    set_seed(cfg.seed)
    out = Path(cfg.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    model, processor = build_model(cfg)
    n_params = sum(p.numel() for p in model.parameters())
    logger.info("model: %s, %.2f M parameters", cfg.init, n_params / 1e6)
    data = CocoNodeDataset(cfg.train_data, processor, cfg.short_side, seed=cfg.seed, hflip=cfg.hflip)
    use_cpu = not torch.cuda.is_available()
    args = TrainingArguments(
        output_dir=str(out), num_train_epochs=cfg.epochs, max_steps=cfg.max_steps,
        learning_rate=cfg.learning_rate, lr_scheduler_type=cfg.lr_scheduler, warmup_steps=float(cfg.warmup_ratio),  # float < 1 = ratio
        weight_decay=cfg.weight_decay, per_device_train_batch_size=cfg.batch_size,
        gradient_accumulation_steps=cfg.grad_accum, fp16=cfg.fp16 and not use_cpu,
        bf16=cfg.bf16, seed=cfg.seed, save_strategy="steps", save_steps=cfg.save_steps,
        save_total_limit=cfg.save_total_limit, logging_steps=cfg.logging_steps,
        dataloader_num_workers=cfg.num_workers, remove_unused_columns=False, report_to=[],
        use_cpu=use_cpu, disable_tqdm=True, save_only_model=True)
    settings = {"short_side": cfg.short_side, "score_threshold": cfg.score_threshold, "parameters": n_params}
    ckpts = sorted(out.glob("checkpoint-*/model.safetensors"), key=lambda p: int(p.parent.name.split("-")[1]))
    if ckpts:
        # warm restart from the newest model-only checkpoint (no optimizer pickles are kept)
        from safetensors.torch import load_file

        model.load_state_dict(load_file(str(ckpts[-1])), strict=False)
        logger.info("warm start from %s", ckpts[-1].parent)
    trainer = Trainer(model=model, args=args, train_dataset=data, data_collator=collate,
                      callbacks=[_checkpoint_callback(processor, settings)])
    result = trainer.train()

    final = out / "final"
    if trainer.is_world_process_zero():
        trainer.accelerator.unwrap_model(trainer.model).save_pretrained(str(final))  # safetensors
        processor.save_pretrained(str(final))
        atomic_write_text(final / INFERENCE_FILE, json.dumps(settings, indent=2))
        import yaml

        atomic_write_text(final / "train_config.yaml", yaml.safe_dump(cfg.to_dict(), sort_keys=False))
        losses = [e["loss"] for e in trainer.state.log_history if "loss" in e]
        record = {"command": _command_line(argv), "parameters": n_params, "steps": trainer.state.global_step,
                  "train_seconds": round(float(result.metrics.get("train_runtime", 0.0)), 1),
                  "first_loss": losses[0] if losses else None, "final_loss": losses[-1] if losses else None,
                  "train_data": [_data_record(p) for p in cfg.train_data], "torch": torch.__version__,
                  "threads": torch.get_num_threads(), "device": "cpu" if use_cpu else "cuda"}
        # a run that continues one of ours keeps that run's record, so the card tells the whole story
        parent = Path(cfg.init) / TRAIN_RECORD
        if cfg.init != "scratch" and parent.is_file():
            record["init_record"] = json.loads(parent.read_text(encoding="utf-8"))
        atomic_write_text(final / TRAIN_RECORD, json.dumps(record, indent=2))
        write_model_card(final)
        summary: dict[str, Any] = {}
        if cfg.eval_data:
            summary = evaluate(final, cfg)
        return summary
    return {}


def evaluate(model_dir: Path, cfg: SegTrainConfig, name: str | None = None) -> dict[str, Any]:
    """Score a saved checkpoint with flowpath's segmentation metrics; writes
    ``eval_metrics.json`` (or ``eval_metrics_<name>.json``) and refreshes the model card."""
    from flowpath.evaluation.segmentation import evaluate_segmenter
    from flowpath.io import atomic_write_text
    from flowpath.segment.mask2former import Mask2FormerSegmenter

    if not cfg.eval_data:
        raise ValueError("eval_data is not set: nothing to evaluate on")
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
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--config", required=True, help="configs/segmenter_*.yaml")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config key (YAML value), e.g. --set max_steps=10")
    p.add_argument("--eval-only", metavar="MODEL_DIR", help="only score an existing checkpoint")
    p.add_argument("--eval-name", metavar="NAME",
                   help="with --eval-only: write eval_metrics_NAME.json (a second evaluation set)")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        cfg = SegTrainConfig.from_yaml(args.config, args.set)
    except (ValueError, TypeError) as exc:
        print(f"train_segmenter: bad config: {exc}", file=sys.stderr)
        return 2
    if args.eval_only:
        try:
            summary = evaluate(Path(args.eval_only), cfg, name=args.eval_name)
        except ValueError as exc:
            print(f"train_segmenter: {exc}", file=sys.stderr)
            return 2
    else:
        summary = train(cfg, argv)
    if summary:
        print(json.dumps(summary.get("overall", {}), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
