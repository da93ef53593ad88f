"""The aggregations every benchmark shares, written once: sums, means, group means, P/R/F1.

Each official scorer sums in its own way and the last bits of a mean depend on it, so the
summation is always named:

* QUIRK naive-sum: ``sum()`` on CPython <= 3.11 (and a ``for`` loop with ``+=``) adds left
  to right; the result depends on the order of the values. Kept bit for bit, because most
  official scripts were run that way (Python 3.12's ``sum`` compensates and would differ).
* QUIRK pairwise-sum: ``np.mean`` sums a float64 array pairwise in blocks; its last bits
  differ from the left-to-right sum for long lists. Kept for the toolkits that use numpy.
  The order is numpy 2.3's and later's: numpy up to 2.2 added an array of more than 8,192
  values in 8,192-value pieces, one after another (each piece pairwise), so a mean of that
  many non-integral values can differ in its last bit between numpy versions (a mean of 0/1
  hits cannot: those sums are exact).
* QUIRK round-half-even: the official rounding is Python 3's ``round(x, digits)``, which
  rounds the *binary* value correctly (ties to even), so ``round(0.125, 2) == 0.12`` and
  ``round(2.675, 2) == 2.67`` (2.675 is stored as 2.67499...). It is applied once, at the end.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

from ..core.sums import pairwise_sum

__all__ = [
    "Average",
    "exact_mean",
    "group_by",
    "group_means",
    "mean_of_means",
    "naive_mean",
    "naive_sum",
    "numpy_mean",
    "official_round",
    "percent",
    "precision_recall_f1",
]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

#: a mean of a list of floats (one of :func:`naive_mean`, :func:`numpy_mean`, :func:`exact_mean`)
Average = Callable[[Sequence[float]], float]


def naive_sum(values: Iterable[float]) -> float:
    """``v[0] + v[1] + ...`` left to right from ``0.0`` (QUIRK naive-sum: order-dependent)."""
    total = 0.0
    for v in values:
        total += v
    return total


def naive_mean(values: Sequence[float], empty: float = float("nan")) -> float:
    """``naive_sum(values) / len(values)``, the builtin ``sum(l) / len(l)`` of most official
    scripts; *empty* for no values (scripts differ: GQA's ``avg([])`` is ``0``)."""
    return naive_sum(values) / len(values) if values else empty


def numpy_mean(values: Sequence[float]) -> float:
    """``np.mean`` of a float64 array (QUIRK pairwise-sum), as VLMEvalKit averages;
    ``nan`` for no values, as ``np.mean([])``.

    numpy's own order without importing numpy (issue 23): its reduction starts from the
    identity ``0.0`` (so a sum of ``-0.0`` is ``0.0``), adds the pairwise sum of the array and
    divides by the count."""
    if not values:
        return float("nan")
    return (0.0 + pairwise_sum(values)) / len(values)


def exact_mean(values: Sequence[float]) -> float:
    """``statistics.mean``: the exact rational mean, rounded once (order-independent)."""
    if not values:
        raise ValueError("mean of no values")
    from fractions import Fraction  # with decimal: only here, not at every start (issue 23)

    return float(sum((Fraction(v) for v in values), Fraction(0)) / len(values))


def group_by(keys: Iterable[K | None], values: Iterable[V]) -> dict[K, list[V]]:
    """``{key: [values with that key, in order]}``, keys in first-seen order; a ``None`` key
    is left out (an item without the field belongs to no group)."""
    out: dict[K, list[V]] = {}
    for key, value in zip(keys, values, strict=True):
        if key is not None:
            out.setdefault(key, []).append(value)
    return out


def group_means(
    keys: Iterable[K | None],
    values: Iterable[float],
    average: Average = naive_mean,
    scale: float = 1.0,
) -> dict[K, float]:
    """``{key: average(values of the group) · scale}`` in first-seen key order
    (see :func:`group_by`); the values keep their order inside a group."""
    return {k: average(v) * scale for k, v in group_by(keys, values).items()}


def mean_of_means(groups: Mapping[K, Sequence[float]], average: Average = naive_mean) -> float:
    """``Σ_g average(group g) / #groups``, the means summed left to right in the mapping's
    order (QUIRK naive-sum: a macro average, as LLaVA averages POPE's splits); ``nan`` when
    there is no group."""
    return naive_mean([average(v) for v in groups.values()])


def percent(values: Sequence[float], digits: int | None = 2) -> float:
    """``round(100 · naive_sum / n, digits)`` exactly as the VQA script writes it (QUIRK
    naive-sum, QUIRK round-half-even); unrounded when *digits* is ``None``."""
    value = 100 * naive_sum(values) / len(values)
    return value if digits is None else official_round(value, digits)


def official_round(value: float, digits: int) -> float:
    """Python 3's ``round(value, digits)`` (QUIRK round-half-even on the binary value)."""
    return round(value, digits)


def precision_recall_f1(
    tp: int, fp: int, fn: int, zero: float | None = None
) -> tuple[float, float, float]:
    """``P = TP/(TP+FP)``, ``R = TP/(TP+FN)``, ``F1 = 2·P·R/(P+R)`` (``2·(P·R)`` is the same
    float: doubling is exact).

    *zero* is what a zero denominator gives: ``None`` raises ``ZeroDivisionError`` as the
    official scripts do; lmms-eval writes ``0`` (an int) and VLMEvalKit ``0.0``.
    """

    def ratio(num: float, den: float) -> float:
        if den == 0 and zero is not None:
            return zero
        return num / den

    precision = ratio(tp, tp + fp)
    recall = ratio(tp, tp + fn)
    return precision, recall, ratio(2 * precision * recall, precision + recall)
