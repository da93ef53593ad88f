"""VQA v2 and OK-VQA: the official VQA soft accuracy, through the fast ``evaluate_vqa`` pipeline.

Both tasks delegate the whole run to :func:`vqametrics.evaluate_vqa` (the bulk msgspec reader
and the vectorized scorer), so ``vqametrics score vqav2`` gives the numbers of
``vqametrics vqa`` bit for bit. Their profiles are the VQA profiles (``vqametrics profiles
--list``): ``official`` reproduces GT-Vision-Lab/VQA ``vqaEval.py``. OK-VQA uses the same
script on its own annotations (the LAVIS flat list ``{question_id, answer: [10 str]}`` is read
too; its answers have no ``answer_id``, so leave-one-out goes by position).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..pipeline.vqa import VQAEvaluation, evaluate_vqa
from ..profiles import Profile, list_profiles
from ..report.files import VQA_OUTPUTS
from ..score.accuracy import vqa_accuracy
from . import register_task
from ._base import Aggregate, Item, Task, TaskData, TaskInputs, TaskProfile

__all__ = ["evaluation_to_task", "vqa_task_profiles"]


def _left_to_right_percent(values: Sequence[float]) -> float:
    """``100 * sum(values) / len(values)`` with the builtin left-to-right sum (the script's)."""
    total = 0.0
    for v in values:
        total += v
    return 100.0 * total / len(values) if values else float("nan")


def _aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """Overall and per answer/question type accuracy, unrounded percent (the script's
    ``100 * sum / len``; it prints them rounded to 2 digits)."""
    breakdowns: dict[str, dict[str, dict[str, float | int]]] = {}
    for key in ("answer_type", "question_type"):
        groups: dict[str, list[float]] = {}
        for item, score in zip(items, scores, strict=True):
            g = item.fields.get(key)
            if g is not None:
                groups.setdefault(str(g), []).append(score)
        if groups:
            breakdowns[key] = {
                g: {"accuracy": _left_to_right_percent(v), "n": len(v)} for g, v in groups.items()
            }
    return Aggregate(
        metrics={"overall": _left_to_right_percent(scores), "n": len(scores)},
        headline="overall",
        units="percent",
        digits=2,
        breakdowns=breakdowns,
    )


def _scorer(profile: Profile) -> Any:
    def score(prediction: str, references: Sequence[str]) -> float:
        return vqa_accuracy(prediction, list(references), profile=profile)

    score.__doc__ = f"VQA accuracy under profile {profile.name!r} (one question)."
    return score


def vqa_task_profiles() -> tuple[TaskProfile, ...]:
    """One task profile per VQA profile, with the same name (``official`` first)."""
    return tuple(
        TaskProfile(
            name=p.name,
            description=p.description,
            reproduces=p.reproduces,
            toolkit=p.toolkit,
            score=_scorer(p),
            aggregate=_aggregate,
        )
        for p in list_profiles()
    )


def evaluation_to_task(
    task: Task,
    prof: TaskProfile,
    ev: VQAEvaluation,
    *,
    metrics: Sequence[str] = (),
    judge_summary: Any = None,
) -> Any:
    """The :class:`~vqametrics.tasks._run.TaskEvaluation` of a whole-run VQA evaluation.

    *metrics* (``em``, ``em-any``) add EM / EM-any beside the VQA accuracy (``metrics`` and
    every breakdown group, unrounded percent, with their own signatures); *judge_summary* is
    the open-ended judge's summary (``vqa --judge-url``), beside the score.
    """
    from ..toolkit_check import check_toolkit
    from ._run import TaskEvaluation

    d = ev.dataset
    items = [
        Item(
            qid,
            pred,
            tuple(answers),
            {
                k: v
                for k, v in (("question_type", qt), ("answer_type", at), ("image_id", img))
                if v is not None
            },
        )
        for qid, pred, answers, qt, at, img in zip(
            d.question_ids,
            ev.predictions,
            d.answers,
            d.question_types,
            d.answer_types,
            d.image_ids,
            strict=True,
        )
    ]
    data = TaskData(
        items,
        (d.source,),
        (ev.layout,),
        ev.notes,
        ev.reported,
        extra={"vqa": ev},
        n_missing=len(ev.matched.missing),
        n_extra_ignored=len(ev.matched.extra),
        n_duplicates=ev.matched.duplicates,
    )
    aggregate = _aggregate(items, ev.scores)
    signatures: dict[str, str] = {}
    wanted = [m.strip().lower().replace("_", "-") for m in metrics]
    wanted = [m for m in ("em", "em-any") if m in wanted]
    if wanted:
        aggregate, signatures = _with_exact_match(items, aggregate, ev, wanted)
    return TaskEvaluation(
        task,
        prof,
        data,
        ev.scores,
        aggregate,
        ev.signature,
        diagnostics=ev.diagnostics,
        extraction=ev.extraction,
        toolkit_check=check_toolkit(ev),
        signatures=signatures,
        judge_summary=judge_summary,
    )


def _with_exact_match(
    items: Sequence[Item], agg: Aggregate, ev: VQAEvaluation, wanted: Sequence[str]
) -> tuple[Aggregate, dict[str, str]]:
    """*agg* with ``em`` / ``em_any`` (unrounded percent) in ``metrics`` and in every breakdown
    group, and their signatures."""
    from dataclasses import replace

    from ..score.exact_match import METRIC_KEYS, exact_match_scores

    scores = exact_match_scores(ev.dataset, ev.predictions, ev.profile)
    metrics = dict(agg.metrics)
    breakdowns = {k: {g: dict(m) for g, m in v.items()} for k, v in agg.breakdowns.items()}
    signatures = {}
    for name in wanted:
        key = METRIC_KEYS[name]
        other = _aggregate(items, scores.em if key == "em" else scores.em_any)
        metrics[key] = other.metrics["overall"]
        for b, groups in other.breakdowns.items():
            for g, values in groups.items():
                breakdowns[b][g][key] = values["accuracy"]
        signatures[key] = scores.signature("em" if key == "em" else "em-any").format()
    return replace(agg, metrics=metrics, breakdowns=breakdowns), signatures


def _vqa_of(evaluation: Any) -> VQAEvaluation:
    ev: VQAEvaluation = evaluation.data.extra["vqa"]
    return ev


def _explain(evaluation: Any, i: int) -> Any:
    """:func:`vqametrics.explain` of item *i* with the evaluation's profile and answer
    records, so that its ``score`` equals ``evaluation.scores[i]``."""
    from .._notebook import evaluation_explain

    ev = _vqa_of(evaluation)
    return evaluation_explain(ev, ev.dataset.question_ids[i])


def _write_outputs(evaluation: Any, out_dir: Any, *, inputs: Sequence[Any] = ()) -> Any:
    """The official ``accuracy``/``evalQA``/``evalQuesType``/``evalAnsType`` files, with
    ``per_question.jsonl`` and ``signature.txt`` (``report/files.py``)."""
    from ..report.files import write_vqa_outputs

    ev = _vqa_of(evaluation)
    from dataclasses import replace

    return write_vqa_outputs(replace(ev, signature=evaluation.signature), out_dir, inputs=inputs)


def _evaluator(
    task: Task, prof: TaskProfile, inputs: TaskInputs, *, extract: str | None, judge: Any
) -> Any:
    ev = evaluate_vqa(
        inputs.annotations,
        inputs.results,
        questions=inputs.questions,
        profile=prof.name,
        allow_missing=inputs.allow_missing,
        ignore_extra=inputs.ignore_extra,
        on_duplicate=inputs.on_duplicate,
        input_format=inputs.format,
        id_field=inputs.id_field,
        answer_field=inputs.answer_field,
        reported=inputs.reported,
        extract=extract,
    )
    metrics = str(inputs.options.get("metrics") or "vqa")
    return evaluation_to_task(task, prof, ev, metrics=_metric_names(metrics))


def _metric_names(text: str) -> list[str]:
    """``--metrics vqa,em,em-any`` (``em_any`` accepted); an unknown name is an error."""
    from .._exceptions import UnknownNameError

    names = [t.strip().lower().replace("_", "-") for t in text.split(",") if t.strip()]
    bad = [n for n in names if n not in ("vqa", "em", "em-any")]
    if bad or not names:
        raise UnknownNameError(
            f"unknown metric {bad[0] if bad else text!r}; valid metrics: vqa, em, em-any"
        )
    return names


def _read(inputs: TaskInputs) -> TaskData:  # pragma: no cover - the evaluator replaces it
    raise NotImplementedError("VQA v2 is read by its whole-run evaluator")


_LAYOUTS = (
    "official results list / JSONL / {qid: answer} (fast path)",
    "CSV/TSV/XLSX with question_id + answer columns, gzip of any, - for stdin",
    "LLaVA answers.jsonl (question_id, text)",
    "VLMEvalKit sheet (index, answer = list of the human answers, prediction)",
    "lmms-eval --log_samples (doc_id, filtered_resps, doc with question_id and answers; "
    "without doc: doc_id joined to the annotations by position)",
)

_OPTIONS = (("metrics", "comma-separated metrics: vqa, em, em-any (default: vqa)"),)

VQAV2 = register_task(
    Task(
        name="vqav2",
        title="VQA v2",
        metric="vqa-acc",
        description="soft accuracy against 10 human answers (official vqaEval.py)",
        profiles=vqa_task_profiles(),
        read=_read,
        layouts=_LAYOUTS,
        aliases=("vqa", "vqa-v2", "vqa2"),
        annotations_optional=True,
        note="same numbers as `vqametrics vqa`",
        evaluator=_evaluator,
        options=_OPTIONS,
        explain=_explain,
        output_files=VQA_OUTPUTS,
        write_outputs=_write_outputs,
    )
)

OKVQA = register_task(
    Task(
        name="okvqa",
        title="OK-VQA",
        metric="vqa-acc",
        description="VQA soft accuracy on OK-VQA's answers (the official VQA script)",
        profiles=vqa_task_profiles(),
        read=_read,
        layouts=(*_LAYOUTS, "annotations: official VQA format or the LAVIS flat list"),
        aliases=("ok-vqa",),
        annotations_optional=True,
        note="OK-VQA is scored with the official VQA v2 script",
        evaluator=_evaluator,
        options=_OPTIONS,
        explain=_explain,
        output_files=VQA_OUTPUTS,
        write_outputs=_write_outputs,
    )
)
