r"""VizWiz-VQA: questions from blind users, scored by soft accuracy, plus answerability.

``official`` is the VizWiz-VQA API ``vqaEval.py`` (Qing Li, vizwiz.org; spec vqa-family §3):

.. math::

    \mathrm{acc} = \frac{1}{N}\sum_{i=1}^{N}\min\Bigl(1, \frac{|\{j \ne i : g_j = n(p)\}|}{3}\Bigr)

with :math:`g_j` the answers **as written** and :math:`n(p)` the normalized prediction
(:mod:`vqametrics.normalize.vizwiz`); overall and per answer type = 100·Σacc / N.
Answerability (when the results carry ``answerable``) is scikit-learn's average precision and
F1 at ``> 0.5`` on the *unanswerable* class (:func:`average_precision`, :func:`f1_at_half`).

Profiles: ``official``, ``lmms-eval`` (MMF's processor on both sides, ``statistics.mean``),
``vlmevalkit`` / ``vlmevalkit-2024`` (``process_answer`` on both sides, ``np.mean``).

Inputs: the official annotations + results, a VLMEvalKit sheet, or an lmms-eval samples log
(``doc`` = the ``lmms-lab/VizWiz-VQA`` row; QUIRK processed-doc: lmms-eval rewrites
``doc.answers`` with MMF's processor before logging, so only ``--annotations`` gives the
official profile the raw answers).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from .._exceptions import InputError
from ..load.join import check_unique, join_by_id
from ..load.layouts import (
    Predictions,
    find_reported,
    predictions_from,
)
from ..load.records import Records, read_records
from ..normalize.mmf import evalai_answer_processor
from ..normalize.vizwiz import prediction as vizwiz_prediction
from ..score.vqa import average, leave_one_out_values, pairwise_sum
from . import register_task
from ._base import Aggregate, Item, Task, TaskData, TaskInputs, TaskProfile
from ._common import mean_aggregate, numpy_mean, read_vlmevalkit, reported_scores
from ._lmms import (
    TOOLKIT_SCORE,
    has_docs,
    lmms_eval_items,
    lmms_eval_predictions,
    no_doc_error,
    positional_items,
)
from .textvqa import (
    lmms_eval_accuracy,
    require_answers,
    vlmevalkit_2024_accuracy,
    vlmevalkit_accuracy,
)

__all__ = [
    "LMMS_EVAL_METRICS",
    "LMMS_EVAL_REPORTED",
    "average_precision",
    "derived_answerable",
    "f1_at_half",
    "lmms_eval_vizwiz_accuracy",
    "official_accuracy",
]


def official_accuracy(prediction: str, references: Sequence[str], image: object = None) -> float:
    """VizWiz ``vqaEval.evaluate``: only the prediction is normalized; position leave-one-out
    against the raw answers; ``float(sum(accs)) / len(accs)``.

    QUIRK raw-ground-truth: ``Coca Cola``, ``milk `` or ``don't know`` in the answers are
    compared as written, so no prediction can match them (the prediction is lower-cased,
    stripped, loses its articles and gets the curly ``don’t``). QUIRK naive-sum: ``sum()`` is
    emulated left to right (CPython ≤ 3.11). No answer count is asserted; zero answers is an
    error (the script divides by zero).
    """
    if not references:
        where = f"image {image!r}" if image is not None else "a question"
        raise InputError(f"{where} has no answers (VizWiz's vqaEval.py divides by zero)")
    p = vizwiz_prediction(prediction)
    values = leave_one_out_values([a == p for a in references], None, "position")
    return average(values, "naive")


def lmms_eval_vizwiz_accuracy(prediction: str, references: Sequence[str]) -> float:
    """lmms-eval ``vizwiz_vqa_process_results``: as its TextVQA (MMF processor on both sides,
    position leave-one-out, ``statistics.mean``); no answers gives ``0``."""
    if not references:
        return 0.0
    return lmms_eval_accuracy(prediction, references)


def derived_answerable(answer: str) -> int:
    """TRI vlm-evaluation's answerability from the text: ``0`` when the normalized answer is
    exactly ``unanswerable``, else ``1`` (so ``It is unanswerable`` counts as answerable)."""
    return int(vizwiz_prediction(answer) != "unanswerable")


# ------------------------------------------------------------------------------ answerability


def average_precision(y_true: Sequence[int], y_score: Sequence[float]) -> float:
    r"""scikit-learn's ``average_precision_score`` for binary labels, reproduced bit for bit.

    .. math::

        \mathrm{AP} = \sum_k (R_k - R_{k-1})\, P_k

    over the distinct score thresholds in decreasing order (tied scores form one step), with
    :math:`P_k`, :math:`R_k` the precision and recall at threshold *k* and :math:`R_0 = 0`.
    The terms are summed in scikit-learn's order with numpy's pairwise sum, negated and
    clipped at 0. Without any positive label, recall is taken as 1 (scikit-learn warns) and
    the result is 0.

    >>> average_precision([0, 0, 1, 1, 0], [0.1, 0.6, 0.8, 0.4, 0.3])
    0.8333333333333333
    """
    n = len(y_true)
    if n != len(y_score):
        raise ValueError("y_true and y_score must have the same length")
    if n == 0:
        raise ValueError("average precision of no samples")
    order = sorted(range(n), key=lambda i: y_score[i], reverse=True)
    tps: list[float] = []
    fps: list[float] = []
    tp = 0
    for rank, i in enumerate(order):
        tp += 1 if y_true[i] else 0
        last = rank == n - 1
        if last or y_score[order[rank + 1]] != y_score[i]:
            tps.append(float(tp))
            fps.append(float(rank + 1 - tp))
    total = tps[-1]
    precision = [t / (t + f) if t + f else 0.0 for t, f in zip(tps, fps, strict=True)]
    recall = [t / total for t in tps] if total else [1.0] * len(tps)
    # precision_recall_curve reverses both and appends (1, 0); AP = -sum(diff(R) * P[:-1])
    p_rev = precision[::-1]
    r_rev = [*recall[::-1], 0.0]
    terms = [(r_rev[i + 1] - r_rev[i]) * p_rev[i] for i in range(len(p_rev))]
    return max(0.0, -pairwise_sum(terms))


def f1_at_half(y_true: Sequence[int], y_score: Sequence[float]) -> float:
    """scikit-learn ``f1_score(y_true, y_score > 0.5)``: ``2·tp / (positives + predicted)``;
    a score of exactly 0.5 is *not* predicted positive; 0/0 gives 0.0 (scikit-learn warns)."""
    pred = [s > 0.5 for s in y_score]
    tp = sum(1 for t, p in zip(y_true, pred, strict=True) if t and p)
    denom = 1.0 * sum(1 for t in y_true if t) + sum(pred)
    return 2.0 * tp / denom if denom else 0.0


def _answerability(items: Sequence[Item]) -> dict[str, float] | None:
    if not items or any("pred_answerable" not in it.fields for it in items):
        return None
    gt_n = [1 - int(it.fields["answerable"]) for it in items]
    pred_n = [1.0 - float(it.fields["pred_answerable"]) for it in items]
    return {
        "average_precision": 100 * average_precision(gt_n, pred_n),
        "f1_score": 100 * f1_at_half(gt_n, pred_n),
    }


# -------------------------------------------------------------------------------- aggregation


def _percent_of_sum(scores: Sequence[float]) -> float:
    # setAccuracy: 100*float(sum(accQA))/len(accQA), sum left to right
    total = 0.0
    for s in scores:
        total += s
    return 100 * total / len(scores)


def _official_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    groups: dict[str, list[float]] = {}
    for it, s in zip(items, scores, strict=True):
        t = it.fields.get("answer_type")
        if t is not None:
            groups.setdefault(str(t), []).append(s)
    metrics: dict[str, float | int] = {
        "overall": _percent_of_sum(scores) if scores else 0.0,
        "n": len(scores),
    }
    notes: tuple[str, ...] = ()
    ans = _answerability(items)
    if ans is not None:
        metrics.update(ans)
    else:
        notes = ("answerability not computed: the results carry no 'answerable' score",)
    per_type = {t: {"accuracy": _percent_of_sum(v), "n": len(v)} for t, v in groups.items()}
    return Aggregate(
        metrics=metrics,
        headline="overall",
        units="percent",
        digits=2,
        breakdowns={"perAnswerType": per_type} if per_type else {},
        notes=notes,
    )


_lmms_aggregate = mean_aggregate("exact_match")
_vlm_aggregate = mean_aggregate(
    "Overall", average=numpy_mean, scale=100.0, units="percent", digits=2
)


def _official_detail(item: Item) -> Mapping[str, Any]:
    """The normalized prediction and ``evalQA[image]``: the score as the script stores it,
    ``round(100 * acc, 2)``."""
    assert item.prediction is not None
    acc = official_accuracy(item.prediction, item.references, item.id)
    return {"normalized": vizwiz_prediction(item.prediction), "evalQA": round(100 * acc, 2)}


# ------------------------------------------------------------------------------------ reading


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


def _read_annotations(inputs: TaskInputs) -> tuple[list[Item], tuple[str, ...]]:
    """The official annotation list ``[{image, question, answers: [{answer,
    answer_confidence}], answer_type, answerable}]``."""
    records = read_records(inputs.annotations, rows_key="annotations")
    items = []
    for i, row in enumerate(records.rows):
        where = records.where(i)
        for key in ("image", "answers"):
            if key not in row:
                raise InputError(
                    f"{where}: no {key!r} field; expected VizWiz's annotation list "
                    "[{image, question, answers, answer_type, answerable}]"
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
    check_unique(
        [it.id for it in items], [records.where(i) for i in range(len(items))], what="image"
    )
    return items, (records.source,)


def _read(inputs: TaskInputs) -> TaskData:
    if inputs.questions is not None:
        raise InputError("vizwiz: --questions is not used: the annotations carry the questions")
    records = read_records(inputs.results, format=inputs.format)
    preds = lmms_eval_predictions(records, inputs)
    if preds is not None:
        return require_answers(_read_lmms_eval(inputs, preds), "image")
    if inputs.annotations is None:
        return require_answers(_read_vlmevalkit_sheet(inputs, records), "index")
    return require_answers(_read_official(inputs, records), "image")


#: the item fields kept from a VLMEvalKit sheet
_SHEET_FIELDS = ("category", "answer_type")


def _read_vlmevalkit_sheet(inputs: TaskInputs, records: Records) -> TaskData:
    """A VLMEvalKit VizWiz sheet, scored against the ground truth it carries.

    VLMEvalKit's ``VizWiz.tsv`` names that column ``answers`` (``VizWiz.evaluate`` asserts it
    and copies it to ``answer``); a sheet with ``answers`` and no ``answer`` is read the same
    way, its rows handed on in memory with the file still named as the source.
    """
    columns = set(records.columns)
    if "answers" not in columns or "answer" in columns:
        return read_vlmevalkit(inputs, fields=_SHEET_FIELDS, records=records)
    rows = [{("answer" if k == "answers" else k): v for k, v in r.items()} for r in records.rows]
    data = read_vlmevalkit(replace(inputs, results=rows, format=None), fields=_SHEET_FIELDS)
    reported = find_reported(inputs.results)
    return replace(
        data,
        sources=(records.source,),
        layouts=(f"vlmevalkit ({records.layout})",),
        reported={"source": reported[0], "values": reported[1]} if reported else None,
    )


def _read_official(
    inputs: TaskInputs, records: Records, preds: Predictions | None = None
) -> TaskData:
    """The official annotation list joined by image to the official results list (or to
    *preds*, the results' predictions keyed by image when the caller has read them)."""
    gt_items, gt_sources = _read_annotations(inputs)
    if preds is None:
        preds = predictions_from(
            records, id_field=inputs.id_field, answer_field=inputs.answer_field
        )
    joined = join_by_id(
        [it.id for it in gt_items],
        preds.ids,
        preds.texts,
        source=records.source,
        wheres=preds.wheres,
        allow_missing=inputs.allow_missing,
        ignore_extra=inputs.ignore_extra,
        on_duplicate=inputs.on_duplicate,
        what="image",
    )
    carried = [i for i, row in enumerate(records.rows) if "answerable" in row]
    flags: dict[str, float] = {}
    notes: list[str] = []
    if carried and len(carried) != len(records.rows):
        first = next(i for i, row in enumerate(records.rows) if "answerable" not in row)
        raise InputError(
            f"{preds.wheres[first]}: no 'answerable' score, while {len(carried)} other "
            "result(s) carry one (answerability needs it on every result)"
        )
    if carried:
        for i, row in enumerate(records.rows):
            flags[str(preds.ids[i])] = _flag(row["answerable"], preds.wheres[i], "answerable")
        if any("answerable" not in it.fields for it in gt_items):
            first_gt = next(it for it in gt_items if "answerable" not in it.fields)
            raise InputError(
                f"{gt_sources[0]}: image {first_gt.id!r} has no 'answerable' label, which "
                "answerability needs"
            )
        if joined.missing:
            notes.append("answerability not computed: some images have no result")
    items = []
    for it, p in zip(gt_items, joined.predictions, strict=True):
        fields = dict(it.fields)
        if carried and not joined.missing:
            fields["pred_answerable"] = flags[str(it.id)]
        items.append(Item(it.id, p, it.references, fields))
    if joined.missing:
        notes.append(f"{len(joined.missing)} image(s) had no prediction and scored 0")
    if joined.extra:
        notes.append(f"{len(joined.extra)} result(s) for unknown images were ignored")
    return TaskData(
        items,
        (*gt_sources, records.source),
        ("vizwiz-annotations", preds.layout),
        tuple(notes),
        n_missing=len(joined.missing),
        n_extra_ignored=len(joined.extra),
    )


# ------------------------------------------------------------------------- lmms-eval logs

#: ``vizwiz_vqa_process_results`` returns ``{"exact_match": acc, "submission": {...}}``
#: (lmms-eval@75571cf ``lmms_eval/tasks/vizwiz_vqa/utils.py``)
LMMS_EVAL_METRICS = ("exact_match",)

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


def _read_lmms_eval(inputs: TaskInputs, preds: Predictions) -> TaskData:
    """An lmms-eval ``--log_samples`` file (task ``vizwiz_vqa_val``).

    With ``doc`` (``question_id``, ``question``, ``answers``, ``category``): scored against
    ``doc.answers``, each item keyed by its image ``{question_id}.jpg``; given
    ``--annotations`` as well, joined to them by that image, the annotations winning.
    Without ``doc``: ``--annotations`` joined by position (``doc_id`` *i* = the *i*-th
    annotation). lmms-eval logs no answerability, so it is never computed here.
    """
    source = preds.source
    if not has_docs(preds):
        if inputs.annotations is None:
            raise no_doc_error(
                source,
                "--annotations val.json (VizWiz's annotations, joined by position: doc_id i = "
                "its i-th question)",
            )
        gt_items, gt_sources = _read_annotations(inputs)
        # QUIRK unrendered-target: the logged target is the text "answer", never an answer;
        # it is left out so the positional join does not count it as a disagreement
        rows = [
            {k: v for k, v in row.items() if not (k == "target" and v == _UNRENDERED_TARGET)}
            for row in preds.records.rows
        ]
        bare = replace(preds, records=replace(preds.records, rows=rows))
        joined, note, n_absent = positional_items(
            bare,
            gt_items,
            gt_sources[0],
            sample_metrics=LMMS_EVAL_METRICS,
            allow_missing=inputs.allow_missing,
        )
        notes = [note]
        if n_absent:
            notes.append(f"{n_absent} image(s) had no prediction and scored 0")
        return TaskData(
            joined,
            (*gt_sources, source),
            ("vizwiz-annotations", preds.layout),
            tuple(notes),
            reported_scores(inputs),
            n_missing=n_absent,
        )
    own = lmms_eval_items(
        preds,
        id_keys=(),
        references=_doc_answers,
        fields=("question", "category"),
        sample_metrics=LMMS_EVAL_METRICS,
    )
    images = [
        _image_of(row["doc"], w) for row, w in zip(preds.records.rows, preds.wheres, strict=True)
    ]
    own = [
        replace(it, id=image, fields={**it.fields, "image": image})
        for it, image in zip(own, images, strict=True)
    ]
    check_unique(images, preds.wheres, what="image (doc.question_id)")
    if inputs.annotations is None:
        note = _PROCESSED_NOTE.format(source=source)
        return TaskData(own, (source,), (preds.layout,), (note,), reported_scores(inputs))
    keyed = replace(preds, ids=list(images))
    data = _read_official(inputs, preds.records, keyed)
    by_image = {it.id: it for it in own}
    items = []
    differ = []
    for it in data.items:
        mine = by_image.get(it.id)
        if mine is None:
            items.append(it)
            continue
        # the doc's answers are processed (see _PROCESSED_NOTE): compared after processing
        if [evalai_answer_processor(a) for a in it.references] != [
            evalai_answer_processor(a) for a in mine.references
        ]:
            differ.append(it.id)
        fields = dict(it.fields)
        if TOOLKIT_SCORE in mine.fields:
            fields[TOOLKIT_SCORE] = mine.fields[TOOLKIT_SCORE]
        items.append(replace(it, fields=fields))
    notes = list(data.notes)
    if differ:
        shown = ", ".join(repr(q) for q in differ[:3])
        notes.append(
            f"{len(differ)} image(s) of {source} carry doc.answers that differ from the "
            f"annotations after MMF's answer processing (e.g. {shown}); the annotations were used"
        )
    return replace(data, items=items, notes=tuple(notes), reported=reported_scores(inputs))


# ------------------------------------------------------------------------------------ profiles

OFFICIAL = TaskProfile(
    name="official",
    description="VizWiz-VQA API vqaEval.py: prediction-only normalization (2015 curly "
    "contractions), raw answers, position leave-one-out; answerability AP and F1",
    reproduces="VizWiz-VQA API vqaEval.py (Qing Li, vizwiz.org; copy TRI-ML/vlm-evaluation@"
    "d9f5896 vlm_eval/util/evaluation/vizwiz/eval.py)",
    toolkit="vizwiz-vqaEval@2015",
    score=official_accuracy,
    aggregate=_official_aggregate,
    context=("image",),
    detail=_official_detail,
)

LMMS_EVAL = TaskProfile(
    name="lmms-eval",
    description="lmms-eval vizwiz_vqa: MMF's answer processor on both sides, position "
    "leave-one-out, statistics.mean; exact_match, a fraction; no answerability",
    reproduces="EvolvingLMMs-Lab/lmms-eval@75571cf lmms_eval/tasks/vizwiz_vqa/utils.py",
    toolkit="lmms-eval@0.7.3",
    score=lmms_eval_vizwiz_accuracy,
    aggregate=_lmms_aggregate,
)

VLMEVALKIT = TaskProfile(
    name="vlmevalkit",
    description="VLMEvalKit VizWiz at HEAD: process_answer on both sides (real look-behind "
    "period rule), np.mean per question, Overall = np.mean × 100",
    reproduces="open-compass/VLMEvalKit@e8e78f0 dataset/image_vqa.py VizWiz",
    toolkit="VLMEvalKit@e8e78f0",
    score=vlmevalkit_accuracy,
    aggregate=_vlm_aggregate,
)

VLMEVALKIT_2024 = TaskProfile(
    name="vlmevalkit-2024",
    description="VLMEvalKit VizWiz before 2025-05-13: as vlmevalkit with the official period "
    "pattern (2. → 2)",
    reproduces="open-compass/VLMEvalKit before 928a95b (2025-05-13)",
    toolkit="VLMEvalKit@pre-928a95b",
    score=vlmevalkit_2024_accuracy,
    aggregate=_vlm_aggregate,
)

TASK = register_task(
    Task(
        name="vizwiz",
        title="VizWiz-VQA",
        metric="vizwiz-acc",
        description="soft accuracy on blind users' questions, raw answers; answerability "
        "AP / F1 when the results carry 'answerable'",
        profiles=(OFFICIAL, LMMS_EVAL, VLMEVALKIT, VLMEVALKIT_2024),
        read=_read,
        layouts=(
            "annotations: official list [{image, question, answers: [{answer, "
            "answer_confidence}], answer_type, answerable}]",
            "results: official list [{image, answer, answerable?}] (JSON or JSONL)",
            "results: VLMEvalKit spreadsheet (index, question, answer, prediction) — "
            "--annotations optional",
            "results: lmms-eval --log_samples JSONL (doc.question_id, doc.answers, "
            "filtered_resps) — --annotations optional; without doc, joined by position",
        ),
        aliases=("vizwiz-vqa", "vizwiz_vqa"),
        annotations_optional=True,
        note="the official vqaEval.py is a download on vizwiz.org, not on GitHub",
        reported_names=LMMS_EVAL_REPORTED,
    )
)
