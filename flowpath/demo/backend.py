"""What the demo page does, without the page: pick components, parse once, answer questions.

`DemoBackend` is the demo's only state: the components it has built (one per name), one
`flowpath.pipeline.FlowPath` per (segmenter, transcriber, reasoner) choice, whose parse cache
(keyed by image content, `flowpath.pipeline.image_hash`) answers further questions about a chart
without parsing it again. It imports no Gradio, so it is tested and benchmarked on its own.

>>> backend = DemoBackend()                                                # doctest: +SKIP
>>> result = backend.answer("examples/charts/tea.png", "How long should the leaves steep?",
...                         "2 minutes.")                                  # doctest: +SKIP
>>> result.attribution.letters, result.cached                              # doctest: +SKIP
(['F'], False)
"""

from __future__ import annotations

import inspect
import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from flowpath.errors import FlowPathError, InputError, MissingDependencyError
from flowpath.io import MAX_PIXELS, load_image
from flowpath.pipeline import Attribution, FlowPath, ParsedChart

logger = logging.getLogger("flowpath.demo")

__all__ = ["STAGES", "DemoAnswer", "DemoBackend", "available_components", "describe_error",
           "llm_configured"]

#: the pipeline's pluggable stages, in pipeline order
STAGES = ("segmenter", "transcriber", "reasoner")

#: components that cannot work on an uploaded image, and why (an upload is a lone temporary
#: file, so nothing can sit beside it)
_NOT_FOR_UPLOADS = {("transcriber", "source"): "reads the chart's Mermaid source beside the image"}


def _registry(stage: str) -> Any:
    if stage == "segmenter":
        from flowpath.segment import SEGMENTERS
        return SEGMENTERS
    if stage == "transcriber":
        from flowpath.transcribe import TRANSCRIBERS
        return TRANSCRIBERS
    if stage == "reasoner":
        from flowpath.reason import REASONERS
        return REASONERS
    raise ValueError(f"unknown pipeline stage {stage!r}; expected one of {STAGES}")


def _default(stage: str) -> Any:
    """The library's own default component of a stage (the one ``FlowPath.default`` uses)."""
    if stage == "segmenter":
        from flowpath.segment import default_segmenter
        return default_segmenter()
    if stage == "transcriber":
        from flowpath.transcribe import default_transcriber
        return default_transcriber()
    from flowpath.reason import default_reasoner
    return default_reasoner()


def llm_configured() -> bool:
    """Whether an LLM is configured through the ``FLOWPATH_LLM_*`` settings that
    `flowpath.reason.backends.make_model` reads (a model name is the one it cannot do without)."""
    return bool(os.environ.get("FLOWPATH_LLM_MODEL", "").strip())


def _needs_arguments(cls: type) -> bool:
    """Whether the constructor has a required parameter (e.g. a checkpoint directory): such a
    component is not configured until someone says what to pass."""
    return any(p.default is inspect.Parameter.empty
               and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
               for name, p in inspect.signature(cls).parameters.items() if name != "self")


def available_components() -> dict[str, list[str]]:
    """Per stage, the registered component names that can run here on an uploaded image.

    A name is offered when its optional packages are installed (the registry's check), its
    constructor needs no arguments, and, for reasoners that take an LLM (``model=``), when
    `llm_configured`. Nothing heavy is imported: registered modules import torch or smolagents
    only when a component is built.
    """
    out: dict[str, list[str]] = {}
    for stage in STAGES:
        reg = _registry(stage)
        names = []
        for name in reg.names():
            if (stage, name) in _NOT_FOR_UPLOADS:
                continue
            try:
                cls = reg.load(name)
            except MissingDependencyError:
                continue
            if _needs_arguments(cls):
                continue
            if stage == "reasoner" and reg.accepts(name, "model") and not llm_configured():
                continue
            names.append(name)
        out[stage] = names
    return out


@dataclass
class DemoAnswer:
    """One answered question: the parse, the attribution and whether the parse was cached.

    Attributes:
        parsed: the chart's `ParsedChart` (graph, Mermaid, regions, labelled image).
        attribution: the reasoner's `Attribution` (its ``error`` is set if the reasoner failed).
        cached: True when the parse came from the cache (the chart had been parsed before).
        components: the component names used, per stage.
    """

    parsed: ParsedChart
    attribution: Attribution
    cached: bool
    components: dict[str, str]


class DemoBackend:
    """Builds components on demand and answers questions about chart images.

    Args:
        max_pixels: refuse images larger than this (default `flowpath.io.MAX_PIXELS`, the cap
            the batch runner uses).
        device: torch device for learned components (``auto``: each component's default).
        cache_size: parsed charts kept per pipeline.

    Raises (from `answer`): `flowpath.errors.InputError` for an unusable image or an empty
    question, `ValueError` for a component that is not offered,
    `flowpath.errors.MissingDependencyError` / `flowpath.errors.ModelError` when a component
    cannot be built; the messages are meant for the page as they are.
    """

    def __init__(self, *, max_pixels: int | None = None, device: str = "auto",
                 cache_size: int = 32) -> None:
        if max_pixels is not None and max_pixels <= 0:
            raise ValueError(f"max_pixels must be positive, got {max_pixels}")
        self.max_pixels = MAX_PIXELS if max_pixels is None else int(max_pixels)
        self.device = device
        self.cache_size = cache_size
        self.choices = available_components()
        self._components: dict[tuple[str, str], Any] = {}
        self._pipelines: dict[tuple[str, str, str], FlowPath] = {}
        self._lock = threading.Lock()
        self.defaults = {stage: self._default_name(stage) for stage in STAGES}

    def _default_name(self, stage: str) -> str:
        """The library default of the stage, built now (it is the first one used), so the first
        question does not pay for it."""
        component = _default(stage)
        name = _registry(stage).resolve(getattr(component, "name", type(component).__name__))
        self._components[(stage, name)] = component
        if name not in self.choices[stage]:  # e.g. FLOWPATH_REASONER names one not listed
            self.choices[stage].insert(0, name)
        return name

    def warm_up(self) -> float:
        """Parse a small drawn chart with the default components, uncached, and ask one question
        about it, so the first real question does not pay for their lazy start (the OCR engine
        and its word list load on first use, about 1 s of CPU; the offline reasoner's sentence
        encoder, when the semantic extra is installed, several seconds). Returns the seconds it
        took.
        """
        t = time.perf_counter()
        pipeline = self.pipeline()
        parsed = pipeline.parse(_warm_up_chart(), cache=False)
        pipeline.attribute_parsed(parsed, "What is checked after the job starts?", "The result.")
        return time.perf_counter() - t

    def component(self, stage: str, name: str) -> Any:
        """The component ``name`` of ``stage``, built on first use and kept."""
        reg = _registry(stage)
        key = (stage, reg.resolve(name))
        if key[1] not in self.choices[stage]:
            raise ValueError(f"{stage} {name!r} is not available here; choose one of "
                             f"{self.choices[stage]}")
        with self._lock:
            if key not in self._components:
                logger.info("building %s %s", stage, key[1])
                device = None if self.device == "auto" else self.device
                self._components[key] = reg.make(key[1], device=device)
            return self._components[key]

    def pipeline(self, segmenter: str | None = None, transcriber: str | None = None,
                 reasoner: str | None = None) -> FlowPath:
        """The `FlowPath` for these component names (``None``: the default of the stage)."""
        asked = {"segmenter": segmenter, "transcriber": transcriber, "reasoner": reasoner}
        names = {s: _registry(s).resolve(asked[s] or self.defaults[s]) for s in STAGES}
        parts = {s: self.component(s, names[s]) for s in STAGES}
        key = (names["segmenter"], names["transcriber"], names["reasoner"])
        with self._lock:
            fp = self._pipelines.get(key)
            if fp is None:
                fp = FlowPath(**parts, cache_size=self.cache_size, max_pixels=self.max_pixels)
                self._pipelines[key] = fp
            return fp

    def load(self, image: str | os.PathLike | None, name: str | None = None) -> Any:
        """Decode an uploaded image under the pixel cap, naming it ``name`` in messages.

        Raises:
            InputError: no image, or one that cannot be used (`flowpath.errors.ImageLoadError`).
        """
        if image is None or (isinstance(image, str) and not image.strip()):
            raise InputError("no image: upload a flowchart image or pick an example")
        return load_image(image, name=name or Path(image).name, max_pixels=self.max_pixels)

    def answer(self, image: str | os.PathLike | None, question: str | None, answer: str | None, *,
               segmenter: str | None = None, transcriber: str | None = None,
               reasoner: str | None = None, name: str | None = None) -> DemoAnswer:
        """Parse ``image`` (or take its cached parse) and attribute the statement.

        Args:
            image: the uploaded file's path.
            question: the question about the chart.
            answer: its answer (may be empty).
            segmenter, transcriber, reasoner: component names (``None``: defaults).
            name: how to call the image in messages (default: its file name).

        Returns:
            The `DemoAnswer`.
        """
        if not (question or "").strip():
            raise InputError("the question is empty: type a question about the chart")
        arr = self.load(image, name)
        fp = self.pipeline(segmenter, transcriber, reasoner)
        att = fp.attribute(arr, question.strip(), (answer or "").strip())  # type: ignore[union-attr]
        parsed = fp.parse(arr)  # a cache hit: the parse `attribute` just made or reused
        self._share_parse(fp, parsed)
        return DemoAnswer(parsed=parsed, attribution=att, cached=att.timings.get("parse", 0.0) == 0.0,
                          components=fp.describe())

    def _share_parse(self, fp: FlowPath, parsed: ParsedChart) -> None:
        """Give the parse to the pipelines that differ only in the reasoner: a new reasoner
        need not parse the chart again."""
        with self._lock:
            siblings = [p for k, p in self._pipelines.items()
                        if p is not fp and p.segmenter is fp.segmenter
                        and p.transcriber is fp.transcriber]
        for p in siblings:
            p.cache_parsed(parsed)


def _warm_up_chart() -> np.ndarray:
    """Two labelled boxes joined by an arrow: enough for every default stage to run."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (320, 260), "white")
    d = ImageDraw.Draw(img)
    for y, text in ((20, "Start the job"), (160, "Check the result")):
        d.rectangle([60, y, 260, y + 70], outline="black", width=2, fill=(236, 236, 255))
        d.text((80, y + 28), text, fill="black")
    d.line([(160, 90), (160, 160)], fill="black", width=2)
    d.polygon([(152, 148), (168, 148), (160, 160)], fill="black")
    return np.asarray(img)


def describe_error(exc: BaseException) -> str:
    """The message the page shows for a failed question: ours as they are (they name the input
    and what is wrong), anything else as its type and message (the traceback goes to the log)."""
    if isinstance(exc, (FlowPathError, ValueError, FileNotFoundError)):
        return str(exc)
    return f"unexpected {type(exc).__name__}: {exc} (the server log has the details)"
