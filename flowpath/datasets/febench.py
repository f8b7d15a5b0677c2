"""Reader for the *benchmark layout* of FlowExplainBench ("Follow the Flow"; see
``../shared/data/README.md``), the layout of every evaluation set flowpath reads.

    DIR/charts/<chart>.png    the rendered chart
    DIR/charts/<chart>.json   {"mermaid", "width", "height", "scale",
                               "nodes": {node_id: {"bbox": xyxy, "polygon": [[x, y], ...]}},
                               optional "style": {"family": ..., ...}, optional "domain",
                               optional "edges": [{"source", "target", "label", ...}]}
    DIR/questions.jsonl       {"id", "chart", "image", "question", "answer", "answers", "type",
                               "domain", "gold": [node ids], "gold_missing_region": [...]}

Synthetic sets written by ``data_gen`` use the same layout (plus the optional keys), so one
evaluation command scores both. ``questions.jsonl`` may be absent for segmentation-only sets.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flowpath.geometry import Region

STYLE_FAMILIES = ("single_color", "multi_color", "default", "black_white")
QUESTION_TYPES = ("fact_retrieval", "applied_scenario", "flow_referential", "topological")


@dataclass
class BenchChart:
    """One chart of a benchmark-layout folder with its gold annotations."""

    id: str
    image_path: Path
    mermaid: str
    width: int
    height: int
    regions: dict[str, Region]
    style_family: str = "default"
    domain: str | None = None
    renderer: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class BenchQuestion:
    id: str
    chart: str
    image: str
    question: str
    answer: str
    type: str
    domain: str | None
    gold: list[str]
    answers: list[str] = field(default_factory=list)
    gold_missing_region: list[str] = field(default_factory=list)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> BenchQuestion:
        return cls(id=str(d["id"]), chart=d["chart"], image=d.get("image", f"charts/{d['chart']}.png"),
                   question=d["question"], answer=d["answer"], type=d.get("type", "unknown"),
                   domain=d.get("domain"), gold=list(d.get("gold", [])),
                   answers=list(d.get("answers", [d["answer"]])),
                   gold_missing_region=list(d.get("gold_missing_region", [])))

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class Benchmark:
    """A benchmark-layout folder.

    >>> bench = Benchmark("../shared/data/febench_dev")  # doctest: +SKIP
    >>> chart = bench.chart("code00008"); len(chart.regions)  # doctest: +SKIP
    10
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.charts_dir = self.root / "charts"
        if not self.charts_dir.is_dir():
            raise ValueError(f"{self.root}: not a benchmark-layout folder (no charts/ directory)")
        self.chart_ids = sorted(p.stem for p in self.charts_dir.glob("*.json"))
        qpath = self.root / "questions.jsonl"
        self.questions: list[BenchQuestion] = []
        if qpath.exists():
            for lineno, line in enumerate(qpath.read_text(encoding="utf-8").splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    self.questions.append(BenchQuestion.from_dict(json.loads(line)))
                except (json.JSONDecodeError, KeyError) as exc:
                    raise ValueError(f"{qpath}:{lineno}: bad question record ({exc})") from None
        self._cache: dict[str, BenchChart] = {}

    def __len__(self) -> int:
        return len(self.chart_ids)

    def chart(self, chart_id: str) -> BenchChart:
        if chart_id in self._cache:
            return self._cache[chart_id]
        jpath = self.charts_dir / f"{chart_id}.json"
        if not jpath.exists():
            raise KeyError(f"{self.root}: no chart {chart_id!r}")
        d = json.loads(jpath.read_text(encoding="utf-8"))
        regions = {
            nid: Region(bbox=tuple(nd["bbox"]), polygon=[tuple(p) for p in nd.get("polygon") or []])  # type: ignore[arg-type]
            for nid, nd in d.get("nodes", {}).items()
        }
        image = self.charts_dir / f"{chart_id}.png"
        if not image.exists():
            for ext in (".jpg", ".jpeg", ".webp"):
                if (self.charts_dir / f"{chart_id}{ext}").exists():
                    image = self.charts_dir / f"{chart_id}{ext}"
        style = d.get("style") or {}
        chart = BenchChart(id=chart_id, image_path=image, mermaid=d.get("mermaid", ""),
                           width=int(d.get("width", 0)), height=int(d.get("height", 0)),
                           regions=regions, style_family=style.get("family", "default"),
                           domain=d.get("domain") or _domain_from_id(chart_id),
                           renderer=d.get("renderer"),
                           meta={k: v for k, v in d.items() if k not in ("mermaid", "nodes")})
        self._cache[chart_id] = chart
        return chart

    def charts(self) -> Iterator[BenchChart]:
        for cid in self.chart_ids:
            yield self.chart(cid)


def _domain_from_id(chart_id: str) -> str | None:
    for dom in ("code", "wiki", "instruct"):
        if chart_id.startswith(dom):
            return dom
    return None
