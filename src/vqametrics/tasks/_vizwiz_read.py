"""Reading VizWiz-VQA's files: the official annotations joined by image to the official
results, a VLMEvalKit sheet (ground truth inside), or an lmms-eval ``--log_samples`` log (with
``doc``, its own — processed — answers; without, joined to the annotations by position). See
``vizwiz.py`` for the scoring."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..core.exceptions import InputError
from ..normalize.mmf import evalai_answer_processor
from ..readers.answers import require_answers
from ..readers.detect import Layouts, read_by_layout, read_log
from ..readers.join import (
    join_truth,
    joinable_predictions,
    logged_disagreement,
    logged_scores,
    unique_truth,
)
from ..readers.layouts import Predictions
from ..readers.records import Records, read_records
from ._base import Item, TaskData, TaskInputs
from ._common import read_vlmevalkit, reported_scores
from ._lmms import LogLayout, LogReading, Truth, log_docs
from ._vqa_family import require_fields

__all__ = ["LMMS_EVAL_METRICS", "LMMS_EVAL_REPORTED", "read_vizwiz"]


def _answer_texts(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise InputError(f"{where}: 'answers' must be a list")
    out = []
    for a in value:
        text = a.get("answer") if isinstance(a, dict) else a
        if not isinstance(text, str):
            raise InputError(f"{where}: an answer is {type(text).__name__}, expected text")
        out.append(text)
    return tuple(out)


def _flag(value: Any, where: str, what: str) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and math.isfinite(value) and 0 <= value <= 1:
        return float(value)
    raise InputError(f"{where}: {what} is {value!r}, expected a number from 0 to 1")


def _read_annotations(inputs: TaskInputs) -> tuple[list[Item], tuple[str, ...], tuple[str, ...]]:
    """The official annotation list ``[{image, question, answers: [{answer,
    answer_confidence}], answer_type, answerable}]``: its items, its name and the note
    counting repeated images kept under ``--on-duplicate last``."""
    records = read_records(inputs.annotations, rows_key="annotations")
    items = []
    for i, row in enumerate(records.rows):
        where = records.where(i)
        require_fields(
            row,
            where,
            ("image", "answers"),
            "VizWiz's annotation list [{image, question, answers, answer_type, answerable}]",
        )
        image = row["image"]
        if not isinstance(image, str):
            raise InputError(f"{where}: image is {type(image).__name__}, expected a file name")
        fields: dict[str, Any] = {"image": image}
        for key in ("question", "answer_type"):
            if isinstance(row.get(key), str):
                fields[key] = row[key]
        if "answerable" in row:
            fields["answerable"] = int(_flag(row["answerable"], where, "answerable"))
        items.append(Item(image, None, _answer_texts(row["answers"], where), fields))
    wheres = [records.where(i) for i in range(len(items))]
    items, notes = unique_truth(
        items, wheres, records.source, what="image", on_duplicate=inputs.on_duplicate
    )
    return items, (records.source,), notes


def read_vizwiz(inputs: TaskInputs) -> TaskData:
    """The items of a VizWiz run, whichever of the three layouts the results are in."""
    if inputs.questions is not None:
        raise InputError("vizwiz: --questions is not used: the annotations carry the questions")
    return read_by_layout(
        inputs,
        TOOLKIT_LAYOUTS,
        log=lambda preds, inp: require_answers(_read_lmms_eval(preds, inp), "image"),
        other=_read_other,
    )


def _read_other(records: Records, inputs: TaskInputs) -> TaskData:
    """Without annotations a results file must carry its ground truth (a VLMEvalKit sheet);
    with them, it is the official results list, joined by image."""
    if inputs.annotations is None:
        return require_answers(_read_vlmevalkit_sheet(inputs, records), "index")
    return require_answers(_read_official(inputs, records), "image")


#: the item fields kept from a VLMEvalKit sheet
_SHEET_FIELDS = ("category", "answer_type")


def _read_vlmevalkit_sheet(inputs: TaskInputs, records: Records) -> TaskData:
    """A VLMEvalKit VizWiz sheet, scored against the ground truth it carries.

    VLMEvalKit's ``VizWiz.tsv`` names that column ``answers`` (``VizWiz.evaluate`` asserts it
    and copies it to ``answer``); a sheet with ``answers`` and no ``answer`` is read the same
    way: its rows renamed, the file (its format, lines and name) kept.
    """
    columns = set(records.columns)
    if "answers" not in columns or "answer" in columns:
        return read_vlmevalkit(inputs, fields=_SHEET_FIELDS, records=records)
    rows = [{("answer" if k == "answers" else k): v for k, v in r.items()} for r in records.rows]
    return read_vlmevalkit(inputs, fields=_SHEET_FIELDS, records=replace(records, rows=rows))


def _read_official(
    inputs: TaskInputs, records: Records, preds: Predictions | None = None
) -> TaskData:
    """The official annotation list joined by image to the official results list (or to
    *preds*, the results' predictions keyed by image when the caller has read them)."""
    gt_items, gt_sources, gt_notes = _read_annotations(inputs)
    if preds is None:
        preds = joinable_predictions(records, inputs)
    data = join_truth(
        gt_items,
        gt_sources,
        preds,
        inputs,
        layouts=("vizwiz-annotations", preds.layout),
        what="image",
        notes=gt_notes,
        missing="{n} image(s) had no prediction and scored 0",
        extra="{n} result(s) for unknown images were ignored",
    )
    flags = _answerable_flags(preds, gt_items, gt_sources[0])
    if not flags:
        return data
    if data.n_missing:
        note = "answerability not computed: some images have no result"
        return replace(data, notes=(note, *data.notes))
    items = [
        replace(it, fields={**it.fields, "pred_answerable": flags[str(it.id)]}) for it in data.items
    ]
    return replace(data, items=items)


def _answerable_flags(preds: Predictions, truth: list[Item], truth_source: str) -> dict[str, float]:
    """Each result's ``answerable`` score by image, when the results carry one (then every
    result and every annotation must have it: answerability needs them all); else empty."""
    rows = preds.records.rows  # the rows the predictions were kept from
    carried = [i for i, row in enumerate(rows) if "answerable" in row]
    if not carried:
        return {}
    if len(carried) != len(rows):
        first = next(i for i, row in enumerate(rows) if "answerable" not in row)
        raise InputError(
            f"{preds.wheres[first]}: no 'answerable' score, while {len(carried)} other "
            "result(s) carry one (answerability needs it on every result)"
        )
    flags = {
        str(key): _flag(row["answerable"], where, "answerable")
        for row, key, where in zip(rows, preds.ids, preds.wheres, strict=True)
    }
    unlabelled = next((it for it in truth if "answerable" not in it.fields), None)
    if unlabelled is not None:
        raise InputError(
            f"{truth_source}: image {unlabelled.id!r} has no 'answerable' label, which "
            "answerability needs"
        )
    return flags


# ------------------------------------------------------------------------- lmms-eval logs

#: ``vizwiz_vqa_process_results`` returns ``{"exact_match": acc, "submission": {...}}``
#: (lmms-eval@75571cf ``lmms_eval/tasks/vizwiz_vqa/utils.py``)
LMMS_EVAL_METRICS = ("exact_match",)
#: how VizWiz's files are told apart: a log (no metric record holds its answers), else the
#: results are a sheet without annotations and the official list with them
TOOLKIT_LAYOUTS = Layouts(log=LogLayout(metrics=LMMS_EVAL_METRICS))

#: lmms-eval's aggregate metric (``results.json``, ``"<metric>,none"``; ``vizwiz_vqa_val``) →
#: the ``lmms-eval`` profile's metric that recomputes it
LMMS_EVAL_REPORTED: Mapping[str, str] = {"exact_match": "exact_match"}
#: lmms-eval@75571cf ``_default_template_vqa_yaml`` sets ``doc_to_target: "answer"``, but the
#: ``lmms-lab/VizWiz-VQA`` rows have no ``answer`` column (``question_id``, ``image``,
#: ``question``, ``answers``, ``category``), so ``doc_to_target`` renders the name as a
#: template and every record logs the text ``answer`` as its target
_UNRENDERED_TARGET = "answer"
_PROCESSED_NOTE = (
    "{source}: lmms-eval's vizwiz_vqa_process_results rewrites doc.answers in place with "
    "MMF's EvalAIAnswerProcessor before the record is logged, so these answers are processed: "
    "the lmms-eval profile scores them as lmms-eval did, the others do not see the raw answers "
    "(pass --annotations with VizWiz's annotation file for those)"
)


def _image_of(doc: Mapping[str, Any], where: str) -> str:
    """The annotation key of a doc: lmms-eval names its submission's image
    ``f"{doc['question_id']}.jpg"`` (``vizwiz_vqa_process_results``), VizWiz's file name."""
    qid = doc.get("question_id")
    if not isinstance(qid, str) or not qid:
        raise InputError(f"{where}: doc.question_id is missing or not text")
    return f"{qid}.jpg"


def _doc_answers(doc: dict[str, Any], where: str) -> tuple[str, ...]:
    value = doc.get("answers")
    if value is None:
        raise InputError(
            f"{where}: doc.answers is empty (VizWiz's test split has no answers; lmms-eval "
            "scores such a sample 0 and submits it to the evaluation server)"
        )
    return _answer_texts(value, where)


def _annotation_truth(inputs: TaskInputs) -> Truth:
    """VizWiz's annotations as the truth a log without docs is joined to by position."""
    gt_items, gt_sources, gt_notes = _read_annotations(inputs)
    return Truth(gt_items, gt_sources, "vizwiz-annotations", name=gt_sources[0], notes=gt_notes)


def _image_items(own: list[Item], preds: Predictions) -> list[Item]:
    """Each doc's item keyed by its image ``{question_id}.jpg``, the annotations' key."""
    images = [
        _image_of(row["doc"], w) for row, w in zip(preds.records.rows, preds.wheres, strict=True)
    ]
    return [
        replace(it, id=image, fields={**it.fields, "image": image})
        for it, image in zip(own, images, strict=True)
    ]


def _join_docs(preds: Predictions, inputs: TaskInputs) -> TaskData:
    """Docs joined to ``--annotations`` by image (the official join), the annotations
    winning; docs whose (processed) answers differ are counted in a note."""
    source = preds.source
    own = log_docs(preds, LOG_READING)
    data = _read_official(inputs, preds.records, replace(preds, ids=[it.id for it in own]))
    # the doc's answers are processed (see _PROCESSED_NOTE): compared after processing
    differ = logged_disagreement(
        data.items,
        own,
        f"doc.answers of {source} (after MMF's answer processing)",
        compare=_processed,
    )
    return replace(
        data,
        items=logged_scores(data.items, own),
        notes=(*data.notes, *([differ] if differ else [])),
        reported=reported_scores(inputs),
    )


#: an lmms-eval ``--log_samples`` file (task ``vizwiz_vqa_val``). With ``doc``
#: (``question_id``, ``question``, ``answers``, ``category``): scored against ``doc.answers``,
#: each item keyed by its image ``{question_id}.jpg``; given ``--annotations`` as well, joined
#: to them by that image, the annotations winning. Without ``doc``: ``--annotations`` joined
#: by position (``doc_id`` *i* = the *i*-th annotation). lmms-eval logs no answerability, so
#: it is never computed here
LOG_READING = LogReading(
    layout=TOOLKIT_LAYOUTS.log,
    references=_doc_answers,
    fields=("question", "category"),
    adjust=_image_items,
    what="image (doc.question_id)",
    alone_note=_PROCESSED_NOTE,
    joined=_join_docs,
    need="--annotations val.json (VizWiz's annotations, joined by position: doc_id i = its "
    "i-th question)",
    lacks="reference answers (only exact_match)",
    truth=_annotation_truth,
    truth_first=True,
    absent_note="{n} image(s) had no prediction and scored 0",
    # QUIRK unrendered-target: the logged target is the text "answer", never an answer; it
    # is left out so the positional join does not count it as a disagreement
    bare_target=_UNRENDERED_TARGET,
)


def _read_lmms_eval(preds: Predictions, inputs: TaskInputs) -> TaskData:
    """An lmms-eval log of VizWiz, read as :data:`LOG_READING` declares."""
    return read_log(preds, inputs, LOG_READING)


def _processed(answers: Sequence[str]) -> list[str]:
    return [evalai_answer_processor(a) for a in answers]
