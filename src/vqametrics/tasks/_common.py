"""Aggregation pieces that several task modules share; the reading pieces they used to share
here live in ``readers/`` and are re-exported under their old names."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..aggregate.formulas import group_by, naive_mean, numpy_mean
from ..readers.answers import (
    NoGroundTruthError,
    found_instead,
    id_key,
    not_text_error,
    reported_scores,
    text_predictions,
)
from ..readers.join import unique_items as unique_rows_of
from ..readers.records import Records
from ..readers.vlmevalkit import read_vlmevalkit
from ._base import Aggregate, Aggregator, Item, TaskData, TaskInputs, Units

__all__ = [
    "NoGroundTruthError",
    "found_instead",
    "group_keys",
    "group_means",
    "id_key",
    "judged_data",
    "mean",
    "mean_aggregate",
    "not_text_error",
    "numpy_mean",
    "read_vlmevalkit",
    "reported_scores",
    "text_predictions",
    "ungrouped_note",
    "unique_items",
    "vlmevalkit_breakdown",
    "vlmevalkit_judge_rows",
    "vlmevalkit_overall",
]


def mean(values: Sequence[float]) -> float:
    """``sum(values) / len(values)`` left to right, ``0.0`` for no values (GQA's ``avg([])``)."""
    return naive_mean(values, empty=0.0)


def ungrouped_note(
    items: Sequence[Item], keys: Sequence[object | None], field: str, breakdown: str = ""
) -> tuple[str, ...]:
    """A note naming the items a breakdown leaves out for want of its field (their key in
    *keys* is ``None``), so that no item leaves a breakdown unsaid; nothing when every item has
    the field, or none has (then there is no breakdown to leave them out of)."""
    missing = [i for i, key in enumerate(keys) if key is None]
    if not missing or len(missing) == len(keys):
        return ()
    shown = ", ".join(str(items[i].id) for i in missing[:5])
    more = ", …" if len(missing) > 5 else ""
    table = breakdown or field
    return (
        f"{len(missing)} of {len(keys)} items have no {field} (ids {shown}{more}): they count "
        f"in the overall score but not in the {table} breakdown",
    )


def mean_aggregate(
    key: str,
    *,
    average: Callable[[Sequence[float]], float] = mean,
    scale: float = 1.0,
    units: Units = "fraction",
    digits: int = 4,
) -> Aggregator:
    """The aggregation that reports one number, ``scale · average(scores)``, as *key* (with the
    count ``n``): what most toolkits print for a benchmark without breakdowns."""

    def aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
        return Aggregate(
            metrics={key: scale * average(scores), "n": len(scores)},
            headline=key,
            units=units,
            digits=digits,
        )

    return aggregate


def group_means(
    items: Sequence[Item],
    scores: Sequence[float],
    field: str,
    average: Callable[[Sequence[float]], float],
    scale: float = 1.0,
    key: str = "accuracy",
) -> dict[str, dict[str, float | int]]:
    """``{group: {key: scale·average(scores of the group), "n": count}}`` by item field
    *field*, groups in first-seen order; items without the field are left out
    (:func:`ungrouped_note` says so)."""
    keys = group_keys(items, field)
    return {g: {key: average(v) * scale, "n": len(v)} for g, v in group_by(keys, scores).items()}


def group_keys(items: Sequence[Item], field: str) -> list[str | None]:
    """Each item's *field* as text, ``None`` where the item has none (no group)."""
    return [None if (g := it.fields.get(field)) is None else str(g) for it in items]


def vlmevalkit_breakdown(
    items: Sequence[Item], scores: Sequence[float], field: str
) -> dict[str, dict[str, float | int]]:
    """VLMEvalKit's per-category numbers: ``np.mean(hits) * 100`` per value of *field*, in
    sorted order (it groups with ``set``, then sorts)."""
    groups = group_means(items, scores, field, numpy_mean, 100.0)
    return {g: groups[g] for g in sorted(groups)}


def vlmevalkit_overall(
    items: Sequence[Item], scores: Sequence[float], fields: Sequence[str] = ()
) -> Aggregate:
    """VLMEvalKit's ``Overall``: ``np.mean(hits) * 100`` over every row, in percent, with the
    per-value numbers of each of *fields* (:func:`vlmevalkit_breakdown`); with no *fields* an
    :data:`Aggregator` itself."""
    return Aggregate(
        metrics={"Overall": numpy_mean(scores) * 100, "n": len(scores)},
        headline="Overall",
        units="percent",
        breakdowns={field: vlmevalkit_breakdown(items, scores, field) for field in fields},
        notes=tuple(n for f in fields for n in ungrouped_note(items, group_keys(items, f), f)),
    )


def vlmevalkit_judge_rows(
    items: Sequence[Item],
    scores: Sequence[float],
    keys: Callable[[Item], Sequence[str | None]],
    *,
    sort: bool,
) -> dict[str, dict[str, float | int]]:
    """VLMEvalKit's ``*_acc`` table of a judged benchmark (MathVista, MathVision): for every key
    of an item (``None`` skipped) ``tot``, ``prefetch`` (rows whose log is ``Prefetch
    succeed``), ``hit``, ``prefetch_rate`` and ``acc`` = hit / tot × 100; keys sorted, or in
    first-seen order."""
    tot: dict[str, int] = {}
    fetch: dict[str, int] = {}
    hit: dict[str, int] = {}
    for item, s in zip(items, scores, strict=True):
        prefetched = item.fields.get("log") == "Prefetch succeed"
        for k in keys(item):
            if k is None:
                continue
            tot[k] = tot.get(k, 0) + 1
            fetch[k] = fetch.get(k, 0) + prefetched
            hit[k] = hit.get(k, 0) + (s == 1.0)
    return {
        k: {
            "tot": tot[k],
            "prefetch": fetch[k],
            "hit": hit[k],
            "prefetch_rate": fetch[k] / tot[k] * 100,
            "acc": hit[k] / tot[k] * 100,
        }
        for k in (sorted(tot) if sort else tot)
    }


def unique_items(
    items: list[Item], records: Records, what: str, inputs: TaskInputs
) -> tuple[list[Item], tuple[str, ...]]:
    """An item given twice is an error naming both rows (never scored twice), unless
    ``--on-duplicate last`` keeps the last row of each (said in the returned note); *what*
    names the id (MathVista, MathVision)."""
    wheres = [records.where(i) for i in range(len(items))]
    kept, note = unique_rows_of(items, wheres, what=what, on_duplicate=inputs.on_duplicate)
    return kept, (note,) if note else ()


def judged_data(data: TaskData, items: list[Item], note: str, judge: Any) -> TaskData:
    """*data* after a task's judge stage: the stage's *items*, its *note* after the reader's,
    and the signature's ``judge:`` value (``extra["judge"]``)."""
    extra = {**data.extra, "judge": judge}
    return replace(data, items=items, notes=(*data.notes, note), extra=extra)
