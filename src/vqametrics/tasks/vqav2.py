"""VQA v2 and OK-VQA: the official VQA soft accuracy, run by the task runner like every task.

The reader is the VQA pipeline's (:func:`~vqametrics.pipeline.vqa.read_vqa`: the bulk msgspec
loader) and each profile's ``score_batch`` its vectorized scorer, equal to the per-item scorer
bit for bit (``tests/test_differential.py``), so ``vqametrics score vqav2`` gives the numbers of
``vqametrics vqa`` bit for bit. Their profiles are the VQA profiles (``vqametrics profiles
--list``): ``official`` reproduces GT-Vision-Lab/VQA ``vqaEval.py``. OK-VQA uses the same
script on its own annotations (the LAVIS flat list ``{question_id, answer: [10 str]}`` is read
too; its answers have no ``answer_id``, so leave-one-out goes by position).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

from ..core.signature import Signature
from ..kernels._fast import AnswerTracer
from ..pipeline.vqa import (
    VQA_OUTPUTS,
    Annotations,
    Predictions,
    VQAEvaluation,
    VQARead,
    _breakdown,
    bulk_findings,
    read_vqa,
    score_question,
    score_with_findings,
)
from ..profiles import Profile, get_profile, list_profiles
from ..readers._json import PathLike
from . import register_task
from ._base import (
    Aggregate,
    Item,
    ItemColumns,
    Task,
    TaskData,
    TaskInputs,
    TaskProfile,
    item_column,
)
from ._explain import vqa_profile_explainer
from ._run import evaluate

__all__ = ["evaluate_vqa", "evaluation_to_task", "vqa_items", "vqa_task_profiles", "vqa_view"]


def _left_to_right_percent(values: Sequence[float]) -> float:
    """``100 * sum(values) / len(values)`` with the builtin left-to-right sum (the script's)."""
    total = 0.0
    for v in values:
        total += v
    return 100.0 * total / len(values) if values else float("nan")


#: the fields VQA accuracy is broken down by, in the order of the breakdowns
_BREAKDOWN_FIELDS = ("answer_type", "question_type")

Breakdowns = dict[str, dict[str, dict[str, float | int]]]


def _aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """Overall and per answer/question type accuracy, unrounded percent (the script's
    ``100 * sum / len``; it prints them rounded to 2 digits): from the columns with numpy
    when the reader gave columns, else item by item, with the same bits either way
    (``tests/tasks/test_vqav2_aggregate.py``)."""
    bulk = _bulk_aggregate(items, scores)
    overall, breakdowns = bulk if bulk is not None else _item_aggregate(items, scores)
    return Aggregate(
        metrics={"overall": overall, "n": len(scores)},
        headline="overall",
        units="percent",
        digits=2,
        breakdowns=breakdowns,
    )


def _item_aggregate(items: Sequence[Item], scores: Sequence[float]) -> tuple[float, Breakdowns]:
    """The overall percent and the breakdowns, item by item (the reference of the bulk path)."""
    breakdowns: Breakdowns = {}
    for key in _BREAKDOWN_FIELDS:
        groups: dict[str, list[float]] = {}
        for item, score in zip(items, scores, strict=True):
            g = item.fields.get(key)
            if g is not None:
                groups.setdefault(str(g), []).append(score)
        if groups:
            breakdowns[key] = {
                g: {"accuracy": _left_to_right_percent(v), "n": len(v)} for g, v in groups.items()
            }
    return _left_to_right_percent(scores), breakdowns


def _bulk_aggregate(
    items: Sequence[Item], scores: Sequence[float]
) -> tuple[float, Breakdowns] | None:
    """:func:`_item_aggregate` from the columns of :class:`ItemColumns` (``aggregate/_bulk``:
    one stable argsort per column, left-to-right sums), bit for bit; ``None`` where that path
    does not apply (a list of items, no scores, a group key that is not a string)."""
    if not isinstance(items, ItemColumns) or not scores or len(items) != len(scores):
        return None
    from ..aggregate._bulk import fast_group_percents

    columns = [items.column(key) for key in _BREAKDOWN_FIELDS]
    overall, per_column = fast_group_percents(scores, columns, _group_cache(items, scores))
    breakdowns: Breakdowns = {}
    for key, groups in zip(_BREAKDOWN_FIELDS, per_column, strict=True):
        if any(type(g) is not str for g, _, _ in groups):
            return None  # the item path names a group str(key): let it merge 1 and "1"
        if groups:
            breakdowns[key] = {g: {"accuracy": p, "n": n} for g, p, n in groups}
    return overall, breakdowns


def _group_cache(items: ItemColumns, scores: Sequence[float]) -> Any:
    """The rows per type that the vectorized scorer keeps for the writers of these very
    scores (so the runner's aggregate and the official files group each column once)."""
    if not isinstance(items, VQAItems):
        return None
    fast = bulk_findings(items.dataset, scores)
    return None if fast is None else fast.groups


def _scorer(profile: Profile) -> Any:
    def score(
        prediction: str, references: Sequence[str], answer_groups: Sequence[int] | None = None
    ) -> float:
        return score_question(prediction, references, answer_groups, profile)

    score.__doc__ = (
        f"VQA accuracy under profile {profile.name!r} (one question; *answer_groups*: the "
        "answers' leave-one-out records, one per answer by default)."
    )
    return score


def _batch(profile: Profile) -> Any:
    def score_batch(items: Sequence[Item], data: TaskData) -> list[float]:
        read: VQARead | None = data.extra.get("vqa")
        predictions = item_column(items, "prediction")
        if read is None or len(read.dataset) != len(items):
            return [0.0 if it.prediction is None else _one(it, profile) for it in items]
        return score_with_findings(read.dataset, predictions, profile)

    score_batch.__doc__ = (
        f"Every question's VQA accuracy under {profile.name!r} at once (the vectorized scorer "
        "of score/_fast.py on the reader's interned answers)."
    )
    return score_batch


def _one(item: Item, profile: Profile) -> float:
    assert item.prediction is not None
    groups = item.fields.get("answer_groups")
    return score_question(item.prediction, item.references, groups, profile)


def vqa_task_profiles() -> tuple[TaskProfile, ...]:
    """One task profile per VQA profile, with the same name (``official`` first)."""
    return tuple(_task_profile(p) for p in list_profiles())


def _task_profile(p: Profile) -> TaskProfile:
    return TaskProfile(
        name=p.name,
        description=p.description,
        reproduces=p.reproduces,
        toolkit=p.toolkit,
        score=_scorer(p),
        aggregate=_aggregate,
        context=("answer_groups",),
        score_batch=_batch(p),
        explain=vqa_profile_explainer(p),
    )


class VQAItems(ItemColumns):
    """The questions of a VQA dataset as :class:`ItemColumns`, with the dataset they are the
    columns of (the bulk aggregate reuses its scorer's rows per type)."""

    __slots__ = ("dataset",)

    def __init__(self, dataset: Any, predictions: Sequence[str | None]) -> None:
        d = dataset
        super().__init__(
            d.question_ids,
            predictions,
            d.answers,
            {
                "question_type": d.question_types,
                "answer_type": d.answer_types,
                "image_id": d.image_ids,
                "answer_groups": d.groups,
            },
        )
        self.dataset = dataset


def vqa_items(dataset: Any, predictions: Sequence[str | None]) -> ItemColumns:
    """One :class:`Item` per question: the prediction, the human answers, the types, the image
    and (when the answers have records) their leave-one-out groups; held as the dataset's
    columns (:class:`VQAItems`), so a 214k-question run builds no object per question."""
    return VQAItems(dataset, predictions)


def _read(inputs: TaskInputs, own: Profile | None = None) -> TaskData:
    """The VQA pipeline's reader: annotations (official, flat, LAVIS; or none when the results
    carry them), results in any layout, joined by question id."""
    prof = own if own is not None else get_profile(inputs.profile or "official")
    r = read_vqa(
        inputs.annotations,
        inputs.results,
        questions=inputs.questions,
        input_format=inputs.format,
        id_field=inputs.id_field,
        answer_field=inputs.answer_field,
        reported=inputs.reported,
        answer_tracer=AnswerTracer(prof),  # the scorer's answer side, by the loader's child
        **inputs.join_rules,
    )
    return _data(r, r.predictions, r.all_notes(prof), own)


def _data(
    r: VQARead,
    predictions: Sequence[str | None],
    notes: tuple[str, ...],
    own: Profile | None = None,
) -> TaskData:
    m = r.matched
    return TaskData(
        vqa_items(r.dataset, predictions),
        (r.dataset.source,),
        (r.layout,),
        notes,
        r.reported,
        extra={"vqa": r} if own is None else {"vqa": r, "profile": own},
        n_missing=len(m.missing),
        n_extra_ignored=len(m.extra),
        n_duplicates=m.duplicates,
    )


def _signature(prof: TaskProfile, data: TaskData, extract: str | None) -> Signature:
    r: VQARead = data.extra["vqa"]
    return r.signature(_vqa_profile(data, prof.name), extract, data.n_missing)


def vqa_view(evaluation: Any, digits: int = 2) -> VQAEvaluation:
    """The :class:`~vqametrics.pipeline.vqa.VQAEvaluation` of a VQA v2 / OK-VQA task
    evaluation (for the official files, the explanation and the toolkit check); the bulk
    writers reuse the vectorized scorer's findings when these are its scores."""
    r: VQARead = evaluation.data.extra["vqa"]
    prof = _vqa_profile(evaluation.data, evaluation.profile.name)
    predictions = list(item_column(evaluation.data.items, "prediction"))
    fast = bulk_findings(r.dataset, evaluation.scores)
    return VQAEvaluation(
        profile=prof,
        dataset=r.dataset,
        predictions=predictions,
        scores=evaluation.scores,
        accuracy=_breakdown(evaluation.scores, r.dataset, digits, fast),
        signature=evaluation.signature,
        matched=r.matched,
        digits=digits,
        notes=evaluation.notes,
        _fast=fast,
        layout=r.layout,
        reported=r.reported,
        sample_metrics=r.sample_metrics,
        diagnostics=evaluation.diagnostics,
        extraction=evaluation.extraction,
    )


def _finish(evaluation: Any, inputs: TaskInputs) -> Any:
    """EM / EM-any (``metrics=``) and the toolkit check, as :func:`evaluation_to_task`."""
    from dataclasses import replace

    from ..pipeline.toolkit_check import check_toolkit

    metrics = _metric_names(str(inputs.options.get("metrics") or "vqa"))
    wanted = [m for m in ("em", "em-any") if m in metrics]
    r: VQARead = evaluation.data.extra["vqa"]
    if not wanted and r.reported is None and not r.sample_metrics:
        return evaluation  # nothing to add: no EM asked, no toolkit numbers to compare
    ev = vqa_view(evaluation)
    aggregate: Aggregate = evaluation.aggregate
    signatures: dict[str, str] = {}
    if wanted:
        aggregate, signatures = _with_exact_match(evaluation.data.items, aggregate, ev, wanted)
    check = check_toolkit(ev)
    samples = getattr(check, "samples", None)
    return replace(
        evaluation,
        aggregate=aggregate,
        signatures=signatures,
        toolkit_check=check,
        sample_check=samples,
    )


def evaluation_to_task(
    task: Task,
    prof: TaskProfile,
    ev: VQAEvaluation,
    *,
    metrics: Sequence[str] = (),
    judge_summary: Any = None,
) -> Any:
    """The :class:`~vqametrics.tasks._run.TaskEvaluation` of a whole-run VQA evaluation (the
    ``vqa`` command's): the same document as the runner gives for the same run.

    *metrics* (``em``, ``em-any``) add EM / EM-any beside the VQA accuracy (``metrics`` and
    every breakdown group, unrounded percent, with their own signatures); *judge_summary* is
    the open-ended judge's summary (``vqa --judge-url``), beside the score.
    """
    from ..pipeline.toolkit_check import check_toolkit
    from ._run import TaskEvaluation

    r = VQARead(
        ev.dataset,
        list(ev.predictions),
        ev.matched,
        ev.layout,
        ev.reported,
        ev.sample_metrics,
        ev.notes,
    )
    data = _data(r, ev.predictions, ev.notes)
    aggregate = _aggregate(data.items, ev.scores)
    check = check_toolkit(ev)
    signatures: dict[str, str] = {}
    wanted = [m.strip().lower().replace("_", "-") for m in metrics]
    wanted = [m for m in ("em", "em-any") if m in wanted]
    if wanted:
        aggregate, signatures = _with_exact_match(data.items, aggregate, ev, wanted)
    return TaskEvaluation(
        task,
        prof,
        data,
        ev.scores,
        aggregate,
        ev.signature,
        diagnostics=ev.diagnostics,
        extraction=ev.extraction,
        sample_check=getattr(check, "samples", None),
        toolkit_check=check,
        signatures=signatures,
        judge_summary=judge_summary,
    )


def _with_exact_match(
    items: Sequence[Item], agg: Aggregate, ev: VQAEvaluation, wanted: Sequence[str]
) -> tuple[Aggregate, dict[str, str]]:
    """*agg* with ``em`` / ``em_any`` (unrounded percent) in ``metrics`` and in every breakdown
    group, and their signatures."""
    from dataclasses import replace

    from ..kernels.exact_match import METRIC_KEYS, exact_match_scores

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


def _explain(evaluation: Any, i: int) -> Any:
    """:func:`vqametrics.explain` of item *i* with the evaluation's profile and answer
    records, so that its ``score`` equals ``evaluation.scores[i]``."""
    r: VQARead = evaluation.data.extra["vqa"]
    return vqa_view(evaluation).explain(r.dataset.question_ids[i])


def _write_outputs(evaluation: Any, out_dir: Any, *, inputs: Sequence[Any] = ()) -> Any:
    """The official ``accuracy``/``evalQA``/``evalQuesType``/``evalAnsType`` files, with
    ``per_question.jsonl`` and ``signature.txt`` (``pipeline/vqa_outputs.py``), in bulk."""
    from ..pipeline.vqa_outputs import write_vqa_outputs

    return write_vqa_outputs(vqa_view(evaluation), out_dir, inputs=inputs)


def evaluate_vqa(
    annotations: Annotations,
    results: Predictions,
    *,
    questions: PathLike | None = None,
    profile: str | Profile = "official",
    allow_missing: bool = False,
    ignore_extra: bool = False,
    on_duplicate: Literal["error", "last"] = "error",
    digits: int = 2,
    input_format: str | None = None,
    id_field: str | None = None,
    answer_field: str | None = None,
    reported: PathLike | None = None,
    extract: str | None = None,
    metrics: Sequence[str] = ("vqa",),
    ci: bool | int = False,
) -> VQAEvaluation:
    """The earlier entry point, a wrapper of ``vqametrics.evaluate("vqav2", results,
    annotations=annotations, ...)`` (prefer that one): the one task runner reads, diagnoses and
    scores the run, and this returns its :class:`~vqametrics.pipeline.vqa.VQAEvaluation` view
    (``accuracy`` rounded to *digits* in the official shape, ``per_question()``, the official
    files), with the arguments it always had: the annotations first, ``input_format=`` for
    ``format=``. Its ``as_dict()`` is that view's own document, not the schema-1 one of
    :meth:`~vqametrics.TaskEvaluation.as_dict`.

    *annotations* may be ``None`` when the results carry their ground truth (a VLMEvalKit sheet,
    lmms-eval samples with ``doc``); *input_format* is :func:`~vqametrics.evaluate`'s
    ``format``; *metrics* (``em``, ``em-any``) fill ``extra_metrics`` and *ci* ``intervals``;
    *profile* may be a :class:`~vqametrics.profiles.Profile` of one's own. Every other argument
    is :func:`~vqametrics.evaluate`'s. Malformed input raises ``InputError`` naming the file
    and the question id or line.
    """
    _check_vqa_arguments(locals())
    task, name = _task_for(profile)
    evaluation = evaluate(
        task,
        results,
        annotations=annotations,
        questions=questions,
        profile=name,
        format=input_format,
        id_field=id_field,
        answer_field=answer_field,
        allow_missing=allow_missing,
        ignore_extra=ignore_extra,
        on_duplicate=on_duplicate,
        reported=reported,
        extract=extract,
    )
    view = vqa_view(evaluation, digits)
    if tuple(metrics) == ("vqa",) and ci is False:
        return view
    from ..pipeline._notebook import extra_metrics, interval_of  # only for these two

    return replace(
        view, extra_metrics=extra_metrics(view, metrics), intervals=interval_of(view, ci)
    )


def _check_vqa_arguments(args: dict[str, Any]) -> None:
    """:func:`evaluate_vqa`'s arguments of a wrong type: the library's error, before any work."""
    import os

    from ..core.arguments import check, check_choice
    from ..readers.vqa import VQADataset

    where = "evaluate_vqa"
    annotations = args["annotations"]
    if not isinstance(annotations, str | os.PathLike | VQADataset | type(None)):
        check(where, "annotations", annotations, "sequence", also=(VQADataset,))
    check(where, "questions", args["questions"], "path", optional=True)
    check(where, "profile", args["profile"], "str", also=(Profile,))
    for name in ("allow_missing", "ignore_extra"):
        check(where, name, args[name], "bool")
    check_choice(where, "on_duplicate", args["on_duplicate"], ("error", "last"))
    check(where, "digits", args["digits"], "int", minimum=0)
    for name in ("input_format", "id_field", "answer_field", "extract"):
        check(where, name, args[name], "str", optional=True)
    check(where, "reported", args["reported"], "path", optional=True)
    metrics = args["metrics"]
    check(where, "metrics", [metrics] if isinstance(metrics, str) else metrics, "strs")
    if not isinstance(args["ci"], bool):
        check(where, "ci", args["ci"], "int", minimum=1)


def _task_for(profile: str | Profile) -> tuple[Task, str]:
    """VQA v2 and the name of *profile* in it; a profile object that is not the registered
    one of its name scores through a copy of the task that holds just that profile."""
    if isinstance(profile, str):
        return VQAV2, profile
    registered = {p.name: p for p in list_profiles()}
    if registered.get(profile.name) is profile:
        return VQAV2, profile.name
    own = replace(VQAV2, profiles=(_task_profile(profile),), read=_reader(profile))
    return own, profile.name


def _reader(profile: Profile | None) -> Any:
    def read(inputs: TaskInputs) -> TaskData:
        return _read(inputs, profile)

    return read


def _vqa_profile(data: TaskData, name: str) -> Profile:
    """The VQA profile *name* of a run (a profile of one's own is kept with its data)."""
    own: Profile | None = data.extra.get("profile")
    return own if own is not None else get_profile(name)


def _metric_names(text: str) -> list[str]:
    """``--metrics vqa,em,em-any`` (``em_any`` accepted); an unknown name is an error."""
    from ..core.exceptions import UnknownNameError

    names = [t.strip().lower().replace("_", "-") for t in text.split(",") if t.strip()]
    bad = [n for n in names if n not in ("vqa", "em", "em-any")]
    if bad or not names:
        raise UnknownNameError(
            f"unknown metric {bad[0] if bad else text!r}; valid metrics: vqa, em, em-any"
        )
    return names


_LAYOUTS = (
    "official results list / JSONL / {qid: answer} (fast path)",
    "CSV/TSV/XLSX with question_id + answer columns, gzip of any, - for stdin",
    "LLaVA answers.jsonl (question_id, text)",
    "VLMEvalKit sheet (index, answer = list of the human answers, prediction)",
    "lmms-eval --log_samples (doc_id, filtered_resps, doc with question_id and answers; "
    "without doc: doc_id joined to the annotations by position)",
)

_OPTIONS = (("metrics", "comma-separated metrics: vqa, em, em-any (default: vqa)"),)

_HOOKS: dict[str, Any] = {
    "options": _OPTIONS,
    "explain": _explain,
    "output_files": VQA_OUTPUTS,
    "write_outputs": _write_outputs,
    "signature_for": _signature,
    "finish": _finish,
}

VQAV2 = register_task(
    Task(
        name="vqav2",
        kind="open",
        references="votes",
        datasets=("HuggingFaceM4/VQAv2", "lmms-lab/VQAv2"),
        title="VQA v2",
        metric="vqa-acc",
        description="soft accuracy against 10 human answers (official vqaEval.py)",
        profiles=vqa_task_profiles(),
        read=_read,
        layouts=_LAYOUTS,
        aliases=("vqa", "vqa-v2", "vqa2"),
        annotations_optional=True,
        reported_names={"Overall": "overall"},  # VLMEvalKit's _acc.csv
        note="same numbers as `vqametrics vqa`",
        **_HOOKS,
    )
)

#: OK-VQA: VQA v2's task (reader, profiles, hooks) on OK-VQA's own annotations
OKVQA = register_task(
    replace(
        VQAV2,
        name="okvqa",
        datasets=("HuggingFaceM4/ok_vqa", "lmms-lab/ok-vqa"),
        title="OK-VQA",
        description="VQA soft accuracy on OK-VQA's answers (the official VQA script)",
        layouts=(*_LAYOUTS, "annotations: official VQA format or the LAVIS flat list"),
        aliases=("ok-vqa",),
        note="OK-VQA is scored with the official VQA v2 script",
    )
)
