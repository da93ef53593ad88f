"""A workbook read twice inside ``workbooks_parsed_once`` is parsed once, and only there
(issue 23: MMBench's VLMEvalKit sheet is both its data file and its predictions)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from vqametrics import evaluate
from vqametrics.readers import records

openpyxl = pytest.importorskip("openpyxl")


def _book(rows: list[list[Any]]) -> bytes:
    book = openpyxl.Workbook()
    for row in rows:
        book.active.append(row)
    buf = io.BytesIO()
    book.save(buf)
    return buf.getvalue()


ROWS = [["index", "prediction"], [1, "A"], [2, "B"], [3, None], [4, "3.5"]]


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of each workbook the reader parses."""
    seen: list[int] = []
    calamine: Callable[[bytes], Any] = records._calamine_table

    def counted(data: bytes) -> Any:
        seen.append(len(data))
        return calamine(data)

    monkeypatch.setattr(records, "_calamine_table", counted)
    return seen


def test_the_same_bytes_are_parsed_once_inside_the_block(parses: list[int]) -> None:
    data = _book(ROWS)
    with records.workbooks_parsed_once():
        first = records.xlsx_table("a.xlsx", data)
        second = records.xlsx_table("b.xlsx", bytes(data))  # equal bytes, another object
    assert parses == [len(data)]
    assert first == second == ROWS  # openpyxl's values: the ints, None for the empty cell
    first[0].append("changed")
    first.pop()
    assert second == ROWS  # each call's rows are its own


def test_other_bytes_and_reads_outside_the_block_are_parsed(parses: list[int]) -> None:
    data, other = _book(ROWS), _book([["index", "prediction"], [1, "C"]])
    with records.workbooks_parsed_once():
        assert records.xlsx_table("a.xlsx", data) == ROWS
        assert records.xlsx_table("c.xlsx", other) == [["index", "prediction"], [1, "C"]]
        with records.workbooks_parsed_once():  # a block inside shares what was parsed
            assert records.xlsx_table("a.xlsx", data) == ROWS
    assert parses == [len(data), len(other)]
    assert records.xlsx_table("a.xlsx", data) == ROWS  # nothing kept after the block
    assert records.xlsx_table("a.xlsx", data) == ROWS
    assert parses == [len(data), len(other), len(data), len(data)]


def test_an_mmbench_sheet_is_parsed_once(parses: list[int], tmp_path: Path) -> None:
    header = ["index", "question", "A", "B", "answer", "category", "l2-category", "prediction"]
    rows = [header]
    for g in range(4):  # two circular copies of each two-option question
        rows.append([g, f"Which {g}?", "left", "right", "A", "c", "l2", "A"])
        rows.append([g + 1_000_000, f"Which {g}?", "right", "left", "B", "c", "l2", "B"])
    sheet = tmp_path / "model_MMBench_DEV_EN.xlsx"
    sheet.write_bytes(_book(rows))
    result = evaluate("mmbench", results=sheet)
    assert parses == [sheet.stat().st_size]
    assert result.headline == 1.0  # every copy of every question answered right
