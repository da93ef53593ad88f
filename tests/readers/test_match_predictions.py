"""Aligning predictions with questions: the whole-file shortcut gives what the pair-by-pair
rule gives (the last prediction of a question wins; a question without one, or with an empty
one, is missing; an unknown question is extra), on any mix of such files."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from vqametrics.readers._dataset import VQADataset
from vqametrics.readers.vqa import Results, match_predictions


def _dataset(qids: list[int]) -> VQADataset:
    n = len(qids)
    return VQADataset(
        source="ann.json",
        question_ids=qids,
        answers=[["a"] * 10 for _ in qids],
        groups=[None] * n,
        question_types=[None] * n,
        answer_types=[None] * n,
        image_ids=[0] * n,
        multiple_choice_answers=[None] * n,
        index={q: i for i, q in enumerate(qids)},
    )


def _reference(qids: list[int], pairs: list[tuple[int, str | None]]) -> tuple[list, int, int]:
    """By hand: the predictions in question order, the number of repeats and of unknown ids."""
    known = set(qids)
    last: dict[int, str | None] = {}
    repeats = extra = 0
    for q, a in pairs:
        if q not in known:
            extra += 1
            continue
        repeats += q in last
        last[q] = a
    return [last.get(q) for q in qids], repeats, extra


answers = st.one_of(st.none(), st.sampled_from(["yes", "no", "2", "café", ""]))


@given(
    st.lists(st.integers(0, 40), min_size=1, max_size=12, unique=True),
    st.data(),
)
def test_matching_equals_the_rule_by_hand(qids: list[int], data: st.DataObject) -> None:
    # every question once, in any order or in the dataset's (the shortcuts' cases), or with
    # repeats, gaps and unknown ids (the pair-by-pair path's)
    order = data.draw(st.permutations(qids))
    extra_ids = st.integers(41, 50)
    in_order = [(q, data.draw(answers)) for q in qids]  # the dataset's order (a shortcut too)
    pairs = data.draw(
        st.one_of(
            st.just([(q, "yes") for q in order]),
            st.just(in_order),
            st.lists(st.tuples(st.one_of(st.sampled_from(qids), extra_ids), answers), max_size=20),
        )
    )
    got = match_predictions(
        _dataset(qids),
        Results("res.json", pairs),
        allow_missing=True,
        ignore_extra=True,
        on_duplicate="last",
    )
    preds, repeats, extra = _reference(qids, pairs)
    assert got.predictions == preds
    assert got.duplicates == repeats
    assert len(got.extra) == extra
    assert got.missing == [q for q, p in zip(qids, preds, strict=True) if p is None]


@given(
    st.lists(st.integers(0, 40), min_size=1, max_size=12, unique=True),
    st.data(),
)
def test_columns_and_numpy_placement_give_the_same(qids: list[int], data: st.DataObject) -> None:
    # a reader that kept the pairs as columns, and rows placed by numpy (from 10,000
    # predictions on, numpy imported: here from one on), match as the pairs do by hand
    import numpy  # noqa: F401  (the placement uses numpy only where it is already imported)

    from vqametrics.readers import vqa

    order = data.draw(st.permutations(qids))
    repeated = [*order[1:], order[0], order[0]][: len(order)]  # every question but one, one twice
    pairs = data.draw(
        st.one_of(
            st.just([(q, data.draw(answers)) for q in order]),
            st.just([(q, "yes") for q in repeated]),
        )
    )
    columns = ([q for q, _ in pairs], [a for _, a in pairs])
    real = vqa._PLACED_BY_NUMPY
    vqa._PLACED_BY_NUMPY = 1
    try:
        got = match_predictions(
            _dataset(qids),
            Results("res.json", pairs, _columns=columns),
            allow_missing=True,
            on_duplicate="last",
        )
    finally:
        vqa._PLACED_BY_NUMPY = real
    preds, repeats, extra = _reference(qids, pairs)
    assert got.predictions == preds
    assert got.duplicates == repeats
    assert extra == 0 and got.extra == []
