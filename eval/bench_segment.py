"""Seconds per chart of each segmenter on this machine.

    OMP_NUM_THREADS=1 python eval/bench_segment.py --bench ../shared/data/febench_dev
    python eval/bench_segment.py --bench DIR --mask2former runs/segmenter_cpu/final

Times the classical segmenter and, when torch is installed, the Mask2Former checkpoint shipped in
``flowpath/resources/segmenter`` (or the one given with ``--mask2former``). Prints, per
segmenter: mean / median / p90 / max seconds per chart and seconds per 20 gold nodes (the target
for the default segmenter is <= 1 s per 20-node chart), and mean CPU seconds per chart (the cost
on unshared cores; wall time grows with machine load). Without a Mask2Former checkpoint,
``--mask2former-arch configs/segmenter_cpu.yaml`` times an untrained model of that
architecture (inference cost only; its regions are meaningless).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flowpath.datasets.febench import Benchmark  # noqa: E402
from flowpath.io import load_image  # noqa: E402


def _untrained_mask2former(config: str):
    """A random-init Mask2Former of the architecture in a training config (timing only)."""
    import yaml

    from training.train_segmenter import SegTrainConfig, build_model

    data = yaml.safe_load(Path(config).read_text())
    data["train_data"] = []
    cfg = SegTrainConfig(**{k: v for k, v in data.items() if k in SegTrainConfig.__dataclass_fields__})
    model, processor = build_model(cfg)
    from flowpath.segment.mask2former import Mask2FormerSegmenter

    return Mask2FormerSegmenter(model=model, processor=processor, short_side=cfg.short_side,
                                score_threshold=cfg.score_threshold)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bench", action="append", required=True, help="benchmark-layout folder (repeatable)")
    p.add_argument("--limit", type=int, default=None, help="charts per folder")
    p.add_argument("--mask2former", help="Mask2Former checkpoint directory (default: the shipped one)")
    p.add_argument("--classical-only", action="store_true", help="do not time a Mask2Former")
    p.add_argument("--mask2former-arch", help="training config: time an untrained model of it")
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--json", help="also write the figures here")
    args = p.parse_args(argv)

    from flowpath.segment import ClassicalSegmenter

    segmenters = {"classical": ClassicalSegmenter()}
    from importlib.util import find_spec

    from flowpath.segment.mask2former import SHIPPED_DIR, Mask2FormerSegmenter

    shipped = (SHIPPED_DIR / "config.json").is_file() and find_spec("torch") is not None
    if not args.classical_only and (args.mask2former or args.mask2former_arch or shipped):
        import torch

        torch.set_num_threads(args.threads)
        segmenters["mask2former"] = (_untrained_mask2former(args.mask2former_arch) if args.mask2former_arch
                                     else Mask2FormerSegmenter(args.mask2former, device="cpu"))
    charts = []
    for folder in args.bench:
        bench = Benchmark(folder)
        for cid in bench.chart_ids[: args.limit]:
            c = bench.chart(cid)
            charts.append((f"{Path(folder).name}/{cid}", load_image(c.image_path), len(c.regions)))
    results = {}
    for name, seg in segmenters.items():
        seg([charts[0][1]])  # warm-up (imports, first-call allocations)
        secs, per20, cpu = [], [], []
        for _, img, n in charts:
            t0, c0 = time.perf_counter(), time.process_time()
            seg([img])
            dt = time.perf_counter() - t0
            cpu.append(time.process_time() - c0)
            secs.append(dt)
            per20.append(dt / max(n, 1) * 20)
        q = sorted(secs)
        results[name] = {"charts": len(secs), "mean_s": statistics.mean(secs), "median_s": statistics.median(secs),
                         "p90_s": q[int(0.9 * (len(q) - 1))], "max_s": q[-1],
                         "mean_s_per_20_nodes": statistics.mean(per20),
                         # CPU seconds: what a chart costs when the cores are not shared
                         "mean_cpu_s": statistics.mean(cpu)}
    print(f"{'segmenter':<14}{'charts':>8}{'mean s':>10}{'median s':>10}{'p90 s':>10}{'max s':>10}{'s/20 nodes':>12}{'cpu s':>8}")
    for name, r in results.items():
        print(f"{name:<14}{r['charts']:>8}{r['mean_s']:>10.3f}{r['median_s']:>10.3f}{r['p90_s']:>10.3f}"
              f"{r['max_s']:>10.3f}{r['mean_s_per_20_nodes']:>12.3f}{r['mean_cpu_s']:>8.3f}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
