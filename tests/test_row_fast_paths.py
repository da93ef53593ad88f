"""Issue 23: a sheet's rows are made by one ``zip`` each where every cell would come out as it
is, and a multiple-choice sheet's columns are renamed once per column order. Each fast path
against the per-cell formula it replaces, written out here."""

from __future__ import annotations

import string
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from vqametrics import InputError
from vqametrics.readers import records
from vqametrics.tasks._mcq import _lower_columns

CELLS = st.one_of(st.none(), st.just(""), st.sampled_from(["a", "B", " "]), st.integers(-3, 3))
NAMES = st.sampled_from(["index", "Index", "A", "AB", "answer", "Answer", "B", "", "x"])


def _rows_per_cell(table: list[list[Any]]) -> list[dict[str, Any]] | None:
    """The rows as the per-cell rule makes them: each named column's cell, ``None`` for an
    empty or missing cell; blank rows skipped, and trailing rows of only spaces too; ``None``
    where the table is refused."""
    while table and all(c is None or str(c).strip() == "" for c in table[-1]):
        table.pop()
    if not table:
        return None
    header = [str(h) if h is not None else "" for h in table[0]]
    named = [h for h in header if h]
    if len(set(named)) < len(named):
        return None
    out = []
    for cells in table[1:]:
        if all(c is None or c == "" for c in cells):
            continue
        if any(c not in (None, "") for c in cells[len(header) :]):
            return None
        out.append(
            {
                h: (cells[j] if j < len(cells) and cells[j] != "" else None)
                for j, h in enumerate(header)
                if h
            }
        )
    return out


@given(
    st.lists(NAMES, min_size=1, max_size=5),
    st.lists(st.lists(CELLS, max_size=6), max_size=6),
)
def test_sheet_rows_are_the_per_cell_rows(header: list[str], body: list[list[Any]]) -> None:
    table = [list(header), *[list(r) for r in body]]
    expected = _rows_per_cell([list(r) for r in table])
    try:
        got = records._table_records("t.xlsx", table, "xlsx").rows
    except InputError:
        assert expected is None
        return
    assert expected is not None
    assert [list(r.items()) for r in got] == [list(r.items()) for r in expected]  # order too


def _lowered_per_row(row: dict[str, Any]) -> dict[str, Any]:
    # VLMEvalKit: ``data[k.lower() if k not in ascii_uppercase else k] = data.pop(k)``
    return {(k if k in string.ascii_uppercase else k.lower()): v for k, v in row.items()}


ROW = st.dictionaries(NAMES, st.integers(0, 9), max_size=5)


@given(st.lists(ROW, max_size=6), st.booleans())
def test_columns_are_lowered_as_row_by_row(rows: list[dict[str, Any]], same: bool) -> None:
    if same and rows:  # a sheet: every row has the first row's columns, in its order
        rows = [{k: r.get(k, 0) for k in rows[0]} for r in rows]
    got = _lower_columns(rows)
    assert [list(r.items()) for r in got] == [list(_lowered_per_row(r).items()) for r in rows]
