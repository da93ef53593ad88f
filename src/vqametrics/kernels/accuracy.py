"""The public single-question functions: :func:`vqa_accuracy` and :func:`normalize_answer`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from ..core.answers import answer_groups
from ..core.arguments import ArgumentTypeError, check, check_choice
from ..core.exceptions import InputError
from ..profiles import Profile, get_profile
from .question import QuestionNormalizer
from .vqa import score_normalized

__all__ = ["normalize_answer", "vqa_accuracy"]


def normalize_answer(
    text: str,
    profile: str | Profile = "official",
    role: Literal["prediction", "answer"] = "prediction",
) -> str:
    """Normalize one answer string the way *profile* does.

    Parameters
    ----------
    text : str
        A model prediction or a human answer.
    profile : str or Profile, default="official"
        A registered profile name (see :func:`list_profiles`).
    role : {"prediction", "answer"}, default="prediction"
        ``"answer"`` returns what the profile does to a ground-truth answer when it normalizes
        one (``official-2017`` gives answers the punctuation step only).

    Returns
    -------
    str
        The normalized string: the form used when the answers are *not* unanimous (the official
        unanimity rule applies per question, see :func:`vqa_accuracy`).

    Examples
    --------
    >>> normalize_answer("A Dog.")
    'dog'
    >>> normalize_answer("1,000 dogs/cats")
    '1000 dogscats'
    >>> normalize_answer("Two!", profile="simple")
    '2'
    """
    check("normalize_answer", "text", text, "str")
    check_choice("normalize_answer", "role", role, ("prediction", "answer"))
    return get_profile(profile).normalize(text, role)


def vqa_accuracy(
    prediction: str,
    answers: Sequence[str] | Sequence[Mapping[str, object]],
    profile: str | Profile = "official",
) -> float:
    r"""VQA soft accuracy of one prediction against its human answers.

    .. math::

        \mathrm{acc} = \frac{1}{N}\sum_{i=1}^{N}\min\Bigl(1,\frac{k_i}{3}\Bigr)

    :math:`k_i` counts the answers other than annotator *i*'s that equal the normalized
    prediction. With 10 distinct answers and *m* matches this is :math:`\min(1, 0.3m)`:
    0, 0.3, 0.6, 0.9, 1.0 (spec official-vqa-eval.md §4). The ``simple`` profile uses the
    textbook :math:`\min(1, m/3)`.

    Parameters
    ----------
    prediction : str
        The model's answer, raw.
    answers : sequence of str, or of records ``{"answer": str, ...}``
        The human answers, raw. Plain strings are left out by position. Records are left out
        the official way, by record inequality: records without ``answer_id`` that are equal
        are left out together, which lowers the score (spec §4).
    profile : str or Profile, default="official"

    Returns
    -------
    float
        In [0, 1]; unrounded and bit-identical to the reproduced toolkit.

    Notes
    -----
    QUIRK unanimity rule (official): when the answers are all identical after whitespace cleanup,
    nothing else is normalized and matching is exact, so ``Yes`` scores 0 against ten ``yes``.
    The upstream author keeps it for OCR-style questions (GT-Vision-Lab/VQA issue #14).

    Examples
    --------
    >>> vqa_accuracy("crab", ["crab"] * 3 + ["lobster"] * 7)
    0.9
    >>> vqa_accuracy("Yes", ["yes"] * 10)
    0.0
    >>> round(vqa_accuracy("sky blue", ["sky blue", "blue"], profile="simple"), 4)
    0.3333
    """
    check("vqa_accuracy", "prediction", prediction, "str")
    prof = get_profile(profile)
    texts, groups = checked_answers("vqa_accuracy", answers)
    pred, ans, _ = QuestionNormalizer(prof).question(prediction, texts)
    return score_normalized(pred, ans, groups, prof)


def checked_answers(where: str, answers: object) -> tuple[list[str], list[int] | None]:
    """:func:`answer_groups` of a public function's *answers* argument: a list of strings or
    of ``{"answer": str}`` records, anything else the library's error naming *where*."""
    check(where, "answers", answers, "sequence")
    try:
        texts, groups = answer_groups(list(answers))  # type: ignore[call-overload]
    except TypeError as exc:
        raise ArgumentTypeError(f"{where}: answers: {exc}") from None
    if not texts:
        raise InputError(f"{where}: answers must not be empty")
    return texts, groups
