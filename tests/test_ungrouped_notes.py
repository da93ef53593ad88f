"""An item without the field a breakdown groups by is left out of that breakdown, and a note
says so, naming it: no item leaves a breakdown unsaid (audit item D4). The overall numbers still
count it. Expected counts and ids are worked out by hand from the inputs below."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from vqametrics import evaluate
from vqametrics.readers.items import Item
from vqametrics.tasks._common import ungrouped_note

OPTIONS = {"A": "alpha", "B": "beta", "C": "gamma", "D": "delta"}


def _said(notes: tuple[str, ...] | list[str]) -> list[str]:
    return [n for n in notes if " have no " in n]


def test_the_note_counts_and_names_the_items_without_the_field() -> None:
    items = [Item(f"q{i}", "a", ("a",)) for i in range(8)]
    keys = ["x", None, "y", None, None, None, None, None]
    (note,) = ungrouped_note(items, keys, "category")
    assert note.startswith("6 of 8 items have no category (ids q1, q3, q4, q5, q6, …)")
    assert note.endswith("they count in the overall score but not in the category breakdown")


def test_nothing_is_said_when_every_item_or_none_has_the_field() -> None:
    items = [Item(i, "a", ("a",)) for i in range(3)]
    assert ungrouped_note(items, ["x", "y", "x"], "split") == ()
    assert ungrouped_note(items, [None, None, None], "split") == ()  # no breakdown at all


def test_the_breakdown_may_be_named_apart_from_its_field() -> None:
    items = [Item(i, "a", ("a",)) for i in range(2)]
    (note,) = ungrouped_note(items, ["other", None], "answer_type", "perAnswerType")
    assert note.startswith("1 of 2 items have no answer_type (ids 1)")
    assert note.endswith("not in the perAnswerType breakdown")


def _mcq_rows() -> list[dict[str, Any]]:
    rows = []
    for i, (answer, pred, cat) in enumerate(
        [("A", "A", "math"), ("B", "C", "math"), ("C", "C", None), ("D", "D", "science")]
    ):
        row: dict[str, Any] = {"index": i, "question": "q", **OPTIONS, "answer": answer}
        row["prediction"] = pred
        if cat is not None:
            row["category"] = cat
        rows.append(row)
    return rows


def test_a_vlmevalkit_multiple_choice_row_without_a_category() -> None:
    r = evaluate("mmstar", _mcq_rows(), profile="vlmevalkit")
    assert r.scores == [1.0, 0.0, 1.0, 1.0]
    assert r.metrics["Overall"] == 0.75  # row 2 counts overall
    cats = r.aggregate.breakdowns["category"]
    assert {g: m["n"] for g, m in cats.items()} == {"math": 2, "science": 1}
    (note,) = _said(r.notes)
    assert note.startswith("1 of 4 items have no category (ids 2)")


def test_every_row_with_its_category_says_nothing() -> None:
    rows = _mcq_rows()
    rows[2]["category"] = "math"
    assert _said(evaluate("mmstar", rows, profile="vlmevalkit").notes) == []


def test_a_chartqa_row_without_a_split() -> None:
    rows = [
        {"index": 1, "question": "q", "answer": "7", "prediction": "7", "split": "test_human"},
        {"index": 2, "question": "q", "answer": "7", "prediction": "8", "split": "test_human"},
        {"index": 3, "question": "q", "answer": "7", "prediction": "7"},
    ]
    for profile in ("official", "lmms-eval", "vlmevalkit"):
        r = evaluate("chartqa", rows, profile=profile)
        (note,) = _said(r.notes)
        assert note.startswith("1 of 3 items have no split (ids 3)"), profile


def _vizwiz(types: list[str | None]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    ann: list[dict[str, Any]] = []
    for i, t in enumerate(types):
        rec: dict[str, Any] = {
            "image": f"VizWiz_val_{i:08d}.jpg",
            "question": "what is this?",
            "answers": [{"answer": "milk", "answer_confidence": "yes"}] * 10,
            "answerable": 1,
        }
        if t is not None:
            rec["answer_type"] = t
        ann.append(rec)
    res = [{"image": a["image"], "answer": "milk"} for a in ann]
    return ann, res


def test_a_vizwiz_question_without_an_answer_type() -> None:
    ann, res = _vizwiz(["other", None, "other"])
    r = evaluate("vizwiz", res, annotations=ann)
    assert r.metrics["overall"] == 100.0
    assert r.aggregate.breakdowns["perAnswerType"]["other"]["n"] == 2
    (note,) = _said(r.notes)
    assert note.startswith("1 of 3 items have no answer_type (ids VizWiz_val_00000001.jpg)")
    assert note.endswith("not in the perAnswerType breakdown")


@given(st.lists(st.sampled_from(["other", "number", None]), min_size=1, max_size=12))
def test_every_question_is_in_a_group_or_in_the_note(types: list[str | None]) -> None:
    ann, res = _vizwiz(types)
    r = evaluate("vizwiz", res, annotations=ann)
    grouped = sum(int(m["n"]) for m in r.aggregate.breakdowns.get("perAnswerType", {}).values())
    missing = types.count(None)
    said = _said(r.notes)
    if 0 < missing < len(types):
        (note,) = said
        assert note.startswith(f"{missing} of {len(types)} items have no answer_type")
        assert grouped + missing == len(types)
    else:
        assert said == []
        assert grouped == (len(types) if missing == 0 else 0)


def _lines(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_mathvision_problem_without_a_level(tmp_path: Path) -> None:
    ann = _lines(
        tmp_path / "test.jsonl",
        [
            {"id": "1", "answer": "12", "options": [], "subject": "algebra", "level": 1},
            {"id": "2", "answer": "12", "options": [], "subject": "algebra"},
        ],
    )
    out = _lines(
        tmp_path / "model.jsonl",
        [{"id": "1", "response": "12"}, {"id": "2", "response": "12"}],
    )
    r = evaluate("mathvision", out, annotations=ann)
    assert r.metrics["correct"] == 2  # problem 2 counts overall
    assert r.aggregate.breakdowns["level"] == {
        "level1": {"accuracy": 100.0, "correct": 1, "total": 1}
    }
    (note,) = _said(r.notes)
    assert note.startswith("1 of 2 items have no level (ids 2)")


def test_a_vqa_question_without_a_type_is_said_once() -> None:
    """VQA v2's reader says this itself (in its own words): one note per field, not two."""
    annotations = {
        "annotations": [
            {
                "question_id": qid,
                "image_id": 1,
                "answers": [{"answer": "yes", "answer_id": j + 1} for j in range(10)],
                "multiple_choice_answer": "yes",
                **({"question_type": "is the", "answer_type": "yes/no"} if qid != 2 else {}),
            }
            for qid in (1, 2, 3)
        ]
    }
    header = {k: "" for k in ("info", "task_type", "data_type", "data_subtype", "license")}
    annotations |= header
    questions = {
        "questions": [{"question_id": q, "image_id": 1, "question": "is it?"} for q in (1, 2, 3)]
    } | header
    results = [{"question_id": q, "answer": "yes"} for q in (1, 2, 3)]
    r = evaluate("vqav2", results, annotations=annotations, questions=questions)
    assert r.metrics["overall"] == 100.0
    assert r.aggregate.breakdowns["answer_type"]["yes/no"]["n"] == 2
    assert _said(r.notes) == [
        "1 question(s) have no question_type: they count in the overall score but not in the "
        "per-question type breakdown",
        "1 question(s) have no answer_type: they count in the overall score but not in the "
        "per-answer type breakdown",
    ]
