"""The cyclic garbage collector paused while a reader builds many acyclic objects: its passes
over tens of thousands (VQA v2: millions) of fresh dicts and tuples cost a quarter or more of a
read, and none of them can be part of a cycle that needs collecting."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_paused"]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic collector for the block; re-enable it after (on an error too) only if
    it was enabled before."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
