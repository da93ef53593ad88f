"""Streaming metrics: shards merged in order equal the whole, to the bit."""

from __future__ import annotations

import itertools
import pickle
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vqametrics
from vqametrics import evaluate_vqa
from vqametrics.integrations.metrics import TaskMetric, VQAAccuracy

WORDS = ["yes", "no", "2", "two", "red", "Red.", "pancake", "pancakes", "a dog", "dog"]
answer_lists = st.lists(st.sampled_from(WORDS), min_size=10, max_size=10)
item = st.tuples(st.sampled_from(WORDS), answer_lists)


def _whole_percent(items: list[tuple[str, list[str]]]) -> float:
    """The official pipeline on all items at once, unrounded: 100 * S / N, S left to right
    over the per-question scores evaluate_vqa computed."""
    records = [{"question_id": i, "answers": a} for i, (_, a) in enumerate(items)]
    ev = evaluate_vqa(records, {i: p for i, (p, _) in enumerate(items)})
    total = 0.0
    for s in ev.scores:
        total += s
    return 100 * total / len(ev.scores)


@settings(max_examples=60, deadline=None)
@given(st.lists(item, min_size=1, max_size=40), st.lists(st.integers(0, 40), max_size=5))
def test_merged_shards_equal_the_whole_to_the_bit(
    items: list[tuple[str, list[str]]], cuts: list[int]
) -> None:
    bounds = sorted({0, len(items), *(min(c, len(items)) for c in cuts)})
    shards = []
    for lo, hi in itertools.pairwise(bounds):
        m = VQAAccuracy()
        part = items[lo:hi]
        m.update([p for p, _ in part], [a for _, a in part])
        shards.append(m)
    merged = VQAAccuracy()
    for s in shards:
        # what torch.distributed.all_gather_object would carry: the state, pickled
        state = pickle.loads(pickle.dumps(s.state_dict()))
        other = VQAAccuracy()
        other.load_state_dict(state)
        merged.merge(other)
    whole = VQAAccuracy()
    whole.update([p for p, _ in items], [a for _, a in items])
    assert merged.compute() == whole.compute() == _whole_percent(items)
    assert merged.scores == whole.scores


def test_compute_is_the_official_percent() -> None:
    m = VQAAccuracy()
    m.update(["crab", "Yes"], [["crab"] * 3 + ["lobster"] * 7, ["yes"] * 10])
    assert m.compute() == 45.0  # (0.9 + 0.0) / 2, by hand
    m.update(["two"], [["2"] * 10])
    assert m.compute(digits=2) == 30.0  # (0.9 + 0 + 0 [unanimity quirk]) / 3 = 30%
    assert len(m) == 3


def test_reset_state_and_errors() -> None:
    m = VQAAccuracy(profile="simple")
    with pytest.raises(ValueError, match="before any update"):
        m.compute()
    with pytest.raises(ValueError, match="2 predictions but 1 references"):
        m.update(["a", "b"], [["a"]])
    with pytest.raises(TypeError):
        m.update("a", [["a"]])
    m.update(["a"], [["a", "a", "a"]])  # simple: min(1, m/3) = 1
    state = orjson.loads(orjson.dumps(m.state_dict()))  # JSON-ready
    assert state["profile"] == "simple" and state["scores"] == [1.0]
    with pytest.raises(ValueError, match="different metric or profile"):
        VQAAccuracy().merge(m)
    with pytest.raises(ValueError, match="made with"):
        VQAAccuracy().load_state_dict(state)
    m.reset()
    assert len(m) == 0
    assert repr(m) == "VQAAccuracy(profile='simple') with 0 item(s)"


def test_task_metric_ocrvqa_matches_evaluate_task() -> None:
    preds = [" Fiction ", "Poetry", "History.", "travel"]
    refs = [["fiction"], ["Romance"], ["History"], ["Travel"]]
    a, b = TaskMetric("ocrvqa"), TaskMetric("ocr-vqa")
    a.update(preds[:1], refs[:1], category=["x"])
    b.update(preds[1:], refs[1:], category=["x", "y", "y"])
    a.merge(b)
    # strip + lower exact match (spec vqa-family §9.2): 1, 0, 0 ("history." != "history"), 1
    assert a.scores == [1.0, 0.0, 0.0, 1.0]
    assert a.compute() == 50.0
    assert dict(a.aggregate().breakdowns["category"]) != {}
    c = TaskMetric("ocrvqa")
    c.load_state_dict(pickle.loads(pickle.dumps(a.state_dict())))
    assert c.compute() == 50.0 and c.contexts == a.contexts


def test_task_metric_unknown_task_lists_names() -> None:
    with pytest.raises(vqametrics.UnknownNameError, match="ocrvqa"):
        TaskMetric("no-such-task")


@settings(max_examples=60, deadline=None)
@given(st.lists(item, min_size=1, max_size=40), st.integers(1, 5), st.randoms())
def test_interleaved_shards_with_ids_equal_the_whole(
    items: list[tuple[str, list[str]]], world: int, rnd: Any
) -> None:
    """DistributedSampler's layout: rank r gets positions r, r + W, …, padded by repeating the
    first positions so every rank has as many; gathered in any order."""
    n = len(items)
    per_rank = -(-n // world)
    padded = list(range(n)) + [i % n for i in range(per_rank * world - n)]
    ranks = []
    for r in range(world):
        positions = padded[r::world]
        m = VQAAccuracy()
        m.update([items[i][0] for i in positions], [items[i][1] for i in positions], ids=positions)
        ranks.append(m.state_dict())
    rnd.shuffle(ranks)
    merged = VQAAccuracy()
    for state in ranks:
        part = VQAAccuracy()
        part.load_state_dict(state)
        merged.merge(part)
    assert merged.compute() == _whole_percent(items)


def test_ids_must_be_given_always_or_never() -> None:
    m = VQAAccuracy()
    m.update(["a"], [["a"] * 3], ids=[0])
    with pytest.raises(ValueError, match="ids were given before"):
        m.update(["a"], [["a"] * 3])
    n = VQAAccuracy()
    n.update(["a"], [["a"] * 3])
    with pytest.raises(ValueError, match="cannot merge a metric with ids"):
        n.merge(m)


def test_task_metric_ids_order_the_aggregate() -> None:
    a = TaskMetric("ocrvqa")
    a.update(["x", "y"], [["x"], ["z"]], ids=[3, 1], category=["c3", "c1"])
    assert [it for it in a.aggregate().breakdowns["category"]] == ["c1", "c3"]
    assert a.compute() == 50.0
