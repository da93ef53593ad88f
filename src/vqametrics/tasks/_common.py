"""Reading and aggregation pieces that several task modules share."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from ..core.exceptions import InputError
from ..kernels.vqa import average
from ..readers.join import disagreement_note, join_by_id, unique_rows
from ..readers.layouts import (
    Predictions,
    is_vlmevalkit,
    locate_reported,
    nan_note,
    predictions_from,
)
from ..readers.records import Records, cell_text, parse_list_cell, read_records
from ._base import Aggregate, Aggregator, Item, TaskData, TaskInputs, Units

__all__ = [
    "NoGroundTruthError",
    "found_instead",
    "group_means",
    "id_key",
    "mean",
    "mean_aggregate",
    "not_text_error",
    "numpy_mean",
    "read_vlmevalkit",
    "reported_scores",
    "text_predictions",
    "typed",
    "vlmevalkit_breakdown",
    "vlmevalkit_judge_rows",
]


class NoGroundTruthError(InputError):
    """The results file carries no ground truth and no annotations were given."""


#: field names that hold a ground truth in some file, when another name is expected
_TRUTH_NAMES = ("answer", "answers", "label", "labels", "gt", "gt_answer", "gt_answers")


def found_instead(row: Mapping[str, Any], wanted: str) -> str:
    """What a row holds where the field *wanted* was expected: ``"; 'answer' holds a list of
    10: did you mean 'answers'?"`` when another field looks like the ground truth, else
    ``""`` — so a file that has its answers under another name is not told it has none."""
    for key, value in row.items():
        name = str(key)
        if name == wanted or not (name.lower() in _TRUTH_NAMES or "answer" in name.lower()):
            continue
        if value is None:
            continue
        if isinstance(value, list):
            what = f"a list of {len(value)}"
        elif isinstance(value, str):
            what = f"the text {value[:40]!r}"
        else:
            what = f"{type(value).__name__} {str(value)[:40]}"
        return f"; {name!r} holds {what}: did you mean {wanted!r} (rename the field)?"
    return ""


#: record layouts whose values carry their JSON type (a number there is not text)
_TYPED_LAYOUTS = ("json", "jsonl", "list", "mapping")


def typed(records: Records) -> bool:
    """Whether *records* came from JSON (or Python objects), where an answer's type is the
    file's own — not from a sheet, where a number cell is the text it shows."""
    return records.layout.removesuffix("+gzip").startswith(_TYPED_LAYOUTS)


def not_text_error(where: str, column: str, value: Any) -> InputError:
    """The refusal of a JSON answer that is not a string (``"text": 1``)."""
    return InputError(
        f"{where}: {column!r} is {type(value).__name__} {str(value)[:40]}, expected text (a "
        "model's answer is a string; write it in quotes if that is what the model said)"
    )


def text_predictions(records: Records, **options: Any) -> Predictions:
    """:func:`predictions_from` (same options) with the one rule for answer types: in a JSON
    file each answer is a string or null (an lmms-eval ``filtered_resps`` list holds one);
    a number or a boolean there is an error, never text made from it."""
    preds = predictions_from(records, **options)
    if not typed(records):
        return preds
    column = preds.answer_field
    for row, where in zip(records.rows, preds.wheres, strict=True):
        value = row.get(column)
        while isinstance(value, list) and value:
            value = value[0]
        if value is not None and not isinstance(value, str):
            raise not_text_error(where, column, value)
    return preds


def numpy_mean(values: Sequence[float]) -> float:
    """``np.mean`` (pairwise summation), as VLMEvalKit averages; its last bits differ from a
    left-to-right sum for long lists, so toolkits that use it are reproduced with it."""
    if not values:
        return float("nan")
    if all(v == 0 or v == 1 for v in values) and sum(values) > 0:
        # hits and misses: every partial sum is an exact integer, so numpy's pairwise order
        # gives this same float, and a small run need not import numpy (issue 23)
        return sum(values) / len(values)
    import numpy as np

    return float(np.mean(np.asarray(values, dtype=np.float64)))


def mean(values: Sequence[float]) -> float:
    """``sum(values) / len(values)``: the builtin left-to-right sum most official scripts use
    (``0.0`` for no values, as ``avg([])`` in GQA's script)."""
    return average(values, "naive") if values else 0.0


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
    *field*, groups in first-seen order; items without the field are left out."""
    groups: dict[str, list[float]] = {}
    for item, score in zip(items, scores, strict=True):
        g = item.fields.get(field)
        if g is None:
            continue
        groups.setdefault(str(g), []).append(score)
    return {g: {key: average(v) * scale, "n": len(v)} for g, v in groups.items()}


def vlmevalkit_breakdown(
    items: Sequence[Item], scores: Sequence[float], field: str
) -> dict[str, dict[str, float | int]]:
    """VLMEvalKit's per-category numbers: ``np.mean(hits) * 100`` per value of *field*, in
    sorted order (it groups with ``set``, then sorts)."""
    groups = group_means(items, scores, field, numpy_mean, 100.0)
    return {g: groups[g] for g in sorted(groups)}


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


def read_vlmevalkit(
    inputs: TaskInputs,
    *,
    fields: Sequence[str] = ("category", "split"),
    list_answers: bool = True,
    annotations_reader: Callable[[TaskInputs], tuple[list[Item], tuple[str, ...]]] | None = None,
    records: Records | None = None,
) -> TaskData:
    """A results file scored against its own ground truth, or joined to annotations.

    *records*: the results file's rows when the caller has read them already (standard input
    can be read only once).

    VLMEvalKit spreadsheets carry the ground truth in ``answer``: without ``--annotations``
    their rows are the items. With annotations (read by *annotations_reader*), the
    predictions are joined to them by id and the annotations' answers win; rows whose two
    ground truths disagree are counted in a note.
    """
    if records is None:
        records = read_records(inputs.results, format=inputs.format)
    preds = text_predictions(
        records,
        id_field=inputs.id_field,
        answer_field=inputs.answer_field,
        allow_missing_answer=True,
    )
    notes: list[str] = [n for n in (nan_note(preds),) if n is not None]
    rep = reported_scores(inputs)
    if inputs.annotations is not None and annotations_reader is None:
        notes.append(
            f"--annotations ignored: this task scores {records.source} against the ground "
            "truth it carries"
        )
    if inputs.questions is not None and annotations_reader is None:
        notes.append(f"--questions ignored: {records.source} carries its questions")
    if inputs.annotations is None or annotations_reader is None:
        if not is_vlmevalkit(records) or "answer" not in records.columns:
            if annotations_reader is None:
                raise NoGroundTruthError(
                    f"{records.source}: this file carries no ground truth ('answer' column); "
                    "pass --annotations"
                )
            raise NoGroundTruthError(
                f"{records.source}: no ground truth in this file (it is {preds.layout}); "
                "pass --annotations"
            )
        items = _own_items(records, preds.ids, preds.texts, preds.wheres, fields, list_answers)
        keep, dup_note = unique_rows(
            [it.id for it in items], preds.wheres, what="index", on_duplicate=inputs.on_duplicate
        )
        items = [items[i] for i in keep]
        wheres = [preds.wheres[i] for i in keep]
        notes += [dup_note] if dup_note else []
        missing = sum(1 for it in items if it.prediction is None)
        if missing and not inputs.allow_missing:
            first = next(i for i, it in enumerate(items) if it.prediction is None)
            raise InputError(
                f"{wheres[first]}: empty prediction (pass --allow-missing to score "
                f"the {missing} empty prediction(s) 0)"
            )
        if missing:
            notes.append(f"{missing} item(s) had no prediction and scored 0")
        return TaskData(
            items,
            (records.source,),
            (preds.layout,),
            tuple(notes),
            rep,
            n_missing=missing,
        )
    gt_items, gt_sources = annotations_reader(inputs)
    joined = join_by_id(
        [it.id for it in gt_items],
        preds.ids,
        preds.texts,
        source=records.source,
        wheres=preds.wheres,
        allow_missing=inputs.allow_missing,
        ignore_extra=inputs.ignore_extra,
        on_duplicate=inputs.on_duplicate,
    )
    items = [
        Item(it.id, p, it.references, it.fields)
        for it, p in zip(gt_items, joined.predictions, strict=True)
    ]
    # a prediction row whose answer is null or an empty cell is missing too, never a silent 0
    absent = set(joined.missing)
    empty = [it.id for it in items if it.prediction is None and it.id not in absent]
    if empty and not inputs.allow_missing:
        raise InputError(
            f"{records.source}: the prediction for {empty[0]!r} is empty or null"
            + (f" (and {len(empty) - 1} more)" if len(empty) > 1 else "")
            + "; pass --allow-missing to score such items 0"
        )
    n_missing = len(joined.missing) + len(empty)
    if is_vlmevalkit(records) and "answer" in records.columns:
        own = {
            id_key(it.id): it.references
            for it in _own_items(
                records, preds.ids, preds.texts, preds.wheres, fields, list_answers
            )
        }
        differ = [
            it.id for it in gt_items if id_key(it.id) in own and own[id_key(it.id)] != it.references
        ]
        note = disagreement_note(
            differ, f"ground truth(s) carried by {records.source}", "the annotations"
        )
        notes += [note] if note else []
    if n_missing:
        notes.append(f"{n_missing} item(s) had no prediction and scored 0")
    if joined.extra:
        notes.append(f"{len(joined.extra)} prediction(s) for unknown items were ignored")
    return TaskData(
        items,
        (*gt_sources, records.source),
        (preds.layout,),
        tuple(notes),
        rep,
        n_missing=n_missing,
        n_extra_ignored=len(joined.extra),
    )


def reported_scores(inputs: TaskInputs) -> dict[str, Any] | None:
    """The toolkit's own numbers: ``--reported FILE``, else found beside the results file."""
    return locate_reported(inputs.results, inputs.reported)


def _own_items(
    records: Records,
    ids: Sequence[Hashable],
    texts: Sequence[str | None],
    wheres: Sequence[str],
    fields: Sequence[str],
    list_answers: bool,
) -> list[Item]:
    items = []
    for row, key, text, where in zip(records.rows, ids, texts, wheres, strict=True):
        if "answer" not in row or row["answer"] is None:
            raise InputError(f"{where}: the 'answer' (ground truth) cell is empty")
        if list_answers:
            refs = tuple(parse_list_cell(row["answer"], where))
        else:
            refs = (str(cell_text(row["answer"], where, column="answer")),)
        extra = {f: row[f] for f in fields if f in row and row[f] is not None}
        items.append(Item(_hashable_id(key, records.layout), text, refs, extra))
    return items


def _hashable_id(key: Hashable, layout: str = "") -> str | int:
    """An item id of a sheet's row: the same value whatever format the sheet was saved in —
    a CSV/TSV cell ``"12"`` is the id ``12`` an XLSX cell or pandas gives (leading zeros,
    signs and spaces keep it text)."""
    if (
        isinstance(key, str)
        and layout.startswith(("csv", "tsv"))
        and key.isascii()
        and key.isdigit()
        and (key == "0" or not key.startswith("0"))
    ):
        return int(key)
    return key if isinstance(key, str | int) else str(key)


def id_key(key: Any) -> Any:
    """An id as compared across files and formats: ``12`` and ``"12"`` are one id."""
    if isinstance(key, str | int) and not isinstance(key, bool):
        return str(key).strip()
    return key
