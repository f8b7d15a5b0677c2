"""Mermaid rendering in one long-lived headless Chromium page (PyPI playwright + Debian chromium).

The browser half lives in ``page.js``: it renders with the pinned Mermaid from
``node_modules`` (no network), injects style CSS, measures node/edge geometry in root-SVG units
and can bake computed styles inline for cairosvg. This module only drives it.

>>> with MermaidRenderer() as r:  # doctest: +SKIP
...     out = r.render("flowchart TD\\n A --> B")
...     out.svg[:4], sorted(n["id"] for n in out.nodes)
('<svg', ['A', 'B'])
"""

from __future__ import annotations

import base64
import os
import shutil
import tempfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flowpath.errors import require

REPO_ROOT = Path(__file__).resolve().parents[1]
MERMAID_JS = REPO_ROOT / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
PAGE_JS = Path(__file__).with_name("page.js")

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    # D2's browser build runs its WASM in a module worker made from a blob: URL, which a page
    # at a file: URL (an opaque origin) may only start with this flag; the page loads nothing
    # but our own files
    "--allow-file-access-from-files",
]


def find_chromium() -> str:
    """Path of the system Chromium (env ``FLOWPATH_CHROMIUM`` wins), or raise FileNotFoundError."""
    for cand in (os.environ.get("FLOWPATH_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                 shutil.which("chromium-browser")):
        if cand and Path(cand).exists():
            return cand
    raise FileNotFoundError("no Chromium found: install Debian 'chromium' (scripts/setup.sh) "
                            "or set FLOWPATH_CHROMIUM")


class MermaidError(ValueError):
    """Mermaid rejected a chart; ``str(err)`` is Mermaid's own message."""


@dataclass
class RenderOutput:
    """One rendered chart, everything in root-SVG user units (``viewBox``)."""

    svg: str
    view_box: tuple[float, float, float, float]
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    clusters: list[dict[str, Any]]
    png: bytes | None = None  # set when rasterised in the browser
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_page(cls, res: dict[str, Any], **extra: Any) -> RenderOutput:
        """What one of page.js's render/measure calls returned (``svg``, ``viewBox``, ``nodes``,
        ``edges``, ``clusters``), plus ``extra`` fields (``png``, ``meta``)."""
        return cls(svg=res["svg"], view_box=tuple(res["viewBox"]), nodes=res["nodes"],
                   edges=res["edges"], clusters=res["clusters"], **extra)


class MermaidRenderer:
    """Renders many Mermaid charts in one Chromium page.

    Args:
        chromium: executable path (default: `find_chromium`).
        mermaid_js: path of ``mermaid.min.js`` (default: the npm install in the repo).
        timeout_ms: per-chart render timeout.
    """

    def __init__(self, chromium: str | None = None, mermaid_js: str | Path | None = None,
                 timeout_ms: int = 30000) -> None:
        require("playwright", "gen", "Mermaid rendering")
        self.chromium = chromium or find_chromium()
        self.mermaid_js = Path(mermaid_js or MERMAID_JS)
        if not self.mermaid_js.is_file():
            raise FileNotFoundError(f"{self.mermaid_js} missing: run 'npm ci' in {REPO_ROOT}")
        self.timeout_ms = timeout_ms
        self._pw = None
        self._ctx = None
        self._page = None
        self._tmp: str | None = None
        self._count = 0
        self._flowchartjs = False
        self._d2 = False
        self._d2_fonts: set[str] = set()

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> MermaidRenderer:
        if self._page is not None:
            return self
        from playwright.sync_api import sync_playwright

        self._tmp = tempfile.mkdtemp(prefix="flowpath-chromium-")
        page_html = Path(self._tmp) / "render.html"
        # A local file page: Mermaid and our script load from disk, nothing touches the network.
        page_html.write_text(
            "<!doctype html><html><head><meta charset='utf-8'>"
            "<style>body{margin:0;background:white}</style></head>"
            "<body><div id='host'></div></body></html>", encoding="utf-8")
        self._pw = sync_playwright().start()
        self._ctx = self._pw.chromium.launch_persistent_context(
            str(Path(self._tmp) / "profile"), executable_path=self.chromium, headless=True,
            args=CHROMIUM_FLAGS, viewport={"width": 1600, "height": 1200}, device_scale_factor=1)
        self._page = self._ctx.new_page()
        self._page.set_default_timeout(self.timeout_ms)
        self._page.goto(page_html.as_uri())
        self._page.add_script_tag(path=str(self.mermaid_js))
        self._page.add_script_tag(path=str(PAGE_JS))
        self._page.wait_for_function("window.fpReady === true && typeof mermaid !== 'undefined'")
        return self

    def close(self) -> None:
        try:
            if self._ctx is not None:
                self._ctx.close()
            if self._pw is not None:
                self._pw.stop()
        finally:
            self._ctx = self._pw = self._page = None
            self._flowchartjs = self._d2 = False
            self._d2_fonts = set()
            if self._tmp:
                shutil.rmtree(self._tmp, ignore_errors=True)
                self._tmp = None

    def __enter__(self) -> MermaidRenderer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- rendering ---------------------------------------------------------------------------
    def render(self, text: str, *, config: dict[str, Any] | None = None, css: str = "",
               bake: bool = True, screenshot_scale: float | None = None,
               effects: dict[str, Any] | None = None) -> RenderOutput:
        """Render Mermaid ``text``.

        Args:
            text: Mermaid flowchart source.
            config: ``mermaid.initialize`` config (theme, look, fontFamily...); ``htmlLabels``
                is forced off so labels are SVG text.
            css: extra CSS; the placeholder ``#{id}`` is replaced by the SVG's id so the rules
                outrank Mermaid's own ``#id .node rect`` rules.
            bake: inline computed styles and drop ``<style>`` (what cairosvg needs).
            screenshot_scale: if set, also rasterise in the browser at this scale (PNG bytes in
                ``RenderOutput.png``); styles are then not baked before the screenshot.
            effects: page-side effects, `StyleSpec.page_options` (gradients, hand-drawn strokes).

        Returns:
            The `RenderOutput`.

        Raises:
            MermaidError: Mermaid could not parse/render the chart (its own message).
        """
        page = self.start()._page
        assert page is not None
        self._count += 1
        svg_id = f"fp{self._count}"
        cfg = {"startOnLoad": False, "securityLevel": "strict", "theme": "default"}
        cfg.update(config or {})
        cfg["htmlLabels"] = False
        cfg["flowchart"] = {**cfg.get("flowchart", {}), "htmlLabels": False}
        # Mermaid 11 draws its shapes through rough.js even in the classic look (roughness 0),
        # and rough.js samples curves with Math.random unless it has a seed: unseeded, the same
        # chart came out a pixel or two different on every run. A seed from the text keeps
        # renders reproducible and still different from chart to chart.
        if not cfg.get("handDrawnSeed"):
            cfg["handDrawnSeed"] = zlib.crc32(text.encode()) or 1
        req = {"id": svg_id, "text": text, "config": cfg, "css": css.replace("#{id}", f"#{svg_id}"),
               "bake": bake and screenshot_scale is None, "page": effects or {}}
        res = page.evaluate("req => window.fpRender(req)", req)
        if "error" in res:
            raise MermaidError(res["error"])
        png = None
        if screenshot_scale is not None:
            png = self._screenshot(res, screenshot_scale)
        return RenderOutput.from_page(res, png=png, meta={"timing_ms": res.get("timing", {})})

    def measure_graphviz(self, svg: str) -> RenderOutput:
        """Measure (and style-bake) an SVG written by Graphviz ``dot -Tsvg``."""
        page = self.start()._page
        assert page is not None
        res = page.evaluate("req => window.fpMeasureGraphviz(req)", {"svg": svg})
        return RenderOutput.from_page(res)

    def measure_plantuml(self, svg: str, order: list[str]) -> RenderOutput:
        """Measure an SVG written by ``plantuml -tsvg``; ``order`` = node ids in the order
        PlantUML draws them (`data_gen.plantuml.to_puml`). The SVG stays live in the page, so
        `screenshot` rasterises it with PlantUML's own shadows and gradients."""
        page = self.start()._page
        assert page is not None
        res = page.evaluate("req => window.fpMeasurePlantuml(req)", {"svg": svg, "order": order})
        return RenderOutput.from_page(res)

    def render_flowchartjs(self, source: str, options: dict[str, Any], *, css: str = "",
                           background: str | None = None) -> RenderOutput:
        """Draw flowchart.js ``source`` with ``drawSVG`` ``options`` and measure it
        (`data_gen.flowchartjs`); node ids are the symbol keys. The SVG stays live, so
        `screenshot` rasterises it with the ``css`` (``#{id}`` = the SVG's id) applied.

        Raises:
            MermaidError: flowchart.js could not draw the chart (its own message).
        """
        page = self.start()._page
        assert page is not None
        if not self._flowchartjs:
            from data_gen.flowchartjs import RAPHAEL_JS, browser_bundle

            bundle = browser_bundle()
            if not RAPHAEL_JS.is_file():
                raise FileNotFoundError(f"{RAPHAEL_JS} missing: run 'npm ci' in {REPO_ROOT}")
            page.add_script_tag(path=str(RAPHAEL_JS))
            page.add_script_tag(content=bundle)
            page.wait_for_function("typeof window.flowchart !== 'undefined'")
            self._flowchartjs = True
        self._count += 1
        svg_id = f"fp{self._count}"
        res = page.evaluate("req => window.fpRenderFlowchartjs(req)",
                            {"id": svg_id, "source": source, "options": options,
                             "css": css.replace("#{id}", f"#{svg_id}"), "background": background})
        if "error" in res:
            raise MermaidError(res["error"])
        return RenderOutput.from_page(res)

    def render_d2(self, source: str, options: dict[str, Any], *, nodes: list[str], clusters: list[str],
                  fonts: dict[str, Path], pad: int = 20, edge_width: float = 2.0, css: str = "") -> RenderOutput:
        """Compile and render D2 ``source`` with compile ``options`` (layout, themeID...) and
        measure it (`data_gen.d2`): the shapes keyed ``nodes`` are nodes, those keyed
        ``clusters`` containers; ``fonts`` maps D2's font roles (``fontRegular``,
        ``fontBold``...) to font files, sent to the page once each. Ids in the result are D2
        keys; ``edge_width`` is the normal line width (twice that counts as thick). The SVG
        stays live, so `screenshot` rasterises it.

        Raises:
            MermaidError: D2 could not compile or render the source (its own message).
        """
        page = self.start()._page
        assert page is not None
        if not self._d2:
            from data_gen.d2 import browser_module

            page.add_script_tag(content=browser_module(), type="module")
            page.wait_for_function("typeof window.D2 !== 'undefined'")
            self._d2 = True
        for path in fonts.values():
            if str(path) not in self._d2_fonts:
                page.evaluate("req => window.fpLoadD2Font(req)",
                              {"key": str(path), "data": base64.b64encode(Path(path).read_bytes()).decode("ascii")})
                self._d2_fonts.add(str(path))
        self._count += 1
        svg_id = f"fp{self._count}"
        res = page.evaluate("req => window.fpRenderD2(req)", {
            "id": svg_id, "source": source, "options": options, "css": css.replace("#{id}", f"#{svg_id}"),
            "fonts": {role: str(p) for role, p in fonts.items()}, "edgeWidth": edge_width,
            "render": {"pad": pad, "noXMLTag": True, "scale": 1, "center": False},
            "nodes": nodes, "clusters": clusters})
        if "error" in res:
            raise MermaidError(res["error"])
        return RenderOutput.from_page(res)

    def _screenshot(self, res: dict[str, Any], scale: float) -> bytes:
        w, h = res["viewBox"][2], res["viewBox"][3]
        return self.screenshot(max(1, round(w * scale)), max(1, round(h * scale)))

    def screenshot(self, W: int, H: int) -> bytes:
        """PNG of the chart rendered last (not style-baked), stretched to exactly ``W x H``."""
        # Resize the SVG element to the target pixel size; CSS px == image px at dsf 1.
        page = self._page
        assert page is not None
        page.evaluate("([W, H]) => { const s = document.querySelector('#host > svg');"
                      " s.setAttribute('width', W); s.setAttribute('height', H);"
                      " s.setAttribute('preserveAspectRatio', 'none'); }", [W, H])
        return page.locator("#host > svg").screenshot(type="png", animations="disabled")
