"""Node segmentation: flowchart image -> node regions.

Two backends behind the `flowpath.models.base.Segmenter` interface:

* ``classical``: `ClassicalSegmenter`, OpenCV flat-region analysis, no model (numpy/OpenCV only).
* ``mask2former``: `Mask2FormerSegmenter`, a transformers Mask2Former checkpoint (needs
  ``flowpath[models]``; torch is imported only when it is built).

>>> seg = make_segmenter("classical")
>>> seg.name
'classical'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imports for type checkers only; at run time the names load lazily
    from flowpath.models.base import Segmenter
    from flowpath.segment.classical import ClassicalSegmenter
    from flowpath.segment.mask2former import Mask2FormerSegmenter

__all__ = ["ClassicalSegmenter", "Mask2FormerSegmenter", "SEGMENTERS", "default_segmenter",
           "make_segmenter"]

#: name -> "module:Class"
SEGMENTERS = {
    "classical": "flowpath.segment.classical:ClassicalSegmenter",
    "mask2former": "flowpath.segment.mask2former:Mask2FormerSegmenter",
}


def __getattr__(name: str) -> Any:
    # lazy attribute access keeps `import flowpath.segment` free of torch (PEP 562)
    if name == "ClassicalSegmenter":
        from flowpath.segment.classical import ClassicalSegmenter

        return ClassicalSegmenter
    if name == "Mask2FormerSegmenter":
        from flowpath.segment.mask2former import Mask2FormerSegmenter

        return Mask2FormerSegmenter
    raise AttributeError(f"module 'flowpath.segment' has no attribute {name!r}")


def make_segmenter(name: str, **kwargs: Any) -> Segmenter:
    """Build a segmenter by name.

    Args:
        name: ``classical`` or ``mask2former``.
        **kwargs: passed to the class (e.g. ``model_dir=``, ``device=`` for ``mask2former``).

    Returns:
        The segmenter.

    Raises:
        ValueError: unknown name.
    """
    import importlib

    key = name.strip().lower().replace("-", "").replace("_", "")
    if key not in SEGMENTERS:
        raise ValueError(f"unknown segmenter {name!r}; choose one of {sorted(SEGMENTERS)}")
    module, cls = SEGMENTERS[key].split(":")
    return getattr(importlib.import_module(module), cls)(**kwargs)


def default_segmenter(**kwargs: Any) -> Segmenter:
    """The segmenter that measures best on our evaluation sets (see docs/segmentation.md).

    >>> default_segmenter().name
    'classical'
    """
    return make_segmenter("classical", **kwargs)
