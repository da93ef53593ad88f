"""EM and EM-any of a VQA evaluation, in the official breakdown shape (``vqa --metrics``)."""

from __future__ import annotations

from collections.abc import Sequence

from ..aggregate import Breakdown, breakdown
from ..core.signature import Signature
from ..kernels.exact_match import METRIC_KEYS, exact_match_scores
from ..pipeline.vqa import VQAEvaluation

__all__ = ["exact_match_breakdowns", "exact_match_summary"]


def exact_match_breakdowns(result: object, metrics: Sequence[str]) -> dict[str, Breakdown]:
    """The ``"em"`` / ``"em_any"`` breakdowns of :func:`exact_match_summary`, without signatures."""
    return exact_match_summary(result, metrics)[0]


def exact_match_summary(
    result: object, metrics: Sequence[str]
) -> tuple[dict[str, Breakdown], dict[str, Signature]]:
    """The ``"em"`` / ``"em_any"`` objects of ``vqametrics vqa --metrics``.

    Parameters
    ----------
    result : VQAEvaluation
        The evaluation to extend (its dataset, predictions, profile and digits are used).
    metrics : sequence of {"em", "em-any"}
        Which breakdowns to return; other names are ignored.

    Returns
    -------
    dict
        ``{"em": Breakdown, "em_any": Breakdown}`` (only those asked for), each the shape of
        the official ``accuracy`` dict: ``overall``, ``perQuestionType``, ``perAnswerType``,
        in percent rounded to ``result.digits``.
    """
    if not isinstance(result, VQAEvaluation):
        raise TypeError(f"result must be a VQAEvaluation, got {type(result).__name__}")
    wanted = [m for m in metrics if m in METRIC_KEYS]
    if not wanted:
        return {}, {}
    d = result.dataset
    scores = exact_match_scores(d, result.predictions, result.profile)
    per = {"em": scores.em, "em_any": scores.em_any}
    breakdowns = {
        METRIC_KEYS[m]: breakdown(
            per[METRIC_KEYS[m]], d.question_types, d.answer_types, result.digits
        )
        for m in wanted
    }
    signatures = {METRIC_KEYS[m]: scores.signature("em" if m == "em" else "em-any") for m in wanted}
    return breakdowns, signatures
