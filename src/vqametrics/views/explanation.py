"""Explain one question: every normalization step, the matching slips, the leave-one-out table.

:func:`explain` is VQA v2's (one prediction, its human answers, a VQA profile);
:func:`explain_item` explains one item of any task's run (``TaskEvaluation``) and
:func:`explain_answer` one answer under any task's profile, both as an
:class:`ItemExplanation`: what was compared, every step the profile applies (its ``explain``
hook, ``tasks/_explain.py``), the score and why.
"""

from __future__ import annotations

import html as _html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.arguments import check
from ..core.display import html_pre, html_table, text_table
from ..kernels.accuracy import checked_answers
from ..kernels.vqa import others_matching, score_normalized
from ..profiles import Profile, Step, get_profile

__all__ = [
    "Explanation",
    "ItemExplanation",
    "StepTrace",
    "explain",
    "explain_answer",
    "explain_item",
    "trace_steps",
]


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
        rows: list[list[object]] = []
        for i, (raw, trace, norm, hit) in enumerate(
            zip(e.answers, e.answer_traces, e.normalized_answers, e.matches, strict=True)
        ):
            changed = ", ".join(t.step for t in trace if t.changed) or "-"
            loo = e.leave_one_out[i] if e.leave_one_out else None
            rows.append(
                [
                    i + 1,
                    repr(raw),
                    repr(norm),
                    "yes" if hit else "",
                    changed,
                    "" if loo is None else loo[0],
                    "" if loo is None else f"{loo[1]:.4f}",
                ]
            )
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


# ---------------------------------------------------------------------------------------------
# any task


@dataclass(frozen=True)
class ItemExplanation:
    """One item of any task, explained: what was compared, each step of the profile, the score
    (as the run scored it) and why. ``steps`` are ``(name, value)`` pairs in the order the
    profile applies them; ``table`` has one row per reference answer."""

    task: str
    title: str
    profile: str
    item_id: str | int
    #: the file the item was read from (``<command line>`` for :func:`explain_answer`)
    source: str
    #: what was scored (after ``extract=``; the judge's yes/no where it decided)
    prediction: str | None
    references: tuple[str, ...]
    score: float
    steps: tuple[tuple[str, str], ...] = ()
    table_header: tuple[str, ...] = ()
    table_rows: tuple[tuple[object, ...], ...] = ()
    why: str = ""
    #: the answer extractor run first, the raw text and the rule that fired
    extract: str | None = None
    raw_prediction: str | None = None
    extract_rule: str | None = None
    #: the yes/no judge's record for this item (``judge=``)
    judge: Mapping[str, Any] | None = None
    #: the item's plain fields (split, category, question, …)
    fields: Mapping[str, Any] = field(default_factory=dict)
    #: what else the profile's hook returned (normalized strings, counts, …)
    detail: Mapping[str, Any] = field(default_factory=dict)
    #: the score the toolkit recorded for this item (lmms-eval logs), when the file has one
    toolkit_score: float | None = None

    def __repr__(self) -> str:
        return (
            f"ItemExplanation(task={self.task!r}, profile={self.profile!r}, "
            f"item={self.item_id!r}, prediction={self.prediction!r}, score={self.score!r})"
        )

    def header_lines(self) -> list[tuple[str, str]]:
        """``(label, value)`` lines shown above the steps."""
        out: list[tuple[str, str]] = []
        for key in ("split", "category", "question"):
            value = self.fields.get(key)
            if value is not None and value != "":
                out.append((key, str(value)))
        if self.extract is not None:
            out.append(("raw prediction", repr(self.raw_prediction)))
            out.append((f"extract {self.extract}", f"{self.extract_rule or 'no rule fired'}"))
        if self.judge is not None:
            out.append(("judge", f"decided {self.judge.get('decision')!r}"))
        out.append(("prediction", "(none)" if self.prediction is None else repr(self.prediction)))
        refs = ", ".join(repr(r) for r in self.references[:12])
        if len(self.references) > 12:
            refs += f", … ({len(self.references)} in all)"
        out.append(("references", refs or "(none)"))
        return out

    def text(self) -> str:
        """The terminal rendering (``vqametrics explain --task``)."""
        out = [f"{self.title} · profile {self.profile} · item {self.item_id!r} ({self.source})"]
        out += [f"{k:<16} {v}" for k, v in self.header_lines()]
        if self.steps:
            out.append("")
            out.append("steps:")
            width = min(44, max(len(n) for n, _ in self.steps))
            out += [f"  {n:<{width}}  {v}" for n, v in self.steps]
        if self.table_header:
            out.append("")
            out.append(text_table([list(r) for r in self.table_rows], list(self.table_header)))
        out.append("")
        if self.why:
            out.append(f"why: {self.why}")
        out.append(f"score = {self.score!r}")
        if self.toolkit_score is not None:
            same = "the same" if self.toolkit_score == self.score else "DIFFERENT"
            out.append(f"the toolkit recorded {self.toolkit_score!r} for this item ({same})")
        return "\n".join(out)

    def _repr_html_(self) -> str:
        e = _html.escape
        parts = [
            f"<p><b>{e(self.title)}</b> · profile <code>{e(self.profile)}</code> · item "
            f"<code>{e(repr(self.item_id))}</code> <small>({e(self.source)})</small></p>",
            "<table><tbody>"
            + "".join(
                f"<tr><th style='text-align:left'>{e(k)}</th><td><code>{e(v)}</code></td></tr>"
                for k, v in [*self.header_lines(), *self.steps]
            )
            + "</tbody></table>",
        ]
        if self.table_header:
            parts.append(html_table(list(self.table_header), [list(r) for r in self.table_rows]))
        if self.why:
            parts.append(f"<p>{e(self.why)}</p>")
        parts.append(f"<p>score = <b>{e(repr(self.score))}</b></p>")
        return "".join(parts)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``vqametrics explain --task … --json``)."""
        out: dict[str, Any] = {
            "task": self.task,
            "profile": self.profile,
            "id": self.item_id,
            "source": self.source,
            "prediction": self.prediction,
            "references": list(self.references),
            "steps": [{"step": n, "value": v} for n, v in self.steps],
            "table": {
                "header": list(self.table_header),
                "rows": [list(r) for r in self.table_rows],
            },
            "why": self.why,
            "score": self.score,
            "fields": dict(self.fields),
            "detail": dict(self.detail),
        }
        if self.extract is not None:
            out["extract"] = {
                "name": self.extract,
                "raw_prediction": self.raw_prediction,
                "extracted": self.prediction,
                "rule": self.extract_rule,
            }
        if self.judge is not None:
            out["judge"] = dict(self.judge)
        if self.toolkit_score is not None:
            out["toolkit_score"] = self.toolkit_score
        return out


def _plain(value: object) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _item_explanation(
    task: Any,
    prof: Any,
    item: Any,
    score: float,
    source: str,
    **extra: Any,
) -> ItemExplanation:
    """The explanation of *item* (scored *score*) under *prof*: the profile's ``explain``
    hook; for a yes/no profile without one, its parse; else the per-item detail."""
    if item.prediction is None:
        data: dict[str, Any] = {"why": "no prediction: the item scores 0"}
    elif getattr(prof, "explain", None) is not None:
        data = dict(prof.explain(item))
    elif prof.parse is not None:
        parsed = prof.parse(item.prediction)
        label = item.references[0] if item.references else None
        data = {
            "steps": [["prediction", repr(item.prediction)], ["parse", repr(parsed)]],
            "why": f"read {parsed!r}; the label is {label!r}",
            "parsed": parsed,
        }
    else:
        detail = prof.item_detail(item)
        data = {"steps": [[str(k), repr(v)] for k, v in detail.items()], **detail}
    table = data.pop("table", None) or {}
    steps = tuple((str(n), str(v)) for n, v in data.pop("steps", ()))
    why = str(data.pop("why", ""))
    recorded = item.fields.get("toolkit_score")
    return ItemExplanation(
        task=task.name,
        title=task.title,
        profile=prof.name,
        item_id=item.id,
        source=source,
        prediction=item.prediction,
        references=tuple(item.references),
        score=score,
        steps=steps,
        table_header=tuple(str(h) for h in table.get("header", ())),
        table_rows=tuple(tuple(r) for r in table.get("rows", ())),
        why=why,
        fields={k: v for k, v in item.fields.items() if _plain(v) and k != "toolkit_score"},
        detail=data,
        toolkit_score=float(recorded) if isinstance(recorded, int | float) else None,
        **extra,
    )


def explain_item(evaluation: Any, item_id: str | int) -> ItemExplanation:
    """Explain one item of a run of any task: what was compared, each step, the score, why.

    Parameters
    ----------
    evaluation : TaskEvaluation
        The run (:func:`vqametrics.tasks._run.evaluate_task`).
    item_id : str or int
        The item's id as the file writes it (``34602``); a string of the digits of an integer
        id finds it too (as typed on a command line).

    Returns
    -------
    ItemExplanation
        Its ``score`` is the run's score of that item.

    Raises
    ------
    UnknownNameError
        No item has that id (the message names the id and the file).
    """
    from ..core.exceptions import UnknownNameError

    data = evaluation.data
    source = data.sources[-1] if data.sources else "<input>"
    items = data.items
    i = _find(items, item_id)
    if i is None:
        shown = ", ".join(repr(it.id) for it in items[:3])
        raise UnknownNameError(
            f"{source}: no item with id {item_id!r} among its {len(items)} items"
            + (f" (ids such as {shown})" if shown else "")
        )
    item = items[i]
    extra: dict[str, Any] = {}
    ex = evaluation.extraction
    if ex is not None and item.prediction is not None:
        rec = ex.record(i)
        if rec:
            extra.update(
                extract=ex.name,
                raw_prediction=rec["raw_prediction"],
                extract_rule=rec["extract_rule"],
            )
    judgements = getattr(evaluation, "judgements", None)
    if judgements is not None and i in judgements:
        extra["judge"] = judgements[i].as_dict()
    return _item_explanation(
        evaluation.task, evaluation.profile, item, evaluation.scores[i], source, **extra
    )


def _find(items: Sequence[Any], item_id: str | int) -> int | None:
    """The position of the item *item_id*: the same id, else the same text (``"34602"``)."""
    for i, it in enumerate(items):
        if it.id == item_id and type(it.id) is type(item_id):
            return i
    text = str(item_id).strip()
    for i, it in enumerate(items):
        if str(it.id) == text:
            return i
    return None


def explain_answer(
    task: str | Any,
    prediction: str,
    references: str | Sequence[str],
    *,
    profile: str | None = None,
    extract: str | None = None,
    **context: Any,
) -> ItemExplanation:
    """Explain how one answer scores under *task*'s profile (``vqametrics explain --task``).

    *references* are the item's answers (one string or several); *context* the item fields
    the profile's scorer takes (OCRBench ``dataset_name=``, MMBench ``options={"A": …}``).
    The score is :func:`vqametrics.tasks.score_answer`'s for the same inputs.

    >>> explain_answer("ocrvqa", " Fiction ", ["fiction"]).score
    1.0
    """
    from ..tasks import get_task
    from ..tasks._base import Item

    if not isinstance(prediction, str):
        raise TypeError(f"prediction must be a str, got {type(prediction).__name__}")
    t = get_task(task)
    prof = t.profile(profile)
    refs = (references,) if isinstance(references, str) else tuple(references)
    unknown = set(context) - set(prof.context)
    if unknown:
        raise TypeError(
            f"task {t.name!r} profile {prof.name!r} takes no context {sorted(unknown)}; "
            f"it takes: {', '.join(prof.context) or 'none'}"
        )
    extra: dict[str, Any] = {}
    if extract is not None:
        from ..extract import get_answer_extractor

        got = get_answer_extractor(extract)(prediction)
        extra.update(extract=extract, raw_prediction=prediction, extract_rule=got.rule)
        prediction = got.text
    item = Item("-", prediction, refs, dict(context))
    return _item_explanation(t, prof, item, prof.score_item(item), "<command line>", **extra)
