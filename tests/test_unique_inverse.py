"""``kernels._fast.unique_inverse`` is ``numpy.unique(..., return_inverse=True)`` on
non-negative integer codes, on both of its paths (a table of present values for a small range,
``unique`` itself for a wide one)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from vqametrics.kernels._fast import unique_inverse

small = st.lists(st.integers(0, 3000), max_size=400)
wide = st.lists(st.one_of(st.integers(0, 50), st.integers(0, 2**62)), max_size=400)


@given(st.one_of(small, wide))
def test_same_as_numpy_unique(values: list[int]) -> None:
    array = np.array(values, dtype=np.int64)
    distinct, inverse = unique_inverse(array)
    want_distinct, want_inverse = np.unique(array, return_inverse=True)
    assert distinct.tolist() == want_distinct.tolist()
    assert inverse.tolist() == want_inverse.reshape(-1).tolist()
    assert distinct.dtype == np.int64 and inverse.dtype.kind == "i"


def test_by_hand() -> None:
    distinct, inverse = unique_inverse(np.array([5, 0, 5, 9, 0], dtype=np.int64))
    assert distinct.tolist() == [0, 5, 9]
    assert inverse.tolist() == [1, 0, 1, 2, 0]
    far = np.array([2**40, 3, 2**40], dtype=np.int64)  # the wide path
    assert [a.tolist() for a in unique_inverse(far)] == [[3, 2**40], [1, 0, 1]]
