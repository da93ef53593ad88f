"""Issue 22, the audit's wrong-type cells under the multiple-choice and math tasks: each task's
small valid input (``tests/contract/fixtures.py``) written as JSON lines with one cell of the
wrong JSON type — a prediction, an id, a breakdown key — was scored, its ``str()`` taken for
text. Each is now an error naming the file and line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the contract fixtures

from contract.fixtures import FIXTURES, write_sheet
from vqametrics import evaluate
from vqametrics.core.exceptions import InputError, MissingPredictionError

SHEET_TASKS = ["ai2d", "blink", "cvbench", "mmstar", "mmvp", "realworldqa", "scienceqa"]
SHEET_TASKS += ["seedbench"]
PREDICTION_TASKS = [*SHEET_TASKS, "mathvista", "mathvision", "hallusionbench", "mmmu-pro"]
NON_STRING: list[Any] = [1, 2.5, True, ["A"], {"a": "b"}]
BAD_IDS: list[Any] = [2.5, ["x"], {"a": 1}, True]
ID_TASKS = [*SHEET_TASKS, "mathvista", "mathvision", "hallusionbench", "mmmu-pro"]


def _write(task: str, folder: Path, change: dict[str, Any]) -> tuple[Path, dict[str, Any]]:
    """The task's fixture as JSON lines, *change* applied to its second row."""
    fx = FIXTURES[task]
    rows = [dict(r) for r in fx.rows]
    rows[1].update(change)
    path = folder / f"{fx.name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    options: dict[str, Any] = {}
    if fx.annotations is not None:
        options["annotations"] = str(fx.annotations(folder))
    return path, options


def _column(task: str, which: str) -> str:
    fx = FIXTURES[task]
    return fx.prediction_column if which == "prediction" else fx.id_column


@pytest.mark.parametrize("task", PREDICTION_TASKS)
def test_the_fixture_as_json_lines_scores(task: str, tmp_path: Path) -> None:
    # the control: the unchanged rows as JSON lines are valid input
    path, options = _write(task, tmp_path, {})
    assert evaluate(task, str(path), **options).metrics


# a prediction that is not text, an id of the wrong type; MMMU-Pro's object response has its
# own rule (evaluate.py reads it as ''): the next test
WRONG_TYPE_CASES = [
    *(
        pytest.param(task, "prediction", value, id=f"{task}-prediction-{value!r}")
        for task in PREDICTION_TASKS
        for value in NON_STRING
        if not (task == "mmmu-pro" and isinstance(value, dict))
    ),
    *(
        pytest.param(task, "id", value, id=f"{task}-id-{value!r}")
        for task in ID_TASKS
        for value in BAD_IDS
    ),
]


@pytest.mark.parametrize(("task", "which", "value"), WRONG_TYPE_CASES)
def test_a_cell_of_the_wrong_json_type_is_an_error_naming_the_line(
    task: str, which: str, value: Any, tmp_path: Path
) -> None:
    path, options = _write(task, tmp_path, {_column(task, which): value})
    with pytest.raises(InputError, match=rf"{path.name}: line 2\b"):
        evaluate(task, str(path), **options)


def test_mmmu_pro_an_object_response_is_an_error_unless_the_scripts_reading_is_asked_for(
    tmp_path: Path,
) -> None:
    # QUIRK dict-response: evaluate.py reads it as ''; the audit saw it scored without a word
    path, options = _write("mmmu-pro", tmp_path, {"response": {"a": "b"}})
    with pytest.raises(InputError, match=rf"{path.name}: line 2: 'response' is a JSON object"):
        evaluate("mmmu-pro", str(path), **options)
    result = evaluate("mmmu-pro", str(path), allow_missing=True, **options)
    assert len(result.scores) == 4
    said = [n for n in result.notes if "JSON objects" in n]
    assert said and f"{path.name}: line 2" in said[0]
    assert "missing:1" in result.signature.format()


@pytest.mark.parametrize("value", [None, "", "  "], ids=repr)
@pytest.mark.parametrize("task", ["hallusionbench", "mmmu-pro"])
def test_an_empty_id_is_an_error_naming_the_line(task: str, value: Any, tmp_path: Path) -> None:
    path, options = _write(task, tmp_path, {_column(task, "id"): value})
    with pytest.raises(InputError, match=rf"{path.name}: line 2\b"):
        evaluate(task, str(path), **options)


@pytest.mark.parametrize("value", [True, ["c1"], {"a": "c1"}], ids=repr)
@pytest.mark.parametrize("field", ["category", "split"])
@pytest.mark.parametrize("task", ["ai2d", "scienceqa", "mmstar"])
def test_a_breakdown_key_of_the_wrong_type_is_an_error_naming_the_line(
    task: str, field: str, value: Any, tmp_path: Path
) -> None:
    path, options = _write(task, tmp_path, {field: value})
    with pytest.raises(InputError, match=rf"{path.name}: line 2\b.*{field}"):
        evaluate(task, str(path), **options)


@pytest.mark.parametrize("value", [1, 2.5, True])
def test_mmbench_a_non_string_prediction_is_an_error_naming_the_line(
    value: Any, tmp_path: Path
) -> None:
    path, options = _write("mmbench", tmp_path, {"prediction": value})
    with pytest.raises(InputError, match=rf"{path.name}: line 2\b"):
        evaluate("mmbench", str(path), **options)


@pytest.mark.parametrize("grade", ["nan", "inf", "1e999", "-inf"])
def test_mmvet_a_non_finite_grade_is_an_error_naming_the_row(grade: str, tmp_path: Path) -> None:
    rows = [dict(r) for r in FIXTURES["mmvet"].rows]
    rows[1]["score"] = grade
    path = write_sheet(tmp_path / "results.tsv", rows)
    with pytest.raises(InputError, match=r"results\.tsv: row 3: .*judge grade"):
        evaluate("mmvet", str(path))


def test_mmvet_a_null_grade_is_an_error_unless_the_toolkits_nan_is_asked_for(
    tmp_path: Path,
) -> None:
    path, _ = _write("mmvet", tmp_path, {"score": None})
    with pytest.raises(InputError, match=rf"{path.name}: line 2: no judge grade"):
        evaluate("mmvet", str(path))
    allowed = evaluate("mmvet", str(path), allow_missing=True)
    assert any("NaN" in n for n in allowed.notes)


@pytest.mark.parametrize(
    "body",
    [b"index\tquestion\tanswer\tcategory\tprediction\tscore\n", b"\x00" * 64],
    ids=["header-only", "NUL-bytes"],
)
def test_mmvet_a_file_without_items_is_an_error(body: bytes, tmp_path: Path) -> None:
    path = tmp_path / "results.tsv"
    path.write_bytes(body)
    with pytest.raises(InputError, match=r"results\.tsv"):
        evaluate("mmvet", str(path))


def _mmbench(tmp_path: Path, rows: list[dict[str, Any]]) -> tuple[Path, str]:
    fx = FIXTURES["mmbench"]
    assert fx.annotations is not None
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path, str(fx.annotations(tmp_path))


def test_mmbench_a_missing_results_row_is_an_error_unless_allowed(tmp_path: Path) -> None:
    rows = [r for r in FIXTURES["mmbench"].rows if r["index"] != 1]
    path, data = _mmbench(tmp_path, rows)
    with pytest.raises(MissingPredictionError, match=r"no prediction for index 1 "):
        evaluate("mmbench", str(path), annotations=data)
    allowed = evaluate("mmbench", str(path), annotations=data, allow_missing=True)
    assert any("1 row(s)" in n and "index 1)" in n for n in allowed.notes)


def test_mmbench_a_prediction_for_an_unknown_index_is_an_error_unless_ignored(
    tmp_path: Path,
) -> None:
    # 1000102: a circular copy of question 102, which the data does not have
    rows = [*FIXTURES["mmbench"].rows, {"index": 1_000_102, "prediction": "A"}]
    path, data = _mmbench(tmp_path, rows)
    with pytest.raises(InputError, match=r"unknown index 1000102"):
        evaluate("mmbench", str(path), annotations=data)
    ignored = evaluate("mmbench", str(path), annotations=data, ignore_extra=True)
    assert any("1 prediction(s)" in n and "1000102" in n for n in ignored.notes)
    base = evaluate(
        "mmbench", str(_mmbench(tmp_path, FIXTURES["mmbench"].rows)[0]), annotations=data
    )
    assert ignored.metrics == base.metrics
