"""The argument checks of the public functions, at the boundary.

A public function given an argument of the wrong type raises :class:`ArgumentTypeError` naming
the function, the argument and what it takes, before any work: never an ``AttributeError`` or
a ``TypeError`` from deep inside (issue 22's audit: 142 of 502 misuses raised those).

>>> check("vqa_accuracy", "prediction", None, "str")
Traceback (most recent call last):
    ...
vqametrics.core.exceptions.ArgumentTypeError: vqa_accuracy: prediction must be a string, got None
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence

from .exceptions import ArgumentTypeError, InputError

__all__ = ["KINDS", "ArgumentTypeError", "check", "check_choice"]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_real(value: object) -> bool:
    """A finite int or float (a bool is not a number here)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value)


def _is_sequence(value: object) -> bool:
    """A list-like of items: a string or bytes is not one, nor a set or a mapping (unordered)."""
    return isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray)


def _is_strs(value: object) -> bool:
    return _is_sequence(value) and all(isinstance(v, str) for v in value)  # type: ignore[attr-defined]


def _is_reals(value: object) -> bool:
    """A sequence of numbers (a NumPy array counts: it is read with ``len`` and indexing)."""
    if not (_is_sequence(value) or type(value).__name__ == "ndarray"):
        return False
    try:
        return all(_is_real(v) or _is_real(float(v)) for v in value)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        return False


#: kind -> (test, what the message says the argument must be)
KINDS: dict[str, tuple[Callable[[object], bool], str]] = {
    "str": (lambda v: isinstance(v, str), "a string"),
    "bool": (lambda v: isinstance(v, bool), "True or False"),
    "int": (_is_int, "an integer"),
    "real": (_is_real, "a finite number"),
    "path": (lambda v: isinstance(v, str | os.PathLike), "a path (str or os.PathLike)"),
    "strs": (_is_strs, "a list of strings"),
    "reals": (_is_reals, "a sequence of numbers"),
    "sequence": (_is_sequence, "a list"),
    "mapping": (lambda v: isinstance(v, Mapping), "a mapping"),
    "callable": (callable, "a callable"),
}


def _shown(value: object) -> str:
    text = repr(value)
    text = text if len(text) <= 40 else text[:37] + "..."
    return text if value is None or isinstance(value, bool) else f"{type(value).__name__} {text}"


def check(
    where: str,
    name: str,
    value: object,
    kind: str | None,
    *,
    optional: bool = False,
    also: tuple[type, ...] = (),
    minimum: float | None = None,
) -> None:
    """Raise :class:`ArgumentTypeError` unless *value* is of *kind* (see :data:`KINDS`; ``None``:
    only *also*), ``None`` when *optional*, or an instance of one of *also*; with *minimum*, a
    number below it is an :class:`InputError` (a value error, not a type error)."""
    if value is None and optional:
        return
    if also and isinstance(value, also):
        return
    test, what = KINDS[kind] if kind is not None else (lambda v: False, "")
    if not test(value):
        alternatives = [what] if what else []
        alternatives += [f"a {t.__name__}" for t in also]
        if optional:
            alternatives.append("None")
        wanted = " or ".join(alternatives)
        raise ArgumentTypeError(f"{where}: {name} must be {wanted}, got {_shown(value)}")
    if minimum is not None and value < minimum:  # type: ignore[operator]
        raise InputError(f"{where}: {name} must be at least {minimum:g}, got {value!r}")


def check_choice(where: str, name: str, value: object, choices: Sequence[str]) -> None:
    """Raise unless *value* is one of the strings *choices* (a ``Literal`` argument)."""
    check(where, name, value, "str")
    if value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise InputError(f"{where}: {name} must be one of {listed}, got {value!r}")
