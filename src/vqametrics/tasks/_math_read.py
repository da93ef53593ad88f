"""Reading shared by the math tasks (MathVista, MathVision): the score file a toolkit writes
beside its output (``scores_<model>.json``, ``<file>_result.json``), shown beside our numbers,
the ``index`` of a VLMEvalKit judge sheet, the note comparing the per-item verdicts a file
stores with ours, and how VLMEvalKit asks its judge for an extraction."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..core.exceptions import InputError
from ..judge.stage import Tries
from ..readers.cells import row_id
from ..readers.records import Records
from ._base import Item, TaskData, TaskInputs
from ._common import reported_scores

__all__ = [
    "VLMEVALKIT_AUXEVAL",
    "judge_sheet_data",
    "read_score_file",
    "sheet_index",
    "stored_verdict_note",
]


def _as_written(reply: str) -> str:
    return reply


#: VLMEvalKit's ``MathVista_auxeval`` / ``MATH_V_auxeval`` judge, as ``(read_reply, tries)`` for
#: :func:`~vqametrics.judge.stage.ask_judge`: the reply kept as its ``res``, unstripped; 5 tries
#: at temperature ``i * 0.5`` while the API gives no answer, ``max_tokens`` 128
VLMEVALKIT_AUXEVAL: tuple[Callable[[str], str], Tries] = (
    _as_written,
    Tries(temperatures=(0.0, 0.5, 1.0, 1.5, 2.0), max_tokens=128),
)


def judge_sheet_data(
    items: list[Item], records: Records, layout: str, notes: tuple[str, ...], inputs: TaskInputs
) -> TaskData:
    """The items of a VLMEvalKit judge sheet (*layout*, with the file's own format), with the
    score file VLMEvalKit wrote beside it."""
    return TaskData(
        items,
        (records.source,),
        (f"{layout} ({records.layout})",),
        notes,
        reported_scores(inputs),
    )


def sheet_index(row: Mapping[str, Any], where: str) -> str | int:
    """A VLMEvalKit sheet row's ``index`` (a float cell ``12.0`` read as its integer); an empty
    cell, a fraction, a boolean, a list or an object is an error naming the row."""
    index = row.get("index")
    if index is None:
        raise InputError(f"{where}: no 'index'")
    return row_id(index, where, "index")


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
    except OSError as exc:
        raise InputError(f"{path}: not a readable {what} ({exc})") from None
    except orjson.JSONDecodeError as exc:
        from ..readers._json import json_error_text

        raise InputError(f"{path}: not a readable {what} ({json_error_text(exc)})") from None


def stored_verdict_note(
    items: Sequence[Item], scores: Sequence[float], profile: str, field: str, column: str
) -> tuple[str, ...]:
    """The items whose verdict stored in the file (a bool in item field *field*, read from the
    file's *column*) differs from *profile*'s score, the first five named; nothing when all
    agree or none is stored."""
    stored = [
        (it.id, it.fields[field], s == 1.0)
        for it, s in zip(items, scores, strict=True)
        if isinstance(it.fields.get(field), bool)
    ]
    differ = [(i, st, ours) for i, st, ours in stored if st != ours]
    if not differ:
        return ()
    shown = "; ".join(f"{i!r}: stored {st}, recomputed {ours}" for i, st, ours in differ[:5])
    more = f"; and {len(differ) - 5} more" if len(differ) > 5 else ""
    return (
        f"{len(differ)} of the {len(stored)} verdicts stored in the file ({column}) differ "
        f"from profile {profile}'s: {shown}{more}",
    )
