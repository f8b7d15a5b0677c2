"""Drop-shadow bands of the connector mask (`connectors.shadow_bands`) on pages large enough for
the half-size pre-test: a page with shadows still has them found, pixel for pixel as by the exact
test alone; a page without is left alone."""

from __future__ import annotations

import numpy as np
import pytest

from flowpath.transcribe.ocr import connectors as cx

LINE_H = 20.0
NODES = [(100 + 300 * (i % 3), 80 + 220 * (i // 3), 300 + 300 * (i % 3), 140 + 220 * (i // 3)) for i in range(15)]


def _page(shadow: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(conn, bg_dist, node_mask)`` of a 1100 x 1000 page: 15 boxes in a 3 x 5 grid, dark
    connectors down each column between them, and with ``shadow`` a pale 6-px band along each
    box's bottom and right sides."""
    H, W = 1100, 1000
    node_mask = np.zeros((H, W), bool)
    bg_dist = np.zeros((H, W), np.float32)
    for x0, y0, x1, y1 in NODES:
        if shadow:
            bg_dist[y0 + 4:y1 + 7, x0 + 4:x1 + 7] = 60.0
        node_mask[y0:y1 + 1, x0:x1 + 1] = True
    for x0, _y0, x1, y1 in NODES:
        mid = (x0 + x1) // 2
        bg_dist[y1 + 1:y1 + 160, mid - 1:mid + 1] = 200.0
    bg_dist[node_mask] = 0.0
    conn = (bg_dist > 22) & ~node_mask
    return conn, bg_dist, node_mask


def test_a_large_page_s_shadows_are_found_as_by_the_exact_test(monkeypatch: pytest.MonkeyPatch) -> None:
    conn, bg_dist, node_mask = _page(shadow=True)
    assert conn.size >= cx._SHADOW_PRETEST_PIXELS
    found = cx.shadow_bands(conn, bg_dist, node_mask, LINE_H)
    assert found is not None
    # the bands along the boxes' bottom sides are shadow, the connectors' cores are not
    x0, y0, x1, y1 = NODES[4]
    assert found[y1 + 3, x0 + 20] and found[y1 + 3, x1 - 20]
    assert not found[y1 + 100, (x0 + x1) // 2 - 1]
    monkeypatch.setattr(cx, "_SHADOW_PRETEST_PIXELS", 10**12)  # the exact test alone
    exact = cx.shadow_bands(conn, bg_dist, node_mask, LINE_H)
    assert exact is not None and np.array_equal(found, exact)


def test_a_large_page_without_shadows_has_none() -> None:
    conn, bg_dist, node_mask = _page(shadow=False)
    assert cx.shadow_bands(conn, bg_dist, node_mask, LINE_H) is None
    reach = max(6, int(round(0.5 * LINE_H)))
    assert not cx._may_hold_shadow(conn, node_mask, reach)
