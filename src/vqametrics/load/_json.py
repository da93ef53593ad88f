"""Read JSON and JSONL files with precise, one-line errors."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from .._exceptions import InputError

__all__ = ["display_name", "read_bytes", "read_json_or_jsonl"]

PathLike = str | os.PathLike[str]


def display_name(path: PathLike) -> str:
    """How a path is named in messages."""
    return os.fspath(path)


def read_bytes(path: PathLike) -> bytes:
    """Read a whole file; a missing or empty file is an :class:`InputError`."""
    name = display_name(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{name}: is a directory, expected a file") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot read: {exc.strerror or exc}") from None
    if not data.strip():
        raise InputError(f"{name}: file is empty")
    return data


def read_json_or_jsonl(path: PathLike) -> tuple[Any, list[int] | None]:
    """Parse a JSON document, or JSON Lines (one value per line).

    Returns ``(value, lines)``: for JSONL, *value* is the list of per-line values and *lines*
    their 1-based line numbers; for a JSON document *lines* is ``None``.
    """
    name = display_name(path)
    data = read_bytes(path)
    jsonl = str(path).endswith((".jsonl", ".ndjson"))
    if not jsonl:
        try:
            return orjson.loads(data), None
        except orjson.JSONDecodeError as exc:
            if not _looks_like_jsonl(data, exc):
                raise InputError(
                    f"{name}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
                ) from None
    values, lines = [], []
    for lineno, line in _lines(data):
        try:
            values.append(orjson.loads(line))
        except orjson.JSONDecodeError as exc:
            raise InputError(
                f"{name}: line {lineno}: invalid JSON at column {exc.colno}: {exc.msg}"
            ) from None
        lines.append(lineno)
    return values, lines


def _looks_like_jsonl(data: bytes, exc: orjson.JSONDecodeError) -> bool:
    if exc.msg != "unexpected content after document":
        return False
    first = data.lstrip().split(b"\n", 1)[0]
    try:
        return isinstance(orjson.loads(first), dict)
    except orjson.JSONDecodeError:
        return False


def _lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    for lineno, line in enumerate(data.split(b"\n"), 1):
        if line.strip():
            yield lineno, line
