"""Bad inputs of MM-Vet, MMMU-Pro and MathVision (audit D: D2, D5, D7): a repeated id is an
error naming the file, the line and the id (``--on-duplicate last`` keeps the last), a grade
outside [0, 1] and an answer letter outside the options are errors naming the item."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.tasks import get_task
from vqametrics.tasks._base import TaskInputs
from vqametrics.tasks._run import evaluate_task


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _by_id(inputs: TaskInputs, task: str) -> dict[str, Any]:
    return {str(it.id): it for it in get_task(task).read(inputs).items}


# ---------------------------------------------------------------------------- MM-Vet (D2)

META = {
    "v1_0": {"question": "q0", "answer": "a", "capability": ["rec"], "imagename": "0.png"},
    "v1_1": {"question": "q1", "answer": "b", "capability": ["ocr"], "imagename": "1.png"},
    "v1_2": {"question": "q2", "answer": "c", "capability": ["rec", "ocr"], "imagename": "2"},
}


def _grade(score: Any) -> dict[str, Any]:
    return {"model": ["gpt-4-0613"], "content": ["0.5"], "score": score}


def _meta(tmp_path: Path) -> Path:
    path = tmp_path / "mm-vet.json"
    path.write_text(json.dumps(META), encoding="utf-8")
    return path


def _replies() -> list[dict[str, Any]]:
    return [
        {"question_id": "v1_0", "capability": "rec", "judge_reply": "1.0"},
        {"question_id": "v1_1", "capability": "ocr", "judge_reply": "0.5"},
        {"question_id": "v1_2", "capability": "rec,ocr", "judge_reply": "0.0"},
    ]


def test_mmvet_reply_record_given_twice_is_an_error(tmp_path: Path) -> None:
    rows = _replies()
    rows.append({"question_id": "v1_1", "capability": "ocr", "judge_reply": "0.2"})
    path = _jsonl(tmp_path / "replies.jsonl", rows)
    with pytest.raises(InputError) as err:
        evaluate_task("mmvet", path, profile="official")
    msg = str(err.value)
    assert str(path) in msg and "line 4" in msg and "'v1_1'" in msg and "line 2" in msg
    assert "on_duplicate='last'" in msg  # the API's spelling of --on-duplicate last


def test_mmvet_reply_record_given_twice_keeps_the_last(tmp_path: Path) -> None:
    rows = _replies()
    rows.append({"question_id": "v1_1", "capability": "ocr", "judge_reply": "0.2"})
    path = _jsonl(tmp_path / "replies.jsonl", rows)
    inputs = TaskInputs(path, on_duplicate="last", profile="official")
    data = get_task("mmvet").read(inputs)
    assert [it.id for it in data.items] == ["v1_0", "v1_1", "v1_2"]
    assert data.items[1].fields["judge_replies"] == ("0.2",)  # the last record's reply
    assert any("repeated question_id" in n and "last" in n for n in data.notes)


def test_mmvet_lmms_eval_question_in_two_samples_is_an_error(tmp_path: Path) -> None:
    # distinct doc_ids (not a repeated sample) of one question would count it twice
    lines = []
    for doc_id, qid in enumerate(["v1_0", "v1_1", "v1_0"]):
        doc = {"question_id": qid, "question": "q", "answer": "a", "capability": "rec"}
        rec = {"question_id": qid, "capabilities": "rec", "score": 0.5, "eval_model": "g"}
        lines.append({"doc_id": doc_id, "doc": doc, "target": "a", "filtered_resps": ["p"],
                      "gpt_eval_score": rec})  # fmt: skip
    path = _jsonl(tmp_path / "20250101_120000_samples_mmvet.jsonl", lines)
    with pytest.raises(InputError) as err:
        evaluate_task("mmvet", path, profile="lmms-eval")
    msg = str(err.value)
    assert str(path) in msg and "line 3" in msg and "'v1_0'" in msg


@pytest.mark.parametrize(
    ("score", "shown"),
    [([5.0], "5.0"), ([1.5], "1.5"), (-1, "-1"), ([-0.1], "-0.1"), ("2", "'2'")],
    ids=["list-5", "list-1.5", "scalar-neg", "list-neg", "text-2"],
)
def test_mmvet_grade_outside_0_1_is_an_error(tmp_path: Path, score: Any, shown: str) -> None:
    grades = {"v1_0": _grade([1.0]), "v1_1": _grade(score), "v1_2": _grade([0.0])}
    path = tmp_path / "m_gpt-4-0613-grade-1runs.json"
    path.write_text(json.dumps(grades), encoding="utf-8")
    with pytest.raises(InputError) as err:
        evaluate_task("mmvet", path, annotations=_meta(tmp_path), profile="official")
    msg = str(err.value)
    assert str(path) in msg and "'v1_1'" in msg and shown in msg
    assert "outside 0 to 1" in msg and "mm-vet_evaluator.py" in msg and "again" in msg


def test_mmvet_grade_outside_0_1_in_records_and_sheets(tmp_path: Path) -> None:
    rows = [
        {"question_id": "v1_0", "capability": "rec", "score": 0.5},
        {"question_id": "v1_1", "capability": "ocr", "score": 1.01},
    ]
    path = _jsonl(tmp_path / "grades.jsonl", rows)
    with pytest.raises(InputError, match=r"line 2: id 'v1_1': the judge grade 1\.01"):
        evaluate_task("mmvet", path, profile="official")
    sheet = [
        {"index": 0, "question": "q", "answer": "a", "category": "rec", "prediction": "p",
         "score": 0.5, "log": "Succeed"},
        {"index": 1, "question": "q", "answer": "a", "category": "ocr", "prediction": "p",
         "score": 3.0, "log": "Succeed"},
    ]  # fmt: skip
    with pytest.raises(InputError, match=r"item 2: id 1: the judge grade 3\.0 is outside"):
        evaluate_task("mmvet", sheet, profile="vlmevalkit")


def test_mmvet_grades_at_the_bounds_are_read(tmp_path: Path) -> None:
    grades = {"v1_0": _grade([1.0]), "v1_1": _grade(0), "v1_2": _grade([0.0])}
    path = tmp_path / "m_gpt-4-0613-grade-1runs.json"
    path.write_text(json.dumps(grades), encoding="utf-8")
    inputs = TaskInputs(path, _meta(tmp_path), profile="official")
    got = {k: it.fields["grade"] for k, it in _by_id(inputs, "mmvet").items()}
    assert got == {"v1_0": 1.0, "v1_1": 0.0, "v1_2": 0.0}


def _dupkey_file(tmp_path: Path) -> Path:
    # v1_0 first with grade 0.0, then the whole object again from v1_0 with grade 1.0
    body = {"v1_0": _grade([1.0]), "v1_1": _grade([0.5]), "v1_2": _grade([0.0])}
    first = json.dumps({"v1_0": _grade([0.0])})
    path = tmp_path / "m_gpt-4-0613-grade-1runs.json"
    path.write_text(first[:-1] + ",\n" + json.dumps(body)[1:], encoding="utf-8")
    return path


def test_mmvet_grade_file_with_a_repeated_key_is_an_error(tmp_path: Path) -> None:
    path = _dupkey_file(tmp_path)
    with pytest.raises(InputError) as err:
        evaluate_task("mmvet", path, annotations=_meta(tmp_path), profile="official")
    msg = str(err.value)
    assert msg.startswith(f"{path}: line 2: ") and "'v1_0'" in msg
    assert "on_duplicate='last'" in msg  # the API's spelling of --on-duplicate last


def test_mmvet_grade_file_with_a_repeated_key_keeps_the_last(tmp_path: Path) -> None:
    path = _dupkey_file(tmp_path)
    inputs = TaskInputs(path, _meta(tmp_path), on_duplicate="last", profile="official")
    data = get_task("mmvet").read(inputs)
    assert [it.id for it in data.items] == ["v1_0", "v1_1", "v1_2"]
    assert data.items[0].fields["grades"] == (1.0,)  # the second (last) v1_0 member
    assert any("1 repeated question id(s)" in n for n in data.notes)


def test_mmvet_repeated_key_through_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, meta = _dupkey_file(tmp_path), _meta(tmp_path)
    args = ["score", "mmvet", "--results", str(path), "--annotations", str(meta)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "'v1_0'" in err
    assert main([*args, "--on-duplicate", "last"]) == 0


def test_mmvet_official_answers_with_a_repeated_key(tmp_path: Path) -> None:
    # {id: answer}: read_records refuses the repeat; --on-duplicate last keeps the last answer
    path = tmp_path / "m.json"
    path.write_text('{"v1_0": "x", "v1_1": "y", "v1_2": "z", "v1_0": "w"}', encoding="utf-8")
    with pytest.raises(InputError) as err:
        evaluate_task("mmvet", path, annotations=_meta(tmp_path), profile="official")
    assert str(path) in str(err.value) and "'v1_0'" in str(err.value)
    inputs = TaskInputs(path, _meta(tmp_path), on_duplicate="last", profile="official")
    data = get_task("mmvet").read(inputs)
    assert {str(it.id): it.prediction for it in data.items}["v1_0"] == "w"
    assert any("1 repeated key(s)" in n for n in data.notes)


# ---------------------------------------------------------------------------- MMMU-Pro (D5)


def _pro_rows(options: list[str], answer: str) -> list[dict[str, Any]]:
    ten = str([f"opt{j}" for j in range(10)])
    return [
        {"id": "validation_Art_1", "options": ten, "answer": "B", "response": "Answer: B"},
        {"id": "validation_Art_2", "options": str(options), "answer": answer,
         "response": "Answer: A"},
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("n_options", "answer"),
    [(10, "K"), (3, "D"), (10, "a"), (10, "AB"), (4, "")],
    ids=["K-of-10", "D-of-3", "lower", "two-letters", "empty"],
)
def test_mmmu_pro_answer_not_an_option_letter(tmp_path: Path, n_options: int, answer: str) -> None:
    rows = _pro_rows([f"o{j}" for j in range(n_options)], answer)
    path = _jsonl(tmp_path / "m_standard_direct.jsonl", rows)
    with pytest.raises(InputError) as err:
        evaluate_task("mmmu-pro", path)
    msg = str(err.value)
    assert str(path) in msg and "line 2" in msg and "'validation_Art_2'" in msg
    assert f"answer {answer!r} is not an option letter of its {n_options} options" in msg
    assert "evaluate.py" in msg


def test_mmmu_pro_last_option_letter_is_accepted(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "m_standard_direct.jsonl", _pro_rows(["x", "y", "z"], "C"))
    inputs = TaskInputs(path, profile="official")
    items = _by_id(inputs, "mmmu-pro")
    assert items["validation_Art_2"].references == ("C",)
    assert list(items["validation_Art_2"].fields["options"]) == ["A", "B", "C"]


def test_mmmu_pro_lmms_doc_answer_not_an_option(tmp_path: Path) -> None:
    doc = {"id": "validation_Art_1", "question": "q", "options": str(["x", "y", "z"]),
           "answer": "E", "subject": "Art"}  # fmt: skip
    rec = {"id": "validation_Art_1", "subject": "Art", "answer": "E", "parsed_pred": "A"}
    line = {"doc_id": 0, "doc": doc, "target": "E", "filtered_resps": ["A"], "mmmu_acc": rec}
    path = _jsonl(tmp_path / "20250101_120000_samples_mmmu_pro_standard.jsonl", [line])
    with pytest.raises(InputError) as err:
        evaluate_task("mmmu-pro", path, profile="lmms-eval")
    msg = str(err.value)
    assert str(path) in msg and "'validation_Art_1'" in msg and "answer 'E'" in msg


# ---------------------------------------------------------------------------- MathVision (D7)

PROBLEMS = [
    {"id": "1", "answer": "B", "options": ["3", "4"], "subject": "algebra", "level": 1},
    {"id": "2", "answer": "7", "options": [], "subject": "counting", "level": 2},
    {"id": "3", "answer": "12", "options": [], "subject": "counting", "level": 3},
]
OUTPUTS = [{"id": str(i), "response": "The answer is 7"} for i in (1, 2, 3)]


def test_mathvision_problem_repeated_in_annotations_is_an_error(tmp_path: Path) -> None:
    ann = _jsonl(tmp_path / "test.jsonl", [*PROBLEMS, {**PROBLEMS[1], "answer": "8"}])
    out = _jsonl(tmp_path / "out.jsonl", OUTPUTS)
    with pytest.raises(InputError) as err:
        evaluate_task("mathvision", out, annotations=ann)
    msg = str(err.value)
    assert msg.startswith(f"{ann}: line 4: ") and "'2'" in msg and "line 2" in msg
    assert "on_duplicate='last'" in msg  # the API's spelling of --on-duplicate last


def test_mathvision_problem_repeated_with_an_int_id(tmp_path: Path) -> None:
    # 2 and "2" are one problem, as the join reads them
    ann = _jsonl(tmp_path / "test.jsonl", [*PROBLEMS, {**PROBLEMS[1], "id": 2}])
    out = _jsonl(tmp_path / "out.jsonl", OUTPUTS)
    with pytest.raises(InputError, match=r"line 4: duplicate problem id 2 "):
        evaluate_task("mathvision", out, annotations=ann)


def test_mathvision_problem_repeated_in_annotations_keeps_the_last(tmp_path: Path) -> None:
    ann = _jsonl(tmp_path / "test.jsonl", [*PROBLEMS, {**PROBLEMS[1], "answer": "8"}])
    out = _jsonl(tmp_path / "out.jsonl", OUTPUTS)
    inputs = TaskInputs(out, ann, on_duplicate="last", profile="official")
    data = get_task("mathvision").read(inputs)
    assert [it.id for it in data.items] == ["1", "2", "3"]
    assert data.items[1].references == ("8",)  # the last line's answer
    assert any(str(ann) in n and "1 repeated problem id" in n for n in data.notes)


def test_mathvision_repeated_annotation_through_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ann = _jsonl(tmp_path / "test.jsonl", [*PROBLEMS, PROBLEMS[2]])
    out = _jsonl(tmp_path / "out.jsonl", OUTPUTS)
    args = ["score", "mathvision", "--results", str(out), "--annotations", str(ann)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert str(ann) in err and "'3'" in err
    assert main([*args, "--on-duplicate", "last"]) == 0
