"""The lmms-eval pieces every task reader shares (``tasks._lmms``): which files are taken for a
samples log, the refusal of a log without ``doc``, the recorded per-sample score, and the
positional join. Rows are written by hand in the shape of lmms-eval@75571cf's
``--log_samples`` records (``doc_id``, ``doc``, ``target``, ``filtered_resps``, metrics)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from vqametrics.core.exceptions import InputError, command_line_spelling
from vqametrics.readers.records import read_records
from vqametrics.tasks._base import Item, TaskInputs
from vqametrics.tasks._lmms import (
    TOOLKIT_SCORE,
    lmms_eval_predictions,
    no_doc_error,
    positional_items,
    sample_score,
)

LOG = [
    {"doc_id": 0, "target": "yes", "filtered_resps": ["Yes"], "exact_match": 1.0},
    {"doc_id": 1, "target": "no", "filtered_resps": ["yes"], "exact_match": 0.0},
]


def _preds(rows: list[dict[str, Any]], **options: Any) -> Any:
    records = read_records(rows, format=options.pop("format", None))
    return lmms_eval_predictions(records, TaskInputs(results=rows, **options))


def test_a_samples_log_is_taken_with_its_answers() -> None:
    preds = _preds(LOG)
    assert preds is not None
    assert list(preds.texts) == ["Yes", "yes"]


@pytest.mark.parametrize(
    "rows",
    [
        [{"question_id": 1, "answer": "yes"}],  # an official results list
        # a VLMEvalKit sheet that also happens to hold doc_id/filtered_resps columns
        [{"index": 0, "prediction": "yes", "doc_id": 0, "filtered_resps": ["yes"]}],
    ],
)
def test_other_layouts_are_not_taken(rows: list[dict[str, Any]]) -> None:
    assert _preds(rows) is None


def test_a_layout_forced_elsewhere_is_not_taken() -> None:
    rows = [{"question_id": 1, "answer": "yes", "doc_id": 0, "filtered_resps": ["no"]}]
    assert _preds(rows) is not None  # recognized from its columns
    assert _preds(rows, format="official") is None


def test_no_doc_error_names_the_file_and_the_option() -> None:
    err = no_doc_error("samples_x.jsonl", "--annotations x.json")
    assert isinstance(err, InputError)
    text = (
        "samples_x.jsonl: this lmms-eval log has no 'doc' (the dataset rows), so no ground "
        "truth; pass {} x.json"
    )
    assert str(err) == text.format("annotations=")  # a Python caller's keyword
    with command_line_spelling():
        assert str(err) == text.format("--annotations")


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ({"m": 0.5}, 0.5),
        ({"m": True}, 1.0),  # ChartQA's relaxed_overall is a boolean
        ({"m": {"score": 1, "question_id": "q"}}, 1.0),  # POPE/MME/OCRBench dicts
        ({"m": math.nan, "n": 0.25}, 0.25),  # not finite: the next metric is tried
        ({"m": "1.0"}, None),  # text is not a recorded score
        ({}, None),
    ],
)
def test_sample_score(row: dict[str, Any], expected: float | None) -> None:
    assert sample_score(row, ("m", "n")) == expected


def test_positional_join_counts_differing_targets_and_keeps_scores() -> None:
    preds = _preds(LOG)
    truth = [Item("a", None, ("yes",)), Item("b", None, ("yes",))]  # b's target was "no"
    items, note, absent = positional_items(preds, truth, "gt.json", sample_metrics=("exact_match",))
    assert [(it.id, it.prediction) for it in items] == [("a", "Yes"), ("b", "yes")]
    assert [it.fields[TOOLKIT_SCORE] for it in items] == [1.0, 0.0]
    assert absent == 0
    assert "BY POSITION" in note and "1 logged target(s) differ" in note and "'b'" in note


def test_positional_join_refuses_a_doc_id_outside_the_annotations() -> None:
    with pytest.raises(InputError, match=r"doc_id 1 is not a position in the 1 items of gt\.json"):
        positional_items(_preds(LOG), [Item("a", None, ("yes",))], "gt.json")


def test_positional_join_missing_items_need_allow_missing() -> None:
    truth = [Item(k, None, ("yes",)) for k in ("a", "b", "c")]
    absent_msg = r"1 of the 3 items of gt\.json have no sample \(first: doc_id 2, 'c'\)"
    with pytest.raises(InputError, match=absent_msg):
        positional_items(_preds(LOG), truth, "gt.json")
    items, _, absent = positional_items(_preds(LOG), truth, "gt.json", allow_missing=True)
    assert absent == 1 and items[2].prediction is None and items[2].id == "c"
