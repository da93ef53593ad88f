"""Near misses: the wrong answers that are almost right, sorted into named kinds.

A question counts when it scored 0. Its prediction is compared with the *majority answer* —
the most frequent human answer (first seen on ties) — both after the profile's full
normalization (as if the answers were not unanimous); the first kind that fits names it:

``unanimity``
    The official unanimity rule made it wrong: the answers are all identical after cleanup, so
    nothing was normalized, but with the normalization applied the prediction matches (``Yes``
    against ten ``yes``).
``plural``
    Singular vs plural of the majority answer (``pancakes`` vs ten ``pancake``): a final ``-s``,
    ``-es``, or ``y`` ↔ ``-ies`` (the ending is kept per example; on one OK-VQA PICa run, 109
    differ by ``-s`` and 7 more by ``-es``/``-ies``).
``number``
    A number word vs digits (``twelve`` vs ``12``) beyond the official table (zero–ten).
``answer in prediction``
    The majority answer appears, as whole words, inside a longer prediction (``a red car`` vs
    ``red``).
``prediction in answer``
    The prediction appears, as whole words, inside a longer majority answer.
``verbose``
    None of the above, and the prediction has four or more words (a sentence, not an answer).

Everything else is ``other`` (a plain miss). Each kind keeps its count and the first examples.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..profiles import Profile

__all__ = [
    "KINDS",
    "NearMiss",
    "NearMisses",
    "classify",
    "majority",
    "near_misses",
    "plural_ending",
]

KINDS = (
    "unanimity",
    "plural",
    "number",
    "answer in prediction",
    "prediction in answer",
    "verbose",
)

_UNITS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def _number_words() -> dict[str, str]:
    words = {w: str(i) for i, w in enumerate(_UNITS)}
    for k, t in enumerate(_TENS, start=2):
        words[t] = str(10 * k)
        for u in range(1, 10):
            words[f"{t} {_UNITS[u]}"] = str(10 * k + u)
            words[f"{t}-{_UNITS[u]}"] = str(10 * k + u)
    words["hundred"] = words["one hundred"] = "100"
    return words


_NUMBERS = _number_words()


def plural_ending(a: str, b: str) -> str | None:
    """``"-s"``, ``"-es"`` or ``"-ies"`` when *a* and *b* differ only by that plural ending."""
    if a == b or not a or not b:
        return None
    short, long = (a, b) if len(a) < len(b) else (b, a)
    if long == short + "s":
        return "-s"
    if long == short + "es":
        return "-es"
    if short.endswith("y") and long == short[:-1] + "ies":
        return "-ies"
    return None


def majority(answers: Sequence[str]) -> str:
    """The most frequent answer; the first seen among equally frequent ones."""
    counts: dict[str, int] = {}
    for a in answers:
        counts[a] = counts.get(a, 0) + 1
    best = max(counts.values())
    return next(a for a in answers if counts[a] == best)


def _number(text: str) -> str:
    return _NUMBERS.get(text, text)


def _contains(outer: str, inner: str) -> bool:
    return (
        bool(inner) and outer != inner and re.search(rf"\b{re.escape(inner)}\b", outer) is not None
    )


def classify(
    prediction: str, answers: Sequence[str], profile: Profile, unanimous: bool
) -> tuple[str, str] | None:
    """``(kind, detail)`` of a zero-scored *prediction* (see the module doc), or ``None``;
    *detail* is the plural ending for ``plural``, else empty.

    >>> from vqametrics import get_profile
    >>> classify("Pancakes", ["pancake"] * 10, get_profile("official"), False)
    ('plural', '-s')
    """
    pred = profile.normalize(prediction, "prediction")
    ref = majority([profile.normalize(a, "answer") for a in answers])
    if unanimous and pred == ref:
        return ("unanimity", "")
    ending = plural_ending(pred, ref)
    if ending:
        return ("plural", ending)
    if _number(pred) == _number(ref) and pred != ref:
        return ("number", "")
    if _contains(pred, ref):
        return ("answer in prediction", "")
    if _contains(ref, pred):
        return ("prediction in answer", "")
    if len(pred.split()) >= 4:
        return ("verbose", "")
    return None


@dataclass
class NearMiss:
    """One kind: how many zero-scored questions, and the first examples."""

    kind: str
    count: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)
    #: plural only: how many per ending (``-s``, ``-es``, ``-ies``)
    by_detail: dict[str, int] = field(default_factory=dict)


@dataclass
class NearMisses:
    """The taxonomy of one evaluation's zero-scored questions."""

    zeros: int
    kinds: dict[str, NearMiss]

    def count(self, kind: str) -> int:
        return self.kinds[kind].count

    def as_dict(self) -> dict[str, Any]:
        return {
            "zeros": self.zeros,
            "kinds": {
                k: {"count": v.count, "by": dict(v.by_detail), "examples": v.examples}
                for k, v in self.kinds.items()
            },
        }


def near_misses(evaluation: Any, examples: int = 5) -> NearMisses:
    """Classify every zero-scored question of a :class:`~vqametrics.pipeline.vqa.VQAEvaluation`."""
    out = {k: NearMiss(k) for k in KINDS}
    zeros = 0
    d = evaluation.dataset
    prof = evaluation.profile
    for i, rec in enumerate(evaluation.per_question()):
        if rec["score"] != 0 or rec.get("missing"):
            continue
        zeros += 1
        found = classify(rec["prediction"], d.answers[i], prof, bool(rec.get("unanimous_skip")))
        if found is None:
            continue
        kind, detail = found
        entry = out[kind]
        entry.count += 1
        if detail:
            entry.by_detail[detail] = entry.by_detail.get(detail, 0) + 1
        if len(entry.examples) < examples:
            entry.examples.append(
                {"question_id": rec["question_id"], "prediction": rec["prediction"], "index": i}
            )
    return NearMisses(zeros, out)
