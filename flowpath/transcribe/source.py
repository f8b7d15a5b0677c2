"""`SourceTranscriber`: use the chart's own Mermaid source, given beside the image.

For ``chart.png`` it reads ``chart.mmd`` (or ``chart.mermaid``, or the ``"mermaid"`` key of a
benchmark-layout ``chart.json``) from the same folder, parses it
and renames its node ids to the letter labels. Two ways to know which Mermaid node a letter's
region is, tried in order:

1. **Geometry.** A benchmark-layout ``chart.json`` beside the image lists each Mermaid node's
   drawn box (``"nodes": {id: {"bbox": ...}}``). Letters and ids are matched one-to-one by box
   IoU; this is exact whenever the regions came from (or agree with) that drawing.
2. **Text.** Otherwise the regions are read by OCR (`OCRTranscriber`) and each letter goes to
   the Mermaid node whose label is most similar (rapidfuzz token-set ratio), greedily from the
   best pair down, one-to-one. OCR text is noisy but node labels are long and distinct, so the
   best pairs are reliable; ties between equal labels ("Yes", "End") are broken by the order of
   appearance, which follows the layout for most charts.

Nodes of the source that no region matched are dropped, and letters that no node matched are
kept as empty nodes; both are reported in ``problems``.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from flowpath.graph import FlowChart, Node
from flowpath.models.base import LabelledChart, Transcriber, Transcription

logger = logging.getLogger(__name__)


class SourceTranscriber(Transcriber):
    """Transcriber for users who have the Mermaid source.

    Args:
        suffixes: file suffixes looked for beside the image, in order.
        mermaid: Mermaid text to use for every chart instead of files (handy for one chart).
        min_iou: least box IoU for a geometric letter <-> node match.
        min_similarity: least text similarity (0-100) for an OCR letter <-> node match.

    >>> tr = SourceTranscriber()([LabelledChart(img, lab, regions, "charts/a.png")])  # doctest: +SKIP
    """

    name = "source"

    def __init__(self, *, suffixes: tuple[str, ...] = (".mmd", ".mermaid"), mermaid: str | None = None,
                 min_iou: float = 0.5, min_similarity: float = 50.0) -> None:
        self.suffixes = tuple(suffixes)
        self.mermaid = mermaid
        self.min_iou = float(min_iou)
        self.min_similarity = float(min_similarity)
        self._ocr: Any = None

    def __call__(self, charts: list[LabelledChart]) -> list[Transcription]:
        out = []
        for chart in charts:
            try:
                out.append(self._one(chart))
            except Exception as exc:  # never stop a batch
                fc = FlowChart()
                for letter in chart.regions:
                    fc.add_node(Node(letter, ""))
                from flowpath.mermaid import to_mermaid

                out.append(Transcription(to_mermaid(fc), fc, [f"source transcription failed: {exc}"],
                                         {"transcriber": self.name}))
        return out

    def find_source(self, image_path: str | Path | None) -> tuple[str | None, Path | None]:
        """The Mermaid text for an image (``mermaid=`` or a file beside it) and that file."""
        if self.mermaid is not None:
            return self.mermaid, None
        if not image_path:
            return None, None
        p = Path(image_path)
        for suf in self.suffixes:
            cand = p.with_suffix(suf)
            if cand.is_file():
                return cand.read_text(encoding="utf-8"), cand
        # a benchmark-layout json beside the image carries the source under "mermaid"
        jpath = p.with_suffix(".json")
        if jpath.is_file():
            try:
                text = json.loads(jpath.read_text(encoding="utf-8")).get("mermaid")
            except (json.JSONDecodeError, AttributeError):
                text = None
            if isinstance(text, str) and text.strip():
                return text, jpath
        return None, None

    def _one(self, chart: LabelledChart) -> Transcription:
        from flowpath.mermaid import parse_mermaid, to_mermaid

        letters = list(chart.regions)
        problems: list[str] = []
        text, path = self.find_source(chart.source)
        if text is None:
            fc = FlowChart()
            for letter in letters:
                fc.add_node(Node(letter, ""))
            where = chart.source or "(no image path given)"
            problems.append(f"no Mermaid source beside {where} (looked for {', '.join(self.suffixes)})")
            return Transcription(to_mermaid(fc), fc, problems, {"transcriber": self.name})
        src = parse_mermaid(text, strict=False)
        problems.extend(f"source: {w}" for w in src.warnings)
        mapping, how = self._map(chart, src)
        meta: dict[str, Any] = {"transcriber": self.name, "matched_by": how,
                                "source_file": str(path) if path else None}
        unmatched = [n for n in src.nodes if n not in mapping]
        for nid in unmatched:
            src.remove_node(nid)
        if unmatched:
            problems.append(f"source nodes with no labelled region, dropped: {', '.join(unmatched)}")
        fc = src.relabel(mapping)
        # letters first, in letter order, so the graph reads like the labels
        ordered = FlowChart(fc.direction)
        for letter in letters:
            if letter in fc.nodes:
                ordered.add_node(fc.nodes[letter])
            else:
                ordered.add_node(Node(letter, ""))
                problems.append(f"label {letter}: no source node matched its region")
        for e in fc.edges:
            ordered.add_edge(e)
        ordered.subgraphs = fc.subgraphs
        ordered.warnings = list(problems)
        meta["mapping"] = mapping
        return Transcription(to_mermaid(ordered), ordered, problems, meta)

    def _map(self, chart: LabelledChart, src: FlowChart) -> tuple[dict[str, str], str]:
        """Mermaid id -> letter, by geometry when a json with node boxes is beside the image."""
        if chart.source:
            jpath = Path(chart.source).with_suffix(".json")
            if jpath.is_file():
                try:
                    nodes = json.loads(jpath.read_text(encoding="utf-8")).get("nodes") or {}
                except (json.JSONDecodeError, AttributeError):
                    nodes = {}
                if nodes:
                    from flowpath.geometry import Region
                    from flowpath.metrics.matching import match_nodes

                    gold = {k: Region(tuple(v["bbox"])) for k, v in nodes.items() if k in src.nodes}
                    m = match_nodes(chart.regions, gold, self.min_iou)
                    return {nid: letter for letter, nid in m.items()}, "geometry"
        return self._map_by_text(chart, src), "text"

    def _map_by_text(self, chart: LabelledChart, src: FlowChart) -> dict[str, str]:
        from rapidfuzz import fuzz

        if self._ocr is None:
            from flowpath.transcribe.ocr import OCRTranscriber

            self._ocr = OCRTranscriber()
        read = self._ocr([chart])[0].chart
        letters = list(chart.regions)
        ids = list(src.nodes)
        pairs = []
        for li, letter in enumerate(letters):
            ocr_text = read.nodes[letter].text if letter in read.nodes else ""
            for ni, nid in enumerate(ids):
                s = fuzz.token_set_ratio(ocr_text.lower(), src.nodes[nid].text.lower())
                # order of appearance breaks ties between identical labels
                pairs.append((s, -abs(li - ni), letter, nid))
        pairs.sort(reverse=True)
        out: dict[str, str] = {}
        used: set[str] = set()
        for s, _, letter, nid in pairs:
            if s < self.min_similarity or nid in out or letter in used:
                continue
            out[nid] = letter
            used.add(letter)
        return out
