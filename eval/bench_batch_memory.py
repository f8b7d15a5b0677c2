"""Batch memory: peak RSS of ``flowpath attribute`` (`flowpath.batch.run_attribute`) over 10,
100 and 1,000 charts. The figure must not grow with the number of charts: the batch keeps one
parsed chart per worker, not a cache of every chart's images.

    .venv/bin/python eval/bench_batch_memory.py                   # 10, 100, 1000 charts
    .venv/bin/python eval/bench_batch_memory.py --counts 50,500 --size 1200x1600 --workers 2

Charts are drawn here with PIL (3-7 boxed steps in a column, each with its Mermaid source and
node boxes in a benchmark-layout ``chart.json`` beside the image), so the run uses real
components without OCR: the classical segmenter, the ``source`` transcriber (matched by
geometry) and the offline reasoner, with overlays and the report written. Each count runs in a
fresh child process, whose own ``ru_maxrss`` is the peak. Prints one row per count.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

STEPS = ["Start", "Read the input", "Check the value", "Retry the request", "Log the error",
         "Print the result", "Stop"]


def draw_set(root: Path, n: int, size: tuple[int, int]) -> Path:
    """``n`` charts under ``root/images`` plus ``root/questions.jsonl`` (one question each)."""
    from PIL import Image, ImageDraw

    images = root / "images"
    images.mkdir(parents=True, exist_ok=True)
    w, h = size
    rows = []
    for i in range(n):
        k = 3 + i % 5
        texts = [f"{STEPS[j % len(STEPS)]} {i}" for j in range(k)]
        img = Image.new("RGB", (w, h), "white")
        d = ImageDraw.Draw(img)
        step = h // (k + 1)
        boxes = {}
        for j, text in enumerate(texts):
            x0 = w // 4 + (i * 7 + j * 13) % (w // 8)
            box = (x0, 20 + j * step, x0 + w // 2, 20 + j * step + step // 2)
            d.rectangle(box, outline="black", width=3, fill=(236, 236, 255))
            d.text((box[0] + 12, box[1] + step // 5), text, fill="black")
            if j:
                d.line([(w // 2, boxes[f"N{j - 1}"][3]), (w // 2, box[1])], fill="black", width=3)
            boxes[f"N{j}"] = box
        name = f"c{i:04d}"
        img.save(images / f"{name}.png")
        mermaid = "flowchart TD\n" + "\n".join(
            f'    N{j}["{t}"] --> N{j + 1}["{texts[j + 1]}"]' for j, t in enumerate(texts[:-1]))
        (images / f"{name}.json").write_text(json.dumps({
            "mermaid": mermaid, "nodes": {nid: {"bbox": list(b)} for nid, b in boxes.items()}}))
        rows.append({"id": name, "image": f"{name}.png",
                     "question": f"What happens after '{texts[0]}'?", "answer": texts[1]})
    qpath = root / "questions.jsonl"
    qpath.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return qpath


def child(data: Path, count: int, out: Path, workers: int) -> None:
    """Run the batch over the first ``count`` questions; print one JSON line of figures."""
    from flowpath.batch import read_questions, run_attribute
    from flowpath.pipeline import FlowPath

    questions = [{"id": it.id, "image": it.image, "question": it.question, "answer": it.answer}
                 for it in read_questions(data / "questions.jsonl")[:count]]
    fp = FlowPath.from_names("classical", "source", "offline")
    t = time.perf_counter()
    s = run_attribute(fp, data / "images", out, questions=questions, workers=workers,
                      progress=False)
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"charts": count, "ok": s["ok"], "failed": s["failed"],
                      "peak_rss_mb": round(ru.ru_maxrss / 1024, 1),
                      "wall_s": round(time.perf_counter() - t, 1),
                      "cpu_s": round(ru.ru_utime + ru.ru_stime, 1)}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--counts", default="10,100,1000", help="comma-separated chart counts")
    ap.add_argument("--size", default="600x800", help="chart size WxH in pixels")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.data, args.child, args.out, args.workers)
        return
    counts = [int(c) for c in args.counts.split(",")]
    size = tuple(int(v) for v in args.size.lower().split("x"))
    with tempfile.TemporaryDirectory(prefix="flowpath-bench-mem-") as tmp:
        root = Path(tmp)
        t = time.perf_counter()
        draw_set(root, max(counts), size)  # type: ignore[arg-type]
        print(f"drew {max(counts)} charts of {size[0]}x{size[1]} px in "
              f"{time.perf_counter() - t:.0f} s; load {os.getloadavg()[0]:.2f}")
        print(f"{'charts':>7} {'ok':>6} {'failed':>6} {'peak RSS MB':>12} {'wall s':>8} {'CPU s':>8}")
        for n in counts:
            proc = subprocess.run([sys.executable, __file__, "--child", str(n), "--data", str(root),
                                   "--out", str(root / f"out{n}"), "--workers", str(args.workers)],
                                  capture_output=True, text=True, check=False)
            if proc.returncode not in (0,):
                sys.exit(f"child for {n} charts failed:\n{proc.stderr[-3000:]}")
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            print(f"{r['charts']:>7} {r['ok']:>6} {r['failed']:>6} {r['peak_rss_mb']:>12} "
                  f"{r['wall_s']:>8} {r['cpu_s']:>8}")


if __name__ == "__main__":
    main()
