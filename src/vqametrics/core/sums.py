"""Float sums in the order a toolkit adds them: the last bits of a mean depend on that order.

Below both the scoring kernels and the aggregations, which need the same sum.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["pairwise_sum"]


def pairwise_sum(values: Sequence[float]) -> float:
    """numpy's pairwise summation (``np.add.reduce`` on a contiguous float64 array)."""
    n = len(values)
    if n < 8:
        total = 0.0
        for v in values:
            total += v
        return total
    if n <= 128:
        r = list(values[:8])
        i = 8
        while i < n - n % 8:
            for j in range(8):
                r[j] += values[i + j]
            i += 8
        total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for v in values[i:]:
            total += v
        return total
    half = n // 2
    half -= half % 8
    return pairwise_sum(values[:half]) + pairwise_sum(values[half:])
