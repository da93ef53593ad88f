"""Issue 22: ``--answer-field`` and ``--id-field`` always win over the columns a reader
recognizes. The audit renamed a task's contract fixture's prediction column to ``zz_pred``
(or its id column to ``zz_id``) and passed the option: the numbers must be the fixture's.
It also found ids kept twice across JSON types, a byte-string ground truth that raised a
foreign exception, and breakdown keys stringified from JSON lists and objects."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from contract.fixtures import FIXTURES, Row
from vqametrics import InputError, VqaMetricsError
from vqametrics.tasks import get_task
from vqametrics.tasks._run import TaskEvaluation, evaluate_task

#: the tasks the audit found refusing (or ignoring) the options, and those that passed already
TASKS = [
    "textvqa",
    "vizwiz",
    "ocrvqa",
    "pope",
    "mme",
    "chartqa",
    "gqa",
    "ocrbench",
    "vqav2",
    "okvqa",
    "docvqa",
    "infographicvqa",
    "stvqa",
]


def _evaluate(name: str, tmp: Path, rows: list[Row], **options: Any) -> TaskEvaluation:
    fx = FIXTURES[name]
    tmp.mkdir(parents=True, exist_ok=True)
    results = fx.write(tmp, rows)
    annotations = fx.annotations(tmp) if fx.annotations else None
    return evaluate_task(
        get_task(name),
        str(results),
        annotations=annotations and str(annotations),
        **fx.options,
        **options,
    )


def _same_numbers(a: TaskEvaluation, b: TaskEvaluation) -> None:
    assert a.metrics.keys() == b.metrics.keys()
    for key, value in a.metrics.items():
        other = b.metrics[key]
        if isinstance(value, float) and math.isnan(value):
            assert isinstance(other, float) and math.isnan(other), key
        else:
            assert other == value, key
    assert a.scores == b.scores


def _renamed(rows: list[Row], old: str, new: str) -> list[Row]:
    return [{(new if k == old else k): v for k, v in r.items()} for r in rows]


@pytest.mark.parametrize("option", ["answer_field", "id_field"])
@pytest.mark.parametrize("name", TASKS)
def test_the_field_options_name_a_renamed_column(name: str, option: str, tmp_path: Path) -> None:
    # --answer-field zz_pred with the prediction column renamed (--id-field zz_id: the id)
    fx = FIXTURES[name]
    plain = _evaluate(name, tmp_path / "plain", fx.rows)
    column = fx.prediction_column if option == "answer_field" else fx.id_column
    new = "zz_pred" if option == "answer_field" else "zz_id"
    renamed = _evaluate(name, tmp_path / "renamed", _renamed(fx.rows, column, new), **{option: new})
    _same_numbers(plain, renamed)


def _jsonl(folder: Path, rows: list[Row]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "results.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["vqav2", "okvqa"])
def test_an_id_written_as_int_and_as_str_is_one_item_given_twice(name: str, tmp_path: Path) -> None:
    # the audit: {"index": 1, …} and {"index": "1", …} in one JSONL scored n=5 for 4 items
    fx = FIXTURES[name]
    rows = [r | {fx.id_column: int(r[fx.id_column])} for r in fx.rows]
    again = rows[0] | {fx.id_column: str(rows[0][fx.id_column])}
    path = _jsonl(tmp_path, [*rows, again])
    with pytest.raises(InputError, match="duplicate question id") as err:
        evaluate_task(get_task(name), str(path), **fx.options)
    assert str(path) in str(err.value)
    kept = evaluate_task(get_task(name), str(path), on_duplicate="last", **fx.options)
    assert kept.metrics["n"] == len(rows)


@pytest.mark.parametrize("name", ["textvqa", "docvqa", "chartqa"])
def test_a_ground_truth_of_bytes_not_utf8_is_the_librarys_error(name: str) -> None:
    # the audit: compute_score(task, "a", b"\xff") raised UnicodeDecodeError
    from vqametrics.integrations.rewards import compute_score

    with pytest.raises(InputError, match="not UTF-8") as err:
        compute_score(name, "a", b"\xff")
    assert isinstance(err.value, VqaMetricsError) and name in str(err.value)


@pytest.mark.parametrize("value", [True, ["human_test"], {"a": 1}])
@pytest.mark.parametrize(("name", "column"), [("chartqa", "split"), ("mme", "image_path")])
def test_a_breakdown_key_that_is_not_text_is_refused(
    name: str, column: str, value: object, tmp_path: Path
) -> None:
    # the audit: a JSONL split true / a list / an object became a made-up breakdown key
    fx = FIXTURES[name]
    rows = [dict(r) for r in fx.rows]
    rows[1][column] = value
    path = _jsonl(tmp_path, rows)
    with pytest.raises(InputError) as err:
        evaluate_task(get_task(name), str(path), **fx.options)
    assert f"{path}: line 2" in str(err.value) and repr(column) in str(err.value)


def test_a_chartqa_log_doc_type_that_is_not_text_is_refused(tmp_path: Path) -> None:
    doc = {"question": "q", "answer": "1", "type": "human_test"}
    rows = [
        {"doc_id": i, "doc": doc | ({"type": ["x"]} if i == 1 else {}), "filtered_resps": ["1"]}
        for i in range(3)
    ]
    path = _jsonl(tmp_path, rows)
    with pytest.raises(InputError) as err:
        evaluate_task(get_task("chartqa"), str(path))
    assert f"{path}: line 2" in str(err.value) and "'type'" in str(err.value)


def test_pope_answers_take_their_question_id_from_id_field(tmp_path: Path) -> None:
    # LLaVA's answers with the id renamed: --id-field names it for the question file lookup
    questions = _jsonl(
        tmp_path / "q",
        [{"question_id": 1, "category": "random"}, {"question_id": 2, "category": "random"}],
    )
    answers = [{"qid": 2, "text": "No"}, {"qid": 1, "text": "Yes"}]
    res = _jsonl(tmp_path / "a", answers)
    lab = tmp_path / "coco_pope_random.json"
    lab.write_text(json.dumps({"label": "no"}) + "\n" + json.dumps({"label": "yes"}) + "\n")
    pope = get_task("pope")
    with pytest.raises(InputError, match="no 'question_id' to look up"):
        evaluate_task(pope, str(res), annotations=str(lab), questions=str(questions))
    r = evaluate_task(
        pope, str(res), annotations=str(lab), questions=str(questions), id_field="qid"
    )
    assert r.metrics["n"] == 2 and r.metrics["f1"] == 1.0  # by hand: each answer is its label
    with pytest.raises(InputError, match="no 'qid' field"):
        evaluate_task(
            pope,
            str(_jsonl(tmp_path / "b", [{"question_id": 1, "text": "Yes"}])),
            annotations=str(lab),
            id_field="qid",
        )
    with pytest.raises(InputError, match="qid 3 is not in the question file"):
        evaluate_task(
            pope,
            str(_jsonl(tmp_path / "c", [{"qid": 3, "text": "No"}, {"qid": 1, "text": "Yes"}])),
            annotations=str(lab),
            questions=str(questions),
            id_field="qid",
        )


@pytest.mark.parametrize("option", ["answer_field", "id_field"])
def test_an_mme_eval_tool_folder_says_the_field_options_are_not_used(
    option: str, tmp_path: Path
) -> None:
    (tmp_path / "existence.txt").write_text("1.jpg\tIs there a cat?\tYes\tYes\n")
    with pytest.raises(InputError, match="is not used by an eval_tool results folder"):
        evaluate_task(get_task("mme"), str(tmp_path), **{option: "text"})


def test_a_pope_answer_category_that_is_not_text_is_refused(tmp_path: Path) -> None:
    # a JSON category (the split a folder of label files is paired by) must be text
    labels = tmp_path / "labels"
    labels.mkdir()
    for split in ("random", "popular", "adversarial"):
        (labels / f"coco_pope_{split}.json").write_text(json.dumps({"label": "yes"}) + "\n")
    rows = [{"answer": "yes", "category": s} for s in ("random", "popular", "adversarial")]
    rows[1]["category"] = ["popular"]
    res = _jsonl(tmp_path / "a", rows)
    with pytest.raises(InputError) as err:
        evaluate_task(get_task("pope"), str(res), annotations=str(labels))
    assert f"{res}: line 2" in str(err.value) and "'category' is list" in str(err.value)
