"""Keyword rules: a reply read as the code of the first keyword it contains (pure, no I/O)."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["first_keyword"]


def first_keyword(text: str, keywords: Sequence[tuple[str, str]], default: str) -> str:
    """The code of the first of *keywords* (``(keyword, code)`` pairs) that occurs in *text*,
    else *default*. The order is part of the rule wherever one keyword contains another
    (``incorrect`` / ``correct``) or both may occur (``yes`` / ``no``).

    >>> first_keyword("not incorrect", (("incorrect", "0"), ("correct", "1")), "2")
    '0'
    """
    for keyword, code in keywords:
        if keyword in text:
            return code
    return default
