"""Benchmarks of a fixed size: the note when a file holds another number of items.

MMStar's official score divides by 1500 whatever the row count, OCRBench's Final Score is a
count out of 1000 and MathVista testmini has 1000 problems: a file with one item dropped still
gets a number, so the aggregate says so. A note never changes a number.
"""

from __future__ import annotations

__all__ = ["size_note"]


def size_note(n: int, size: int, what: str, why: str) -> tuple[str, ...]:
    """``("<n> <what>, but <why>",)`` when *n* is not the benchmark's *size*, else ``()``."""
    if n == size:
        return ()
    return (f"{n} {what}, but {why}",)
