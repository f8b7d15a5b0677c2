"""Record-by-record equality of ``--engine ray`` and the local engine on a benchmark slice.

    .venv/bin/python eval/ray_equality.py                         # the whole dev slice, source
    .venv/bin/python eval/ray_equality.py --transcriber ocr       # with tesseract OCR
    .venv/bin/python eval/ray_equality.py --out DIR --limit 10

Runs ``flowpath attribute`` on the slice's questions twice through the CLI, with the local
engine (one worker) into ``OUT/local`` and with ``--engine ray --actors 2`` (a local cluster of
``num_cpus=2``) into ``OUT/ray``, then compares ``results.jsonl`` record by record, timing
fields aside, and the parse files (Mermaid) image by image. An output folder that already holds
a finished run is resumed (nothing is redone), so a run interrupted here can be continued.
Prints the counts, each differing record with the keys that differ, CPU seconds and load, and
exits 1 when anything differs. Too slow for the test suite on 2 cores (about 2 x 120 CPU s);
``tests/pipeline/test_ray.py`` compares the engines on test charts and 4 dev questions.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: record keys that measure time, not behaviour
TIMING_KEYS = ("timings",)


def read_records(out: Path) -> dict[str, dict]:
    recs = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return {r["id"]: {k: v for k, v in r.items() if k not in TIMING_KEYS} for r in recs}


def cpu_seconds() -> float:
    """CPU seconds of this process and its waited-for children (Ray's processes included once
    the cluster is shut down)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def start_cluster(tries: int = 3) -> None:
    """A local two-CPU cluster for the Ray run (the CLI uses it: Ray is already initialised).
    Ray gives a starting node 30 s to register, which a loaded machine can miss: retried."""
    import ray

    for attempt in range(1, tries + 1):
        try:
            ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR",
                     runtime_env={"env_vars": {"PYTHONPATH": str(ROOT)}})
            return
        except Exception as exc:  # noqa: BLE001 - Ray raises a bare Exception on a slow start
            print(f"ray start {attempt}/{tries} failed: {exc}")
            ray.shutdown()
    raise SystemExit("could not start a local Ray cluster")


def main(argv: list[str] | None = None) -> int:
    from flowpath.cli import main as cli

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", type=Path, default=ROOT.parent / "shared" / "data" / "febench_dev")
    ap.add_argument("--out", type=Path, default=Path("/tmp/flowpath_ray_equality"))
    ap.add_argument("--transcriber", default="source")
    ap.add_argument("--limit", type=int, default=None, help="first N questions only")
    ap.add_argument("--actors", default="2")
    args = ap.parse_args(argv)

    questions = args.bench / "questions.jsonl"
    if args.limit:
        args.out.mkdir(parents=True, exist_ok=True)
        lines = questions.read_text().splitlines()[:args.limit]
        questions = args.out / "questions.jsonl"
        questions.write_text("\n".join(lines) + "\n")
    common = ["-q", "attribute", str(args.bench), "--questions", str(questions), "--segmenter",
              "classical", "--transcriber", args.transcriber, "--reasoner", "offline",
              "--no-progress"]
    print(f"load before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    start_cluster()
    for engine, extra in (("local", []), ("ray", ["--engine", "ray", "--actors", args.actors])):
        t, c = time.perf_counter(), cpu_seconds()
        code = cli([*common, "--out", str(args.out / engine), *extra])
        print(f"{engine:5s}: exit {code}, {time.perf_counter() - t:.1f} s wall, "
              f"{cpu_seconds() - c:.1f} CPU s (this process + children)")
    local, ray = read_records(args.out / "local"), read_records(args.out / "ray")
    differ = {qid: sorted(k for k in set(local[qid]) | set(ray.get(qid, {}))
                          if local[qid].get(k) != ray.get(qid, {}).get(k))
              for qid in local if local[qid] != ray.get(qid)}
    missing = sorted(set(local) ^ set(ray))
    mmd = sorted(p.name for p in (args.out / "local" / "parses").glob("*.mmd"))
    mmd_differ = [n for n in mmd if (args.out / "local" / "parses" / n).read_text()
                  != (args.out / "ray" / "parses" / n).read_text()]
    print(f"questions: local {len(local)}, ray {len(ray)}; in one only: {missing or 'none'}")
    print(f"records equal (timings aside): {len(local) - len(differ)} / {len(local)}")
    print(f"errors: local {sum(bool(r['error']) for r in local.values())}, "
          f"ray {sum(bool(r['error']) for r in ray.values())}")
    print(f"parses (.mmd) equal: {len(mmd) - len(mmd_differ)} / {len(mmd)}")
    for qid, keys in differ.items():
        print(f"  differs: {qid}: {', '.join(keys)}")
    for name in mmd_differ:
        print(f"  parse differs: {name}")
    print(f"load after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 1 if differ or missing or mmd_differ else 0


if __name__ == "__main__":
    sys.exit(main())
