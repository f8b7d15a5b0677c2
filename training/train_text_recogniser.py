"""Train the learned line recogniser (`flowpath.transcribe.ocr.recogniser`) on synthetic lines, on CPU.

Lines are drawn on the fly by `training.text_lines.LineSynth` (many Debian fonts at 8-16 px on
plain and saturated fills, degraded and cleaned as node crops are); the held-out wild eval fonts
(Caladea, DejaVu Sans) are never drawn. A fixed validation split of synthetic lines (another
seed) gives the character error rate (CER) every ``eval_steps``. Checkpoints are safetensors
(weights, and the optimizer state through `training.trainer_state`), so ``--resume`` continues a
run from its newest ``checkpoint-N``; as for the other trainers (`training.run.prepare_run`), a new
run refuses a non-empty ``output_dir`` unless ``--overwrite_output_dir`` is given::

    python training/train_text_recogniser.py --config configs/text_recogniser_cpu.yaml
    python training/train_text_recogniser.py --config configs/text_recogniser_cpu.yaml --resume true
    python training/train_text_recogniser.py --config configs/text_recogniser_cpu.yaml \
        --init_from RUN/checkpoint-N --learning_rate 5e-4 --max_steps 800 --output_dir FT  # anneal

The final model (``model.safetensors`` + ``config.json`` + ``train_record.json``) is written to
``output_dir``; copy it to ``flowpath/resources/text_recogniser`` to ship it.
"""

from __future__ import annotations

import json
import random
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from training.config import CommonTrainingArguments, ConfigError, ConfigParser, save_config  # noqa: E402


@dataclass(kw_only=True)
class TextRecTrainConfig(CommonTrainingArguments):
    """One recogniser training run (``configs/text_recogniser_cpu.yaml``)."""

    height: int = 32
    channels: list[int] = field(default_factory=lambda: [16, 32, 64, 64, 96, 96])
    hidden: int = 96
    layers: int = 2
    min_font_px: float = 8.0
    max_font_px: float = 16.0
    val_lines: int = 400
    val_seed: int = 10_000
    eval_steps: int = 250
    threads: int = 1  # torch intra-op threads (a shared 2-core machine: 1)
    # a model folder (or checkpoint-N) whose weights start a new run: a fine-tune with its own
    # optimizer and warm-up + cosine schedule (with ``--resume`` the run's checkpoint wins)
    init_from: str | None = None
    # share of training lines in the wild small-print look (`training.text_lines.LineSynth`),
    # at wild_min_font_px-wild_max_font_px; > 0 also measures a second validation set of such
    # lines only (seed val_seed + 1), logged as val_cer_wild (val_cer stays the first runs' set)
    wild_share: float = 0.0
    wild_min_font_px: float = 7.0
    wild_max_font_px: float = 11.0
    # share of training lines in the blurred web look (`training.text_lines.web_degrade`), at
    # blur_min_font_px-blur_max_font_px; > 0 also measures a third validation set of such lines
    # only (seed val_seed + 2), logged as val_cer_blur
    blur_share: float = 0.0
    blur_min_font_px: float = 8.5
    blur_max_font_px: float = 11.5
    # feed the network the uncleaned grey line (`crops.to_grey_crop`) instead of the cleaned one
    # (every training and validation line; saved in config.json as ``grey_input``)
    grey_input: bool = False
    # real-render lines (`training.render_lines`: node text of generated charts cut as the
    # transcriber cuts it, clean or grey crops as ``grey_input`` says): folders of its output, and
    # the share of training lines drawn from them (the rest are synthetic as above; 0: none)
    real_lines: list[str] = field(default_factory=list)
    real_share: float = 0.0
    # held-out real-render line folders (own seeds): validation CER on them, logged as
    # val_cer_real and per renderer / blur band (val_cer_real/<renderer>, val_cer_real/blur<band>)
    real_val: list[str] = field(default_factory=list)
    # keep real-render lines (training and validation) of charts whose line height is under this
    # (px; the recognisers read small print only); none: every line
    real_max_line_h: float | None = None

    def check(self) -> None:
        self.check_common()
        if self.max_steps <= 0:
            raise ConfigError("max_steps must be > 0 (lines are drawn on the fly: there are no epochs)")
        if self.init_from is not None and not (Path(self.init_from) / "model.safetensors").is_file():
            raise ConfigError(f"init_from: {Path(self.init_from) / 'model.safetensors'} is missing")
        if not 4 <= self.min_font_px <= self.max_font_px:
            raise ConfigError(f"need 4 <= min_font_px <= max_font_px, got {self.min_font_px}, {self.max_font_px}")
        if not 0 <= self.wild_share <= 1:
            raise ConfigError(f"wild_share must be in [0, 1], got {self.wild_share}")
        if not 0 <= self.blur_share <= 1 - self.wild_share:
            raise ConfigError(f"need 0 <= blur_share <= 1 - wild_share, got {self.blur_share}")
        if not 4 <= self.blur_min_font_px <= self.blur_max_font_px:
            raise ConfigError("need 4 <= blur_min_font_px <= blur_max_font_px, "
                              f"got {self.blur_min_font_px}, {self.blur_max_font_px}")
        if not 0 <= self.real_share <= 1:
            raise ConfigError(f"real_share must be in [0, 1], got {self.real_share}")
        if self.real_share > 0 and not self.real_lines:
            raise ConfigError("real_share > 0 needs real_lines (training/render_lines.py output folders)")
        for folder in [*self.real_lines, *self.real_val]:
            if not (Path(folder) / "lines.jsonl").is_file():
                raise ConfigError(f"{Path(folder) / 'lines.jsonl'} is missing (training/render_lines.py)")
        if not 4 <= self.wild_min_font_px <= self.wild_max_font_px:
            raise ConfigError("need 4 <= wild_min_font_px <= wild_max_font_px, "
                              f"got {self.wild_min_font_px}, {self.wild_max_font_px}")


def cer(pred: list[str], gold: list[str]) -> float:
    """Character error rate: summed edit distance over summed gold length."""
    from rapidfuzz.distance import Levenshtein

    edits = sum(Levenshtein.distance(p, g) for p, g in zip(pred, gold, strict=True))
    return edits / max(1, sum(len(g) for g in gold))


def warmup_cosine(step: int, warmup: int, total: int) -> float:
    """Learning-rate factor: linear warm-up over ``warmup`` steps, then a cosine down to 0."""
    import math

    if step < warmup:
        return (step + 1) / warmup
    return 0.5 * (1 + math.cos(math.pi * min(1.0, (step - warmup) / max(1, total - warmup))))


def encode(texts: list[str], charset: str) -> tuple[Any, Any]:
    import torch

    index = {c: i + 1 for i, c in enumerate(charset)}
    ids = [[index[c] for c in t if c in index] for t in texts]
    return torch.tensor([i for t in ids for i in t], dtype=torch.long), torch.tensor([len(t) for t in ids])


def evaluate(model: Any, lines: list[Any], texts: list[str], config: Any, batch: int = 64) -> float:
    import torch

    from flowpath.transcribe.ocr.recogniser import decode, line_tensor

    model.eval()
    pred: list[str] = []
    order = sorted(range(len(lines)), key=lambda i: lines[i].shape[1] / lines[i].shape[0])
    by_index: dict[int, str] = {}
    with torch.inference_mode():
        for k in range(0, len(order), batch):
            idx = order[k:k + batch]
            x, steps = line_tensor([lines[i] for i in idx], config.height)
            for i, (t, _) in zip(idx, decode(model(x), steps, config.charset), strict=True):
                by_index[i] = t
    pred = [by_index[i] for i in range(len(lines))]
    model.train()
    return cer(pred, texts)


def evaluate_real(model: Any, real: Any, config: Any) -> dict[str, float]:
    """CER on held-out real-render lines (`training.render_lines.RealLines`): all of them
    (``val_cer_real``), per renderer and per blur band of the chart's wild degrade pass."""
    from data_gen.pipeline import blur_band

    groups: dict[str, list[Any]] = {"": real.lines}
    for line in real.lines:
        groups.setdefault(f"/{line.renderer}", []).append(line)
        groups.setdefault(f"/blur{blur_band(line.blur)}", []).append(line)
    return {f"val_cer_real{name}": round(evaluate(model, [x.image for x in lines], [x.text for x in lines], config), 4)
            for name, lines in sorted(groups.items())}


def save_checkpoint(out: Path, step: int, model: Any, config: Any, optimizer: Any, scheduler: Any, rec: Any,
                    keep: int | None) -> None:
    from flowpath.transcribe.ocr.recogniser import save_recogniser
    from training.trainer_state import save_state

    cp = out / f"checkpoint-{step}"
    save_recogniser(model, config, cp)  # a checkpoint folder is a model folder too (`LineRecogniserEngine(cp)`)
    save_state({"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()},
               cp / "optimizer.safetensors")
    (cp / "trainer.json").write_text(json.dumps({"step": step, "synth_seed": rec}), encoding="utf-8")
    if keep:
        for old in sorted(out.glob("checkpoint-*"), key=lambda p: int(p.name.split("-")[1]))[:-keep]:
            shutil.rmtree(old)


def main(argv: list[str] | None = None) -> int:
    parser = ConfigParser(TextRecTrainConfig, description=__doc__.split("\n\n")[0])
    try:
        cfg, _ = parser.parse(argv)
        cfg.check()
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    import torch
    from safetensors.torch import load_file

    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    from flowpath.transcribe.ocr.recogniser import (
        RecogniserConfig,
        build_model,
        line_tensor,
        save_recogniser,
    )
    from flowpath.transcribe.ocr.text import dictionary_words
    from training.render_lines import RealLines
    from training.run import prepare_run
    from training.text_lines import LineSynth, font_names, train_fonts
    from training.trainer_state import load_state

    out = Path(cfg.output_dir)
    try:
        cp = prepare_run(cfg)  # the trainers' one output-folder policy: refuse / resume / overwrite
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    save_config(cfg, out / "train_config.yaml")
    mcfg = RecogniserConfig(height=cfg.height, channels=list(cfg.channels), hidden=cfg.hidden, layers=cfg.layers,
                            grey_input=cfg.grey_input)
    model = build_model(mcfg)
    n_params = sum(p.numel() for p in model.parameters())
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.learning_rate, weight_decay=cfg.weight_decay)
    warmup = int(cfg.warmup_steps * cfg.max_steps) if cfg.warmup_steps < 1 else int(cfg.warmup_steps)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: warmup_cosine(s, warmup, cfg.max_steps))
    fonts = train_fonts()
    words = dictionary_words()
    sizes = (cfg.min_font_px, cfg.max_font_px)
    wild: dict[str, Any] = {"wild_share": cfg.wild_share, "wild_sizes": (cfg.wild_min_font_px, cfg.wild_max_font_px),
                            "grey": cfg.grey_input}
    if cfg.blur_share > 0:
        wild.update(blur_share=cfg.blur_share, blur_sizes=(cfg.blur_min_font_px, cfg.blur_max_font_px))
    val = LineSynth(cfg.val_seed, fonts, words, sizes, grey=cfg.grey_input)
    val_samples = [val.sample() for _ in range(cfg.val_lines)]
    val_lines, val_texts = [s[0] for s in val_samples], [s[1] for s in val_samples]
    wild_val: tuple[list[Any], list[str]] | None = None
    if cfg.wild_share > 0:
        wval = LineSynth(cfg.val_seed + 1, fonts, words, sizes, wild_share=1.0, wild_sizes=wild["wild_sizes"],
                         grey=cfg.grey_input)
        wild_samples = [wval.sample() for _ in range(cfg.val_lines)]
        wild_val = ([s[0] for s in wild_samples], [s[1] for s in wild_samples])
    blur_val: tuple[list[Any], list[str]] | None = None
    if cfg.blur_share > 0:
        bval = LineSynth(cfg.val_seed + 2, fonts, words, sizes, blur_share=1.0,
                         blur_sizes=(cfg.blur_min_font_px, cfg.blur_max_font_px), grey=cfg.grey_input)
        blur_samples = [bval.sample() for _ in range(cfg.val_lines)]
        blur_val = ([s[0] for s in blur_samples], [s[1] for s in blur_samples])
    kind = "grey" if cfg.grey_input else "clean"
    real_val = RealLines(cfg.real_val, kind, charset=mcfg.charset, max_line_h=cfg.real_max_line_h) if cfg.real_val else None
    start = 0
    synth = LineSynth(cfg.seed, fonts, words, sizes, **wild)
    real = RealLines(cfg.real_lines, kind, cfg.seed, mcfg.charset, cfg.real_max_line_h) if cfg.real_share > 0 else None
    real_rng = random.Random(cfg.seed)
    if cfg.init_from is not None:
        model.load_state_dict(load_file(str(Path(cfg.init_from) / "model.safetensors")))
        print(f"weights from {cfg.init_from}", flush=True)
    if cp is None and cfg.init_from is not None:  # the starting point's figures, as step 0
        rec0: dict[str, Any] = {"step": 0, "val_cer": evaluate(model, val_lines, val_texts, mcfg)}
        if wild_val is not None:
            rec0["val_cer_wild"] = evaluate(model, *wild_val, mcfg)
        if blur_val is not None:
            rec0["val_cer_blur"] = evaluate(model, *blur_val, mcfg)
        if real_val is not None:
            rec0.update(evaluate_real(model, real_val, mcfg))
        print(json.dumps(rec0), flush=True)
        (out / "train_log.jsonl").open("a", encoding="utf-8").write(json.dumps(rec0) + "\n")
    if cp is not None:
        model.load_state_dict(load_file(str(cp / "model.safetensors")))
        state = load_state(cp / "optimizer.safetensors")
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        start = json.loads((cp / "trainer.json").read_text(encoding="utf-8"))["step"]
        # a resumed stream: a fresh seed per resume point (the stream has no cheap skip-ahead)
        synth = LineSynth(cfg.seed + start, fonts, words, sizes, **wild)
        real = RealLines(cfg.real_lines, kind, cfg.seed + start, mcfg.charset, cfg.real_max_line_h) if cfg.real_share > 0 else None
        real_rng = random.Random(cfg.seed + start)
        print(f"resumed from {cp} at step {start}", flush=True)
    ctc = torch.nn.CTCLoss(blank=0, zero_infinity=True)
    log = (out / "train_log.jsonl").open("a", encoding="utf-8")
    print(f"{n_params / 1e6:.2f} M parameters, {len(font_names(fonts))} font families, "
          f"{len(val_lines)} validation lines", flush=True)
    model.train()
    t0, cpu0 = time.time(), time.process_time()
    losses: list[float] = []
    best = (float("inf"), -1)
    for step in range(start + 1, cfg.max_steps + 1):
        samples = [real.sample() if real is not None and real_rng.random() < cfg.real_share else synth.sample()[:2]
                   for _ in range(cfg.per_device_train_batch_size)]
        samples.sort(key=lambda s: s[0].shape[1] / s[0].shape[0])
        x, steps = line_tensor([s[0] for s in samples], mcfg.height)
        targets, target_lens = encode([s[1] for s in samples], mcfg.charset)
        log_probs = model(x)  # (B, T, C)
        loss = ctc(log_probs.permute(1, 0, 2), targets, torch.tensor(steps), target_lens)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
        if step % cfg.logging_steps == 0:
            rec = {"step": step, "loss": sum(losses) / len(losses), "lr": scheduler.get_last_lr()[0],
                   "wall_s": round(time.time() - t0, 1), "cpu_s": round(time.process_time() - cpu0, 1)}
            losses = []
            if step % cfg.eval_steps == 0 or step == cfg.max_steps:
                rec["val_cer"] = evaluate(model, val_lines, val_texts, mcfg)
                if wild_val is not None:
                    rec["val_cer_wild"] = evaluate(model, *wild_val, mcfg)
                if blur_val is not None:
                    rec["val_cer_blur"] = evaluate(model, *blur_val, mcfg)
                if real_val is not None:
                    rec.update(evaluate_real(model, real_val, mcfg))
                if rec["val_cer"] < best[0]:
                    best = (rec["val_cer"], step)
            log.write(json.dumps(rec) + "\n")
            log.flush()
            print(json.dumps(rec), flush=True)
        if step % cfg.save_steps == 0 or step == cfg.max_steps:
            save_checkpoint(out, step, model, mcfg, optimizer, scheduler, cfg.seed + start, cfg.save_total_limit)
    final_cer = evaluate(model, val_lines, val_texts, mcfg)
    save_recogniser(model, mcfg, out)
    record = {"steps": cfg.max_steps, "batch": cfg.per_device_train_batch_size, "parameters": n_params,
              "init_from": cfg.init_from, "wild_share": cfg.wild_share, "blur_share": cfg.blur_share,
              "grey_input": cfg.grey_input, "real_lines": cfg.real_lines, "real_share": cfg.real_share,
              "real_line_count": 0 if real is None else len(real.lines),
              **({} if real_val is None else evaluate_real(model, real_val, mcfg)),
              "val_cer": final_cer, "val_lines": len(val_lines), "val_seed": cfg.val_seed, "seed": cfg.seed,
              "font_families": font_names(fonts), "font_px": list(sizes),
              "command": "python training/train_text_recogniser.py " + " ".join(sys.argv[1:] if argv is None else argv)}
    (out / "train_record.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"final validation CER {final_cer:.4f}; wrote {out / 'model.safetensors'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
