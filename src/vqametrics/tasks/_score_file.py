"""The score file a toolkit writes beside its output (MathVista's ``scores_<model>.json``,
MathVision's ``<file>_result.json``), found and parsed once for the tasks that show it beside
their own numbers."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.exceptions import InputError
from ._base import TaskInputs

__all__ = ["read_score_file"]


def read_score_file(
    inputs: TaskInputs, beside: Callable[[Path], Path | None], what: str
) -> tuple[Path, Any] | None:
    """``(path, parsed JSON)`` of ``--reported``, else of the file *beside* names next to the
    results (when it exists and is not the results file); ``None`` when there is none. A file
    that cannot be read or parsed is an error naming it (*what* says what it should be)."""
    path: Path | None = None
    if inputs.reported is not None:
        path = Path(inputs.reported)
    elif isinstance(inputs.results, str | os.PathLike) and os.fspath(inputs.results) != "-":
        res = Path(inputs.results)
        cand = beside(res)
        path = cand if cand is not None and cand.is_file() and cand != res else None
    if path is None:
        return None
    import orjson

    try:
        return path, orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        raise InputError(f"{path}: not a readable {what} ({exc})") from None
