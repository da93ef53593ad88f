"""The answers of an annotations file decoded a batch of questions at a time
(``readers._bulk._batched_answers``): whatever the batch size, the same dataset, or the same
fallback to the validating path with its messages."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# every bad-input test runs here once more, with one question per batch (``tiny_batches``)
from test_bad_input import *  # noqa: F403
from vqametrics.readers import _bulk, vqa
from vqametrics.readers.vqa import load_annotations


@pytest.fixture(autouse=True)
def tiny_batches(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """One question per batch: every batch boundary that can be crossed is crossed."""
    monkeypatch.setattr(_bulk, "ANSWER_BATCH", 1)
    yield


def _raw(records: list[list[dict[str, Any]]]) -> list[bytes]:
    return [json.dumps(r).encode() for r in records]


def _answers(texts: str, ids: list[Any] | None = None) -> list[dict[str, Any]]:
    words = texts.split()
    return [
        {"answer": w, "answer_id": i + 1 if ids is None else ids[i]} for i, w in enumerate(words)
    ]


RECORDS = [
    _answers("yes yes no yes yes yes yes yes yes no"),
    _answers("2 two 2 3"),
    _answers("cat"),
    _answers("dog cat no 2 yes"),
]


@pytest.mark.parametrize("size", [1, 2, 3, 4, 1000])
def test_codes_and_counts_do_not_depend_on_the_batch_size(
    monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    monkeypatch.setattr(_bulk, "ANSWER_BATCH", size)
    got = _bulk._batched_answers(_raw(RECORDS))
    assert got is not None
    lens, strings, codes = got
    assert lens.tolist() == [10, 4, 1, 5]
    # distinct texts in first-seen order, codes pointing at them (worked out by hand)
    assert strings == ["yes", "no", "2", "two", "3", "cat", "dog"]
    assert codes.tolist() == [0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 2, 3, 2, 4, 5, 6, 5, 1, 2, 0]


@pytest.mark.parametrize(
    "bad",
    [
        _answers("a b", ids=[1, 1]),  # equal answer_ids: the official record groups apply
        [{"answer": "a"}],  # no answer_id
        [],  # no answers
        [{"answer": 3, "answer_id": 1}],  # not a string
        {"answer": "a", "answer_id": 1},  # not a list
    ],
)
def test_an_irregular_question_in_a_later_batch_gives_up(bad: Any) -> None:
    assert _bulk._batched_answers(_raw([*RECORDS, bad])) is None


def test_a_file_irregular_in_a_later_batch_loads_as_the_validating_path_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    anns = [
        {"question_id": q, "question_type": "what", "answer_type": "other", "answers": a}
        for q, a in enumerate([*RECORDS, _answers("a b", ids=[7, 7])])
    ]
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps({"annotations": anns}))
    batched = load_annotations(path)
    monkeypatch.setattr(vqa, "load_fast", lambda *args: None)  # the validating path alone
    validated = load_annotations(path)
    assert batched.answers == validated.answers
    assert batched.groups == validated.groups
    assert batched.groups[-1] == [0, 0]  # the equal records are one group
    assert batched.question_ids == validated.question_ids == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("ragged", [False, True])
@pytest.mark.parametrize("image_key", ["image_id", "image", "both"])
def test_the_fast_columns_are_the_validating_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ragged: bool, image_key: str
) -> None:
    # ten answers each (the answer lists come straight from numpy) or not; images named by
    # image_id, by image (another layout), or by either from one question to the next
    ten = _answers("yes yes no yes 2 two 2 3 cat dog")
    anns = []
    for q in range(6):
        rec: dict[str, Any] = {"question_id": 100 + q, "question_type": f"t{q % 2}"}
        rec["answer_type"] = "other" if q % 3 else None
        rec["answers"] = RECORDS[q % 4] if ragged else ten
        key = image_key if image_key != "both" else ("image", "image_id")[q % 2]
        rec[key] = f"{q}.jpg" if key == "image" else q // 2
        anns.append(rec)
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps(anns))
    built: list[int] = []
    real = _bulk._fast_dataset

    def spy(*args: Any) -> Any:
        built.append(1)
        return real(*args)

    monkeypatch.setattr(_bulk, "_fast_dataset", spy)
    fast = load_annotations(path)
    assert built  # the fast path read it
    monkeypatch.setattr(vqa, "load_fast", lambda *args: None)  # the validating path alone
    validated = load_annotations(path)
    columns = ("question_ids", "answers", "image_ids", "question_types", "answer_types")
    for column in (*columns, "multiple_choice_answers"):
        assert getattr(fast, column) == getattr(validated, column), column
    want_images = [
        f"{q}.jpg" if (image_key == "image" or (image_key == "both" and q % 2 == 0)) else q // 2
        for q in range(6)
    ]
    assert fast.image_ids == want_images
