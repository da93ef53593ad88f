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
from typing import Any

from ..aggregate.formulas import naive_sum
from ..core.exceptions import InputError
from ..core.toolkits import LLAVA as LLAVA_PIN
from ..core.toolkits import MMF as MMF_PIN
from ..core.toolkits import QWEN_VL as QWEN_VL_PIN
from ..kernels.accuracy import vqa_accuracy
from ..normalize.mmf import evalai_answer_processor
from ..readers.answers import require_answers
from ..readers.detect import Layouts, LogLayout, docs_alone, positional_data, read_by_layout
from ..readers.join import join_truth, keyed_by_doc, logged_scores, unique_truth
from ..readers.layouts import Predictions
from ..readers.records import Records, read_records
from . import _vqa_family as family
from . import register_task
from ._base import Aggregate, Item, Task, TaskData, TaskInputs, TaskProfile
from ._common import (
    mean_aggregate,
    read_vlmevalkit,
    reported_scores,
    text_predictions,
    vlmevalkit_overall,
)
from ._explain import MMF_STEPS, soft_explainer, vqa_profile_explainer
from ._lmms import drop_empty, has_docs, lmms_eval_items
from ._vqa_family import (
    lmms_eval_accuracy,
    position_loo,
    vlmevalkit_2024_accuracy,
    vlmevalkit_accuracy,
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
    return position_loo(p, answers, "naive")


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


def _vlm_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    # ImageVQADataset.evaluate: per split when the file has one, else Overall + categories;
    # np.mean(hits) * 100 (the ret.round(2) result is discarded, so nothing is rounded)
    # a file with a split column gets no per-category numbers
    given = [f for f in ("split", "category") if any(it.fields.get(f) is not None for it in items)]
    return vlmevalkit_overall(items, scores, given[:1])


def _qwen_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    # vqaEval.setAccuracy: round(100*float(sum(accQA))/len(accQA), 2); unrounded here
    overall = 100 * naive_sum(scores) / len(scores) if scores else 0.0
    return Aggregate(
        metrics={"overall": overall, "n": len(scores)},
        headline="overall",
        units="percent",
    )


def _normalized_by(process: Callable[[str], str]) -> Callable[[Item], Mapping[str, Any]]:
    """The per-item detail of a profile that normalizes the prediction with *process*."""

    def detail(item: Item) -> Mapping[str, Any]:
        assert item.prediction is not None
        return {"normalized": process(item.prediction)}

    return detail


_mmf_detail = _normalized_by(evalai_answer_processor)


# MMF: the processor on both sides, left-to-right sum / 10
_explain_mmf = soft_explainer(MMF_STEPS, "naive")


# ----------------------------------------------------------------------------------- reading


def _read_annotations(inputs: TaskInputs) -> tuple[list[Item], tuple[str, ...], tuple[str, ...]]:
    """The official TextVQA file ``{"dataset_type", …, "data": [{question_id, question,
    image_id, answers}]}`` (a plain list of such rows is accepted too): its items, its name
    and the note counting repeated questions kept under ``--on-duplicate last``."""
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
        family.require_fields(
            row,
            where,
            ("question_id", "answers"),
            'TextVQA\'s official layout {"data": [{question_id, question, image_id, answers}]}',
            no_answers=" (the test split has no answers)",
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
    items, notes = unique_truth(items, wheres, records.source, on_duplicate=inputs.on_duplicate)
    return items, (records.source,), notes


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


def _join_llava(inputs: TaskInputs, records: Records) -> TaskData:
    """LLaVA's join (spec §15): key = (image id in ``question_id``, the question recovered
    from ``prompt``, lower-cased) against (``image_id``, ``question.lower()``)."""
    if inputs.annotations is None:
        raise InputError(
            f"{records.source}: LLaVA answers need the ground truth: pass "
            "--annotations TextVQA_0.5.1_val.json"
        )
    gt_items, gt_sources, gt_notes = _read_annotations(inputs)
    preds = text_predictions(
        records, id_field="question_id", answer_field="text", allow_missing_answer=True
    )
    preds = drop_empty(preds, inputs.allow_missing)
    keys: list[tuple[str, str]] = []
    for row, key, where in zip(preds.records.rows, preds.ids, preds.wheres, strict=True):
        prompt = row.get("prompt")
        if not isinstance(prompt, str):
            raise InputError(f"{where}: 'prompt' is not text")
        keys.append((str(key), llava_question(prompt, where)))
    gt_keys: list[tuple[str, str]] = []
    for it in gt_items:
        img, q = it.fields.get("image_id"), it.fields.get("question")
        if img is None or q is None:
            raise InputError(
                f"{gt_sources[0]}: question {it.id!r} has no image_id or question, which "
                "LLaVA's join needs"
            )
        gt_keys.append((str(img), str(q).lower()))
    _check_llava_keys(gt_items, gt_keys, gt_sources[0])
    return join_truth(
        gt_items,
        gt_sources,
        preds,
        inputs,
        layouts=("textvqa-json", f"llava-answers ({records.layout})"),
        ids=keys,
        truth_ids=gt_keys,
        what="(image id, question)",
        notes=gt_notes,
    )


def _check_llava_keys(items: list[Item], keys: list[tuple[str, str]], source: str) -> None:
    """Two questions LLaVA's join cannot tell apart are an error naming both."""
    by_key: dict[tuple[str, str], Any] = {}
    for it, key in zip(items, keys, strict=True):
        if key in by_key:
            raise InputError(
                f"{source}: questions {by_key[key]!r} and {it.id!r} share image "
                f"{key[0]!r} and question {key[1]!r}; LLaVA's join cannot tell them apart"
            )
        by_key[key] = it.id


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
    if _spreadsheet(inputs.results) or inputs.id_field or inputs.answer_field:
        # a sheet, or fields named by the user: read by id, never as LLaVA answers or a log
        return require_answers(_read_sheet(inputs, None))
    data = read_by_layout(
        inputs, TOOLKIT_LAYOUTS, sheet=_read_sheet, log=_read_lmms_eval, other=_read_other
    )
    return require_answers(data)


def _read_other(records: Records, inputs: TaskInputs) -> TaskData:
    """A LLaVA answers file is joined its own way; official results by id."""
    if _is_llava(records):
        return _join_llava(inputs, records)
    return _read_sheet(inputs, records)


def _read_sheet(inputs: TaskInputs, records: Records | None) -> TaskData:
    """Official results, or a VLMEvalKit spreadsheet (ground truth inside, or joined by index
    to ``--annotations``)."""
    if inputs.annotations is None:
        return read_vlmevalkit(inputs, fields=("category", "split"), records=records)
    gt_items, gt_sources, gt_notes = _read_annotations(inputs)
    data = read_vlmevalkit(
        inputs,
        fields=("category", "split"),
        annotations_reader=lambda _: (gt_items, gt_sources),
        records=records,
    )
    # name the annotations' layout too, as the LLaVA join does
    return replace(data, layouts=("textvqa-json", *data.layouts), notes=(*gt_notes, *data.notes))


def _doc_answers(doc: dict[str, Any], where: str) -> tuple[str, ...]:
    value = doc.get("answers")
    if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
        raise InputError(f"{where}: doc.answers is not a list of answer strings")
    return tuple(value)


def _doc_question_id(doc: Mapping[str, Any], where: str) -> Any:
    return doc.get("question_id")


def _read_lmms_eval(preds: Predictions, inputs: TaskInputs) -> TaskData:
    """An lmms-eval ``--log_samples`` log. With ``doc`` (TextVQA's dataset row:
    ``question_id``, ``question``, ``answers``) it carries its ground truth; given
    ``--annotations`` it is joined to them by the doc's ``question_id`` (the annotations
    win). Without ``doc`` (newer releases log only ``doc_id``/``target``) ``--annotations``
    is joined by position (``doc_id`` *i* = the *i*-th question), said in a note."""
    if not has_docs(preds):
        if inputs.annotations is None:
            raise InputError(
                f"{preds.source}: this lmms-eval log has no 'doc' (the dataset rows) and its "
                "per-sample record holds no reference answers (only exact_match), so no "
                "ground truth; pass --annotations TextVQA_0.5.1_val.json (joined by position: "
                "doc_id i = its i-th question)"
            )
        gt_items, gt_sources, gt_notes = _read_annotations(inputs)
        data = positional_data(
            preds,
            inputs,
            gt_items,
            gt_sources,
            TOOLKIT_LAYOUTS.log,
            truth_name=gt_sources[0],
            truth_layout="textvqa-json",
            truth_first=True,
        )
        return replace(data, notes=(*gt_notes, *data.notes))
    logged = lmms_eval_items(
        preds,
        id_keys=("question_id",),
        references=_doc_answers,
        fields=("question", "image_id"),
        sample_metrics=TOOLKIT_LAYOUTS.log.metrics,
    )
    if inputs.annotations is not None:
        gt_items, gt_sources, gt_notes = _read_annotations(inputs)
        keyed = keyed_by_doc(drop_empty(preds, inputs.allow_missing), _doc_question_id)
        data = join_truth(
            gt_items,
            gt_sources,
            keyed,
            inputs,
            layouts=("textvqa-json", preds.layout),
            notes=gt_notes,
            missing="{n} item(s) had no prediction and scored 0",
            extra="{n} prediction(s) for unknown items were ignored",
            reported=reported_scores(inputs),
        )
        return replace(data, items=logged_scores(data.items, logged))
    # QUIRK processed-doc: lmms-eval's textvqa_process_results rewrites doc["answers"] in
    # place with the EvalAI processor before the record is logged (evaluator.py saves the doc
    # afterwards): the answers here are processed ones, not TextVQA's
    processed = (
        f"{preds.source}: lmms-eval logs doc.answers AFTER its EvalAI answer processor "
        "rewrote them, so profiles other than lmms-eval score against processed answers; pass "
        "--annotations (TextVQA's own file) for the official number"
    )
    return docs_alone(preds, inputs, logged, what="question_id", notes=(processed,))


# ---------------------------------------------------------------------------------- profiles

OFFICIAL = TaskProfile(
    name="official",
    description="MMF's M4C TextVQAAccuracyEvaluator: EvalAIAnswerProcessor on both sides, "
    "position leave-one-out, asserts 10 answers; a fraction",
    reproduces=MMF_PIN.at("mmf/utils/m4c_evaluators.py (file 2dc099a)"),
    toolkit=MMF_PIN.token,
    score=mmf_accuracy,
    aggregate=_official_aggregate,
    context=("question_id",),
    detail=_mmf_detail,
    explain=_explain_mmf,
)

LLAVA = replace(
    OFFICIAL,
    name="llava",
    description="LLaVA eval_textvqa.py: MMF's evaluator verbatim, printed as 100·x with "
    "'{:.2f}'; its answers.jsonl joined by (image id, question from the prompt)",
    reproduces=LLAVA_PIN.at("llava/eval/eval_textvqa.py + m4c_evaluator.py"),
    toolkit=LLAVA_PIN.token,
    aggregate=_llava_aggregate,
)
LMMS_EVAL = family.lmms_eval("textvqa", ", no answer-count assert", detail=_mmf_detail)
VLMEVALKIT = family.vlmevalkit(
    "TextVQA_VAL",
    "vlmeval/dataset/utils/vqa_eval.py (401916c)",
    aggregate=_vlm_aggregate,
    detail=_normalized_by(family.vlm_process),
)
VLMEVALKIT_2024 = family.vlmevalkit_2024(
    "TextVQA_VAL",
    "; reproduces the published VILA-1.5-8B 60.162",
    reproduces="open-compass/VLMEvalKit before 928a95b (2025-05-13), e.g. c03bc04",
    aggregate=_vlm_aggregate,
    detail=_normalized_by(family.vlm_process_2024),
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
