"""The compiled row joiner (``pipeline/_joinrows.c``) against its reference,
``pipeline._vqa_bulk.join_rows_reference``: on any columns it gives the reference's bytes or
``None`` (the reference then decides), on ordinary ones it really gives bytes, and the files
written through either are the same."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiled_helpers import built
from vqametrics.core.compiled import PURE_PYTHON_ENV, ROW_JOINER
from vqametrics.kernels import _fast
from vqametrics.pipeline import vqa_outputs
from vqametrics.pipeline._vqa_bulk import join_rows_reference
from vqametrics.tasks.vqav2 import evaluate_vqa


@pytest.fixture(scope="module")
def join() -> Callable[..., Any]:
    found = built(ROW_JOINER)
    if found is None:
        pytest.skip("the compiled row joiner is not built (no compiler at install time)")
    return found


def _i64(values: list[int]) -> Any:
    return np.array(values, dtype=np.int64)


def test_a_small_case_derived_by_hand(join: Callable[..., Any]) -> None:
    # rows 0..3: a coded column (code -1 is the table's last piece), a constant, a decimal
    # column and the line's end; row 2 is a slow row written whole
    columns = [
        (["a", "bb", "\xe9", ""], _i64([0, 1, 2, -1]), 1, 0),
        ([","], None, 0, 0),
        (None, _i64([10, -3, 0, 2**63 - 1]), 1, 0),
        (["\n"], None, 0, 0),
    ]
    expected = b"a,10\nbb,-3\nSLOW\n,9223372036854775807\n"
    assert join(columns, 0, 4, [2], ["SLOW\n"]) == expected
    assert join_rows_reference(columns, 0, 4, [2], ["SLOW\n"]) == expected
    # a part of the rows; codes read with a step and an offset (one row of a 2-column array)
    pairs = [(["x", "y", "z"], _i64([0, 1, 2, 0, 1, 2]), 2, 1), (["|"], None, 0, 0)]
    assert join(pairs, 1, 3, [], []) == join_rows_reference(pairs, 1, 3, [], []) == b"x|z|"
    # no codes: the row's position indexes the table (here shifted by the offset)
    shifted = [(["p", "q"], None, 1, -5)]
    assert join(shifted, 5, 7, [], []) == join_rows_reference(shifted, 5, 7, [], []) == b"pq"
    assert join(shifted, 5, 5, [], []) == b""


@pytest.mark.parametrize(
    ("columns", "slow_rows", "slow_texts"),
    [
        ([(["猫"], None, 0, 0)], [], []),  # a piece wider than one byte a character
        ([(["a", 1], _i64([0, 1]), 1, 0)], [], []),  # not a str
        ([(["a"], np.array([0, 0], dtype=np.int32), 1, 0)], [], []),  # codes not int64
        ([(["a"], _i64([0, 1]), 1, 0)], [], []),  # a code beyond the table
        ([(["a"], _i64([0]), 1, 0)], [], []),  # fewer codes than rows
        ([(["a"], None, 0, 0)], [1, 0], ["x", "y"]),  # slow rows not ascending
        ([(["a"], None, 0, 0)], [0], ["猫"]),  # a wide slow text
        ([("a", None, 0, 0)], [], []),  # a table that is not a list
    ],
)
def test_input_it_does_not_take_is_left_to_the_reference(
    join: Callable[..., Any], columns: list[Any], slow_rows: list[int], slow_texts: list[str]
) -> None:
    assert join(columns, 0, 2, slow_rows, slow_texts) is None


one_byte_text = st.text(alphabet=st.characters(max_codepoint=255), max_size=6)


def _slow(draw: st.DrawFn, start: int, stop: int) -> tuple[list[int], list[str]]:
    """Up to three slow rows among start..stop, ascending, and their texts."""
    rows = sorted(r for r in draw(st.sets(st.integers(start, start + 8), max_size=3)) if r < stop)
    return rows, [draw(one_byte_text) for _ in rows]


@st.composite
def _columns(draw: st.DrawFn) -> tuple[list[Any], int, int, list[int], list[str]]:
    start = draw(st.integers(0, 5))
    stop = start + draw(st.integers(0, 12))
    columns: list[Any] = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["coded", "decimal", "constant", "positional"]))
        table = draw(st.lists(one_byte_text, min_size=1, max_size=6))
        if kind == "constant":
            columns.append((table[:1], None, 0, 0))
        elif kind == "positional":  # the table has a piece per row, first row at start
            rows = draw(st.lists(one_byte_text, min_size=stop - start, max_size=stop - start))
            columns.append((rows, None, 1, -start))
        else:
            step = draw(st.integers(1, 3))
            offset = draw(st.integers(0, step - 1))
            low, high = (-len(table), len(table) - 1)
            if kind == "decimal":
                low, high = -(2**63), 2**63 - 1
            size = stop * step
            codes = draw(st.lists(st.integers(low, high), min_size=size, max_size=size))
            columns.append((None if kind == "decimal" else table, _i64(codes), step, offset))
    return columns, start, stop, *_slow(draw, start, stop)


@settings(max_examples=300, deadline=None)
@given(case=_columns())
def test_any_columns_give_the_references_bytes(
    join: Callable[..., Any], case: tuple[list[Any], int, int, list[int], list[str]]
) -> None:
    columns, start, stop, slow_rows, slow_texts = case
    got = join(columns, start, stop, slow_rows, slow_texts)
    # every case drawn is input the joiner takes: it must answer, not leave it to the reference
    assert got is not None
    assert got == join_rows_reference(columns, start, stop, slow_rows, slow_texts)


ANSWERS = ["yes", "no", "two", "2", "a dog", "Dog.", "red", "none", "0", "café", "猫"]


#: question ids of each kind the writers handle: ints written from int64 codes, ints beyond
#: int64, strings (one of them not ASCII), both kinds mixed
IDS = {
    "int": lambda q: 10 * q,
    "beyond int64": lambda q: 2**63 + q,
    "str": lambda q: f"q{q}" if q != 3 else "q-é",
    "mixed": lambda q: q if q % 2 else f"{q}",
}


def _evaluation(ids: Callable[[int], Any], n: int = 120) -> Any:
    """An evaluation scored in bulk: non-ASCII texts, a missing prediction, questions without a
    question or answer type, and questions with three answers (rows the bulk writer leaves to
    the per-question records)."""
    records = [
        {
            "question_id": ids(q),
            "image_id": q,
            "question_type": None if q % 5 == 0 else f"what is {q % 4}",
            "answer_type": None if q % 6 == 1 else ["yes/no", "number", "other"][q % 3],
            "answers": [
                {"answer": ANSWERS[(q * i + i) % len(ANSWERS)], "answer_id": i}
                for i in range(1, 4 if q % 9 == 0 else 11)
            ],
        }
        for q in range(n)
    ]
    predictions = {ids(q): ANSWERS[(q * 5) % len(ANSWERS)] for q in range(n) if q != 7}
    return evaluate_vqa(records, predictions, allow_missing=True)


@pytest.mark.filterwarnings("ignore::vqametrics.VqaMetricsWarning")  # the 3-answer questions
@pytest.mark.parametrize("ids", IDS)
def test_the_files_are_the_same_through_either(
    join: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ids: str
) -> None:
    monkeypatch.setattr(_fast, "MIN_QUESTIONS", 1)
    result = _evaluation(IDS[ids])
    assert result._fast is not None
    monkeypatch.delenv(PURE_PYTHON_ENV, raising=False)
    calls: list[int] = []
    import vqametrics.pipeline._vqa_bulk as bulk

    monkeypatch.setattr(
        bulk, "join_rows_reference", lambda *a: calls.append(1) or join_rows_reference(*a)
    )
    vqa_outputs.write_vqa_outputs(result, tmp_path / "compiled")
    assert calls == []  # the compiled joiner took every chunk
    monkeypatch.setenv(PURE_PYTHON_ENV, "1")
    vqa_outputs.write_vqa_outputs(result, tmp_path / "pure")
    assert calls  # the reference did the work
    opts = orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE
    one_by_one = b"".join(
        orjson.dumps(rec, option=opts) for rec in result._per_question_slow(range(120))
    )
    official = {
        f"{name}.json": orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
        for name, value in result.official_outputs().items()
    }
    assert len(official) == 4
    for way in ("compiled", "pure"):
        assert (tmp_path / way / "per_question.jsonl").read_bytes() == one_by_one, way
        for name, data in official.items():
            assert (tmp_path / way / name).read_bytes() == data, (way, name)


@st.composite
def _any_columns(draw: st.DrawFn) -> tuple[list[Any], int, int, list[int], list[str]]:
    """Columns with codes of any value, steps and offsets: out of range or not."""
    start = draw(st.integers(0, 4))
    stop = start + draw(st.integers(0, 8))
    columns: list[Any] = []
    for _ in range(draw(st.integers(1, 4))):
        table = draw(st.one_of(st.none(), st.lists(one_byte_text, min_size=1, max_size=4)))
        codes = draw(st.one_of(st.none(), st.lists(st.integers(-8, 8), max_size=24).map(_i64)))
        columns.append((table, codes, draw(st.integers(0, 3)), draw(st.integers(-3, 3))))
    return columns, start, stop, *_slow(draw, start, stop)


@settings(max_examples=400, deadline=None)
@given(case=_any_columns())
def test_on_any_input_the_references_bytes_or_none(
    join: Callable[..., Any], case: tuple[list[Any], int, int, list[int], list[str]]
) -> None:
    # where the reference fails (a code out of range, in a slow row too), the joiner gives up
    columns, start, stop, slow_rows, slow_texts = case
    got = join(columns, start, stop, slow_rows, slow_texts)
    try:
        expected = join_rows_reference(columns, start, stop, slow_rows, slow_texts)
    except IndexError:
        assert got is None
    else:
        assert got is None or got == expected
