"""Objects a command leaves for the process's exit to free (see ``console_main``).

Freeing a large evaluation object by object costs real time (70 ms after a 214k-question
``vqa --out`` run) that a process leaving with ``os._exit`` never has to spend; so under
``console_main`` a command hands its results here instead of letting them go. Under
:func:`vqametrics.cli.main` called in a process of one's own (a notebook, a test) nothing is
held and everything is freed as usual.
"""

from __future__ import annotations

__all__ = ["hold_until_exit", "holding", "release"]

_held: list[object] = []
_holding = [False]


def holding(on: bool) -> None:
    """Start (``console_main``, before the command runs) or stop holding."""
    _holding[0] = on


def hold_until_exit(obj: object) -> None:
    """Keep *obj* alive until the process leaves, where it will leave at once. Only the last
    object handed is kept (a command scoring several files frees each one's results when it
    hands the next: the memory held stays that of one)."""
    if _holding[0]:
        _held[:] = [obj]


def release() -> None:
    """Let the held objects go (before an ordinary exit, which frees everything anyway)."""
    _holding[0] = False
    _held.clear()
