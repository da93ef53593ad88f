"""Normalize one question's prediction and answers under a profile, each distinct string once."""

from __future__ import annotations

from collections.abc import Sequence

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
        prep_ans = self._prep_ans
        ans = []
        for a in answers:
            v = prep_ans.get(a)
            if v is None:
                v = prep_ans[a] = p.prepare_answer(a)
            ans.append(v)
        pred = self._prep_pred.get(prediction)
        if pred is None:
            pred = self._prep_pred[prediction] = p.prepare_prediction(prediction)
        if p.unanimity_rule and ans and ans.count(ans[0]) == len(ans):
            return pred, ans, True
        fin_ans = self._fin_ans
        out = []
        for a in ans:
            v = fin_ans.get(a)
            if v is None:
                v = fin_ans[a] = p.finish_answer(a)
            out.append(v)
        fin = self._fin_pred.get(pred)
        if fin is None:
            fin = self._fin_pred[pred] = p.finish_prediction(pred)
        return fin, out, False
