"""POPE read and counted a whole column at a time (issue 23) against the row-by-row ways: the
answer columns against the row reader on LLaVA's real question file, the official counts with
each distinct answer parsed once against the per-item parse, and a whole score either way."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vqametrics.readers.records import read_records
from vqametrics.tasks import _pope_read, pope
from vqametrics.tasks._pope_read import (
    _answer_columns,
    _Answers,
    _answers,
    _read_questions,
    group_by_split,
)
from vqametrics.tasks._run import evaluate_task

TEXTS = ("Yes", "No", "No, there is not.", "yes", "Yes, there is a dog.", " no ", "Not sure")


def _llava_answers(shared_data: Path, tmp_path: Path, *, prompt: bool) -> tuple[Path, Path]:
    """LLaVA's question file and seeded answers to it (with or without each prompt)."""
    questions = shared_data / "pope" / "llava" / "llava_pope_test.jsonl"
    rng = random.Random(23)
    answers = tmp_path / "answers.jsonl"
    with open(questions, encoding="utf-8") as qf, open(answers, "w", encoding="utf-8") as af:
        for line in qf:
            q = json.loads(line)
            row = {"question_id": q["question_id"], "text": rng.choice(TEXTS)}
            if prompt:
                row["prompt"] = q["text"] + "\nAnswer the question using a single word or phrase."
            af.write(json.dumps(row) + "\n")
    return questions, answers


@pytest.mark.parametrize("prompt", [True, False])
def test_the_answer_columns_are_the_rows_read_one_by_one(
    shared_data: Path, tmp_path: Path, prompt: bool
) -> None:
    qfile, afile = _llava_answers(shared_data, tmp_path, prompt=prompt)
    questions = _read_questions(str(qfile))
    records = read_records(str(afile), format="jsonl")
    columns = _answer_columns(records, "text", questions, True, "question_id")
    assert columns is not None  # the column reader took the file
    rows = _Answers.of(_answers(records, "text", questions, str(qfile), True, "question_id"))
    assert columns == rows
    assert len(columns.keys) == 8910
    assert set(columns.splits) == {"adversarial", "popular", "random"}


def test_a_whole_score_is_the_same_read_by_rows(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    qfile, afile = _llava_answers(shared_data, tmp_path, prompt=True)
    labels = shared_data / "pope" / "e3e3926"
    by_columns = evaluate_task("pope", str(afile), annotations=str(labels), questions=str(qfile))
    monkeypatch.setattr(_pope_read, "_answer_columns", lambda *a: None)
    monkeypatch.setattr(pope, "_positives", lambda labels: list(map(pope._label_positive, labels)))
    monkeypatch.setattr(
        pope,
        "_official_preds",
        lambda preds, pos: list(map(pope._official_pred, preds, pos)),
    )
    by_rows = evaluate_task("pope", str(afile), annotations=str(labels), questions=str(qfile))
    assert by_columns.metrics == by_rows.metrics
    assert by_columns.aggregate == by_rows.aggregate
    assert str(by_columns.signature) == str(by_rows.signature)
    assert by_columns.metrics["n"] == 8910


ANSWERS = st.lists(
    st.tuples(
        st.one_of(st.none(), st.sampled_from(TEXTS), st.text(alphabet="No. ,t", max_size=8)),
        st.sampled_from(["yes", "no", "No", "", "no "]),
    ),
    max_size=40,
)


@given(ANSWERS)
def test_each_distinct_answer_and_label_counted_once_is_each_counted(
    pairs: list[tuple[str | None, str]],
) -> None:
    predictions = [p for p, _ in pairs]
    labels = [lab for _, lab in pairs]
    positives = pope._positives(labels)
    assert positives == [pope._label_positive(lab) for lab in labels]
    expected = [pope._official_pred(p, t) for p, t in zip(predictions, positives, strict=True)]
    assert pope._official_preds(predictions, positives) == expected


def test_an_unhashable_label_is_counted_one_at_a_time() -> None:
    assert pope._positives([["no"], "no", "yes"]) == [True, False, True]


@pytest.mark.parametrize("spelled", ["{d}", "./{d}/", "{d}//", "{d}/./coco_pope_random.json"])
def test_the_label_files_are_named_as_pathlib_names_them(shared_data: Path, spelled: str) -> None:
    """The folder's files (or the one file), split and path text, as ``Path.glob`` and
    ``str(Path)`` gave them before pathlib was taken off the start (issue 23)."""
    text = spelled.format(d=os.path.relpath(shared_data / "pope" / "e3e3926"))
    path = Path(text)
    if path.is_dir():
        files = sorted(path.glob("coco_pope_*.json"))
        expected = [(f.name[len("coco_pope_") : -len(".json")], str(f)) for f in files]
    else:
        expected = [("random", str(path))]
    assert _pope_read._label_files(text) == expected
    assert len(expected) in (1, 3)


@given(st.lists(st.sampled_from(["random", "popular", "adversarial", None]), max_size=40))
def test_group_by_split_is_the_grouping_by_hand(splits: list[str | None]) -> None:
    by_hand: dict[str | None, list[int]] = {}
    for k, split in enumerate(splits):
        by_hand.setdefault(split, []).append(k)
    got = group_by_split(splits)
    assert got == by_hand
    assert list(got) == list(by_hand)  # the splits in the order they first appear
