"""Issue 22, the readers: CSV fields of any length, non-string answers refused where the file
says what a value is (JSON), and ids compared by value when several files are paired (the same
ChartQA data as CSV and as XLSX is the same items)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from vqametrics import InputError
from vqametrics.cli import main
from vqametrics.readers.join import same_ids
from vqametrics.readers.layouts import predictions_from
from vqametrics.readers.records import read_records


def test_a_csv_field_beyond_128_kib_is_read(tmp_path: Path) -> None:
    # the audit: a prediction longer than 128 KiB in a CSV was "malformed" (csv's field limit)
    long = "word " * 40_000  # 200,000 characters
    path = tmp_path / "long.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["index", "prediction"])
        writer.writerow([1, long])
    before = csv.field_size_limit()
    rows = read_records(path).rows
    assert rows == [{"index": "1", "prediction": long}]
    assert csv.field_size_limit() == before  # the module's limit is left as it was


@pytest.mark.parametrize("value", [1, 2.5, ["a"], {"a": 1}, True])
def test_a_json_answer_that_is_not_a_string_is_refused(value: object, tmp_path: Path) -> None:
    # the audit: a LLaVA answer {"text": 1} was coerced to "1" and scored
    path = tmp_path / "answers.jsonl"
    path.write_text(
        json.dumps({"question_id": 1, "text": "two"})
        + "\n"
        + json.dumps({"question_id": 2, "text": value})
        + "\n"
    )
    with pytest.raises(InputError) as err:
        predictions_from(read_records(path))
    message = str(err.value)
    assert f"{path}: line 2" in message and "expected the answer as a string" in message


def test_a_spreadsheet_number_is_still_its_text(tmp_path: Path) -> None:
    path = tmp_path / "preds.csv"
    path.write_text("index,prediction\n1,12\n2,3.50\n")
    assert predictions_from(read_records(path)).texts == ["12", "3.50"]


def test_a_missing_json_answer_is_still_missing_not_refused(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text(json.dumps({"question_id": 1, "text": None}) + "\n")
    got = predictions_from(read_records(path), allow_missing_answer=True)
    assert got.texts == [None]


def test_ids_are_compared_by_value() -> None:
    assert same_ids([1, 2, 3], ["1", "2", "3"])
    assert same_ids(["a", 2], ["a", "2"])
    assert not same_ids([1, 2], ["2", "1"])  # the order matters for a paired comparison
    assert not same_ids([1, 2], [1, 2, 3])
    assert not same_ids([1], ["01"])  # not the same text


def test_chartqa_as_csv_and_as_xlsx_is_the_same_items(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    rows = [
        ["index", "question", "answer", "prediction", "split"],
        [1, "How many?", "12", "12", "human"],
        [2, "Which year?", "2019", "2018", "augmented"],
        [3, "What share?", "25", "25%", "human"],
    ]
    as_csv = tmp_path / "chartqa.csv"
    with as_csv.open("w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    wb = openpyxl.Workbook()
    for row in rows:
        wb.active.append(row)
    buf = io.BytesIO()
    wb.save(buf)
    as_xlsx = tmp_path / "chartqa.xlsx"
    as_xlsx.write_bytes(buf.getvalue())
    code = main(["score", "chartqa", "--results", str(as_csv), "--results", str(as_xlsx)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "not the same items" not in captured.err
