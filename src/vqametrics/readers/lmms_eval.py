"""lmms-eval ``--log_samples`` records as task items.

Two shapes: records with ``doc`` (the dataset row, so the ground truth is inside and no
annotation file is needed) and records without it (only ``doc_id``/``target``: ``doc_id`` *i*
is the *i*-th row of lmms-eval's dataset split, so they are joined to the annotations by
position and a note says so). A log without ``doc`` (lmms-eval 0.4 on; from 0.7, the pin
included, ``filtered_resps`` is a plain string) is read without annotations wherever its
``target`` and per-sample metric record hold the ground truth (:class:`MetricRecord`,
:func:`record_docs`).
Either way each record also carries the per-sample metric that
lmms-eval's ``process_results`` wrote; it is kept in ``Item.fields["toolkit_score"]`` so the
run can be checked against the toolkit sample by sample (``TaskEvaluation.toolkit_check``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import Any, Literal, NamedTuple, TypeVar

from ..core.exceptions import InputError
from .answers import text_predictions
from .items import TOOLKIT_SCORE, Item, TaskData, TaskInputs
from .layouts import Predictions, is_lmms_eval_log, is_vlmevalkit, item_id
from .records import Records, field_value

__all__ = [
    "LOGGED_FIELDS",
    "TOOLKIT_SCORE",
    "KeyedJoin",
    "LogLayout",
    "LogReading",
    "MetricRecord",
    "Truth",
    "clean_samples",
    "drop_empty",
    "empty_error",
    "has_docs",
    "is_lmms_eval",
    "lmms_eval_items",
    "lmms_eval_predictions",
    "log_docs",
    "logged_metrics",
    "no_doc_error",
    "positional_items",
    "record_docs",
    "sample_score",
    "unique_doc_ids",
    "unique_samples",
    "with_notes",
    "with_record_docs",
    "without_questions",
]

K = TypeVar("K", bound=Hashable)


def is_lmms_eval(preds: Predictions) -> bool:
    """Whether *preds* came from an lmms-eval ``--log_samples`` file."""
    return preds.layout.startswith("lmms-eval-samples")


def has_docs(preds: Predictions) -> bool:
    """Whether *preds* came from an lmms-eval samples log whose records carry ``doc``."""
    return is_lmms_eval(preds) and all(
        isinstance(row.get("doc"), dict) for row in preds.records.rows
    )


def lmms_eval_predictions(
    records: Records, inputs: TaskInputs, *, allow_empty: bool = False
) -> Predictions | None:
    """The predictions of *records* when they are an lmms-eval samples log (recognized, or
    forced with ``--input-format``) and not a VLMEvalKit sheet, read with the user's
    ``--id-field``/``--answer-field``; ``None`` for any other layout. An answer that is not
    text is an error; an empty one too, unless *allow_empty* (the caller then applies the one
    rule for them: :func:`clean_samples`)."""
    if is_vlmevalkit(records) or not is_lmms_eval_log(records):
        return None
    preds = text_predictions(
        records,
        id_field=inputs.id_field,
        answer_field=inputs.answer_field,
        allow_missing_answer=allow_empty,
    )
    return preds if is_lmms_eval(preds) else None


#: a tuple, not ``str | int``: the union is built anew at every call
_ID_TYPES = (str, int)


def unique_samples(
    preds: Predictions, on_duplicate: Literal["error", "last"] = "error"
) -> tuple[Predictions, str | None]:
    """*preds* with each logged sample once, by the one rule for repeated rows.

    A record that repeats an earlier one — the same ``doc_id`` and, when logged, the same
    ``doc`` (a log concatenated with itself, a resumed run appended to its file) — is an
    error naming both lines; with ``on_duplicate="last"`` the last of each is kept, at the
    place of the first, and a note counts them. Records that share a ``doc_id`` but log
    different docs come from different tasks (``pope_adv`` + ``pope_pop``): they are left to
    the task's own id checks.
    """
    first: dict[Hashable, int] = {}
    last: dict[int, int] = {}
    doc_ids = []
    for i, row in enumerate(preds.records.rows):
        doc_id = row.get("doc_id", preds.ids[i])
        if not isinstance(doc_id, _ID_TYPES) or isinstance(doc_id, bool):
            doc_id = preds.ids[i]
        doc_ids.append(doc_id)
    keys = [str(doc_id).strip() for doc_id in doc_ids]
    # the doc's fingerprint tells apart records of an id met more than once, so only those
    # are serialized (an id met once cannot repeat a record whatever its doc)
    repeated = {key for key, n in Counter(keys).items() if n > 1}
    if repeated:
        import json  # only to fingerprint the docs of a repeated id
    for i, (row, doc_id, key) in enumerate(zip(preds.records.rows, doc_ids, keys, strict=True)):
        doc = row.get("doc")
        fingerprint = (
            json.dumps(doc, sort_keys=True, ensure_ascii=False, default=repr)
            if key in repeated and isinstance(doc, dict)
            else ""
        )
        j = first.setdefault((key, fingerprint), i)
        if j == i:
            continue
        if on_duplicate == "error":
            raise InputError(
                f"{preds.wheres[i]}: duplicate sample, doc_id {doc_id!r} again (first at "
                f"{preds.wheres[j]}; a log concatenated twice?); pass --on-duplicate last to "
                "keep the last one"
            )
        last[j] = i
    if not last:
        return preds, None
    keep = [last.get(j, j) for j in sorted(first.values())]
    kept = _taken(preds, keep)
    dropped = len(preds.ids) - len(keep)
    return kept, (
        f"{dropped} repeated sample(s) in {preds.source} (the same doc_id and doc): the last "
        "of each was kept (--on-duplicate last)"
    )


def unique_doc_ids(
    preds: Predictions,
    on_duplicate: Literal["error", "last"] = "error",
    subtasks: Sequence[str] = (),
) -> tuple[Predictions, str | None]:
    """*preds* with each ``doc_id`` once per task, by the one rule for repeated rows.

    lmms-eval numbers the docs of a task 0, 1, …, so in one task's log a ``doc_id`` met again
    with another ``doc`` (a line edited, or two runs mixed) names two samples as one: an error
    naming both lines, or with ``on_duplicate="last"`` the last kept at the place of the first,
    counted in a note. A record repeated whole is :func:`unique_samples`'s (or the task's own
    id check's) to report, a log without docs :func:`positional_items`'s. A log may
    concatenate several tasks' logs (``blink_<subtask>``, ``pope_adv`` + ``pope_pop``), each
    numbered from 0 again: the doc keys *subtasks* name a record's task (none: the log is one
    task's).
    """
    rows = preds.records.rows
    ids = [row.get("doc_id") for row in rows]
    if len({str(i).strip() for i in ids}) == len(ids):
        return preds, None  # every doc_id once (the usual log): nothing to check
    keys: list[tuple[str, ...] | None] = []
    for row in rows:
        doc, doc_id = row.get("doc"), row.get("doc_id")
        if isinstance(doc, dict) and isinstance(doc_id, _ID_TYPES) and not isinstance(doc_id, bool):
            keys.append((*(str(doc.get(k)) for k in subtasks), str(doc_id).strip()))
        else:
            keys.append(None)
    repeated = {key for key, n in Counter(keys).items() if n > 1 and key is not None}
    if not repeated:
        return preds, None
    import json  # only to fingerprint the docs of a repeated doc_id

    at: dict[tuple[str, ...], list[int]] = {}
    for i, key in enumerate(keys):
        if key is not None and key in repeated:
            at.setdefault(key, []).append(i)
    last: dict[int, int] = {}
    moved: set[int] = set()
    for places in at.values():
        prints = [
            json.dumps(rows[i]["doc"], sort_keys=True, ensure_ascii=False, default=repr)
            for i in places
        ]
        other = next((k for k, fp in enumerate(prints) if fp != prints[0]), None)
        if other is None:
            continue  # the same doc each time: a repeated record, reported as such elsewhere
        j, i = places[0], places[other]
        if on_duplicate == "error":
            doc = rows[i]["doc"]
            named = ", ".join(f"{k} {doc[k]!r}" for k in subtasks if doc.get(k) is not None)
            raise InputError(
                f"{preds.wheres[i]}: duplicate doc_id {rows[i]['doc_id']!r} (first at "
                f"{preds.wheres[j]}{f', both of {named}' if named else ''}; with another doc: "
                "a doc_id names one sample of a task's log; pass --on-duplicate last to keep "
                "the last one)"
            )
        # the last of them in the file (unique_samples may have moved a record up), at the
        # place of the first
        lines = preds.records.lines
        last[j] = places[-1] if lines is None else max(places, key=lines.__getitem__)
        moved.update(k for k in places if k != j)
    if not last:
        return preds, None
    keep = [last.get(k, k) for k in range(len(rows)) if k not in moved]
    return _taken(preds, keep), (
        f"{len(rows) - len(keep)} repeated doc_id row(s) in {preds.source}, each with another "
        "doc: the last of each was kept (--on-duplicate last)"
    )


def _taken(preds: Predictions, keep: Sequence[int]) -> Predictions:
    """*preds* with the records at the positions *keep* only, in that order."""
    lines = preds.records.lines
    records = replace(
        preds.records,
        rows=[preds.records.rows[k] for k in keep],
        lines=[lines[k] for k in keep] if lines is not None else None,
    )
    return replace(
        preds,
        ids=[preds.ids[k] for k in keep],
        texts=[preds.texts[k] for k in keep],
        wheres=[preds.wheres[k] for k in keep],
        records=records,
    )


def with_notes(data: TaskData, *notes: str | None) -> TaskData:
    """*data* with *notes* (those not ``None``) added after its own."""
    more = tuple(n for n in notes if n)
    return replace(data, notes=(*data.notes, *more)) if more else data


def empty_error(preds: Predictions, empty: Sequence[int]) -> InputError:
    """The one refusal of empty predictions (a null or an empty cell): where the first is, how
    many there are, and the option that scores them 0."""
    more = f" (and {len(empty) - 1} more)" if len(empty) > 1 else ""
    return InputError(
        f"{preds.wheres[empty[0]]}: empty prediction ({preds.answer_field!r} is null or an "
        f"empty cell){more}; pass --allow-missing to score the {len(empty)} empty "
        "prediction(s) 0"
    )


def drop_empty(preds: Predictions, allow_missing: bool) -> Predictions:
    """*preds* to be joined to a ground truth, by the one rule for empty predictions: an error
    unless *allow_missing*; then left out, so the join counts their items as having no
    prediction (scored 0, or left out where the official script leaves them out)."""
    empty = [i for i, t in enumerate(preds.texts) if t is None]
    if not empty:
        return preds
    if not allow_missing:
        raise empty_error(preds, empty)
    keep = [i for i, t in enumerate(preds.texts) if t is not None]
    lines = preds.records.lines
    records = replace(
        preds.records,
        rows=[preds.records.rows[k] for k in keep],
        lines=[lines[k] for k in keep] if lines is not None else None,
    )
    return replace(
        preds,
        ids=[preds.ids[k] for k in keep],
        texts=[preds.texts[k] for k in keep],
        wheres=[preds.wheres[k] for k in keep],
        records=records,
    )


def clean_samples(
    preds: Predictions, inputs: TaskInputs, *, alone: bool, subtasks: Sequence[str] = ()
) -> tuple[Predictions, Callable[[TaskData], TaskData]]:
    """An lmms-eval log's records by the rules every task shares: each sample once
    (:func:`unique_samples`), each ``doc_id`` once per task in a log scored *alone*
    (:func:`unique_doc_ids`, the doc keys *subtasks* naming a record's task), and empty
    predictions an error unless ``--allow-missing``.

    With it, a log scored *alone* (its records are the items) keeps them, scored 0; a log
    joined to annotations leaves them out so the join counts them (:func:`drop_empty`).
    Returns the records and what to apply to the task data read from them: the notes, and
    the empty predictions kept added to its count of missing items.
    """
    preds, dup_note = unique_samples(preds, inputs.on_duplicate)
    doc_id_note = None
    if alone:  # joined to annotations, the join decides which item a record is
        preds, doc_id_note = unique_doc_ids(preds, inputs.on_duplicate, subtasks)
    empty = [i for i, t in enumerate(preds.texts) if t is None]
    if empty and not inputs.allow_missing:
        raise empty_error(preds, empty)
    kept = 0
    if empty and alone:
        kept = len(empty)
    elif empty:
        preds = drop_empty(preds, allow_missing=True)

    def finish(data: TaskData) -> TaskData:
        data = with_notes(data, dup_note, doc_id_note)
        if not kept:
            return data
        note = f"{kept} sample(s) with an empty prediction scored 0 (--allow-missing)"
        return replace(data, notes=(*data.notes, note), n_missing=data.n_missing + kept)

    return preds, finish


def no_doc_error(source: str, need: str, lacks: str = "") -> InputError:
    """The refusal of a log whose records have no ``doc`` when the annotations it must be
    joined to were not given; *need* says which option, and how the join is made; *lacks*
    what the task's scorer needs that lmms-eval's per-sample record does not hold."""
    why = f" and its per-sample record holds no {lacks}" if lacks else ""
    return InputError(
        f"{source}: this lmms-eval log has no 'doc' (the dataset rows){why}, so no ground "
        f"truth; pass {need}"
    )


def without_questions(data: TaskData, inputs: TaskInputs) -> TaskData:
    """*data* read from an lmms-eval log, with a note when ``--questions`` was given too: a
    log is read without it (its records carry the questions)."""
    if inputs.questions is None:
        return data
    note = "--questions was not used: lmms-eval logs are read without it"
    return replace(data, notes=(*data.notes, note))


def sample_score(row: Mapping[str, Any], metrics: Sequence[str]) -> float | None:
    """The first of *metrics* that the record holds as a number, a boolean (ChartQA's
    ``relaxed_overall``) or a ``{"score": x}`` dict (what POPE's, MME's and OCRBench's
    ``process_results`` return); ``None`` if none."""
    for key in metrics:
        value = row.get(key)
        if isinstance(value, Mapping):
            value = value.get("score")
        if isinstance(value, bool):
            return float(value)
        if not isinstance(value, int | float):
            continue
        if math.isfinite(value):
            return float(value)
    return None


def lmms_eval_items(
    preds: Predictions,
    *,
    id_keys: Sequence[str],
    references: Callable[[dict[str, Any], str], tuple[str, ...]],
    fields: Sequence[str] = (),
    sample_metrics: Sequence[str] = (),
    id_required: bool = False,
) -> list[Item]:
    """One item per log record: id = the first of *id_keys* found in ``doc`` (else
    ``doc_id``, unless *id_required*: then a doc without one is an error naming the record),
    references = ``references(doc, where)``, *fields* copied from ``doc``, and the toolkit's
    own per-sample score (the first of *sample_metrics* found) as ``fields["toolkit_score"]``."""
    items = []
    for row, key, text, where in zip(
        preds.records.rows, preds.ids, preds.texts, preds.wheres, strict=True
    ):
        doc = row["doc"]
        found = _doc_id(doc, id_keys, where) if id_required else None
        if found is None:
            found = key if isinstance(key, str | int) else str(key)
            for k in id_keys:
                v = doc.get(k)
                if isinstance(v, str | int) and not isinstance(v, bool):
                    found = v
                    break
        refs = references(doc, where)
        if not refs:
            raise InputError(f"{where}: the doc has no ground-truth answer")
        extra = {f: doc[f] for f in fields if doc.get(f) is not None}
        recorded = sample_score(row, sample_metrics)
        if recorded is not None:
            extra[TOOLKIT_SCORE] = recorded
        items.append(Item(found, text, refs, extra))
    return items


def _doc_id(doc: Mapping[str, Any], id_keys: Sequence[str], where: str) -> str | int:
    """The first of *id_keys* in *doc*, which must hold one as an id by the one rule
    (:func:`~vqametrics.readers.layouts.item_id`)."""
    for k in id_keys:
        if k in doc:
            return item_id(doc[k], where, f"doc.{k}")
    raise InputError(
        f"{where}: the logged doc has no {'/'.join(map(repr, id_keys))} (fields: {', '.join(doc)})"
    )


#: the fields of a logged sample that are lmms-eval's own, not a per-sample metric
LOGGED_FIELDS = frozenset(
    (
        "doc_id",
        "doc",
        "target",
        "arguments",
        "resps",
        "filtered_resps",
        "doc_hash",
        "prompt_hash",
        "target_hash",
        "input",
        "filter",
        "metrics",
    )
)


def logged_metrics(records: Records, ids: Sequence[K]) -> dict[str, dict[K, float]]:
    """Every numeric field of the samples (by *ids*, one per record) that lmms-eval wrote as
    a per-sample metric: name → ``{id: value}``; a field that is not a number in every
    record is none."""
    out: dict[str, dict[K, float]] = {}
    for key in records.columns:
        if key in LOGGED_FIELDS:
            continue
        values: dict[K, float] = {}
        for row, sample in zip(records.rows, ids, strict=True):
            v = row.get(key)
            if isinstance(v, bool) or not isinstance(v, int | float):
                values = {}
                break
            values[sample] = float(v)
        if values:
            out[key] = values
    return out


def positional_items(
    preds: Predictions,
    truth: Sequence[Item],
    truth_source: str,
    *,
    sample_metrics: Sequence[str] = (),
    allow_missing: bool = False,
) -> tuple[list[Item], str, int]:
    """Records without ``doc`` joined to the annotation items *truth* by position (``doc_id``
    *i* is the *i*-th item): the items in annotation order, the note that says so, and how
    many annotated items had no record (kept without a prediction under *allow_missing*).

    A ``doc_id`` outside the annotations, or given twice, is an error naming the record; a
    logged ``target`` that differs from the annotation's answer is counted in the note (the
    annotations win, as everywhere).
    """
    n = len(truth)
    seen: dict[int, str] = {}
    items: list[Item | None] = [None] * n
    differ: list[str | int] = []
    for row, text, where in zip(preds.records.rows, preds.texts, preds.wheres, strict=True):
        doc_id = row.get("doc_id")
        if isinstance(doc_id, bool) or not isinstance(doc_id, int) or not 0 <= doc_id < n:
            raise InputError(
                f"{where}: doc_id {doc_id!r} is not a position in the {n} items of "
                f"{truth_source} (lmms-eval samples without 'doc' are joined to the annotations "
                "by position)"
            )
        if doc_id in seen:
            raise InputError(f"{where}: doc_id {doc_id} again (first at {seen[doc_id]})")
        seen[doc_id] = where
        base = truth[doc_id]
        target = row.get("target")
        if isinstance(target, str) and base.references and target not in base.references:
            differ.append(base.id)
        fields = dict(base.fields)
        recorded = sample_score(row, sample_metrics)
        if recorded is not None:
            fields[TOOLKIT_SCORE] = recorded
        items[doc_id] = replace(base, prediction=text, fields=fields)
    absent = [i for i, it in enumerate(items) if it is None]
    if absent and not allow_missing:
        raise InputError(
            f"{preds.source}: {len(absent)} of the {n} items of {truth_source} have no sample "
            f"(first: doc_id {absent[0]}, {truth[absent[0]].id!r}); pass --allow-missing to "
            "score them 0"
        )
    joined = [
        it if it is not None else replace(truth[i], prediction=None) for i, it in enumerate(items)
    ]
    note = (
        f"{preds.source} logs no 'doc': its doc_id was joined to {truth_source} BY POSITION "
        "(doc_id i = the i-th item); check that these are lmms-eval's split in its order"
    )
    if differ:
        shown = ", ".join(repr(q) for q in differ[:3])
        note += (
            f"; {len(differ)} logged target(s) differ from the annotation's answer (e.g. "
            f"{shown}): the order may not be lmms-eval's"
        )
    return joined, note, len(absent)


# ------------------------------------------------------------- the newer form: no doc, a record


#: the empty mapping a record's ``doc``/``key_values`` and a truth's ``extra`` default to:
#: read-only, so that the one default of the named tuples below is shared safely
_EMPTY: Mapping[str, Any] = MappingProxyType({})


class MetricRecord(NamedTuple):
    """Where a task's ground truth sits in lmms-eval's per-sample metric record, as data.

    From lmms-eval 0.4 on ``save_results_samples`` drops ``doc``, and from 0.7 (the pin
    included) writes ``filtered_resps`` as a plain string (``loggers/evaluation_tracker.py``); the
    record ``process_results`` returned under a metric key (``{"question_id", "category",
    "score"}`` for MME) and ``target`` (``doc_to_target``, as text) still hold what many
    scorers need. ``metrics``: the keys whose dict is that record (the first present is read);
    ``doc``: doc key → record key, copied into a stand-in ``doc``; ``target``: the doc key
    that receives ``target``; ``key_field``: a doc key receiving the name of the row's other
    key that holds the same record (MMStar's category key), less ``key_prefix`` (SEED-Bench's
    ``seed_<data_type>``), or the value ``key_values`` gives the first of its keys the row
    carries (ChartQA's bare ``relaxed_human_split`` → ``human_test``); ``numbered``: the doc
    key of an id that may repeat in one log (POPE's question ids in each of its three splits,
    which the record does not name), its *k*-th repeat given ``#k``; ``whole``: the record is
    the dataset row itself, copied whole (HallusionBench's ``hb_process_results`` returns the
    doc less its image). The stand-in doc is then read by the task's own ``doc`` path. A
    named tuple, as every task makes one at import (a frozen dataclass costs ten times its
    making: issue 23).
    """

    metrics: tuple[str, ...]
    doc: Mapping[str, str] = _EMPTY
    target: str | None = "answer"
    key_field: str | None = None
    key_prefix: str = ""
    key_values: Mapping[str, str] = _EMPTY
    numbered: str | None = None
    whole: bool = False


def _record(row: Mapping[str, Any], spec: MetricRecord) -> tuple[str, Mapping[str, Any]] | None:
    """The row's first metric record of *spec*; a bare number (AI2D's ``exact_match``) counts
    as an empty one when *spec* reads nothing from it but ``target``."""
    bare = not (spec.doc or spec.whole or (spec.key_field and not spec.key_values))
    for key in spec.metrics:
        value = row.get(key)
        if isinstance(value, Mapping):
            return key, value
        if bare and isinstance(value, int | float) and spec.target is not None:
            return key, {}
    return None


def record_docs(preds: Predictions, spec: MetricRecord) -> Predictions | None:
    """*preds* of a log without ``doc`` whose metric records carry the ground truth (*spec*),
    each row given a stand-in ``doc`` built from its record and ``target``; ``None`` when no
    row has such a record (a log to join to the annotations by position).

    A log where only some rows carry it, or a record lacking a declared key, is an error
    naming the row: the items would otherwise be half read from one file, half from another.
    """
    if not is_lmms_eval(preds) or has_docs(preds):
        return None
    found = [_record(row, spec) for row in preds.records.rows]
    if not any(found):
        return None
    names = "/".join(spec.metrics)
    rows = []
    seen: dict[str, list[Any]] = {}
    for row, rec, where in zip(preds.records.rows, found, preds.wheres, strict=True):
        if rec is None:
            raise InputError(
                f"{where}: no {names!r} record, unlike the other samples of this log (its "
                "ground truth comes from that record)"
            )
        key, value = rec
        doc: dict[str, Any] = dict(value) if spec.whole else {}
        for doc_key, rec_key in spec.doc.items():
            if rec_key not in value:
                raise InputError(
                    f"{where}: the {key!r} record has no {rec_key!r} (fields: "
                    f"{', '.join(map(str, value)) or 'none'})"
                )
            doc[doc_key] = value[rec_key]
        if spec.target is not None:
            if not isinstance(row.get("target"), str):
                raise InputError(f"{where}: no 'target' text (the answer lmms-eval logs)")
            doc[spec.target] = row["target"]
        if spec.key_field is not None:
            other = next(
                (
                    k
                    for k, v in row.items()
                    if k != key and k not in spec.metrics and v == value and isinstance(v, Mapping)
                ),
                None,
            )
            if other is not None and other.startswith(spec.key_prefix):
                doc[spec.key_field] = other[len(spec.key_prefix) :]
            named = next((v for k, v in spec.key_values.items() if k in row), None)
            if named is not None:
                doc[spec.key_field] = named
        if spec.numbered is not None and spec.numbered in doc:
            # numbered by distinct doc_id, so a sample logged twice keeps one stand-in doc
            # and is caught as a repeat (unique_samples), never counted as two questions
            docs = seen.setdefault(str(doc[spec.numbered]), [])
            if row.get("doc_id") not in docs:
                docs.append(row.get("doc_id"))
            k = docs.index(row.get("doc_id")) + 1
            if k > 1:
                doc[spec.numbered] = f"{doc[spec.numbered]}#{k}"
        rows.append({**row, "doc": doc})
    records = replace(preds.records, rows=rows)
    return replace(preds, records=records, layout=_newer_layout(preds.layout, spec))


def with_record_docs(preds: Predictions, spec: MetricRecord, inputs: TaskInputs) -> Predictions:
    """*preds* given their records' stand-in docs (:func:`record_docs`) when no annotations
    were given; unchanged otherwise (``--annotations`` given: joined by position, which wins)."""
    if inputs.annotations is not None:
        return preds
    return record_docs(preds, spec) or preds


def _newer_layout(layout: str, spec: MetricRecord) -> str:
    """``lmms-eval-samples (jsonl)`` → ``lmms-eval-samples, ground truth in 'target' +
    'mme_perception_score/mme_cognition_score' (jsonl)``: where the ground truth was read."""
    parts = ["target"] if spec.target is not None else []
    if spec.doc or spec.whole or (spec.key_field and not spec.key_values):
        parts.append("/".join(spec.metrics))
    head, sep, tail = layout.partition(" (")
    return f"{head}, ground truth in {' + '.join(map(repr, parts))}{sep}{tail}"


# ------------------------------------------------------- how a task's log is read, as data


class LogLayout(NamedTuple):
    """How a task's fields sit in an lmms-eval ``--log_samples`` log, as data (a named tuple,
    as every task makes one at import: a frozen dataclass costs ten times its making).

    ``metrics``: the per-sample metric keys ``process_results`` writes (the first present is
    the toolkit's own score of the sample); ``record``: where the newer log (no ``doc``) keeps
    the ground truth, if it does; ``truth``: the options that give a ground truth to join the
    log to (a log scored alone keeps its empty predictions, scored 0); ``subtasks``: the doc
    keys that name a record's task in a log of several concatenated (:func:`unique_doc_ids`).
    """

    metrics: tuple[str, ...] = ()
    record: MetricRecord | None = None
    truth: tuple[str, ...] = ("annotations",)
    subtasks: tuple[str, ...] = ()


class Truth(NamedTuple):
    """The annotation items a log is joined to, as the task read them: ``sources`` and
    ``layout`` name them in the result; ``name`` in messages (the sources joined by default);
    ``places`` says where each item is, for messages (its id by default); ``notes`` come first
    in the result; ``extra`` goes into the signature. A named tuple, as :class:`LogLayout`."""

    items: Sequence[Item]
    sources: tuple[str, ...]
    layout: str | None = None
    name: str | None = None
    places: Sequence[str] | None = None
    notes: tuple[str, ...] = ()
    extra: Mapping[str, Any] = _EMPTY

    def named(self) -> str:
        """How messages name these annotations."""
        return self.name if self.name is not None else " + ".join(self.sources)

    def place(self, k: int) -> str:
        """Where the *k*-th item is, for messages."""
        return self.places[k] if self.places is not None else repr(self.items[k].id)


class LogReading(NamedTuple):
    """How a task reads its lmms-eval ``--log_samples`` log, as data (a named tuple, as
    :class:`LogLayout`).

    A record's ``doc`` becomes an item by :func:`lmms_eval_items`: ``id_keys`` (the doc keys
    of its id; none: ``doc_id``), ``references`` (its answers, ``references(doc, where)``),
    ``fields`` (doc keys copied; those in ``group_fields`` are keys of the breakdowns: text or
    a number, never ``true``, a list or an object made into a key), then ``adjust`` (the
    task's own step over the items: a renamed field, an id made unique). A log with docs is
    scored alone (each item once, its id named ``what``, with ``alone_note`` first,
    ``{source}`` the log), or given ``--annotations`` by ``joined(preds, inputs)``. A log
    without docs needs ``--annotations`` (else :func:`no_doc_error` with ``need`` and
    ``lacks``), read by ``truth(inputs)`` and joined by position
    (:func:`~vqametrics.readers.detect.log_by_position`: the annotations first when
    ``truth_first``, ``absent_note`` counting the items with no sample, a logged ``target``
    equal to ``bare_target`` not compared: a template never rendered).
    """

    layout: LogLayout
    references: Callable[[dict[str, Any], str], tuple[str, ...]]
    truth: Callable[[TaskInputs], Truth]
    need: str
    joined: Callable[[Predictions, TaskInputs], TaskData]
    id_keys: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()
    group_fields: tuple[str, ...] = ()
    adjust: Callable[[list[Item], Predictions], list[Item]] | None = None
    what: str = "question id"
    alone_note: str | None = None
    lacks: str = ""
    truth_first: bool = False
    absent_note: str | None = None
    bare_target: str | None = None


def log_docs(preds: Predictions, reading: LogReading) -> list[Item]:
    """The items of a log's docs, one per record, as *reading* declares them."""
    items = lmms_eval_items(
        preds,
        id_keys=reading.id_keys,
        references=reading.references,
        fields=reading.fields,
        sample_metrics=reading.layout.metrics,
    )
    for item, where in zip(items, preds.wheres, strict=True):
        for name in reading.group_fields:
            if name in item.fields:
                field_value(item.fields[name], where, name)
    return reading.adjust(items, preds) if reading.adjust is not None else items


class KeyedJoin(NamedTuple):
    """How a task words and keeps a log's docs joined to its annotations by a key the docs
    hold (:func:`~vqametrics.readers.detect.join_docs_by_key`), as data. Templates:
    ``{source}`` the log, ``{truth}`` the annotations' sources, ``{n}`` a count, ``{first}``
    where the first absent item is. ``used``: the note saying the annotations won;
    ``extra_error`` / ``extra_note``: records naming no item (an error unless
    ``--ignore-extra``); ``absent_error`` / ``absent_note``: items no record names (an error
    unless ``--allow-missing``; then kept without a prediction when ``keep_absent``, else left
    out); ``differ_truth``: the annotations in the note counting the docs whose answer differs
    (read as the doc reads it: ``as_doc``); ``repeat_error``: a second record for an item
    (:func:`~vqametrics.readers.detect.join_docs`). A named tuple: a frozen dataclass costs
    ten times its making at import (issue 23)."""

    used: str
    extra_error: str
    extra_note: str
    absent_error: str
    absent_note: str
    differ_truth: str
    keep_absent: bool = True
    as_doc: Callable[[str], str] = str
    repeat_error: str | None = None
