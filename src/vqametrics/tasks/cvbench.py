"""CV-Bench (2,638 = 2D 1,438 + 3D 1,200): vision-centric multiple choice (Cambrian-1).

No official scorer was read (spec mcq-reasoning.md §13); the default profile is VLMEvalKit's.

- ``vlmevalkit`` / ``vlmevalkit-2025`` / ``vlmevalkit-2024`` — ``CV-Bench-2D``: accuracy per
  ``source`` (ADE20K, COCO) and ``Overall`` = their **unweighted mean**
  (``CVBench.report_accuracy``), not the micro mean over items. ``CV-Bench-3D``: ``report_acc``
  (micro). A sheet holding both splits reports each, and ``Overall`` = the mean of the 2D and
  3D numbers (Cambrian-1's combined CV-Bench score; VLMEvalKit scores the two apart).
- ``lmms-eval`` — lmms-eval@75571cf ``tasks/cv_bench/utils.py`` (``cv_bench``,
  ``cv_bench_2d``, ``cv_bench_3d``): the first letter of the response (``re.match``), against
  ``answer.strip("()")``; ``cv_bench_acc`` = right / all, the **micro** mean. QUIRK
  unused-cambrian-formula: the module also defines Cambrian's ``((ADE20K + COCO) / 2 + Omni3D)
  / 2`` (``cv_bench_default_aggregate_results``), but the task's YAML aggregates with the
  micro mean; kept, ``results.json`` holds the micro mean.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from ..aggregate.formulas import group_by, naive_mean
from ..core.exceptions import InputError
from ..kernels.choice.lmms import blink_letter
from . import register_task
from ._base import Aggregate, Item, TaskData, TaskInputs
from ._common import group_keys, numpy_mean, ungrouped_note
from ._lmms import MetricRecord
from ._mcq import (
    LmmsDoc,
    doc_choices,
    lmms_letter_profile,
    paren_gold,
    read_mcq,
    record_hit,
    report_acc,
    require_options,
    vlmevalkit_choice_task,
)

__all__: list[str] = []


def _source_mean(items: Sequence[Item], scores: Sequence[float]) -> tuple[float, dict[str, float]]:
    """``report_accuracy``: ``np.mean`` per ``source``, then ``(sum of them) / count``."""
    buckets = group_by([str(it.fields.get("source")) for it in items], scores)
    per = {g: numpy_mean(v) for g, v in sorted(buckets.items())}
    return naive_mean(list(per.values())), per


def _aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """2D rows: the source mean; 3D rows: ``report_acc``; both: each, and their mean."""
    splits = {str(it.fields.get("split")) for it in items}
    parts: dict[str, float] = {}
    breakdowns: dict[str, Mapping[str, Mapping[str, float | int]]] = {}
    pick2 = [i for i, it in enumerate(items) if str(it.fields.get("split")) == "2D"]
    pick3 = [i for i, it in enumerate(items) if str(it.fields.get("split")) != "2D"]
    if pick2:
        overall2, per = _source_mean([items[i] for i in pick2], [scores[i] for i in pick2])
        parts["2D"] = overall2
        breakdowns["source"] = {g: {"accuracy": v} for g, v in per.items()}
    if pick3:
        agg3 = report_acc([items[i] for i in pick3], [scores[i] for i in pick3], ("category",))
        parts["3D" if pick2 or "3D" in splits else "Overall"] = float(agg3.metrics["Overall"])
        breakdowns.update(agg3.breakdowns)
    metrics: dict[str, float | int] = dict(parts)
    notes: tuple[str, ...] = ()
    if len(parts) == 2:
        metrics["Overall"] = (parts["2D"] + parts["3D"]) / 2
        notes = ("Overall = the mean of the 2D and 3D scores (Cambrian-1's CV-Bench number)",)
    elif "Overall" not in metrics:
        metrics["Overall"] = next(iter(parts.values()))
    metrics["n"] = len(scores)
    return Aggregate(
        metrics=metrics,
        headline="Overall",
        units="fraction",
        digits=4,
        breakdowns=breakdowns,
        notes=notes,
    )


def _lmms_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``cv_bench_aggregate_results``: right / all (the micro mean); per ``source`` and per
    ``type`` the same, for the breakdown only."""
    breakdowns: dict[str, Mapping[str, Mapping[str, float | int]]] = {}
    notes: list[str] = []
    for key in ("source", "type"):
        keys = group_keys(items, key)
        buckets = group_by(keys, scores)
        if buckets:
            breakdowns[key] = {
                g: {"cv_bench_acc": sum(v) / len(v), "n": len(v)}
                for g, v in sorted(buckets.items())
            }
            notes += ungrouped_note(items, keys, key)
    right = sum(1 for s in scores if s == 1.0)
    return Aggregate(
        metrics={"cv_bench_acc": right / len(scores) if scores else 0.0, "n": len(scores)},
        headline="cv_bench_acc",
        units="fraction",
        digits=4,
        breakdowns=breakdowns,
        notes=tuple(notes),
    )


_METRIC = "cv_bench_acc"
_LMMS_DOC = LmmsDoc(
    id_keys=("idx",),
    gold=paren_gold,
    options=doc_choices,
    fields=("idx", "type", "task", "source"),
    recorded=record_hit(_METRIC),
    # no doc (lmms-eval 0.4 on): the record {id, gt_content, pred_parsed, pred, type, task,
    # source, is_correct}; target = doc["answer"], e.g. "(A)"
    record=MetricRecord(
        metrics=(_METRIC,), doc={"idx": "id", "type": "type", "task": "task", "source": "source"}
    ),
    record_gold=paren_gold,
    subtasks=("type", "task", "source"),  # logs of its 2D and 3D parts may be concatenated
)


def _read(inputs: TaskInputs) -> TaskData:
    data = read_mcq(inputs, fields=("category", "split", "source", "question"), lmms=_LMMS_DOC)
    if not data.layouts[0].startswith("lmms-eval"):
        return _checked_splits(data)
    # the doc's ``type`` (2D / 3D) is the split VLMEvalKit's CV-Bench-2D / -3D name
    items = [
        replace(it, fields={**it.fields, "split": it.fields["type"]})
        if it.fields.get("type") is not None
        else it
        for it in data.items
    ]
    return require_options(
        replace(data, items=items), TASK.profile(inputs.profile).name, "CV-Bench"
    )


def _checked_splits(data: TaskData) -> TaskData:
    """A sheet with a ``split`` column: every row's is ``2D`` or ``3D``, and a 2D row names its
    ``source`` (its accuracy is the mean over sources); anything else would be scored silently
    as another split's row or as a source of its own."""
    items = data.items
    if not any("split" in it.fields for it in items):
        return data  # one split's sheet: its rows are read as VLMEvalKit's CV-Bench-3D
    where = data.sources[0] if data.sources else "<input>"
    for it in items:
        split = it.fields.get("split")
        if split not in ("2D", "3D"):
            raise InputError(
                f"{where}: item {it.id!r}: split {split!r} is neither '2D' nor '3D' (the 2D rows "
                "are those whose split is exactly '2D', averaged over their sources)"
            )
        if split == "2D" and it.fields.get("source") in (None, ""):
            raise InputError(
                f"{where}: item {it.id!r}: a 2D row without its source (2D is the mean of the "
                "accuracies per source)"
            )
    return data


LMMS_EVAL = lmms_letter_profile(
    "cv_bench",
    blink_letter,
    "lmms_eval_blink",
    _lmms_aggregate,
    "lmms-eval cv_bench: the response's first letter against answer.strip('()'); the micro mean",
)


TASK = register_task(
    vlmevalkit_choice_task(
        name="cvbench",
        title="CV-Bench",
        description="vision-centric multiple choice: 2D (mean over sources), 3D, their mean",
        dataset="CV-Bench",
        aggregate=_aggregate,
        reproduces="image_mcq.py CVBench.report_accuracy + report_acc",
        lmms_eval=LMMS_EVAL,
        read=_read,
        layouts=(
            "VLMEvalKit sheet (index, question, A-F, answer, split, source, prediction)",
            "lmms-eval --log_samples of cv_bench / cv_bench_2d / cv_bench_3d, with doc or "
            "without (target + the cv_bench_acc record)",
        ),
        aliases=("cv-bench",),
        note="no official scorer was read; VLMEvalKit's per-source mean is the default",
    )
)
