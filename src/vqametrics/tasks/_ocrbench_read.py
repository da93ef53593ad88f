"""Reading OCRBench's files: OCRBench.json with ``predict`` (``example.py``'s output), a
VLMEvalKit spreadsheet, or an lmms-eval ``--log_samples`` log (with ``doc``, its own ground
truth; without, joined to ``--annotations OCRBench.json`` by position). See ``ocrbench.py``
for the scoring."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..core.exceptions import InputError
from ..readers.detect import Layouts, read_by_layout, read_log
from ..readers.join import disagreement_note, join_truth, unique_rows
from ..readers.layouts import Predictions, is_vlmevalkit
from ..readers.records import Records, read_records
from ._base import Item, TaskData, TaskInputs
from ._common import found_instead, read_vlmevalkit, reported_scores
from ._lmms import TOOLKIT_SCORE, LogLayout, LogReading, Truth, log_docs

__all__ = ["LMMS_EVAL_METRICS", "LMMS_EVAL_REPORTED", "read_ocrbench"]

#: what lmms-eval's ``ocrbench_process_results`` returns per sample (lmms-eval@75571cf
#: ``lmms_eval/tasks/ocrbench/utils.py``): ``{"ocrbench_accuracy": {"question_type", "score",
#: "prediction", "ground_truth"}}``, the 0/1 score inside
LMMS_EVAL_METRICS = ("ocrbench_accuracy",)
#: an lmms-eval log is told apart from OCRBench.json and a sheet; its record holds no id
TOOLKIT_LAYOUTS = Layouts(log=LogLayout(metrics=LMMS_EVAL_METRICS))

#: lmms-eval's aggregate metric (``results.json``, ``"<metric>,none"``: Final Score / 1000) →
#: the ``lmms-eval`` profile's metric that recomputes it
LMMS_EVAL_REPORTED: Mapping[str, str] = {"ocrbench_accuracy": "ocrbench_accuracy"}


def read_ocrbench(inputs: TaskInputs) -> TaskData:
    """The items of an OCRBench results file, whichever of the three layouts it is."""
    if inputs.questions is not None:
        raise InputError("ocrbench: --questions is not used (the answers carry the questions)")
    return read_by_layout(inputs, TOOLKIT_LAYOUTS, log=_read_lmms_eval, other=_read_answers)


def _read_answers(records: Records, inputs: TaskInputs) -> TaskData:
    """OCRBench.json with the model's ``predict``, or a VLMEvalKit sheet: answers and ground
    truth in one file."""
    cols = set(records.columns)
    if inputs.annotations is not None:
        raise InputError(
            "ocrbench: the results file carries the answers (OCRBench.json with 'predict', "
            "or a VLMEvalKit spreadsheet); --annotations is used only with lmms-eval logs"
        )
    if "dataset_name" in cols and "answers" in cols:
        return _read_ocrbench_json(records, inputs)
    if is_vlmevalkit(records, id_field=inputs.id_field, answer_field=inputs.answer_field):
        data = read_vlmevalkit(inputs, fields=("category", "dataset_name"), records=records)
        for it in data.items:
            if "category" not in it.fields:
                raise InputError(f"{records.source}: item {it.id!r} has no 'category'")
        return data
    have = ", ".join(sorted(cols)[:20]) or "none"
    raise InputError(
        f"{records.source}: not an OCRBench results file (columns: {have}); expected "
        "OCRBench.json items (dataset_name, type, answers, predict), a VLMEvalKit "
        "spreadsheet (index, answer, prediction, category) or an lmms-eval samples log"
    )


def _answers(value: Any, where: str, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(a, str) for a in value):
        return tuple(value)
    raise InputError(f"{where}: {what} must be a string or a list of strings")


def _ocrbench_row(row: Mapping[str, Any], where: str) -> tuple[tuple[str, ...], dict[str, Any]]:
    """One OCRBench.json item's answers and fields (``dataset_name``, ``category`` = its type)."""
    for column in ("dataset_name", "type"):
        if not isinstance(row.get(column), str):
            raise InputError(f"{where}: {column!r} is missing or not text")
    if row.get("answers") is None and (instead := found_instead(row, "answers")):
        raise InputError(f"{where}: no 'answers'{instead}")
    refs = _answers(row.get("answers"), where, "'answers'")
    return refs, {"dataset_name": row["dataset_name"], "category": row["type"]}


def _read_ocrbench_json(records: Records, inputs: TaskInputs) -> TaskData:
    """OCRBench.json with example.py's ``predict`` added to each item."""
    items: list[Item] = []
    wheres: list[str] = []
    # --answer-field / --id-field name the prediction and id columns (example.py: predict, id)
    pred_col = inputs.answer_field or "predict"
    id_col = inputs.id_field or "id"
    for i, row in enumerate(records.rows):
        where = records.where(i)
        refs, fields = _ocrbench_row(row, where)
        pred = row.get(pred_col)
        if pred is not None and not isinstance(pred, str):
            raise InputError(
                f"{where}: {pred_col!r} is {type(pred).__name__}, expected text "
                "(example.py calls .strip() on it)"
            )
        raw = row.get(id_col)
        key: str | int = raw if isinstance(raw, str | int) and not isinstance(raw, bool) else i + 1
        items.append(Item(key, pred, refs, fields))
        wheres.append(where)
    keep, dup_note = unique_rows(
        [it.id for it in items], wheres, what="id", on_duplicate=inputs.on_duplicate
    )
    items = [items[k] for k in keep]
    kept = [wheres[k] for k in keep]
    missing = [w for it, w in zip(items, kept, strict=True) if it.prediction is None]
    notes: list[str] = [dup_note] if dup_note else []
    if missing and not inputs.allow_missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise InputError(
            f"{missing[0]}: no {pred_col!r}{more} (example.py skips such items, i.e. counts them "
            "0: pass --allow-missing to do the same)"
        )
    if missing:
        notes.append(f"{len(missing)} item(s) without {pred_col!r} counted 0, as example.py does")
    return TaskData(
        items,
        (records.source,),
        (f"ocrbench-json ({records.layout})",),
        tuple(notes),
        n_missing=len(missing),
    )


def _join_by_doc_id(
    preds: Predictions, inputs: TaskInputs, items: list[Item], truth: list[Item], truth_source: str
) -> TaskData:
    """A log with ``doc`` joined to ``--annotations OCRBench.json`` by ``doc_id`` position
    (the rows carry no id; doc_id *i* = the *i*-th item) under the one join's rules: the
    annotations' answers win, docs that disagree with them are counted in a note, and each
    item keeps the toolkit's own score of its sample."""
    by_doc = {int(it.id): it for it in items}  # the last of a repeated doc_id, as the join
    differ = [
        truth[i].id
        for i in sorted(by_doc)
        if i < len(truth) and _compared(by_doc[i]) != _compared(truth[i])
    ]
    source = preds.source
    notes = [
        f"{source} joined to {truth_source} by doc_id position (lmms-eval's OCRBench rows "
        "carry no id; doc_id i = the i-th item); the annotations' answers were used"
    ]
    note = disagreement_note(differ, f"doc(s) of {source} (answer, dataset or type)", truth_source)
    data = join_truth(
        truth,
        (truth_source,),
        preds,
        inputs,
        layouts=(preds.layout,),
        truth_ids=range(len(truth)),
        what="doc_id",
        notes=(*notes, *([note] if note else [])),
        missing="{n} item(s) had no sample and counted 0",
        extra="{n} sample(s) whose doc_id is past the annotations were ignored",
        reported=reported_scores(inputs),
    )
    scored = [
        replace(it, fields={**it.fields, TOOLKIT_SCORE: by_doc[i].fields[TOOLKIT_SCORE]})
        if i in by_doc and TOOLKIT_SCORE in by_doc[i].fields
        else it
        for i, it in enumerate(data.items)
    ]
    return replace(data, items=scored)


def _compared(item: Item) -> tuple[Any, ...]:
    """What a doc and its annotation must agree on: the answers, the dataset and the type."""
    return item.references, item.fields["dataset_name"], item.fields["category"]


def _read_truth(source: Any) -> tuple[list[Item], str]:
    """``--annotations OCRBench.json`` (``predict`` not needed), in its order: lmms-eval's
    ``echo840/OCRBench`` rows are that file's items in order (``upload_ocrbench.py`` builds
    them item by item), so ``doc_id`` *i* is its *i*-th item."""
    records = read_records(source)
    if not records.rows:
        raise InputError(f"{records.source}: no items in the annotations")
    items = []
    for i, row in enumerate(records.rows):
        refs, fields = _ocrbench_row(row, records.where(i))
        raw = row.get("id")
        key: str | int = raw if isinstance(raw, str | int) and not isinstance(raw, bool) else i + 1
        items.append(Item(key, None, refs, fields))
    return items, records.source


def _doc_fields(doc: Mapping[str, Any], where: str) -> dict[str, Any]:
    """lmms-eval's OCRBench row (``echo840/OCRBench``: ``dataset``, ``question``,
    ``question_type``, ``answer``; lmms-eval@75571cf ``tasks/ocrbench/upload_ocrbench.py``)
    in OCRBench.json's names: ``dataset`` → ``dataset_name``, ``question_type`` → the type."""
    for key in ("dataset", "question_type"):
        if not isinstance(doc.get(key), str):
            raise InputError(f"{where}: doc.{key} is missing or not text")
    return {"dataset_name": doc["dataset"], "category": doc["question_type"]}


def _with_doc_fields(own: list[Item], preds: Predictions) -> list[Item]:
    """Each doc's item with its dataset and type (:func:`_doc_fields`)."""
    return [
        replace(it, fields={**it.fields, **_doc_fields(row["doc"], where)})
        for it, row, where in zip(own, preds.records.rows, preds.wheres, strict=True)
    ]


def _annotation_truth(inputs: TaskInputs) -> Truth:
    truth, truth_source = _read_truth(inputs.annotations)
    return Truth(truth, (truth_source,))


def _join_docs(preds: Predictions, inputs: TaskInputs) -> TaskData:
    items = log_docs(preds, LOG_READING)
    truth, truth_source = _read_truth(inputs.annotations)
    return _join_by_doc_id(preds, inputs, items, truth, truth_source)


#: an lmms-eval ``--log_samples`` file. With ``doc``: scored against ``doc.answer`` (ids are
#: doc_ids: two different docs under one doc_id are two logs mixed), or, given ``--annotations
#: OCRBench.json``, against that file joined by ``doc_id`` position (the rows carry no id),
#: doc/annotation disagreements counted in a note. Without ``doc``: ``--annotations`` is
#: needed and joined by position
LOG_READING = LogReading(
    layout=TOOLKIT_LAYOUTS.log,
    references=lambda doc, where: _answers(doc.get("answer"), where, "doc.answer"),
    adjust=_with_doc_fields,
    what="doc_id",
    joined=_join_docs,
    need="--annotations OCRBench.json (joined by position: doc_id i = its i-th item)",
    lacks="question id or dataset name (ocrbench_accuracy has question_type, score)",
    truth=_annotation_truth,
    truth_first=True,
    absent_note="{n} item(s) had no sample and counted 0",
)


def _read_lmms_eval(preds: Predictions, inputs: TaskInputs) -> TaskData:
    """An lmms-eval log of OCRBench, read as :data:`LOG_READING` declares."""
    return read_log(preds, inputs, LOG_READING)
