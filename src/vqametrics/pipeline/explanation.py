"""Explain one VQA question: every normalization step, the matching slips, the leave-one-out table.

:func:`explain` builds the :class:`Explanation` (data, with its plain-text and HTML forms drawn
by :mod:`vqametrics.core.display`); it sits at the pipeline's floor, so that the VQA v2 runner
and the tasks' ``explain`` hooks read it without importing the views.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..core.arguments import check
from ..core.display import html_pre, text_table
from ..kernels.accuracy import checked_answers
from ..kernels.vqa import others_matching, score_normalized
from ..profiles import Profile, Step, get_profile

__all__ = ["Explanation", "StepTrace", "explain", "trace_steps"]


@dataclass(frozen=True)
class StepTrace:
    """One normalization step applied to one string."""

    step: str
    output: str
    changed: bool
    skipped: bool = False


def trace_steps(text: str, steps: Sequence[Step], skip_conditional: bool) -> list[StepTrace]:
    """Run *steps* on *text*, recording each output (conditional steps marked skipped if asked)."""
    out = []
    for step in steps:
        if skip_conditional and step.conditional:
            out.append(StepTrace(step.name, text, False, skipped=True))
            continue
        new = step.fn(text)
        out.append(StepTrace(step.name, new, new != text))
        text = new
    return out


@dataclass(frozen=True)
class Explanation:
    """Everything that decides one question's score, as data."""

    profile: str
    prediction: str
    answers: tuple[str, ...]
    prediction_trace: tuple[StepTrace, ...]
    answer_traces: tuple[tuple[StepTrace, ...], ...]
    unanimous: bool
    normalized_prediction: str
    normalized_answers: tuple[str, ...]
    matches: tuple[bool, ...]
    m: int
    #: per annotator: how many *other* answers match, and the value min(1, k/3)
    leave_one_out: tuple[tuple[int, float], ...]
    textbook_score: float
    score: float
    #: the profile scores an empty normalized prediction 0 whatever the answers (evalscope)
    empty_prediction_rule: bool = False
    #: why the raw prediction looks verbose (diagnostics; never changes the score)
    verbose: tuple[str, ...] = ()
    #: the answer extractor run first (``extract=``), the raw text and the rules that fired
    extract: str | None = None
    raw_prediction: str | None = None
    extract_rules: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return (
            f"Explanation(profile={self.profile!r}, prediction={self.prediction!r} -> "
            f"{self.normalized_prediction!r}, m={self.m} of {len(self.answers)}, "
            f"score={self.score!r})"
        )

    def _repr_html_(self) -> str:
        return html_pre(self.text())

    def answer_rows(self) -> list[list[object]]:
        """One row per human answer: its number, the answer and its normalized form (repr),
        ``yes`` if it matches, the steps that changed it, its leave-one-out ``k`` and value."""
        rows: list[list[object]] = []
        columns = (self.answers, self.answer_traces, self.normalized_answers, self.matches)
        for i, (raw, trace, norm, hit) in enumerate(zip(*columns, strict=True)):
            loo = self.leave_one_out[i] if self.leave_one_out else None
            rows.append(
                [
                    i + 1,
                    repr(raw),
                    repr(norm),
                    "yes" if hit else "",
                    ", ".join(t.step for t in trace if t.changed) or "-",
                    "" if loo is None else loo[0],
                    "" if loo is None else f"{loo[1]:.4f}",
                ]
            )
        return rows

    def text(self) -> str:
        """The terminal rendering (``vqametrics explain``): every step, the slips, the
        leave-one-out values and the score."""
        e = self
        out = [f"profile: {e.profile}"]
        if e.unanimous:
            out.append(
                "unanimity rule: the answers are all identical after cleanup, so nothing else "
                "is normalized and matching is exact (official quirk)"
            )
        out.append("")
        if e.extract is not None:
            fired = ", ".join(e.extract_rules) or "no rule fired"
            out.append(f"raw         {e.raw_prediction!r}")
            out.append(f"  extract {e.extract}: {fired} -> {e.prediction!r}")
        elif e.verbose:
            out.append(
                f"note: the prediction looks verbose ({', '.join(e.verbose)}); it is scored as "
                "written. To score the answer inside it: --extract answer"
            )
        out.append(f"prediction  {e.prediction!r}")
        for t in e.prediction_trace:
            out.append(f"  {t.step:<14} {_step(t)}")
        out.append(f"  => {e.normalized_prediction!r}")
        out.append("")
        rows = e.answer_rows()
        header = ["slip", "answer", "normalized", "match", "changed by", "others", "min(1,k/3)"]
        out.append(text_table(rows, header))
        cleaned = [
            f"  slip {i + 1}: {raw!r} "
            + " ".join(f"-{t.step}-> {t.output!r}" for t in trace if t.changed)
            for i, (raw, trace) in enumerate(zip(e.answers, e.answer_traces, strict=True))
            if any(t.changed for t in trace)
        ]
        if cleaned:
            out += ["", "how the slips were cleaned (steps that changed something):", *cleaned]
        out.append("")
        out.append(f"m = {e.m} matching slip(s)")
        out.append(f"textbook min(1, m/3)         = {e.textbook_score:.4f}")
        if e.leave_one_out:
            out.append(f"mean of the {len(e.leave_one_out)} leave-one-out values = {e.score!r}")
        if e.empty_prediction_rule:
            out.append(
                f"the prediction is empty after normalization: profile {e.profile} scores it 0"
            )
        out.append(f"score = {e.score!r}  ({100 * e.score:.2f}%)")
        return "\n".join(out)

    def as_dict(self) -> dict[str, object]:
        """A JSON-ready dict."""

        def steps(trace: Sequence[StepTrace]) -> list[dict[str, object]]:
            return [
                {"step": t.step, "output": t.output, "changed": t.changed, "skipped": t.skipped}
                for t in trace
            ]

        return {
            "profile": self.profile,
            "prediction": self.prediction,
            "answers": list(self.answers),
            "unanimous": self.unanimous,
            "prediction_steps": steps(self.prediction_trace),
            "answer_steps": [steps(t) for t in self.answer_traces],
            "normalized_prediction": self.normalized_prediction,
            "normalized_answers": list(self.normalized_answers),
            "matches": list(self.matches),
            "m": self.m,
            "leave_one_out": [{"others_matching": k, "value": v} for k, v in self.leave_one_out],
            "textbook_score": self.textbook_score,
            "empty_prediction_rule": self.empty_prediction_rule,
            "score": self.score,
            "verbose": list(self.verbose),
            **(
                {
                    "extract": {
                        "name": self.extract,
                        "raw_prediction": self.raw_prediction,
                        "extracted": self.prediction,
                        "rules": list(self.extract_rules),
                    }
                }
                if self.extract is not None
                else {}
            ),
        }


def _step(t: StepTrace) -> str:
    if t.skipped:
        return "(skipped: unanimous answers)"
    return f"{t.output!r}" + ("  *changed*" if t.changed else "")


def explain(
    prediction: str,
    answers: Sequence[str] | Sequence[Mapping[str, object]],
    profile: str | Profile = "official",
    *,
    extract: str | None = None,
) -> Explanation:
    """Explain how *prediction* scores against *answers* under *profile*, step by step.

    Parameters
    ----------
    prediction : str
        The model's answer, raw.
    answers : sequence of str, or of records ``{"answer": str, ...}``
        The human answers, raw (as for :func:`vqa_accuracy`).
    profile : str or Profile, default="official"
    extract : str, optional
        An answer extractor (``answer``, ``lmms-eval``, ``vlmevalkit``, ``evalscope``) run on
        the prediction first; the explanation keeps the raw text and the rules that fired.

    Returns
    -------
    Explanation
        Every step's output for the prediction and each answer, whether the unanimity rule
        skipped normalization, which answers match, each annotator's leave-one-out count and
        value, ``textbook_score`` (``min(1, m/3)`` on the same strings, for comparison) and
        ``score``, which equals :func:`vqa_accuracy` for the same inputs.

    Examples
    --------
    >>> e = explain("Crab!", ["crab"] * 3 + ["lobster"] * 7)
    >>> e.normalized_prediction, e.m, e.score
    ('crab', 3, 0.9)
    """
    check("explain", "prediction", prediction, "str")
    check("explain", "extract", extract, "str", optional=True)
    from ..extract import get_answer_extractor, verbose_reasons

    prof = get_profile(profile)
    raw = prediction
    rules: tuple[str, ...] = ()
    if extract is not None:
        got = get_answer_extractor(extract)(prediction)
        prediction, rules = got.text, got.rules
    texts, groups = checked_answers("explain", answers)
    prepared = [prof.prepare_answer(a) for a in texts]
    unanimous = prof.unanimity_rule and len(set(prepared)) == 1
    pred_trace = trace_steps(prediction, prof.prediction_steps, unanimous)
    ans_traces = [trace_steps(a, prof.answer_steps, unanimous) for a in texts]
    norm_pred = pred_trace[-1].output if pred_trace else prediction
    norm_ans = [t[-1].output if t else a for t, a in zip(ans_traces, texts, strict=True)]
    matches = [a == norm_pred for a in norm_ans]
    m = sum(matches)
    if prof.leave_one_out == "none":
        loo: list[tuple[int, float]] = []
    else:
        ks = others_matching(matches, groups, prof.leave_one_out)
        loo = [(k, min(1.0, k / 3)) for k in ks]
    return Explanation(
        profile=prof.name,
        prediction=prediction,
        answers=tuple(texts),
        prediction_trace=tuple(pred_trace),
        answer_traces=tuple(tuple(t) for t in ans_traces),
        unanimous=unanimous,
        normalized_prediction=norm_pred,
        normalized_answers=tuple(norm_ans),
        matches=tuple(matches),
        m=m,
        leave_one_out=tuple(loo),
        textbook_score=min(1.0, m / 3),
        empty_prediction_rule=prof.empty_prediction_scores_zero and not norm_pred,
        score=score_normalized(norm_pred, norm_ans, groups, prof),
        verbose=verbose_reasons(raw),
        extract=extract,
        raw_prediction=raw if extract is not None else None,
        extract_rules=rules,
    )
