"""The type rules of a results row's cells, shared by the task readers that read their own
layouts (MCQ sheets, MMMU-Pro, MathVista, MathVision, HallusionBench): an id, an answer and a
breakdown key (``category``, ``split``) of the wrong JSON type is an error naming the row,
never text made from it (issue 22: ``str(2.5)`` as an id, ``str(["A"])`` as an answer)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..core.exceptions import InputError
from .answers import not_text_error
from .layouts import item_id
from .records import Records, column_name, field_value

__all__ = ["group_text", "json_answer", "named_columns", "row_id", "unused_fields"]


def named_columns(
    records: Records,
    id_field: str | None,
    answer_field: str | None,
    *,
    id_column: str,
    answer_column: str,
) -> Records:
    """*records* with the user's ``--id-field`` / ``--answer-field`` columns under the names
    the layout reads (*id_column*, *answer_column*): a named column always wins, and a
    recognized column of the layout's name (any case) is dropped (issue 22); a named column
    the file lacks is an error naming the columns it has. The renames are kept in
    :attr:`Records.user_names`, so that a bad cell is named as the user's file names it."""
    renames: dict[str, str] = {}
    for given, native, option in (
        (id_field, id_column, "--id-field"),
        (answer_field, answer_column, "--answer-field"),
    ):
        if not given or given == native:
            continue
        columns = records.columns
        if given not in columns:
            found = ", ".join(columns[:20]) or "none"
            raise InputError(f"{records.source}: no {given!r} column ({option}); found: {found}")
        renames[given] = native
    if not renames:
        return records
    natives = set(renames.values())
    rows = [
        {renames.get(k, k): v for k, v in row.items() if k in renames or k.lower() not in natives}
        for row in records.rows
    ]
    names = {**(records.user_names or {}), **{v: k for k, v in renames.items()}}
    return replace(records, rows=rows, user_names=names)


def unused_fields(id_field: str | None, answer_field: str | None, layout: str) -> None:
    """An error when ``--id-field`` / ``--answer-field`` was given for a *layout* whose keys
    are fixed (never ignored silently: the user meant another column)."""
    given = [o for o, v in (("--id-field", id_field), ("--answer-field", answer_field)) if v]
    if given:
        raise InputError(
            f"{' and '.join(given)} cannot be used with {layout} (its keys are fixed); "
            "drop the option or give a layout with columns"
        )


def row_id(value: Any, where: str, column: str) -> str | int:
    """An item id by the one rule (:func:`~vqametrics.readers.layouts.item_id`), and not a
    blank string: a cell read as text may be blank, which names no item."""
    key = item_id(value, where, column)
    if isinstance(key, str) and not key.strip():
        raise InputError(f"{where}: the {column_name(where, column)!r} cell is blank")
    return key


def json_answer(records: Records, value: Any, where: str, column: str) -> Any:
    """*value* unchanged, unless *records* came from JSON and it is neither a string nor null:
    JSON says what a value is, and a number or a list where the answer text belongs is not an
    answer (a sheet's number cell is the text it shows, and stays the reader's to cast)."""
    if records.typed and value is not None and not isinstance(value, str):
        raise not_text_error(where, column_name(where, column), value)
    return value


def group_text(value: Any, where: str, column: str) -> str | None:
    """A breakdown key (``category``, ``split``) as text: the key rule of
    :func:`~vqametrics.readers.records.field_value` (text, a number, or ``None`` when absent;
    a boolean, a list, an object or a date cell is an error naming the row), a number as
    ``str()`` of it, as the readers always cast it."""
    key = field_value(value, where, column)
    return key if key is None or isinstance(key, str) else str(key)
