"""Errors raised at flowpath's public boundaries: the one failure vocabulary.

Components raise these; the pipeline (`flowpath.pipeline`) and the batch runner
(`flowpath.batch`) catch them once and record the message with the failed item, so a batch goes
on past a bad input. Every message names the input and what is wrong.

* `InputError`: the caller's input is unusable (bad image, bad question, path outside the
  images folder). Also a `ValueError`, so ``except ValueError`` keeps working.
* `MissingDependencyError`: an optional package is missing; the message names the pip extra.
* `ModelError`: a model or server failed on a valid input (timeout, bad output, wrong number of
  results). Also a `RuntimeError`.
"""

from __future__ import annotations

__all__ = ["FlowPathError", "ImageLoadError", "InputError", "MissingDependencyError",
           "ModelError", "require"]


class FlowPathError(Exception):
    """Base class of flowpath's own errors."""


class InputError(FlowPathError, ValueError):
    """An input (image, question, file, path) cannot be used; the message names it."""


class ImageLoadError(InputError):
    """An input image could not be used; the message names the input and what is wrong."""


class MissingDependencyError(FlowPathError, ModuleNotFoundError):
    """An optional dependency is missing; the message names the pip extra that provides it."""


class ModelError(FlowPathError, RuntimeError):
    """A model or server failed on a valid input; the message names the component."""


def require(module: str, extra: str, feature: str) -> None:
    """Import-check ``module`` or raise `MissingDependencyError` naming the extra to install.

    >>> require("numpy", "core", "this example")
    """
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise MissingDependencyError(
            f"{feature} needs the '{module}' package: pip install 'flowpath[{extra}]'"
        )
