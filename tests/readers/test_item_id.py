"""The id rule is one function (readers.layouts.item_id) that every reader applies: the
predictions of any layout, an lmms-eval doc's id, VQA's question ids and a task's own rows."""

from __future__ import annotations

from typing import Any

import pytest

from vqametrics.core.exceptions import InputError
from vqametrics.readers.cells import row_id
from vqametrics.readers.layouts import item_id, predictions_from
from vqametrics.readers.lmms_eval import _doc_id
from vqametrics.readers.records import read_records
from vqametrics.readers.vqa import results_from_pairs


@pytest.mark.parametrize(("value", "expected"), [("q1", "q1"), (12, 12), (12.0, 12), (0, 0)])
def test_an_id_is_a_string_or_an_integer(value: Any, expected: Any) -> None:
    got = item_id(value, "f: line 1", "question_id")
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (True, "f: line 1: question_id is bool (True)"),
        (2.5, "f: line 1: question_id is float (2.5)"),
        ([1], "f: line 1: question_id is list ([1])"),
        ({"a": 1}, "f: line 1: question_id is dict"),
        (None, "f: line 1: the 'question_id' cell is empty"),
    ],
)
def test_anything_else_is_an_error_naming_the_row(value: Any, message: str) -> None:
    with pytest.raises(InputError) as err:
        item_id(value, "f: line 1", "question_id")
    assert str(err.value).startswith(message)


def _bad(read: Any) -> str:
    with pytest.raises(InputError) as err:
        read()
    return str(err.value)


def test_every_reader_applies_the_one_rule() -> None:
    rows = [{"question_id": 1, "answer": "a"}, {"question_id": 2.5, "answer": "b"}]
    records = read_records(rows)
    assert "question_id is float (2.5), expected a string or integer" in _bad(
        lambda: predictions_from(records)
    )
    assert "doc.question_id is float (2.5), expected a string or integer" in _bad(
        lambda: _doc_id({"question_id": 2.5}, ("question_id",), "log: line 2")
    )
    assert "<r>: question_id is float (2.5), expected a string or integer" in _bad(
        lambda: results_from_pairs([(1, "a"), (2.5, "b")], source="<r>")
    )
    assert "s: row 2: zz is float (2.5), expected a string or integer" in _bad(
        lambda: row_id(2.5, "s: row 2", "zz")
    )


def test_a_whole_float_is_the_integer_in_every_reader() -> None:
    rows = [{"question_id": 12.0, "answer": "a"}]
    assert predictions_from(read_records(rows)).ids == [12]
    assert _doc_id({"question_id": 12.0}, ("question_id",), "log: line 1") == 12
    assert row_id(12.0, "s: row 1", "id") == 12


def test_a_row_id_is_never_blank() -> None:
    assert "the 'id' cell is blank" in _bad(lambda: row_id("  ", "s: row 1", "id"))
