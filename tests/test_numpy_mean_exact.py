"""``numpy_mean`` adds in numpy's pairwise order without importing numpy (issue 23: a small run
starts without it); the float it returns must stay numpy's own, bit for bit."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vqametrics.core.sums import pairwise_sum
from vqametrics.tasks._common import numpy_mean

np = pytest.importorskip("numpy")


def _numpys(values: list[float]) -> float:
    return float(np.mean(np.asarray(values, dtype=np.float64)))


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 16, 127, 128, 129, 257, 1000, 5127, 8910])
def test_the_mean_of_hits_and_misses_is_numpys(n: int) -> None:
    rng = random.Random(n)
    for _ in range(10):
        values = [rng.choice((0.0, 1.0, 0, 1, True, False, -0.0)) for _ in range(n)]
        ours, theirs = numpy_mean(values), _numpys(values)
        assert ours == theirs and math.copysign(1, ours) == math.copysign(1, theirs)


@pytest.mark.parametrize(
    "values", [[0.0], [-0.0], [-0.0, -0.0], [0.0, -0.0], [0.1] * 300, [0.5, 1.0, 0.25], [1.0, 2.0]]
)
def test_every_other_list_is_numpys_too(values: list[float]) -> None:
    ours, theirs = numpy_mean(values), _numpys(values)
    assert ours == theirs and math.copysign(1, ours) == math.copysign(1, theirs)


def test_no_values_is_nan() -> None:
    assert math.isnan(numpy_mean([]))


#: numpy up to 2.2 added an array longer than its 8,192-value buffer one buffer at a time
#: (numpy/numpy#27883 changed that for 2.3); numpy_mean is the later order
NUMPY_IN_PIECES = tuple(int(p) for p in np.__version__.split(".")[:2]) < (2, 3)


def _in_pieces(values: list[float]) -> float:
    """numpy <= 2.2's mean: each 8,192-value piece summed pairwise, the pieces left to right."""
    total = 0.0
    for start in range(0, len(values), 8192):
        total += pairwise_sum(values[start : start + 8192])
    return total / len(values)


@pytest.mark.parametrize("n", [3, 8, 100, 128, 129, 1000, 8191, 8192, 8193, 20011])
def test_the_mean_of_fractions_is_numpys(n: int) -> None:
    # soft accuracies (thirds), ANLS values and random floats: the pairwise order matters here
    rng = random.Random(n)
    for _ in range(5):
        values = [rng.choice((0.0, 1 / 3, 2 / 3, 1.0, 0.3, rng.random())) for _ in range(n)]
        if NUMPY_IN_PIECES and n > 8192:  # the older order, as the QUIRK's docstring says
            assert _in_pieces(values) == _numpys(values)
        else:
            assert numpy_mean(values) == _numpys(values)


def test_the_two_numpy_orders_differ_only_past_one_piece() -> None:
    """Up to 8,192 values both orders are one pairwise sum; past it they part (seeded lists
    where the last bit differs), which is why the QUIRK names the numpy version."""
    rng = random.Random(8193)
    short = [rng.random() for _ in range(8192)]
    assert _in_pieces(short) == numpy_mean(short)
    parted = 0
    for _ in range(20):
        values = [rng.random() for _ in range(20011)]
        parted += _in_pieces(values) != numpy_mean(values)
    assert parted > 0


@given(st.lists(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False), max_size=600))
def test_any_finite_floats_give_numpys_mean(values: list[float]) -> None:
    if not values:
        return
    ours, theirs = numpy_mean(values), _numpys(values)
    assert ours == theirs and math.copysign(1, ours) == math.copysign(1, theirs)
