"""MM-Vet: 218 open questions graded 0–1 by an LLM judge, reported per capability and overall.

Every scorer needs the judge (spec mcq-reasoning §12), so vqametrics scores **recorded**
grades: VLMEvalKit's ``<model>_MMVet_<judge>.xlsx`` (``score``, ``log``), the official
``<model>_<gpt>-grade-<n>runs.json`` (per id ``{model, content, score}`` lists, with
``mm-vet.json`` as ``--annotations`` for the capabilities), or an lmms-eval log
(``gpt_eval_score.score``). Records that carry the judge's raw replies instead
(``judge_reply``: one reply or the list of successive tries) are replayed through the profile's
own reading of a reply (``score.mmvet``): the three toolkits disagree on ``0.8 because …``,
`` 0.7`` and ``nan``.

Aggregations: official — per capability Σ/count × 100 and ``total`` = Σ/n × 100, averaged over
runs, rounded to 1 decimal in its CSV; VLMEvalKit — the same sums with capability membership by
substring of the ``category`` string, rows rec … math, Overall; lmms-eval — ``sum/n × 100``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.exceptions import InputError
from ..core.toolkits import LMMS_EVAL as LMMS_EVAL_PIN
from ..core.toolkits import VLMEVALKIT as VLMEVALKIT_PIN
from ..judge.client import check_judged
from ..judge.prompts import (
    MMVET_LMMS_EVAL,
    MMVET_OFFICIAL,
    MMVET_OFFICIAL_RETRY,
    MMVET_VLMEVALKIT,
    load_prompt_text,
    mmvet_lmms_eval_prompt,
    mmvet_prompt,
    prompt_label,
)
from ..judge.uses import Judgement, JudgeStats
from ..kernels.mmvet import (
    CAPABILITIES,
    MmvetScoreError,
    Retry,
    Toolkit,
    is_nan,
    lmms_eval_reply,
    lmms_eval_scores,
    official_capability_scores,
    official_reply,
    read_replies,
    vlmevalkit_acc,
    vlmevalkit_reply,
)
from ..readers._json import repeated_members
from ..readers.cells import named_columns, row_id, unused_fields
from ..readers.join import unique_items
from ..readers.layouts import is_vlmevalkit, locate_reported, score_csv_rows
from ..readers.records import read_bytes_from, read_records, records_from_bytes
from . import register_task
from ._base import Aggregate, Item, Task, TaskData, TaskInputs, TaskProfile
from ._common import judged_data, read_vlmevalkit
from ._common import unique_items as unique_records
from ._lmms import MetricRecord, lmms_eval_predictions, record_docs, without_questions

__all__ = [
    "CAPABILITIES",
    "MmvetScoreError",
    "Retry",
    "lmms_eval_reply",
    "official_reply",
    "read_replies",
    "vlmevalkit_reply",
]

_HOW = (
    "MM-Vet is graded by an LLM judge and vqametrics scores recorded grades: pass VLMEvalKit's "
    "<model>_MMVet_<judge>.xlsx (its 'score' column), the official <model>_<gpt>-grade-<n>runs"
    ".json with --annotations mm-vet.json, an lmms-eval mmvet log, or records with the judge's "
    "replies in 'judge_reply'"
)


# ---------------------------------------------------------------------------- reading


def _caps(value: Any) -> tuple[str, ...]:
    """A capability cell as a tuple: a list (official) or a ``rec,ocr`` string."""
    if isinstance(value, list | tuple):
        return tuple(str(v).strip() for v in value)
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    return ()


def _grade(value: Any, where: str, key: Any = None) -> float | None:
    """A recorded grade as a float (``None`` for none); one outside [0, 1] is an error naming
    the item *key*: no toolkit stores one (NaN passes: it is :func:`_nan_grade`'s)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise InputError(f"{where}: the judge grade {value!r} is not a number")
    try:
        grade = float(value)
    except ValueError:
        raise InputError(f"{where}: the judge grade {value!r} is not a number") from None
    if grade in (math.inf, -math.inf):
        raise InputError(f"{where}: the judge grade {value!r} is not finite (a grade is 0 to 1)")
    if grade < 0.0 or grade > 1.0:  # NaN compares False both ways, as in the toolkits' checks
        item = f"id {key!r}: " if key is not None else ""
        raise InputError(
            f"{where}: {item}the judge grade {value!r} is outside 0 to 1, which no toolkit "
            "records: the official mm-vet_evaluator.py and VLMEvalKit ask the judge again on "
            "an out-of-range reply and give 0.0 after 5 tries, lmms-eval asks again until the "
            "reply is in range"
        )
    return grade


def _nan_grade(where: str, value: Any, allow_missing: bool) -> None:
    """A grade that is NaN (the text ``nan``, an empty sheet cell, a JSON ``null``) is an
    error naming the row unless ``--allow-missing``: then it is scored as the toolkits do
    (NaN, which every mean it enters becomes; a note says so)."""
    if not allow_missing:
        raise InputError(
            f"{where}: no judge grade (score {value!r}): the toolkits read it as NaN, which "
            "makes every mean it enters NaN; pass --allow-missing to score it so"
        )


def _replies(value: Any) -> tuple[str, ...] | None:
    if value is None or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, list | tuple):
        return tuple(str(v) for v in value)
    return (str(value),)


def _with_grades(
    item: Item, row: Mapping[str, Any], where: str, allow_missing: bool = False
) -> Item:
    """*item* with its recorded grade(s) (``score``: a number, or the official per-run list)
    and judge replies (``judge_reply``) in its fields; a NaN grade is :func:`_nan_grade`'s."""
    fields = dict(item.fields)
    score = row.get("score")
    if isinstance(score, list):
        runs = tuple(_grade(s, where, item.id) for s in score)
        if runs and all(r is not None for r in runs):
            if any(r != r for r in runs):
                _nan_grade(where, score, allow_missing)
            fields["grades"] = runs
            fields["grade"] = runs[0]
    else:
        g = _grade(score, where, item.id)
        if g is not None:
            if g != g:
                _nan_grade(where, score, allow_missing)
            fields["grade"] = g
    replies = _replies(row.get("judge_reply"))
    if replies is not None:
        fields["judge_replies"] = replies
    content = row.get("content")
    if isinstance(content, list) and content:
        fields["recorded_content"] = tuple(str(c) for c in content)
    model = row.get("model") or row.get("eval_model")
    if isinstance(model, list) and model:
        model = model[0]
    if isinstance(model, str) and model:
        fields["judge_model"] = model
    fields.pop("score", None)
    return replace(item, fields=fields)


def _read_vlmevalkit_sheet(inputs: TaskInputs, records: Any) -> TaskData:
    data = read_vlmevalkit(
        inputs, fields=("category", "question", "log"), list_answers=False, records=records
    )
    rows = {str(r.get("index")): (r, records.where(i)) for i, r in enumerate(records.rows)}
    items = []
    for item in data.items:
        row, where = rows.get(str(item.id), ({}, records.source))
        item = _with_grades(item, row, where, inputs.allow_missing)
        fields = dict(item.fields)
        if "score" in row and row["score"] is None and "grade" not in fields:
            _nan_grade(where, None, inputs.allow_missing)
            # an empty cell: what a NaN grade (a 'nan' reply) becomes in the sheet, and what
            # pandas reads back as NaN for MMVet_acc
            fields["grade"] = float("nan")
        fields["capabilities"] = _caps(fields.get("category"))
        fields["graded_by"] = "vlmevalkit"
        items.append(replace(item, fields=fields))
    judge = _judge_from_name(inputs.results)
    if judge is not None:
        items = [replace(it, fields={"judge_model": judge, **it.fields}) for it in items]
    return replace(data, items=items)


def _judge_from_name(results: Any) -> str | None:
    """The judge of ``<model>_MMVet_<judge>.xlsx`` (VLMEvalKit names its storage so)."""
    if not isinstance(results, str | os.PathLike):
        return None
    stem = Path(results).stem
    if "_MMVet_" in stem:
        return stem.rsplit("_MMVet_", 1)[1] or None
    return None


def _annotations(inputs: TaskInputs) -> dict[str, dict[str, Any]]:
    """``mm-vet.json``: ``{id: {question, answer, capability, imagename}}``."""
    recs = read_records(inputs.annotations)
    out = {}
    for i, row in enumerate(recs.rows):
        if "capability" not in row or "answer" not in row:
            raise InputError(
                f"{recs.where(i)}: not an mm-vet.json entry (needs 'capability' and 'answer')"
            )
        out[str(row["question_id"])] = {**row, "where": recs.where(i)}
    return out


#: an official file's row joined to its annotation: ``(id, row, where, answer, fields)``
_Joined = tuple[str, Mapping[str, Any], str, str, dict[str, Any]]


def _annotated(inputs: TaskInputs, records: Any) -> tuple[dict[str, dict[str, Any]], list[_Joined]]:
    """``mm-vet.json`` and the rows of an official ``{id: …}`` file joined to it by id, in file
    order, each with its gold answer and the annotation's capabilities and question; an id
    not annotated is an error (left out with ``--ignore-extra``)."""
    meta = _annotations(inputs)
    joined: list[_Joined] = []
    for i, row in enumerate(records.rows):
        where = records.where(i)
        key = str(row.get("question_id"))
        if key not in meta:
            if inputs.ignore_extra:
                continue
            raise InputError(f"{where}: {key!r} is not in the annotations ({len(meta)} ids)")
        m = meta[key]
        fields = {
            "capabilities": _caps(m["capability"]),
            "question": m.get("question"),
            "graded_by": "official",
        }
        joined.append((key, row, where, str(m["answer"]), fields))
    return meta, joined


def _unanswered(
    meta: Mapping[str, Any], joined: list[_Joined], records: Any, what: str, inputs: TaskInputs
) -> list[str]:
    """The annotated ids the file has no row for (no *what*): an error naming the first,
    unless ``--allow-missing`` leaves them out."""
    seen = {key for key, *_ in joined}
    absent = [k for k in meta if k not in seen]
    if absent and not inputs.allow_missing:
        raise InputError(
            f"{records.source}: {len(absent)} of the {len(meta)} annotated questions have no "
            f"{what} (first: {absent[0]!r}); pass --allow-missing to leave them out"
        )
    return absent


def _repeated_grade_keys(records: Any, data: bytes | None, inputs: TaskInputs) -> int:
    """How many members of the grade file's ``{id: {model, content, score}}`` object repeat an
    earlier question id (``read_records`` checks ``{id: answer}`` objects only, and the
    official evaluator's ``json.load`` keeps the last value of each): the first is an
    :class:`InputError` naming the file, the line and the id, unless ``--on-duplicate last``
    keeps the last (counted). *data* is the file's bytes (``None``: data in memory, whose keys
    cannot repeat)."""
    # one "score" member per grade, so a file with as many as it has ids repeats none (the
    # usual file: no second, key-preserving parse)
    if data is None or data.count(b'"score"') == len(records.rows):
        return 0
    return repeated_members(
        records.source,
        data,
        inputs.on_duplicate,
        what="question id",
        keeper="the official evaluator's json.load",
    )


def _read_grade_file(inputs: TaskInputs, records: Any, data: bytes | None = None) -> TaskData:
    """The official grade file joined to ``mm-vet.json`` by id (grade-file order, as the
    official sums run); the model's answers are not in it (the judge read them). A repeated
    id is :func:`_repeated_grade_keys`'s."""
    if inputs.annotations is None:
        raise InputError(
            f"{records.source}: an official MM-Vet grade file holds no capabilities; pass "
            "--annotations mm-vet.json (the benchmark's metadata)"
        )
    repeats = _repeated_grade_keys(records, data, inputs)
    meta, joined = _annotated(inputs, records)
    items = [
        _with_grades(Item(key, "", (answer,), fields), row, where, inputs.allow_missing)
        for key, row, where, answer, fields in joined
    ]
    absent = _unanswered(meta, joined, records, "grade", inputs)
    notes = ["the grade file holds the judge's grades, not the model's answers"]
    if repeats:
        notes.append(
            f"{repeats} repeated question id(s) in {records.source}: the last grades of each "
            "were kept (--on-duplicate last), as json.load keeps them"
        )
    if absent:
        notes.append(f"{len(absent)} annotated question(s) have no grade and were left out")
    return TaskData(
        items,
        (str(inputs.annotations), records.source),
        (f"mmvet-grade-file ({records.layout})",),
        tuple(notes),
        _official_reported(inputs.results),
        n_missing=0,
    )


def _official_reported(results: Any) -> dict[str, Any] | None:
    """``<model>_<gpt>-cap-score-<n>runs.csv`` beside ``<model>_<gpt>-grade-<n>runs.json``."""
    if not isinstance(results, str | os.PathLike):
        return None
    path = Path(results)
    if "-grade-" not in path.name:
        return None
    cand = path.with_name(path.name.replace("-grade-", "-cap-score-")).with_suffix(".csv")
    if not cand.is_file():
        return None
    rows = score_csv_rows(cand)
    values: dict[str, Any] = {}
    for row in rows[1:2]:
        for head, cell in zip(rows[0][1:], row[1:], strict=False):
            try:
                values[head] = float(cell)
            except ValueError:
                values[head] = cell
    return {
        "source": os.fspath(cand),
        "toolkit": "MM-Vet",
        "values": {"all": values},
        "profiles": ("official",),
    }


def _percent(inputs: TaskInputs) -> dict[str, Any] | None:
    """lmms-eval's ``results.json`` beside the log, marked as percent (its mmvet aggregation
    multiplies by 100, unlike most lmms-eval metrics)."""
    rep = locate_reported(inputs.results, inputs.reported)
    if rep is not None and rep.get("toolkit") == "lmms-eval":
        rep["units"] = "percent"
    return rep


#: the newer log (no doc): lmms-eval@75571cf tasks/mmvet/utils.py mmvet_process_results records
#: {question_id, question, gt_answer, capabilities, pred_answer, score, eval_model}
_RECORD = MetricRecord(
    metrics=("gpt_eval_score",),
    doc={
        "question_id": "question_id",
        "question": "question",
        "answer": "gt_answer",
        "capability": "capabilities",
    },
    target=None,
)


def _read_lmms(inputs: TaskInputs, records: Any) -> TaskData | None:
    preds = lmms_eval_predictions(records, inputs)
    if preds is None:
        return None
    preds = record_docs(preds, _RECORD) or preds  # MM-Vet reads no annotation file
    items = []
    for row, text, where in zip(preds.records.rows, preds.texts, preds.wheres, strict=True):
        doc = row.get("doc")
        rec = row.get("gpt_eval_score")
        if not isinstance(doc, dict):
            raise InputError(f"{where}: no 'doc' (the MM-Vet row: question_id, capability)")
        key = doc.get("question_id", row.get("doc_id"))
        caps = doc.get("capability", rec.get("capabilities") if isinstance(rec, dict) else None)
        fields: dict[str, Any] = {
            "capabilities": _caps(caps),
            "capability": caps,
            "question": doc.get("question"),
            "graded_by": "lmms-eval",
        }
        key = row_id(key, where, "doc.question_id" if "question_id" in doc else "doc_id")
        item = Item(str(key), text, (str(doc.get("answer", "")),), fields)
        graded = rec if isinstance(rec, dict) else row
        items.append(_with_grades(item, graded, where, inputs.allow_missing))
    # two samples (distinct doc_ids) of one question would count it twice
    items, repeated = unique_items(
        items, preds.wheres, what="question_id", on_duplicate=inputs.on_duplicate
    )
    notes = (repeated,) if repeated else ()
    data = TaskData(items, (records.source,), (preds.layout,), notes, _percent(inputs))
    return without_questions(data, inputs)


def _read_records(inputs: TaskInputs, records: Any) -> TaskData:
    """Plain records: ``question_id``/``id``, ``capability``, ``prediction``/``answer`` and a
    grade (``score``) or the judge's replies (``judge_reply``)."""
    items = []
    for i, row in enumerate(records.rows):
        where = records.where(i)
        key = row.get("question_id", row.get("id"))
        if key is None:
            raise InputError(f"{where}: no question_id")
        caps = row.get("capability", row.get("category"))
        fields = {"capabilities": _caps(caps), "capability": caps}
        if isinstance(row.get("question"), str):
            fields["question"] = row["question"]
        pred = row.get("prediction", "")
        gt = row.get("gt_answer", row.get("answer", ""))
        column = "question_id" if "question_id" in row else "id"
        item = Item(str(row_id(key, where, column)), str(pred), (str(gt),), fields)
        items.append(_with_grades(item, row, where, inputs.allow_missing))
    # a record given twice (a judge-reply file concatenated twice) would be counted twice
    items, notes = unique_records(items, records, "question_id", inputs)
    rep = locate_reported(inputs.results, inputs.reported)
    return TaskData(items, (records.source,), (f"records ({records.layout})",), notes, rep)


def _read_official_results(inputs: TaskInputs, records: Any) -> TaskData:
    """The official model output ``<model>.json`` (``{id: answer}``) joined to ``mm-vet.json``
    by id: ungraded answers, for a judge to grade (``--judge-url``)."""
    meta, joined = _annotated(inputs, records)
    items = [
        Item(key, str(row["answer"]), (answer,), fields) for key, row, _, answer, fields in joined
    ]
    absent = _unanswered(meta, joined, records, "answer", inputs)
    notes = []
    if records.repeated_keys:  # read_records refused them unless --on-duplicate last
        notes.append(
            f"{records.repeated_keys} repeated key(s) in {records.source}: the last answer of "
            "each was kept (--on-duplicate last), as json.load keeps it"
        )
    if absent:
        notes.append(f"{len(absent)} annotated question(s) have no answer and were left out")
    return TaskData(
        items,
        (str(inputs.annotations), records.source),
        (f"mmvet-official-results ({records.layout})",),
        tuple(notes),
    )


def _read(inputs: TaskInputs) -> TaskData:
    raw: bytes | None = None
    if isinstance(inputs.results, str | os.PathLike):
        # the bytes kept for the grade file's repeated-key check (a pipe is read once)
        name, raw, was_gzip = read_bytes_from(inputs.results)
        records = records_from_bytes(
            name, raw, was_gzip, format=inputs.format, on_duplicate=inputs.on_duplicate
        )
    else:
        records = read_records(
            inputs.results, format=inputs.format, on_duplicate=inputs.on_duplicate
        )
    data = _read_layout(inputs, records, raw)
    if not data.items:
        raise InputError(f"{records.source}: no items to score (an empty {records.layout} file)")
    return data


def _read_layout(inputs: TaskInputs, records: Any, raw: bytes | None = None) -> TaskData:
    lmms = _read_lmms(inputs, records)
    if lmms is not None:
        return lmms
    cols = set(records.columns)
    if records.layout == "json-mapping" and "score" in cols and "content" in cols:
        unused_fields(inputs.id_field, inputs.answer_field, "the official grade file")
        return _read_grade_file(inputs, records, raw)
    if records.layout == "json-mapping" and inputs.annotations is not None:
        unused_fields(inputs.id_field, inputs.answer_field, "the official {id: answer} JSON")
        return _read_official_results(inputs, records)
    given = inputs.id_field, inputs.answer_field
    if is_vlmevalkit(records, id_field=inputs.id_field, answer_field=inputs.answer_field):
        # its columns named as the sheet's: the options are spent
        sheet = named_columns(records, *given, id_column="index", answer_column="prediction")
        return _read_vlmevalkit_sheet(replace(inputs, id_field=None, answer_field=None), sheet)
    plain = named_columns(records, *given, id_column="question_id", answer_column="prediction")
    return _read_records(inputs, plain)


# ---------------------------------------------------------------------------- scoring


def _scorer(toolkit: Toolkit) -> Any:
    def score(
        prediction: str,
        references: Sequence[str],
        grade: Any = None,
        judge_replies: Any = None,
    ) -> float:
        """The judge's grade: the replies replayed through the toolkit's reading (the first
        accepted, 0.0 when it gives up), else the recorded grade."""
        if judge_replies:
            return read_replies(tuple(judge_replies), toolkit)[0]
        if grade is None:
            raise InputError(f"no judge grade ('score') and no 'judge_reply': {_HOW}")
        return float(grade)

    return score


def _capability_lists(items: Sequence[Item]) -> list[tuple[str, ...]]:
    out = []
    for item in items:
        caps = item.fields.get("capabilities")
        if not caps:
            raise InputError(f"item {item.id!r}: no capability (MM-Vet groups by it)")
        out.append(tuple(caps))
    return out


def _nan_notes(scores: Sequence[float]) -> list[str]:
    n = sum(1 for s in scores if is_nan(s))
    if not n:
        return []
    return [
        f"{n} grade(s) are NaN (a judge reply 'nan' passes the official and VLMEvalKit range "
        "checks; an empty 'score' cell of a VLMEvalKit sheet reads as NaN): every mean they "
        "enter is NaN, as in the toolkit"
    ]


def _replay_notes(items: Sequence[Item], toolkit: Toolkit, scores: Sequence[float]) -> list[str]:
    """Where a recorded grade differs from the one the recorded replies give under this
    toolkit's rule (e.g. a VLMEvalKit grade replayed under the official rule)."""
    replayed = [it for it in items if it.fields.get("judge_replies")]
    differ = [
        str(it.id)
        for it, s in zip(items, scores, strict=True)
        if it.fields.get("judge_replies")
        and it.fields.get("grade") is not None
        and not (is_nan(s) and is_nan(it.fields["grade"]))
        and float(it.fields["grade"]) != s
    ]
    notes = []
    others = {
        str(it.fields["graded_by"])
        for it in items
        if it.fields.get("graded_by") not in (None, toolkit) and not it.fields.get("judge_replies")
    }
    for other in sorted(others):
        notes.append(
            f"the recorded grades were read from the judge's replies by {other}'s rule, not "
            f"{toolkit}'s (they differ on replies such as '0.8 because …' and ' 0.7'); only "
            "the replies themselves ('judge_reply') can be re-read"
        )
    if replayed:
        notes.append(
            f"{len(replayed)} grade(s) replayed from the recorded judge replies under the "
            f"{toolkit} reading of a reply"
        )
    if differ:
        shown = ", ".join(repr(q) for q in differ[:3])
        notes.append(
            f"{len(differ)} recorded grade(s) differ from the replayed ones (e.g. {shown}); "
            "the replayed ones were used"
        )
    contents = [
        str(it.id)
        for it in items
        if toolkit == "official"
        and it.fields.get("recorded_content")
        and it.fields.get("grades")
        and any(
            not isinstance(official_reply(c), Retry) and official_reply(c) != g
            for c, g in zip(it.fields["recorded_content"], it.fields["grades"], strict=False)
            if not is_nan(g)
        )
    ]
    if contents:
        shown = ", ".join(repr(q) for q in contents[:3])
        notes.append(
            f"{len(contents)} stored grade(s) differ from the official reading of the reply "
            f"stored beside them ('content'; e.g. {shown}); the stored grades were used"
        )
    return notes


def _aggregate_official(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """Per capability and ``total``; ``std`` over runs and the per-run totals when the grade
    file has several runs (``--num_run``)."""
    caps = _capability_lists(items)
    n_runs = {len(it.fields.get("grades") or (0,)) for it in items}
    multi = len(n_runs) == 1 and next(iter(n_runs)) > 1
    if multi and not any(it.fields.get("judge_replies") for it in items):
        runs = [tuple(float(g) for g in it.fields["grades"]) for it in items]
    else:
        runs = [(s,) for s in scores]
    values, combos, totals = official_capability_scores(caps, runs)
    metrics: dict[str, float | int] = {"total": values["total"], "n": len(items)}
    if multi:
        import numpy as np

        metrics["std"] = float(np.array(totals).std())
        metrics["runs"] = len(totals)
    counts = {c: sum(1 for x in caps if c in x) for c in values if c != "total"}
    by_cap = {c: {"score": v, "n": counts[c]} for c, v in values.items() if c != "total"}
    return Aggregate(
        metrics=metrics,
        headline="total",
        units="percent",
        digits=1,
        breakdowns={
            "capability": by_cap,
            "capability_integration": {k: {"score": v, "n": n} for k, (v, n) in combos.items()},
        },
        notes=tuple(_nan_notes(scores) + _replay_notes(items, "official", scores)),
    )


def _aggregate_vlm(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    cats = []
    for item in items:
        cat = item.fields.get("category")
        if cat is None:
            cat = ",".join(item.fields.get("capabilities") or ())
        if not cat:
            raise InputError(f"item {item.id!r}: no 'category' (MMVet_acc groups by it)")
        cats.append(str(cat))
    # QUIRK shared-counter (see vlmevalkit_acc): a one-capability item counts twice
    by_cap, fine = vlmevalkit_acc(cats, scores)
    overall = by_cap["Overall"]
    return Aggregate(
        metrics={"Overall": overall[0], "n": overall[1]},
        headline="Overall",
        units="percent",
        digits=2,
        breakdowns={
            "capability": {k: {"acc": a, "tot": t} for k, (a, t) in by_cap.items()},
            "category": {k: {"acc": a, "tot": t} for k, (a, t) in fine.items()},
        },
        notes=tuple(_nan_notes(scores) + _replay_notes(items, "vlmevalkit", scores)),
    )


def _aggregate_lmms(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    caps: list[str | Sequence[str]] = []
    for item in items:
        raw = item.fields.get("capability")
        caps.append(raw if isinstance(raw, str) else tuple(item.fields.get("capabilities") or ()))
    overall, by_cap = lmms_eval_scores(caps, scores)
    return Aggregate(
        metrics={"Overall": overall, "n": len(items)},
        headline="Overall",
        units="percent",
        digits=2,
        breakdowns={"capability": {k: {"score": v, "n": n} for k, (v, n) in by_cap.items()}},
        notes=tuple(_nan_notes(scores) + _replay_notes(items, "lmms-eval", scores)),
    )


OFFICIAL = TaskProfile(
    name="official",
    description="MM-Vet mm-vet_evaluator.py: first token of the reply; per capability and "
    "total = Σ/n × 100, mean over runs, 1 decimal",
    reproduces="yuweihao/MM-Vet@acde843 mm-vet_evaluator.py",
    toolkit="MM-Vet@acde843",
    score=_scorer("official"),
    aggregate=_aggregate_official,
    context=("grade", "judge_replies"),
    # an open answer graded by the judge, who reads it whole: no verbose-answer diagnostics
    reads_free_text=True,
)

VLMEVALKIT = replace(
    OFFICIAL,
    name="vlmevalkit",
    description="VLMEvalKit MMVet_auxeval/MMVet_acc: float() of the whole reply; capability "
    "by substring of 'category'",
    reproduces=VLMEVALKIT_PIN.at("vlmeval/dataset/utils/mmvet.py"),
    toolkit=VLMEVALKIT_PIN.token,
    score=_scorer("vlmevalkit"),
    aggregate=_aggregate_vlm,
)

LMMS_EVAL = replace(
    OFFICIAL,
    name="lmms-eval",
    description="lmms-eval mmvet: first token of the stripped reply, nan rejected; sum/n × 100",
    reproduces=LMMS_EVAL_PIN.at("lmms_eval/tasks/mmvet/utils.py"),
    toolkit=LMMS_EVAL_PIN.token,
    score=_scorer("lmms-eval"),
    aggregate=_aggregate_lmms,
)


def _signature_fields(data: TaskData) -> tuple[tuple[str, Any], ...]:
    models = {it.fields.get("judge_model") for it in data.items} - {None}
    return (
        ("judge", data.extra.get("judge", "recorded")),
        ("judge_model", next(iter(models)) if len(models) == 1 else None),
    )


# ---------------------------------------------------------------------------- new runs

_KINDS = {
    "official": MMVET_OFFICIAL,
    "vlmevalkit": MMVET_VLMEVALKIT,
    "lmms-eval": MMVET_LMMS_EVAL,
}
_TOOLKIT: dict[str, Toolkit] = {
    "official": "official",
    "vlmevalkit": "vlmevalkit",
    "lmms-eval": "lmms-eval",
}
#: the temperature of each reply each toolkit reads, and its max_tokens. Official
#: (``mm-vet_evaluator.py``): the retry is sent before ``temperature += 0.5``, so the second
#: reply is at 0 again, and ``max_tokens=3``; VLMEvalKit (``MMVet_auxeval``): ``i * 0.5``,
#: its judge built with ``max_tokens=2048``
_SCHEDULE: dict[str, tuple[tuple[float, ...], int]] = {
    "official": ((0.0, 0.0, 0.5, 1.0, 1.5), 3),
    "vlmevalkit": ((0.0, 0.5, 1.0, 1.5, 2.0), 2048),
}
#: lmms-eval: ``get_chat_response`` (3 tries while the reply is empty) with ``max_tokens=128``
_LMMS_PATIENCE, _LMMS_MAX_TOKENS = 3, 128
#: an out-of-range lmms-eval reply is asked about again at the same temperature without end;
#: vqametrics stops after this many and leaves the item unjudged (named in the error)
_LMMS_RANGE_LIMIT = 5


def _graded(item: Item) -> bool:
    return "grade" in item.fields or bool(item.fields.get("judge_replies"))


def _base_prompt(item: Item, text: str, source: str, toolkit: Toolkit) -> str:
    question = item.fields.get("question")
    if not isinstance(question, str):
        raise InputError(
            f"{source}: item {item.id!r}: no 'question' (the grading prompt quotes it); pass "
            "--annotations mm-vet.json"
        )
    build = mmvet_lmms_eval_prompt if toolkit == "lmms-eval" else mmvet_prompt
    return build(text, question, item.references[0], item.prediction or "")


def _settle(
    client: Any, prompt: str, retry: str, toolkit: Toolkit
) -> tuple[Judgement, tuple[str, ...]]:
    """Ask until the toolkit's reading accepts a reply, at most 5 replies (the official
    evaluator asks again with *retry*, VLMEvalKit with the same prompt), each at the
    toolkit's temperature and max_tokens (:data:`_SCHEDULE`) and its own cache entry. The
    official evaluator's sixth request (made after the fifth rejected reply, its reply never
    read) is not made. The decision is the grade; the replies read are returned."""
    temperatures, max_tokens = _SCHEDULE[toolkit]
    replies: list[str] = []
    calls = 0
    first_cached = False
    reply: Any = None
    for attempt, temperature in enumerate(temperatures):
        sent = prompt if attempt == 0 else retry
        reply = client.complete(
            sent,
            attempt=attempt if sent == prompt else attempt - 1,
            temperature=temperature,
            max_tokens=max_tokens,
        )
        calls += reply.calls
        first_cached = first_cached or (attempt == 0 and reply.cached)
        if reply.response is None:
            return Judgement(None, sent, None, first_cached, calls, reply.error), ()
        replies.append(reply.response)
        if not isinstance(_READ[toolkit](reply.response), Retry):
            break
    grade, _ = read_replies(tuple(replies), toolkit)
    last = replies[-1]
    return Judgement(repr(grade), reply.prompt, last, first_cached, calls), tuple(replies)


class _Lmms:
    """lmms-eval's asking for one prompt: every request its own attempt (cache entry)."""

    def __init__(self, client: Any, prompt: str) -> None:
        self.client, self.prompt = client, prompt
        self.attempt = self.calls = 0
        self.cached = False
        self.error: str | None = None

    def chat(self, temperature: float) -> str | None:
        """``get_chat_response``: the stripped reply, asked up to 3 times while it is empty
        (then ``""``); ``None`` when the judge gave no answer (vqametrics: unjudged)."""
        for _ in range(_LMMS_PATIENCE):
            r = self.client.complete(
                self.prompt,
                attempt=self.attempt,
                temperature=temperature,
                max_tokens=_LMMS_MAX_TOKENS,
            )
            self.cached = self.cached or (self.attempt == 0 and r.cached)
            self.attempt += 1
            self.calls += r.calls
            text: str | None = r.response
            if text is None:
                self.error = r.error
                return None
            if text.strip():
                return text.strip()
        return ""


def _settle_lmms(client: Any, prompt: str) -> tuple[Judgement, tuple[str, ...]]:
    """``mmvet_process_results``' loop: a parse failure raises the temperature by 0.5 and
    asks again (the reply fetched in its ``except`` branch is overwritten before it is read:
    QUIRK discarded-reply, so that request is not made), 0.0 once the temperature reaches 2;
    an out-of-range reply is asked again at the same temperature; an empty one is 0.0."""
    ask = _Lmms(client, prompt)
    temperature = 0.0
    replies: list[str] = []
    out_of_range = 0
    content = ask.chat(temperature)
    while content is not None:
        replies.append(content)
        got = lmms_eval_reply(content)
        if not isinstance(got, Retry):
            break
        if got.reason == "parse":
            temperature += 0.5
            if temperature >= 2:
                break
        else:
            out_of_range += 1
            if out_of_range >= _LMMS_RANGE_LIMIT:
                # no grade: counted as a failed item (fails the run unless --allow-unjudged)
                ask.error = (
                    f"{out_of_range} out-of-range grades, the last {content[:20]!r} (lmms-eval "
                    "would ask again without end)"
                )
                return Judgement(None, prompt, None, ask.cached, ask.calls, ask.error), ()
        content = ask.chat(temperature)
    if content is None:
        return Judgement(None, prompt, None, ask.cached, ask.calls, ask.error), ()
    grade, _ = read_replies(tuple(replies), "lmms-eval")
    return Judgement(repr(grade), prompt, replies[-1], ask.cached, ask.calls), tuple(replies)


_READ = {"official": official_reply, "vlmevalkit": vlmevalkit_reply}


def _judge_stage(
    data: TaskData, prof: TaskProfile, client: Any, inputs: TaskInputs
) -> tuple[TaskData, Any, Any]:
    """Grades for the answers with none recorded, from the judge with the profile's toolkit
    prompt (``--judge-prompt``: not bundled); each item's replies are recorded in
    ``judge_replies`` and scored by the same replay as recorded ones. Without a judge nothing
    changes (an ungraded item is the scorer's error)."""
    pending = [
        i for i, it in enumerate(data.items) if it.prediction is not None and not _graded(it)
    ]
    if client is None or not pending:
        return data, None, None
    kind = _KINDS[prof.name]
    text = load_prompt_text(
        inputs.options.get("judge_prompt"), kind, task="mmvet", profile=prof.name
    )
    toolkit: Toolkit = _TOOLKIT[prof.name]
    source = data.sources[-1] if data.sources else "input"
    items = list(data.items)
    judgements: dict[int, Judgement] = {}
    for i in pending:
        prompt = _base_prompt(items[i], text.text, source, toolkit)
        if toolkit == "lmms-eval":
            judgements[i], replies = _settle_lmms(client, prompt)
        else:
            retry = prompt + MMVET_OFFICIAL_RETRY if toolkit == "official" else prompt
            judgements[i], replies = _settle(client, prompt, retry, toolkit)
        if not replies:  # --allow-unjudged: no grade, scored as a missing answer
            items[i] = replace(items[i], prediction=None)
        else:
            items[i] = replace(items[i], fields={**items[i].fields, "judge_replies": replies})
    label = prompt_label(client.model, kind, text)
    stats = JudgeStats.of(label, list(judgements.values()))
    allow = bool(getattr(client, "allow_unjudged", False))
    value = check_judged(label, stats.failed, stats.asked, stats.failures, allow=allow)
    note = f"{len(pending)} answer(s) graded by judge {label} (prompt from {text.source})"
    return judged_data(data, items, note, value), judgements, stats


TASK = register_task(
    Task(
        name="mmvet",
        kind="judged",
        title="MM-Vet",
        metric="mmvet",
        description="open questions graded 0–1 by an LLM judge (recorded): per capability and "
        "overall",
        profiles=(OFFICIAL, VLMEVALKIT, LMMS_EVAL),
        read=_read,
        layouts=(
            "VLMEvalKit <model>_MMVet_<judge>.xlsx (index, category, answer, prediction, score, "
            "log)",
            "official <model>_<gpt>-grade-<n>runs.json + --annotations mm-vet.json",
            "lmms-eval --log_samples JSONL of mmvet (doc, gpt_eval_score)",
            "lmms-eval --log_samples JSONL of mmvet without doc: the gpt_eval_score record "
            "(question_id, gt_answer, capabilities, score)",
            "records with question_id, capability and 'score' or 'judge_reply' (the replies)",
        ),
        aliases=("mm-vet",),
        annotations_optional=True,
        signature_fields=_signature_fields,
        judge=_judge_stage,
        options=(
            (
                "judge-prompt",
                "with --judge-url: the toolkit's few-shot grading prompt, not bundled: official: "
                "MM-Vet's mm-vet_evaluator.py; vlmevalkit: a text file; lmms-eval: its "
                "tasks/mmvet/utils.py (docs/tasks/mmvet.md)",
            ),
        ),
        reported_names={"gpt_eval_score": "Overall"},
        note="every score needs an LLM judge's grades: recorded ones are scored, none is made",
    )
)
