"""Generation pipeline: sources -> Mermaid render (+ screenshot with the default browser
rasteriser) in a long-lived Chromium page -> regions + (cairosvg raster) + augmentation +
labelled SFT image + write.

With ``workers`` <= 1 one page in the main process renders while one worker process finishes
the previous chart. With ``workers`` >= 2 every worker process owns its own long-lived page and
does render + finish for whole charts: a single page renders one chart at a time, and its
round trips (not CPU) were the bottleneck of the one-page design (1.6 charts/s on 2 idle cores
at 0.37 CPU s per chart). Either way, never a browser per chart.

Output folder (every set has the benchmark layout; COCO and SFT are derived from it)::

    OUT/charts/<id>.png, <id>.json   benchmark layout (+ "style", "domain", "edges", "clusters")
    OUT/coco.json                    COCO instances (category "node"), if "coco" in outputs
    OUT/sft/<id>.png, OUT/sft.jsonl  Flow2Mermaid SFT (chat messages), if "sft" in outputs
    OUT/errors.jsonl                 charts skipped, with Mermaid's own error message
    OUT/summary.json                 counts, timings, options

A chart is done when ``charts/<id>.json`` exists (written last, atomically): a re-run skips done
charts (resume) and rebuilds ``coco.json``/``sft.jsonl`` from all chart files.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import random
import re
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from data_gen.styles import FAMILIES, PAPER_FAMILIES, StyleSpec, sample_style
from flowpath.graph.core import FlowChart
from flowpath.transcribe.qwen2vl import FLOW2MERMAID_PROMPT

log = logging.getLogger("flowpath.data_gen")

OUTPUTS = ("bench", "coco", "sft")
RENDERERS = ("mermaid", "graphviz", "plantuml", "flowchartjs", "d2")

# one prompt for training and inference: the transcriber's own (importing it loads no torch)
SFT_PROMPT = FLOW2MERMAID_PROMPT


@dataclass
class ChartJob:
    """One chart to make."""

    id: str
    mermaid: str
    style: StyleSpec
    domain: str | None = None
    source: str = "procedural"
    chart: FlowChart | None = None
    renderer: str = "mermaid"
    meta: dict[str, Any] = field(default_factory=dict)


#: ``--content`` choices (`GenConfig.content`)
CONTENTS = ("any", "code", "program")


@dataclass
class GenConfig:
    """Options of one generation run (CLI flags map 1:1)."""

    out: Path
    count: int = 100
    seed: int = 0
    workers: int = 2
    styles: tuple[str, ...] = PAPER_FAMILIES
    split: str = "train"
    min_nodes: int = 3
    max_nodes: int = 45
    outputs: tuple[str, ...] = ("bench",)
    scale: float = 2.0
    max_width: int = 1600
    augment: float = 0.0
    random_text: float = 0.0
    graphviz: float = 0.0
    renderers: tuple[str, ...] = ("mermaid",)
    photo: float = 0.0
    #: photo-pass charts get `data_gen.photo.photo_scan`'s hard look (grey mottled desk, strong
    #: shadow, sheet filling the frame)
    photo_hard: bool = False
    #: chance of the wild web-image pass's blur (None: `augment.augment`'s default 0.4); recorded in
    #: the chart's ``meta["degrade"]["p_blur"]``, where `replay_degrade` reads it
    wild_blur: float | None = None
    rasterizer: str = "browser"
    prefix: str = "gen"
    #: procedural charts made mostly of decisions (`random_flowchart`'s ``branchy``)
    branchy: bool = False
    #: fraction of Graphviz charts whose edge labels sit at one end of the edge (``taillabel`` or
    #: ``headlabel``, `data_gen.graphviz.to_dot`) rather than at its middle
    end_labels: float = 0.0
    #: what the procedural charts say: ``any`` (`random_flowchart`'s three vocabularies),
    #: ``code`` (its code vocabulary only) or ``program`` (`data_gen.code_qa.random_program`
    #: charts in code symbols, `data_gen.code_qa.with_code_symbols`: OCR tuning sets of code)
    content: str = "any"

    def __post_init__(self) -> None:
        self.out = Path(self.out)
        if self.content not in CONTENTS:
            raise ValueError(f"unknown content {self.content!r}; expected one of {CONTENTS}")
        bad = [s for s in self.styles if s not in FAMILIES]
        if bad:
            raise ValueError(f"unknown style families {bad}; expected some of {FAMILIES}")
        bad = [o for o in self.outputs if o not in OUTPUTS]
        if bad:
            raise ValueError(f"unknown outputs {bad}; expected some of {OUTPUTS}")
        bad = [r for r in self.renderers if r not in RENDERERS]
        if bad or not self.renderers:
            raise ValueError(f"unknown renderers {bad}; expected some of {RENDERERS}")
        if self.rasterizer not in ("cairo", "browser"):
            raise ValueError(f"rasterizer must be 'cairo' or 'browser', got {self.rasterizer!r}")
        if self.workers < 0:
            raise ValueError(f"workers must be >= 0, got {self.workers}")


# -- sources -------------------------------------------------------------------------------
def procedural_jobs(cfg: GenConfig) -> Iterator[ChartJob]:
    """Deterministic jobs: chart ``i`` depends only on ``(seed, i)``, so a resumed or sharded run
    makes exactly the same charts."""
    from data_gen.procedural import random_flowchart, random_text_labels
    from flowpath.mermaid import to_mermaid

    for i in range(cfg.count):
        rng = random.Random(f"{cfg.seed}:{i}")
        family = cfg.styles[i % len(cfg.styles)]
        if cfg.content == "program":
            from data_gen.code_qa import random_program, with_code_symbols

            chart, domain = with_code_symbols(random_program(rng), rng).chart, "code"
        else:
            chart, domain = random_flowchart(rng, min_nodes=cfg.min_nodes, max_nodes=cfg.max_nodes,
                                             branchy=cfg.branchy,
                                             domain="code" if cfg.content == "code" else None)
        meta: dict[str, Any] = {}
        if cfg.random_text and rng.random() < cfg.random_text:
            chart = random_text_labels(chart, rng)
            meta["random_text"] = True
        style = sample_style(family, cfg.split, rng, list(chart.nodes),
                             {n.id: n.kind for n in chart.nodes.values()})
        # renderers cross the style families: chart i gets family i % F, renderer (i // F) % R
        renderer = cfg.renderers[(i // len(cfg.styles)) % len(cfg.renderers)]
        if renderer == "mermaid" and cfg.graphviz and rng.random() < cfg.graphviz:
            renderer = "graphviz"
        if renderer == "graphviz" and cfg.end_labels and rng.random() < cfg.end_labels:
            meta["end_labels"] = True
        if cfg.augment and rng.random() < cfg.augment:
            meta["augment_seed"] = rng.randrange(2**31)
        _add_degrade(cfg, style, rng, meta)
        yield ChartJob(id=f"{cfg.prefix}{i:06d}", mermaid=to_mermaid(chart), style=style,
                       domain=domain, chart=chart, renderer=renderer, meta=meta)


def _add_degrade(cfg: GenConfig, style: StyleSpec, rng: random.Random, meta: dict[str, Any]) -> None:
    """Choose the chart's after-render degradation: the photo/scan pass (``cfg.photo`` of the
    charts), else for the wild family the web-image pass (slight rotation, noise, JPEG)."""
    if cfg.photo and rng.random() < cfg.photo:
        meta["degrade"] = {"kind": "photo", "seed": rng.randrange(2**31)}
        if cfg.photo_hard:
            meta["degrade"]["hard"] = True
    elif style.family == "wild":
        meta["degrade"] = {"kind": "wild", "seed": rng.randrange(2**31)}
        if cfg.wild_blur is not None:
            meta["degrade"]["p_blur"] = cfg.wild_blur


def file_jobs(cfg: GenConfig, paths: list[Path]) -> Iterator[ChartJob]:
    """Jobs from user Mermaid: ``.mmd`` files (one chart each), ``.md`` files (each ```` ```mermaid ````
    fence is a chart) or ``.jsonl`` (one
    ``{"id"?, "mermaid", "domain"?}`` per line). Each chart gets ``cfg.styles`` round-robin."""
    i = 0
    for path in paths:
        path = Path(path)
        if path.suffix == ".jsonl":
            with path.open(encoding="utf-8") as fh:
                for lineno, line in enumerate(fh, 1):
                    if not line.strip():
                        continue
                    try:
                        rec = json.loads(line)
                        text = rec["mermaid"]
                    except (json.JSONDecodeError, KeyError, TypeError) as err:
                        raise ValueError(f"{path}:{lineno}: expected a JSON object with a 'mermaid' string ({err})") from None
                    cid = str(rec.get("id") or f"{path.stem}_{lineno:06d}")
                    yield _user_job(cfg, i, cid, text, rec.get("domain"), f"{path}:{lineno}")
                    i += 1
        else:
            text = path.read_text(encoding="utf-8")
            # Markdown: every ```mermaid fence is one chart
            fences = re.findall(r"```mermaid\s*\n(.*?)```", text, flags=re.S)
            if fences:
                for k, body in enumerate(fences):
                    cid = path.stem if len(fences) == 1 else f"{path.stem}_{k:03d}"
                    yield _user_job(cfg, i, cid, body, None, f"{path}#{k}")
                    i += 1
            else:
                yield _user_job(cfg, i, path.stem, text, None, str(path))
                i += 1


def _user_job(cfg: GenConfig, i: int, cid: str, text: str, domain: str | None, source: str) -> ChartJob:
    from data_gen.procedural import random_text_labels
    from flowpath.mermaid import parse_mermaid, to_mermaid

    rng = random.Random(f"{cfg.seed}:{cid}")
    chart: FlowChart | None
    try:
        chart = parse_mermaid(text, strict=False)
    except Exception:  # noqa: BLE001 - Mermaid itself is the judge; we only lose the SFT target
        chart = None
    meta: dict[str, Any] = {}
    if chart is not None and cfg.random_text and rng.random() < cfg.random_text:
        chart = random_text_labels(chart, rng)
        text = to_mermaid(chart)
        meta["random_text"] = True
    family = cfg.styles[i % len(cfg.styles)]
    ids = list(chart.nodes) if chart else []
    style = sample_style(family, cfg.split, rng, ids, {n.id: n.kind for n in chart.nodes.values()} if chart else {})
    if cfg.augment and rng.random() < cfg.augment:
        meta["augment_seed"] = rng.randrange(2**31)
    _add_degrade(cfg, style, rng, meta)
    return ChartJob(id=cid, mermaid=text, style=style, domain=domain, source=source, chart=chart, meta=meta)


# -- worker side ----------------------------------------------------------------------------
def finish_chart(task: dict[str, Any]) -> dict[str, Any]:
    """Rasterise, compute regions, augment, label, write. Runs in a worker process.

    Returns:
        ``{"id", "ok": True, "nodes": n}`` or ``{"id", "ok": False, "error": str}``.
    """
    import numpy as np

    from data_gen.raster import annotate, decode_png, rasterize_svg
    from flowpath.io import atomic_write_text, save_image

    out = Path(task["out"])
    cid = task["id"]
    try:
        W, H, scale = task["width"], task["height"], tuple(task["scale"])
        ann = task.get("annotations") or annotate(task["render"], W, H, scale)
        if not ann["nodes"]:
            raise ValueError("no node regions found in the rendered SVG")
        png_bytes = task.get("png")
        # the browser's PNG can be written as is unless pixels are needed (augment, SFT labels)
        degrade = (task.get("meta") or {}).get("degrade")
        need_pixels = task.get("augment_seed") is not None or "sft" in task["outputs"] or degrade is not None
        img = None
        if png_bytes is None:
            img = rasterize_svg(task["svg"], W, H)
        elif need_pixels:
            img = decode_png(png_bytes, W, H)
        if task.get("augment_seed") is not None:
            from data_gen.augment import augment

            img, ann = augment(img, ann, random.Random(task["augment_seed"]))
            H, W = img.shape[:2]
        if degrade is not None:
            text_px = float(task["style"].get("font_size") or 16) * sum(task["scale"]) / 2
            img, ann = _degrade(img, ann, degrade, task["style"], text_px)
            H, W = img.shape[:2]
        if img is None:
            tmp = out / "charts" / f".{cid}.png.tmp"
            tmp.write_bytes(png_bytes)
            os.replace(tmp, out / "charts" / f"{cid}.png")
        else:
            save_image(np.ascontiguousarray(img), out / "charts" / f"{cid}.png")
        record: dict[str, Any] = {
            "mermaid": task["mermaid"], "width": int(W), "height": int(H),
            "scale": [scale[0], scale[1]],
            "nodes": {k: {"bbox": v["bbox"], "polygon": v["polygon"], "text": v.get("text", ""),
                          "label_box": v.get("label_box")} for k, v in ann["nodes"].items()},
            "edges": ann["edges"], "clusters": ann["clusters"],
            "style": task["style"], "domain": task.get("domain"), "source": task.get("source"),
            "renderer": task.get("renderer", "mermaid"), "meta": task.get("meta", {}),
        }
        if "photo" in ann:
            record["meta"] = {**record["meta"], "photo": ann["photo"]}
        if "sft" in task["outputs"] and task.get("chart") is not None:
            record["sft"] = _write_sft_image(img, ann, task, out)
        atomic_write_text(out / "charts" / f"{cid}.json", json.dumps(record))
        return {"id": cid, "ok": True, "nodes": len(ann["nodes"])}
    except Exception as err:  # noqa: BLE001 - one bad chart must not stop the batch
        return {"id": cid, "ok": False, "error": f"{type(err).__name__}: {err}"}


def _degrade(img: Any, ann: dict[str, Any], degrade: dict[str, Any], style: dict[str, Any],
             text_px: float) -> tuple[Any, dict[str, Any]]:
    rng = random.Random(degrade["seed"])
    if degrade["kind"] == "photo":
        from data_gen.photo import photo_scan

        return photo_scan(img, ann, rng, hard=bool(degrade.get("hard", False)))
    from data_gen.augment import augment
    from data_gen.styles import WILD_MAX_BLUR_PER_TEXT_PX

    # a web image: saved a few times as JPEG, maybe scanned slightly crooked, no rescale, and
    # never blurred past what its publisher would still read at that text size
    bg = style.get("background") or "#ffffff"
    fill = (int(bg[1:3], 16), int(bg[3:5], 16), int(bg[5:7], 16))
    return augment(img, ann, rng, scale=(1.0, 1.0), max_rotation=1.0, p_jpeg=1.0, quality=(40, 85), fill=fill,
                   max_blur=WILD_MAX_BLUR_PER_TEXT_PX * text_px, **({"p_blur": degrade["p_blur"]}
                                                                    if "p_blur" in degrade else {}))


def replay_degrade(seed: int, p_blur: float = 0.4) -> tuple[float, int]:
    """Blur sigma (0 when none; before the text-size cap) and JPEG quality of the wild degrade
    pass with this seed: the same draws, in the same order, as `data_gen.augment.augment` with
    `_degrade`'s wild options (keep the three in step; ``p_blur``: the chart's
    ``degrade["p_blur"]`` where `GenConfig.wild_blur` set it, else augment's default 0.4). Here
    beside the pass it replays, for the evaluation scripts and the training-line builder alike."""
    rng = random.Random(seed)
    if rng.random() < 0.7:
        rng.uniform(1.0, 1.0)
    if rng.random() < 0.35:
        rng.uniform(-1.0, 1.0)
    sigma = rng.uniform(0.3, 1.1) if rng.random() < p_blur else 0.0
    if rng.random() < 0.4:
        rng.uniform(0.75, 1.15)
    if rng.random() < 0.4:
        rng.randrange(2**31)
        rng.uniform(2, 8)
    return sigma, rng.randint(40, 85)


def chart_blur(record: dict[str, Any]) -> float:
    """Blur sigma (px) of a chart's wild degrade pass (its JSON record), capped as `_degrade`
    caps it; 0 when none (or not a wild chart)."""
    import statistics

    from data_gen.styles import WILD_MAX_BLUR_PER_TEXT_PX

    deg = (record.get("meta") or {}).get("degrade") or {}
    if deg.get("kind") != "wild":
        return 0.0
    sigma, _ = replay_degrade(int(deg["seed"]), float(deg.get("p_blur", 0.4)))
    style = record.get("style") or {}
    if sigma and style.get("font_size"):
        px = float(style["font_size"]) * statistics.mean(record.get("scale") or [1.0])
        sigma = min(sigma, WILD_MAX_BLUR_PER_TEXT_PX * px)
    return round(sigma, 3)


def blur_band(sigma: float) -> str:
    """The band of a wild degrade pass's blur sigma (`chart_blur`) the figures are reported in:
    ``none``, ``<0.6`` or ``>=0.6`` px (the evaluation scripts and the recogniser training's
    validation alike)."""
    return "none" if sigma == 0 else "<0.6" if sigma < 0.6 else ">=0.6"


def _write_sft_image(img: Any, ann: dict[str, Any], task: dict[str, Any], out: Path) -> dict[str, Any] | None:
    from flowpath.geometry import Region
    from flowpath.io import save_image
    from flowpath.labeller import draw_labels
    from flowpath.labels import letters_to_index
    from flowpath.mermaid import to_mermaid

    chart = FlowChart.from_dict(task["chart"])
    ids = [nid for nid in chart.nodes if nid in ann["nodes"]]
    if len(ids) != len(chart.nodes):
        return None  # the drawn nodes and the source disagree: no trustworthy target
    regions = [Region.from_polygon(ann["nodes"][nid]["polygon"]) for nid in ids]
    labelled, by_letter = draw_labels(img, regions)
    # draw_labels returns the Region objects it was given, keyed by letter
    index = {id(r): nid for r, nid in zip(regions, ids, strict=True)}
    mapping = {}
    for letter, reg in by_letter.items():
        nid = index.get(id(reg))
        if nid is None:  # fall back to geometry if the labeller copied the regions
            nid = next(n for n, r in zip(ids, regions, strict=True) if r.bbox == reg.bbox)
        mapping[nid] = letter
    # nodes listed in letter order (A, B, ... Z, AA): the order a reader of the image meets them
    relabelled = chart.relabel(mapping).to_dict()
    relabelled["nodes"].sort(key=lambda n: letters_to_index(n["id"]))
    target = to_mermaid(FlowChart.from_dict(relabelled))
    save_image(labelled, out / "sft" / f"{task['id']}.png")
    return {"image": f"sft/{task['id']}.png", "target": target, "letters": mapping}


# -- main loop ------------------------------------------------------------------------------
def run(cfg: GenConfig, jobs: Iterator[ChartJob] | None = None,
        progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Generate a set. Returns the summary (also written to ``OUT/summary.json``)."""
    from tqdm import tqdm

    from data_gen.geometry import raster_size
    from data_gen.render import MermaidError, MermaidRenderer

    out = cfg.out
    (out / "charts").mkdir(parents=True, exist_ok=True)
    if "sft" in cfg.outputs:
        (out / "sft").mkdir(exist_ok=True)
    jobs = jobs if jobs is not None else procedural_jobs(cfg)
    t0 = time.time()
    n_ok = n_skip = n_fail = 0
    errors_path = out / "errors.jsonl"
    err_fh = errors_path.open("a", encoding="utf-8")
    # spawn, not fork: forking a process that runs playwright's driver threads can deadlock
    pool = (ProcessPoolExecutor(cfg.workers, mp_context=multiprocessing.get_context("spawn"))
            if cfg.workers > 0 else None)
    pending: list[Future[dict[str, Any]]] = []
    bar = tqdm(total=cfg.count, desc="charts", unit="chart", disable=None, dynamic_ncols=True)

    def record_error(cid: str, source: str | None, msg: str, stage: str) -> None:
        nonlocal n_fail
        n_fail += 1
        err_fh.write(json.dumps({"id": cid, "source": source, "stage": stage, "error": msg}) + "\n")
        err_fh.flush()
        log.warning("chart %s skipped (%s): %s", cid, stage, msg.splitlines()[0] if msg else msg)

    def collect(block: bool) -> None:
        nonlocal n_ok
        while pending and (block or pending[0].done()):
            res = pending.pop(0).result()
            if res["ok"]:
                n_ok += 1
            else:
                record_error(res["id"], res.get("source"), res["error"], res.get("stage", "rasterise"))
            bar.update(1)
            if progress:
                progress(n_ok + n_fail + n_skip, cfg.count)

    if cfg.workers >= 2:
        # one page per worker process (the pool above); see the module docstring
        renderer = None
    else:
        renderer = MermaidRenderer()
    try:
        for job in jobs:
            if (out / "charts" / f"{job.id}.json").exists():
                n_skip += 1
                bar.update(1)
                continue
            if renderer is None:
                assert pool is not None
                pending.append(pool.submit(render_and_finish, job, cfg))
                collect(block=len(pending) >= 2 * cfg.workers)
                continue
            try:
                task = _render_job(renderer, job, cfg, raster_size)
            except MermaidError as err:
                record_error(job.id, job.source, str(err), "mermaid")
                bar.update(1)
                continue
            except Exception as err:  # noqa: BLE001 - keep going past one bad chart
                record_error(job.id, job.source, f"{type(err).__name__}: {err}", "render")
                bar.update(1)
                continue
            if pool is None:
                pending.append(_done_future(finish_chart(task)))
            else:
                pending.append(pool.submit(finish_chart, task))
            # bounded queue: the browser runs at most 2*workers charts ahead of the writers
            collect(block=len(pending) >= 2 * max(1, cfg.workers))
        collect(block=True)
    finally:
        if renderer is not None:
            renderer.close()
        if pool is not None:
            pool.shutdown(wait=True)
        bar.close()
        err_fh.close()
    elapsed = time.time() - t0
    derived = build_derived(out, cfg.outputs)
    summary = {"charts_written": n_ok, "charts_skipped_existing": n_skip, "charts_failed": n_fail,
               "seconds": round(elapsed, 2), "charts_per_second": round(n_ok / elapsed, 3) if elapsed else None,
               "options": {k: (str(v) if isinstance(v, Path) else v) for k, v in cfg.__dict__.items()},
               **derived}
    from flowpath.io import atomic_write_text

    atomic_write_text(out / "summary.json", json.dumps(summary, indent=2))
    return summary


_worker_renderer: Any = None


def render_and_finish(job: ChartJob, cfg: GenConfig) -> dict[str, Any]:
    """Render and finish one chart in a worker process that keeps one page for all its charts.

    Returns `finish_chart`'s result, with ``stage`` and ``source`` on failure so the main process
    records Mermaid's own error exactly as the one-page path does.
    """
    global _worker_renderer
    from data_gen.geometry import raster_size
    from data_gen.render import MermaidError, MermaidRenderer

    if _worker_renderer is None:
        import atexit

        _worker_renderer = MermaidRenderer()
        atexit.register(_worker_renderer.close)
    try:
        task = _render_job(_worker_renderer, job, cfg, raster_size)
    except MermaidError as err:
        return {"id": job.id, "ok": False, "stage": "mermaid", "source": job.source, "error": str(err)}
    except Exception as err:  # noqa: BLE001 - keep going past one bad chart
        return {"id": job.id, "ok": False, "stage": "render", "source": job.source,
                "error": f"{type(err).__name__}: {err}"}
    return finish_chart(task)


def _done_future(result: dict[str, Any]) -> Future[dict[str, Any]]:
    f: Future[dict[str, Any]] = Future()
    f.set_result(result)
    return f


def _render_job(renderer: Any, job: ChartJob, cfg: GenConfig, raster_size: Callable[..., Any]) -> dict[str, Any]:
    task: dict[str, Any] = {
        "id": job.id, "out": str(cfg.out), "mermaid": job.mermaid, "domain": job.domain,
        "source": job.source, "outputs": list(cfg.outputs), "meta": job.meta,
        "style": {**job.style.to_dict()}, "augment_seed": job.meta.get("augment_seed"),
        "chart": job.chart.to_dict() if job.chart is not None else None, "renderer": job.renderer,
    }
    size = _size_options(job, cfg)
    if job.renderer == "plantuml" and job.chart is not None:
        return _render_plantuml(renderer, job, cfg, task, size)
    if job.renderer == "flowchartjs" and job.chart is not None:
        return _render_flowchartjs(renderer, job, task, size)
    if job.renderer == "d2" and job.chart is not None:
        return _render_d2(renderer, job, task, size)
    if job.renderer == "graphviz" and job.chart is not None:
        from data_gen.graphviz import dot_svg, to_dot

        rng = random.Random(f"dot:{job.id}")
        dot = to_dot(job.chart, job.style, rng, end_labels=bool(job.meta.get("end_labels")))
        try:
            svg = dot_svg(dot)
        except ValueError:
            if "splines=ortho" not in dot:
                raise
            # dot's orthogonal router aborts on some graphs with edge labels (an assertion in
            # its maze.c): such a chart is drawn with polyline splines rather than skipped
            svg = dot_svg(dot.replace("splines=ortho", "splines=polyline"))
        r = renderer.measure_graphviz(svg)
        W, H, scale = raster_size(r.view_box, **size(r.view_box))
        task["style"]["renderer"] = "graphviz"
        task.update(svg=r.svg, width=W, height=H, scale=list(scale),
                    render={"view_box": list(r.view_box), "nodes": r.nodes, "edges": r.edges,
                            "clusters": r.clusters})
        return task
    if cfg.rasterizer == "browser":
        # one render; the browser's own rasteriser then screenshots the live SVG
        r = renderer.render(job.mermaid, config=job.style.mermaid_config(), css=job.style.css(), bake=False,
                            effects=job.style.page_options())
        W, H, scale = raster_size(r.view_box, **size(r.view_box))
        task["png"] = renderer.screenshot(W, H)
    else:
        r = renderer.render(job.mermaid, config=job.style.mermaid_config(), css=job.style.css(), bake=True,
                            effects=job.style.page_options())
        W, H, scale = raster_size(r.view_box, **size(r.view_box))
        task["svg"] = r.svg
    task.update(width=W, height=H, scale=list(scale),
                render={"view_box": list(r.view_box), "nodes": r.nodes, "edges": r.edges,
                        "clusters": r.clusters})
    return task


def _size_options(job: ChartJob, cfg: GenConfig) -> Callable[[tuple[float, ...]], dict[str, Any]]:
    """`raster_size` options for one chart: the set's scale and width cap, or for a style with
    a ``raster_width`` (the wild family's 300-550 px web images) that width, but never below
    0.6x nor so small that its text falls under `WILD_MIN_TEXT_PX`."""
    from data_gen.styles import WILD_MIN_TEXT_PX

    def size(view_box: tuple[float, ...]) -> dict[str, Any]:
        if not job.style.raster_width:
            return {"scale": cfg.scale, "max_width": cfg.max_width}
        floor = max(0.6, WILD_MIN_TEXT_PX / job.style.font_size)
        s = max(floor, min(cfg.scale, job.style.raster_width / float(view_box[2])))
        return {"scale": s, "max_width": 0, "min_scale": 0.6}
    return size


def _render_plantuml(renderer: Any, job: ChartJob, cfg: GenConfig, task: dict[str, Any],
                     size: Callable[[tuple[float, ...]], dict[str, Any]]) -> dict[str, Any]:
    """PlantUML activity diagram of the job's chart, measured and screenshot in the page; the
    record's gold becomes the chart as drawn (`data_gen.plantuml.plantuml_chart`)."""
    from data_gen.geometry import raster_size
    from data_gen.plantuml import START, plantuml_chart, plantuml_svg, to_puml
    from flowpath.mermaid import to_mermaid

    assert job.chart is not None
    chart = plantuml_chart(job.chart)
    source, order, _ = to_puml(chart, job.style, random.Random(f"puml:{job.id}"))
    r = renderer.measure_plantuml(plantuml_svg(source), order)
    alias = {f"N{i}": nid for i, nid in enumerate(chart.nodes)}
    r.nodes = [n for n in r.nodes if n["id"] != START]
    r.edges = [e for e in r.edges if all(a in alias for a in e["alias"])]
    for e in r.edges:
        e["source"], e["target"] = (alias[a] for a in e.pop("alias"))
    _check_plantuml(chart, r)
    W, H, scale = raster_size(r.view_box, **size(r.view_box))
    task["style"]["renderer"] = "plantuml"
    task.update(mermaid=to_mermaid(chart), chart=chart.to_dict(), png=renderer.screenshot(W, H),
                width=W, height=H, scale=list(scale),
                render={"view_box": list(r.view_box), "nodes": r.nodes, "edges": r.edges, "clusters": []})
    return task


def _render_flowchartjs(renderer: Any, job: ChartJob, task: dict[str, Any],
                        size: Callable[[tuple[float, ...]], dict[str, Any]]) -> dict[str, Any]:
    """flowchart.js drawing of the job's chart, measured and screenshot in the page; the
    record's gold becomes the chart as drawn (`data_gen.flowchartjs.draw_flowchartjs`)."""
    from data_gen.flowchartjs import draw_flowchartjs
    from data_gen.geometry import raster_size
    from flowpath.mermaid import to_mermaid

    assert job.chart is not None
    plan, r = draw_flowchartjs(renderer, job.chart, job.style, random.Random(f"flowchartjs:{job.id}"))
    W, H, scale = raster_size(r.view_box, **size(r.view_box))
    task["style"]["renderer"] = "flowchartjs"
    task.update(mermaid=to_mermaid(plan.chart), chart=plan.chart.to_dict(), png=renderer.screenshot(W, H),
                width=W, height=H, scale=list(scale),
                render={"view_box": list(r.view_box), "nodes": r.nodes, "edges": r.edges, "clusters": []})
    return task


def _render_d2(renderer: Any, job: ChartJob, task: dict[str, Any],
               size: Callable[[tuple[float, ...]], dict[str, Any]]) -> dict[str, Any]:
    """D2 drawing of the job's chart, measured and screenshot in the page; the record's gold
    becomes the chart as drawn (`data_gen.d2.draw_d2`)."""
    from data_gen.d2 import draw_d2
    from data_gen.geometry import raster_size
    from flowpath.mermaid import to_mermaid

    assert job.chart is not None
    plan, r = draw_d2(renderer, job.chart, job.style, random.Random(f"d2:{job.id}"))
    W, H, scale = raster_size(r.view_box, **size(r.view_box))
    task["style"].update(renderer="d2", layout=r.meta["layout"])
    task.update(mermaid=to_mermaid(plan.chart), chart=plan.chart.to_dict(), png=renderer.screenshot(W, H),
                width=W, height=H, scale=list(scale),
                render={"view_box": list(r.view_box), "nodes": r.nodes, "edges": r.edges, "clusters": r.clusters})
    return task


def _check_plantuml(chart: FlowChart, r: Any) -> None:
    """PlantUML's SVG names no nodes: the drawing order maps entities to ids, so check that
    every entity's text is its node's text before trusting the regions."""
    def words(t: str) -> list[str]:
        return t.replace("\\n", " ").replace('"', "'").split()

    if len(r.nodes) != len(chart.nodes):
        raise ValueError(f"PlantUML drew {len(r.nodes)} entities for {len(chart.nodes)} nodes")
    for n in r.nodes:
        want = chart.nodes[n["id"]].text or n["id"]
        if words(n["text"]) != words(want):
            raise ValueError(f"PlantUML entity order broke: node {n['id']!r} reads {n['text']!r}, expected {want!r}")
    if len(r.edges) != len(chart.edges):
        raise ValueError(f"PlantUML drew {len(r.edges)} links for {len(chart.edges)} edges")


# -- derived outputs ---------------------------------------------------------------------------
def build_derived(out: Path, outputs: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """(Re)build ``coco.json`` and ``sft.jsonl`` from every ``charts/<id>.json``."""
    files = sorted((out / "charts").glob("*.json"))
    info: dict[str, Any] = {"charts_total": len(files)}
    if "coco" in outputs:
        from data_gen.writers import write_coco

        info["coco"] = write_coco(out, files)
    if "sft" in outputs:
        from data_gen.writers import write_sft

        info["sft"] = write_sft(out, files, SFT_PROMPT)
    return info


def default_workers() -> int:
    return max(1, min(2, (os.cpu_count() or 2)))
