"""What the judge is asked: yes/no extraction, open-ended equivalence, and the run's counts.

Each judged item records its prompt, the judge's response and the decision. A reply that
decides nothing (garbage, a refusal, a failed call) leaves the item *unjudged*: it is counted
and reported, never guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..normalize.vlmevalkit import punctuation_vlm
from .client import JudgeClient, JudgeReply, check_judged

__all__ = [
    "JudgeStats",
    "Judgement",
    "build_equivalence_prompt",
    "build_yes_no_prompt",
    "check_judged",
    "equivalence_summary",
    "judge_equivalence",
    "judge_signature_value",
    "judge_yes_no",
    "judge_yes_no_records",
    "parse_yes_no_reply",
]

_YES_NO_TEMPLATE = """\
You will be given a yes/no question and an answer someone wrote. Decide whether the answer \
says yes or no. If it says neither, or both, reply Unknown. Reply with one word: Yes, No or \
Unknown.

Example 1
Question: Is there a dog in the image?
Answer: I can see a dog sleeping on the couch.
Reply: Yes

Example 2
Question: Is the sign red?
Answer: The sign in the picture is blue.
Reply: No

Now the real one
Question: {question}
Answer: {answer}
Reply:"""

_EQUIVALENCE_TEMPLATE = """\
You are checking answers to a question about an image. Below are the question, the answers \
that human annotators gave, and a model's answer. Does the model's answer mean the same as at \
least one of the human answers? Minor differences in wording, spelling, number format or \
detail do not matter. Reply with one word: Yes or No.

Question: {question}
Human answers: {answers}
Model answer: {prediction}
Reply:"""


def build_yes_no_prompt(question: str, answer: str) -> str:
    """The yes/no prompt: our wording, structured as VLMEvalKit's ``YOrN_match_prompt``
    (open-compass/VLMEvalKit@e8e78f05: ``vlmeval/dataset/utils/yorn.py``): an instruction,
    two worked examples (one yes, one no), then the item; the reply is Yes, No or Unknown."""
    return _YES_NO_TEMPLATE.format(question=question.rstrip(), answer=answer)


def build_equivalence_prompt(question: str, answers: Sequence[str], prediction: str) -> str:
    """The open-ended prompt: is *prediction* equivalent to one of the human *answers*?"""
    listed = "; ".join(dict.fromkeys(a.strip() for a in answers if a.strip()))
    return _EQUIVALENCE_TEMPLATE.format(
        question=question.strip() or "(not given)", answers=listed, prediction=prediction
    )


def parse_yes_no_reply(reply: str | None) -> str | None:
    """``"yes"``/``"no"`` when the reply says exactly one of them, else ``None``.

    VLMEvalKit's ``YOrN_Extraction``: lower-case, its punctuation step, split into words;
    "yes" without "no" is yes, "no" without "yes" is no, anything else decides nothing.
    """
    if reply is None:
        return None
    words = punctuation_vlm(reply.lower()).split()
    yes, no = "yes" in words, "no" in words
    if yes != no:
        return "yes" if yes else "no"
    return None


@dataclass(frozen=True)
class Judgement:
    """One item the judge was asked about (or that the rules decided without a call)."""

    decision: str | None
    prompt: str | None = None
    response: str | None = None
    cached: bool = False
    calls: int = 0
    error: str | None = None
    by: str = "judge"

    def as_dict(self) -> dict[str, Any]:
        """The ``judge`` entry of a per-question record."""
        out: dict[str, Any] = {"decision": self.decision, "by": self.by}
        if self.prompt is not None:
            out.update(prompt=self.prompt, response=self.response, cached=self.cached)
        if self.error is not None:
            out["error"] = self.error
        return out


def _judgement(reply: JudgeReply, decision: str | None) -> Judgement:
    return Judgement(decision, reply.prompt, reply.response, reply.cached, reply.calls, reply.error)


@dataclass
class JudgeStats:
    """The counts every ``--json`` reports for a judged run."""

    model: str
    judged: int = 0
    unjudged: int = 0
    judge_calls: int = 0
    cache_hits: int = 0
    unjudged_examples: list[dict[str, Any]] = field(default_factory=list)
    #: items sent to the judge, and those of them with no reply at all (a failed call: the
    #: judge could not judge them), by reason
    asked: int = 0
    failed: int = 0
    failures: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, model: str, items: Sequence[Judgement | None]) -> JudgeStats:
        s = cls(model)
        for j in items:
            if j is None or j.by != "judge":
                continue
            s.asked += 1
            s.judge_calls += j.calls
            s.cache_hits += int(j.cached)
            if j.response is None:
                s.failed += 1
                reason = j.error or "no reply"
                s.failures[reason] = s.failures.get(reason, 0) + 1
            if j.decision is None:
                s.unjudged += 1
                if len(s.unjudged_examples) < 5:
                    s.unjudged_examples.append(
                        {"response": j.response, "error": j.error, "prompt": j.prompt}
                    )
            else:
                s.judged += 1
        return s

    def as_dict(self) -> dict[str, Any]:
        names = ("model", "judged", "judge_calls", "cache_hits", "unjudged", "unjudged_examples")
        return {
            **{k: getattr(self, k) for k in names},
            "failed": self.failed,
            "failures": dict(self.failures),
        }

    @property
    def signature_value(self) -> str:
        """The signature's ``judge:`` value: the model, and ``(unjudged:K/N)`` when K of the N
        items sent to the judge got no reply (a run allowed to score them unjudged)."""
        return check_judged(self.model, self.failed, self.asked, self.failures, allow=True)


def judge_signature_value(client: Any, stats: JudgeStats | None) -> str:
    """The runner's ``judge:`` value for a run judged by *client* with *stats*; fails the run
    (:class:`UnjudgedError`) when items got no reply, unless the client allows it."""
    if stats is None:
        return str(client.model)
    allow = bool(getattr(client, "allow_unjudged", False))
    return check_judged(stats.model, stats.failed, stats.asked, stats.failures, allow=allow)


def judge_yes_no_records(
    texts: Sequence[str], client: JudgeClient, *, questions: Sequence[str] | None = None
) -> list[Judgement]:
    """Ask the judge whether each answer says yes or no; one :class:`Judgement` per text."""
    qs = list(questions) if questions is not None else [""] * len(texts)
    if len(qs) != len(texts):
        raise ValueError("questions: one per text is needed")
    prompts = [build_yes_no_prompt(q or "(not given)", t) for q, t in zip(qs, texts, strict=True)]
    return [_judgement(r, parse_yes_no_reply(r.response)) for r in client.complete_many(prompts)]


def judge_yes_no(
    texts: Sequence[str], client: JudgeClient, *, questions: Sequence[str] | None = None
) -> list[str]:
    """``"yes"``, ``"no"`` or ``"other"`` (unjudged) for each answer, as the judge reads it.

    For POPE/MME answers that the rules leave ``other``. The reference retries an undecided
    reply at rising temperatures; we ask once at temperature 0 (cached, repeatable) and leave
    it ``other``: a score must not depend on sampling.
    """
    return [j.decision or "other" for j in judge_yes_no_records(texts, client, questions=questions)]


def judge_equivalence(
    predictions: Sequence[str | None],
    answers: Sequence[Sequence[str]],
    client: JudgeClient,
    *,
    questions: Sequence[str] | None = None,
    matched: Sequence[bool] | None = None,
) -> list[Judgement | None]:
    """Is each prediction equivalent to one of its human answers? (``"yes"``/``"no"``)

    *matched* marks predictions the rule-based metric already found among the answers: they
    are ``"yes"`` without a call (``by="rules"``). Missing predictions give ``None``.
    """
    n = len(predictions)
    qs = list(questions) if questions is not None else [""] * n
    out: list[Judgement | None] = [None] * n
    ask: list[int] = []
    for i, p in enumerate(predictions):
        if p is None:
            continue
        if matched is not None and matched[i]:
            out[i] = Judgement("yes", by="rules")
        else:
            ask.append(i)
    prompts = [build_equivalence_prompt(qs[i], answers[i], predictions[i] or "") for i in ask]
    for i, reply in zip(ask, client.complete_many(prompts), strict=True):
        out[i] = _judgement(reply, parse_yes_no_reply(reply.response))
    stats = JudgeStats.of(client.model, out)
    check_judged(
        client.model, stats.failed, stats.asked, stats.failures, allow=client.allow_unjudged
    )
    return out


def equivalence_summary(
    judgements: Sequence[Judgement | None], model: str, *, extract: str | None = None
) -> dict[str, Any]:
    """The open-ended judge metric, reported beside (never instead of) the rule-based score.

    ``accuracy`` = 100 x (items judged equivalent) / (items decided), where the rules decide
    the predictions that already match a human answer and the judge decides the others;
    unjudged items (garbage, refusals, failed calls) are left out of both counts and reported;
    failed calls also in the signature (``judge:<model>(unjudged:K/N)``).
    """
    from ..core.signature import Signature

    decided = [j for j in judgements if j is not None and j.decision is not None]
    yes = sum(1 for j in decided if j.decision == "yes")
    stats = JudgeStats.of(model, judgements)
    by_rules = sum(1 for j in decided if j.by == "rules")
    judge = stats.signature_value
    sig = Signature("judge-eq", (("judge", judge), ("extract", extract), ("n", len(decided))))
    return {
        "metric": "judge-equivalence",
        "accuracy": 100.0 * yes / len(decided) if decided else float("nan"),
        "decided": len(decided),
        "decided_by_rules": by_rules,
        **stats.as_dict(),
        "signature": sig.format(),
    }
