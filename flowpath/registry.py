"""One lazy registry for the pipeline's pluggable components (segmenters, transcribers,
reasoners).

A `Registry` maps names to ``"module:Class"`` strings, so listing or naming a component imports
nothing heavy; the class is imported when it is built. It checks a component's optional
dependencies first (raising `flowpath.errors.MissingDependencyError` that names the extra), and
passes ``device=`` only to components whose constructor declares it (read with
`inspect.signature`), so the pipeline never guesses from an exception what a component accepts.

>>> reg = Registry("segmenter", {"classical": "flowpath.segment.classical:ClassicalSegmenter"})
>>> reg.names()
['classical']
>>> reg.accepts("classical", "device")
False
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

T = TypeVar("T")

__all__ = ["Registry"]


class Registry(Generic[T]):
    """Names -> lazily imported component classes.

    Args:
        kind: what the components are, for messages (``"segmenter"``).
        entries: canonical name -> ``"module:Class"``.
        aliases: other accepted names -> canonical name.
        requires: canonical name -> ``[(module, extra), ...]`` optional packages checked before
            the class is imported.
    """

    def __init__(self, kind: str, entries: Mapping[str, str], *,
                 aliases: Mapping[str, str] | None = None,
                 requires: Mapping[str, list[tuple[str, str]]] | None = None) -> None:
        for name, target in entries.items():
            if target.count(":") != 1:
                raise ValueError(f"{kind} {name!r}: target must be 'module:Class', got {target!r}")
        self.kind = kind
        self.entries = dict(entries)
        self.aliases = {self._key(k): v for k, v in (aliases or {}).items()}
        self.requires = dict(requires or {})

    @staticmethod
    def _key(name: str) -> str:
        return name.strip().lower().replace("-", "").replace("_", "")

    def names(self) -> list[str]:
        """The canonical names, sorted."""
        return sorted(self.entries)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._resolve(name) is not None

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.names())

    def _resolve(self, name: str) -> str | None:
        key = self._key(name)
        key = self.aliases.get(key, key)
        return key if key in self.entries else None

    def resolve(self, name: str) -> str:
        """The canonical name for ``name`` (case, ``-``/``_`` and aliases ignored).

        Raises:
            ValueError: unknown name; the message lists the known ones.
        """
        key = self._resolve(name)
        if key is None:
            raise ValueError(f"unknown {self.kind} {name!r}; choose one of {self.names()}")
        return key

    def load(self, name: str) -> type[T]:
        """Import and return the class registered as ``name``.

        Raises:
            ValueError: unknown name.
            flowpath.errors.MissingDependencyError: an optional package it needs is missing.
        """
        from flowpath.errors import require

        key = self.resolve(name)
        for module, extra in self.requires.get(key, []):
            require(module, extra, f"the {key!r} {self.kind}")
        module, cls = self.entries[key].split(":")
        return getattr(importlib.import_module(module), cls)  # type: ignore[no-any-return]

    def accepts(self, name: str, parameter: str) -> bool:
        """Whether the constructor of ``name`` declares ``parameter`` (or takes ``**kwargs``)."""
        params = inspect.signature(self.load(name)).parameters.values()
        return any(p.name == parameter or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)

    def make(self, name: str, *, device: str | None = None, **kwargs: Any) -> T:
        """Build the component ``name`` with ``kwargs``.

        Args:
            name: a registered name or alias.
            device: torch device for learned models; passed only to components that declare a
                ``device`` parameter (a rule-based component has nothing to place on a device).
            **kwargs: passed to the constructor.

        Raises:
            ValueError: a keyword the constructor does not take (``--transcriber-arg``
                ``learnd=false``); the message lists the ones it takes.
        """
        cls = self.load(name)
        if device is not None and self.accepts(name, "device"):
            kwargs["device"] = device
        unknown = [k for k in kwargs if not self.accepts(name, k)]
        if unknown:
            takes = [p for p in inspect.signature(cls).parameters if p != "self"]
            raise ValueError(f"the {self.resolve(name)!r} {self.kind} has no setting {', '.join(map(repr, unknown))}; "
                             f"it takes: {', '.join(takes)}")
        return cls(**kwargs)

    def lazy_attribute(self, module: str) -> Callable[[str], Any]:
        """A PEP 562 module ``__getattr__`` that imports registered classes by class name, so
        ``from flowpath.segment import Mask2FormerSegmenter`` works without eager torch imports."""
        by_class = {target.split(":")[1]: key for key, target in self.entries.items()}

        def __getattr__(attr: str) -> Any:
            if attr in by_class:
                return self.load(by_class[attr])
            raise AttributeError(f"module {module!r} has no attribute {attr!r}")

        return __getattr__
