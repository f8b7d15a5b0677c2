"""The three small interfaces every pipeline stage sits behind.

* `Segmenter`: images -> node regions per image.
* `Transcriber`: labelled charts -> Mermaid + `FlowChart` whose node ids are the letter labels.
* `Reasoner`: (labelled image, graph, question, answer) -> attributed node ids.

Implementations keep heavy imports (torch, transformers, smolagents, OCR engines) inside their
``__init__`` so that importing this module, or the core, never loads them.

Failures use `flowpath.errors`: a constructor raises `MissingDependencyError` (naming the extra)
or `ValueError` for a bad setting; a call raises `InputError` for an input it cannot use and
`ModelError` when the model or server fails. `flowpath.pipeline` and `flowpath.batch` catch
those once and record them against the image or question. A constructor that places a model on
a device declares a ``device`` parameter; `flowpath.registry.Registry` passes ``device=`` only
then.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from flowpath.geometry import Region
from flowpath.graph import FlowChart


class Segmenter(abc.ABC):
    """Finds flowchart nodes as pixel regions."""

    name: str = "segmenter"

    @abc.abstractmethod
    def __call__(self, images: list[np.ndarray]) -> list[list[Region]]:
        """Args:
            images: RGB ``uint8`` arrays of shape ``(H, W, 3)``, any size.

        Returns:
            For each image, its node regions in original-image pixels (any order).
        """


@dataclass
class LabelledChart:
    """One chart ready for transcription: the original image, the letter-labelled image and the
    letter -> region map the labeller produced.

    Attributes:
        image: original RGB image ``(H, W, 3)``.
        labelled_image: the same image with red letter labels drawn beside the regions.
        regions: letter -> `Region`, in letter order.
        source: optional path of the image file (a source transcriber looks beside it).
    """

    image: np.ndarray
    labelled_image: np.ndarray
    regions: dict[str, Region]
    source: str | None = None


@dataclass
class Transcription:
    """A transcriber's result: Mermaid text and the parsed graph (node ids = letters).

    ``problems`` lists what went wrong but was survived (unparseable lines dropped, unreadable
    text, edges that lead nowhere, retries), in plain words.
    """

    mermaid: str
    chart: FlowChart
    problems: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"mermaid": self.mermaid, "chart": self.chart.to_dict(),
                "problems": list(self.problems), "meta": dict(self.meta)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Transcription:
        return cls(mermaid=d["mermaid"], chart=FlowChart.from_dict(d["chart"]),
                   problems=list(d.get("problems", [])), meta=dict(d.get("meta", {})))


class Transcriber(abc.ABC):
    """Turns labelled charts into Mermaid whose node ids are the letter labels."""

    name: str = "transcriber"

    @abc.abstractmethod
    def __call__(self, charts: list[LabelledChart]) -> list[Transcription]:
        """One `Transcription` per chart; a survivable oddity goes in ``problems``, a failure of
        the model raises `flowpath.errors.ModelError` (the batch records it per image)."""


@dataclass
class ReasoningRequest:
    """What a reasoner gets for one question."""

    chart: FlowChart
    question: str
    answer: str
    labelled_image: np.ndarray | None = None


@dataclass
class Reasoning:
    """A reasoner's answer: the node ids that ground the statement, why, and how it got there.

    ``error`` is set (and ``node_ids`` usually empty) when the reasoner failed for this question,
    e.g. an LLM server timed out; a batch records it and goes on (raising
    `flowpath.errors.ModelError` does the same).
    """

    node_ids: list[str]
    reason: str = ""
    trace: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"node_ids": list(self.node_ids), "reason": self.reason,
                "trace": list(self.trace), "error": self.error}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Reasoning:
        return cls(node_ids=list(d.get("node_ids", [])), reason=d.get("reason", ""),
                   trace=list(d.get("trace", [])), error=d.get("error"))


class Reasoner(abc.ABC):
    """Names the nodes that ground a (question, answer) statement about a chart."""

    name: str = "reasoner"

    @abc.abstractmethod
    def __call__(self, request: ReasoningRequest) -> Reasoning:
        """Answer one question. A per-question failure is ``Reasoning(error=...)`` or a raised
        `flowpath.errors.FlowPathError` (e.g. `ModelError` for a server timeout); the pipeline
        records either as the attribution's ``error``. Other exceptions are bugs."""
