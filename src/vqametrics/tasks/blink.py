"""BLINK: perception tasks posed as multiple choice (14 subtasks, val 1,901).

No official scorer was read (spec mcq-reasoning.md §13); the default profile is VLMEvalKit's.

- ``vlmevalkit`` / ``vlmevalkit-2025`` / ``vlmevalkit-2024`` — ``BLINK``: the generic vanilla
  MCQ path and ``report_acc``. Its judge prompt is BLINK's own (it lists ``(Z) Failed`` and
  treats refusals as Z); recorded replies are parsed by the same ``can_infer``.
  ``BLINK_circular``: the same sheet with circular copies (``index = g + k * 1e6``), scored by
  CircularEval (``mcq_circular_eval``: a question is right only when every copy is), one row
  per question in ``report_acc``.
- ``lmms-eval`` — lmms-eval@75571cf ``tasks/blink/utils.py``: the first letter of the response
  (``re.match``) against ``answer.strip("()")``; ``blink_acc`` per subtask = right / all, and
  the ``blink`` group = the **unweighted mean of the subtasks** (QUIRK group-unweighted: the
  group's ``aggregate_metric_list`` leaves ``weight_by_size`` at its default, False; kept,
  that is the ``blink`` number of ``results.json``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..kernels.choice.lmms import blink_letter
from . import register_task
from ._base import Aggregate, Item, TaskData, TaskInputs
from ._lmms import MetricRecord
from ._mcq import (
    CIRCULAR_STRIDE,
    LmmsDoc,
    circular_items,
    doc_choices,
    lmms_letter_profile,
    paren_gold,
    read_mcq,
    record_hit,
    require_options,
    vlmevalkit_choice_task,
)

__all__: list[str] = []

_METRIC = "blink_acc"


def _lmms_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``blink_aggregate_results`` per ``sub_task`` (right / all); with several subtasks,
    the group's ``aggregate_subtask_metrics(weight_by_size=False)``: ``sum(acc) / count``."""
    buckets: dict[str, list[float]] = {}
    for it, s in zip(items, scores, strict=True):
        buckets.setdefault(str(it.fields.get("sub_task")), []).append(s)
    per = {g: sum(1 for s in v if s == 1.0) / len(v) for g, v in sorted(buckets.items())}
    notes: tuple[str, ...] = ()
    if len(per) > 1:
        total = 0.0
        for v in per.values():
            total += v
        value = total / len(per)
        notes = (
            f"blink_acc = the unweighted mean of the {len(per)} subtasks (lmms-eval's group, "
            "weight_by_size False), summed in subtask-name order; the micro mean would be "
            f"{sum(1 for s in scores if s == 1.0) / len(scores):.4f}",
        )
    else:
        value = next(iter(per.values()), 0.0)
    return Aggregate(
        metrics={_METRIC: value, "n": len(scores), "subtasks": len(per)},
        headline=_METRIC,
        units="fraction",
        digits=4,
        breakdowns={
            "sub_task": {g: {_METRIC: per[g], "n": len(buckets[g])} for g in per},
        },
        notes=notes,
    )


_LMMS_DOC = LmmsDoc(
    id_keys=("idx",),
    gold=paren_gold,
    options=doc_choices,
    fields=("idx", "sub_task"),
    recorded=record_hit(_METRIC),
    # no doc (lmms-eval 0.4 on): the record {id, gt_content, pred_parsed, pred, sub_task,
    # is_correct}; target = doc["answer"], e.g. "(A)"
    record=MetricRecord(metrics=(_METRIC,), doc={"idx": "id", "sub_task": "sub_task"}),
    record_gold=paren_gold,
    subtasks=("sub_task",),  # blink_<subtask> logs concatenated: the blink group
)


def _read(inputs: TaskInputs) -> TaskData:
    data = read_mcq(inputs, fields=("category", "l2-category", "split", "question"), lmms=_LMMS_DOC)
    if data.layouts[0].startswith("lmms-eval"):
        return require_options(data, TASK.profile(inputs.profile).name, "BLINK")
    if any(isinstance(it.id, int) and it.id >= CIRCULAR_STRIDE for it in data.items):
        return circular_items(data)
    return data


LMMS_EVAL = lmms_letter_profile(
    "blink",
    blink_letter,
    "lmms_eval_blink",
    _lmms_aggregate,
    "lmms-eval blink: the response's first letter against answer.strip('()'); "
    "per subtask right / all, the group their unweighted mean",
)

TASK = register_task(
    vlmevalkit_choice_task(
        name="blink",
        title="BLINK",
        description="perception multiple choice (VLMEvalKit's generic MCQ and report_acc)",
        dataset="BLINK",
        lmms_eval=LMMS_EVAL,
        read=_read,
        layouts=(
            "VLMEvalKit sheet (index, question, A-D, answer, category, prediction)",
            "VLMEvalKit record {model}_BLINK_{judge}_result.xlsx (hit, log)",
            "VLMEvalKit BLINK_circular sheet (circular copies, index = g + k * 1e6) and its "
            "record: CircularEval",
            "lmms-eval --log_samples of blink_<subtask> (one or several concatenated), with "
            "doc or without (target + the blink_acc record)",
        ),
        aliases=("blink_circular", "blink-circular"),
        note="no official scorer was read; the default profile is VLMEvalKit's",
    )
)
