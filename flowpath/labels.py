"""Letter labels for nodes: A..Z, AA, AB, ... (spreadsheet-column style)."""

from __future__ import annotations

import re

_LETTERS_RE = re.compile(r"^[A-Z]+$")


def index_to_letters(index: int) -> str:
    """0 -> "A", 25 -> "Z", 26 -> "AA", 27 -> "AB", ..."""
    if index < 0:
        raise ValueError(f"label index must be >= 0, got {index}")
    out = ""
    n = index + 1
    while n:
        n, rem = divmod(n - 1, 26)
        out = chr(ord("A") + rem) + out
    return out


def letters_to_index(letters: str) -> int:
    """Inverse of `index_to_letters`."""
    if not _LETTERS_RE.match(letters or ""):
        raise ValueError(f"not a letter label: {letters!r}")
    n = 0
    for ch in letters:
        n = n * 26 + (ord(ch) - ord("A") + 1)
    return n - 1


def letter_labels(count: int) -> list[str]:
    return [index_to_letters(i) for i in range(count)]
