"""The shared aggregations of ``aggregate/formulas.py``: hand-derived values and invariants."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vqametrics.aggregate.formulas import (
    exact_mean,
    group_by,
    group_means,
    mean_of_means,
    naive_mean,
    naive_sum,
    numpy_mean,
    official_round,
    percent,
    precision_recall_f1,
)

floats = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
keys = st.sampled_from(["a", "b", "c", None])


def test_naive_sum_is_left_to_right() -> None:
    # (1e16 + 1) + 1 loses both ones (each rounds back to 1e16); 1 + 1 + 1e16 keeps them.
    assert naive_sum([1e16, 1.0, 1.0]) == 1e16
    assert naive_sum([1.0, 1.0, 1e16]) == 1e16 + 2
    # (0.1 + 0.2) + 0.3 = 0.6000000000000001, while 0.1 + (0.2 + 0.3) = 0.6
    assert naive_sum([0.1, 0.2, 0.3]) == 0.6000000000000001
    assert naive_sum([0.3, 0.2, 0.1]) == 0.6


def test_naive_sum_matches_the_loop_the_scripts_run() -> None:
    values = [0.1 * i for i in range(1, 200)] + [1e-17, 3.3, 1e12]
    total = 0.0
    for v in values:
        total = total + v
    assert naive_sum(values) == total


def test_naive_mean_and_its_empty_value() -> None:
    assert naive_mean([1.0, 0.0, 0.5, 0.5]) == 0.5
    assert naive_mean([0.1, 0.2, 0.3]) == 0.6000000000000001 / 3
    assert math.isnan(naive_mean([]))
    assert naive_mean([], empty=0.0) == 0.0


def test_numpy_mean_is_pairwise_not_left_to_right() -> None:
    # 1e16 then 1.0 sixteen times: left to right each 1.0 is lost; numpy sums blocks of
    # eight pairwise (the eight ones of a block add up to 8 before they meet 1e16).
    values = [1e16] + [1.0] * 16 + [0.0] * 7
    assert naive_sum(values) == 1e16
    assert numpy_mean(values) * len(values) != naive_mean(values) * len(values)
    assert math.isnan(numpy_mean([]))


def test_exact_mean_rounds_once() -> None:
    assert exact_mean([0.1, 0.2, 0.3]) == float((Fraction(0.1) + Fraction(0.2) + Fraction(0.3)) / 3)
    with pytest.raises(ValueError):
        exact_mean([])


def test_group_by_first_seen_order_and_no_none() -> None:
    got = group_by(["b", None, "a", "b", "c", "a"], [1, 2, 3, 4, 5, 6])
    assert list(got) == ["b", "a", "c"]
    assert got == {"b": [1, 4], "a": [3, 6], "c": [5]}


def test_group_by_needs_equal_lengths() -> None:
    with pytest.raises(ValueError):
        group_by(["a"], [1.0, 2.0])


def test_group_means_hand_derived() -> None:
    got = group_means(["x", "y", "x", "y", "y"], [1.0, 0.0, 0.0, 1.0, 1.0], scale=100.0)
    # the mean first, then the scale: (2/3 rounded to a double) · 100, not 200/3
    assert got == {"x": 50.0, "y": (2.0 / 3) * 100}
    assert got["y"] != 200 / 3


def test_mean_of_means_is_a_macro_average() -> None:
    # groups of 1 and 3 items: (1/1 + 1/3) / 2 = 2/3, not the pooled 2/4
    assert mean_of_means({"a": [1.0], "b": [1.0, 0.0, 0.0]}) == (1.0 + 1 / 3) / 2
    assert math.isnan(mean_of_means({}))


def test_percent_and_the_official_rounding() -> None:
    assert percent([1.0, 0.0, 0.0]) == 33.33
    assert percent([1.0, 0.0, 0.0], None) == 100 / 3
    # QUIRK round-half-even on the binary value
    assert official_round(0.125, 2) == 0.12
    assert official_round(0.375, 2) == 0.38
    assert official_round(2.675, 2) == 2.67
    assert official_round(66.665, 2) == 66.67  # stored as 66.66500000000000625...


def test_precision_recall_f1_hand_derived() -> None:
    # TP 3, FP 1, FN 2: P = 3/4, R = 3/5, F1 = 2·0.75·0.6 / 1.35 = 2/3
    p, r, f1 = precision_recall_f1(3, 1, 2)
    assert (p, r) == (0.75, 0.6)
    assert f1 == pytest.approx(2 / 3, abs=1e-15)
    assert f1 == 2 * 0.75 * 0.6 / (0.75 + 0.6)


def test_precision_recall_f1_zero_denominators() -> None:
    with pytest.raises(ZeroDivisionError):
        precision_recall_f1(0, 0, 3)
    assert precision_recall_f1(0, 0, 3, zero=0.0) == (0.0, 0.0, 0.0)
    got = precision_recall_f1(0, 0, 0, zero=0)
    assert got == (0, 0, 0) and all(type(x) is int for x in got)


@given(st.lists(st.tuples(keys, floats), max_size=40), st.randoms())
def test_group_means_do_not_depend_on_the_order_of_groups(pairs, rnd) -> None:
    """Interleaving other groups' items differently changes no group's mean (the values of one
    group keep their relative order, as a stable sort by key would)."""
    ks = [k for k, _ in pairs]
    vs = [v for _, v in pairs]
    by_key = group_by(ks, vs)
    # rebuild each group's values in their original order, then interleave the groups anew
    order = list(by_key)
    rnd.shuffle(order)
    rebuilt_k = [k for k in order for _ in by_key[k]]
    rebuilt_v = [v for k in order for v in by_key[k]]
    assert group_means(rebuilt_k, rebuilt_v) == group_means(ks, vs)


@given(st.lists(floats, min_size=1, max_size=40), st.randoms())
def test_exact_mean_is_order_independent(values, rnd) -> None:
    shuffled = list(values)
    rnd.shuffle(shuffled)
    assert exact_mean(shuffled) == exact_mean(values)


@given(st.lists(st.sampled_from([0.0, 1.0]), min_size=1, max_size=60), st.randoms())
def test_naive_mean_of_hits_is_order_independent(values, rnd) -> None:
    """0/1 hits add up exactly, so the left-to-right mean of them has no order to depend on."""
    shuffled = list(values)
    rnd.shuffle(shuffled)
    assert naive_mean(shuffled) == naive_mean(values) == sum(values) / len(values)


@given(st.lists(floats, max_size=40))
def test_naive_sum_equals_the_fold_in_order(values) -> None:
    total = 0.0
    for v in values:
        total += v
    assert naive_sum(values) == total


@given(
    st.integers(min_value=0, max_value=500),
    st.integers(min_value=0, max_value=500),
    st.integers(min_value=0, max_value=500),
)
def test_f1_is_the_harmonic_mean(tp, fp, fn) -> None:
    p, r, f1 = precision_recall_f1(tp, fp, fn, zero=0.0)
    assert min(p, r) - 1e-15 <= f1 <= max(p, r) + 1e-15
    if tp + fp and tp + fn and tp:
        assert f1 == pytest.approx(2 * tp / (2 * tp + fp + fn), rel=1e-12)
