"""Browser-free parts of the generator: procedural charts, styles, augmentation, job seeding."""

from __future__ import annotations

import random

import numpy as np
import pytest

from data_gen.procedural import random_flowchart, random_text_labels
from data_gen.styles import FAMILIES, palettes, sample_style


def test_procedural_sizes_structure_and_shapes():
    from flowpath.graph.core import SHAPES
    from flowpath.mermaid import parse_mermaid, to_mermaid

    shapes, n_loops, n_sub, dirs = set(), 0, 0, set()
    for seed in range(150):
        chart, domain = random_flowchart(random.Random(seed))
        assert 3 <= len(chart.nodes) <= 45
        assert domain in ("code", "instruct", "wiki")
        first = next(iter(chart.nodes.values()))
        assert first.kind == "start" and chart.sources() == [first.id]
        assert all(chart.nodes[s].kind in ("end", "terminal") or chart.nodes[s].text for s in chart.sinks())
        for node in chart.nodes.values():
            if node.kind == "decision" and chart.out_degree(node.id) >= 2:
                # every branch of a decision is labelled (Yes/No or free text)
                assert all(e.label for e in chart.out_edges(node.id))
        shapes |= {n.shape for n in chart.nodes.values()}
        import networkx as nx
        n_loops += not nx.is_directed_acyclic_graph(chart.to_networkx())
        n_sub += bool(chart.subgraphs)
        dirs.add(chart.direction)
        # the Mermaid we render says the same graph
        back = parse_mermaid(to_mermaid(chart))
        assert list(back.nodes) == list(chart.nodes) and len(back.edges) == len(chart.edges)
    assert shapes == set(SHAPES)
    assert n_loops > 10 and n_sub > 10 and dirs >= {"TD", "LR", "BT"}


def test_procedural_is_seeded():
    a, _ = random_flowchart(random.Random(42), 20)
    b, _ = random_flowchart(random.Random(42), 20)
    c, _ = random_flowchart(random.Random(43), 20)
    assert a == b and a != c


def test_random_text_keeps_the_graph():
    chart, _ = random_flowchart(random.Random(1), 15)
    rt = random_text_labels(chart, random.Random(2))
    assert [(e.source, e.target) for e in rt.edges] == [(e.source, e.target) for e in chart.edges]
    assert [n.text for n in rt.nodes.values()] != [n.text for n in chart.nodes.values()]


def test_palettes_counts_and_disjoint_splits():
    single = palettes("single_color", "train") + palettes("single_color", "eval")
    multi = palettes("multi_color", "train") + palettes("multi_color", "eval")
    assert len(set(single)) >= 40 and len(multi) >= 35
    assert all(4 <= len(p) <= 5 for p in multi)
    assert not set(palettes("single_color", "train")) & set(palettes("single_color", "eval"))
    tr = {tuple(p) for p in palettes("multi_color", "train")}
    assert not tr & {tuple(p) for p in palettes("multi_color", "eval")}


@pytest.mark.parametrize("family", FAMILIES)
def test_styles_use_their_split_and_plain_colours(family):
    rng = random.Random(0)
    for split in ("train", "eval"):
        for _ in range(20):
            st = sample_style(family, split, rng, list("ABCDE"), {"A": "start", "B": "decision"})
            css = st.css()
            assert "hsl(" not in css and "var(" not in css  # cairosvg paints those black
            if family == "single_color":
                assert st.fills[0] in palettes(family, split)
            if family == "multi_color":
                assert list(st.fills) in palettes(family, split) and set(st.node_colours) == set("ABCDE")
            if family == "black_white":
                assert "#000000" in css and "#ffffff" in css
    with pytest.raises(ValueError, match="unknown style family"):
        sample_style("neon", "train", rng)


def test_augment_moves_annotations_with_the_pixels():
    from data_gen.augment import augment

    img = np.full((400, 600, 3), 255, np.uint8)
    img[100:200, 150:400] = 0  # a black "node"
    ann = {"nodes": {"A": {"polygon": [[150, 100], [400, 100], [400, 200], [150, 200]],
                           "bbox": [150, 100, 400, 200], "label_box": None}},
           "edges": [{"points": [[275, 200], [275, 300]], "label_box": None}], "clusters": []}
    from PIL import Image, ImageDraw

    checked = 0
    for seed in range(12):
        out, a2 = augment(img, ann, random.Random(seed), max_rotation=3.0)
        h, w = out.shape[:2]
        m = Image.new("L", (w, h), 0)
        ImageDraw.Draw(m).polygon([tuple(p) for p in a2["nodes"]["A"]["polygon"]], fill=255)
        poly, dark = np.asarray(m) > 0, out.mean(-1) < 128
        iou = (poly & dark).sum() / (poly | dark).sum()
        assert iou > 0.93, (seed, iou)
        checked += (w, h) != (600, 400)
    assert checked  # some seeds really rescaled/rotated
