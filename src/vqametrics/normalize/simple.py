"""The textbook normalization of the ``simple`` profile: no quirks, idempotent.

Lowercase, keep the tokens made of ``[a-z0-9']``, map ``zero``..``ten`` to digits, drop
``a``/``an``/``the``, join with single spaces.
"""

from __future__ import annotations

import re

__all__ = ["simple"]

_TOKEN = re.compile(r"[a-z0-9']+")
_NUMBERS = {
    w: str(i)
    for i, w in enumerate(
        ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    )
}
_ARTICLES = frozenset({"a", "an", "the"})


def simple(text: str) -> str:
    """Normalize *text* the textbook way (idempotent)."""
    words = (_NUMBERS.get(w, w) for w in _TOKEN.findall(text.lower()))
    return " ".join(w for w in words if w not in _ARTICLES)
