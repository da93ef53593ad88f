r"""TextVQA: questions that need reading the text in the image, scored by soft VQA accuracy.

No standalone scorer was published by the dataset authors; the reference every paper uses is
MMF's M4C ``TextVQAAccuracyEvaluator`` (LLaVA copies it verbatim), so that is ``official``
(spec vqa-family §2). Per question, with :math:`a_1..a_{10}` the processed answers and
:math:`p` the processed prediction:

.. math::

    \mathrm{acc} = \frac{1}{10}\sum_{i=1}^{10}\min\Bigl(1, \frac{|\{j \ne i : a_j = p\}|}{3}\Bigr)

and the dataset score is the mean over questions (a fraction; LLaVA prints it ×100).

Profiles: ``official`` (MMF), ``llava`` (the same scorer, printed as LLaVA prints it),
``lmms-eval`` (same processor, exact ``statistics.mean``, no answer-count assert),
``vlmevalkit`` / ``vlmevalkit-2024`` (VLMEvalKit's ``process_answer`` on both sides, ``np.mean``;
before / after its 2025-05-13 period regex), ``qwen-vl`` (the pre-2021 VQA v2 flow).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

from ..aggregate.formulas import naive_sum
from ..core.exceptions import InputError
from ..core.toolkits import LMMS_EVAL as LMMS_EVAL_PIN
from ..core.toolkits import QWEN_VL as QWEN_VL_PIN
from ..core.toolkits import VLMEVALKIT as VLMEVALKIT_PIN
from ..kernels.accuracy import vqa_accuracy
from ..kernels.vqa import average, leave_one_out_values
from ..normalize.mmf import evalai_answer_processor
from ..normalize.official import clean, digits_articles
from ..normalize.official import punctuation as official_punctuation
from ..normalize.vlmevalkit import punctuation_vlm
from ..readers.answers import require_answers
from ..readers.detect import Layouts, LogLayout, positional_data
from ..readers.join import check_unique, join_inputs, unique_rows
from ..readers.layouts import is_lmms_eval_log
from ..readers.records import Records, read_records
from . import register_task
from ._base import Aggregate, Item, Task, TaskData, TaskInputs, TaskProfile
from ._common import (
    found_instead,
    id_key,
    mean_aggregate,
    numpy_mean,
    read_vlmevalkit,
    reported_scores,
    text_predictions,
    vlmevalkit_breakdown,
)
from ._explain import (
    MMF_STEPS,
    VLM_2024_STEPS,
    VLM_STEPS,
    soft_explainer,
    vqa_profile_explainer,
)
from ._lmms import (
    clean_samples,
    drop_empty,
    has_docs,
    lmms_eval_items,
)

__all__ = [
    "AnswerCountError",
    "llava_question",
    "lmms_eval_accuracy",
    "mmf_accuracy",
    "qwen_vl_accuracy",
    "require_answers",
    "vlmevalkit_2024_accuracy",
    "vlmevalkit_accuracy",
]

#: MMF's ``_compute_answer_scores`` asserts this many answers per question.
MMF_ANSWERS = 10


class AnswerCountError(InputError):
    """A question has not exactly ten answers, which MMF's evaluator asserts."""


def _position_loo(prediction: str, answers: Sequence[str], how: str) -> float:
    """Mean of ``min(1, k_i/3)`` with annotator *i* left out by list position."""
    matches = tuple(a == prediction for a in answers)
    if how == "exact":
        # statistics.mean does not depend on the order: only on m and N
        return _exact_loo(sum(matches), len(matches))
    return _ordered_loo(matches, how)


@lru_cache(maxsize=4096)
def _ordered_loo(matches: tuple[bool, ...], how: str) -> float:
    """The left-to-right (``naive``) or pairwise (``numpy``) mean of the leave-one-out values;
    its last bits depend on where the matches sit, so the cache key is the whole pattern."""
    return average(leave_one_out_values(matches, None, "position"), how)


@lru_cache(maxsize=1024)
def _exact_loo(m: int, n: int) -> float:
    """``statistics.mean`` of the N leave-one-out values when m answers match: m values
    ``min(1, (m-1)/3)`` and N-m values ``min(1, m/3)``, summed exactly, rounded once."""
    return average(leave_one_out_values([True] * m + [False] * (n - m), None, "position"), "exact")


def mmf_accuracy(prediction: str, references: Sequence[str], question_id: object = None) -> float:
    """MMF ``TextVQAAccuracyEvaluator``: both sides through ``EvalAIAnswerProcessor``, position
    leave-one-out, builtin ``sum`` / 10.

    QUIRK assert-ten: MMF asserts exactly 10 answers; anything else raises
    :class:`AnswerCountError` naming the question (lmms-eval and VLMEvalKit average over
    whatever is there). QUIRK naive-sum: ``sum()`` is emulated left to right, as on CPython
    ≤ 3.11 where the published numbers were made (2 matches at positions 8, 9 give
    ``0.5999999999999999``; CPython ≥ 3.12 would give ``0.6``).
    """
    if len(references) != MMF_ANSWERS:
        where = f"question {question_id!r}" if question_id is not None else "a question"
        n = len(references)
        raise AnswerCountError(
            f"{where} has {n} answer{'s' if n != 1 else ''}; TextVQA's official scorer (MMF) "
            f"asserts exactly {MMF_ANSWERS} (the lmms-eval and vlmevalkit profiles accept any "
            "number)"
        )
    p = evalai_answer_processor(prediction)
    answers = [evalai_answer_processor(a) for a in references]
    return _position_loo(p, answers, "naive")


def lmms_eval_accuracy(prediction: str, references: Sequence[str]) -> float:
    """lmms-eval ``textvqa_process_results``: the MMF processor on both sides, position
    leave-one-out, ``statistics.mean`` (exact rational mean, rounded once); no count assert."""
    if not references:
        raise InputError("a question with no answers (lmms-eval raises StatisticsError)")
    p = evalai_answer_processor(prediction)
    answers = [evalai_answer_processor(a) for a in references]
    return _position_loo(p, answers, "exact")


@lru_cache(maxsize=1 << 16)
def _vlm_process(text: str) -> str:
    # VLMEvalKit process_answer at HEAD: cleanup, PUNCT_vlm (real look-behind), DIGART
    return digits_articles(punctuation_vlm(clean(text)))


@lru_cache(maxsize=1 << 16)
def _vlm_process_2024(text: str) -> str:
    # VLMEvalKit process_answer before 928a95b (2025-05-13): the official period pattern
    return digits_articles(official_punctuation(clean(text)))


def _vlm_score(process: Callable[[str], str], prediction: str, refs: Sequence[str]) -> float:
    if not refs:
        return float("nan")  # np.mean([]) is nan
    p = process(prediction)
    return _position_loo(p, [process(a) for a in refs], "numpy")


def vlmevalkit_accuracy(prediction: str, references: Sequence[str]) -> float:
    """VLMEvalKit ``process_line(method='vqa_score')`` at e8e78f0: ``process_answer`` on both
    sides (no lower/``,``/``?``/``'s`` prelude), position leave-one-out, ``np.mean``.

    QUIRK corrected-period-rule (since 928a95b, 2025-05-13): ``2.`` keeps its period and scores 0
    against ten ``2``.
    """
    return _vlm_score(_vlm_process, prediction, references)


def vlmevalkit_2024_accuracy(prediction: str, references: Sequence[str]) -> float:
    """VLMEvalKit before 2025-05-13: as :func:`vlmevalkit_accuracy` with the official period
    pattern (``2.`` → ``2``); the version behind most published VLMEvalKit TextVQA numbers."""
    return _vlm_score(_vlm_process_2024, prediction, references)


def qwen_vl_accuracy(prediction: str, references: Sequence[str]) -> float:
    """Qwen-VL ``evaluate_vqa.py`` (textvqa_val): the pre-2021 VQA v2 flow (profile
    ``official-2017``): the prediction always normalized, the answers get the punctuation step
    only and only when they are not unanimous, so a unanimous raw answer with capitals or a
    trailing space (``"bowmore "``) can never match.

    Leave-one-out: the VQA script's record inequality; TextVQA converted to the VQA layout
    carries one ``answer_id`` per answer, which makes it leave-one-out by position.
    """
    return vqa_accuracy(prediction, list(references), profile="official-2017")


# ----------------------------------------------------------------------------- aggregation


# eval_pred_list: sum(pred_scores) / len(pred_scores), a fraction
_official_aggregate = mean_aggregate("accuracy")
# eval_textvqa.py: print('Accuracy: {:.2f}%'.format(100. * evaluator.eval_pred_list(...)))
_llava_aggregate = mean_aggregate("accuracy", scale=100.0, units="percent", digits=2)
# lmms-eval aggregation "mean": sum(arr) / len(arr), a fraction; its table shows 4 digits
_lmms_aggregate = mean_aggregate("exact_match")


def _vlm_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    # ImageVQADataset.evaluate: per split when the file has one, else Overall + categories;
    # np.mean(hits) * 100 (the ret.round(2) result is discarded, so nothing is rounded)
    breakdowns: dict[str, Mapping[str, Mapping[str, float | int]]] = {}
    for field in ("split", "category"):
        groups = vlmevalkit_breakdown(items, scores, field)
        if groups:
            breakdowns[field] = groups
            break  # a file with a split column gets no per-category numbers
    return Aggregate(
        metrics={"Overall": numpy_mean(scores) * 100, "n": len(scores)},
        headline="Overall",
        units="percent",
        breakdowns=breakdowns,
    )


def _qwen_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    # vqaEval.setAccuracy: round(100*float(sum(accQA))/len(accQA), 2); unrounded here
    overall = 100 * naive_sum(scores) / len(scores) if scores else 0.0
    return Aggregate(
        metrics={"overall": overall, "n": len(scores)},
        headline="overall",
        units="percent",
    )


def _mmf_detail(item: Item) -> Mapping[str, Any]:
    assert item.prediction is not None
    return {"normalized": evalai_answer_processor(item.prediction)}


def _vlm_detail(item: Item) -> Mapping[str, Any]:
    assert item.prediction is not None
    return {"normalized": _vlm_process(item.prediction)}


def _vlm_2024_detail(item: Item) -> Mapping[str, Any]:
    assert item.prediction is not None
    return {"normalized": _vlm_process_2024(item.prediction)}


# MMF: the processor on both sides, left-to-right sum / 10
_explain_mmf = soft_explainer(MMF_STEPS, "naive")
_explain_lmms = soft_explainer(MMF_STEPS, "exact")
_explain_vlm = soft_explainer(VLM_STEPS, "numpy")
_explain_vlm_2024 = soft_explainer(VLM_2024_STEPS, "numpy")


# ----------------------------------------------------------------------------------- reading


def _read_annotations(inputs: TaskInputs) -> tuple[list[Item], tuple[str, ...]]:
    """The official TextVQA file ``{"dataset_type", …, "data": [{question_id, question,
    image_id, answers}]}`` (a plain list of such rows is accepted too)."""
    source = inputs.annotations
    if isinstance(source, Mapping) and isinstance(source.get("data"), list):
        source = source["data"]  # the official layout, already loaded
    records = read_records(source, rows_key="data")
    if "mapping" in records.layout and records.header is None:
        keys = ", ".join(str(r.get("question_id")) for r in records.rows[:6])
        raise InputError(
            f"{records.source}: not TextVQA's annotation layout (a JSON object with keys "
            f'{keys}); expected {{"data": [{{question_id, question, image_id, answers}}]}}'
        )
    if not records.rows:
        raise InputError(f"{records.source}: no questions in the annotations")
    items = []
    for i, row in enumerate(records.rows):
        where = records.where(i)
        for key in ("question_id", "answers"):
            if key not in row:
                hint = found_instead(row, key) if key == "answers" else ""
                if key == "answers" and not hint:
                    hint = " (the test split has no answers)"
                raise InputError(
                    f"{where}: no {key!r} field{hint}; expected TextVQA's official layout "
                    '{"data": [{question_id, question, image_id, answers}]}'
                )
        answers = row["answers"]
        if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
            raise InputError(
                f"{where}: question {row['question_id']!r}: 'answers' must be a list of strings"
            )
        qid = row["question_id"]
        if not isinstance(qid, str | int) or isinstance(qid, bool):
            raise InputError(f"{where}: question_id is {type(qid).__name__}, expected an id")
        fields = {k: row[k] for k in ("image_id", "question") if isinstance(row.get(k), str)}
        fields["question_id"] = qid
        items.append(Item(qid, None, tuple(answers), fields))
    wheres = [records.where(i) for i in range(len(items))]
    keep = check_unique([it.id for it in items], wheres, on_duplicate=inputs.on_duplicate)
    return [items[i] for i in keep], (records.source,)


#: ``prompt_processor`` of LLaVA's ``eval_textvqa.py`` for prompts that start with OCR tokens
_OCR_QUESTION = re.compile(r"Question: (.*?) Short answer:", re.DOTALL)
_REF_MARKER = "Reference OCR token: "


def llava_question(prompt: str, where: str = "<prompt>") -> str:
    """The question LLaVA's ``eval_textvqa.py`` recovers from a prompt, lower-cased.

    A prompt starting ``OCR tokens: `` gives the text between ``Question: `` and
    `` Short answer:``; a 3-line prompt containing ``Reference OCR token: `` gives its second
    line if it starts with that marker, else its first line; a 2-line prompt gives its first
    line. Any other shape is an error (LLaVA asserts), naming *where*.

    >>> llava_question("What is this?\\nReference OCR token: A, B\\nAnswer briefly.")
    'what is this?'
    """
    if prompt.startswith("OCR tokens: "):
        m = _OCR_QUESTION.search(prompt)
        if m is None:
            raise InputError(
                f"{where}: prompt starts with 'OCR tokens: ' but has no "
                "'Question: … Short answer:' (LLaVA's eval_textvqa.py cannot read it)"
            )
        return m.group(1).lower()
    lines = prompt.split("\n")
    if _REF_MARKER in prompt and len(lines) == 3:
        return (lines[1] if prompt.startswith(_REF_MARKER) else lines[0]).lower()
    if len(lines) == 2:
        return lines[0].lower()
    raise InputError(
        f"{where}: a prompt of {len(lines)} line(s) that LLaVA's eval_textvqa.py cannot "
        "recover the question from (expected 'OCR tokens: … Question: … Short answer:', "
        "3 lines with 'Reference OCR token: ', or 2 lines)"
    )


def _is_llava(records: Records) -> bool:
    if records.forced is not None:  # --input-format names the layout
        return records.forced == "llava-answers"
    cols = set(records.columns)
    return {"question_id", "prompt", "text"} <= cols


def _join_llava(
    inputs: TaskInputs, records: Records, gt_items: list[Item], gt_sources: tuple[str, ...]
) -> TaskData:
    """LLaVA's join (spec §15): key = (image id in ``question_id``, the question recovered
    from ``prompt``, lower-cased) against (``image_id``, ``question.lower()``)."""
    preds = text_predictions(
        records, id_field="question_id", answer_field="text", allow_missing_answer=True
    )
    preds = drop_empty(preds, inputs.allow_missing)
    records = preds.records  # the rows the predictions were kept from
    keys: list[tuple[str, str]] = []
    for i, row in enumerate(records.rows):
        prompt = row.get("prompt")
        if not isinstance(prompt, str):
            raise InputError(f"{preds.wheres[i]}: 'prompt' is not text")
        keys.append((str(preds.ids[i]), llava_question(prompt, preds.wheres[i])))
    gt_keys: list[tuple[str, str]] = []
    for it in gt_items:
        img, q = it.fields.get("image_id"), it.fields.get("question")
        if img is None or q is None:
            raise InputError(
                f"{gt_sources[0]}: question {it.id!r} has no image_id or question, which "
                "LLaVA's join needs"
            )
        gt_keys.append((str(img), str(q).lower()))
    by_key: dict[tuple[str, str], Any] = {}
    for it, key in zip(gt_items, gt_keys, strict=True):
        if key in by_key:
            raise InputError(
                f"{gt_sources[0]}: questions {by_key[key]!r} and {it.id!r} share image "
                f"{key[0]!r} and question {key[1]!r}; LLaVA's join cannot tell them apart"
            )
        by_key[key] = it.id
    joined = join_inputs(gt_keys, preds, inputs, ids=keys, what="(image id, question)")
    items = [
        Item(it.id, p, it.references, it.fields)
        for it, p in zip(gt_items, joined.predictions, strict=True)
    ]
    return _data(items, gt_sources, records, f"llava-answers ({records.layout})", joined)


def _data(
    items: list[Item], gt_sources: tuple[str, ...], records: Records, layout: str, joined: Any
) -> TaskData:
    notes = []
    if joined.missing:
        notes.append(f"{len(joined.missing)} question(s) had no prediction and scored 0")
    if joined.extra:
        notes.append(f"{len(joined.extra)} prediction(s) for unknown questions were ignored")
    return TaskData(
        items,
        (*gt_sources, records.source),
        ("textvqa-json", layout),
        tuple(notes),
        n_missing=len(joined.missing),
        n_extra_ignored=len(joined.extra),
    )


#: lmms-eval textvqa/utils.py process_results writes exact_match per sample
TOOLKIT_LAYOUTS = Layouts(log=LogLayout(metrics=("exact_match",)))


def _spreadsheet(source: Any) -> bool:
    if not isinstance(source, str | os.PathLike):
        return False
    name = os.fspath(source).lower().removesuffix(".gz")
    return name.endswith((".xlsx", ".tsv", ".csv"))


def _read(inputs: TaskInputs) -> TaskData:
    if inputs.questions is not None:
        raise InputError(
            "textvqa: --questions is not used: the annotations carry the questions, and a "
            "LLaVA answers file carries its prompts (LLaVA's question file is not needed)"
        )
    custom = bool(inputs.id_field or inputs.answer_field)
    sheet: Records | None = None  # the rows read already, handed on (keeping their format)
    if not _spreadsheet(inputs.results) and not custom:
        # a LLaVA answers file is joined its own way; everything else by id (below)
        records = read_records(inputs.results, format=inputs.format)
        if _is_llava(records):
            if inputs.annotations is None:
                raise InputError(
                    f"{records.source}: LLaVA answers need the ground truth: pass "
                    "--annotations TextVQA_0.5.1_val.json"
                )
            gt_items, gt_sources = _read_annotations(inputs)
            return require_answers(_join_llava(inputs, records, gt_items, gt_sources))
        if isinstance(inputs.results, str) and inputs.results == "-":
            # standard input can be read only once: hand on the rows already read (a forced
            # layout still applies to them; a file format means nothing in memory)
            inputs = replace(inputs, results=records.rows)
        sheet = records
        positional = _lmms_eval_by_position(inputs, records)
        if positional is not None:
            return require_answers(positional)
        lmms = _lmms_eval_samples(inputs, records)
        if lmms is not None:
            if inputs.annotations is None:
                return require_answers(lmms)
            # joined to the annotations by the doc's question_id (the annotations win)
            rows = [{"question_id": it.id, "answer": it.prediction} for it in lmms.items]
            data = read_vlmevalkit(
                replace(inputs, results=rows, format=None),
                fields=("category", "split"),
                annotations_reader=_read_annotations,
            )
            return require_answers(_keep_lmms_eval(data, lmms))
    # official results, or a VLMEvalKit spreadsheet (ground truth inside, or joined by index)
    reader = _read_annotations if inputs.annotations is not None else None
    data = read_vlmevalkit(
        inputs, fields=("category", "split"), annotations_reader=reader, records=sheet
    )
    if reader is not None:
        # name the annotations' layout too, as the LLaVA join does
        data = replace(data, layouts=("textvqa-json", *data.layouts))
    return require_answers(data)


def _keep_lmms_eval(data: TaskData, lmms: TaskData) -> TaskData:
    """*data* (the log's predictions joined to the annotations) with what the log brought:
    its layout's name, the toolkit's per-sample metric for the per-sample check, and the
    numbers lmms-eval reported beside it."""
    from ._lmms import TOOLKIT_SCORE

    recorded = {
        id_key(it.id): it.fields[TOOLKIT_SCORE] for it in lmms.items if TOOLKIT_SCORE in it.fields
    }
    items = [
        replace(it, fields={**it.fields, TOOLKIT_SCORE: recorded[id_key(it.id)]})
        if id_key(it.id) in recorded
        else it
        for it in data.items
    ]
    return replace(
        data,
        items=items,
        sources=(*data.sources[:-1], *lmms.sources),
        layouts=("textvqa-json", *lmms.layouts),
        # the log's notes but the first (its processed answers: the annotations were used)
        notes=(*data.notes, *lmms.notes[1:]),
        reported=data.reported or lmms.reported,
    )


def _lmms_eval_by_position(inputs: TaskInputs, records: Records) -> TaskData | None:
    """An lmms-eval log without ``doc`` (newer releases log only ``doc_id``/``target``):
    ``--annotations`` joined by position (``doc_id`` *i* = the *i*-th question), said in a
    note; ``None`` for any other file."""
    if not is_lmms_eval_log(records):
        return None
    preds = text_predictions(records, allow_missing_answer=True)
    if has_docs(preds):
        return None
    preds, finish = clean_samples(preds, inputs, alone=False)
    if inputs.annotations is None:
        raise InputError(
            f"{records.source}: this lmms-eval log has no 'doc' (the dataset rows) and its "
            "per-sample record holds no reference answers (only exact_match), so no ground "
            "truth; pass --annotations TextVQA_0.5.1_val.json (joined by position: doc_id i = "
            "its i-th question)"
        )
    gt_items, gt_sources = _read_annotations(inputs)
    return finish(
        positional_data(
            preds,
            inputs,
            gt_items,
            gt_sources,
            TOOLKIT_LAYOUTS.log,
            truth_name=gt_sources[0],
            truth_layout="textvqa-json",
            truth_first=True,
        )
    )


def _lmms_eval_samples(inputs: TaskInputs, records: Records) -> TaskData | None:
    """An lmms-eval ``--log_samples`` file whose records carry ``doc`` (TextVQA's dataset row:
    ``question_id``, ``question``, ``answers``): its own ground truth; ``None`` otherwise."""
    if not is_lmms_eval_log(records):
        return None
    preds = text_predictions(records, allow_missing_answer=True)
    if not has_docs(preds):
        return None
    preds, finish = clean_samples(preds, inputs, alone=inputs.annotations is None)

    def answers(doc: dict[str, Any], where: str) -> tuple[str, ...]:
        value = doc.get("answers")
        if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
            raise InputError(f"{where}: doc.answers is not a list of answer strings")
        return tuple(value)

    items = lmms_eval_items(
        preds,
        id_keys=("question_id",),
        references=answers,
        fields=("question", "image_id"),
        sample_metrics=TOOLKIT_LAYOUTS.log.metrics,
    )
    keep, id_note = unique_rows(
        [it.id for it in items], preds.wheres, what="question_id", on_duplicate=inputs.on_duplicate
    )
    items = [items[k] for k in keep]
    # QUIRK processed-doc: lmms-eval's textvqa_process_results rewrites doc["answers"] in
    # place with the EvalAI processor before the record is logged (evaluator.py saves the doc
    # afterwards): the answers here are processed ones, not TextVQA's
    processed = (
        f"{records.source}: lmms-eval logs doc.answers AFTER its EvalAI answer processor "
        "rewrote them, so profiles other than lmms-eval score against processed answers; pass "
        "--annotations (TextVQA's own file) for the official number"
    )
    # the first note must stay the processed-answers one (_keep_lmms_eval drops it)
    data = TaskData(
        items,
        (records.source,),
        (preds.layout,),
        (processed, *([id_note] if id_note else [])),
        reported_scores(inputs),
    )
    return finish(data)


# ---------------------------------------------------------------------------------- profiles

OFFICIAL = TaskProfile(
    name="official",
    description="MMF's M4C TextVQAAccuracyEvaluator: EvalAIAnswerProcessor on both sides, "
    "position leave-one-out, asserts 10 answers; a fraction",
    reproduces="facebookresearch/mmf@b0ffc7f mmf/utils/m4c_evaluators.py (file 2dc099a)",
    toolkit="mmf@b0ffc7f",
    score=mmf_accuracy,
    aggregate=_official_aggregate,
    context=("question_id",),
    detail=_mmf_detail,
    explain=_explain_mmf,
)

LLAVA = TaskProfile(
    name="llava",
    description="LLaVA eval_textvqa.py: MMF's evaluator verbatim, printed as 100·x with "
    "'{:.2f}'; its answers.jsonl joined by (image id, question from the prompt)",
    reproduces="haotian-liu/LLaVA@c121f04 llava/eval/eval_textvqa.py + m4c_evaluator.py",
    toolkit="LLaVA@c121f04",
    score=mmf_accuracy,
    aggregate=_llava_aggregate,
    context=("question_id",),
    detail=_mmf_detail,
    explain=_explain_mmf,
)

LMMS_EVAL = TaskProfile(
    name="lmms-eval",
    description="lmms-eval textvqa: the same processor, statistics.mean per question (exact), "
    "no answer-count assert; metric exact_match, a fraction",
    reproduces=LMMS_EVAL_PIN.at("lmms_eval/tasks/textvqa/utils.py"),
    toolkit=LMMS_EVAL_PIN.token,
    score=lmms_eval_accuracy,
    aggregate=_lmms_aggregate,
    detail=_mmf_detail,
    explain=_explain_lmms,
)

VLMEVALKIT = TaskProfile(
    name="vlmevalkit",
    description="VLMEvalKit TextVQA_VAL at HEAD: process_answer on both sides (real "
    "look-behind period rule), np.mean per question, Overall = np.mean × 100",
    reproduces=VLMEVALKIT_PIN.at("vlmeval/dataset/utils/vqa_eval.py (401916c)"),
    toolkit=VLMEVALKIT_PIN.token,
    score=vlmevalkit_accuracy,
    aggregate=_vlm_aggregate,
    detail=_vlm_detail,
    explain=_explain_vlm,
)

VLMEVALKIT_2024 = TaskProfile(
    name="vlmevalkit-2024",
    description="VLMEvalKit before 2025-05-13 (928a95b): as vlmevalkit with the official "
    "period pattern (2. → 2); reproduces the published VILA-1.5-8B 60.162",
    reproduces="open-compass/VLMEvalKit before 928a95b (2025-05-13), e.g. c03bc04",
    toolkit="VLMEvalKit@pre-928a95b",
    score=vlmevalkit_2024_accuracy,
    aggregate=_vlm_aggregate,
    detail=_vlm_2024_detail,
    explain=_explain_vlm_2024,
)

QWEN_VL = TaskProfile(
    name="qwen-vl",
    description="Qwen-VL evaluate_vqa.py textvqa_val: the pre-2021 VQA v2 script (prediction "
    "always normalized, raw answers unless not unanimous); percent",
    reproduces=QWEN_VL_PIN.at("eval_mm/evaluate_vqa.py + eval_mm/vqa_eval.py"),
    toolkit=QWEN_VL_PIN.token,
    score=qwen_vl_accuracy,
    aggregate=_qwen_aggregate,
    explain=vqa_profile_explainer("official-2017"),
)

TASK = register_task(
    Task(
        name="textvqa",
        kind="open",
        references="votes",
        datasets=("lmms-lab/textvqa", "facebook/textvqa"),
        title="TextVQA",
        metric="textvqa-acc",
        description="soft VQA accuracy on text-reading questions (MMF's M4C evaluator)",
        profiles=(OFFICIAL, LLAVA, LMMS_EVAL, VLMEVALKIT, VLMEVALKIT_2024, QWEN_VL),
        read=_read,
        layouts=(
            'annotations: official TextVQA {"data": [{question_id, question, image_id, answers}]}',
            "results: official [{question_id, answer}] (JSON, JSONL, {id: answer} mapping)",
            "results: LLaVA answers.jsonl (question_id = image id, prompt, text), joined by "
            "(image id, question recovered from the prompt)",
            "results: VLMEvalKit spreadsheet (index, question, answer, prediction) — "
            "--annotations optional",
        ),
        aliases=("text-vqa", "textvqa_val"),
        annotations_optional=True,
        note="no scorer from the dataset authors; MMF's M4C evaluator is the reference "
        "(LLaVA copies it)",
    )
)
