"""A fault found while scoring or aggregating a whole run names the file it is in, and an
MMBench sheet's own fault is reported as it is, not as a missing ``--annotations``."""

from __future__ import annotations

from pathlib import Path

import pytest

from vqametrics.cli import main


def _error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    return err


def test_an_aggregate_fault_names_the_results_file(
    shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a POPE sheet scored as MME: calculation.py pairs consecutive lines (two per image), and
    # POPE's split "random" has an odd count (1415): the scorer's fault, in this file
    sheet = shared_data / "pope" / "vlmevalkit" / "vila_8b_POPE.xlsx"
    err = _error(capsys, ["score", "mme", "--results", str(sheet)])
    assert err.startswith(f"vqametrics: error: {sheet}: random: 1415 questions, an odd number")


def test_a_score_fault_names_the_results_file(
    shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # an MME sheet scored as POPE: no true "yes" in a split, and the official script divides
    # by zero computing F1
    sheet = shared_data / "mme" / "vlmevalkit" / "vila_8b_MME.xlsx"
    err = _error(capsys, ["score", "pope", "--results", str(sheet)])
    assert err.startswith(f"vqametrics: error: {sheet}: split ")
    assert "divides by zero" in err


HEADER = "index\tquestion\tA\tB\tanswer\tcategory\tprediction"


def _sheet(tmp_path: Path, *rows: str, header: str = HEADER) -> Path:
    path = tmp_path / "model_MMBench_DEV_EN.tsv"
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return path


def test_a_sheets_duplicate_index_is_reported_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = _sheet(tmp_path, "1\tq\tcat\tdog\tA\tc\tA", "1\tq\tcat\tdog\tA\tc\tB")
    err = _error(capsys, ["score", "mmbench", "--results", str(sheet)])
    assert f"{sheet}: line 3" in err and "duplicate index 1" in err
    assert "--annotations" not in err  # the sheet carries the benchmark: its fault is its own


def test_a_sheet_without_the_benchmarks_columns_asks_for_annotations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = _sheet(
        tmp_path, "1\tq\tcat\tdog\tc\tA", header="index\tquestion\tA\tB\tcategory\tprediction"
    )
    err = _error(capsys, ["score", "mmbench", "--results", str(sheet)])
    assert err.startswith(f"vqametrics: error: {sheet}: missing column(s) answer")
    assert err.endswith("so --annotations (the benchmark TSV) is required")


def test_json_predictions_without_annotations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    preds = tmp_path / "preds.json"
    preds.write_text('[{"question_id": 1, "answer": "A"}]', encoding="utf-8")
    err = _error(capsys, ["score", "mmbench", "--results", str(preds)])
    assert err.endswith(
        f"is required: {preds} is JSON, not a VLMEvalKit sheet carrying the benchmark"
    )


def test_the_fault_names_the_results_not_the_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # every answer "No": evaluate.py divides by zero computing precision; the answers are at
    # fault, and a POPE run's sources list the answers before the label file
    labels = tmp_path / "coco_pope_random.json"
    labels.write_text('{"label": "yes"}\n{"label": "no"}\n', encoding="utf-8")
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"answer": "No"}\n{"answer": "No"}\n', encoding="utf-8")
    argv = ["score", "pope", "--results", str(answers), "--annotations", str(labels)]
    err = _error(capsys, argv)
    assert err.startswith(f"vqametrics: error: {answers}: split random: ")
    assert str(labels) not in err
