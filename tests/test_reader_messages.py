"""Reader messages for bad input (audit B: D6, B3, B4, B5): a key repeated in an ``{id:
answer}`` JSON object, a byte that is not UTF-8 in JSON, a spreadsheet forced to a text format,
empty worksheets, ``-`` for a file other than the results, and a null answer in a ground truth.

Each is one :class:`InputError` naming the file and the line, byte, key or sheet: never a
traceback, never a silent last value. Only messages are asserted here, never a score.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.readers.records import read_records
from vqametrics.readers.vqa import load_annotations, load_results
from vqametrics.tasks._run import evaluate_task

MMMU_RESULTS = "mmmu/official/llava1.5_13b_val.json"
MMMU_GOLD = "mmmu/official/answer_dict_val.json"
TEXTVQA_SHEET = "textvqa_val/vlmevalkit/vila_8b_TextVQA_VAL.xlsx"


def _main(argv: list[str]) -> tuple[int, str]:
    """The CLI in-process: (exit code, stderr)."""
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return code, err.getvalue()


# --------------------------------------------------------------------------- D6: repeated keys


def _mapping_with_repeat(path: Path) -> Path:
    path.write_text(
        '{"validation_Accounting_1": "D",\n'
        ' "validation_Accounting_2": "A",\n'
        ' "validation_Accounting_1": "B"}\n',
        encoding="utf-8",
    )
    return path


def test_a_repeated_key_in_an_id_answer_object_is_an_error_naming_file_line_and_key(
    tmp_path: Path,
) -> None:
    path = _mapping_with_repeat(tmp_path / "r.json")
    with pytest.raises(InputError) as info:
        read_records(str(path), on_duplicate="error")
    message = str(info.value)
    assert message.startswith(f"{path}: line 3: key 'validation_Accounting_1' is repeated")
    # a Python caller reads the keyword (the command line: --on-duplicate last, below)
    assert "members 1 and 3" in message and "pass on_duplicate='last'" in message


def test_a_caller_without_the_option_refuses_the_repeat_without_offering_it(
    tmp_path: Path,
) -> None:
    path = _mapping_with_repeat(tmp_path / "r.json")
    with pytest.raises(InputError, match=r"r\.json: line 3: key 'validation_Accounting_1'") as info:
        read_records(str(path))
    assert "on-duplicate" not in str(info.value) and "on_duplicate" not in str(info.value)


def test_on_duplicate_last_keeps_what_json_load_keeps(tmp_path: Path) -> None:
    path = _mapping_with_repeat(tmp_path / "r.json")
    records = read_records(str(path), on_duplicate="last")
    expected = json.loads(path.read_text(encoding="utf-8"))
    assert [(r["question_id"], r["answer"]) for r in records.rows] == list(expected.items())
    assert records.repeated_keys == 1


def test_a_repeat_in_a_gzip_or_escaped_key_is_still_found(tmp_path: Path) -> None:
    import gzip

    # an escaped spelling: the line cannot be found by the plain spelling, the file is named
    raw = b'{"a": "x", "\\u0061": "y"}'
    path = tmp_path / "r.json.gz"
    path.write_bytes(gzip.compress(raw))
    with pytest.raises(InputError, match=rf"^{path}: key 'a' is repeated"):
        read_records(str(path), on_duplicate="error")
    assert read_records(str(path), on_duplicate="last").repeated_keys == 1


def test_distinct_keys_and_id_record_mappings_read_as_before(tmp_path: Path) -> None:
    flat = tmp_path / "flat.json"
    flat.write_text('{"1": "a", "2": "b"}', encoding="utf-8")
    assert read_records(str(flat)).repeated_keys == 0
    nested = tmp_path / "nested.json"
    nested.write_text('{"1": {"answer": "a"}, "2": {"answer": "b"}}', encoding="utf-8")
    assert len(read_records(str(nested)).rows) == 2


@pytest.mark.shared
def test_mmmu_refuses_a_repeated_key_unless_on_duplicate_last(
    shared_data: Path, tmp_path: Path
) -> None:
    source = (shared_data / MMMU_RESULTS).read_text(encoding="utf-8")
    bad = tmp_path / "r_dupkey.json"
    # the audit's reproducer: the first id given again, first, with another letter
    bad.write_text(source.replace("{", '{"validation_Accounting_1": "D", ', 1), encoding="utf-8")
    gold = str(shared_data / MMMU_GOLD)
    with pytest.raises(InputError) as info:
        evaluate_task("mmmu", str(bad), annotations=gold)
    message = str(info.value)
    assert message.startswith(f"{bad}: line ")
    assert "'validation_Accounting_1' is repeated" in message and "on_duplicate='last'" in message
    kept = evaluate_task("mmmu", str(bad), annotations=gold, on_duplicate="last")
    assert any("1 repeated key(s)" in n and "json.load" in n for n in kept.notes)
    # the command line names its own option
    code, err = _main(["score", "mmmu", "--results", str(bad), "--annotations", gold])
    assert code != 0 and "Traceback" not in err
    assert f"{bad}: line " in err and "pass --on-duplicate last" in err


# --------------------------------------------------------------------------- B4: not UTF-8


def test_a_latin1_byte_in_json_names_its_byte_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    head = b'[\n  {"question_id": 1, "answer": "a"},\n  {"question_id": 2, "answer": "afric'
    path.write_bytes(head + b'\xe1n"}\n]\n')
    byte = len(head)
    column = len(head) - head.rfind(b"\n")  # 1-based: the characters before it, plus one
    with pytest.raises(InputError) as info:
        load_results(path)
    assert str(info.value).startswith(
        f"{path}: not UTF-8 text (byte {byte}, line 3, column {column}):"
    )
    assert "surrogates" not in str(info.value)
    with pytest.raises(InputError, match=rf"not UTF-8 text \(byte {byte}, line 3, "):
        read_records(str(path))


def test_a_latin1_byte_in_jsonl_names_the_line_and_the_column_in_characters(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.jsonl"
    first = '{"question_id": 1, "answer": "café"}\n'.encode()
    line = b'{"question_id": 2, "answer": "\xe9"}\n'
    path.write_bytes(first + line)
    with pytest.raises(InputError) as info:
        read_records(str(path))
    byte = len(first) + line.index(b"\xe9")
    assert str(info.value).startswith(f"{path}: not UTF-8 text (byte {byte}, line 2, column 31)")


def test_a_real_syntax_error_keeps_its_message(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('[\n{"question_id": 1, "answer": "é"},\n{"question_id": 2,,}\n]', "utf-8")
    with pytest.raises(InputError, match=rf"^{path}: invalid JSON at line 3, column"):
        read_records(str(path))


def test_a_latin1_csv_names_its_line_too(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    head = b"question_id,answer\n1,a\n2,afric"
    path.write_bytes(head + b"\xe1n\n")
    with pytest.raises(InputError, match=rf"^{path}: not UTF-8 text \(byte {len(head)}, line 3"):
        read_records(str(path))


def _workbook(path: Path, sheets: dict[str, list[list[Any]]]) -> Path:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    book.remove(book.active)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
    book.save(path)
    return path


@pytest.mark.parametrize("forced", ["llava,csv", "json", "tsv"])
def test_a_spreadsheet_forced_to_a_text_format_says_it_is_a_spreadsheet(
    forced: str, tmp_path: Path
) -> None:
    path = _workbook(tmp_path / "r.xlsx", {"Sheet": [["question_id", "text"], [1, "a"]]})
    with pytest.raises(InputError) as info:
        read_records(str(path), format=forced)
    message = str(info.value)
    assert message.startswith(f"{path}: read as ") and "spreadsheet" in message
    assert "zip header" in message and "not UTF-8" not in message


# --------------------------------------------------------------------------- B3: empty sheets


def test_a_sheet_with_a_header_but_no_rows_names_its_columns(tmp_path: Path) -> None:
    header = ["index", "question", "answer", "prediction"]
    path = _workbook(tmp_path / "r.xlsx", {"Sheet1": [header]})
    with pytest.raises(InputError) as info:
        read_records(str(path))
    message = str(info.value)
    assert message.startswith(f"{path}: its first worksheet has a header row (")
    assert "'index', 'question', 'answer', 'prediction'" in message and "no rows" in message
    assert "fields none" not in message


def test_an_empty_sheet_in_a_task_is_described_as_such(tmp_path: Path) -> None:
    path = _workbook(tmp_path / "r.xlsx", {"Sheet1": [["index", "question", "prediction"]]})
    code, err = _main(["score", "textvqa", "--results", str(path)])
    assert code != 0 and "Traceback" not in err
    assert f"{path}: its first worksheet has a header row ('index'" in err


def test_a_csv_with_only_a_header_says_so(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("question_id,answer\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"^{path}: it has a header row \('question_id'"):
        read_records(str(path))


def test_a_blank_first_sheet_names_the_sheets_of_the_workbook(tmp_path: Path) -> None:
    data = [["index", "question", "answer", "prediction"], [1, "q", "a", "a"]]
    path = _workbook(tmp_path / "r.xlsx", {"Empty": [], "Results": data})
    with pytest.raises(InputError) as info:
        read_records(str(path))
    message = str(info.value)
    assert message.startswith(f"{path}: its first worksheet ('Empty') is empty")
    assert "'Empty', 'Results'" in message


@pytest.mark.shared
def test_a_blank_first_sheet_of_a_real_workbook(shared_data: Path, tmp_path: Path) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    path = tmp_path / "tv_first.xlsx"
    shutil.copyfile(shared_data / TEXTVQA_SHEET, path)
    book = openpyxl.load_workbook(path)
    book.create_sheet("Empty", 0)
    book.save(path)
    code, err = _main(["score", "textvqa", "--results", str(path)])
    assert code != 0 and "Traceback" not in err
    assert f"{path}: its first worksheet ('Empty') is empty" in err


# --------------------------------------------------------------------------- B5: minor


def test_annotations_from_standard_input_say_where_stdin_is_read(tmp_path: Path) -> None:
    results = tmp_path / "r.json"
    results.write_text('[{"question_id": 1, "answer": "a"}]', encoding="utf-8")
    code, err = _main(["vqa", "--results", str(results), "--annotations", "-"])
    assert code != 0 and "Traceback" not in err
    assert "-: no such file: standard input ('-') is read here only for --results" in err


@pytest.mark.parametrize(
    ("record", "said"),
    [
        ({"answer": None}, "'answer' is null, expected the list of answers"),
        ({"answers": None}, "'answers' is null, expected the list of answers"),
        ({"answer": ["b", {"answer_id": 1}]}, "answer record 2 of 'answer' has no 'answer'"),
        (
            {"answers": [{"answer": "b", "answer_id": 1}, {"answer": None, "answer_id": 2}]},
            "answer record 2 of 'answers': its 'answer' is null",
        ),
    ],
    ids=["okvqa-null", "vqa-null", "okvqa-no-answer", "vqa-null-record"],
)
def test_a_null_answer_in_the_ground_truth_is_named(
    record: dict[str, Any], said: str, tmp_path: Path
) -> None:
    path = tmp_path / "gt.json"
    rows = [{"question_id": 1, "answer": ["a"]}, {"question_id": 2, **record}]
    path.write_text(json.dumps(rows), encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_annotations(path)
    assert str(info.value).startswith(f"{path}: question 2: {said}")
    assert "missing 'answers'" not in str(info.value)
