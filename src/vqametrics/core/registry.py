"""The one rule of every name registry (profiles, choice lineages, …): a name is registered
once, so that a second module cannot silently replace what a first one registered."""

from __future__ import annotations

from typing import TypeVar

__all__ = ["register_once"]

T = TypeVar("T")


def register_once(registry: dict[str, T], name: str, item: T, what: str) -> T:
    """Add *item* to *registry* under *name* and return it; a ValueError (naming *what* is
    registered) if the name is taken."""
    if name in registry:
        raise ValueError(f"{what} {name!r} is already registered")
    registry[name] = item
    return item
