"""Edge labels on real renders: Mermaid draws each label on a translucent box over its own
connector (the line shows through the text), and labels inside a subgraph sit on the
subgraph's fill. Rendered with the generator (Chromium + the npm Mermaid), read by the real
tesseract."""

from __future__ import annotations

import numpy as np
import pytest

from tests.markers import (
    generate_in_child_process,
    render_in_families,
    require_chromium,
    require_tesseract,
)

pytestmark = require_tesseract


@pytest.fixture(scope="module")
def tesseract():
    from flowpath.transcribe.ocr.engines import TesseractEngine

    return TesseractEngine()

#: branch labels crossed by their connectors, three of them on a subgraph fill
CHART = """flowchart TD
    A([Start]) --> B{Is the input valid?}
    B -->|Yes| C[Parse the request body]
    B -->|No| D[Return an error page]
    C --> E{Which method?}
    E -->|GET| F[Read the record]
    E -->|POST| G[Create a new record]
    subgraph Storage
        F --> H{Record found?}
        H -->|True| I[Send the record]
        H -->|False| J[Send not found]
    end
    G --> K([Done])
    I --> K
    J --> K
    D --> K
"""
FAMILIES = ("default", "single_color", "multi_color")


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """The chart in the three coloured style families (eval palettes)."""
    return render_in_families(tmp_path_factory.mktemp("labels"), CHART, FAMILIES)


@require_chromium
def test_labels_crossed_by_their_line_and_on_subgraph_fills_are_read(rendered):
    from flowpath.datasets.febench import Benchmark
    from flowpath.evaluation.transcription import evaluate_transcription
    from flowpath.transcribe import make_transcriber

    bench = Benchmark(rendered)
    assert sorted(bench.chart(c).style_family for c in bench.chart_ids) == sorted(FAMILIES)
    report = evaluate_transcription(rendered, make_transcriber("ocr"), gold_regions=True)
    s = report["overall"]
    assert s["edge_f1"] == 1.0
    # 6 labelled edges per chart: at most one OCR slip over the three charts
    assert s["condition_accuracy"] >= 17 / 18, report


@require_chromium
def test_each_label_is_one_box_including_those_on_a_subgraph_fill(rendered):
    from flowpath.datasets.febench import Benchmark
    from flowpath.io import load_image
    from flowpath.labeller import draw_labels
    from flowpath.models.base import LabelledChart
    from flowpath.transcribe import make_transcriber

    tr = make_transcriber("ocr")
    bench = Benchmark(rendered)
    for cid in bench.chart_ids:
        chart = bench.chart(cid)
        img = load_image(chart.image_path)
        lab, regions = draw_labels(img, list(chart.regions.values()))
        out = tr([LabelledChart(img, lab, regions)])[0]
        boxes = [lb["box"] for lb in out.meta["labels"]]
        assert len(boxes) == 6, (cid, out.meta["labels"])
        # the boxes on the subgraph fill are found whole (the translucent box is only ~9 levels
        # off the fill), not as the glyphs' bounds that lose letters crossed by the line: all
        # one-line label boxes are about as tall
        heights = [b[3] - b[1] for b in boxes]
        assert max(heights) - min(heights) <= 0.15 * float(np.median(heights)), (cid, out.meta["labels"])
        # no two boxes overlap (a word found twice would be attached twice)
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (cid, a, b)


def _translucent_label(word: str) -> np.ndarray:
    """A word on a pale box with a connector seen through the box (drawn like Mermaid's
    default theme: line 34 grey outside, blended to ~113 inside the box, text 26)."""
    from PIL import Image, ImageDraw, ImageFont

    try:
        font = ImageFont.truetype("DejaVuSans.ttf", 28)
    except OSError:
        font = ImageFont.load_default()
    img = Image.new("RGB", (120, 50), (246, 246, 246))
    d = ImageDraw.Draw(img)
    d.line((38, 0, 38, 50), fill=(113, 113, 113), width=3)
    d.line((70, 0, 95, 50), fill=(113, 113, 113), width=3)
    d.text((14, 8), word, fill=(26, 26, 26), font=font)
    return np.array(img)


def test_label_crop_drops_the_line_seen_through_the_box(tesseract):
    from flowpath.transcribe.ocr.crops import to_label_crop, to_text_crop
    from flowpath.transcribe.ocr.text import clean_label, join_lines

    rgb = _translucent_label("No")
    crop = to_label_crop(rgb, line_height=30)
    assert crop is not None
    ink = crop.image < 128
    # the word is kept: ink spans about the word's height; the line ran the full box height
    rows = np.flatnonzero(ink.any(axis=1))
    assert rows.size and (rows.max() - rows.min()) < 0.8 * crop.image.shape[0]
    # the hard binarisation of node crops keeps the line; this crop does not
    old = to_text_crop(rgb, None, line_height=30, hard=True)
    assert old is not None
    old_rows = np.flatnonzero((old.image < 128).any(axis=1))
    assert (old_rows.max() - old_rows.min()) > (rows.max() - rows.min())
    assert clean_label(join_lines(tesseract.read([crop])[0].words)) == "No"


@pytest.mark.parametrize("raw, want", [
    ("Y¥", "Y"), ("y:", "Y"), ("N", "N"), ("n'", "N"), ("Nlo", "No"), ("Yés", "Yes"),
    ("Yellow", "Yellow"), ("A", "A"), ("Timeout", "Timeout"), ("yas", "Yes"), ("Wo", "No"),
    ("Nope", "Nope"), ("Tru", "True"), ("f No", "No"),
])
def test_clean_label_snaps_branch_words_only(raw, want):
    from flowpath.transcribe.ocr.text import clean_label

    assert clean_label(raw) == want


@pytest.fixture(scope="module")
def small_render(tmp_path_factory):
    """The same chart rendered at 0.6 of Mermaid's size (wide charts get scaled down like
    this): 1-px anti-aliased connectors with 4-px arrowheads."""
    tmp = tmp_path_factory.mktemp("small")
    p = tmp / "small.mmd"
    p.write_text(CHART)
    out = tmp / "bench"
    generate_in_child_process([str(out), "--input", str(p), "--styles", "default", "--split", "eval",
               "--workers", "0", "--seed", "3", "--scale", "0.6"])
    return out


@require_chromium
def test_arrow_direction_in_a_small_render(small_render):
    from flowpath.evaluation.transcription import evaluate_transcription
    from flowpath.transcribe import make_transcriber

    report = evaluate_transcription(small_render, make_transcriber("ocr"), gold_regions=True)
    s = report["overall"]
    # every edge found with its direction (the distance transform sees no arrowhead this small;
    # the layout alone reverses the edges that run upwards into "Done" and "Record found?")
    assert s["edge_precision"] == 1.0 and s["edge_recall"] == 1.0, report
