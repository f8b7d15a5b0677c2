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

from flowpath.registry import Registry

if TYPE_CHECKING:  # imports for type checkers only; at run time the names load lazily
    from flowpath.models.base import Segmenter
    from flowpath.segment.classical import ClassicalSegmenter
    from flowpath.segment.mask2former import Mask2FormerSegmenter

__all__ = ["ClassicalSegmenter", "Mask2FormerSegmenter", "SEGMENTERS", "default_segmenter",
           "make_segmenter"]

SEGMENTERS: Registry[Segmenter] = Registry("segmenter", {
    "classical": "flowpath.segment.classical:ClassicalSegmenter",
    "mask2former": "flowpath.segment.mask2former:Mask2FormerSegmenter",
})

# lazy attribute access keeps `import flowpath.segment` free of torch (PEP 562)
__getattr__ = SEGMENTERS.lazy_attribute(__name__)


def make_segmenter(name: str, *, device: str | None = None, **kwargs: Any) -> Segmenter:
    """Build a segmenter by name.

    Args:
        name: ``classical`` or ``mask2former``.
        device: torch device, for segmenters that declare one (``mask2former``).
        **kwargs: passed to the class (e.g. ``model_dir=`` for ``mask2former``).

    Returns:
        The segmenter.

    Raises:
        ValueError: unknown name.
        flowpath.errors.MissingDependencyError: the segmenter's extra is not installed.
    """
    return SEGMENTERS.make(name, device=device, **kwargs)


def default_segmenter(**kwargs: Any) -> Segmenter:
    """The segmenter that measures best on our evaluation sets (see docs/segmentation.md).

    >>> default_segmenter().name
    'classical'
    """
    return make_segmenter("classical", **kwargs)
