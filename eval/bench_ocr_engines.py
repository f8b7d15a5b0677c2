"""OCR engines compared on hand-written charts: tesseract, rapidocr (PP-OCR) and the ``auto`` rule.

    python eval/bench_ocr_engines.py [--charts 6] [--engines tesseract,rapidocr,auto]

Charts are drawn with PIL in each installed Debian handwriting font (`tests/transcribe/
handwriting.py`: a chain of boxes, 1-4 words a node, four-word nodes on two lines, wobbly
strokes) and transcribed on their gold regions. Prints node-text word F1, edge F1 and CPU
seconds per chart per font and engine; state the machine's load beside the figures. The clean
render side of the comparison is ``flowpath eval transcribe`` on febench_dev.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--charts", type=int, default=6, help="charts per font")
    ap.add_argument("--nodes", type=int, default=4, help="nodes per chart")
    ap.add_argument("--engines", default="tesseract,rapidocr,auto")
    ap.add_argument("--seed", type=int, default=100)
    args = ap.parse_args()

    from flowpath.evaluation.transcription import TranscriptionMetric
    from flowpath.models.base import LabelledChart
    from flowpath.transcribe.ocr import OCRTranscriber
    from tests.transcribe.handwriting import available_fonts, render_chart

    fonts = available_fonts()
    if not fonts:
        print("no handwriting font installed (apt-get install fonts-dkg-handwriting fonts-humor-sans)")
        return 1
    charts = {name: [render_chart(path, args.seed + k, nodes=args.nodes) for k in range(args.charts)]
              for name, path in fonts.items()}
    print(f"{'font':24s} {'engine':10s} {'word F1':>8s} {'edge F1':>8s} {'cpu s/chart':>12s}")
    for engine in args.engines.split(","):
        tr = OCRTranscriber(engine=engine)
        tr([LabelledChart(*_labelled(charts[next(iter(charts))][0]))])  # load the engines
        for name, items in charts.items():
            metric = TranscriptionMetric()
            c = time.process_time()
            for img, regions, gold in items:
                out = tr([LabelledChart(img, img, regions)])[0]
                metric.update(out.chart, regions, gold, regions)
            s = metric.summary()["overall"]
            print(f"{name:24s} {engine:10s} {s['word_f1']:8.3f} {s['edge_f1']:8.3f} "
                  f"{(time.process_time() - c) / len(items):12.2f}")
    return 0


def _labelled(item):  # type: ignore[no-untyped-def]
    img, regions, _ = item
    return img, img, regions


if __name__ == "__main__":
    raise SystemExit(main())
