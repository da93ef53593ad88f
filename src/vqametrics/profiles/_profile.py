"""What a scoring profile is, and the registry of profiles by name.

A profile pins *everything* that decides a VQA score: which normalization steps run on the
prediction and on the answers, whether the official unanimity rule skips them, how the
leave-one-out is done and how the per-annotator values are averaged. ``official`` is the
default; the other profiles reproduce other toolkits so that gaps between papers can be explained.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from ..core.exceptions import UnknownNameError
from ..core.registry import register_once

LeaveOneOut = Literal["records", "position", "none"]
Mean = Literal["naive", "exact", "numpy"]


@dataclass(frozen=True)
class Step:
    """One named normalization step.

    ``conditional`` steps are skipped for a question whose answers are all identical after the
    unconditional steps, in profiles that apply the official unanimity rule.
    """

    name: str
    fn: Callable[[str], str]
    conditional: bool = False


def _compose(steps: Iterable[Step]) -> Callable[[str], str]:
    fns = tuple(s.fn for s in steps)
    if not fns:
        return _identity
    if len(fns) == 1:
        return fns[0]

    def composed(text: str) -> str:
        for fn in fns:
            text = fn(text)
        return text

    return composed


def _identity(text: str) -> str:
    return text


#: the profile's scoring rules beside its steps, as :meth:`Profile.as_dict` lists them
_RULES = ("unanimity_rule", "leave_one_out", "mean", "empty_prediction_scores_zero")


@dataclass(frozen=True)
class Profile:
    """How one toolkit scores a VQA answer; ``vqametrics.profiles.register_profile`` adds one.

    Attributes
    ----------
    name, description, reproduces:
        Registry name, one-line summary, and the toolkit version (repo @ commit) it reproduces.
    toolkit:
        A short token of that toolkit version for signatures (``vqaEval@a013f00``). A profile's
        behaviour never changes under the same name and token; a new toolkit behaviour gets a
        new profile.
    prediction_steps, answer_steps:
        Normalization steps applied to the prediction and to each human answer, in order.
    unanimity_rule:
        If true, the conditional steps run only when the answers are not all identical after the
        unconditional ones (the official rule, kept for OCR-style questions).
    leave_one_out:
        ``"records"``: annotator *i* is compared with the records that are not equal to record *i*
        (the official dict inequality); ``"position"``: with every other position; ``"none"``: no
        leave-one-out, the score is ``min(1, m/3)``.
    mean:
        How the per-annotator values are averaged: ``"naive"`` left-to-right float sum (the
        script on Python <= 3.11), ``"exact"`` (``statistics.mean``), ``"numpy"`` (pairwise sum).
    empty_prediction_scores_zero:
        An empty normalized prediction scores 0 even if empty answers match it.
    """

    name: str
    description: str
    reproduces: str
    toolkit: str
    prediction_steps: tuple[Step, ...]
    answer_steps: tuple[Step, ...]
    unanimity_rule: bool
    leave_one_out: LeaveOneOut
    mean: Mean
    empty_prediction_scores_zero: bool = False
    prepare_prediction: Callable[[str], str] = field(init=False, repr=False, compare=False)
    finish_prediction: Callable[[str], str] = field(init=False, repr=False, compare=False)
    prepare_answer: Callable[[str], str] = field(init=False, repr=False, compare=False)
    finish_answer: Callable[[str], str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for role, steps in (("prediction", self.prediction_steps), ("answer", self.answer_steps)):
            always = [s for s in steps if not s.conditional]
            cond = [s for s in steps if s.conditional]
            if any(s.conditional for s in steps[: len(always)]) or steps[len(always) :] != tuple(
                cond
            ):
                raise ValueError(f"profile {self.name!r}: conditional {role} steps must come last")
            object.__setattr__(self, f"prepare_{role}", _compose(always))
            object.__setattr__(self, f"finish_{role}", _compose(cond))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its registry name (its steps are closures), else by its declared fields
        (a profile of one's own, whose steps pickle)."""
        if _REGISTRY.get(self.name) is self:
            return (get_profile, (self.name,))
        return (type(self), tuple(getattr(self, f.name) for f in fields(self) if f.init))

    def normalize(self, text: str, role: Literal["prediction", "answer"] = "prediction") -> str:
        """Apply every step of *role* (the form used when the answers are not unanimous)."""
        if role == "prediction":
            return self.finish_prediction(self.prepare_prediction(text))
        if role == "answer":
            return self.finish_answer(self.prepare_answer(text))
        raise ValueError(f"role must be 'prediction' or 'answer', got {role!r}")

    def as_dict(self) -> dict[str, object]:
        """What the profile does, as JSON-ready data (``profiles --list --json``, the demo)."""
        steps = (*self.prediction_steps, *self.answer_steps)
        return {
            **{k: getattr(self, k) for k in ("name", "description", "reproduces", "toolkit")},
            "prediction_steps": [s.name for s in self.prediction_steps],
            "answer_steps": [s.name for s in self.answer_steps],
            "conditional_steps": sorted({s.name for s in steps if s.conditional}),
            **{k: getattr(self, k) for k in _RULES},
        }

    def signature_fields(self) -> tuple[tuple[str, str], ...]:
        """The ``profile:`` and ``toolkit:`` fields of every signature of a score it computed."""
        return (("profile", self.name), ("toolkit", self.toolkit))


_REGISTRY: dict[str, Profile] = {}


def register_profile(profile: Profile) -> Profile:
    """Add *profile* to the registry (a name can be registered once)."""
    return register_once(_REGISTRY, profile.name, profile, "profile")


def get_profile(name: str | Profile) -> Profile:
    """Return the registered profile called *name*.

    Parameters
    ----------
    name : str or Profile
        A registered name (see :func:`list_profiles`); a :class:`Profile` is returned as is.

    Returns
    -------
    Profile

    Raises
    ------
    UnknownNameError
        The name is not registered; the message lists the valid names.
    """
    if isinstance(name, Profile):
        return name
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        valid = ", ".join(_REGISTRY)
        raise UnknownNameError(f"unknown profile {name!r}; valid profiles: {valid}") from None


def list_profiles() -> list[Profile]:
    """Every registered profile, in registration order (``official`` first).

    Returns
    -------
    list of Profile
        See :meth:`Profile.as_dict` for what each one records.
    """
    return list(_REGISTRY.values())
