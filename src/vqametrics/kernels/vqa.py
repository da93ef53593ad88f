r"""VQA soft accuracy for one question.

.. math::

    \mathrm{acc} = \frac{1}{N}\sum_{i=1}^{N} \min\Bigl(1, \frac{k_i}{3}\Bigr)

where :math:`N` is the number of human answers and :math:`k_i` the number of *other* answers
(leave annotator *i* out) equal to the normalized prediction. With 10 distinct answer records
and :math:`m` matching answers this is :math:`\min(1, 0.3m)`; the textbook form
:math:`\min(1, m/3)` is the ``simple`` profile. Spec: official-vqa-eval.md §4.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core.sums import pairwise_sum

if TYPE_CHECKING:  # a task that only averages need not load every profile (issue 23)
    from ..profiles import Profile

__all__ = [
    "annotator_values",
    "average",
    "leave_one_out_values",
    "others_matching",
    "score_normalized",
]

_THIRDS = (0.0, 1 / 3, 2 / 3)


def _value(k: int) -> float:
    # the script: min(1, float(k)/3)
    return _THIRDS[k] if k < 3 else 1.0


def others_matching(matches: Sequence[bool], groups: Sequence[int] | None, mode: str) -> list[int]:
    """Per annotator *i*, ``k_i``: how many of the answers left in when *i* is left out match.

    ``mode="position"`` leaves out annotator *i* only. ``mode="records"`` reproduces the official
    dict inequality: annotator *i* also loses every record equal to its own, i.e. with the same
    normalized answer and the same *group* (the other fields of the record); ``groups=None``
    means all records differ in their other fields (real data: distinct ``answer_id``).
    """
    m = sum(matches)
    if mode == "records" and groups is not None:
        hits = [g for g, hit in zip(groups, matches, strict=True) if hit]
        return [m - hits.count(g) if hit else m for g, hit in zip(groups, matches, strict=True)]
    return [m - 1 if hit else m for hit in matches]


def leave_one_out_values(
    matches: Sequence[bool], groups: Sequence[int] | None, mode: str
) -> list[float]:
    """Per-annotator values ``min(1, k_i/3)`` with ``k_i`` from :func:`others_matching`."""
    return [_value(k) for k in others_matching(matches, groups, mode)]


def average(values: Sequence[float], mean: str) -> float:
    """Average per-annotator values the way the profile's toolkit does (bit-exact)."""
    n = len(values)
    if mean == "naive":
        # QUIRK naive-sum: the script's sum() is a left-to-right float sum on Python <= 3.11;
        # the last bits depend on where the matches sit (spec §4). Python 3.12's compensated
        # sum() would differ, so the loop is explicit.
        total = 0.0
        for v in values:
            total += v
        return total / n
    if mean == "exact":
        # statistics.mean: the exact rational mean, rounded once.
        from fractions import Fraction  # with decimal: imported only by this mode

        return float(sum((Fraction(v) for v in values), Fraction(0)) / n)
    if mean == "numpy":
        return pairwise_sum(values) / n
    raise ValueError(f"unknown mean {mean!r}")


def annotator_values(
    prediction: str, answers: Sequence[str], groups: Sequence[int] | None, profile: Profile
) -> list[float]:
    """Per-annotator values for an already-normalized prediction and answers."""
    matches = [a == prediction for a in answers]
    if profile.leave_one_out == "none":
        return []
    return leave_one_out_values(matches, groups, profile.leave_one_out)


def score_normalized(
    prediction: str, answers: Sequence[str], groups: Sequence[int] | None, profile: Profile
) -> float:
    """The per-question score of an already-normalized prediction against normalized answers."""
    if profile.empty_prediction_scores_zero and not prediction:
        return 0.0
    if profile.leave_one_out == "none":
        m = sum(1 for a in answers if a == prediction)
        return min(1.0, m / 3.0)
    if not answers:
        raise ValueError("a question needs at least one answer")
    return average(annotator_values(prediction, answers, groups, profile), profile.mean)
