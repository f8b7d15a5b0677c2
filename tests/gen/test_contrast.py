"""Text must be legible on its fill: every sampled style's label colour reaches WCAG AA contrast
against every colour a node's fill passes through (the Graphviz gradient render is checked in
test_regions.py, beside the other Chromium renders)."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("coloraide", reason="needs coloraide (pip install 'flowpath[gen]')")

WCAG_AA = 4.5


def _wcag(a: str, b: str) -> float:
    # measured here with coloraide, not through the module under test
    from coloraide import Color

    return float(Color(a).contrast(Color(b), method="wcag21"))


def _node_fill_colours(style) -> list[str]:
    """Every colour a node's fill shows: its flat fill, or its gradient's stops as drawn."""
    gradients = {g["id"]: g["stops"] for g in style.page_options()["gradients"]}
    ids = style.gradient_defs()
    out = []
    for fill in {*style.fills, *style.node_colours.values()}:
        out += gradients[ids[fill]] if fill in ids else [fill]
    return out


@pytest.mark.parametrize("split", ["train", "eval"])
@pytest.mark.parametrize("family", ["single_color", "multi_color", "black_white", "wild", "handdrawn"])
def test_sampled_text_contrasts_with_every_fill(family, split):
    from data_gen.styles import sample_style

    ids = [chr(ord("A") + i) for i in range(10)]
    worst = []
    for seed in range(150):
        rng = random.Random(seed)
        kinds = {nid: rng.choice(("process", "decision", "terminal", "io")) for nid in ids}
        style = sample_style(family, split, rng, ids, kinds)
        for colour in _node_fill_colours(style):
            ratio = _wcag(style.text, colour)
            if ratio < WCAG_AA:
                worst.append((seed, style.text, colour, round(ratio, 2)))
    assert not worst, f"{len(worst)} illegible text/fill pairs, e.g. {worst[:5]}"


def test_light_text_appears_and_edge_labels_stay_dark_on_paper():
    """Deep fills get white text; edge labels, drawn on the paper, keep a dark colour."""
    from data_gen.styles import LIGHT_TEXT, sample_style

    styles = [sample_style("wild", "eval", random.Random(seed), ["A", "B"], {}) for seed in range(60)]
    light = [s for s in styles if s.text == LIGHT_TEXT]
    assert light and len(light) < len(styles)
    for style in light:
        edge_rule = next(r for r in style.css().splitlines() if ".edgeLabel text" in r)
        colour = edge_rule.split("fill:")[1].split("!")[0].strip()
        assert _wcag(colour, style.background or "#ffffff") >= WCAG_AA
