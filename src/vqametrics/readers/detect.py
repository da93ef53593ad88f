"""Which toolkit wrote a results file, decided once, and the steps every task takes with it.

A task declares how its fields sit in each toolkit's layout as data (:class:`LogLayout` for an
lmms-eval ``--log_samples`` log: the doc keys of its id and fields, the per-sample metrics, the
newer metric record, which options give the ground truth); :func:`detect` says which layout a
file is in, :func:`open_log` applies the rules every log shares, and :func:`read_log` reads a
log the one way every task does (:class:`LogReading`: its docs alone, its docs joined to the
annotations, or no docs joined to them by position), built from :func:`docs_alone`,
:func:`positional_data` and :func:`join_docs_by_key`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Literal, NamedTuple

from ..core.exceptions import InputError
from ._paths import path_suffix
from .answers import reported_scores
from .items import Item, ItemId, TaskData, TaskInputs
from .join import disagreement_note, unique_items
from .layouts import Predictions, is_vlmevalkit
from .lmms_eval import (
    TOOLKIT_SCORE,
    KeyedJoin,
    LogLayout,
    LogReading,
    Truth,
    clean_samples,
    has_docs,
    lmms_eval_predictions,
    log_docs,
    no_doc_error,
    positional_items,
    with_record_docs,
    without_questions,
)
from .records import Records, read_records

__all__ = [
    "Detected",
    "DocJoin",
    "Layouts",
    "LogLayout",
    "detect",
    "docs_alone",
    "is_sheet_path",
    "join_docs",
    "join_docs_by_key",
    "log_by_position",
    "open_log",
    "positional_data",
    "read_by_layout",
    "read_log",
    "read_yes_no",
    "yes_no_layouts",
]

#: the file names VLMEvalKit writes its result sheets under
_SHEET_SUFFIXES = (".xlsx", ".tsv", ".csv")


class Layouts(NamedTuple):
    """How a task's files are told apart and what its log holds, as data: ``log`` (its fields
    in an lmms-eval log); ``sheets_by_name``: a path named like a sheet is read as a VLMEvalKit
    sheet whatever its columns; ``sheet_needs_answer``: a sheet is one only with its ``answer``
    column (else the task's own reader words what is missing); ``log_with_answer_field``:
    whether a file given ``--answer-field`` may still be a log. A named tuple, as
    :class:`LogLayout`."""

    log: LogLayout = LogLayout()
    sheets_by_name: bool = False
    sheet_needs_answer: bool = False
    log_with_answer_field: bool = True


class Detected(NamedTuple):
    """A results file as read, and the toolkit layout it is in (a named tuple: a frozen
    dataclass costs ten times its making at import, issue 23)."""

    kind: Literal["vlmevalkit", "lmms-eval", "other"]
    records: Records
    #: the log's predictions (``kind == "lmms-eval"``), empty answers kept for :func:`open_log`
    log: Predictions | None = None


def is_sheet_path(source: Any) -> bool:
    """Whether *source* is a path named like a VLMEvalKit sheet (``.xlsx``, ``.tsv``,
    ``.csv``): such a file is read as a sheet whatever its columns."""
    return isinstance(source, str | os.PathLike) and path_suffix(source).lower() in _SHEET_SUFFIXES


def detect(
    inputs: TaskInputs,
    records: Records | None = None,
    *,
    sheet_needs_answer: bool = False,
    log_with_answer_field: bool = True,
) -> Detected:
    """The one place a results file's toolkit layout is decided: a VLMEvalKit sheet (with its
    ``answer`` column when *sheet_needs_answer*), an lmms-eval log (never when
    ``--answer-field`` is given and not *log_with_answer_field*: the file is then answers to
    pair with the labels), or another layout the task reads itself."""
    if records is None:
        records = read_records(
            inputs.results, format=inputs.format, on_duplicate=inputs.on_duplicate
        )
    sheet = is_vlmevalkit(records, id_field=inputs.id_field, answer_field=inputs.answer_field)
    if sheet and (not sheet_needs_answer or "answer" in records.columns):
        return Detected("vlmevalkit", records)
    if inputs.answer_field and not log_with_answer_field:
        return Detected("other", records)
    preds = lmms_eval_predictions(records, inputs, allow_empty=True)
    if preds is not None:
        return Detected("lmms-eval", records, preds)
    return Detected("other", records)


def open_log(
    preds: Predictions, inputs: TaskInputs, layout: LogLayout
) -> tuple[Predictions, Callable[[TaskData], TaskData]]:
    """A log's records by the rules every task shares: the newer form's stand-in docs built
    from its metric record when no ground truth is given (``layout.record``), each sample once,
    each ``doc_id`` once per task (``layout.subtasks``), empty predictions an error unless
    ``--allow-missing`` (:func:`clean_samples`)."""
    if layout.record is not None:
        preds = with_record_docs(preds, layout.record, inputs)
    alone = has_docs(preds) and all(getattr(inputs, o) is None for o in layout.truth)
    return clean_samples(preds, inputs, alone=alone, subtasks=layout.subtasks)


def docs_alone(
    preds: Predictions,
    inputs: TaskInputs,
    items: Sequence[Item],
    *,
    what: str = "question id",
    notes: Sequence[str] = (),
) -> TaskData:
    """The items of a log scored against the docs it logged: each item once by the one rule
    for repeated ids (*what* names the id in messages), with *notes* first."""
    kept, note = unique_items(items, preds.wheres, what=what, on_duplicate=inputs.on_duplicate)
    return TaskData(
        kept,
        (preds.source,),
        (preds.layout,),
        (*notes, *([note] if note else [])),
        reported_scores(inputs),
    )


def positional_data(
    preds: Predictions,
    inputs: TaskInputs,
    truth: Sequence[Item],
    truth_sources: Sequence[str],
    layout: LogLayout,
    *,
    truth_name: str | None = None,
    truth_layout: str | None = None,
    truth_first: bool = False,
    absent_note: str | None = None,
    extra: dict[str, Any] | None = None,
) -> TaskData:
    """A log without ``doc`` joined to the annotation items *truth* by position (``doc_id`` *i*
    = the *i*-th item, :func:`positional_items`). *truth_name* names them in messages (their
    sources joined by default); *truth_layout* is their layout's name; the sources and
    layouts list the annotations first when *truth_first*; *absent_note* (with ``{n}``) says
    how many items had no sample, when some had none."""
    given = Truth(truth, tuple(truth_sources), truth_layout, truth_name, extra=extra or {})
    return _by_position(preds, inputs, given, layout, truth_first, absent_note)


def _by_position(
    preds: Predictions,
    inputs: TaskInputs,
    truth: Truth,
    layout: LogLayout,
    truth_first: bool,
    absent_note: str | None,
) -> TaskData:
    """:func:`positional_data` of the annotations *truth*, its notes first."""
    items, note, n_absent = positional_items(
        preds,
        truth.items,
        truth.named(),
        sample_metrics=layout.metrics,
        allow_missing=inputs.allow_missing,
    )
    log_layouts = (preds.layout,)
    truth_layouts = (truth.layout,) if truth.layout is not None else ()
    if truth_first:
        sources = (*truth.sources, preds.source)
        layouts = (*truth_layouts, *log_layouts)
    else:
        sources = (preds.source, *truth.sources)
        layouts = (*log_layouts, *truth_layouts)
    notes = [*truth.notes, note]
    if n_absent and absent_note is not None:
        notes.append(absent_note.format(n=n_absent))
    return TaskData(
        items,
        sources,
        layouts,
        tuple(notes),
        reported_scores(inputs),
        extra=dict(truth.extra),
        n_missing=n_absent,
    )


SheetReader = Callable[[TaskInputs, Records | None], TaskData]
LogReader = Callable[[Predictions, TaskInputs], TaskData]
OtherReader = Callable[[Records, TaskInputs], TaskData]


def read_by_layout(
    inputs: TaskInputs,
    layouts: Layouts,
    *,
    log: LogReader,
    other: OtherReader,
    sheet: SheetReader | None = None,
    records: Records | None = None,
) -> TaskData:
    """A task's items from a results file in whichever toolkit layout it is: a VLMEvalKit
    sheet to *sheet* (to *other* when the task reads sheets its own way), an lmms-eval log to
    *log* after :func:`open_log`, anything else to *other*. *records*: the results file's rows
    when the caller has read them already (standard input can be read only once)."""
    if sheet is not None and layouts.sheets_by_name and is_sheet_path(inputs.results):
        return sheet(inputs, None)
    found = detect(
        inputs,
        records,
        sheet_needs_answer=layouts.sheet_needs_answer,
        log_with_answer_field=layouts.log_with_answer_field,
    )
    if found.kind == "vlmevalkit" and sheet is not None:
        return sheet(inputs, found.records)
    if found.log is not None:
        preds, finish = open_log(found.log, inputs, layouts.log)
        return finish(log(preds, inputs))
    return other(found.records, inputs)


def yes_no_layouts(log: LogLayout) -> Layouts:
    """The yes/no benchmarks' preset (MME, POPE): a sheet by its name, or with its ground truth
    (``answer``); a file given ``--answer-field`` is answers to pair with the labels, never a
    log."""
    return Layouts(
        log=log, sheets_by_name=True, sheet_needs_answer=True, log_with_answer_field=False
    )


def read_yes_no(
    inputs: TaskInputs,
    layouts: Layouts,
    *,
    sheet: SheetReader,
    log: LogReader,
    other: OtherReader,
) -> TaskData:
    """A yes/no benchmark's items by :func:`read_by_layout`, a log's questions dropped when the
    toolkit's score is asked for without them (:func:`without_questions`)."""
    return read_by_layout(
        inputs,
        layouts,
        sheet=sheet,
        log=lambda preds, inp: without_questions(log(preds, inp), inp),
        other=other,
    )


class DocJoin(NamedTuple):
    """Records matched to annotation items (:func:`join_docs`). ``joined``: a truth item's
    index → its record's item, in the order the records first named them; ``extra``: where
    the records are that name no truth item; ``repeated``: how many records named one already
    matched (the last kept); ``differ``: the ids of records whose own answer differs. A named
    tuple, as :class:`Detected`."""

    joined: dict[int, Item]
    extra: list[str]
    repeated: int
    differ: list[ItemId]

    def absent(self, n_truth: int) -> list[int]:
        """The truth items no record named, by index."""
        return [k for k in range(n_truth) if k not in self.joined]

    def extra_note(self, ignore_extra: bool, error: str, note: str) -> str | None:
        """``None`` when every record named a truth item; else *note* with *ignore_extra*, or
        an error at the first such record, *error* (both with ``{n}``, their count)."""
        if not self.extra:
            return None
        n = str(len(self.extra))
        if not ignore_extra:
            raise InputError(f"{self.extra[0]}: " + error.replace("{n}", n))
        return note.replace("{n}", n)

    def differ_note(self, source: str, truth: str) -> str | None:
        """The note counting the docs of *source* whose own answer differs from *truth*'s,
        which was used (:func:`disagreement_note`); ``None`` when none differs."""
        return disagreement_note(self.differ, f"doc answer(s) of {source}", truth)

    def repeated_note(self, what: str = "record(s) of a question") -> str | None:
        """The note counting the repeated records, ``None`` when there are none."""
        if not self.repeated:
            return None
        return f"{self.repeated} repeated {what}: the last of each was kept (--on-duplicate last)"


def join_docs(
    docs: Sequence[Item],
    wheres: Sequence[str],
    truth: Sequence[Item],
    find: Callable[[Item, str], int | None],
    on_duplicate: Literal["error", "last"],
    *,
    as_doc: Callable[[str], str] = str,
    repeat_error: str = (
        "a second record for question {id!r} (first at {first}; pass --on-duplicate last to "
        "keep the last one)"
    ),
) -> DocJoin:
    """Records carrying their own item (an lmms-eval doc, an answers row) joined to the
    annotations' *truth* items: *find* gives the truth index a record names (``None``: none).
    The truth's references and fields win, the toolkit's own score of the sample kept; a
    record naming a matched item again is an error (*repeat_error*, with ``{id}`` and
    ``{first}``) unless *on_duplicate* is ``last``, which keeps the last at the first's place;
    a record whose own answer differs from the truth's read as the record reads it
    (*as_doc*) is counted."""
    joined: dict[int, Item] = {}
    first_at: dict[int, str] = {}
    extra: list[str] = []
    differ: list[ItemId] = []
    repeated = 0
    for doc, where in zip(docs, wheres, strict=True):
        k = find(doc, where)
        if k is None:
            extra.append(where)
            continue
        if k in joined:
            if on_duplicate == "error":
                message = repeat_error.format(id=doc.id, first=first_at[k])
                raise InputError(f"{where}: {message}")
            repeated += 1
        first_at.setdefault(k, where)
        base = truth[k]
        if doc.references and doc.references[0] != as_doc(base.references[0]):
            differ.append(doc.id)
        fields = dict(base.fields)
        if TOOLKIT_SCORE in doc.fields:
            fields[TOOLKIT_SCORE] = doc.fields[TOOLKIT_SCORE]
        joined[k] = Item(doc.id, doc.prediction, base.references, fields)
    return DocJoin(joined, extra, repeated, differ)


# ------------------------------------------------------------------ an lmms-eval log, read once


def read_log(preds: Predictions, inputs: TaskInputs, reading: LogReading) -> TaskData:
    """A task's items from an lmms-eval log, the one way every task reads one: its docs alone,
    its docs joined to ``--annotations`` (the task's ``joined``), or, without docs, the
    annotations joined by position (``doc_id`` *i* = the *i*-th item)."""
    if has_docs(preds):
        if inputs.annotations is not None:
            return reading.joined(preds, inputs)
        notes = () if reading.alone_note is None else (_fill(reading.alone_note, preds),)
        return docs_alone(preds, inputs, log_docs(preds, reading), what=reading.what, notes=notes)
    if inputs.annotations is None:
        raise no_doc_error(preds.source, reading.need, reading.lacks)
    return log_by_position(preds, inputs, reading.truth(inputs), reading)


def log_by_position(
    preds: Predictions, inputs: TaskInputs, truth: Truth, reading: LogReading
) -> TaskData:
    """A log joined to *truth* by position (:func:`positional_data`), *truth*'s notes first; a
    logged ``target`` that is *reading*'s ``bare_target`` is not compared."""
    if reading.bare_target is not None:
        rows = [
            {k: v for k, v in row.items() if not (k == "target" and v == reading.bare_target)}
            for row in preds.records.rows
        ]
        preds = replace(preds, records=replace(preds.records, rows=rows))
    return _by_position(
        preds, inputs, truth, reading.layout, reading.truth_first, reading.absent_note
    )


def _fill(template: str, preds: Predictions, truth: Truth | None = None, **values: Any) -> str:
    """*template* with ``{source}`` (the log), ``{truth}`` and the *values* put in (by plain
    replacement: a path with braces stays as it is)."""
    text = template.replace("{source}", preds.source)
    if truth is not None:
        text = text.replace("{truth}", " + ".join(truth.sources))
    for key, value in values.items():
        text = text.replace("{" + key + "}", str(value))
    return text


def join_docs_by_key(
    preds: Predictions,
    docs: Sequence[Item],
    inputs: TaskInputs,
    truth: Truth,
    find: Callable[[Item, str], int | None],
    rule: KeyedJoin,
) -> TaskData:
    """A log's *docs* joined to the annotations' *truth* items by the key *find* reads from
    each (:func:`join_docs`): the annotations win; repeated, extra and absent items by the
    user's options, each counted in a note worded by *rule*."""
    repeat = {} if rule.repeat_error is None else {"repeat_error": rule.repeat_error}
    join = join_docs(
        docs, preds.wheres, truth.items, find, inputs.on_duplicate, as_doc=rule.as_doc, **repeat
    )
    notes = [_fill(rule.used, preds, truth)]
    extra_note = join.extra_note(
        inputs.ignore_extra,
        _fill(rule.extra_error, preds, truth),
        _fill(rule.extra_note, preds, truth),
    )
    notes += filter(None, [join.repeated_note(), extra_note])
    absent = join.absent(len(truth.items))
    if absent and not inputs.allow_missing:
        error = _fill(rule.absent_error, preds, truth, n=len(absent), first=truth.place(absent[0]))
        raise InputError(f"{preds.source}: {error}")
    if absent:
        notes.append(_fill(rule.absent_note, preds, truth, n=len(absent)))
    notes += filter(None, [join.differ_note(preds.source, rule.differ_truth)])
    items = (
        [join.joined.get(k, t) for k, t in enumerate(truth.items)]
        if rule.keep_absent
        else list(join.joined.values())
    )
    return TaskData(
        items,
        (preds.source, *truth.sources),
        (preds.layout, *([truth.layout] if truth.layout is not None else [])),
        tuple(notes),
        reported_scores(inputs),
        extra=dict(truth.extra),
        n_missing=len(absent),
        n_extra_ignored=len(join.extra),
    )
