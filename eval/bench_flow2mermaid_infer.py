"""Flow2Mermaid inference speed: charts/s of `Qwen2VLTranscriber`, one chart at a time vs batched.

    python eval/bench_flow2mermaid_infer.py [--charts 16] [--batch-size 8] [--max-new-tokens 64]
    python eval/bench_flow2mermaid_infer.py --base MERGED_DIR --device cuda --batch-size 16 --charts 64

Without ``--base`` the model is the tiny random-init Qwen2-VL of the CPU recipe
(``training/tiny_qwen2vl.py``), built in a temporary directory (nothing is downloaded). The
charts are synthetic labelled images of 2-12 nodes; decoding is greedy with one attempt, so both
runs do the same work and the script checks that they wrote the same Mermaid. Prints wall and
CPU seconds (this process) and charts/s for each run, and the speed-up.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np


def synthetic_charts(n: int, seed: int = 0) -> list[Any]:
    """``n`` labelled charts: white images of varied size with grey boxes and 2-12 letters."""
    from flowpath.geometry import Region
    from flowpath.models.base import LabelledChart

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        k = int(rng.integers(2, 13))
        w, h = int(rng.integers(200, 480)), int(rng.integers(200, 640))
        img = np.full((h, w, 3), 255, np.uint8)
        regions = {}
        for j in range(k):
            y = int(j * (h - 20) / k)
            img[y + 2:y + 14, 20:w - 20] = 200
            regions[chr(65 + j)] = Region((20, y + 2, w - 20, y + 14))
        out.append(LabelledChart(img, img, regions))
    return out


def tiny_base(root: Path) -> Path:
    """Save the tiny random-init Qwen2-VL (tokenizer trained on a few Mermaid lines) under ``root``."""
    from flowpath.transcribe.qwen2vl import build_processor
    from training.tiny_qwen2vl import tiny_qwen2vl, train_tiny_tokenizer

    text = ['flowchart TD\n    A(["Start"]) --> B{"Is x > 3?"}\n    B -->|"Yes"| C["Double x"]\n',
            'flowchart LR\n    A[/"Read the file"/] --> B["Count the words"]\n    B --> C(["Stop"])\n']
    tok = train_tiny_tokenizer(text * 3, vocab_size=300)
    tiny_qwen2vl(tok).save_pretrained(root, safe_serialization=True)
    tok.save_pretrained(root)
    build_processor(root, min_pixels=16 * 28 * 28, max_pixels=64 * 28 * 28).image_processor.save_pretrained(root)
    return root


def timed(tr: Any, charts: list[Any]) -> tuple[list[str], float, float]:
    """Transcribe ``charts``; returns the Mermaid texts, wall seconds and CPU seconds."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = [t.mermaid for t in tr(charts)]
    return out, time.perf_counter() - w0, time.process_time() - c0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", help="a Qwen2-VL model directory (default: the tiny random-init model)")
    ap.add_argument("--adapter", help="a LoRA adapter directory")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--quantization", choices=["4bit", "8bit"], help="bitsandbytes load (CUDA only)")
    ap.add_argument("--charts", type=int, default=16)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--max-new-tokens", type=int, default=64, help="token cap per chart")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    args = ap.parse_args()

    import torch

    from flowpath.transcribe.qwen2vl import Qwen2VLTranscriber

    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        base = args.base or str(tiny_base(Path(tmp)))
        charts = synthetic_charts(args.charts)
        kw = dict(base=base, adapter=args.adapter, device=args.device, quantization=args.quantization,
                  max_new_tokens=args.max_new_tokens, decodings=[{"do_sample": False}])
        tr = Qwen2VLTranscriber(batch_size=1, **kw)
        timed(tr, charts[:1])  # warm-up: first-call allocations are not the steady state
        one, w1, c1 = timed(tr, charts)
        tr.batch_size = args.batch_size
        many, wb, cb = timed(tr, charts)
    print(f"model: {'tiny random-init Qwen2-VL' if not args.base else base} on {args.device}; "
          f"{args.charts} charts, greedy, <= {args.max_new_tokens} new tokens per chart")
    print(f"one at a time : {w1:7.2f} s wall {c1:7.2f} s CPU  {args.charts / w1:6.2f} charts/s")
    print(f"batch size {args.batch_size:<3d}: {wb:7.2f} s wall {cb:7.2f} s CPU  {args.charts / wb:6.2f} charts/s")
    print(f"speed-up {w1 / wb:.2f}x wall, {c1 / cb:.2f}x CPU; outputs identical: {one == many}")
    return 0 if one == many else 1


if __name__ == "__main__":
    raise SystemExit(main())
