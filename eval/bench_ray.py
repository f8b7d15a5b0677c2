"""Scaling of ``--engine ray`` against the local engine: charts/s and peak RSS.

    .venv/bin/python eval/bench_ray.py                  # 200 charts (the dev slice repeated)
    .venv/bin/python eval/bench_ray.py --charts 24      # on a busy machine

Builds ``--charts`` febench_dev-style charts by repeating the dev slice's charts (each copy a
separate file with its benchmark-layout JSON beside it) with the first dev question of each
chart, then runs three configurations, each in a fresh child process:

* ``local``: `flowpath.batch.run_attribute` with ``workers=1``;
* ``ray x1`` / ``ray x2``: `flowpath.distributed.run_attribute_ray` with 1 and 2 actors on a
  local cluster started with ``num_cpus=2`` before the clock starts (its start-up is printed
  apart).

All use real components without OCR: the classical segmenter, the charts' own Mermaid
(``source`` transcriber, matched by geometry) and the offline reasoner, writing overlays and
the report. Peak RSS is the largest sum of resident memory over the child and every process
under it (Ray's GCS, raylet and workers included), sampled every 0.2 s; CPU seconds are summed
over the same processes. Prints one row per configuration, the 2-vs-1-actor ratio and the
machine load (``os.getloadavg``) before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT.parent / "shared" / "data" / "febench_dev"
sys.path.insert(0, str(ROOT))

CONFIGS = {"local": 0, "ray x1": 1, "ray x2": 2}


def build_set(root: Path, count: int) -> Path:
    """``count`` chart copies under ``root/charts`` and ``root/questions.jsonl``."""
    first: dict[str, dict] = {}
    for line in (DEV / "questions.jsonl").read_text().splitlines():
        q = json.loads(line)
        first.setdefault(q["chart"], q)
    charts = sorted(first)
    (root / "charts").mkdir(parents=True)
    rows = []
    for i in range(count):
        chart = charts[i % len(charts)]
        name = f"{chart}_{i:04d}"
        for suffix in (".png", ".json"):
            shutil.copyfile(DEV / "charts" / f"{chart}{suffix}", root / "charts" / f"{name}{suffix}")
        q = first[chart]
        rows.append({"id": f"{q['id']}_{i:04d}", "image": f"charts/{name}.png",
                     "question": q["question"], "answer": q["answer"]})
    qpath = root / "questions.jsonl"
    qpath.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return qpath


def pipeline():  # a module-level factory: Ray pickles it by reference
    from flowpath.pipeline import FlowPath

    return FlowPath.from_names("classical", "source", "offline")


def child(data: Path, out: Path, actors: int) -> None:
    """One configuration; prints one JSON line of figures."""
    startup = 0.0
    t = time.perf_counter()
    if actors:
        import ray

        from flowpath.distributed import ActorPool, run_attribute_ray

        ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR",
                 runtime_env={"env_vars": {"PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}})
        startup = time.perf_counter() - t
        t = time.perf_counter()
        s = run_attribute_ray(pipeline, data, out, questions=data / "questions.jsonl",
                              pool=ActorPool(actors=actors), progress=False)
    else:
        from flowpath.batch import run_attribute

        s = run_attribute(pipeline, data, out, questions=data / "questions.jsonl", workers=1,
                          progress=False)
    wall = time.perf_counter() - t
    print(json.dumps({"wall": wall, "startup": startup, "questions": s["questions"],
                      "failed": s["failed"]}))


def watch(proc: subprocess.Popen, stats: dict[str, float]) -> None:
    """Peak summed RSS and summed CPU seconds of ``proc`` and all its descendants."""
    import psutil

    root = psutil.Process(proc.pid)
    cpu: dict[int, float] = {}
    while proc.poll() is None:
        rss = 0
        try:
            procs = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            break
        for p in procs:
            try:
                rss += p.memory_info().rss
                t = p.cpu_times()
                cpu[p.pid] = t.user + t.system
            except psutil.NoSuchProcess:
                continue
        stats["peak_rss"] = max(stats.get("peak_rss", 0), rss)
        stats["cpu"] = sum(cpu.values())
        time.sleep(0.2)


def run_config(data: Path, out: Path, actors: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, __file__, "--child", str(data), str(out),
                             str(actors)], stdout=subprocess.PIPE, env=env, text=True)
    stats: dict[str, float] = {}
    th = threading.Thread(target=watch, args=(proc, stats))
    th.start()
    stdout, _ = proc.communicate()
    th.join()
    if proc.returncode:
        raise SystemExit(f"configuration with {actors} actors failed (exit {proc.returncode})")
    return {**json.loads(stdout.strip().splitlines()[-1]), **stats}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--charts", type=int, default=200, help="charts (dev slice repeated)")
    ap.add_argument("--configs", default=",".join(CONFIGS), help="subset of: " + ", ".join(CONFIGS))
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(Path(args.child[0]), Path(args.child[1]), int(args.child[2]))
        return
    print(f"load average before: {os.getloadavg()}  cores: {os.cpu_count()}")
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        build_set(data, args.charts)
        print(f"{'config':8} {'charts':>6} {'wall s':>8} {'charts/s':>9} {'CPU s':>7} "
              f"{'peak RSS MB':>11} {'ray start s':>11}")
        for name in args.configs.split(","):
            r = run_config(data, Path(tmp) / name.replace(" ", ""), CONFIGS[name])
            rows[name] = r
            print(f"{name:8} {r['questions']:6d} {r['wall']:8.1f} {r['questions'] / r['wall']:9.3f} "
                  f"{r['cpu']:7.1f} {r['peak_rss'] / 2**20:11.1f} {r['startup']:11.1f}"
                  + (f"  ({r['failed']} failed)" if r["failed"] else ""), flush=True)
    if "ray x1" in rows and "ray x2" in rows:
        print(f"ray 2 actors / 1 actor: {rows['ray x1']['wall'] / rows['ray x2']['wall']:.2f}x")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
