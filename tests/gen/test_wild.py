"""Real-world looks: the hand-drawn family, the PlantUML renderer, the wild family's web-image
pass and the photo/scan pass. Renders use the real Chromium page (session fixture), the real
PlantUML, and the real degradation code; regions are checked against pixels."""

from __future__ import annotations

import io
import random
import shutil

import numpy as np
import pytest

from tests.markers import require_chromium

require_plantuml = pytest.mark.skipif(shutil.which("plantuml") is None, reason="needs Debian plantuml")

KNOWN = """flowchart TD
    A(["Start"]) --> B["Read the order form"]
    B --> C{"Is the order complete?"}
    C -->|Yes| D["Pack the parcel"]
    C -->|No| E[/"Ask the customer"/]
    E --> B
    D --> F(("Ship"))
    F --> G(["End"])
"""


def _polygon_mask(poly: list[list[float]], h: int, w: int) -> np.ndarray:
    from PIL import Image, ImageDraw

    im = Image.new("L", (w, h), 0)
    ImageDraw.Draw(im).polygon([tuple(p) for p in poly], fill=1)
    return np.asarray(im).astype(bool)


def _hand_style(font: str):
    from data_gen.styles import sample_style

    style = sample_style("handdrawn", "eval", random.Random(3), [], {})
    style.font = font
    style.hand.update(head="open", corner_gap=8.0, short=10.0, wobble=2.0)
    return style


def _render_hand(renderer, style):  # type: ignore[no-untyped-def]
    """KNOWN rendered in a hand-drawn ``style`` through the real page: (pixels, annotations,
    raster scale, the SVG)."""
    from data_gen.geometry import raster_size
    from data_gen.raster import annotate, decode_png

    out = renderer.render(KNOWN, config=style.mermaid_config(), css=style.css(), bake=False,
                          effects=style.page_options())
    W, H, scale = raster_size(out.view_box)
    img = decode_png(renderer.screenshot(W, H), W, H)
    ann = annotate({"view_box": out.view_box, "nodes": out.nodes, "edges": out.edges,
                    "clusters": out.clusters}, W, H, scale)
    return img, ann, scale, out.svg


@require_chromium
@pytest.mark.chromium
def test_handdrawn_render_of_a_known_graph_keeps_every_node_and_edge(renderer):
    from data_gen.styles import HAND_EVAL_FONTS
    from flowpath.mermaid import parse_mermaid

    chart = parse_mermaid(KNOWN)
    img, ann, scale, _ = _render_hand(renderer, _hand_style(HAND_EVAL_FONTS[0]))
    assert set(ann["nodes"]) == set(chart.nodes)
    for nid, node in chart.nodes.items():
        assert ann["nodes"][nid]["text"].split() == node.text.split()
    got = sorted((e["source"], e["target"], e["label"]) for e in ann["edges"])
    assert got == sorted((e.source, e.target, e.label) for e in chart.edges)

    ink = img.astype(int).sum(-1) < 450  # pen strokes and letters on the white page
    assert ink.mean() > 0.005
    for nid, n in ann["nodes"].items():
        # the sketch strokes hug the region: ink lies along every side of its box ...
        x0, y0, x1, y1 = (round(v) for v in n["bbox"])
        pad = max(3, round(3 * scale[0]))
        sides = [ink[max(0, y0 - pad):y0 + pad, x0:x1], ink[y1 - pad:y1 + pad, x0:x1],
                 ink[y0:y1, max(0, x0 - pad):x0 + pad], ink[y0:y1, x1 - pad:x1 + pad]]
        assert all(s.any() for s in sides), nid
        # ... and the (wobbly) label is drawn inside the region
        lx0, ly0, lx1, ly1 = n["label_box"]
        assert x0 - pad <= lx0 and lx1 <= x1 + pad and y0 - pad <= ly0 and ly1 <= y1 + pad, nid
        assert ink[round(ly0):round(ly1), round(lx0):round(lx1)].any(), nid


@require_chromium
@require_plantuml
@pytest.mark.chromium
def test_plantuml_regions_match_its_nodes(renderer, tmp_path):
    from data_gen.geometry import raster_size
    from data_gen.pipeline import ChartJob, GenConfig, _render_job
    from data_gen.raster import annotate, decode_png
    from data_gen.styles import sample_style
    from flowpath.mermaid import parse_mermaid, to_mermaid

    chart = parse_mermaid(KNOWN)
    style = sample_style("single_color", "eval", random.Random(1), list(chart.nodes), {})
    style.fills, style.stroke = ["#ffcc00"], "#7a5c00"  # a fill no other ink has
    job = ChartJob(id="p1", mermaid=to_mermaid(chart), style=style, chart=chart, renderer="plantuml")
    task = _render_job(renderer, job, GenConfig(out=tmp_path), raster_size)
    W, H = task["width"], task["height"]
    ann = annotate(task["render"], W, H, tuple(task["scale"]))
    assert task["style"]["renderer"] == "plantuml"
    assert set(ann["nodes"]) == set(chart.nodes)
    assert sorted((e["source"], e["target"], e["label"]) for e in ann["edges"]) == \
        sorted((e.source, e.target, e.label) for e in chart.edges)
    # the gold says what PlantUML drew: activity boxes
    assert {n.shape for n in parse_mermaid(task["mermaid"]).nodes.values()} == {"round"}

    # the screenshot itself has the annotated size (PlantUML's inline CSS size must not win:
    # the pipeline writes these PNG bytes as they are)
    from PIL import Image

    assert Image.open(io.BytesIO(task["png"])).size == (W, H)
    ious = fill_ious(decode_png(task["png"], W, H), (255, 204, 0), ann["nodes"])
    assert min(ious) >= 0.8 and np.mean(ious) >= 0.85, [round(v, 3) for v in ious]


def fill_ious(img: np.ndarray, fill_rgb: tuple[int, int, int], nodes: dict) -> list[float]:
    """Per node: IoU of its polygon with the pixels painted in its fill colour near its box
    (the text inside the box is a hole in the fill, so holes are filled)."""
    from scipy.ndimage import binary_fill_holes

    H, W = img.shape[:2]
    fill = np.abs(img.astype(int) - np.array(fill_rgb)).sum(-1) < 60
    ious = []
    for n in nodes.values():
        poly = _polygon_mask(n["polygon"], H, W)
        x0, y0, x1, y1 = (round(v) for v in n["bbox"])
        win = np.zeros_like(fill)
        win[max(0, y0 - 6):y1 + 6, max(0, x0 - 6):x1 + 6] = True
        painted = binary_fill_holes(fill & win)
        ious.append(float((poly & painted).sum() / max(1, (poly | painted).sum())))
    return ious


def _coloured_chart(h: int = 300, w: int = 420):
    """A synthetic white render with three saturated boxes and their annotations."""
    from PIL import Image, ImageDraw

    im = Image.new("RGB", (w, h), "white")
    dr = ImageDraw.Draw(im)
    nodes = {}
    for k, (x0, y0, x1, y1) in enumerate(((30, 30, 170, 90), (240, 60, 390, 140), (90, 180, 300, 260))):
        dr.rectangle((x0, y0, x1, y1), fill=(220, 20, 20))
        poly = [[x0, y0], [x1 + 1, y0], [x1 + 1, y1 + 1], [x0, y1 + 1]]
        nodes[f"N{k}"] = {"bbox": [x0, y0, x1 + 1, y1 + 1], "polygon": poly, "text": "", "label_box": None}
    edges = [{"source": "N0", "target": "N1", "points": [[170, 60], [240, 100]], "start": [170, 60],
              "end": [240, 100], "label": None, "label_box": None}]
    return np.asarray(im), {"nodes": nodes, "edges": edges, "clusters": []}


def _red_iou(img: np.ndarray, ann: dict) -> list[float]:
    a = img.astype(int)
    red = (a[..., 0] > a[..., 1] + 60) & (a[..., 0] > a[..., 2] + 60)
    out = []
    for n in ann["nodes"].values():
        poly = _polygon_mask(n["polygon"], *img.shape[:2])
        x0, y0, x1, y1 = (round(v) for v in n["bbox"])
        win = np.zeros_like(red)
        win[max(0, y0 - 8):y1 + 8, max(0, x0 - 8):x1 + 8] = True
        out.append((poly & red & win).sum() / max(1, (poly | (red & win)).sum()))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_photo_pass_keeps_regions_aligned(seed):
    from data_gen.photo import photo_scan

    img, ann = _coloured_chart()
    out, ann2 = photo_scan(img, ann, random.Random(seed), max_tilt=6.0, max_skew=0.06)
    assert out.shape[0] > img.shape[0] and out.shape[1] > img.shape[1]  # paper + desk around it
    ious = _red_iou(out, ann2)
    assert min(ious) >= 0.85, [round(v, 3) for v in ious]
    # edges moved with the same map: the edge start stays on node N0's border
    x0, y0, x1, y1 = ann2["nodes"]["N0"]["bbox"]
    sx, sy = ann2["edges"][0]["start"]
    assert x0 - 2 <= sx <= x1 + 2 and y0 - 2 <= sy <= y1 + 2
    assert ann2["photo"]["ruling"] in ("plain", "lined", "squared")


def test_photo_pass_draws_the_paper_ruling_it_reports():
    from data_gen.photo import photo_scan

    gaussian_filter1d = pytest.importorskip("scipy.ndimage").gaussian_filter1d

    img = np.full((300, 400, 3), 255, np.uint8)
    seen = set()
    for seed in range(12):
        out, ann = photo_scan(img, {"nodes": {}, "edges": [], "clusters": []}, random.Random(seed))
        ruling = ann["photo"]["ruling"]
        seen.add(ruling)
        page = out[out.shape[0] // 3: 2 * out.shape[0] // 3, out.shape[1] // 3: 2 * out.shape[1] // 3]
        rows = page.astype(float).mean(-1).mean(1)
        # ruled lines make neighbouring rows differ; plain paper only has smooth lighting
        ripple = (rows - gaussian_filter1d(rows, 6)).std()
        if ruling == "plain":
            assert ripple < 0.6, (seed, ripple)
        else:
            assert ripple > 0.8, (seed, ripple)
    assert {"plain", "squared"} <= seen


def test_wild_web_pass_keeps_regions_aligned():
    from data_gen.pipeline import _degrade

    img, ann = _coloured_chart()
    for seed in range(4):
        out, ann2 = _degrade(img, ann, {"kind": "wild", "seed": seed}, {"background": "#efefef"}, 10.0)
        assert min(_red_iou(out, ann2)) >= 0.85


def test_wild_raster_keeps_text_above_the_web_floor():
    from pathlib import Path

    from data_gen.geometry import raster_size
    from data_gen.pipeline import ChartJob, GenConfig, _size_options
    from data_gen.styles import WILD_MIN_TEXT_PX, sample_style

    cfg = GenConfig(out=Path("unused"))
    for seed in range(20):
        style = sample_style("wild", "eval", random.Random(seed), ["A"], {"A": "process"})
        size = _size_options(ChartJob(id="c", mermaid="", style=style), cfg)
        # a wide chart squeezed into a 300-550 px web image would shrink its text below the floor
        _, _, (sx, _) = raster_size((0, 0, 2400, 600), **size((0, 0, 2400, 600)))
        assert sx * style.font_size >= WILD_MIN_TEXT_PX - 0.05, (seed, sx, style.font_size)
        # a narrow one is still drawn at its web width
        W, _, _ = raster_size((0, 0, 400, 900), **size((0, 0, 400, 900)))
        assert W == min(round(400 * cfg.scale), style.raster_width), (seed, W, style.raster_width)


def test_wild_web_pass_blur_is_capped_and_draws_the_same():
    import cv2

    from data_gen.augment import augment

    img, ann = _coloured_chart()
    sharper = 0
    for seed in range(12):
        free, _ = augment(img, ann, random.Random(seed), scale=(1.0, 1.0), p_jpeg=1.0, quality=(90, 90))
        capped, _ = augment(img, ann, random.Random(seed), scale=(1.0, 1.0), p_jpeg=1.0, quality=(90, 90),
                            max_blur=0.05)
        assert free.shape == capped.shape  # same draws: same rotation, same canvas
        edge = [cv2.Laplacian(cv2.cvtColor(a, cv2.COLOR_RGB2GRAY), cv2.CV_64F).var() for a in (free, capped)]
        assert edge[1] >= 0.9 * edge[0], seed
        sharper += edge[1] > 1.2 * edge[0]
    assert sharper >= 1  # some seeds blur, and the cap takes it off


def test_wild_blur_chance_blurs_every_chart_and_the_replay_knows_it():
    import cv2

    from data_gen.pipeline import _degrade, replay_degrade

    img, ann = _coloured_chart()
    for seed in range(8):
        usual, _ = _degrade(img, ann, {"kind": "wild", "seed": seed}, {"background": "#efefef"}, 10.0)
        always, _ = _degrade(img, ann, {"kind": "wild", "seed": seed, "p_blur": 1.0}, {"background": "#efefef"}, 10.0)
        # `--wild-blur 1`: every chart blurred (the replay draws as the pass did), on the same canvas
        # (the rotation is drawn before the blur)
        assert replay_degrade(seed, p_blur=1.0)[0] > 0 and usual.shape == always.shape
        edge = [cv2.Laplacian(cv2.cvtColor(a, cv2.COLOR_RGB2GRAY), cv2.CV_64F).var() for a in (usual, always)]
        if replay_degrade(seed)[0] == 0:  # no blur drawn at the usual chance: the forced one is softer
            assert edge[1] < 0.9 * edge[0], seed


def test_wild_and_handdrawn_styles():
    import colorsys

    from data_gen.styles import (
        HAND_EVAL_FONTS,
        HAND_FONTS,
        WILD_EVAL_FONTS,
        WILD_FONTS,
        sample_style,
    )

    assert not set(HAND_FONTS) & set(HAND_EVAL_FONTS) and not set(WILD_FONTS) & set(WILD_EVAL_FONTS)

    def hls(c: str) -> tuple[float, float, float]:
        return colorsys.rgb_to_hls(*(int(c[i:i + 2], 16) / 255 for i in (1, 3, 5)))

    for seed in range(30):
        ids = ["A", "B", "C", "D"]
        st = sample_style("wild", "eval", random.Random(seed), ids, dict(zip(ids, ("start", "process", "decision", "end"), strict=True)))
        assert st.font in WILD_EVAL_FONTS and 300 <= (st.raster_width or 0) <= 550
        css = st.css()
        for colour in st.node_colours.values():
            h, lum, s = hls(colour)
            assert s > 0.6  # saturated
            # its border: the same hue, darker
            border = css.split(f"{colour}", 1)[1] if not st.gradient else css.split(st.gradient_defs()[colour], 1)[1]
            border = border.split("stroke: ", 1)[1][:7]
            bh, blum, _ = hls(border)
            assert abs(bh - h) < 0.03 or abs(bh - h) > 0.97, (colour, border)
            assert blum < lum - 0.1, (colour, border)
        assert st.stroke_width >= 2.0
        hd = sample_style("handdrawn", "train", random.Random(seed), ids, {})
        assert hd.look == "handDrawn" and hd.font in HAND_FONTS
        assert hd.mermaid_config()["handDrawnSeed"] == hd.hand["seed"]
        assert sample_style("handdrawn", "eval", random.Random(seed), ids, {}).font in HAND_EVAL_FONTS


@require_chromium
@pytest.mark.chromium
def test_handdrawn_heads_drawn_as_rings_or_dots_appear_at_every_arrow_end(renderer):
    """Issue 21: a sketch's head may be a small circle or a dot. Where each edge ends (the
    renderer's own geometry), a ring leaves a hole in the ink, a dot or a filled triangle none;
    the gold edges are the same whatever the head."""
    from scipy.ndimage import binary_fill_holes

    from data_gen.styles import HAND_EVAL_FONTS

    holes, ends, gold = {}, {}, {}
    for head in ("circle", "dot", "filled"):
        style = _hand_style(HAND_EVAL_FONTS[0])
        style.hand.update(head=head, short=0.0)
        img, ann, scale, svg = _render_hand(renderer, style)
        gold[head] = sorted((e["source"], e["target"]) for e in ann["edges"])
        ink = img.astype(int).sum(-1) < 450
        r = max(4, round(6 * scale[0]))
        with_hole = 0
        for e in ann["edges"]:
            x, y = (round(v) for v in e["end"])
            win = ink[max(0, y - r):y + r + 1, max(0, x - r):x + r + 1]
            with_hole += int((binary_fill_holes(win) & ~win).sum() >= 3)
        holes[head], ends[head] = with_hole, len(ann["edges"])
        if head in ("circle", "dot"):
            assert "marker" in svg and "A 4 4" in svg, head  # the marker is round
    assert gold["circle"] == gold["dot"] == gold["filled"]
    assert holes["circle"] >= 0.8 * ends["circle"], holes
    # (a filled head can meet a corner of its node's outline and close a sliver of paper)
    assert holes["dot"] <= 0.4 * ends["dot"] and holes["filled"] <= 0.4 * ends["filled"], holes
