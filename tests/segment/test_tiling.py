"""Resize/tiling policies of the segmenters (torch-free)."""

from __future__ import annotations

import pytest

from flowpath.segment.mask2former import pad_to_multiple, plan_tiles
from flowpath.segment.postprocess import working_scale


@pytest.mark.parametrize("h, w", [(8052, 1600), (100, 1600), (300, 200), (64, 64), (5000, 5000)])
def test_tiles_cover_the_scaled_image_with_overlap(h, w):
    short = 256
    scale, sh, sw, tiles = plan_tiles(h, w, short)
    assert scale <= 1.0 and min(sh, sw) == min(round(min(h, w) * scale), min(h, w))
    covered_long = set()
    for t in tiles:
        assert 0 <= t.x0 < t.x1 <= sw and 0 <= t.y0 < t.y1 <= sh
        assert max(t.y1 - t.y0, t.x1 - t.x0) <= 2 * short
        covered_long.update(range(t.y0, t.y1) if sh >= sw else range(t.x0, t.x1))
    assert covered_long == set(range(sh if sh >= sw else sw))
    for a, b in zip(tiles, tiles[1:], strict=False):  # neighbours overlap by at least a quarter window
        overlap = (a.y1 - b.y0) if sh >= sw else (a.x1 - b.x0)
        assert overlap >= short // 2 or b == tiles[-1]


def test_benchmark_sized_chart_is_processed_downscaled_not_tiled():
    # 1600 x 8052 is 12.9 Mpx: above the classical budget, so it runs at ~0.68x
    s = working_scale(8052, 1600)
    assert 0.6 < s < 0.75
    assert working_scale(800, 600) == 1.0


@pytest.mark.parametrize("h, w, error", [(0, 10, ValueError), (10, -1, ValueError)])
def test_zero_size_is_rejected(h, w, error):
    with pytest.raises(error):
        plan_tiles(h, w, 256)
    with pytest.raises(error):
        working_scale(h, w)


def test_pad_to_multiple_pads_with_white():
    import numpy as np

    a = np.zeros((33, 64, 3), np.uint8)
    p = pad_to_multiple(a)
    assert p.shape == (64, 64, 3) and p[40, 10, 0] == 255 and p[10, 10, 0] == 0
