"""Flow2Mermaid SFT: Qwen2-VL + peft LoRA on the generator's SFT JSONL.

Each JSONL record (written by ``python -m data_gen ... sft``) is::

    {"id", "images": ["sft/<id>.png"],
     "messages": [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": PROMPT}]},
                  {"role": "assistant", "content": [{"type": "text", "text": MERMAID}]}], ...}

with image paths relative to the JSONL's folder and the labelled image's letters as node ids.
The loss covers only the assistant's Mermaid: prompt and image tokens are masked (-100).
Images keep their aspect ratio within the ``min_pixels``/``max_pixels`` budget.

Built on the transformers ``Trainer``, so it runs unchanged on one CPU or under
``accelerate launch`` on several GPUs (the LR schedule counts optimizer steps of the sharded
data, each process its own shard)::

    python training/train_flow2mermaid.py --config configs/flow2mermaid_cpu.yaml
    accelerate launch training/train_flow2mermaid.py --config configs/flow2mermaid_paper.yaml
    accelerate launch training/train_flow2mermaid.py --config configs/flow2mermaid_paper.yaml --resume

Outputs in ``output_dir``: ``checkpoint-N/`` every ``save_steps`` (adapter safetensors plus the
optimizer, scheduler and RNG state ``--resume`` restores), ``adapter/`` (peft, safetensors) with
the processor files, ``config.yaml`` (the resolved config), ``train_log.jsonl`` (loss, learning
rate and, with ``eval_jsonl``, evaluation loss per logged step) and, with ``merge: true``,
``merged/`` (base + adapter folded in, loadable without peft).
"""

from __future__ import annotations

import json
import logging
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `python training/x.py` from anywhere

from flowpath.transcribe.qwen2vl import FLOW2MERMAID_PROMPT, chat_messages, render_chat  # noqa: E402
from training.config import (  # noqa: E402
    CommonTrainingArguments,
    ConfigError,
    ConfigParser,
    save_config,
)
from training.run import checkpoint_callback, distributed_state, prepare_run, write_log  # noqa: E402

logger = logging.getLogger("flowpath.train")

#: modules LoRA adapts: language attention + MLP and vision attention (qkv, proj) + MLP (fc1, fc2)
DEFAULT_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj",
                   "qkv", "attn.proj", "fc1", "fc2"]


@dataclass(kw_only=True)
class Flow2MermaidConfig(CommonTrainingArguments):
    """One Flow2Mermaid experiment (``configs/flow2mermaid_*.yaml``); shared knobs in the base."""

    base_model: str  # local checkpoint dir, or "tiny" for a random-init model built here
    train_jsonl: str
    eval_jsonl: str | None = None  # evaluation loss every eval_steps and at the end
    eval_steps: int | None = None  # default: save_steps
    limit: int | None = None  # only the first N records of each JSONL (smoke runs)
    # the paper's optimisation defaults
    num_train_epochs: float = 3.0
    gradient_accumulation_steps: int = 5
    learning_rate: float = 2e-4
    weight_decay: float = 0.01
    # LoRA
    lora_r: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.05
    lora_targets: list[str] = field(default_factory=lambda: list(DEFAULT_TARGETS))
    load_in_4bit: bool = False
    # images and text
    min_pixels: int = 256 * 28 * 28
    max_pixels: int = 1280 * 28 * 28
    max_length: int = 4096
    merge: bool = False
    tiny_vocab: int = 400  # tiny model only: BPE vocabulary trained on the JSONL's Mermaid

    def validate(self) -> None:
        """All fail-fast checks, before any model is touched.

        Raises:
            ConfigError: a missing file or directory, a value out of range, 4-bit without CUDA.
        """
        self.check_common()
        if self.base_model != "tiny" and not Path(self.base_model).is_dir():
            raise ConfigError(f"base_model {self.base_model!r} is not a local directory (or 'tiny')")
        if not Path(self.train_jsonl).is_file():
            raise ConfigError(f"train_jsonl {self.train_jsonl!r} does not exist")
        if self.eval_jsonl and not Path(self.eval_jsonl).is_file():
            raise ConfigError(f"eval_jsonl {self.eval_jsonl!r} does not exist")
        if self.lr_scheduler_type not in ("linear", "constant", "cosine", "constant_with_warmup"):
            raise ConfigError(f"lr_scheduler_type must be linear, cosine, constant or constant_with_warmup, "
                              f"got {self.lr_scheduler_type!r}")
        for name in ("lora_r", "max_length"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.min_pixels > self.max_pixels:
            raise ConfigError(f"min_pixels {self.min_pixels} > max_pixels {self.max_pixels}")
        if self.load_in_4bit:
            import importlib.util

            import torch

            if not torch.cuda.is_available():
                raise ConfigError("load_in_4bit needs a CUDA GPU (bitsandbytes); use configs/flow2mermaid_cpu.yaml on CPU")
            if importlib.util.find_spec("bitsandbytes") is None:
                raise ConfigError("load_in_4bit needs bitsandbytes: pip install bitsandbytes")


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
            raise ConfigError(f"{path}:{lineno}: not an SFT chat record ({exc!r})") from None
        out.append({"id": rec.get("id", str(lineno)), "image": image, "prompt": prompt, "target": target})
        if limit and len(out) >= limit:
            break
    if not out:
        raise ConfigError(f"{path}: no records")
    return out


def encode_example(processor: Any, image: Any, answer: str, prompt: str = FLOW2MERMAID_PROMPT,
                   max_length: int | None = None) -> dict[str, Any]:
    """Tokenise one training example with the loss only on the answer.

    Prompt tokens (system/user turns, the image placeholder tokens) get label ``-100``; the
    assistant's Mermaid and its end-of-turn token are learned.

    Returns:
        ``input_ids``, ``attention_mask``, ``labels``, ``mm_token_type_ids`` (1-D), ``pixel_values``, ``image_grid_thw``.
    """
    prompt_text = render_chat(processor, chat_messages(prompt), add_generation_prompt=True)
    full_text = render_chat(processor, chat_messages(prompt, answer), add_generation_prompt=False)
    if not full_text.startswith(prompt_text):
        raise ValueError("chat template does not extend the prompt with the answer; cannot mask the prompt")
    p = processor(text=[prompt_text], images=[image], return_tensors="pt")
    f = processor(text=[full_text], images=[image], return_tensors="pt")
    ids = f["input_ids"][0]
    labels = ids.clone()
    n_prompt = p["input_ids"].shape[1]
    labels[:n_prompt] = -100
    image_id = processor.image_token_id
    labels[ids == image_id] = -100
    mask = f["attention_mask"][0]
    # Qwen2-VL's multimodal RoPE needs to know which positions are image tokens
    mm = f["mm_token_type_ids"][0] if "mm_token_type_ids" in f else (ids == image_id).long()
    if max_length is not None and ids.shape[0] > max_length:
        # never cut into the image tokens: the model needs all of them
        if n_prompt >= max_length:
            raise ValueError(f"prompt with image is {n_prompt} tokens, more than max_length={max_length}")
        ids, labels, mask, mm = ids[:max_length], labels[:max_length], mask[:max_length], mm[:max_length]
    return {"input_ids": ids, "attention_mask": mask, "labels": labels, "mm_token_type_ids": mm,
            "pixel_values": f["pixel_values"], "image_grid_thw": f["image_grid_thw"]}


class SFTDataset:
    """Encodes records lazily (images are large; only the current batch is in memory)."""

    def __init__(self, records: list[dict[str, Any]], processor: Any, max_length: int) -> None:
        self.records, self.processor, self.max_length = records, processor, max_length

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, i: int) -> dict[str, Any]:
        from PIL import Image

        r = self.records[i]
        with Image.open(r["image"]) as im:
            img = im.convert("RGB")
        return encode_example(self.processor, img, r["target"], prompt=r["prompt"], max_length=self.max_length)


class Collator:
    """Right-pad token tensors; concatenate the images' patch rows and grids."""

    def __init__(self, pad_id: int) -> None:
        self.pad_id = pad_id

    def __call__(self, batch: list[dict[str, Any]]) -> dict[str, Any]:
        import torch

        n = max(b["input_ids"].shape[0] for b in batch)

        def pad(key: str, value: int) -> Any:
            return torch.stack([torch.nn.functional.pad(b[key], (0, n - b[key].shape[0]), value=value) for b in batch])

        return {"input_ids": pad("input_ids", self.pad_id), "attention_mask": pad("attention_mask", 0),
                "labels": pad("labels", -100), "mm_token_type_ids": pad("mm_token_type_ids", 0),
                "pixel_values": torch.cat([b["pixel_values"] for b in batch]),
                "image_grid_thw": torch.cat([b["image_grid_thw"] for b in batch])}


def build_model_and_processor(cfg: Flow2MermaidConfig, records: list[dict[str, Any]], out: Path) -> tuple[Any, Any]:
    """Base model (+4-bit on CUDA, on this machine's GPU of this process) and processor.

    ``tiny`` builds a random-init model and tokenizer into ``out/base`` once (main process; a
    resumed run reuses it, so the tokenizer cannot change under a checkpoint)."""
    import torch
    from transformers import Qwen2VLForConditionalGeneration

    from flowpath.transcribe.qwen2vl import build_processor

    state = distributed_state()
    base = cfg.base_model
    if cfg.base_model == "tiny":
        base = str(out / "base")
        if state.is_main_process and not (out / "base" / "config.json").is_file():
            from training.tiny_qwen2vl import tiny_qwen2vl, train_tiny_tokenizer

            tok = train_tiny_tokenizer([r["target"] for r in records] + [r["prompt"] for r in records],
                                       vocab_size=cfg.tiny_vocab)
            tiny_qwen2vl(tok, seed=cfg.seed).save_pretrained(base, safe_serialization=True)
            tok.save_pretrained(base)
        state.wait_for_everyone()
    kw: dict[str, Any] = {"dtype": torch.bfloat16 if cfg.bf16 else torch.float32}
    if cfg.load_in_4bit:
        from transformers import BitsAndBytesConfig

        kw["quantization_config"] = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4",
                                                       bnb_4bit_compute_dtype=torch.bfloat16,
                                                       bnb_4bit_use_double_quant=True)
        # the GPU index on this machine: with several nodes the global index runs past it
        kw["device_map"] = {"": state.local_process_index}
    model = Qwen2VLForConditionalGeneration.from_pretrained(base, **kw)
    processor = build_processor(base, min_pixels=cfg.min_pixels, max_pixels=cfg.max_pixels)
    return model, processor


def target_modules(model: Any, patterns: list[str]) -> list[str]:
    """Full names of the Linear layers whose name ends with one of ``patterns``."""
    import torch

    names = [n for n, m in model.named_modules()
             if isinstance(m, torch.nn.Linear) and any(n.endswith(p) for p in patterns)
             and "lm_head" not in n]
    if not names:
        raise ConfigError(f"no Linear layer matches lora_targets {patterns}")
    return names


def train(cfg: Flow2MermaidConfig) -> dict[str, Any]:
    """Run SFT (or continue it with ``cfg.resume``); returns a summary (steps, losses, paths)."""
    cfg.validate()
    from flowpath.errors import require

    for mod in ("torch", "transformers", "peft", "accelerate"):
        require(mod, "train", "Flow2Mermaid training")
    import torch
    from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training
    from transformers import set_seed

    from training.trainer_state import SafetensorsStateTrainer

    out = Path(cfg.output_dir)
    resume_from = prepare_run(cfg)
    set_seed(cfg.seed)
    records = read_records(cfg.train_jsonl, cfg.limit)
    eval_records = read_records(cfg.eval_jsonl, cfg.limit) if cfg.eval_jsonl else None
    model, processor = build_model_and_processor(cfg, records, out)
    if cfg.load_in_4bit:
        model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=cfg.activation_checkpointing)
    lora = LoraConfig(r=cfg.lora_r, lora_alpha=cfg.lora_alpha, lora_dropout=cfg.lora_dropout,
                      target_modules=target_modules(model, cfg.lora_targets), bias="none")
    model = get_peft_model(model, lora)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    logger.info("LoRA: %d trainable of %d parameters", trainable, sum(p.numel() for p in model.parameters()))

    use_cpu = not torch.cuda.is_available()
    args = cfg.training_arguments(
        use_cpu=use_cpu, bf16=cfg.bf16 and not use_cpu, save_strategy="steps",
        eval_strategy="steps" if eval_records else "no", eval_steps=cfg.eval_steps or cfg.save_steps,
        per_device_eval_batch_size=cfg.per_device_train_batch_size, logging_first_step=True,
        activation_checkpointing_kwargs={"use_reentrant": False} if cfg.activation_checkpointing else None,
        remove_unused_columns=False, report_to=[], disable_tqdm=True, ddp_find_unused_parameters=False)

    def complete(ckpt: Path) -> None:  # a checkpoint's adapter loads like the final one
        processor.tokenizer.save_pretrained(ckpt)
        processor.image_processor.save_pretrained(ckpt)

    trainer = SafetensorsStateTrainer(
        model=model, args=args, train_dataset=SFTDataset(records, processor, cfg.max_length),
        eval_dataset=SFTDataset(eval_records, processor, cfg.max_length) if eval_records else None,
        data_collator=Collator(processor.tokenizer.pad_token_id), callbacks=[checkpoint_callback(complete)])
    result = trainer.train(resume_from_checkpoint=str(resume_from) if resume_from else None)
    eval_metrics = trainer.evaluate() if eval_records else {}
    losses = [e["loss"] for e in trainer.state.log_history if "loss" in e]
    summary: dict[str, Any] = {"steps": trainer.state.global_step, "first_loss": losses[0] if losses else None,
                               "final_loss": losses[-1] if losses else None,
                               "eval_loss": eval_metrics.get("eval_loss"), "trainable_params": trainable,
                               "train_seconds": round(float(result.metrics.get("train_runtime", 0.0)), 1),
                               "resumed_from": str(resume_from) if resume_from else None}
    if trainer.is_world_process_zero():
        save_config(cfg, out / "config.yaml")
        write_log(trainer.state.log_history, out / "train_log.jsonl")
        adapter_dir = out / "adapter"
        trainer.accelerator.unwrap_model(trainer.model).save_pretrained(adapter_dir, safe_serialization=True)
        complete(adapter_dir)
        summary["adapter"] = str(adapter_dir)
        summary["base_model"] = str(out / "base") if cfg.base_model == "tiny" else cfg.base_model
        if cfg.merge:
            summary["merged"] = str(merge_adapter(summary["base_model"], adapter_dir, out / "merged"))
        (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    trainer.accelerator.wait_for_everyone()
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
    parser = ConfigParser(Flow2MermaidConfig, description=__doc__.split("\n\n")[0])
    parser.add_argument("--merge-only", nargs=2, metavar=("BASE", "ADAPTER"),
                        help="only merge ADAPTER into BASE and write to the config's output_dir/merged")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    try:
        cfg, extras = parser.parse(argv)
        if extras.merge_only:
            print(merge_adapter(extras.merge_only[0], extras.merge_only[1], Path(cfg.output_dir) / "merged"))
            return 0
        summary = train(cfg)
    except ValueError as exc:
        print(f"train_flow2mermaid: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
