"""What TextVQA and VizWiz share: the toolkits' soft accuracy on normalized answers (MMF's
processor for lmms-eval, ``process_answer`` for VLMEvalKit) and the profiles built on it, which
each task names and specializes (its own scorer, aggregation or per-item detail).

The leave-one-out is by list position (spec vqa-family §2, §3): annotator *i* is left out by
where its answer stands, and the mean over the ten values is taken as each toolkit takes it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

from ..core.exceptions import InputError
from ..core.toolkits import LMMS_EVAL as LMMS_EVAL_PIN
from ..core.toolkits import VLMEVALKIT as VLMEVALKIT_PIN
from ..kernels.vqa import average, leave_one_out_values
from ..normalize.mmf import evalai_answer_processor
from ..normalize.official import clean, digits_articles
from ..normalize.official import punctuation as official_punctuation
from ..normalize.vlmevalkit import punctuation_vlm
from ._base import Item, TaskProfile
from ._common import found_instead, mean_aggregate, vlmevalkit_overall
from ._explain import MMF_STEPS, VLM_2024_STEPS, VLM_STEPS, soft_explainer

__all__ = [
    "lmms_eval",
    "lmms_eval_accuracy",
    "per_answer",
    "position_loo",
    "require_fields",
    "vlm_process",
    "vlm_process_2024",
    "vlmevalkit",
    "vlmevalkit_2024",
    "vlmevalkit_2024_accuracy",
    "vlmevalkit_accuracy",
]


def position_loo(prediction: str, answers: Sequence[str], how: str) -> float:
    """Mean of ``min(1, k_i/3)`` with annotator *i* left out by list position."""
    matches = tuple(a == prediction for a in answers)
    if how == "exact":
        # statistics.mean does not depend on the order: only on m and N
        return _exact_loo(sum(matches), len(matches))
    return _ordered_loo(matches, how)


@lru_cache(maxsize=4096)
def _ordered_loo(matches: tuple[bool, ...], how: str) -> float:
    """The left-to-right (``naive``) or pairwise (``numpy``) mean of the leave-one-out values;
    its last bits depend on where the matches sit, so the cache key is the whole pattern."""
    return average(leave_one_out_values(matches, None, "position"), how)


@lru_cache(maxsize=1024)
def _exact_loo(m: int, n: int) -> float:
    """``statistics.mean`` of the N leave-one-out values when m answers match: m values
    ``min(1, (m-1)/3)`` and N-m values ``min(1, m/3)``, summed exactly, rounded once."""
    return average(leave_one_out_values([True] * m + [False] * (n - m), None, "position"), "exact")


def lmms_eval_accuracy(prediction: str, references: Sequence[str]) -> float:
    """lmms-eval ``textvqa_process_results``: the MMF processor on both sides, position
    leave-one-out, ``statistics.mean`` (exact rational mean, rounded once); no count assert."""
    if not references:
        raise InputError("a question with no answers (lmms-eval raises StatisticsError)")
    p = evalai_answer_processor(prediction)
    answers = [evalai_answer_processor(a) for a in references]
    return position_loo(p, answers, "exact")


@lru_cache(maxsize=1 << 16)
def vlm_process(text: str) -> str:
    """VLMEvalKit ``process_answer`` at HEAD: cleanup, PUNCT_vlm (real look-behind), DIGART."""
    return digits_articles(punctuation_vlm(clean(text)))


@lru_cache(maxsize=1 << 16)
def vlm_process_2024(text: str) -> str:
    """VLMEvalKit ``process_answer`` before 928a95b (2025-05-13): the official period pattern."""
    return digits_articles(official_punctuation(clean(text)))


def _vlm_score(process: Callable[[str], str], prediction: str, refs: Sequence[str]) -> float:
    if not refs:
        return float("nan")  # np.mean([]) is nan
    p = process(prediction)
    return position_loo(p, [process(a) for a in refs], "numpy")


def vlmevalkit_accuracy(prediction: str, references: Sequence[str]) -> float:
    """VLMEvalKit ``process_line(method='vqa_score')`` at e8e78f0: ``process_answer`` on both
    sides (no lower/``,``/``?``/``'s`` prelude), position leave-one-out, ``np.mean``.

    QUIRK corrected-period-rule (since 928a95b, 2025-05-13): ``2.`` keeps its period and scores 0
    against ten ``2``.
    """
    return _vlm_score(vlm_process, prediction, references)


def vlmevalkit_2024_accuracy(prediction: str, references: Sequence[str]) -> float:
    """VLMEvalKit before 2025-05-13: as :func:`vlmevalkit_accuracy` with the official period
    pattern (``2.`` → ``2``); the version behind most published VLMEvalKit numbers."""
    return _vlm_score(vlm_process_2024, prediction, references)


def require_fields(
    row: Mapping[str, Any], where: str, keys: Sequence[str], expected: str, no_answers: str = ""
) -> None:
    """An annotation row has each of *keys*, else one error naming the first one missing and
    the layout *expected*; a missing ``answers`` says where the answers seem to be instead, or
    *no_answers* (why a file may have none)."""
    for key in keys:
        if key in row:
            continue
        hint = found_instead(row, key) if key == "answers" else ""
        if key == "answers" and not hint:
            hint = no_answers
        raise InputError(f"{where}: no {key!r} field{hint}; expected {expected}")


def per_answer(score: Callable[[str, Sequence[str]], float]) -> Callable[[Item], Mapping[str, Any]]:
    """The per-item output of a best-of-the-answers score: each answer's own score (the item's
    score is their maximum); ANLS and ChartQA show it."""

    def detail(item: Item) -> Mapping[str, Any]:
        assert item.prediction is not None
        return {"answer_scores": [score(item.prediction, [a]) for a in item.references]}

    return detail


# ---------------------------------------------------------------------------------- profiles


def lmms_eval(task: str, note: str = "", **changes: Any) -> TaskProfile:
    """lmms-eval's profile of *task* (its folder under ``lmms_eval/tasks``): MMF's processor
    on both sides, ``statistics.mean``; ``exact_match``, a fraction. *note* ends the
    description; *changes* replace fields (the task's own scorer or detail)."""
    profile = TaskProfile(
        "lmms-eval",
        f"lmms-eval {task}: MMF's answer processor on both sides, position leave-one-out, "
        f"statistics.mean per question (exact); exact_match, a fraction{note}",
        LMMS_EVAL_PIN.at(f"lmms_eval/tasks/{task}/utils.py"),
        LMMS_EVAL_PIN.token,
        lmms_eval_accuracy,
        mean_aggregate("exact_match"),
        explain=soft_explainer(MMF_STEPS, "exact"),
    )
    return replace(profile, **changes)


def vlmevalkit(dataset: str, source: str, **changes: Any) -> TaskProfile:
    """VLMEvalKit's profile of *dataset* at HEAD (*source*: the file that scores it):
    ``process_answer`` on both sides, ``np.mean``; ``Overall`` = np.mean × 100."""
    profile = TaskProfile(
        "vlmevalkit",
        f"VLMEvalKit {dataset} at HEAD: process_answer on both sides (real look-behind "
        "period rule), np.mean per question, Overall = np.mean × 100",
        VLMEVALKIT_PIN.at(source),
        VLMEVALKIT_PIN.token,
        vlmevalkit_accuracy,
        vlmevalkit_overall,
        explain=soft_explainer(VLM_STEPS, "numpy"),
    )
    return replace(profile, **changes)


def vlmevalkit_2024(dataset: str, note: str = "", **changes: Any) -> TaskProfile:
    """VLMEvalKit's profile of *dataset* before 2025-05-13 (928a95b): as :func:`vlmevalkit`
    with the official period pattern (``2.`` → ``2``)."""
    profile = TaskProfile(
        "vlmevalkit-2024",
        f"VLMEvalKit {dataset} before 2025-05-13 (928a95b): as vlmevalkit with the official "
        f"period pattern (2. → 2){note}",
        "open-compass/VLMEvalKit before 928a95b (2025-05-13)",
        "VLMEvalKit@pre-928a95b",
        vlmevalkit_2024_accuracy,
        vlmevalkit_overall,
        explain=soft_explainer(VLM_2024_STEPS, "numpy"),
    )
    return replace(profile, **changes)
