"""Errors raised at flowpath's public boundaries."""

from __future__ import annotations


class FlowPathError(Exception):
    """Base class of flowpath's own errors."""


class ImageLoadError(FlowPathError, ValueError):
    """An input image could not be used; the message names the input and what is wrong."""


class MissingDependencyError(FlowPathError, ModuleNotFoundError):
    """An optional dependency is missing; the message names the pip extra that provides it."""


def require(module: str, extra: str, feature: str) -> None:
    """Import-check ``module`` or raise `MissingDependencyError` naming the extra to install."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise MissingDependencyError(
            f"{feature} needs the '{module}' package: pip install 'flowpath[{extra}]'"
        )
