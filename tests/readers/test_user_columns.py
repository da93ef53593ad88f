"""A bad cell of a column the user named with ``--id-field`` / ``--answer-field`` is reported
under the user's name (``zz_id``), not the layout's (``index``): the readers rename the column
to read it, and the message must not name a column the user's file lacks (issue 22's audit,
left from its last session). And one rule for a breakdown or pairing key's cell type: a date
cell from a spreadsheet is an error, never ``str()`` of a datetime the sheet does not show.

Repros: each task's contract fixture with its id (or prediction) column renamed and one cell
blank, through ``vqametrics score``; a POPE sheet whose category cells are dates."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest

from contract.fixtures import FIXTURES, Fixture, Row
from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.readers.cells import group_text, json_answer, named_columns, row_id
from vqametrics.readers.layouts import item_id, predictions_from
from vqametrics.readers.records import Records, cell_text, field_value

#: tasks whose message for that cell still names the layout's column (none now); strict, so a
#: mended one must go
ID_GAPS: dict[str, str] = {}
ANSWER_GAPS: dict[str, str] = {}
#: the tasks with a bad answer cell to give: a blank one where an empty prediction is an
#: error, a list in JSON lines (a sheet's empty prediction that the scorer scores is not bad)
BAD_ANSWER_TASKS = sorted(
    t for t, fx in FIXTURES.items() if fx.format == "jsonl" or fx.empty_prediction == "missing"
)


def _param(task: str, gaps: dict[str, str]) -> Any:
    if task in gaps:
        return pytest.param(task, marks=pytest.mark.xfail(reason=gaps[task], strict=True))
    return task


def _error(fx: Fixture, task: str, rows: list[Row], tmp: Path, capsys: Any, **options: str) -> str:
    """The last stderr line of ``score`` on *rows*, which must exit 2."""
    argv = ["score", task, "--results", str(fx.write(tmp, rows))]
    if fx.annotations:
        argv += ["--annotations", str(fx.annotations(tmp))]
    for key, value in {**fx.options, **options}.items():
        argv += [f"--{key.replace('_', '-')}", str(value)]
    capsys.readouterr()
    assert main(argv) == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


def _renamed(fx: Fixture, column: str, new: str, bad: Any = None) -> list[Row]:
    """The fixture's rows with *column* renamed *new* and the last row's cell *bad*
    (``None``: blank)."""
    rows = [{(new if k == column else k): v for k, v in r.items()} for r in fx.rows]
    rows[-1][new] = bad if bad is not None else None if fx.format == "jsonl" else ""
    return rows


@pytest.mark.parametrize("task", [_param(t, ID_GAPS) for t in sorted(FIXTURES)])
def test_blank_id_cell_is_named_as_the_users_column(
    task: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fx = FIXTURES[task]
    rows = _renamed(fx, fx.id_column, "zz_id")
    line = _error(fx, task, rows, tmp_path, capsys, id_field="zz_id")
    assert "zz_id" in line, line
    assert f"'{fx.id_column}'" not in line, line


@pytest.mark.parametrize("task", [_param(t, ANSWER_GAPS) for t in BAD_ANSWER_TASKS])
def test_bad_answer_cell_is_named_as_the_users_column(
    task: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fx = FIXTURES[task]
    rows = _renamed(fx, fx.prediction_column, "zz_pred", ["a"] if fx.format == "jsonl" else None)
    line = _error(fx, task, rows, tmp_path, capsys, answer_field="zz_pred")
    assert "zz_pred" in line, line
    assert f"'{fx.prediction_column}'" not in line, line


# ---- the readers' helpers, on rows renamed by named_columns


def _sheet(rows: list[Row], layout: str = "tsv", **kw: Any) -> Records:
    records = Records(rows, "r.tsv", layout, [i + 2 for i in range(len(rows))], **kw)
    return named_columns(records, "zz_id", "zz_pred", id_column="index", answer_column="prediction")


def _bad(call: Any) -> str:
    with pytest.raises(InputError) as info:
        call()
    return str(info.value)


def test_named_columns_keeps_the_users_names() -> None:
    records = _sheet([{"zz_id": 1, "zz_pred": "a", "index": 9}])
    assert records.rows == [{"index": 1, "prediction": "a"}]  # the user's column wins
    assert records.user_names == {"index": "zz_id", "prediction": "zz_pred"}


@pytest.mark.parametrize(
    ("check", "value", "expected"),
    [
        (lambda v, w: item_id(v, w, "index"), None, "r.tsv: row 2: the 'zz_id' cell is empty"),
        (lambda v, w: item_id(v, w, "index"), 2.5, "r.tsv: row 2: zz_id is float (2.5)"),
        (lambda v, w: row_id(v, w, "index"), "  ", "r.tsv: row 2: the 'zz_id' cell is blank"),
        (
            lambda v, w: cell_text(v, w, column="prediction"),
            None,
            "r.tsv: row 2: column 'zz_pred' is empty",
        ),
        (
            lambda v, w: cell_text(v, w, column="prediction"),
            ["a"],
            "r.tsv: row 2: column 'zz_pred' holds list",
        ),
    ],
)
def test_cell_messages_name_the_users_column(check: Any, value: Any, expected: str) -> None:
    where = _sheet([{"zz_id": 1, "zz_pred": "a"}]).where(0)
    assert expected in _bad(lambda: check(value, where))


def test_json_answer_names_the_users_column() -> None:
    records = _sheet([{"zz_id": 1, "zz_pred": 3}], layout="jsonl")
    message = _bad(lambda: json_answer(records, 3, records.where(0), "prediction"))
    assert "line 2: 'zz_pred' is int 3" in message


def test_predictions_from_renamed_rows_names_the_users_column() -> None:
    records = _sheet([{"zz_id": 1, "zz_pred": 3}, {"zz_pred": "b"}], layout="jsonl")
    assert "line 2: zz_pred is int (3)" in _bad(lambda: predictions_from(records))
    records = _sheet([{"zz_id": 1, "zz_pred": "a"}, {"zz_pred": "b"}], layout="jsonl")
    message = _bad(lambda: predictions_from(records))
    assert "line 3: no 'zz_id' field (fields: zz_pred)" in message


def test_a_formula_cell_renamed_is_still_named_a_formula() -> None:
    """The sheet's notes are keyed by the file's header: the renamed column finds its own."""
    note = "a formula (B2) with no stored value"
    records = _sheet(
        [{"zz_id": 1, "zz_pred": None}], layout="xlsx", cell_notes={2: {"zz_pred": note}}
    )
    message = _bad(lambda: cell_text(None, records.where(0), column="prediction"))
    assert f"column 'zz_pred' has no value: the cell is {note}" in message


def test_an_unrenamed_row_keeps_the_layouts_name() -> None:
    where = Records([{"index": None}], "r.tsv", "tsv", [2]).where(0)
    assert "the 'index' cell is empty" in _bad(lambda: item_id(None, where, "index"))


# ---- one rule for a breakdown / pairing key's cell


_DATE = datetime.datetime(2024, 3, 1)
KEYS_KEPT = ["c1", "", None, 3, 2.5, float("nan")]
KEYS_REFUSED = [
    True,
    False,
    ["a"],
    ("a",),
    {"a": 1},
    {"a"},
    _DATE,
    _DATE.date(),
    datetime.time(9, 30),
    datetime.timedelta(days=1),
]


@pytest.mark.parametrize("value", KEYS_KEPT, ids=repr)
def test_group_text_is_the_text_of_field_value(value: Any) -> None:
    kept = field_value(value, "s: row 2", "category")
    assert kept is value
    text = group_text(value, "s: row 2", "category")
    assert text == (value if value is None or isinstance(value, str) else str(value))


@pytest.mark.parametrize("value", KEYS_REFUSED, ids=repr)
def test_group_text_and_field_value_refuse_the_same_cells(value: Any) -> None:
    first = _bad(lambda: field_value(value, "s: row 2", "category"))
    assert first == _bad(lambda: group_text(value, "s: row 2", "category"))
    assert first.startswith("s: row 2: 'category' is ")


def test_a_verdict_may_be_a_boolean() -> None:
    assert field_value(True, "s: row 2", "score", allow_bool=True) is True
    assert "is a date or time cell" in _bad(
        lambda: field_value(_DATE, "s: row 2", "score", allow_bool=True)
    )


def test_a_key_of_the_users_column_is_named_so() -> None:
    records = Records([{"zz_cat": _DATE}], "r.tsv", "tsv", [2], user_names={"category": "zz_cat"})
    assert "row 2: 'zz_cat' is a date" in _bad(
        lambda: group_text(_DATE, records.where(0), "category")
    )


def _xlsx_with_dates(path: Path, fx: Fixture) -> Path:
    """The fixture's sheet as .xlsx, every category cell the date 2024-03-01 shown as
    ``1 Mar 2024``: the sheet's text is not the datetime's ``str()``."""
    openpyxl = pytest.importorskip("openpyxl")
    rows = [dict(r) for r in fx.rows]
    columns = list(rows[0])
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(columns)
    for row in rows:
        sheet.append([_DATE if c == "category" else row[c] for c in columns])
    for cells in sheet.iter_rows(min_row=2, min_col=columns.index("category") + 1):
        cells[0].number_format = "d mmm yyyy"
    book.save(path)
    return path


@pytest.mark.parametrize("task", ["pope", "ai2d", "hallusionbench"])
def test_a_date_category_cell_is_an_error(
    task: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """POPE read it as the split ``2024-03-01 00:00:00`` (field_value), AI2D refused it
    (group_text): one rule now, a clear error for both."""
    fx = FIXTURES[task]
    path = _xlsx_with_dates(tmp_path / "results.xlsx", fx)
    argv = ["score", task, "--results", str(path)]
    if fx.annotations:
        argv += ["--annotations", str(fx.annotations(tmp_path))]
    assert main(argv) == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert "results.xlsx: row 2: 'category' is a date or time cell" in line, line
    assert "format the column as text" in line
