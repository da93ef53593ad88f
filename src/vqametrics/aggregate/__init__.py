"""Aggregate per-question scores into the official output dicts (spec official-vqa-eval.md §5-6).

Every aggregate comes from the *unrounded* per-question values, summed left to right in
question order (the script's ``sum`` on Python <= 3.11), as ``round(100 * S / N, digits)``
with Python 3 rounding (ties to even). Per-type dicts keep first-seen order.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, TypedDict

from .formulas import group_by, naive_sum, percent

__all__ = ["Breakdown", "breakdown", "naive_sum", "official_outputs", "percent"]


class Breakdown(TypedDict):
    """The shape of the official ``accuracy`` dict."""

    overall: float
    perQuestionType: dict[str, float]
    perAnswerType: dict[str, float]


def breakdown(
    scores: Sequence[float],
    question_types: Sequence[str | None],
    answer_types: Sequence[str | None],
    digits: int | None = 2,
) -> Breakdown:
    """Overall, per question type and per answer type, in percent (the ``accuracy`` dict).

    Questions without a type are left out of that type's breakdown (the official data always
    has types; some other datasets have none, and the breakdown is then empty).
    """
    if not scores:
        raise ValueError("no questions to aggregate")
    return {
        "overall": percent(scores, digits),
        "perQuestionType": {
            k: percent(v, digits) for k, v in group_by(question_types, scores).items()
        },
        "perAnswerType": {k: percent(v, digits) for k, v in group_by(answer_types, scores).items()},
    }


def official_outputs(
    question_ids: Sequence[Hashable],
    scores: Sequence[float],
    question_types: Sequence[str | None],
    answer_types: Sequence[str | None],
    digits: int = 2,
) -> dict[str, Any]:
    """The four dicts the official script writes: accuracy, evalQA, evalQuesType, evalAnsType."""
    eval_qa = {qid: round(100 * s, digits) for qid, s in zip(question_ids, scores, strict=True)}
    by_qtype: dict[str, dict[Hashable, float]] = {}
    by_atype: dict[str, dict[Hashable, float]] = {}
    for qid, qt, at in zip(question_ids, question_types, answer_types, strict=True):
        if qt is not None:
            by_qtype.setdefault(qt, {})[qid] = eval_qa[qid]
        if at is not None:
            by_atype.setdefault(at, {})[qid] = eval_qa[qid]
    return {
        "accuracy": breakdown(scores, question_types, answer_types, digits),
        "evalQA": eval_qa,
        "evalQuesType": by_qtype,
        "evalAnsType": by_atype,
    }
