"""Score a whole run of any task: read → per-item scores → aggregate → signature."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .._exceptions import VqaMetricsError
from ..signature import Signature
from . import get_task
from ._base import Aggregate, Task, TaskData, TaskInputs, TaskProfile

__all__ = ["TaskEvaluation", "evaluate_task"]


@dataclass(frozen=True, eq=False)
class TaskEvaluation:
    """The result of :func:`evaluate_task`: per-item scores, the aggregate, the signature."""

    task: Task
    profile: TaskProfile
    data: TaskData
    #: unrounded per-item scores, in item order
    scores: list[float]
    aggregate: Aggregate
    signature: Signature

    @property
    def metrics(self) -> Mapping[str, float | int]:
        """The toolkit's numbers, unrounded, in its units (``aggregate.metrics``)."""
        return self.aggregate.metrics

    @property
    def headline(self) -> float | int:
        """The main number (``metrics[aggregate.headline]``)."""
        return self.aggregate.metrics[self.aggregate.headline]

    @property
    def notes(self) -> tuple[str, ...]:
        return self.data.notes + self.aggregate.notes

    def __repr__(self) -> str:
        return (
            f"<TaskEvaluation {self.task.name} profile={self.profile.name} "
            f"n={len(self.scores)} {self.aggregate.headline}={self.headline!r}>"
        )

    def per_item(self) -> Iterator[dict[str, Any]]:
        """One record per item: id, prediction, references, score and the profile's detail."""
        detail = self.profile.detail
        for item, score in zip(self.data.items, self.scores, strict=True):
            rec: dict[str, Any] = {
                "id": item.id,
                "prediction": item.prediction,
                "references": list(item.references),
                "score": score,
            }
            if item.prediction is None:
                rec["missing"] = True
            elif detail is not None:
                rec.update(detail(item))
            rec.update({k: v for k, v in item.fields.items() if _plain(v)})
            yield rec

    def as_dict(self) -> dict[str, Any]:
        """The ``--json`` payload: every number unrounded, in the toolkit's units."""
        agg = self.aggregate
        out: dict[str, Any] = {
            "task": self.task.name,
            "profile": self.profile.name,
            "n": len(self.scores),
            "headline": agg.headline,
            "units": agg.units,
            "metrics": dict(agg.metrics),
            "breakdowns": {
                k: {g: dict(m) for g, m in v.items()} for k, v in agg.breakdowns.items()
            },
            "signature": self.signature.format(),
            "layouts": list(self.data.layouts),
            "sources": list(self.data.sources),
            "n_missing": self.data.n_missing,
            "n_extra_ignored": self.data.n_extra_ignored,
            "notes": list(self.notes),
        }
        if self.data.reported is not None:
            out["reported"] = dict(self.data.reported)
        return out


def _plain(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def evaluate_task(
    task: str | Task,
    results: Any,
    *,
    annotations: Any = None,
    questions: Any = None,
    profile: str | None = None,
    format: str | None = None,
    id_field: str | None = None,
    answer_field: str | None = None,
    allow_missing: bool = False,
    ignore_extra: bool = False,
    on_duplicate: Literal["error", "last"] = "error",
    **options: Any,
) -> TaskEvaluation:
    """Score a results file (or in-memory predictions) of *task*.

    Parameters
    ----------
    task : str or Task
        A registered task name (``textvqa``, ``pope``, …; see :func:`list_tasks`).
    results : path, ``"-"``, list of records, mapping or DataFrame
        The predictions, in any layout the task reads (``Task.layouts``).
    annotations, questions : path, optional
        The ground truth and the question file, where the task needs them; a results file
        that carries its ground truth (VLMEvalKit) needs neither.
    profile : str, optional
        The toolkit to reproduce (default: the task's official scorer).
    options
        Task-specific options (e.g. GQA's ``choices=``).

    Returns
    -------
    TaskEvaluation
        ``metrics`` unrounded in the toolkit's units; ``scores`` per item.
    """
    t = get_task(task)
    prof = t.profile(profile)
    inputs = TaskInputs(
        results=results,
        annotations=annotations,
        questions=questions,
        format=format,
        id_field=id_field,
        answer_field=answer_field,
        allow_missing=allow_missing,
        ignore_extra=ignore_extra,
        on_duplicate=on_duplicate,
        options=options,
    )
    data = t.read(inputs)
    scores = _score_all(prof, data)
    aggregate = prof.aggregate(data.items, scores)
    return TaskEvaluation(t, prof, data, scores, aggregate, t.signature(prof, data))


def _score_all(prof: TaskProfile, data: TaskData) -> list[float]:
    """Every item's score; an error raised by the scorer names the item it was scoring."""
    scores = []
    for item in data.items:
        try:
            scores.append(prof.score_item(item))
        except VqaMetricsError as exc:
            if repr(item.id) in str(exc) or str(item.id) in str(exc):
                raise
            source = data.sources[-1] if data.sources else "input"
            raise type(exc)(f"{source}: item {item.id!r}: {exc}") from None
    return scores
