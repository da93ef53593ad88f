"""VLMEvalKit result sheets as task items, for any task: the rows carry their ground truth in
``answer``, so without ``--annotations`` they are the items; with annotations the predictions are
joined to them by id, the annotations winning. A task declares which row fields it keeps and
whether ``answer`` holds a list."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from ..core.exceptions import InputError
from .answers import NoGroundTruthError, id_key, reported_scores, text_predictions
from .items import Item, TaskData, TaskInputs
from .join import disagreement_note, join_inputs, unique_rows
from .layouts import Predictions, is_vlmevalkit, nan_note
from .records import (
    Records,
    cell_text,
    column_name,
    field_value,
    parse_list_cell,
    read_records,
)

__all__ = ["read_vlmevalkit", "sheet_answer", "sheet_id", "sheet_items"]


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
        records = read_records(
            inputs.results, format=inputs.format, on_duplicate=inputs.on_duplicate
        )
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
        if not _is_sheet(records, inputs) or "answer" not in records.columns:
            if annotations_reader is None:
                raise NoGroundTruthError(
                    f"{records.source}: this file carries no ground truth ('answer' column); "
                    "pass --annotations"
                )
            raise NoGroundTruthError(
                f"{records.source}: no ground truth in this file (it is {preds.layout}); "
                "pass --annotations"
            )
        items = sheet_items(records, preds, fields=fields, list_answers=list_answers)
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
                f"{wheres[first]}: empty prediction (the "
                f"{column_name(wheres[first], preds.answer_field)!r} cell; pass "
                f"--allow-missing to score the {missing} empty prediction(s) 0)"
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
    joined = join_inputs([it.id for it in gt_items], preds, inputs)
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
    if _is_sheet(records, inputs) and "answer" in records.columns:
        own = {
            id_key(it.id): it.references
            for it in sheet_items(records, preds, fields=fields, list_answers=list_answers)
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


def _is_sheet(records: Records, inputs: TaskInputs) -> bool:
    """:func:`is_vlmevalkit` with the columns ``--id-field`` / ``--answer-field`` name."""
    return is_vlmevalkit(records, id_field=inputs.id_field, answer_field=inputs.answer_field)


def sheet_answer(
    row: Mapping[str, Any], where: str, *, list_answers: bool = True, blank_is_empty: bool = False
) -> tuple[str, ...]:
    """A sheet row's ground truth: its ``answer`` cell, a list literal VLMEvalKit writes for
    several answers (*list_answers*) or one text. The one reading of that cell, for the task
    readers and the VQA results reader (which also refuses a blank cell: *blank_is_empty*)."""
    cell = row.get("answer")
    if cell is None or (blank_is_empty and cell == ""):
        raise InputError(f"{where}: the 'answer' (ground truth) cell is empty")
    if list_answers:
        return tuple(parse_list_cell(cell, where))
    return (str(cell_text(cell, where, column="answer")),)


#: sheet columns that hold a judge's verdict, which a sheet may store as a boolean cell
#: (VLMEvalKit's HallusionBench ``score``: ``True``/``False``), unlike the breakdown keys
_VERDICTS = frozenset({"score"})


def sheet_items(
    records: Records,
    preds: Predictions,
    *,
    fields: Sequence[str] = (),
    list_answers: bool = True,
    blank_is_empty: bool = False,
) -> list[Item]:
    """One item per sheet row, its ground truth read from ``answer`` (:func:`sheet_answer`),
    *fields* copied where present: the one reading of a sheet's own items, for the task
    readers and the VQA results reader."""
    items = []
    for row, key, text, where in zip(
        records.rows, preds.ids, preds.texts, preds.wheres, strict=True
    ):
        refs = sheet_answer(row, where, list_answers=list_answers, blank_is_empty=blank_is_empty)
        extra = {
            f: field_value(row[f], where, f, allow_bool=f in _VERDICTS)
            for f in fields
            if row.get(f) is not None
        }
        items.append(Item(sheet_id(key, records.layout), text, refs, extra))
    return items


def sheet_id(key: Hashable, layout: str = "") -> str | int:
    """An item id of a sheet's row: the same value whatever format the sheet was saved in —
    a CSV/TSV cell (or an XLSX text cell) ``"12"`` is the id ``12`` a number cell or pandas
    gives (leading zeros, signs and spaces keep it text)."""
    if (
        isinstance(key, str)
        and layout.split("+")[0] in ("csv", "tsv", "xlsx")
        and key.isascii()
        and key.isdecimal()
        and (key == "0" or not key.startswith("0"))
    ):
        return int(key)
    return key if isinstance(key, str | int) else str(key)
