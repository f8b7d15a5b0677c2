"""Generator benchmark: end-to-end throughput and region accuracy, printed as figures.

    python eval/bench_gen.py --charts 30 --workers 2 [--other-raster 16] [--baseline 8] [--mmdc PATH] [--iou 3] [--iou-flowchartjs 3] [--iou-d2 3]

1. Throughput of the real pipeline (render in one long-lived Chromium page + rasterise (browser
   screenshot or cairosvg) + regions + write PNG/JSON), 10-30-node procedural charts,
   ``--workers`` processes.
2. The same work with a *fresh browser process per chart*: mermaid-cli (``mmdc``) if ``--mmdc``
   points at an installed one (it gets /usr/bin/chromium through a puppeteer config), otherwise
   our own renderer started and stopped around every chart. Ratio = (1) / (2).
3. Optional: the other rasteriser on the same charts (``--other-raster N``).
4. Optional: region accuracy, mask IoU of node polygons vs each node's rasterised shape, over all
   style families (``data_gen.verify``), of Mermaid renders (``--iou N``) and of flowchart.js
   drawings (``--iou-flowchartjs N``) and of D2 drawings (``--iou-d2 N``).

Figures depend on the machine's load; the script prints the 1-minute load average alongside.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from data_gen.pipeline import GenConfig, procedural_jobs, run  # noqa: E402


def _cpu_seconds() -> float:
    """CPU time of this process plus its finished children (workers, and Chromium through the
    playwright driver, once they have exited): a load-independent cost measure."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def bench_pipeline(n: int, workers: int, seed: int, rasterizer: str = "cairo") -> dict:
    out = Path(tempfile.mkdtemp(prefix="bench-gen-"))
    try:
        cfg = GenConfig(out=out, count=n, seed=seed, workers=workers, min_nodes=10, max_nodes=30,
                        rasterizer=rasterizer, prefix="b")
        # warm-up excluded: browser start is paid once per run, report it separately
        t0, c0 = time.time(), _cpu_seconds()
        summary = run(cfg)
        wall, cpu = time.time() - t0, _cpu_seconds() - c0
        nodes = [len(json.loads(f.read_text())["nodes"]) for f in (out / "charts").glob("*.json")]
        n_ok = summary["charts_written"]
        return {"charts": n_ok, "failed": summary["charts_failed"],
                "seconds": round(wall, 2), "charts_per_s": round(n_ok / wall, 3),
                "cpu_s_per_chart": round(cpu / max(1, n_ok), 3),
                "mean_nodes": round(sum(nodes) / max(1, len(nodes)), 1)}
    finally:
        shutil.rmtree(out, ignore_errors=True)


def bench_fresh_browser(n: int, seed: int, mmdc: str | None) -> dict:
    t0, c0 = time.time(), _cpu_seconds()
    res = _fresh_browser(n, seed, mmdc)
    cpu = _cpu_seconds() - c0
    res["cpu_s_per_chart"] = round(cpu / max(1, res["charts"]), 3)
    del t0
    return res


def _fresh_browser(n: int, seed: int, mmdc: str | None) -> dict:
    """Fresh browser process per chart; same rasterise/regions/write work for our renderer."""
    from data_gen.geometry import raster_size
    from data_gen.pipeline import finish_chart
    from data_gen.render import MermaidRenderer, find_chromium

    cfg = GenConfig(out=Path(tempfile.mkdtemp(prefix="bench-fresh-")), count=n, seed=seed,
                    min_nodes=10, max_nodes=30, prefix="f")
    (cfg.out / "charts").mkdir(parents=True)
    jobs = list(procedural_jobs(cfg))
    t0 = time.time()
    done = 0
    try:
        if mmdc:
            pconf = cfg.out / "puppeteer.json"
            pconf.write_text(json.dumps({"executablePath": find_chromium(),
                                         "args": ["--no-sandbox", "--disable-gpu", "--headless"]}))
            mcfg = cfg.out / "mermaid.json"
            for job in jobs:
                mcfg.write_text(json.dumps({**job.style.mermaid_config(), "htmlLabels": False,
                                            "flowchart": {"htmlLabels": False}}))
                src = cfg.out / f"{job.id}.mmd"
                src.write_text(job.mermaid)
                proc = subprocess.run([mmdc, "-i", str(src), "-o", str(cfg.out / f"{job.id}.png"), "-s", "2",
                                       "-p", str(pconf), "-c", str(mcfg), "-q"], capture_output=True,
                                      env={**os.environ, "PUPPETEER_SKIP_DOWNLOAD": "1"}, timeout=120)
                done += proc.returncode == 0
            how = "mermaid-cli (mmdc -s 2, PNG only: no regions, no style CSS)"
        else:
            for job in jobs:
                with MermaidRenderer() as r:
                    o = r.render(job.mermaid, config=job.style.mermaid_config(), css=job.style.css())
                W, H, scale = raster_size(o.view_box)
                res = finish_chart({"id": job.id, "out": str(cfg.out), "mermaid": job.mermaid,
                                    "domain": job.domain, "outputs": ["bench"], "style": job.style.to_dict(),
                                    "svg": o.svg, "width": W, "height": H, "scale": list(scale),
                                    "render": {"view_box": list(o.view_box), "nodes": o.nodes,
                                               "edges": o.edges, "clusters": o.clusters}})
                done += res["ok"]
            how = "fresh Chromium process per chart (our renderer started/stopped per chart), inline"
    finally:
        shutil.rmtree(cfg.out, ignore_errors=True)
    wall = time.time() - t0
    return {"charts": done, "seconds": round(wall, 2), "charts_per_s": round(done / wall, 3), "how": how}


def bench_iou(n_per_family: int, seed: int) -> dict:
    from data_gen.geometry import raster_size
    from data_gen.procedural import random_flowchart
    from data_gen.render import MermaidRenderer
    from data_gen.styles import FAMILIES, sample_style
    from data_gen.verify import region_ious
    from flowpath.mermaid import to_mermaid

    # the hand-drawn family's rough.js hachure is not a filled silhouette (see below)
    families = [f for f in FAMILIES if f != "handdrawn"]
    per_family: dict[str, list[float]] = {f: [] for f in families}
    per_shape: dict[str, list[float]] = {}
    with MermaidRenderer() as r:
        for fam in families:
            for i in range(n_per_family):
                rng = random.Random(f"{seed}:{fam}:{i}")
                chart, _ = random_flowchart(rng, min_nodes=10, max_nodes=30)
                split = "eval" if i % 2 else "train"
                st = sample_style(fam, split, rng, list(chart.nodes), {n.id: n.kind for n in chart.nodes.values()})
                # handDrawn draws hachure *lines* as its fill: a filled-shape raster of it is not a
                # silhouette, so this check covers the classic look (see docs/generator.md)
                st.look = "classic"
                o = r.render(to_mermaid(chart), config=st.mermaid_config(), css=st.css(),
                             effects=st.page_options())
                W, H, scale = raster_size(o.view_box)
                ious, _ = region_ious(o, W, H, scale)
                per_family[fam] += list(ious.values())
                for nid, v in ious.items():
                    per_shape.setdefault(chart.nodes[nid].shape, []).append(v)
    allv = [v for vs in per_family.values() for v in vs]
    return {"nodes": len(allv), "mean_iou": round(sum(allv) / len(allv), 4), "min_iou": round(min(allv), 4),
            "per_family_mean": {k: round(sum(v) / len(v), 4) for k, v in per_family.items() if v},
            "per_shape_min": {k: round(min(v), 4) for k, v in sorted(per_shape.items())}}


def bench_iou_engine(engine: str, n_per_family: int, seed: int) -> dict:
    """Region IoU of drawings by ``engine`` (``flowchartjs``: `data_gen.flowchartjs.draw_flowchartjs`,
    ``d2``: `data_gen.d2.draw_d2`), per family (the handdrawn one excepted: neither has it)."""
    from data_gen.geometry import raster_size
    from data_gen.procedural import random_flowchart
    from data_gen.render import MermaidRenderer
    from data_gen.styles import FAMILIES, sample_style
    from data_gen.verify import region_ious

    if engine == "d2":
        from data_gen.d2 import draw_d2 as draw
    else:
        from data_gen.flowchartjs import draw_flowchartjs as draw
    families = [f for f in FAMILIES if f != "handdrawn"]
    per_family: dict[str, list[float]] = {f: [] for f in families}
    per_shape: dict[str, list[float]] = {}
    skipped = 0
    with MermaidRenderer() as r:
        for fam in families:
            for i in range(n_per_family):
                rng = random.Random(f"{seed}:{fam}:{i}")
                chart, _ = random_flowchart(rng, min_nodes=5, max_nodes=16)
                st = sample_style(fam, "eval", rng, list(chart.nodes), {n.id: n.kind for n in chart.nodes.values()})
                try:
                    plan, o = draw(r, chart, st, rng)
                except ValueError:
                    skipped += 1
                    continue
                W, H, scale = raster_size(o.view_box)
                ious, _ = region_ious(o, W, H, scale)
                per_family[fam] += list(ious.values())
                for nid, v in ious.items():
                    per_shape.setdefault(plan.chart.nodes[nid].shape, []).append(v)
    allv = [v for vs in per_family.values() for v in vs]
    return {"nodes": len(allv), "charts_without_layout": skipped, "mean_iou": round(sum(allv) / len(allv), 4),
            "min_iou": round(min(allv), 4),
            "per_family_mean": {k: round(sum(v) / len(v), 4) for k, v in per_family.items() if v},
            "per_shape_min": {k: round(min(v), 4) for k, v in sorted(per_shape.items())}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--charts", type=int, default=30, help="charts for the pipeline throughput run (0: skip)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--baseline", type=int, default=8, help="charts for the fresh-browser baseline (0: skip)")
    p.add_argument("--mmdc", default=None, help="path of mermaid-cli's mmdc for the baseline")
    p.add_argument("--rasterizer", choices=("browser", "cairo"), default="browser",
                   help="rasteriser of the main throughput run")
    p.add_argument("--other-raster", type=int, default=0,
                   help="charts for a second run with the other rasteriser (0: skip)")
    p.add_argument("--iou", type=int, default=0, help="charts per style family for the IoU figures (0: skip)")
    p.add_argument("--iou-flowchartjs", type=int, default=0,
                   help="charts per style family for the IoU figures of flowchart.js drawings (0: skip)")
    p.add_argument("--iou-d2", type=int, default=0,
                   help="charts per style family for the IoU figures of D2 drawings (0: skip)")
    p.add_argument("--seed", type=int, default=123)
    args = p.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    report: dict = {"load_avg_1min_before": round(os.getloadavg()[0], 2), "cpus": os.cpu_count()}
    main_key = f"pipeline_{args.rasterizer}"
    if args.charts:
        report[main_key] = bench_pipeline(args.charts, args.workers, args.seed, args.rasterizer)
        print(json.dumps({main_key: report[main_key]}), flush=True)
    if args.other_raster:
        other = "cairo" if args.rasterizer == "browser" else "browser"
        report[f"pipeline_{other}"] = bench_pipeline(args.other_raster, args.workers, args.seed, other)
        print(json.dumps({f"pipeline_{other}": report[f"pipeline_{other}"]}), flush=True)
    if args.baseline and args.charts:
        variants = [("fresh_chromium_per_chart", None)] + ([("mermaid_cli_per_chart", args.mmdc)] if args.mmdc else [])
        for name, exe in variants:
            report[name] = bench_fresh_browser(args.baseline, args.seed, exe)
            pc, fb = report[main_key], report[name]
            report[f"speedup_vs_{name}"] = {
                "wall": round(pc["charts_per_s"] / max(1e-9, fb["charts_per_s"]), 2),
                "cpu": round(fb["cpu_s_per_chart"] / max(1e-9, pc["cpu_s_per_chart"]), 2)}
            print(json.dumps({name: fb, f"speedup_vs_{name}": report[f"speedup_vs_{name}"]}), flush=True)
    if args.iou:
        report["region_iou"] = bench_iou(args.iou, args.seed)
        print(json.dumps({"region_iou": report["region_iou"]}), flush=True)
    for engine, n in (("flowchartjs", args.iou_flowchartjs), ("d2", args.iou_d2)):
        if n:
            report[f"region_iou_{engine}"] = bench_iou_engine(engine, n, args.seed)
            print(json.dumps({f"region_iou_{engine}": report[f"region_iou_{engine}"]}), flush=True)
    report["load_avg_1min_after"] = round(os.getloadavg()[0], 2)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
