"""ClassicalSegmenter: finds stroked and filled nodes of every style, ignores edge labels,
arrows and text, maps back to original pixels at any size, and fails clearly on bad input."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from PIL import Image

from flowpath.errors import ImageLoadError
from flowpath.geometry import Region
from flowpath.metrics import SegmentationMetric, match_regions
from flowpath.segment import ClassicalSegmenter, default_segmenter, make_segmenter
from flowpath.segment.postprocess import decode_rle
from tests.markers import FEBENCH_DEV, require_febench
from tests.segment.synth import SHAPES, STYLES, draw_chart


def _score(regions, boxes):
    m = SegmentationMetric()
    return m.update(regions, [Region(b) for b in boxes])


@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("scale", [0.7, 1.0, 2.0])
def test_every_style_and_shape_is_found_and_the_edge_label_is_not(style, scale):
    img, boxes = draw_chart(style, scale=scale)
    (regions,) = ClassicalSegmenter()([img])
    row = _score(regions, boxes)
    assert row["recall@0.7"] == 1.0, f"{style} x{scale}: missed nodes"
    assert row["precision@0.7"] == 1.0, f"{style} x{scale}: extra regions (edge label, arrow, text?)"
    assert row["mean_iou"] > 0.9


def test_regions_carry_polygon_score_and_an_rle_mask_of_the_image_size():
    img, boxes = draw_chart("default", shapes=("diamond", "rect"))
    (regions,) = ClassicalSegmenter()([img])
    assert len(regions) == 2
    for r in regions:
        assert len(r.polygon) >= 3 and 0 < r.score <= 1
        mask = decode_rle(r.mask)
        assert mask.shape == img.shape[:2]
        ys, xs = np.nonzero(mask)
        assert abs(xs.min() - r.bbox[0]) <= 2 and abs(ys.max() + 1 - r.bbox[3]) <= 2
    diamond = max(regions, key=lambda r: r.height)
    # a diamond's mask fills about half of its box, not all of it
    assert 0.4 < decode_rle(diamond.mask).sum() / diamond.area < 0.65


def test_large_image_is_downscaled_and_mapped_back_to_original_pixels():
    img, boxes = draw_chart("black_white", shapes=SHAPES * 3, scale=2.0, columns=1)
    seg = ClassicalSegmenter(max_pixels=400_000)  # forces a working scale well below 1
    assert img.shape[0] * img.shape[1] > 2 * 400_000
    (regions,) = seg([img])
    row = _score(regions, boxes)
    assert row["recall@0.7"] == 1.0 and row["precision@0.7"] == 1.0
    assert max(r.bbox[3] for r in regions) > 0.9 * img.shape[0]  # original, not working, pixels


@pytest.mark.parametrize("fmt", ["RGBA", "P", "JPEG", "L"])
def test_rgba_palette_jpeg_and_grey_inputs(fmt, tmp_path):
    from flowpath.io import load_image

    img, boxes = draw_chart("single_color", scale=1.5)
    pil = Image.fromarray(img)
    if fmt == "RGBA":
        rgba = np.dstack([img, np.full(img.shape[:2], 255, np.uint8)])
        rgba[(img == 255).all(axis=2), 3] = 0  # transparent background must become white
        rgba[(img == 255).all(axis=2), :3] = 0
        pil = Image.fromarray(rgba, "RGBA")
        path = tmp_path / "c.png"
    elif fmt == "P":
        pil = pil.convert("P", palette=Image.Palette.ADAPTIVE, colors=64)
        path = tmp_path / "c.png"
    elif fmt == "L":
        pil = pil.convert("L")
        path = tmp_path / "c.png"
    else:
        path = tmp_path / "c.jpg"
    pil.save(path, quality=90) if fmt == "JPEG" else pil.save(path)
    (regions,) = ClassicalSegmenter()([load_image(path)])
    row = _score(regions, boxes)
    assert row["recall@0.7"] >= 0.8 and row["precision@0.7"] >= 0.8, fmt


@pytest.mark.parametrize("image", [
    np.full((400, 300, 3), 255, np.uint8),                               # blank page
    np.random.default_rng(0).integers(0, 256, (300, 300, 3), np.uint8),  # noise photo
    np.zeros((10, 10, 3), np.uint8),                                     # too small
])
def test_non_flowcharts_give_an_empty_result_with_a_reason(image):
    seg = ClassicalSegmenter()
    (regions,) = seg([image])
    assert regions == []
    assert seg.last_reasons[0]


@pytest.mark.parametrize("bad", [
    np.zeros((0, 5, 3), np.uint8),
    np.zeros((5, 5, 2), np.uint8),
    "definitely/not/here.png",
])
def test_bad_inputs_raise_a_clear_error_naming_the_input(bad):
    with pytest.raises(ImageLoadError):
        ClassicalSegmenter()([bad])


def test_corrupt_and_empty_files(tmp_path):
    from flowpath.io import load_image

    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    corrupt = tmp_path / "corrupt.png"
    buf = io.BytesIO()
    Image.fromarray(draw_chart()[0]).save(buf, "PNG")
    corrupt.write_bytes(buf.getvalue()[:200])
    for path in (empty, corrupt):
        with pytest.raises(ImageLoadError, match=path.name):
            ClassicalSegmenter()([load_image(path)])


def test_factories():
    assert default_segmenter().name in ("classical", "mask2former")
    assert isinstance(make_segmenter("Classical", min_size=6), ClassicalSegmenter)
    with pytest.raises(ValueError, match="unknown segmenter"):
        make_segmenter("sam")
    with pytest.raises(ValueError):
        ClassicalSegmenter(max_pixels=10)


def test_import_keeps_torch_out():
    import subprocess
    import sys

    code = ("import sys, flowpath.segment, flowpath.labeller, flowpath.evaluation; "
            "flowpath.segment.default_segmenter(); "
            "print('torch' in sys.modules or 'transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@require_febench
def test_benchmark_renders_are_segmented():
    """A few of the benchmark authors' own renders (default Mermaid style)."""
    from flowpath.datasets.febench import Benchmark
    from flowpath.io import load_image

    bench = Benchmark(FEBENCH_DEV)
    m = SegmentationMetric()
    seg = ClassicalSegmenter()
    for cid in bench.chart_ids[::12]:
        chart = bench.chart(cid)
        m.update(seg([load_image(chart.image_path)])[0], list(chart.regions.values()))
    s = m.summary(coco=False)["overall"]
    assert s["recall@0.7"] >= 0.95 and s["precision@0.7"] >= 0.95, json.dumps(s)


def test_match_regions_is_one_to_one():
    gold = [Region((0, 0, 10, 10)), Region((20, 0, 30, 10))]
    pred = [Region((0, 0, 10, 10)), Region((0, 0, 10, 11)), Region((20, 0, 30, 10))]
    matches = match_regions(pred, gold, 0.7)
    assert sorted((p, g) for p, g, _ in matches) == [(0, 0), (2, 1)]
