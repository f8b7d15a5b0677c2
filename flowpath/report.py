"""A self-contained HTML report of a batch run: summary figures and a gallery of overlays."""

from __future__ import annotations

import html
import json
import re
import urllib.parse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from flowpath.io import atomic_write_text

_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5rem;background:#f6f7f9;color:#222}
h1{font-size:1.4rem} .sum{margin-bottom:1rem} .sum td{padding:0 .8rem 0 0}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:1rem}
.card{background:#fff;border-radius:8px;box-shadow:0 1px 3px #0002;padding:.7rem;overflow:hidden}
.card img{width:100%;max-height:520px;object-fit:contain;background:#fff;border:1px solid #ddd}
.card.err{border-left:5px solid #d22} .k{color:#666;font-size:.8rem;text-transform:uppercase}
.nodes{font-family:monospace;font-weight:bold;color:#0052cc} .error{color:#c00;white-space:pre-wrap}
.reason{font-size:.9rem;color:#333} details{font-size:.8rem}
.id{color:#444;font-size:.85rem;font-family:monospace;margin-bottom:.3rem}
"""


def _esc(x: Any) -> str:
    return html.escape("" if x is None else str(x))


#: the overlay paths `flowpath.batch` writes: ``overlays/<output_name>.png``, nothing else
_OVERLAY_PATH = re.compile(r"overlays/[A-Za-z0-9%._~-]+\.png")


def _overlay_href(path: Any) -> str | None:
    """The link for a record's overlay, or None unless it is a path the run wrote itself (a
    record can carry anything a questions file put in it, e.g. ``javascript:`` URLs)."""
    if not isinstance(path, str) or not _OVERLAY_PATH.fullmatch(path):
        return None
    # file names are percent-encoded (flowpath.batch.output_name): encode the '%' for the URL
    return _esc(urllib.parse.quote(path))


def render_report(records: Sequence[dict[str, Any]], summary: dict[str, Any],
                  title: str = "flowpath attribution report") -> str:
    """The report as an HTML string (overlay images referenced by their relative paths)."""
    rows = "".join(
        f"<tr><td>{_esc(k)}</td><td>{_esc(summary.get(k))}</td></tr>"
        for k in ("questions", "ok", "failed", "resumed", "mean_parse_seconds_per_chart",
                  "mean_reason_seconds_per_question", "wall_seconds") if k in summary)
    comps = summary.get("components") or {}
    if comps:
        rows += f"<tr><td>components</td><td>{_esc(', '.join(f'{k}={v}' for k, v in comps.items()))}</td></tr>"
    cards = []
    for r in records:
        err = r.get("error")
        href = _overlay_href(r.get("overlay"))
        img = (f'<a href="{href}"><img loading="lazy" src="{href}" '
               f'alt="overlay {_esc(r.get("id"))}"></a>') if href else ""
        nodes = " → ".join(r.get("node_ids") or []) or "(none)"
        extra = ""
        if r.get("problems"):
            extra += f'<div class="k">problems</div><div>{_esc("; ".join(r["problems"]))}</div>'
        if r.get("trace"):
            extra += (f"<details><summary>trace ({len(r['trace'])} steps)</summary><pre>"
                      f"{_esc(json.dumps(r['trace'], indent=1)[:20000])}</pre></details>")
        cards.append(
            f'<div class="card{" err" if err else ""}" id="{_esc(r.get("id"))}">'
            f'<div class="id">{_esc(r.get("id"))} · {_esc(r.get("image"))}</div>{img}'
            f'<div class="k">question</div><div>{_esc(r.get("question"))}</div>'
            f'<div class="k">answer</div><div>{_esc(r.get("answer"))}</div>'
            f'<div class="k">nodes</div><div class="nodes">{_esc(nodes)}</div>'
            + (f'<div class="k">reason</div><div class="reason">{_esc(r.get("reason"))}</div>'
               if r.get("reason") else "")
            + (f'<div class="k">error</div><div class="error">{_esc(err)}</div>' if err else "")
            + extra + "</div>")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{_esc(title)}</title>"
            f"<style>{_CSS}</style></head><body><h1>{_esc(title)}</h1>"
            f"<table class='sum'>{rows}</table><div class='grid'>{''.join(cards)}</div>"
            "</body></html>\n")


def write_report(path: str | Path, records: Sequence[dict[str, Any]], summary: dict[str, Any],
                 title: str = "flowpath attribution report") -> Path:
    """Write `render_report` to ``path`` atomically; overlay paths in ``records`` must be
    relative to the report's folder."""
    atomic_write_text(path, render_report(records, summary, title))
    return Path(path)
