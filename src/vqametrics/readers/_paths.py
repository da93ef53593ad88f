"""Path names as :mod:`pathlib` spells them, without importing it where the names are plain
POSIX ones: ``pathlib`` brings ``urllib.parse`` and ``ipaddress``, 5 ms of a small score's
start (issue 23). The text is the same as ``str(Path(...))`` (``tests/readers/test_paths.py``
checks both ways); elsewhere than POSIX, ``pathlib`` itself answers."""

from __future__ import annotations

import os

__all__ = ["glob_names", "path_join", "path_name", "path_suffix", "path_text", "path_with_name"]

_POSIX = os.name == "posix"


def _parts(text: str) -> tuple[str, list[str]]:
    """The root (``""``, ``"/"`` or ``"//"``, as POSIX keeps two leading slashes) and the
    components of *text*, empty and ``.`` components dropped, as ``PurePosixPath`` parses."""
    root = ""
    if text.startswith("/"):
        root = "//" if text.startswith("//") and not text.startswith("///") else "/"
    return root, [part for part in text.split("/") if part and part != "."]


def _spelled(root: str, parts: list[str]) -> str:
    return root + "/".join(parts) if root or parts else "."


def path_text(path: str | os.PathLike[str]) -> str:
    """``str(Path(path))``: the path with repeated slashes, ``.`` components and a trailing
    slash dropped (``./a//b/`` is ``a/b``)."""
    if not _POSIX:
        from pathlib import Path

        return str(Path(path))
    return _spelled(*_parts(_text(path)))


def path_join(folder: str | os.PathLike[str], name: str) -> str:
    """``str(Path(folder) / name)`` for a plain file *name* (no slash)."""
    if not _POSIX:
        from pathlib import Path

        return str(Path(folder) / name)
    root, parts = _parts(_text(folder))
    return _spelled(root, [*parts, name])


def path_with_name(path: str | os.PathLike[str], name: str) -> str:
    """``str(Path(path).with_name(name))`` for a plain file *name*: the last component
    replaced (a path without one is a ``ValueError``, as in pathlib)."""
    if not _POSIX:
        from pathlib import Path

        return str(Path(path).with_name(name))
    root, parts = _parts(_text(path))
    if not parts:
        raise ValueError(f"{_spelled(root, parts)!r} has an empty name")
    return _spelled(root, [*parts[:-1], name])


def path_name(path: str | os.PathLike[str]) -> str:
    """``Path(path).name``: the last component (``""`` for ``/`` and ``.``)."""
    if not _POSIX:
        from pathlib import Path

        return Path(path).name
    parts = _parts(_text(path))[1]
    return parts[-1] if parts else ""


def path_suffix(path: str | os.PathLike[str]) -> str:
    """``Path(path).suffix``: the last component's extension from its last dot (none for a
    name that starts with its only dot, ``.xlsx``, or ends with one)."""
    if not _POSIX:
        from pathlib import Path

        return Path(path).suffix
    name = path_name(path)
    i = name.rfind(".")
    return name[i:] if 0 < i < len(name) - 1 else ""


def glob_names(folder: str, prefix: str, suffix: str) -> list[str]:
    """The names ``Path(folder).glob(prefix + "*" + suffix)`` finds, in listing order: those
    that start with *prefix* and end with *suffix* (case-sensitive, as on POSIX), none in a
    folder that cannot be listed (``glob`` passes over a ``PermissionError``)."""
    if not _POSIX:
        from pathlib import Path

        return [p.name for p in Path(folder).glob(f"{prefix}*{suffix}")]
    try:
        names = os.listdir(folder)
    except PermissionError:
        return []
    least = len(prefix) + len(suffix)
    return [n for n in names if len(n) >= least and n.startswith(prefix) and n.endswith(suffix)]


def _text(path: str | os.PathLike[str]) -> str:
    text = os.fspath(path)
    if not isinstance(text, str):  # pathlib takes no bytes either
        raise TypeError(f"expected str or os.PathLike returning str, not {type(text).__name__}")
    return text
