r"""Exact Match (EM) and EM-any: binary string agreement after the profile's normalization.

.. math::

    \mathrm{EM}(p, r) = \bigl[\, f(p) = f(r) \;\wedge\; f(p) \neq \varepsilon \,\bigr]
    \qquad
    \mathrm{EM\text{-}any}(p, A) = \max_{a \in A} \mathrm{EM}(p, a)

:math:`p` is the prediction, :math:`r` the single reference answer, :math:`A` the human answers,
:math:`\varepsilon` the empty string and :math:`f` the profile's *prediction* normalizer
(``Profile.normalize(text, "prediction")``), applied to **both** sides, always. The card with
worked examples and the reasons behind each choice is ``docs/metrics.md``.

Decisions (each is documented in the card):

* **One normalizer for both sides.** EM compares two strings, so both go through the same
  function and ``exact_match(x, x) == 1`` for every non-empty *x*. In ``official`` and most peer
  profiles the prediction and answer normalizers are identical, so nothing changes there. In
  ``official-2017`` (and ``evalai-2017``) the answer role is punctuation only, because the 2017
  script assumed the ground truth was already processed; using it would make
  ``exact_match("two", "two", profile="official-2017")`` score 0.
* **No unanimity rule.** The official rule (normalize nothing when all answers agree) is a VQA
  accuracy quirk; EM always normalizes. So ``two`` against ten ``2`` is EM 1 but VQA 0.
* **Empty never matches.** An empty normalized string is a missing answer, not an answer:
  it is never chosen as the reference and never matches (OK-VQA val has empty answers).
* **The reference on VQA data** is ``multiple_choice_answer`` when the record has one, else the
  most frequent normalized non-empty answer; ties go to the form whose first occurrence comes
  first in the answer list. See :func:`reference_answer`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from ..core.signature import Signature
from ..profiles import Profile, get_profile

__all__ = [
    "ExactMatchScores",
    "Reference",
    "exact_match",
    "exact_match_any",
    "exact_match_scores",
    "reference_answer",
]

#: ``--metrics`` names and the keys of their results.
METRIC_KEYS = {"em": "em", "em-any": "em_any"}

ReferenceSource = Literal["multiple_choice_answer", "majority"]


class AnswerColumns(Protocol):
    """What EM needs of a dataset: each question's answers and its multiple-choice answer."""

    @property
    def answers(self) -> Sequence[Sequence[str]]: ...

    @property
    def multiple_choice_answers(self) -> Sequence[str | None]: ...


def _normalizer(profile: Profile) -> Callable[[str], str]:
    """The profile's prediction normalizer, memoized per distinct string (one per run)."""
    cache: dict[str, str] = {}
    norm = profile.normalize

    def f(text: str) -> str:
        out = cache.get(text)
        if out is None:
            out = cache[text] = norm(text, "prediction")
        return out

    return f


def _check_str(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    return value


@dataclass(frozen=True)
class Reference:
    """The single reference answer that EM compares against, and where it came from.

    Attributes
    ----------
    text : str
        The normalized reference (what EM compares with); ``""`` when there is none.
    raw : str
        The raw string it came from: ``multiple_choice_answer``, or the first human answer
        that normalizes to *text*.
    source : {"multiple_choice_answer", "majority"}
        Whether it is the annotation's ``multiple_choice_answer`` or the majority answer.
    votes : int
        How many human answers normalize to *text*.
    n_answers : int
        How many human answers the question has.
    tied : tuple of str
        Other normalized answers with as many votes (majority only; the first occurring won).
    """

    text: str
    raw: str
    source: ReferenceSource
    votes: int
    n_answers: int
    tied: tuple[str, ...] = ()


def _reference(
    raw_answers: Sequence[str],
    normalized: Sequence[str],
    multiple_choice_answer: str | None,
    norm: Callable[[str], str],
) -> Reference:
    n = len(raw_answers)
    if multiple_choice_answer is not None:
        text = norm(multiple_choice_answer)
        votes = sum(1 for a in normalized if a == text) if text else 0
        return Reference(text, multiple_choice_answer, "multiple_choice_answer", votes, n)
    counts: dict[str, int] = {}
    first_raw: dict[str, str] = {}
    for raw, a in zip(raw_answers, normalized, strict=True):
        if not a:
            continue  # an empty answer is a missing annotation, never the reference
        counts[a] = counts.get(a, 0) + 1
        first_raw.setdefault(a, raw)
    if not counts:
        return Reference("", "", "majority", 0, n)
    top = max(counts.values())
    # dicts keep first-insertion order: the first form reaching the top count occurs first
    winners = [a for a, c in counts.items() if c == top]
    return Reference(winners[0], first_raw[winners[0]], "majority", top, n, tuple(winners[1:]))


def reference_answer(
    answers: Sequence[str],
    multiple_choice_answer: str | None = None,
    profile: str | Profile = "official",
) -> Reference:
    r"""The reference answer EM uses on VQA data.

    .. math::

        r = \begin{cases}
            f(\mathrm{mca}) & \text{if the record has a multiple\_choice\_answer} \\
            \operatorname{arg\,max}_{v} \, |\{i : f(a_i) = v \neq \varepsilon\}|
                & \text{otherwise (ties: first occurrence)}
        \end{cases}

    Parameters
    ----------
    answers : sequence of str
        The human answers, raw, in file order.
    multiple_choice_answer : str, optional
        The annotation's ``multiple_choice_answer``; it wins when present (even if another
        answer has more votes after normalization), because it is the dataset's own choice.
    profile : str or Profile, default="official"
        Its prediction normalizer :math:`f` is applied to every answer.

    Returns
    -------
    Reference
        ``text`` is normalized; ``votes`` counts the answers that normalize to it.

    Examples
    --------
    >>> r = reference_answer(["race"] * 6 + ["motocross"] * 2 + ["ride"] * 2)
    >>> (r.text, r.votes, r.source)
    ('race', 6, 'majority')
    >>> reference_answer(["Two", "2", "3", "3"]).text   # "Two" and "2" both normalize to "2"
    '2'
    >>> reference_answer(["", "", "", "c", "c", "b"]).text   # empty answers never win
    'c'
    >>> r = reference_answer(["blue", "red", "red", "blue"])
    >>> (r.text, r.tied)
    ('blue', ('red',))
    """
    if isinstance(answers, str):
        raise TypeError("answers must be a sequence of str, not a str")
    raw = [_check_str(a, "each answer") for a in answers]
    if not raw:
        raise ValueError("answers must not be empty")
    if multiple_choice_answer is not None:
        _check_str(multiple_choice_answer, "multiple_choice_answer")
    norm = _normalizer(get_profile(profile))
    return _reference(raw, [norm(a) for a in raw], multiple_choice_answer, norm)


def exact_match(prediction: str, reference: str, profile: str | Profile = "official") -> float:
    r"""Exact Match of one prediction against one reference answer.

    .. math::

        \mathrm{EM}(p, r) = \bigl[\, f(p) = f(r) \neq \varepsilon \,\bigr]

    :math:`f` is the profile's prediction normalizer, applied to both strings, always (no
    unanimity rule); :math:`\varepsilon` is the empty string.

    Parameters
    ----------
    prediction : str
        The model's answer, raw.
    reference : str
        The reference answer, raw (on VQA data see :func:`reference_answer`).
    profile : str or Profile, default="official"
        A registered profile name (see :func:`vqametrics.list_profiles`).

    Returns
    -------
    float
        1.0 or 0.0 (higher is better).

    Raises
    ------
    UnknownNameError
        *profile* is not registered.

    Notes
    -----
    Symmetric: ``exact_match(a, b) == exact_match(b, a)``. Two empty strings do not match.

    Examples
    --------
    >>> exact_match("Two dogs.", "2 dogs")
    1.0
    >>> exact_match("t-shirt", "tshirt")
    0.0
    >>> exact_match("two", "2", profile="official-2017")   # VQA accuracy would give 0 here
    1.0
    """
    _check_str(prediction, "prediction")
    _check_str(reference, "reference")
    norm = get_profile(profile).normalize
    p = norm(prediction, "prediction")
    return 1.0 if p and p == norm(reference, "prediction") else 0.0


def exact_match_any(
    prediction: str, answers: Sequence[str], profile: str | Profile = "official"
) -> float:
    r"""EM-any: 1 if the prediction equals *any* human answer after normalization.

    .. math::

        \mathrm{EM\text{-}any}(p, A)
            = \bigl[\, \exists a \in A : f(p) = f(a) \neq \varepsilon \,\bigr]

    Parameters
    ----------
    prediction : str
        The model's answer, raw.
    answers : sequence of str
        The human answers, raw.
    profile : str or Profile, default="official"

    Returns
    -------
    float
        1.0 or 0.0. It is 1 whenever VQA accuracy is positive under a profile whose answer
        normalizer equals its prediction normalizer, but also for a single-annotator answer
        that VQA accuracy credits only 0.3.

    Examples
    --------
    >>> exact_match_any("ride", ["race"] * 6 + ["motocross"] * 2 + ["ride"] * 2)
    1.0
    >>> exact_match_any("bike", ["race"] * 6 + ["motocross"] * 2 + ["ride"] * 2)
    0.0
    """
    _check_str(prediction, "prediction")
    if isinstance(answers, str):
        raise TypeError("answers must be a sequence of str, not a str")
    raw = [_check_str(a, "each answer") for a in answers]
    if not raw:
        raise ValueError("answers must not be empty")
    norm = _normalizer(get_profile(profile))
    p = norm(prediction)
    return 1.0 if p and any(norm(a) == p for a in raw) else 0.0


@dataclass(frozen=True, eq=False)
class ExactMatchScores:
    """Per-question EM and EM-any of a dataset, aligned with its questions.

    Attributes
    ----------
    em, em_any : list of float
        0.0 or 1.0 per question (a missing prediction scores 0).
    references : list of Reference
        The reference each EM value was computed against.
    normalized_predictions : list of str or None
        The prediction after the profile's normalizer (``None`` when missing).
    """

    profile: Profile
    em: list[float]
    em_any: list[float]
    references: list[Reference]
    normalized_predictions: list[str | None]

    @property
    def reference_rule(self) -> str:
        """``mca`` (every reference is ``multiple_choice_answer``), ``majority``, or ``mixed``."""
        sources = {r.source for r in self.references}
        if sources == {"multiple_choice_answer"}:
            return "mca"
        return "majority" if sources == {"majority"} else "mixed"

    def signature(self, metric: Literal["em", "em-any"]) -> Signature:
        """The signature of the EM or EM-any score (``ref:`` only for EM, which uses it)."""
        return Signature(
            metric,
            (
                *self.profile.signature_fields(),
                ("ref", self.reference_rule if metric == "em" else None),
                ("n", len(self.em)),
            ),
        )


def exact_match_scores(
    dataset: AnswerColumns,
    predictions: Sequence[str | None],
    profile: str | Profile = "official",
) -> ExactMatchScores:
    """EM and EM-any for every question of *dataset* (predictions aligned, ``None`` = missing).

    Each distinct string is normalized once. See :func:`exact_match`, :func:`exact_match_any`
    and :func:`reference_answer` for the definitions.
    """
    prof = get_profile(profile)
    norm = _normalizer(prof)
    em: list[float] = []
    em_any: list[float] = []
    refs: list[Reference] = []
    preds: list[str | None] = []
    for raw, answers, mca in zip(
        predictions, dataset.answers, dataset.multiple_choice_answers, strict=True
    ):
        normalized = [norm(a) for a in answers]
        ref = _reference(answers, normalized, mca, norm)
        refs.append(ref)
        if raw is None:
            preds.append(None)
            em.append(0.0)
            em_any.append(0.0)
            continue
        p = norm(raw)
        preds.append(p)
        em.append(1.0 if p and p == ref.text else 0.0)
        em_any.append(1.0 if p and p in normalized else 0.0)
    return ExactMatchScores(prof, em, em_any, refs, preds)
