"""``Records.columns``: every column name in first-seen order, worked out once per records
(issue 23: it was a pass over every row each of the four times a results file is asked)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from vqametrics.readers.records import Records

ROWS = st.lists(st.dictionaries(st.sampled_from("abcde"), st.integers(), max_size=5), max_size=8)


@given(ROWS)
def test_columns_are_every_name_in_first_seen_order(rows: list[dict[str, Any]]) -> None:
    records = Records(rows, "<list>", "list")
    expected = list(dict.fromkeys(k for row in rows for k in row))
    assert records.columns == expected
    assert records.columns is records.columns  # once


def test_a_replaced_records_has_its_own_columns() -> None:
    from dataclasses import replace

    records = Records([{"a": 1}], "<list>", "list")
    assert records.columns == ["a"]
    assert replace(records, rows=[{"b": 2, "a": 1}]).columns == ["b", "a"]
