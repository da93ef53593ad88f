"""``numpy_mean`` skips numpy for lists of hits and misses (issue 23: a small run starts
without importing it); the float it returns must stay numpy's own, bit for bit."""

from __future__ import annotations

import math
import random

import pytest

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
