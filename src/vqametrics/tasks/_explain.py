"""Building blocks of the profiles' ``explain`` hooks: one item's score, step by step, as data.

A hook (``TaskProfile.explain``) maps an :class:`Item` to a JSON-ready mapping that
:func:`explain_item` lays out; the keys it reads are

* ``steps``: ``[[name, value], …]``, every step the profile applies, in order;
* ``table``: ``{"header": [...], "rows": [[...], …]}``, one row per reference answer;
* ``why``: one sentence: how the steps and the table make the score.

Any other key is kept as data (``as_dict()``). The hooks only explain: a score always comes
from the profile's scorer, never from here (each table cell that decides is the scorer's own
value on that one reference).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..normalize.lmms_eval import evalai_prep, punctuation_lmms
from ..normalize.official import clean, digits_articles
from ..normalize.official import punctuation as official_punctuation
from ..normalize.vlmevalkit import punctuation_vlm
from ._base import Item

# html, core.display and kernels.vqa (which loads every VQA profile) are imported by the
# functions that use them: a task module imports the hooks below at import, and a score run,
# which never explains, need not pay for them (issue 23; tests/test_startup.py)

__all__ = [
    "MMF_STEPS",
    "VLM_2024_STEPS",
    "VLM_STEPS",
    "ItemExplanation",
    "Steps",
    "explain_answer",
    "explain_item",
    "per_reference",
    "run_steps",
    "soft_accuracy",
    "soft_explainer",
    "vqa_profile_explainer",
    "yes_no",
]

#: ``(name, function)`` applied in order
Steps = Sequence[tuple[str, Callable[[str], str]]]

#: MMF's ``EvalAIAnswerProcessor`` (TextVQA's official processor, lmms-eval's copy)
MMF_STEPS: Steps = (
    ("prelude: lower, delete , and ?, 's → ' 's, strip", evalai_prep),
    ("punctuation", punctuation_lmms),
    ("digits, articles, contractions", digits_articles),
)
#: VLMEvalKit's ``process_answer`` at HEAD (real look-behind period rule)
VLM_STEPS: Steps = (
    ("cleanup", clean),
    ("punctuation (look-behind period rule)", punctuation_vlm),
    ("digits, articles, contractions", digits_articles),
)
#: VLMEvalKit's ``process_answer`` before 2025-05-13 (the official period pattern)
VLM_2024_STEPS: Steps = (
    ("cleanup", clean),
    ("punctuation (official period pattern)", official_punctuation),
    ("digits, articles, contractions", digits_articles),
)


def run_steps(text: str, steps: Steps) -> tuple[str, list[list[str]]]:
    """*text* through *steps*: the result and ``[name, output]`` per step (``(unchanged)``
    where a step changed nothing)."""
    out = []
    for name, fn in steps:
        new = fn(text)
        out.append([name, repr(new) if new != text else "(unchanged)"])
        text = new
    return text, out


def soft_accuracy(
    item: Item,
    prediction_steps: Steps,
    answer_steps: Steps,
    mean: str,
    *,
    answers_note: str = "",
) -> dict[str, Any]:
    """VQA soft accuracy with annotators left out by position (TextVQA, VizWiz): the
    normalized prediction, each answer normalized and matched, ``k_i`` (the *other* answers
    that match) and ``min(1, k_i/3)``, averaged the toolkit's way (*mean*: ``naive``,
    ``exact`` or ``numpy``, as :func:`vqametrics.kernels.vqa.average`)."""
    pred = item.prediction or ""
    norm, steps = run_steps(pred, prediction_steps)
    steps = [["prediction · " + n, v] for n, v in steps]
    steps.append(["compared prediction", repr(norm)])
    answers = [run_steps(a, answer_steps)[0] for a in item.references]
    if answer_steps:
        changed = sum(1 for a, n in zip(item.references, answers, strict=True) if a != n)
        names = (
            "the same steps"
            if answer_steps is prediction_steps
            else ", ".join(n for n, _ in answer_steps)
        )
        steps.append(["answers · " + names, f"{changed} of {len(answers)} changed"])
    elif answers_note:
        steps.append(["answers", answers_note])
    from ..kernels.vqa import average, leave_one_out_values

    matches = [a == norm for a in answers]
    values = leave_one_out_values(matches, None, "position")
    m = sum(matches)
    rows = [
        [i + 1, repr(raw), repr(n), "yes" if hit else "", m - hit, f"{v:.4f}"]
        for i, (raw, n, hit, v) in enumerate(
            zip(item.references, answers, matches, values, strict=True)
        )
    ]
    how = {"naive": "left-to-right sum / N", "exact": "statistics.mean", "numpy": "np.mean"}
    score = average(values, mean) if values else 0.0
    return {
        "steps": steps,
        "table": {
            "header": ["#", "answer", "normalized", "match", "others k", "min(1,k/3)"],
            "rows": rows,
        },
        "why": (
            f"{m} of {len(answers)} answers equal {norm!r}; each annotator left out in turn "
            f"gives min(1, k/3) with k the other answers that match; their mean "
            f"({how.get(mean, mean)}) is {score!r}"
        ),
        "normalized_prediction": norm,
        "normalized_answers": answers,
        "m": m,
    }


def soft_explainer(steps: Steps, mean: str) -> Callable[[Item], dict[str, Any]]:
    """A profile's explainer of :func:`soft_accuracy` with *steps* on both sides, averaged by
    *mean*: the one TextVQA and VizWiz share for each toolkit that normalizes both sides."""

    def explain(item: Item) -> dict[str, Any]:
        return soft_accuracy(item, steps, steps, mean)

    return explain


def per_reference(
    item: Item,
    score_one: Callable[[str, Sequence[str]], float],
    *,
    prediction_steps: Steps = (),
    reference: Callable[[str], str] | None = None,
    columns: Sequence[tuple[str, Callable[[str, str], object]]] = (),
    rule: str = "",
    combine: str = "max",
) -> dict[str, Any]:
    """A score that takes the best (*combine* ``max``) or the mean of per-reference values:
    the prediction through *prediction_steps*, then per reference its normalized form
    (*reference*), the *columns* (``(header, fn(raw prediction, reference))``) and the
    scorer's own value against that reference alone (*score_one*); *rule* says how a value
    is decided."""
    pred = item.prediction or ""
    norm, steps = run_steps(pred, prediction_steps)
    steps = [["prediction · " + n, v] for n, v in steps]
    if prediction_steps:
        steps.append(["compared prediction", repr(norm)])
    header = ["#", "reference"]
    if reference is not None:
        header.append("normalized")
    header += [h for h, _ in columns]
    header.append("value")
    rows = []
    values = []
    for i, ref in enumerate(item.references):
        value = score_one(pred, [ref])
        values.append(value)
        row: list[object] = [i + 1, repr(ref)]
        if reference is not None:
            row.append(repr(reference(ref)))
        row += [fn(pred, ref) for _, fn in columns]
        row.append(_num(value))
        rows.append(row)
    if combine == "max":
        best = max(range(len(values)), key=lambda i: values[i]) if values else None
        how = (
            f"the best of the {len(values)} references' values"
            + (f" (reference {best + 1})" if best is not None and len(values) > 1 else "")
            if len(values) > 1
            else "the reference's value"
        )
    else:
        how = f"the {combine} of the {len(values)} references' values"
    why = f"{rule}; the score is {how}" if rule else f"the score is {how}"
    return {
        "steps": steps,
        "table": {"header": header, "rows": rows},
        "why": why,
        "compared_prediction": norm,
        "reference_values": values,
    }


def yes_no(
    item: Item,
    parse: Callable[[str], str],
    label: Callable[[str], str],
    parse_rule: str,
    label_rule: str,
    *,
    confusion: bool = True,
    note: str = "",
) -> dict[str, Any]:
    """A yes/no answer: what *parse* reads (``yes``/``no``/``other``), the label as the
    toolkit reads it (*label*) and whether they agree; with *confusion* the cell of the
    confusion matrix it counts in (POPE's precision, recall and F1); *note* ends the why."""
    pred = item.prediction or ""
    parsed = parse(pred)
    gt = label(item.references[0]) if item.references else "?"
    cell = (
        {
            ("yes", "yes"): "TP",
            ("yes", "no"): "FP",
            ("no", "no"): "TN",
            ("no", "yes"): "FN",
        }.get((parsed, gt))
        if confusion
        else None
    )
    agree = parsed == gt
    why = (
        f"read {parsed!r}, label {gt!r}: "
        + ("they agree (1)" if agree else "they differ (0)")
        + (f"; counted as {cell}" if cell else "")
        + ("; 'other' is never right without a judge" if parsed == "other" else "")
        + (f"; {note}" if note else "")
    )
    return {
        "steps": [
            [f"parse: {parse_rule}", repr(parsed)],
            [
                f"label: {label_rule}",
                f"{item.references[0]!r} → {gt!r}" if item.references else "?",
            ],
        ],
        "why": why,
        "parsed": parsed,
        "label": gt,
        **({"cell": cell} if cell else {}),
    }


def vqa_profile_explainer(profile: Any) -> Callable[[Item], Mapping[str, Any]]:
    """The hook of a task scored by a VQA profile (VQA v2, OK-VQA, Qwen-VL's TextVQA): the
    steps and leave-one-out table of :func:`vqametrics.pipeline.explanation.explain`."""

    def hook(item: Item) -> Mapping[str, Any]:
        from ..pipeline.explanation import explain

        e = explain(item.prediction or "", list(item.references), profile)
        steps: list[list[str]] = []
        if e.unanimous:
            steps.append(
                [
                    "unanimity rule",
                    "the answers are identical after cleanup: nothing else is normalized and "
                    "matching is exact (official quirk)",
                ]
            )
        steps += [
            ["prediction · " + t.step, "(skipped)" if t.skipped else repr(t.output)]
            for t in e.prediction_trace
            if t.changed or t.skipped
        ]
        steps.append(["compared prediction", repr(e.normalized_prediction)])
        rows = e.answer_rows()
        if e.leave_one_out:
            how = f"the mean of the {len(e.leave_one_out)} leave-one-out values is {e.score!r}"
        else:
            how = f"min(1, m/3) = {e.score!r}"
        why = f"m = {e.m} of {len(e.answers)} answers match; {how}"
        if e.empty_prediction_rule:
            why += f"; the prediction is empty after normalization: {e.profile} scores it 0"
        return {
            "steps": steps,
            "table": {
                "header": [
                    "#",
                    "answer",
                    "normalized",
                    "match",
                    "changed by",
                    "others k",
                    "min(1,k/3)",
                ],
                "rows": rows,
            },
            "why": why,
            "vqa": e.as_dict(),
        }

    return hook


def _num(value: float) -> str:
    """``1``, ``0``, ``nan`` as such; anything else to 4 decimals."""
    if value != value or value in (0.0, 1.0):
        return f"{value:g}"
    return f"{value:.4f}"


# ---------------------------------------------------------------------------------------------
# one item of any task, as data: ItemExplanation


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
            from ..core.display import text_table

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
        import html

        from ..core.display import html_table

        e = html.escape
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
    from . import get_task

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
