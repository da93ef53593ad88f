"""Building blocks of the profiles' ``explain`` hooks: one item's score, step by step, as data.

A hook (``TaskProfile.explain``) maps an :class:`Item` to a JSON-ready mapping that
:func:`vqametrics.views.explanation.explain_item` lays out; the keys it reads are

* ``steps``: ``[[name, value], …]``, every step the profile applies, in order;
* ``table``: ``{"header": [...], "rows": [[...], …]}``, one row per reference answer;
* ``why``: one sentence: how the steps and the table make the score.

Any other key is kept as data (``as_dict()``). The hooks only explain: a score always comes
from the profile's scorer, never from here (each table cell that decides is the scorer's own
value on that one reference).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..kernels.vqa import average, leave_one_out_values
from ..normalize.lmms_eval import evalai_prep, punctuation_lmms
from ..normalize.official import clean, digits_articles
from ..normalize.official import punctuation as official_punctuation
from ..normalize.vlmevalkit import punctuation_vlm
from ._base import Item

__all__ = [
    "MMF_STEPS",
    "VLM_2024_STEPS",
    "VLM_STEPS",
    "Steps",
    "per_reference",
    "run_steps",
    "soft_accuracy",
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
    steps and leave-one-out table of :func:`vqametrics.views.explanation.explain`."""

    def hook(item: Item) -> Mapping[str, Any]:
        from ..views.explanation import explain

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
        rows = []
        for i, (raw, trace, norm, hit) in enumerate(
            zip(e.answers, e.answer_traces, e.normalized_answers, e.matches, strict=True)
        ):
            loo = e.leave_one_out[i] if e.leave_one_out else None
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
