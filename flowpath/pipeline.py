"""The flowpath pipeline and its Python API.

``image -> segment nodes -> label them A, B, ... -> transcribe to Mermaid -> graph`` is
`FlowPath.parse` (a `ParsedChart`, cached by image content so many questions about one chart
parse it once); ``graph + question + answer -> reasoner -> node ids -> regions`` is
`FlowPath.attribute` (an `Attribution`). Boxes are absolute-pixel ``xyxy`` in the coordinates
of the original image.

>>> from flowpath import FlowPath
>>> fp = FlowPath.default()                                     # doctest: +SKIP
>>> parsed = fp.parse("examples/charts/loan.png")               # doctest: +SKIP
>>> att = fp.attribute("examples/charts/loan.png",
...                    "What happens if the score is below 600?", "The loan is rejected.")  # doctest: +SKIP
>>> att.letters, [r.bbox for r in att.regions]                  # doctest: +SKIP
(['C', 'E'], [(212.0, 300.0, 388.0, 380.0), (40.0, 420.0, 230.0, 490.0)])
>>> att.save_overlay("out/loan_overlay.png")                    # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from flowpath.errors import FlowPathError, ModelError
from flowpath.geometry import Region
from flowpath.graph import FlowChart
from flowpath.io import ImageInput, load_image
from flowpath.models.base import (
    LabelledChart,
    Reasoner,
    Reasoning,
    ReasoningRequest,
    Segmenter,
    Transcriber,
)

if TYPE_CHECKING:  # pragma: no cover
    from flowpath.reason.backends import LLMSettings

logger = logging.getLogger("flowpath.pipeline")

__all__ = ["Attribution", "FlowPath", "ParsedChart", "build_attribution", "image_hash", "reason_on"]


def image_hash(image: np.ndarray) -> str:
    """Content hash of a decoded RGB image (shape + pixels): the parse-cache key, so the same
    chart loaded from a path, a PIL image or an array hits the same cache entry."""
    h = hashlib.blake2b(digest_size=16)
    h.update(repr(image.shape).encode())
    h.update(np.ascontiguousarray(image).tobytes())
    return h.hexdigest()


def _source_of(image: Any) -> str | None:
    return os.fspath(image) if isinstance(image, (str, os.PathLike)) else None


@dataclass
class ParsedChart:
    """A chart image turned into a graph: what `FlowPath.parse` returns.

    Attributes:
        image_hash: content hash of the decoded image (see `image_hash`).
        width, height: image size in pixels.
        regions: letter -> node `Region` (original-image pixels), in letter order.
        graph: the transcribed `FlowChart`; its node ids are the letters.
        mermaid: the transcribed Mermaid text.
        problems: what went wrong but was survived (from the transcriber, plus graph nodes
            without a region and regions missing from the graph), in plain words.
        timings: seconds per stage: ``segment``, ``label``, ``transcribe``, ``total``.
        source: path of the image file, when it came from one.
        meta: component names and anything else worth keeping (e.g. the transcriber's meta).
        image: the decoded original image (not serialised).
        labelled_image: the image with the letter labels drawn (not serialised; the batch CLI
            writes it as a PNG).
    """

    image_hash: str
    width: int
    height: int
    regions: dict[str, Region]
    graph: FlowChart
    mermaid: str
    problems: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    source: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    image: np.ndarray | None = field(default=None, repr=False, compare=False)
    labelled_image: np.ndarray | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.width <= 0 or self.height <= 0:
            raise ValueError(f"ParsedChart size must be positive, got {self.width}x{self.height}")
        for k, r in self.regions.items():
            if not isinstance(r, Region):
                raise ValueError(f"ParsedChart region {k!r} is a {type(r).__name__}, not a Region")

    @property
    def letters(self) -> list[str]:
        """The letter labels, in order."""
        return list(self.regions)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (without the pixel arrays)."""
        return {
            "format": "flowpath.parsed_chart", "version": 1,
            "image_hash": self.image_hash, "width": self.width, "height": self.height,
            "source": self.source,
            "regions": {k: r.to_dict() for k, r in self.regions.items()},
            "graph": self.graph.to_dict(), "mermaid": self.mermaid,
            "problems": list(self.problems),
            "timings": dict(self.timings),
            "meta": dict(self.meta),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any], *, image: np.ndarray | None = None,
                  labelled_image: np.ndarray | None = None) -> ParsedChart:
        """Inverse of `to_dict`; pass the arrays back in if you have them."""
        try:
            return cls(image_hash=d["image_hash"], width=int(d["width"]), height=int(d["height"]),
                       regions={k: Region.from_dict(r) for k, r in d["regions"].items()},
                       graph=FlowChart.from_dict(d["graph"]), mermaid=d.get("mermaid", ""),
                       problems=list(d.get("problems", [])),
                       timings=dict(d.get("timings", {})), source=d.get("source"),
                       meta=dict(d.get("meta", {})), image=image, labelled_image=labelled_image)
        except KeyError as exc:
            raise ValueError(f"not a ParsedChart dict: missing key {exc}") from None


@dataclass
class Attribution:
    """The nodes and regions that ground a (question, answer) statement about a chart.

    Attributes:
        question, answer: the statement.
        node_ids: the node ids the reasoner returned, in path order (graph ids; in the pipeline
            these are the letters drawn on the image).
        letters: the subset of ``node_ids`` that have a region on the image, in the same order.
        regions: one `Region` per entry of ``letters`` (original-image pixels, xyxy).
        path_edges: ``(source, target)`` graph edges between attributed nodes that the walk
            takes (`walk_edges`: a shortcut the nodes also join by a longer route is left
            out): the path drawn by `save_overlay`.
        reason: the reasoner's explanation.
        trace: the reasoner's steps (tool calls, observations), JSON-ready.
        timings: seconds: ``parse`` (0 when the parse was cached), ``reason``, ``total``.
        error: why this question failed (None on success). A failed attribution has no nodes.
        problems: survivable oddities, e.g. node ids not in the graph or without a region.
        image_hash, source, width, height: which image this is about.
    """

    question: str
    answer: str
    node_ids: list[str] = field(default_factory=list)
    letters: list[str] = field(default_factory=list)
    regions: list[Region] = field(default_factory=list)
    path_edges: list[tuple[str, str]] = field(default_factory=list)
    reason: str = ""
    trace: list[dict[str, Any]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    error: str | None = None
    problems: list[str] = field(default_factory=list)
    image_hash: str | None = None
    source: str | None = None
    width: int | None = None
    height: int | None = None
    image: np.ndarray | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.letters) != len(self.regions):
            raise ValueError(f"Attribution has {len(self.letters)} letters but "
                             f"{len(self.regions)} regions; they must pair up")
        self.path_edges = [(str(s), str(t)) for s, t in self.path_edges]

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (one line of ``results.jsonl``), without the image array."""
        return {
            "question": self.question, "answer": self.answer,
            "node_ids": list(self.node_ids), "letters": list(self.letters),
            "regions": [r.to_dict() for r in self.regions],
            "path_edges": [list(e) for e in self.path_edges],
            "reason": self.reason, "trace": list(self.trace),
            "timings": dict(self.timings),
            "error": self.error, "problems": list(self.problems),
            "image_hash": self.image_hash, "source": self.source,
            "width": self.width, "height": self.height,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any], *, image: np.ndarray | None = None) -> Attribution:
        """Inverse of `to_dict`."""
        try:
            return cls(question=d["question"], answer=d["answer"],
                       node_ids=list(d.get("node_ids", [])), letters=list(d.get("letters", [])),
                       regions=[Region.from_dict(r) for r in d.get("regions", [])],
                       path_edges=[(e[0], e[1]) for e in d.get("path_edges", [])],
                       reason=d.get("reason", ""), trace=list(d.get("trace", [])),
                       timings=dict(d.get("timings", {})), error=d.get("error"),
                       problems=list(d.get("problems", [])), image_hash=d.get("image_hash"),
                       source=d.get("source"), width=d.get("width"), height=d.get("height"),
                       image=image)
        except KeyError as exc:
            raise ValueError(f"not an Attribution dict: missing key {exc}") from None

    def overlay(self, image: ImageInput | None = None) -> np.ndarray:
        """The original image with the attributed regions and the path drawn on it.

        Args:
            image: the original image; default: the one this attribution was made from (kept in
                memory, or re-read from ``source``).
        """
        from flowpath.overlay import draw_attribution

        arr = self._original(image)
        return draw_attribution(arr, self.regions, self.letters, self.path_edges)

    def save_overlay(self, path: str | os.PathLike, image: ImageInput | None = None) -> Path:
        """Write `overlay` to ``path`` (PNG unless the suffix says otherwise), atomically.

        >>> att.save_overlay("out/overlay.png")  # doctest: +SKIP
        PosixPath('out/overlay.png')
        """
        from flowpath.io import save_image

        save_image(self.overlay(image), path)
        return Path(path)

    def _original(self, image: ImageInput | None) -> np.ndarray:
        if image is not None:
            return load_image(image)
        if self.image is not None:
            return self.image
        if self.source:
            return load_image(self.source)
        raise ValueError("Attribution has no image to draw on (made from an array and "
                         "serialised since); pass image=...")


class FlowPath:
    """Segmenter + labeller + transcriber + reasoner: flowchart images to attributed graphs.

    Args:
        segmenter: finds node regions (`flowpath.models.base.Segmenter`).
        transcriber: labelled chart -> Mermaid whose node ids are the letters.
        reasoner: graph + statement -> node ids.
        cache_size: how many parsed charts to keep (by image content hash). Each entry holds
            the chart's image twice (original and labelled); `flowpath.batch` parses with
            ``cache=False`` and keeps one chart per worker instead.
        max_pixels: refuse images larger than this (default `flowpath.io.MAX_PIXELS`).

    >>> from flowpath.segment import make_segmenter         # doctest: +SKIP
    >>> from flowpath.transcribe import make_transcriber    # doctest: +SKIP
    >>> from flowpath.reason import make_reasoner           # doctest: +SKIP
    >>> fp = FlowPath(segmenter=make_segmenter("classical"),
    ...               transcriber=make_transcriber("ocr"),
    ...               reasoner=make_reasoner("offline"))    # doctest: +SKIP
    """

    def __init__(self, segmenter: Segmenter, transcriber: Transcriber, reasoner: Reasoner, *,
                 cache_size: int = 64, max_pixels: int | None = None) -> None:
        for what, obj in (("segmenter", segmenter), ("transcriber", transcriber),
                          ("reasoner", reasoner)):
            if not callable(obj):
                raise ValueError(f"FlowPath {what} must be callable, got {type(obj).__name__}")
        if cache_size < 0:
            raise ValueError(f"cache_size must be >= 0, got {cache_size}")
        self.segmenter = segmenter
        self.transcriber = transcriber
        self.reasoner = reasoner
        if max_pixels is not None and max_pixels <= 0:
            raise ValueError(f"max_pixels must be positive, got {max_pixels}")
        self.cache_size = cache_size
        self.max_pixels = max_pixels
        self._cache: OrderedDict[str, ParsedChart] = OrderedDict()
        self._lock = threading.Lock()

    @classmethod
    def default(cls, **kwargs: Any) -> FlowPath:
        """The out-of-the-box pipeline: each stage's default (offline without checkpoints or
        API keys); ``kwargs`` go to the constructor (e.g. ``cache_size``).

        >>> fp = FlowPath.default()  # doctest: +SKIP
        """
        from flowpath.reason import default_reasoner
        from flowpath.segment import default_segmenter
        from flowpath.transcribe import default_transcriber

        return cls(segmenter=default_segmenter(), transcriber=default_transcriber(),
                   reasoner=default_reasoner(), **kwargs)

    @classmethod
    def from_names(cls, segmenter: str = "default", transcriber: str = "default",
                   reasoner: str = "default", *, device: str = "auto",
                   transcriber_options: dict[str, Any] | None = None, llm: LLMSettings | None = None,
                   **kwargs: Any) -> FlowPath:
        """Build a pipeline from component names (the CLI's ``--segmenter/--transcriber/
        --reasoner``); ``"default"`` picks the offline default of that stage.

        ``transcriber_options`` go to the transcriber's constructor (the CLI's
        ``--transcriber-arg`` and ``--batch-size``), e.g. ``{"base": DIR, "batch_size": 8}``
        for ``qwen2vl``; a ``batch_size`` is dropped for a transcriber that has none (``ocr``).
        ``llm`` (`flowpath.reason.backends.LLMSettings`, the CLI's ``--llm-*`` flags) goes to a
        reasoner that takes LLM settings; by default they come from ``FLOWPATH_LLM_*``.

        Raises:
            ValueError: an unknown component name (from the stage's factory).
        """
        from flowpath.reason import default_reasoner, make_reasoner
        from flowpath.segment import default_segmenter, make_segmenter
        from flowpath.transcribe import TRANSCRIBERS, default_transcriber, make_transcriber

        seg = default_segmenter() if segmenter == "default" else _make(make_segmenter, segmenter, device)
        topts = dict(transcriber_options or {})
        tname = "ocr" if transcriber == "default" else transcriber
        if "batch_size" in topts and not TRANSCRIBERS.accepts(tname, "batch_size"):
            topts.pop("batch_size")
        tra = default_transcriber(**topts) if transcriber == "default" else _make(
            make_transcriber, transcriber, device, **topts)
        rea = default_reasoner(llm) if reasoner == "default" else _make(
            make_reasoner, reasoner, device, settings=llm)
        return cls(segmenter=seg, transcriber=tra, reasoner=rea, **kwargs)

    def describe(self) -> dict[str, str]:
        """Component names, for result metadata."""
        return {k: getattr(getattr(self, k), "name", type(getattr(self, k)).__name__)
                for k in ("segmenter", "transcriber", "reasoner")}

    # -- parsing ---------------------------------------------------------------------------

    def parse(self, image: ImageInput | ParsedChart, *, source: str | None = None,
              cache: bool = True) -> ParsedChart:
        """Segment, label and transcribe one chart (cached by image content).

        Args:
            image: a path, PIL image or ``(H, W, 3)`` array (or an already `ParsedChart`, which
                is returned as is).
            source: the image's file path when ``image`` is an array (lets a transcriber that
                reads files beside the image find them).
            cache: look the chart up in, and keep it in, the parse cache. A caller that asks
                all its questions about a chart at once (a batch) passes ``False`` so memory
                does not grow with the number of charts.

        Returns:
            The `ParsedChart`.

        Raises:
            flowpath.errors.ImageLoadError: the image cannot be read; the message names it.

        >>> parsed = FlowPath.default().parse("examples/charts/loan.png")  # doctest: +SKIP
        >>> parsed.letters, parsed.graph.successors("A")                    # doctest: +SKIP
        (['A', 'B', 'C', 'D', 'E'], ['B'])
        """
        if isinstance(image, ParsedChart):
            return image
        parsed, _ = self._parse(image, source, cache=cache)
        return parsed

    def _parse(self, image: ImageInput, source: str | None, *,
               cache: bool = True) -> tuple[ParsedChart, bool]:
        t0 = time.perf_counter()
        source = source or _source_of(image)
        arr = load_image(image, max_pixels=self.max_pixels)
        key = image_hash(arr)
        if not cache:
            return self._parse_uncached(arr, key, source, t0), False
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit, True
        parsed = self._parse_uncached(arr, key, source, t0)
        if self.cache_size:
            with self._lock:
                self._cache[key] = parsed
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        return parsed, False

    def _parse_uncached(self, arr: np.ndarray, key: str, source: str | None,
                        t0: float) -> ParsedChart:
        from flowpath.labeller import draw_labels

        timings: dict[str, float] = {"load": time.perf_counter() - t0}
        t = time.perf_counter()
        found = self.segmenter([arr])
        if len(found) != 1:
            raise ModelError(f"segmenter {self.describe()['segmenter']} returned "
                               f"{len(found)} results for 1 image")
        timings["segment"] = time.perf_counter() - t
        t = time.perf_counter()
        labelled, regions = draw_labels(arr, list(found[0]))
        timings["label"] = time.perf_counter() - t
        t = time.perf_counter()
        chart = LabelledChart(image=arr, labelled_image=labelled, regions=regions, source=source)
        out = self.transcriber([chart])
        if len(out) != 1:
            raise ModelError(f"transcriber {self.describe()['transcriber']} returned "
                               f"{len(out)} results for 1 chart")
        tr = out[0]
        timings["transcribe"] = time.perf_counter() - t
        problems = list(tr.problems)
        no_region = [n for n in tr.chart.nodes if n not in regions]
        if no_region:
            problems.append(f"graph nodes without a region: {', '.join(no_region)}")
        not_in_graph = [k for k in regions if k not in tr.chart.nodes]
        if not_in_graph:
            problems.append(f"labelled regions missing from the graph: {', '.join(not_in_graph)}")
        timings["total"] = time.perf_counter() - t0
        timings = {k: round(v, 5) for k, v in timings.items()}
        h, w = arr.shape[:2]
        return ParsedChart(image_hash=key, width=w, height=h, regions=regions, graph=tr.chart,
                           mermaid=tr.mermaid, problems=problems, timings=timings, source=source,
                           meta={**self.describe(), "transcription": dict(tr.meta)},
                           image=arr, labelled_image=labelled)

    def cache_parsed(self, parsed: ParsedChart) -> None:
        """Put a parse done elsewhere (e.g. loaded from a previous run's JSON) into the cache."""
        if self.cache_size:
            with self._lock:
                self._cache[parsed.image_hash] = parsed
                self._cache.move_to_end(parsed.image_hash)
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)

    def clear_cache(self) -> None:
        with self._lock:
            self._cache.clear()

    # -- attribution -----------------------------------------------------------------------

    def attribute(self, image: ImageInput | ParsedChart, question: str, answer: str, *,
                  source: str | None = None) -> Attribution:
        """Find the nodes (and their regions) that ground ``question`` + ``answer``.

        Parses the image first unless that parse is cached. A reasoner failure is returned as
        ``Attribution(error=...)``, not raised, so a batch can go on.

        Args:
            image: a path, PIL image, array, or a `ParsedChart` from `parse`.
            question: the question about the chart.
            answer: its answer.
            source: file path of ``image`` when it is an array.

        Returns:
            The `Attribution`.

        Raises:
            ValueError: empty question (or non-string question/answer).
            flowpath.errors.ImageLoadError: the image cannot be read.

        >>> fp = FlowPath.default()                                          # doctest: +SKIP
        >>> att = fp.attribute("chart.png", "What follows the check?", "Retry")  # doctest: +SKIP
        >>> att.node_ids, att.reason                                         # doctest: +SKIP
        (['D', 'F'], 'D is the check; its "No" branch leads to F (Retry).')
        """
        if not isinstance(question, str) or not question.strip():
            raise ValueError(f"question must be a non-empty string, got {question!r}")
        if not isinstance(answer, str):
            raise ValueError(f"answer must be a string, got {type(answer).__name__}")
        t0 = time.perf_counter()
        if isinstance(image, ParsedChart):
            parsed, cached = image, True
        else:
            parsed, cached = self._parse(image, source)
        t_parse = 0.0 if cached else time.perf_counter() - t0
        return self.attribute_parsed(parsed, question, answer, parse_seconds=t_parse)

    def attribute_parsed(self, parsed: ParsedChart, question: str, answer: str, *,
                         parse_seconds: float = 0.0) -> Attribution:
        """Run only the reasoner on an existing parse (also used by oracle evaluation with a
        `ParsedChart` built from gold Mermaid and gold regions)."""
        return reason_on(self.reasoner, parsed, question, answer, parse_seconds=parse_seconds)


def reason_on(reasoner: Reasoner, parsed: ParsedChart, question: str, answer: str, *,
              parse_seconds: float = 0.0) -> Attribution:
    """Ask ``reasoner`` about a parsed chart and map its node ids to regions.

    A reasoner's `flowpath.errors.FlowPathError` (a model or server failure, a bad input) is
    caught here, once, and becomes the attribution's ``error``; any other exception is a bug and
    propagates (the batch runner records it against the question and goes on).
    """
    t = time.perf_counter()
    request = ReasoningRequest(chart=parsed.graph, question=question, answer=answer,
                               labelled_image=parsed.labelled_image)
    try:
        reasoning = reasoner(request)
    except FlowPathError as exc:
        logger.warning("reasoner failed on %r: %s", question, exc)
        reasoning = Reasoning(node_ids=[], error=str(exc))
    t_reason = time.perf_counter() - t
    return build_attribution(parsed, question, answer, reasoning,
                             timings={"parse": round(parse_seconds, 5), "reason": round(t_reason, 5),
                                      "total": round(parse_seconds + t_reason, 5)})


def walk_edges(graph: FlowChart, node_ids: list[str]) -> list[tuple[str, str]]:
    """The edges to draw between the attributed nodes: the chart's edges among them, less any
    edge the chosen nodes also join by a longer route through themselves (when they form no
    loop). A story's path credit check -> income step -> income check -> reject does not also
    show the credit check's direct "No" edge to reject: that shortcut is not the walk told."""
    import networkx as nx

    chosen = set(node_ids)
    edges = list(dict.fromkeys((e.source, e.target) for e in graph.edges
                               if e.source in chosen and e.target in chosen and e.source != e.target))
    induced = nx.DiGraph(edges)
    if not nx.is_directed_acyclic_graph(induced):
        return edges  # a loop: no single walk to reduce to
    walk = nx.transitive_reduction(induced)
    return [e for e in edges if walk.has_edge(*e)]


def build_attribution(parsed: ParsedChart, question: str, answer: str, reasoning: Reasoning,
                      timings: dict[str, float] | None = None) -> Attribution:
    """Map a reasoner's node ids onto the parsed chart's regions and path."""
    ids = list(dict.fromkeys(str(n) for n in reasoning.node_ids))
    problems: list[str] = []
    unknown = [n for n in ids if n not in parsed.graph.nodes]
    if unknown:
        problems.append(f"node ids not in the graph: {', '.join(unknown)}")
    no_region = [n for n in ids if n not in parsed.regions]
    if no_region:
        problems.append(f"node ids without a region: {', '.join(no_region)}")
    letters = [n for n in ids if n in parsed.regions]
    return Attribution(question=question, answer=answer, node_ids=ids, letters=letters,
                       regions=[parsed.regions[n] for n in letters], path_edges=walk_edges(parsed.graph, ids),
                       reason=reasoning.reason, trace=list(reasoning.trace),
                       timings=dict(timings or {}), error=reasoning.error, problems=problems,
                       image_hash=parsed.image_hash, source=parsed.source, width=parsed.width,
                       height=parsed.height, image=parsed.image)


def _make(factory: Any, name: str, device: str, **kwargs: Any) -> Any:
    """Call a stage factory (``make_segmenter``/``make_transcriber``/``make_reasoner``) with the
    device; ``auto`` leaves each component its own default. The factory's registry passes the
    device only to components whose constructor declares it."""
    return factory(name, **kwargs) if device == "auto" else factory(name, device=device, **kwargs)
