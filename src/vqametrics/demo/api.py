"""The demo's JSON payloads, as plain functions (no web framework needed to call or test them).

Every number in a payload comes from a library call (:func:`vqametrics.explain`,
:func:`vqametrics.vqa_accuracy`, :func:`vqametrics.evaluate_vqa`, the EM and MMBench scorers);
this module only selects inputs, formats numbers for display (``round(100 * x, 2)`` as the
official script does) and adds character diffs so the page can highlight what a step changed.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from .. import __version__, explain, get_profile, list_profiles, vqa_accuracy
from ..aggregate import percent
from ..core.signature import Signature
from .presets import list_presets

__all__ = [
    "MAX_ANSWERS",
    "MAX_TEXT",
    "STEP_PROFILES",
    "BadRequest",
    "explain_payload",
    "ladder",
    "presets_payload",
    "profiles_payload",
]

#: The profiles step 2 switches between (every registered profile is still scored).
STEP_PROFILES = ("official", "official-2017", "simple")
#: Input limits of the explain endpoint.
MAX_TEXT = 200
MAX_ANSWERS = 20

#: Two words that every profile keeps as they are (used to draw the m -> score ladder).
_LADDER_HIT = "cat"
_LADDER_MISS = "dog"


class BadRequest(ValueError):
    """The request's input is invalid; the message says why."""


def pct(value: float) -> float:
    """One question's score in percent, as the official ``evalQA`` rounds it."""
    return percent([value])


def profiles_payload() -> dict[str, Any]:
    """Every registered profile and what it does."""
    out = [{**p.as_dict(), "in_switch": p.name in STEP_PROFILES} for p in list_profiles()]
    return {"profiles": out, "switch": list(STEP_PROFILES), "version": __version__}


def presets_payload() -> dict[str, Any]:
    """The step-1 presets (inputs only)."""
    return {"presets": list_presets(), "groups": ["textbook", "real", "quirks"]}


def _diff(before: str, after: str) -> list[list[str]]:
    """Character diff from *before* to *after*: ``[op, text]`` with op ``eq``/``del``/``ins``."""
    if before == after:
        return [["eq", before]] if before else []
    out: list[list[str]] = []
    sm = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            out.append(["eq", before[i1:i2]])
            continue
        if i2 > i1:
            out.append(["del", before[i1:i2]])
        if j2 > j1:
            out.append(["ins", after[j1:j2]])
    return out


def _with_diffs(raw: str, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    text = raw
    out = []
    for s in steps:
        out.append({**s, "input": text, "diff": _diff(text, str(s["output"]))})
        text = str(s["output"])
    return out


@lru_cache(maxsize=32)
def ladder(profile: str, n: int = 10) -> list[dict[str, Any]]:
    """The score for m = 0..n matching answers out of n under *profile* (via vqa_accuracy)."""
    out = []
    for m in range(n + 1):
        answers = [_LADDER_HIT] * m + [_LADDER_MISS] * (n - m)
        official = vqa_accuracy(_LADDER_HIT, answers, profile)
        textbook = vqa_accuracy(_LADDER_HIT, answers, "simple")
        out.append(
            {
                "m": m,
                "score": official,
                "percent": pct(official),
                "textbook": textbook,
                "textbook_percent": pct(textbook),
            }
        )
    return out


def _check_text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise BadRequest(f"{what} must be a string, got {type(value).__name__}")
    if len(value) > MAX_TEXT:
        raise BadRequest(f"{what} must be at most {MAX_TEXT} characters, got {len(value)}")
    return value


def check_explain_input(body: object) -> tuple[str, list[str], str]:
    """Validate an explain request body: ``{prediction, answers, profile}``."""
    if not isinstance(body, dict):
        raise BadRequest("the request body must be a JSON object")
    prediction = _check_text(body.get("prediction", ""), "prediction")
    answers = body.get("answers")
    if not isinstance(answers, list) or not answers:
        raise BadRequest("answers must be a non-empty list of strings")
    if len(answers) > MAX_ANSWERS:
        raise BadRequest(f"answers must hold at most {MAX_ANSWERS} strings, got {len(answers)}")
    texts = [_check_text(a, f"answers[{i}]") for i, a in enumerate(answers)]
    profile = body.get("profile", "official")
    if not isinstance(profile, str):
        raise BadRequest("profile must be a string")
    try:
        get_profile(profile)
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    return prediction, texts, profile


def explain_payload(prediction: str, answers: Sequence[str], profile: str) -> dict[str, Any]:
    """:func:`vqametrics.explain` as JSON, plus display helpers.

    Added to ``Explanation.as_dict()``: ``percent`` and ``textbook_percent`` (rounded as the
    script rounds ``evalQA``), ``score_repr`` (the exact float), per-step ``input`` and
    ``diff``, the m -> score ``ladder`` of this profile, and ``by_profile``: the same inputs
    scored by :func:`vqametrics.vqa_accuracy` under every registered profile.
    """
    e = explain(prediction, list(answers), profile)
    d = e.as_dict()
    d["prediction_steps"] = _with_diffs(prediction, list(d["prediction_steps"]))  # type: ignore[call-overload]
    d["answer_steps"] = [
        _with_diffs(raw, list(steps))
        for raw, steps in zip(answers, d["answer_steps"], strict=True)  # type: ignore[call-overload]
    ]
    d["percent"] = pct(e.score)
    d["textbook_percent"] = pct(e.textbook_score)
    d["score_repr"] = repr(e.score)
    d["n"] = len(answers)
    d["ladder"] = ladder(profile, len(answers))
    by_profile = []
    for p in list_profiles():
        s = vqa_accuracy(prediction, list(answers), p)
        by_profile.append(
            {"profile": p.name, "score": s, "percent": pct(s), "in_switch": p.name in STEP_PROFILES}
        )
    d["by_profile"] = by_profile
    d["signature"] = Signature(
        "vqa-acc",
        (*get_profile(profile).signature_fields(), ("answers", len(answers)), ("n", 1)),
    ).format()
    return d
