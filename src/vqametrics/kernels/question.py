"""Normalize one question's prediction and answers under a profile, each distinct string once."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from ..profiles import Profile

__all__ = ["QuestionNormalizer"]


class QuestionNormalizer:
    """Applies a profile's steps to questions, caching each distinct string.

    The caches live on the instance: create one per evaluation run. Nothing global is mutated.
    """

    __slots__ = ("_fin_ans", "_fin_pred", "_prep_ans", "_prep_pred", "profile")

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self._prep_pred: dict[str, str] = {}
        self._fin_pred: dict[str, str] = {}
        self._prep_ans: dict[str, str] = {}
        self._fin_ans: dict[str, str] = {}

    def question(self, prediction: str, answers: Sequence[str]) -> tuple[str, list[str], bool]:
        """Return ``(prediction, answers, skipped)`` normalized; *skipped* is true when the
        unanimity rule left the conditional steps out."""
        p = self.profile
        ans = _through(self._prep_ans, p.prepare_answer, answers)
        pred = _through(self._prep_pred, p.prepare_prediction, (prediction,))[0]
        if p.unanimity_rule and ans and ans.count(ans[0]) == len(ans):
            return pred, ans, True
        out = _through(self._fin_ans, p.finish_answer, ans)
        fin = _through(self._fin_pred, p.finish_prediction, (pred,))[0]
        return fin, out, False


def _through(cache: dict[str, str], fn: Callable[[str], str], texts: Iterable[str]) -> list[str]:
    """``[fn(t) for t in texts]``, each text computed once per normalizer (*cache* keeps them:
    the same answers recur across the questions)."""
    out = []
    for text in texts:
        value = cache.get(text)
        if value is None:
            value = cache[text] = fn(text)
        out.append(value)
    return out
