"""Bad input: one clear stderr line naming the file and the row/index, exit code 2, no traceback."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from vqametrics import InputError, UnknownNameError, evaluate_mmbench
from vqametrics.cli import main
from vqametrics.core.extras import install_hint
from vqametrics.mmbench import extract_choice, load_mmbench_tsv

HEADER = "index\tquestion\thint\tA\tB\tC\tD\tanswer\tcategory\tl2-category\tsplit\n"


def data_file(tmp_path: Path, body: str, header: str = HEADER, name: str = "data.tsv") -> Path:
    path = tmp_path / name
    path.write_text(header + body, encoding="utf-8")
    return path


GOOD_ROWS = (
    "1\tWhat?\t\tred\tgreen\t\t\tA\tc1\tl2\tdev\n1000001\tWhat?\t\tgreen\tred\t\t\tB\tc1\tl2\tdev\n"
)


def run_error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(args)
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("vqametrics: error: "), err
    assert "Traceback" not in err
    return err


def score(tmp_path: Path, data: Path, preds_text: str, name: str = "preds.tsv") -> list[str]:
    preds = tmp_path / name
    preds.write_text(preds_text, encoding="utf-8")
    return ["mmbench", "--data", str(data), "--predictions", str(preds)]


def test_missing_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = data_file(tmp_path, "1\tWhat?\tred\tgreen\n", header="index\tquestion\tA\tB\n")
    err = run_error(score(tmp_path, data, "index\tprediction\n1\tA\n"), capsys)
    assert str(data) in err and "missing column(s) answer" in err


def test_missing_prediction_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = data_file(tmp_path, GOOD_ROWS)
    err = run_error(score(tmp_path, data, "index\tanswer\n1\tA\n"), capsys)
    assert "preds.tsv" in err and "missing column(s) prediction" in err


def test_answer_not_an_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = data_file(tmp_path, GOOD_ROWS + "2\tWhy?\t\tyes\tno\t\t\tC\tc1\tl2\tdev\n")
    err = run_error(score(tmp_path, data, "index\tprediction\n1\tA\n"), capsys)
    assert f"{data}: line 4 (index 2): answer 'C' is not an option (A, B)" in err


def test_missing_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = data_file(tmp_path, "7\tWhy?\t\tyes\tno\t\t\t\tc1\tl2\ttest\n")
    err = run_error(score(tmp_path, data, "index\tprediction\n7\tA\n"), capsys)
    assert "line 2 (index 7): no answer" in err


def test_duplicate_index_in_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = data_file(tmp_path, GOOD_ROWS + "1\tWhat?\t\tred\tgreen\t\t\tA\tc1\tl2\tdev\n")
    err = run_error(score(tmp_path, data, "index\tprediction\n1\tA\n"), capsys)
    # the one rule and message for a repeated ground-truth id (readers.join.check_unique)
    assert f"{data}: line 4: duplicate index 1 (first at {data}: line 2; pass --on-duplicate" in err


def test_duplicate_index_in_data_last_keeps_the_last_row(tmp_path: Path) -> None:
    """``--on-duplicate last`` is the one escape for a repeated data index too: the last row of
    index 1 (answer B, green) is kept, at the place of the first, and a warning counts it."""
    data = data_file(tmp_path, GOOD_ROWS + "1\tWhat?\t\tred\tgreen\t\t\tB\tc1\tl2\tdev\n")
    with pytest.raises(InputError, match="duplicate index 1"):
        load_mmbench_tsv(data)
    with pytest.warns(UserWarning, match="1 repeated index row"):
        rows = load_mmbench_tsv(data, on_duplicate="last").rows
    assert [(r.index, r.answer) for r in rows] == [(1, "B"), (1000001, "B")]


def test_duplicate_index_in_predictions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = data_file(tmp_path, GOOD_ROWS)
    err = run_error(score(tmp_path, data, "index\tprediction\n1\tA\n1\tB\n"), capsys)
    assert "preds.tsv: row 3 (index 1): duplicate index, first seen at row 2" in err


def test_bad_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = data_file(tmp_path, GOOD_ROWS)
    err = run_error(score(tmp_path, data, "index\tprediction\nq1\tA\n"), capsys)
    assert "preds.tsv: row 2: index 'q1' is not an integer" in err


def test_predictions_cover_none_of_the_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = data_file(tmp_path, GOOD_ROWS)
    err = run_error(score(tmp_path, data, "index\tprediction\n5\tA\n6\tB\n"), capsys)
    assert "cover none of the 2 rows" in err and str(data) in err and "preds.tsv" in err


def test_unreadable_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = data_file(tmp_path, GOOD_ROWS)
    missing = tmp_path / "nope.tsv"
    err = run_error(["mmbench", "--data", str(missing), "--predictions", str(data)], capsys)
    assert f"{missing}: cannot read" in err
    err = run_error(["mmbench", "--data", str(tmp_path), "--predictions", str(data)], capsys)
    assert f"{tmp_path}: cannot read" in err
    binary = tmp_path / "binary.tsv"
    binary.write_bytes(b"index\tprediction\n1\t\xff\xfe\n")
    err = run_error(["mmbench", "--data", str(data), "--predictions", str(binary)], capsys)
    assert f"{binary}: not UTF-8 text" in err


def test_invalid_jsonl_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = data_file(tmp_path, GOOD_ROWS)
    text = '{"index": 1, "prediction": "A"}\n\n{"index": 1000001, "prediction": "B"\n'
    err = run_error(score(tmp_path, data, text, name="p.jsonl"), capsys)
    assert "p.jsonl: line 3: invalid JSON" in err
    err = run_error(score(tmp_path, data, "[1, 2]\n", name="q.jsonl"), capsys)
    assert "q.jsonl: line 1: expected a JSON object" in err


def test_ragged_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = data_file(tmp_path, GOOD_ROWS + "2\tWhy?\tyes\n")
    err = run_error(score(tmp_path, data, "index\tprediction\n1\tA\n"), capsys)
    assert f"{data}: line 4: expected 11 fields like the header, got 3" in err


def test_json_predictions_without_the_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # JSON is read (the one reader layer); an empty object has neither column
    data = data_file(tmp_path, GOOD_ROWS)
    err = run_error(score(tmp_path, data, "{}", name="p.json"), capsys)
    assert "p.json: missing column(s) index, prediction (found: none)" in err


def test_corrupt_xlsx(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = data_file(tmp_path, GOOD_ROWS)
    err = run_error(score(tmp_path, data, "not a zip", name="p.xlsx"), capsys)
    assert "p.xlsx: not a readable .xlsx workbook" in err


def test_xlsx_without_openpyxl(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "openpyxl", None)  # makes `import openpyxl` fail
    data = data_file(tmp_path, GOOD_ROWS)
    err = run_error(score(tmp_path, data, "x", name="p.xlsx"), capsys)
    assert install_hint("xlsx") in err


def test_strict_circular_needs_copies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = data_file(tmp_path, "1\tWhat?\t\tred\tgreen\t\t\tA\tc1\tl2\tdev\n")
    err = run_error(score(tmp_path, data, "index\tprediction\n1\tA\n"), capsys)
    assert "question 1 has 2 options but 1 row(s)" in err and "mmbench-circular" in err
    # VanillaEval and the reference-compatible mode accept a plain file.
    assert main([*score(tmp_path, data, "index\tprediction\n1\tA\n"), "--mode", "vanilla"]) == 0
    capsys.readouterr()


def test_copy_without_pass0_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = data_file(tmp_path, "1000001\tWhat?\t\tgreen\tred\t\t\tB\tc1\tl2\tdev\n")
    err = run_error(score(tmp_path, data, "index\tprediction\n1000001\tA\n"), capsys)
    assert "index 1000001 is a circular copy of question 1" in err


def test_circular_input_already_circular(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = data_file(tmp_path, GOOD_ROWS)
    err = run_error(["mmbench-circular", str(data), str(tmp_path / "out.tsv")], capsys)
    assert f"{data}: line 3 (index 1000001): already a circular copy" in err


def test_circular_select_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = data_file(tmp_path, "1\tWhat?\t\tred\tgreen\t\t\tA\tc1\tl2\tdev\n")
    out = str(tmp_path / "o.tsv")
    err = run_error(["mmbench-circular", str(data), out, "--select", "lang"], capsys)
    assert "expected COLUMN=VALUE" in err
    err = run_error(["mmbench-circular", str(data), out, "--select", "lang=en"], capsys)
    assert "'lang' is not in the header" in err
    err = run_error(["mmbench-circular", str(data), out, "--select", "split=test"], capsys)
    assert "no rows left" in err
    err = run_error(["mmbench-circular", str(data), str(data)], capsys)
    assert "refusing to overwrite" in err


def test_unknown_extractor() -> None:
    with pytest.raises(UnknownNameError, match="valid: vlmevalkit, vlmevalkit-2025"):
        extract_choice("A", {"A": "x", "B": "y"}, extractor="vlmevalkit-2023")


def test_unknown_extractor_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = data_file(tmp_path, GOOD_ROWS)
    with pytest.raises(SystemExit) as exc:
        main([*score(tmp_path, data, "index\tprediction\n1\tA\n"), "--extractor", "nope"])
    assert exc.value.code == 2
    assert "invalid choice: 'nope'" in capsys.readouterr().err


def test_bad_choices_keys() -> None:
    with pytest.raises(InputError, match="single letters"):
        extract_choice("A", {"a": "x", "b": "y"})


def test_unknown_mode(tmp_path: Path) -> None:
    data = load_mmbench_tsv(data_file(tmp_path, GOOD_ROWS))
    with pytest.raises(UnknownNameError, match="valid: circular, vanilla"):
        evaluate_mmbench(data, {1: "A"}, mode="perfect")  # type: ignore[arg-type]
