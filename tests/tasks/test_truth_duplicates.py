"""A repeated item in a ground truth, or in a log that carries one, by the one rule (issue 22):
an error naming both places, unless ``on_duplicate="last"``, which keeps the last row and says
how many were dropped. Written from the repros: TextVQA and VizWiz kept the last annotation
row of a repeated id without a word; OCRBench refused a log whose doc_id repeats even when
asked to keep the last."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vqametrics.core.exceptions import InputError
from vqametrics.tasks._run import evaluate_task


def _json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# -- TextVQA ---------------------------------------------------------------------------------


def _textvqa_truth(tmp_path: Path) -> Path:
    # question 1 twice: first with ten "x", then with ten "y"
    rows = [
        {"question_id": 1, "question": "q1", "image_id": "a", "answers": ["x"] * 10},
        {"question_id": 1, "question": "q1", "image_id": "a", "answers": ["y"] * 10},
        {"question_id": 2, "question": "q2", "image_id": "b", "answers": ["z"] * 10},
    ]
    return _json(tmp_path / "TextVQA_val.json", {"dataset_type": "val", "data": rows})


def test_textvqa_repeated_question_is_an_error(tmp_path: Path) -> None:
    results = _json(tmp_path / "res.json", [{"question_id": 1, "answer": "y"}])
    with pytest.raises(InputError, match=r"item 2: duplicate question id 1 \(first at .*item 1"):
        evaluate_task("textvqa", results, annotations=_textvqa_truth(tmp_path))


def test_textvqa_repeated_question_kept_last_with_a_note(tmp_path: Path) -> None:
    results = _json(
        tmp_path / "res.json",
        [{"question_id": 1, "answer": "y"}, {"question_id": 2, "answer": "z"}],
    )
    ev = evaluate_task(
        "textvqa", results, annotations=_textvqa_truth(tmp_path), on_duplicate="last"
    )
    # the last row of question 1 (ten "y") is its ground truth: both predictions are right
    assert ev.metrics["accuracy"] == 1.0
    assert ev.metrics["n"] == 2
    assert any("1 repeated question id row(s)" in n for n in ev.notes), ev.notes


def test_textvqa_lmms_eval_log_repeated_prediction_kept_last_with_a_note(
    tmp_path: Path,
) -> None:
    # a log with doc joined to the annotations by doc.question_id; question 2 logged twice
    # under two doc_ids (so not the same sample again): the last prediction is kept
    def row(doc_id: int, qid: int, answer: str) -> dict[str, Any]:
        doc = {"question_id": qid, "question": "q", "answers": ["z"] * 10}
        return {"doc_id": doc_id, "doc": doc, "filtered_resps": [answer], "exact_match": 1.0}

    truth = _json(
        tmp_path / "TextVQA_val.json",
        {"data": [{"question_id": 2, "question": "q2", "image_id": "b", "answers": ["z"] * 10}]},
    )
    log = _jsonl(tmp_path / "samples_textvqa_val.jsonl", [row(0, 2, "no"), row(1, 2, "z")])
    with pytest.raises(InputError, match="duplicate"):
        evaluate_task("textvqa", log, annotations=truth)
    ev = evaluate_task("textvqa", log, annotations=truth, on_duplicate="last")
    assert ev.metrics["accuracy"] == 1.0
    assert any("1 repeated prediction(s)" in n for n in ev.notes), ev.notes


# -- VizWiz ----------------------------------------------------------------------------------


def _vizwiz_truth(tmp_path: Path) -> Path:
    def row(image: str, answer: str) -> dict[str, Any]:
        answers = [{"answer": answer, "answer_confidence": "yes"}] * 10
        return {"image": image, "question": "q", "answers": answers, "answer_type": "other"}

    return _json(tmp_path / "val.json", [row("a.jpg", "x"), row("a.jpg", "y"), row("b.jpg", "z")])


def test_vizwiz_repeated_image_is_an_error(tmp_path: Path) -> None:
    results = _json(tmp_path / "res.json", [{"image": "a.jpg", "answer": "y"}])
    with pytest.raises(InputError, match=r"duplicate image 'a.jpg' \(first at"):
        evaluate_task("vizwiz", results, annotations=_vizwiz_truth(tmp_path))


def test_vizwiz_repeated_image_kept_last_with_a_note(tmp_path: Path) -> None:
    results = _json(
        tmp_path / "res.json",
        [{"image": "a.jpg", "answer": "y"}, {"image": "b.jpg", "answer": "z"}],
    )
    ev = evaluate_task("vizwiz", results, annotations=_vizwiz_truth(tmp_path), on_duplicate="last")
    # the last row of a.jpg (ten "y") is kept: both answers match all ten, 100 %
    assert ev.metrics["overall"] == 100.0
    assert any("1 repeated image row(s)" in n for n in ev.notes), ev.notes


# -- OCRBench --------------------------------------------------------------------------------


def _ocrbench_row(doc_id: int, question: str, answer: str, predict: str) -> dict[str, Any]:
    doc = {
        "dataset": "IIIT5K",
        "question": question,
        "question_type": "Regular Text Recognition",
        "answer": [answer],
    }
    return {"doc_id": doc_id, "doc": doc, "target": [answer], "filtered_resps": [predict]}


def _ocrbench_log(tmp_path: Path) -> Path:
    # doc_id 0 twice with different docs (two logs mixed): not one sample repeated
    rows = [
        _ocrbench_row(0, "first", "cat", "dog"),
        _ocrbench_row(0, "second", "dog", "dog"),
        _ocrbench_row(1, "third", "sun", "sun"),
    ]
    return _jsonl(tmp_path / "samples_ocrbench.jsonl", rows)


def test_ocrbench_log_repeated_doc_id_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"duplicate doc_id 0 \(first at .*on.duplicate.*last"):
        evaluate_task("ocrbench", _ocrbench_log(tmp_path))


def test_ocrbench_log_repeated_doc_id_kept_last_with_a_note(tmp_path: Path) -> None:
    # it used to refuse the file even with on_duplicate="last"
    ev = evaluate_task("ocrbench", _ocrbench_log(tmp_path), on_duplicate="last")
    # the last doc 0 ("dog" in "dog") and doc 1 ("sun" in "sun"): two correct of two items
    assert ev.metrics["correct"] == 2
    assert ev.metrics["n"] == 2
    assert any("1 repeated doc_id row(s)" in n for n in ev.notes), ev.notes


def test_ocrbench_log_repeated_doc_id_joined_to_annotations_kept_last(tmp_path: Path) -> None:
    truth = _json(
        tmp_path / "OCRBench.json",
        [
            {"dataset_name": "IIIT5K", "type": "Regular Text Recognition", "answers": a}
            for a in (["dog"], ["sun"])
        ],
    )
    with pytest.raises(InputError, match=r"duplicate prediction for doc_id 0 .*on.duplicate"):
        evaluate_task("ocrbench", _ocrbench_log(tmp_path), annotations=truth)
    ev = evaluate_task("ocrbench", _ocrbench_log(tmp_path), annotations=truth, on_duplicate="last")
    # the annotations' answers by position: doc 0's last prediction "dog", doc 1's "sun"
    assert ev.metrics["correct"] == 2
    assert any("1 repeated prediction(s) for a doc_id" in n for n in ev.notes), ev.notes
