"""The aggregates of :mod:`vqametrics.aggregate` for large inputs, bit for bit, with numpy.

Percentages are left-to-right sums (as the script's ``sum``), grouped by type with one stable
argsort per column; every value equals the per-question path's (``tests/test_differential.py``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence
from itertools import count
from typing import TYPE_CHECKING, Any

from . import Breakdown, official_outputs

if TYPE_CHECKING:
    from .stats import FloatArray, IntArray

__all__ = [
    "GroupCache",
    "fast_breakdown",
    "fast_group_percents",
    "fast_official_outputs",
    "type_groups",
]

#: rows per question/answer type, computed once per evaluation (keyed by the column's id)
GroupCache = dict[int, tuple[Sequence[str | None], list[tuple[str, "IntArray"]]]]


def _naive_sum(values: FloatArray) -> float:
    """``formulas.naive_sum`` bit for bit: a running sum (``cumsum`` adds left to right, never
    pairwise) started from ``0.0`` (the ``+ 0.0``: a sum of ``-0.0`` alone is ``0.0`` there)."""
    import numpy as np

    return float(np.cumsum(values)[-1]) + 0.0 if len(values) else 0.0


def type_groups(
    keys: Sequence[str | None], cache: GroupCache | None = None
) -> list[tuple[str, IntArray]]:
    """Rows of each key, keys in first-seen order, rows in order; ``None`` is left out.

    *cache* (one per evaluation, see ``FastScores.groups``) keeps the result per column.
    """
    if cache is None:
        return _compute_groups(keys)
    hit = cache.get(id(keys))
    if hit is None or hit[0] is not keys:
        hit = cache[id(keys)] = (keys, _compute_groups(keys))
    return hit[1]


def _compute_groups(keys: Sequence[str | None]) -> list[tuple[str, IntArray]]:
    import numpy as np

    table: defaultdict[str | None, int] = defaultdict(count().__next__)
    codes = np.array(list(map(table.__getitem__, keys)), dtype=np.int64)
    order = np.argsort(codes, kind="stable")
    ends = np.cumsum(np.bincount(codes, minlength=len(table))).tolist()
    out, start = [], 0
    for key, end in zip(table, ends, strict=True):
        if key is not None:
            out.append((key, order[start:end]))
        start = end
    return out


def _percent(values: FloatArray, digits: int | None) -> float:
    value = 100 * _naive_sum(values) / len(values)
    return value if digits is None else round(value, digits)


def fast_breakdown(
    scores: Sequence[float],
    question_types: Sequence[str | None],
    answer_types: Sequence[str | None],
    digits: int | None = 2,
    cache: GroupCache | None = None,
) -> Breakdown:
    """``aggregate.breakdown``, bit for bit."""
    import numpy as np

    if not scores:
        raise ValueError("no questions to aggregate")
    values = np.array(scores, dtype=np.float64)
    return {
        "overall": _percent(values, digits),
        "perQuestionType": {
            k: _percent(values[r], digits) for k, r in type_groups(question_types, cache)
        },
        "perAnswerType": {
            k: _percent(values[r], digits) for k, r in type_groups(answer_types, cache)
        },
    }


def fast_group_percents(
    scores: Sequence[float],
    columns: Sequence[Sequence[str | None]],
    cache: GroupCache | None = None,
) -> tuple[float, list[list[tuple[str, float, int]]]]:
    """The unrounded ``formulas.percent`` of *scores* (not empty) and, per key column, a
    ``(key, percent, n)`` per key (first-seen order, ``None`` left out) of
    ``formulas.group_by(keys, scores)``, bit for bit."""
    import numpy as np

    if not scores or any(len(keys) != len(scores) for keys in columns):
        raise ValueError("fast_group_percents: scores, and one key per score in each column")
    values = np.array(scores, dtype=np.float64)
    groups = [
        [(k, _percent(values[r], None), len(r)) for k, r in type_groups(keys, cache)]
        for keys in columns
    ]
    return _percent(values, None), groups


def _rounded(scores: Sequence[float], digits: int) -> list[float]:
    """``round(100 * s, digits)`` of every score, computed once per distinct value."""
    import numpy as np

    values = np.array(scores, dtype=np.float64)
    bits, inverse = np.unique(values.view(np.int64), return_inverse=True)
    distinct = bits.view(np.float64).tolist()
    table = np.array([round(100 * v, digits) for v in distinct], dtype=np.float64)
    return table[inverse.reshape(-1)].tolist()  # type: ignore[no-any-return]


def fast_official_outputs(
    question_ids: Sequence[Hashable],
    scores: Sequence[float],
    question_types: Sequence[str | None],
    answer_types: Sequence[str | None],
    digits: int = 2,
    cache: GroupCache | None = None,
) -> dict[str, Any]:
    """``aggregate.official_outputs``, bit for bit."""
    import numpy as np

    if len(question_ids) != len(scores) or len(scores) != len(question_types):
        return official_outputs(question_ids, scores, question_types, answer_types, digits)
    eval_qa = dict(zip(question_ids, _rounded(scores, digits), strict=True))
    qids = np.empty(len(question_ids), dtype=object)
    qids[:] = question_ids
    get = eval_qa.__getitem__

    def by(keys: Sequence[str | None]) -> dict[str, dict[Hashable, float]]:
        out = {}
        for key, rows in type_groups(keys, cache):
            group = qids[rows].tolist()
            out[key] = dict(zip(group, map(get, group), strict=True))
        return out

    return {
        "accuracy": fast_breakdown(scores, question_types, answer_types, digits, cache),
        "evalQA": eval_qa,
        "evalQuesType": by(question_types),
        "evalAnsType": by(answer_types),
    }
