"""DocVQA, InfographicVQA and ST-VQA: ANLS, as the RRC scripts and each toolkit compute it.

Three tasks, one metric family (``score/anls.py``). The ``official`` profile of DocVQA and
InfographicVQA is the RRC standalone script (``infographicsvqa_eval.py``, the copy in
``QwenLM/Qwen-VL@aa00ed0``): validation first (same question ids as the ground truth, one string
answer each), then ``Σ s_q / N`` printed as a fraction. ST-VQA's ``official`` is its 2019 form
(distance on ``.lower()`` only). Peers: ``lmms-eval`` (strips the generation first),
``vlmevalkit`` (×100), ``mmf``, ``pix2struct`` (×100) and ``paper`` (PyPI ``anls``); spec
``vqa-family.md`` §5.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..core.exceptions import InputError
from ..core.toolkits import LMMS_EVAL as LMMS_EVAL_PIN
from ..core.toolkits import MMF as MMF_PIN
from ..core.toolkits import PIX2STRUCT as PIX2STRUCT_PIN
from ..core.toolkits import QWEN_VL as QWEN_VL_PIN
from ..core.toolkits import VLMEVALKIT as VLMEVALKIT_PIN
from ..kernels.anls import (
    UndefinedScoreError,
    anls_lmms_eval,
    anls_mmf,
    anls_official,
    anls_paper,
    anls_pix2struct,
    anls_stvqa_2019,
    anls_vlmevalkit,
    levenshtein,
)
from ..readers.detect import Layouts, docs_alone, read_by_layout
from ..readers.join import (
    join_truth,
    keyed_by_doc,
    logged_disagreement,
    results_predictions,
    unique_rows,
    unique_truth,
)
from ..readers.layouts import Predictions, is_vlmevalkit
from ..readers.records import Records, parse_list_cell, read_records
from . import register_task
from ._base import Aggregate, Item, ItemScorer, Task, TaskData, TaskInputs, TaskProfile
from ._common import (
    found_instead,
    mean,
    read_vlmevalkit,
    vlmevalkit_overall,
)
from ._explain import Steps, per_reference, run_steps
from ._lmms import (
    drop_empty,
    empty_error,
    has_docs,
    is_lmms_eval,
    lmms_eval_items,
    positional_items,
)
from ._vqa_family import per_answer

__all__ = ["TYPE_FIELDS", "UndefinedScoreError"]

#: the ground-truth fields the RRC script's ``-a`` breaks scores down by, with its display
#: names (InfographicVQA); DocVQA's ``question_types`` are shown as they are written
TYPE_FIELDS: Mapping[str, Mapping[str, str]] = {
    "answer_type": {
        "image span": "Image-Span",
        "question span": "Question-Span",
        "multiple spans": "Multi-Span",
        "non span": "None span",
    },
    "evidence": {
        "table/list": "Table/list",
        "textual": "Text",
        "photo/pciture/visual_objects": "Visual/Layout",
        "figure": "Figure",
        "map": "Map",
    },
    "operation/reasoning": {
        "comparison": "Sorting",
        "arithmetic": "Arithmetic",
        "counting": "Counting",
    },
    "question_types": {},
}


class _Profile(TaskProfile):
    """A profile whose scorer may raise :class:`UndefinedScoreError`; the error then names
    the question."""

    def score_item(self, item: Item) -> float:
        try:
            return super().score_item(item)
        except UndefinedScoreError as exc:
            raise UndefinedScoreError(f"question {item.id!r}: {exc}") from None


def _collapse(text: str) -> str:
    return " ".join(text.strip().lower().split())


def _lower_strip(text: str) -> str:
    return text.lower().strip()


def _upper_len(p: str, a: str) -> int:
    return max(len(a.upper()), len(p.upper()))


#: per scorer: the prediction's steps, the answers' normalization, the length L(raw
#: prediction, raw answer) the distance is divided by, and when a similarity is kept
_FORMS: dict[Any, tuple[Steps, Callable[[str], str], Callable[[str, str], int], str]] = {
    anls_official: (
        (("strip, lower, collapse spaces", _collapse),),
        _collapse,
        _upper_len,
        "L = the longer RAW string's .upper() length; NLS = 1 - d/L kept when >= 0.5",
    ),
    anls_lmms_eval: (
        (("strip", str.strip), ("strip, lower, collapse spaces", _collapse)),
        _collapse,
        lambda p, a: _upper_len(p.strip(), a),
        "L = the longer .upper() length (prediction stripped first); NLS kept when >= 0.5",
    ),
    anls_stvqa_2019: (
        (("lower", str.lower),),
        str.lower,
        _upper_len,
        "L = the longer RAW string's .upper() length; NLS kept when >= 0.5",
    ),
    anls_mmf: (
        (("lower + strip", _lower_strip),),
        _lower_strip,
        lambda p, a: max(len(_lower_strip(p)), len(_lower_strip(a))),
        "L = the longer stripped string's length; NLS kept when >= 0.5",
    ),
    anls_pix2struct: (
        (("lower", str.lower),),
        str.lower,
        lambda p, a: max(len(p.lower()), len(a.lower())),
        "L = the longer lowered string's length; kept only when d/L < 0.5 (0.5 gives 0)",
    ),
    anls_paper: (
        (("strip, lower, collapse spaces", _collapse),),
        _collapse,
        lambda p, a: max(len(_collapse(p).upper()), len(_collapse(a).upper())),
        "L = the longer normalized string's .upper() length; kept only when d/L < 0.5",
    ),
}
_FORMS[anls_vlmevalkit] = _FORMS[anls_official]


def _explain_anls(score: ItemScorer) -> Callable[[Item], Mapping[str, Any]]:
    """Per reference: the edit distance d of the normalized strings, the length L, the
    similarity NLS = 1 - d/L and the scorer's value (NLS, or 0 below the threshold 0.5)."""
    steps, ref, length, rule = _FORMS[score]

    def distance(p: str, a: str) -> int:
        return levenshtein(run_steps(p, steps)[0], ref(a))

    def nls(p: str, a: str) -> str:
        n = length(p, a)
        return "—" if n == 0 else f"{1 - distance(p, a) / n:.4f}"

    def hook(item: Item) -> Mapping[str, Any]:
        return per_reference(
            item,
            score,
            prediction_steps=steps,
            reference=ref,
            columns=(("d", distance), ("L", length), ("NLS", nls)),
            rule=f"threshold 0.5: {rule}",
        )

    return hook


# --- aggregation ---------------------------------------------------------------------------


def _type_breakdowns(
    items: Sequence[Item], scores: Sequence[float]
) -> tuple[dict[str, dict[str, dict[str, float | int]]], tuple[str, ...]]:
    """The RRC script's ``-a`` tables: per type, ``Σ s / count`` (left-to-right sums), for
    every type field the ground truth has. Quirk not reproduced: the script divides by zero for
    a listed type no question has; such types are left out and named in a note."""
    out: dict[str, dict[str, dict[str, float | int]]] = {}
    notes: list[str] = []
    for field, names in TYPE_FIELDS.items():
        totals: dict[str, float] = {name: 0.0 for name in names}
        counts: dict[str, int] = {name: 0 for name in names}
        seen = False
        for item, score in zip(items, scores, strict=True):
            values = item.fields.get(field)
            if values is None:
                continue
            seen = True
            for v in [values] if isinstance(values, str) else values:
                key = str(v)
                totals[key] = totals.get(key, 0.0) + score
                counts[key] = counts.get(key, 0) + 1
        if not seen:
            continue
        table = {
            names.get(k, k): {"ANLS": totals[k] / counts[k], "n": counts[k]}
            for k in totals
            if counts[k]
        }
        empty = [names.get(k, k) for k in totals if not counts[k]]
        if empty:
            notes.append(
                f"{field}: no question of type {', '.join(empty)} (the official script's -a "
                "divides by zero there; left out)"
            )
        out[field] = table
    return out, tuple(notes)


def _official_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``totalScore / N`` with ``totalScore`` summed left to right, as the RRC script does."""
    breakdowns, notes = _type_breakdowns(items, scores)
    return Aggregate(
        metrics={"ANLS": mean(scores), "n": len(scores)},
        headline="ANLS",
        units="fraction",
        digits=4,
        breakdowns=breakdowns,
        notes=notes,
    )


def _mean_aggregate(key: str) -> Callable[[Sequence[Item], Sequence[float]], Aggregate]:
    def aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
        return Aggregate(
            metrics={key: mean(scores), "n": len(scores)},
            headline=key,
            units="fraction",
            digits=4,
        )

    return aggregate


def _vlmevalkit_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``np.mean(hit) * 100``; per ``split`` when the file has one, else per ``category``."""
    field = "split" if any("split" in it.fields for it in items) else "category"
    return vlmevalkit_overall(items, scores, (field,))


def _pix2struct_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``(100.0 * total) / N``, ``total`` summed left to right (``aggregate_metrics``)."""
    total = 0.0
    for s in scores:
        total += s
    return Aggregate(
        metrics={"anls": (100.0 * total) / len(scores) if scores else 0.0, "n": len(scores)},
        headline="anls",
        units="percent",
    )


# --- profiles ------------------------------------------------------------------------------


#: a profile as data: (name, description, reproduces, toolkit, scorer, aggregate)
_ProfileRow = tuple[
    str, str, str, str, ItemScorer, Callable[[Sequence[Item], Sequence[float]], Aggregate]
]

#: every ANLS task's toolkit profiles after its official one
_TOOLKIT_PROFILES: tuple[_ProfileRow, ...] = (
    (
        "lmms-eval",
        "lmms-eval anls: the RRC formula on the stripped generation; mean",
        LMMS_EVAL_PIN.at("api/metrics.py anls + api/task.py"),
        LMMS_EVAL_PIN.token,
        anls_lmms_eval,
        _mean_aggregate("anls"),
    ),
    (
        "vlmevalkit",
        "VLMEvalKit anls_compute + hit_calculate: the RRC formula; np.mean × 100",
        VLMEVALKIT_PIN.at("vqa_eval.py anls_compute, hit_calculate"),
        VLMEVALKIT_PIN.token,
        anls_vlmevalkit,
        _vlmevalkit_aggregate,
    ),
    (
        "mmf",
        "MMF STVQAANLSEvaluator: lower+strip, stripped lengths, keeps >= 0.5; "
        "two empty strings raise",
        MMF_PIN.at("mmf/utils/m4c_evaluators.py"),
        MMF_PIN.token,
        anls_mmf,
        _mean_aggregate("ANLS"),
    ),
    (
        "pix2struct",
        "pix2struct anls_metric: lower only, NL < 0.5 kept, 100·Σ/N; two empty strings raise",
        PIX2STRUCT_PIN.at("pix2struct/metrics.py anls_metric"),
        PIX2STRUCT_PIN.token,
        anls_pix2struct,
        _pix2struct_aggregate,
    ),
    (
        "paper",
        "the paper's formula (PyPI anls): normalized strings and lengths, NL < 0.5 kept",
        "shunk031/ANLS (PyPI anls) anls/metrics/score.py, anls/dist.py",
        "anls@pypi",
        anls_paper,
        _mean_aggregate("ANLS"),
    ),
)


def _profiles(official: ItemScorer, official_text: str, official_src: str) -> tuple[_Profile, ...]:
    """The official profile (*official*, described by *official_text*, from *official_src*),
    then the toolkits' profiles every ANLS task shares."""
    toolkit = official_src.split(" ", 1)[0]
    first: _ProfileRow = (
        "official",
        official_text,
        official_src,
        toolkit,
        official,
        _official_aggregate,
    )
    # each profile's per-answer detail and explanation come from its own scorer (row[4])
    return tuple(
        _Profile(*row, detail=per_answer(row[4]), explain=_explain_anls(row[4]))
        for row in (first, *_TOOLKIT_PROFILES)
    )


RRC_SOURCE = (
    f"rrc-anls@Qwen-VL-{QWEN_VL_PIN.commit} eval_mm/infographicsvqa_eval.py (docvqa.org, RRC ch=17)"
)
RRC_TEXT = (
    "RRC script: distance on stripped/lower/collapsed strings over the raw .upper() length; "
    "0.5 kept; Σ/N"
)

# --- reading -------------------------------------------------------------------------------

_ID_KEYS = ("questionId", "question_id")
_GT_FIELDS = ("question", *TYPE_FIELDS)


def _answers(value: Any, where: str, row: Mapping[str, Any] | None = None) -> tuple[str, ...]:
    if value is None:
        instead = found_instead(row, "answers") if row is not None else ""
        if instead:
            raise InputError(f"{where}: no 'answers'{instead}")
        raise InputError(f"{where}: no 'answers' (a test-split ground truth without answers?)")
    answers = tuple(parse_list_cell(value, where))
    if not answers:
        raise InputError(f"{where}: 'answers' is empty; ANLS needs at least one answer")
    return answers


def _read_gt(inputs: TaskInputs) -> tuple[list[Item], tuple[str, ...], tuple[str, ...]]:
    """The RRC ground truth: ``{"data": [{questionId, question, answers, ...}]}`` (a bare list
    of such records is accepted too, with a note: the script refuses it); returns the items,
    the source and the notes."""
    records = read_records(inputs.annotations, rows_key="data")
    notes: tuple[str, ...] = ()
    if records.header is None or "dataset_name" not in records.header:
        notes = (
            f"{records.source} has no 'dataset_name' key next to 'data'; the official script "
            "refuses such a ground truth (vqametrics scored it)",
        )
    items: list[Item] = []
    wheres: list[str] = []
    for i, row in enumerate(records.rows):
        where = records.where(i)
        key = next((row[k] for k in _ID_KEYS if k in row), None)
        if not isinstance(key, str | int) or isinstance(key, bool):
            raise InputError(
                f"{where}: no questionId (fields: {', '.join(row)}); is this the ground truth?"
            )
        refs = _answers(row.get("answers"), f"{where} (question {key!r})", row)
        fields = {f: row[f] for f in _GT_FIELDS if row.get(f) is not None}
        items.append(Item(key, None, refs, fields))
        wheres.append(where)
    if not items:
        raise InputError(f"{records.source}: the ground truth has no questions")
    items, repeated = unique_truth(items, wheres, records.source, on_duplicate=inputs.on_duplicate)
    return items, (records.source,), (*notes, *repeated)


def _lmms_refs(doc: dict[str, Any], where: str) -> tuple[str, ...]:
    return _answers(doc.get("answers", doc.get("answer")), where)


#: how an ANLS task's files are told apart: a sheet (scored against its own ground truth), a
#: log, or a submission (joined to the ground truth, or carrying it beside its predictions)
TOOLKIT_LAYOUTS = Layouts()


def _read(inputs: TaskInputs) -> TaskData:
    records = read_records(inputs.results, format=inputs.format, on_duplicate=inputs.on_duplicate)
    if not is_vlmevalkit(records):
        _check_single_answers(records, inputs)
    return read_by_layout(
        inputs,
        TOOLKIT_LAYOUTS,
        sheet=_read_sheet,
        log=lambda preds, inp: _read_predictions(inp, preds.records, preds),
        other=_read_submission,
        records=records,
    )


def _read_sheet(inputs: TaskInputs, records: Records | None) -> TaskData:
    """A VLMEvalKit sheet: its 'index' is not a questionId, so it is scored against its own
    ground truth, and read_vlmevalkit says so when --annotations was given."""
    return read_vlmevalkit(inputs, fields=("split", "category", "question"), records=records)


def _check_single_answers(records: Records, inputs: TaskInputs) -> None:
    """Only the prediction column must hold one string: with --answer-field predict, an
    'answer' column beside it is the ground truth (a list), not a prediction."""
    answer_column = inputs.answer_field or "answer"
    for i, row in enumerate(records.rows):
        if isinstance(row.get(answer_column), list):
            raise InputError(
                f"{records.where(i)}: {answer_column!r} is a list; the official script requires "
                "a single string per question"
            )


def _read_submission(records: Records, inputs: TaskInputs) -> TaskData:
    preds = results_predictions(records, inputs)
    truth = _carried_truth(records, preds)
    if inputs.annotations is None and truth is not None:
        return _read_own_truth(inputs, preds, truth)
    preds = drop_empty(preds, inputs.allow_missing)
    return _read_predictions(inputs, preds.records, preds)


def _carried_truth(records: Records, preds: Predictions) -> str | None:
    """The column holding the ground truth of a results file whose predictions are in another
    column (``--answer-field predict`` beside ``answer``): ``answers`` or ``answer`` when
    every row has it and it is not the prediction column; else ``None``."""
    for column in ("answers", "answer"):
        if column != preds.answer_field and all(
            row.get(column) is not None for row in records.rows
        ):
            return column
    return None


def _read_own_truth(inputs: TaskInputs, preds: Predictions, column: str) -> TaskData:
    """A results file that carries its ground truth in *column* beside its predictions: its
    rows are the items (ids and predictions as read, the answers from *column*)."""
    items: list[Item] = []
    for row, key, text, where in zip(
        preds.records.rows, preds.ids, preds.texts, preds.wheres, strict=True
    ):
        refs = _answers(row[column], f"{where} ({column!r}, the ground truth)")
        fields = {f: row[f] for f in _GT_FIELDS if row.get(f) is not None}
        item_id: str | int = key if isinstance(key, str | int) else str(key)
        items.append(Item(item_id, text, refs, fields))
    keep, dup_note = unique_rows(
        [it.id for it in items], preds.wheres, on_duplicate=inputs.on_duplicate
    )
    empty = [k for k in keep if items[k].prediction is None]
    items = [items[k] for k in keep]
    if empty and not inputs.allow_missing:
        raise empty_error(preds, empty)
    notes = [
        f"{preds.source}: scored against its own {column!r} column (the predictions are in "
        f"{preds.answer_field!r}); pass --annotations to use the RRC ground truth instead"
    ]
    notes += [dup_note] if dup_note else []
    if empty:
        notes.append(f"{len(empty)} item(s) had no prediction and scored 0")
    return TaskData(items, (preds.source,), (preds.layout,), tuple(notes), n_missing=len(empty))


def _read_predictions(inputs: TaskInputs, records: Records, preds: Predictions) -> TaskData:
    """A submission or an lmms-eval log (*preds*, read from *records*), joined to the ground
    truth by questionId (by position for a log without ``doc``)."""
    if has_docs(preds) and inputs.annotations is None:
        items = lmms_eval_items(preds, id_keys=_ID_KEYS, references=_lmms_refs, fields=_GT_FIELDS)
        return replace(docs_alone(preds, inputs, items), reported=None)
    if inputs.annotations is None:
        raise InputError(
            f"{records.source}: a submission ({preds.layout}) carries no ground truth; pass "
            '--annotations with the RRC ground-truth JSON ({"data": [...]})'
        )
    gt_items, gt_sources, gt_notes = _read_gt(inputs)
    if is_lmms_eval(preds) and not has_docs(preds):
        # newer lmms-eval logs only doc_id: doc_id i is the i-th question, said in a note
        by_position, note, n_absent = positional_items(
            preds, gt_items, gt_sources[0], allow_missing=inputs.allow_missing
        )
        return TaskData(
            by_position,
            (*gt_sources, records.source),
            (preds.layout,),
            (*gt_notes, note),
            n_missing=n_absent,
        )
    notes = list(gt_notes)
    if has_docs(preds):  # join lmms-eval records by the doc's questionId, not doc_id
        logged = lmms_eval_items(preds, id_keys=_ID_KEYS, references=_lmms_refs, fields=_GT_FIELDS)
        # the annotations win; where the logged doc's answers differ, it is said
        differ = logged_disagreement(
            gt_items, logged, f"ground truth(s) carried by {records.source}"
        )
        notes += [differ] if differ else []
        preds = keyed_by_doc(preds, _doc_question_id)
    return join_truth(
        gt_items,
        gt_sources,
        preds,
        inputs,
        layouts=(preds.layout,),
        notes=notes,
        missing="{n} question(s) had no answer and scored 0",
        extra="{n} answer(s) for unknown questions were ignored",
    )


def _doc_question_id(doc: Mapping[str, Any], where: str) -> Any:
    """A logged doc's questionId (the ground truth's key); ``doc_id`` where it has none."""
    return next((doc[k] for k in _ID_KEYS if k in doc), None)


LAYOUTS = (
    'RRC ground truth {"data": [{questionId, question, answers, ...}]} (--annotations) + '
    "submission [{questionId, answer}]",
    "VLMEvalKit spreadsheet (index, question, answer = list literal, prediction)",
    "lmms-eval --log_samples JSONL (doc.questionId, doc.answers, filtered_resps)",
)

DOCVQA = register_task(
    Task(
        name="docvqa",
        references="many",
        datasets=("lmms-lab/DocVQA",),
        title="DocVQA",
        metric="docvqa-anls",
        description="ANLS on document-image questions (RRC script)",
        profiles=_profiles(anls_official, RRC_TEXT, RRC_SOURCE),
        read=_read,
        layouts=LAYOUTS,
        aliases=("doc-vqa", "docvqa-val", "docvqa_val"),
        annotations_optional=True,
    )
)

# the same RRC script and files as DocVQA's
INFOGRAPHICVQA = register_task(
    replace(
        DOCVQA,
        name="infographicvqa",
        datasets=(),
        title="InfographicVQA",
        metric="infovqa-anls",
        description="ANLS on infographic questions (RRC script)",
        aliases=("infovqa", "info-vqa", "infographicsvqa", "infographic-vqa"),
    )
)

STVQA = register_task(
    replace(
        DOCVQA,
        name="stvqa",
        datasets=(),
        title="ST-VQA",
        metric="stvqa-anls",
        description="ANLS on scene-text questions (2019 RRC form)",
        profiles=_profiles(
            anls_stvqa_2019,
            "ST-VQA 2019 (RRC ch=11): distance on .lower() only, raw .upper() length; 0.5 kept",
            "rrc-stvqa-2019 (ST-VQA baseline copy; the commented line of the DocVQA script)",
        ),
        aliases=("st-vqa", "scene-text-vqa"),
        note="the RRC ST-VQA script itself is not public; its 2019 form is reconstructed "
        "(spec §13)",
    )
)
