"""Flow2Mermaid SFT: Qwen2-VL + peft LoRA on the generator's SFT JSONL.

Each JSONL record (written by ``python -m data_gen ... sft``) is::

    {"id", "images": ["sft/<id>.png"],
     "messages": [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": PROMPT}]},
                  {"role": "assistant", "content": [{"type": "text", "text": MERMAID}]}], ...}

with image paths relative to the JSONL's folder and the labelled image's letters as node ids.
The loss covers only the assistant's Mermaid: prompt and image tokens are masked (-100).
Images keep their aspect ratio within the ``min_pixels``/``max_pixels`` budget.

Runs unchanged on one CPU or under ``accelerate launch`` on several GPUs::

    python training/train_flow2mermaid.py --config configs/flow2mermaid_cpu.yaml
    accelerate launch training/train_flow2mermaid.py --config configs/flow2mermaid_paper.yaml

Outputs in ``output_dir``: ``adapter/`` (peft, safetensors) with the processor files,
``config.yaml`` (the resolved config), ``train_log.jsonl`` and, with ``merge: true``,
``merged/`` (base + adapter folded in, loadable without peft).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import math
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from flowpath.config import load_flat_config, parse_overrides

logger = logging.getLogger("flowpath.train")

#: modules LoRA adapts: language attention + MLP and vision attention (qkv, proj) + MLP (fc1, fc2)
DEFAULT_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj",
                   "qkv", "attn.proj", "fc1", "fc2"]


@dataclass
class TrainConfig:
    """Flat experiment config (one YAML file per experiment)."""

    base_model: str  # local checkpoint dir, or "tiny" for a random-init model built here
    train_jsonl: str
    output_dir: str
    eval_jsonl: str | None = None
    epochs: float = 3.0
    max_steps: int | None = None  # stop after this many optimiser steps (smoke runs)
    batch_size: int = 1
    grad_accum: int = 5
    lr: float = 2e-4
    scheduler: str = "linear"
    warmup_ratio: float = 0.0
    weight_decay: float = 0.01
    max_grad_norm: float = 1.0
    lora_r: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.05
    lora_targets: list[str] = field(default_factory=lambda: list(DEFAULT_TARGETS))
    load_in_4bit: bool = False
    bf16: bool = False
    min_pixels: int = 256 * 28 * 28
    max_pixels: int = 1024 * 28 * 28
    max_length: int = 4096
    seed: int = 0
    merge: bool = False
    log_every: int = 10
    limit: int | None = None  # only the first N records (smoke runs)
    tiny_vocab: int = 400  # tiny model only: BPE vocabulary trained on the JSONL's Mermaid
    gradient_checkpointing: bool = False

    def validate(self) -> None:
        """All fail-fast checks, before any model is touched."""
        if self.base_model != "tiny" and not Path(self.base_model).is_dir():
            raise ValueError(f"base_model {self.base_model!r} is not a local directory (or 'tiny')")
        if not Path(self.train_jsonl).is_file():
            raise ValueError(f"train_jsonl {self.train_jsonl!r} does not exist")
        if self.eval_jsonl and not Path(self.eval_jsonl).is_file():
            raise ValueError(f"eval_jsonl {self.eval_jsonl!r} does not exist")
        if self.scheduler not in ("linear", "constant", "cosine"):
            raise ValueError(f"scheduler must be linear, constant or cosine, got {self.scheduler!r}")
        for name in ("batch_size", "grad_accum", "lora_r", "max_length"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if not (0 < self.lr < 1):
            raise ValueError(f"lr must be in (0, 1), got {self.lr}")
        if self.min_pixels > self.max_pixels:
            raise ValueError(f"min_pixels {self.min_pixels} > max_pixels {self.max_pixels}")
        if self.load_in_4bit:
            import importlib.util

            import torch

            if not torch.cuda.is_available():
                raise ValueError("load_in_4bit needs a CUDA GPU (bitsandbytes); use configs/flow2mermaid_cpu.yaml on CPU")
            if importlib.util.find_spec("bitsandbytes") is None:
                raise ValueError("load_in_4bit needs bitsandbytes: pip install bitsandbytes")

    @classmethod
    def from_yaml(cls, path: str | Path, overrides: dict[str, Any] | None = None) -> TrainConfig:
        return load_flat_config(cls, path, overrides)


def read_records(path: str | Path, limit: int | None = None) -> list[dict[str, Any]]:
    """SFT records with absolute image paths, the prompt and the Mermaid target."""
    path = Path(path)
    out = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            user, assistant = rec["messages"][0], rec["messages"][1]
            prompt = next(c["text"] for c in user["content"] if c["type"] == "text")
            target = next(c["text"] for c in assistant["content"] if c["type"] == "text")
            image = path.parent / rec["images"][0]
        except (json.JSONDecodeError, KeyError, IndexError, StopIteration) as exc:
            raise ValueError(f"{path}:{lineno}: not an SFT chat record ({exc!r})") from None
        out.append({"id": rec.get("id", str(lineno)), "image": image, "prompt": prompt, "target": target})
        if limit and len(out) >= limit:
            break
    if not out:
        raise ValueError(f"{path}: no records")
    return out


class SFTDataset:
    """Encodes records lazily (images are large; only the current batch is in memory)."""

    def __init__(self, records: list[dict[str, Any]], processor: Any, max_length: int) -> None:
        self.records, self.processor, self.max_length = records, processor, max_length

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, i: int) -> dict[str, Any]:
        from PIL import Image

        from flowpath.transcribe.qwen2vl import encode_example

        r = self.records[i]
        with Image.open(r["image"]) as im:
            img = im.convert("RGB")
        return encode_example(self.processor, img, r["target"], prompt=r["prompt"], max_length=self.max_length)


def collate(batch: list[dict[str, Any]], pad_id: int) -> dict[str, Any]:
    """Right-pad token tensors; concatenate the images' patch rows and grids."""
    import torch

    n = max(b["input_ids"].shape[0] for b in batch)

    def pad(key: str, value: int) -> Any:
        return torch.stack([torch.nn.functional.pad(b[key], (0, n - b[key].shape[0]), value=value) for b in batch])

    return {"input_ids": pad("input_ids", pad_id), "attention_mask": pad("attention_mask", 0),
            "labels": pad("labels", -100), "mm_token_type_ids": pad("mm_token_type_ids", 0),
            "pixel_values": torch.cat([b["pixel_values"] for b in batch]),
            "image_grid_thw": torch.cat([b["image_grid_thw"] for b in batch])}


def build_model_and_processor(cfg: TrainConfig, records: list[dict[str, Any]], out: Path) -> tuple[Any, Any]:
    """Base model (+4-bit on CUDA) and processor; ``tiny`` builds both from scratch offline."""
    import torch
    from transformers import Qwen2VLForConditionalGeneration

    from flowpath.transcribe.qwen2vl import build_processor, tiny_qwen2vl, train_tiny_tokenizer

    if cfg.base_model == "tiny":
        tok = train_tiny_tokenizer([r["target"] for r in records] + [r["prompt"] for r in records],
                                   vocab_size=cfg.tiny_vocab)
        model = tiny_qwen2vl(tok, seed=cfg.seed)
        base_dir = out / "base"
        model.save_pretrained(base_dir, safe_serialization=True)
        tok.save_pretrained(base_dir)
        processor = build_processor(base_dir, min_pixels=cfg.min_pixels, max_pixels=cfg.max_pixels)
        processor.image_processor.save_pretrained(base_dir)
        return model, processor
    kw: dict[str, Any] = {"dtype": torch.bfloat16 if cfg.bf16 else torch.float32}
    if cfg.load_in_4bit:
        from transformers import BitsAndBytesConfig

        kw["quantization_config"] = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4",
                                                       bnb_4bit_compute_dtype=torch.bfloat16,
                                                       bnb_4bit_use_double_quant=True)
        from accelerate import PartialState

        kw["device_map"] = {"": PartialState().process_index}
    model = Qwen2VLForConditionalGeneration.from_pretrained(cfg.base_model, **kw)
    processor = build_processor(cfg.base_model, min_pixels=cfg.min_pixels, max_pixels=cfg.max_pixels)
    return model, processor


def target_modules(model: Any, patterns: list[str]) -> list[str]:
    """Full names of the Linear layers whose name ends with one of ``patterns``."""
    import torch

    names = [n for n, m in model.named_modules()
             if isinstance(m, torch.nn.Linear) and any(n.endswith(p) for p in patterns)
             and "lm_head" not in n]
    if not names:
        raise ValueError(f"no Linear layer matches lora_targets {patterns}")
    return names


def train(cfg: TrainConfig) -> dict[str, Any]:
    """Run SFT; returns a summary (steps, final loss, output paths)."""
    cfg.validate()
    from flowpath.errors import require

    for mod in ("torch", "transformers", "peft", "accelerate"):
        require(mod, "train", "Flow2Mermaid training")
    import torch
    from accelerate import Accelerator
    from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training
    from transformers import get_scheduler

    out = Path(cfg.output_dir)
    acc = Accelerator(gradient_accumulation_steps=cfg.grad_accum,
                      mixed_precision="bf16" if cfg.bf16 and torch.cuda.is_available() else "no")
    random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    records = read_records(cfg.train_jsonl, cfg.limit)
    if acc.is_main_process:
        out.mkdir(parents=True, exist_ok=True)
        (out / "config.yaml").write_text(yaml.safe_dump(dataclasses.asdict(cfg), sort_keys=False), encoding="utf-8")
    model, processor = build_model_and_processor(cfg, records, out)
    if cfg.load_in_4bit:
        model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=cfg.gradient_checkpointing)
    elif cfg.gradient_checkpointing:
        model.gradient_checkpointing_enable()
    lora = LoraConfig(r=cfg.lora_r, lora_alpha=cfg.lora_alpha, lora_dropout=cfg.lora_dropout,
                      target_modules=target_modules(model, cfg.lora_targets), bias="none")
    model = get_peft_model(model, lora)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    total = sum(p.numel() for p in model.parameters())
    logger.info("LoRA: %d trainable of %d parameters", trainable, total)

    ds = SFTDataset(records, processor, cfg.max_length)
    pad_id = processor.tokenizer.pad_token_id
    loader = torch.utils.data.DataLoader(ds, batch_size=cfg.batch_size, shuffle=True,
                                         collate_fn=lambda b: collate(b, pad_id),
                                         generator=torch.Generator().manual_seed(cfg.seed))
    decay = [p for n, p in model.named_parameters() if p.requires_grad and p.ndim >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.requires_grad and p.ndim < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=cfg.lr)
    steps_per_epoch = math.ceil(len(loader) / cfg.grad_accum)
    total_steps = cfg.max_steps or max(1, math.ceil(steps_per_epoch * cfg.epochs))
    sched = get_scheduler(cfg.scheduler, opt, num_warmup_steps=int(cfg.warmup_ratio * total_steps),
                          num_training_steps=total_steps)
    model, opt, loader, sched = acc.prepare(model, opt, loader, sched)

    step, losses, t0 = 0, [], time.time()
    log = (out / "train_log.jsonl").open("a", encoding="utf-8") if acc.is_main_process else None
    model.train()
    done = False
    epoch = 0
    while not done:
        for batch in loader:
            with acc.accumulate(model):
                loss = model(**batch).loss
                acc.backward(loss)
                if acc.sync_gradients:
                    acc.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
                opt.step()
                sched.step()
                opt.zero_grad()
            losses.append(float(loss.detach()))
            if acc.sync_gradients:
                step += 1
                if log is not None and (step % cfg.log_every == 0 or step == 1 or step == total_steps):
                    rec = {"step": step, "epoch": epoch, "loss": sum(losses[-cfg.grad_accum:]) / min(len(losses), cfg.grad_accum),
                           "lr": sched.get_last_lr()[0], "seconds": round(time.time() - t0, 1)}
                    log.write(json.dumps(rec) + "\n")
                    log.flush()
                    logger.info("step %d/%d loss %.4f", step, total_steps, rec["loss"])
                if step >= total_steps:
                    done = True
                    break
        epoch += 1
    acc.wait_for_everyone()
    summary: dict[str, Any] = {"steps": step, "final_loss": losses[-1] if losses else None,
                               "first_loss": losses[0] if losses else None, "trainable_params": trainable}
    if acc.is_main_process:
        unwrapped = acc.unwrap_model(model)
        adapter_dir = out / "adapter"
        unwrapped.save_pretrained(adapter_dir, safe_serialization=True)
        processor.tokenizer.save_pretrained(adapter_dir)
        processor.image_processor.save_pretrained(adapter_dir)
        summary["adapter"] = str(adapter_dir)
        summary["base_model"] = str(out / "base") if cfg.base_model == "tiny" else cfg.base_model
        if cfg.merge:
            summary["merged"] = str(merge_adapter(summary["base_model"], adapter_dir, out / "merged"))
        (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    if log is not None:
        log.close()
    return summary


def merge_adapter(base: str | Path, adapter: str | Path, dest: str | Path) -> Path:
    """Fold a LoRA adapter into a full-precision copy of the base model and save it (safetensors)
    with the processor files, so it loads with plain transformers."""
    import torch
    from peft import PeftModel
    from transformers import Qwen2VLForConditionalGeneration

    model = Qwen2VLForConditionalGeneration.from_pretrained(str(base), dtype=torch.float32)
    merged = PeftModel.from_pretrained(model, str(adapter)).merge_and_unload()
    dest = Path(dest)
    merged.save_pretrained(dest, safe_serialization=True)
    from flowpath.transcribe.qwen2vl import build_processor

    proc = build_processor(adapter)
    proc.tokenizer.save_pretrained(dest)
    proc.image_processor.save_pretrained(dest)
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--config", required=True, help="YAML experiment config")
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                    help="override config keys (YAML values), e.g. max_steps=2 output_dir=/tmp/x")
    ap.add_argument("--merge-only", nargs=2, metavar=("BASE", "ADAPTER"),
                    help="only merge ADAPTER into BASE and write to the config's output_dir/merged")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    try:
        cfg = TrainConfig.from_yaml(args.config, parse_overrides(args.set))
        if args.merge_only:
            print(merge_adapter(args.merge_only[0], args.merge_only[1], Path(cfg.output_dir) / "merged"))
            return 0
        summary = train(cfg)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
