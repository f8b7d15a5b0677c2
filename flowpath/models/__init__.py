"""Model interfaces and implementations. Implementations import their heavy dependencies lazily."""

from flowpath.models.base import (
    LabelledChart,
    Reasoner,
    Reasoning,
    ReasoningRequest,
    Segmenter,
    Transcriber,
    Transcription,
)

__all__ = ["LabelledChart", "Reasoner", "Reasoning", "ReasoningRequest", "Segmenter",
           "Transcriber", "Transcription"]
