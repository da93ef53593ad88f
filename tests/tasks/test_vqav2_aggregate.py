"""VQA v2's items held as columns, and its aggregate from them: bit for bit what the items
built one by one give (the per-item aggregation is the reference; hypothesis-generated data,
the bulk scorer on, and the bundled sample)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vqametrics import evaluate
from vqametrics.aggregate._bulk import fast_group_percents
from vqametrics.aggregate.formulas import group_by, percent
from vqametrics.kernels import _fast
from vqametrics.pipeline.toolkit_check import check_samples
from vqametrics.pipeline.vqa import bulk_findings
from vqametrics.readers.vqa import as_dataset
from vqametrics.tasks._base import Aggregate, Item, ItemColumns, item_column
from vqametrics.tasks._lmms import TOOLKIT_SCORE
from vqametrics.tasks.vqav2 import VQAV2, _aggregate, _bulk_aggregate, _item_aggregate, vqa_items

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "vqametrics" / "data" / "vqa2_val_sample"

#: VQA soft accuracies (the spec's three 0.6s among them), 0 and arbitrary values in [0, 1]
score = st.one_of(
    st.sampled_from([0.0, 1.0, 0.3, 0.6, 0.6000000000000001, 0.5999999999999999, 0.9]),
    st.floats(0, 1, allow_nan=False),
)
kind = st.sampled_from([None, "yes/no", "number", "other"])
qtype = st.sampled_from([None, "what is", "how many", "is the", "what color"])


def _bits(agg: Aggregate) -> Any:
    """Everything of *agg*, floats by their bits, dicts with their order."""

    def norm(x: Any) -> Any:
        if isinstance(x, float):
            return ("float", x.hex(), math.copysign(1.0, x))
        if isinstance(x, dict):
            return [(k, norm(v)) for k, v in x.items()]
        return x

    return norm(
        {
            "metrics": dict(agg.metrics),
            "breakdowns": {k: dict(v) for k, v in agg.breakdowns.items()},
            "rest": (agg.headline, agg.units, agg.digits, agg.notes),
        }
    )


def _columns(rows: Sequence[tuple[float, str | None, str | None]]) -> ItemColumns:
    n = len(rows)
    return ItemColumns(
        list(range(n)),
        ["yes"] * n,
        [["yes"] * 10] * n,
        {"question_type": [q for _, _, q in rows], "answer_type": [a for _, a, _ in rows]},
    )


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(st.tuples(score, kind, qtype), min_size=1, max_size=60))
def test_bulk_aggregate_equals_item_aggregate(rows: list[tuple[float, Any, Any]]) -> None:
    items = _columns(rows)
    scores = [s for s, _, _ in rows]
    assert _bulk_aggregate(items, scores) is not None  # the columns path ran
    assert _bits(_aggregate(items, scores)) == _bits(_aggregate(list(items), scores))


@settings(max_examples=200, deadline=None)
@given(
    scores=st.lists(st.one_of(score, st.just(-0.0)), min_size=1, max_size=40),
    keys=st.data(),
)
def test_fast_group_percents_equal_formulas(scores: list[float], keys: st.DataObject) -> None:
    column = keys.draw(st.lists(qtype, min_size=len(scores), max_size=len(scores)))
    overall, (groups,) = fast_group_percents(scores, [column])
    assert overall.hex() == percent(scores, None).hex()
    expected = [(k, percent(v, None).hex(), len(v)) for k, v in group_by(column, scores).items()]
    assert [(k, p.hex(), n) for k, p, n in groups] == expected


def test_a_sum_of_negative_zeros_is_positive_zero_as_in_the_loop() -> None:
    overall, _ = fast_group_percents([-0.0, -0.0], [])
    assert math.copysign(1.0, overall) == math.copysign(1.0, percent([-0.0, -0.0], None)) == 1.0


def test_keys_that_are_not_strings_go_item_by_item() -> None:
    """The item path names groups ``str(key)`` (``1`` and ``"1"`` are one group): no bulk."""
    items = ItemColumns([1, 2], ["a", "b"], [["a"], ["b"]], {"answer_type": [1, "1"]})
    assert _bulk_aggregate(items, [1.0, 0.0]) is None
    agg = _aggregate(items, [1.0, 0.0])
    assert agg.breakdowns["answer_type"] == {"1": {"accuracy": 50.0, "n": 2}}


def _old_items(dataset: Any, predictions: Sequence[str | None]) -> list[Item]:
    """The list the VQA v2 reader built before it kept columns (one Item per question)."""
    d = dataset
    out = []
    for qid, pred, answers, qt, at, img, grp in zip(
        d.question_ids,
        predictions,
        d.answers,
        d.question_types,
        d.answer_types,
        d.image_ids,
        d.groups,
        strict=True,
    ):
        pairs = (("question_type", qt), ("answer_type", at), ("image_id", img))
        fields = {k: v for k, v in (*pairs, ("answer_groups", grp)) if v is not None}
        out.append(Item(qid, pred, tuple(answers), fields))
    return out


def _sample_dataset() -> tuple[Any, list[str | None]]:
    records = json.loads((SAMPLE / "annotations.json").read_text())["annotations"]
    records[0] = {**records[0], "answer_type": None}  # one question without a type
    for a in records[1]["answers"]:
        a["answer_id"] = 1  # one question with collapsed answer records
    results = json.loads((SAMPLE / "results_messy-majority.json").read_text())
    by_id = {r["question_id"]: r["answer"] for r in results}
    dataset = as_dataset(records)
    return dataset, [by_id.get(q) for q in dataset.question_ids]


def test_vqa_items_are_the_items_built_one_by_one() -> None:
    dataset, preds = _sample_dataset()
    preds[2] = None
    items = vqa_items(dataset, preds)
    old = _old_items(dataset, preds)
    assert len(items) == len(old)
    assert list(items) == old
    assert [items[i] for i in range(len(items))] == old
    assert items[-1] == old[-1] and items[1:4] == old[1:4] and items[::7] == old[::7]
    assert "answer_type" not in items[0].fields and "answer_groups" in items[1].fields
    for name in ("id", "prediction"):
        assert list(item_column(items, name)) == item_column(old, name)
    assert [tuple(r) for r in item_column(items, "references")] == item_column(old, "references")
    assert list(item_column(items, "answer_type")) == item_column(old, "answer_type")
    assert list(item_column(items, "nothing")) == [None] * len(old)
    with pytest.raises(IndexError):
        items[len(items)]


def test_columns_of_unequal_length_are_refused() -> None:
    with pytest.raises(ValueError, match="one value per item"):
        ItemColumns([1, 2], ["a"], [["a"], ["b"]], {})
    with pytest.raises(ValueError, match="one value per item"):
        ItemColumns([1], ["a"], [["a"]], {"answer_type": []})


@pytest.mark.filterwarnings("ignore::vqametrics.VqaMetricsWarning")
@pytest.mark.parametrize("bulk_from", [0, 10**9])
@pytest.mark.parametrize(
    "results", ["results_messy-majority.json", "results_minority.json", "results_always-yes.json"]
)
def test_the_runner_aggregate_on_the_sample_equals_item_by_item(
    bulk_from: int, results: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through ``evaluate("vqav2")``: with the bulk scorer (whose rows per type the aggregate
    reuses) and without it."""
    monkeypatch.setattr(_fast, "MIN_QUESTIONS", bulk_from)
    ev = evaluate(
        "vqav2",
        str(SAMPLE / results),
        annotations=str(SAMPLE / "annotations.json"),
        allow_missing=True,
    )
    assert isinstance(ev.data.items, ItemColumns)
    assert (bulk_findings(ev.data.extra["vqa"].dataset, ev.scores) is not None) == (bulk_from == 0)
    old = _old_items(ev.data.extra["vqa"].dataset, item_column(ev.data.items, "prediction"))
    overall, breakdowns = _item_aggregate(old, ev.scores)
    assert _bits(ev.aggregate) == _bits(_aggregate(old, ev.scores))
    assert ev.metrics["overall"] == overall and ev.aggregate.breakdowns == breakdowns


def test_columns_without_toolkit_scores_are_not_looked_at() -> None:
    class Untouchable(ItemColumns):
        def __iter__(self) -> Iterator[Item]:
            raise AssertionError("check_samples built the items")

    items = Untouchable([1], ["a"], [["a"] * 10], {})
    assert check_samples(VQAV2, VQAV2.profile("official"), items, [1.0]) is None


def test_columns_with_toolkit_scores_are_checked_as_the_items() -> None:
    prof = VQAV2.profile("official")
    refs = [["dog"] * 8 + ["cat", "cat"], ["yes"] * 10]
    items = ItemColumns([7, 8], ["cat", "yes"], refs, {TOOLKIT_SCORE: [0.6, 0.0]})
    scores = [prof.score_item(it) for it in items]
    by_columns = check_samples(VQAV2, prof, items, scores)
    by_items = check_samples(VQAV2, prof, list(items), scores)
    assert by_columns is not None and by_items is not None
    assert by_columns.as_dict() == by_items.as_dict()
    assert by_columns.n_compared == 2 and by_columns.n_disagree >= 1
