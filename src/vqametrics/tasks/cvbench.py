"""CV-Bench (2,638 = 2D 1,438 + 3D 1,200): vision-centric multiple choice (Cambrian-1).

VLMEvalKit's profiles only (spec mcq-reasoning.md §13). ``CV-Bench-2D``: accuracy per
``source`` (ADE20K, COCO) and ``Overall`` = their **unweighted mean**
(``CVBench.report_accuracy``), not the micro mean over items. ``CV-Bench-3D``: ``report_acc``
(micro). A sheet holding both splits reports each, and ``Overall`` = the mean of the 2D and 3D
numbers (Cambrian-1's combined CV-Bench score; VLMEvalKit scores the two datasets apart).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..aggregate.formulas import group_by, naive_mean
from . import register_task
from ._base import Aggregate, Item, TaskData, TaskInputs
from ._common import numpy_mean
from ._mcq import ChoiceTask, read_mcq, report_acc, vlmevalkit_profiles

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


def _read(inputs: TaskInputs) -> TaskData:
    return read_mcq(inputs, fields=("category", "split", "source", "question"), lmms=None)


TASK = register_task(
    ChoiceTask(
        name="cvbench",
        kind="multiple-choice",
        title="CV-Bench",
        metric="cvbench-acc",
        description="vision-centric multiple choice: 2D (mean over sources), 3D, their mean",
        profiles=vlmevalkit_profiles(
            "CV-Bench", _aggregate, reproduces="image_mcq.py CVBench.report_accuracy + report_acc"
        ),
        read=_read,
        layouts=("VLMEvalKit sheet (index, question, A-F, answer, split, source, prediction)",),
        aliases=("cv-bench",),
        default_profile="vlmevalkit",
        annotations_optional=True,
        note="no official scorer was read; VLMEvalKit's per-source mean is the default",
        options=(("judge-record", "VLMEvalKit's _{judge}_result.xlsx (default: beside it)"),),
    )
)
