"""Time to first answer of ``flowpath demo``: start the page, then ask about an example chart
through the page's HTTP API (``/answer``, what the Attribute button calls) with gradio_client.

    .venv/bin/python eval/bench_demo.py                 # tea.png, then the other examples
    .venv/bin/python eval/bench_demo.py --chart loan

Prints start-up seconds, then per question the wall seconds from request to answer and the CPU
seconds this process and its children (tesseract) spent meanwhile, for the first question on
the chosen chart (a parse), a second question on it (the parse cache) and the first question on
each other example chart. Target: first answer < 3 s on 2 cores after start-up. The load
average is printed before and after: on a shared machine compare only runs at similar load.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--examples", default=str(REPO_ROOT / "examples"), help="examples folder")
    ap.add_argument("--chart", default="tea", help="example chart asked about first")
    args = ap.parse_args(argv)

    questions = [json.loads(x) for x in
                 (Path(args.examples) / "questions.jsonl").read_text("utf-8").splitlines() if x.strip()]
    first = [q for q in questions if q["chart"] == args.chart]
    if len(first) < 2:
        raise SystemExit(f"--chart {args.chart}: needs two questions in {args.examples}")
    others = {q["chart"]: q for q in questions if q["chart"] != args.chart}

    print(_load())
    t0, c0 = time.perf_counter(), _cpu()
    from gradio_client import Client, handle_file

    from flowpath.demo import ANSWER_API, launch_demo

    app = launch_demo(port=_free_port(), examples=args.examples, block=False)
    startup, startup_cpu = time.perf_counter() - t0, _cpu() - c0
    print(f"start-up (imports, components, server): {startup:.2f} s wall, {startup_cpu:.2f} s CPU")
    try:
        # the output images stay on the server: a browser fetches them, this process need not
        client = Client(app.local_url, verbose=False, download_files=False)
        rows = [("first question, " + args.chart, first[0]), ("second question, same chart", first[1])]
        rows += [(f"first question, {name}", q) for name, q in others.items()]
        for label, q in rows:
            t, c = time.perf_counter(), _cpu()
            out = client.predict(handle_file(str(Path(args.examples) / q["image"])), q["question"],
                                 q["answer"], None, None, None, api_name=f"/{ANSWER_API}")
            wall, cpu = time.perf_counter() - t, _cpu() - c
            status = out[0]
            ok = "fp-letter" in status or "Attributed nodes" in status
            print(f"{label:40s} {wall:6.2f} s wall {cpu:6.2f} s CPU  {'ok' if ok else 'FAILED'}")
    finally:
        app.close()
    print(_load())
    return 0


if __name__ == "__main__":
    sys.exit(main())
