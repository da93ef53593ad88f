"""Issue 22, ``--answer-field`` / ``--id-field`` under the multiple-choice and judged tasks: each
task's small valid input (``tests/contract/fixtures.py``) with its prediction (or id) column
renamed and the option naming it was refused ("no 'prediction' column") or read as another
layout. The named column now always wins over a recognized one; a layout whose keys are fixed
says so (an error, or a note when only the id cannot apply). The expected numbers are the
fixture's own: the same data, only its column named otherwise."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the contract fixtures

from contract.fixtures import FIXTURES
from vqametrics.core.exceptions import InputError
from vqametrics.tasks._run import evaluate_task

SHEET_TASKS = ["ai2d", "blink", "cvbench", "mmstar", "mmvp", "realworldqa", "scienceqa"]
SHEET_TASKS += ["seedbench"]
TASKS = [*SHEET_TASKS, "mmmu", "mmmu-pro", "mathvista", "mathvision", "mmvet", "hallusionbench"]
#: tasks whose id names the item (HallusionBench keys each question by its record's fields)
ID_TASKS = [t for t in TASKS if t != "hallusionbench"]


def _score(task: str, folder: Path, rows: list[dict[str, Any]], **options: Any) -> Any:
    fx = FIXTURES[task]
    folder.mkdir(parents=True, exist_ok=True)
    path = fx.write(folder, rows)
    if fx.annotations is not None:
        options["annotations"] = str(fx.annotations(folder))
    return evaluate_task(task, str(path), **fx.options, **options)


def _renamed(rows: list[dict[str, Any]], old: str, new: str) -> list[dict[str, Any]]:
    return [{(new if k == old else k): v for k, v in r.items()} for r in rows]


def _same_as_the_fixture(
    task: str, folder: Path, rows: list[dict[str, Any]], **options: Any
) -> None:
    """*rows* scored with *options* give the fixture's own numbers, for the same items."""
    want = _score(task, folder / "native", FIXTURES[task].rows)
    got = _score(task, folder / "changed", rows, **options)
    assert got.metrics == want.metrics
    assert sorted(str(it.id) for it in got.data.items) == sorted(
        str(it.id) for it in want.data.items
    )


RENAMED = [(t, "answer_field") for t in TASKS] + [(t, "id_field") for t in ID_TASKS]


@pytest.mark.parametrize(("task", "option"), RENAMED)
def test_the_option_names_the_renamed_column(task: str, option: str, tmp_path: Path) -> None:
    fx = FIXTURES[task]
    column = fx.prediction_column if option == "answer_field" else fx.id_column
    rows = _renamed(fx.rows, column, "zz_col")
    _same_as_the_fixture(task, tmp_path, rows, **{option: "zz_col"})


@pytest.mark.parametrize("task", TASKS)
def test_answer_field_wins_over_a_recognized_column(task: str, tmp_path: Path) -> None:
    # the recognized column holds other answers: scoring it would change the numbers
    column = FIXTURES[task].prediction_column
    rows = [{**r, "zz_pred": r[column], column: "zzz unreadable"} for r in FIXTURES[task].rows]
    _same_as_the_fixture(task, tmp_path, rows, answer_field="zz_pred")


@pytest.mark.parametrize("task", TASKS)
def test_a_named_column_the_file_lacks_is_an_error_naming_it(task: str, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="'nope'"):
        _score(task, tmp_path, FIXTURES[task].rows, answer_field="nope")


def test_hallusionbench_id_field_is_checked_and_said_unused(tmp_path: Path) -> None:
    fx = FIXTURES["hallusionbench"]
    rows = _renamed(fx.rows, "index", "zz_id")
    got = _score("hallusionbench", tmp_path / "ok", rows, id_field="zz_id")
    assert any("--id-field zz_id is not used" in n for n in got.data.notes)
    bad = [dict(r) for r in rows]
    bad[1]["zz_id"] = 2.5
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in bad), encoding="utf-8")
    with pytest.raises(InputError, match="line 2: zz_id is float"):
        evaluate_task("hallusionbench", str(path), id_field="zz_id")


def test_mmmu_official_mapping_refuses_the_options(tmp_path: Path) -> None:
    results = tmp_path / "answers.json"
    results.write_text(json.dumps({"validation_Art_1": "A"}), encoding="utf-8")
    truth = tmp_path / "answer_dict_val.json"
    truth.write_text(json.dumps({"validation_Art_1": "A"}), encoding="utf-8")
    with pytest.raises(InputError, match="cannot be used with the official"):
        evaluate_task("mmmu", str(results), annotations=str(truth), answer_field="x")


def _ai2d_log(path: Path, question_id: Any) -> str:
    rows = []
    for i, pred in enumerate(["A", "B"]):
        doc = {"question_id": question_id if i == 1 else "q0", "question": "q"}
        doc |= {"options": ["cat", "dog"], "answer": str(i)}
        rows.append(
            {"doc_id": i, "doc": doc, "target": "AB"[i], "resps": [[pred]]}
            | {"filtered_resps": [pred], "exact_match": 1.0}
        )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def test_lmms_doc_id_control_scores(tmp_path: Path) -> None:
    r = evaluate_task("ai2d", _ai2d_log(tmp_path / "s_ai2d.jsonl", "q1"), profile="lmms-eval")
    assert [it.id for it in r.data.items] == ["q0", "q1"]


@pytest.mark.parametrize("value", [["x"], {"a": 1}, True, 2.5], ids=repr)
def test_lmms_doc_id_of_the_wrong_type_is_an_error_naming_the_line(
    value: Any, tmp_path: Path
) -> None:
    # before: a list/object id was str()-ed, a boolean or fraction fell back to doc_id
    path = _ai2d_log(tmp_path / "s_ai2d.jsonl", value)
    with pytest.raises(InputError, match=r"line 2: doc\.question_id is"):
        evaluate_task("ai2d", path, profile="lmms-eval")


@pytest.mark.parametrize("value", [["x"], {"a": 1}, True], ids=repr)
def test_mmmu_pro_lmms_id_of_the_wrong_type_is_an_error_naming_the_line(
    value: Any, tmp_path: Path
) -> None:
    rows = []
    for i in range(2):
        doc = {"id": value if i == 1 else "test_Art_0", "subject": "Art", "answer": "A"}
        doc |= {"question": "q", "options": str(["cat", "dog"])}
        rows.append({"doc_id": i, "doc": doc, "target": "A", "filtered_resps": ["A"]})
    path = tmp_path / "s_mmmu_pro.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(InputError, match=r"line 2: doc\.id is"):
        evaluate_task("mmmu-pro", str(path))
