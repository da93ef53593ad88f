"""ChartQA: relaxed accuracy, as pix2struct's ``relaxed_correctness`` and each toolkit apply it.

The ChartQA authors published no scorer ("we used the casting behavior", vis-nlp/ChartQA #4);
every reported number comes from pix2struct's function (``score/relaxed.py``), so that is the
``official`` profile: ``100 · Σ_q max_t correct(t, p_q) / N``. The toolkits differ in two
places only: whether the prediction is stripped, and **which argument is the target** — Qwen-VL
and VLMEvalKit from 2024-07 to 2025-09-01 (``vlmevalkit-2024``) pass the prediction first, so
the 5 % is relative to the prediction (spec ``vqa-family.md`` §6).

ChartQA test has two equal halves, ``test_human`` and ``test_augmented``; papers report both
and often their mean, which equals the pooled accuracy because the halves have 1,250 questions
each. PlotQA (alias ``plotqa``) has no official script; its paper defines the same 5 % rule and
MatCha/DePlot score it with the same function.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from ..aggregate.formulas import Average, group_by, naive_sum
from ..core.exceptions import InputError
from ..core.toolkits import LMMS_EVAL as LMMS_EVAL_PIN
from ..core.toolkits import PIX2STRUCT as PIX2STRUCT_PIN
from ..core.toolkits import QWEN_VL as QWEN_VL_PIN
from ..core.toolkits import VLMEVALKIT as VLMEVALKIT_PIN
from ..kernels.relaxed import relaxed_correctness, to_float
from ..readers.detect import Layouts, log_by_position, read_by_layout, read_log
from ..readers.join import disagreement_note, results_predictions
from ..readers.layouts import Predictions
from ..readers.records import Records, field_value, parse_list_cell, read_records
from . import register_task
from ._base import (
    Aggregate,
    Aggregator,
    Item,
    ItemScorer,
    Task,
    TaskData,
    TaskInputs,
    TaskProfile,
    Units,
)
from ._common import mean, read_vlmevalkit, ungrouped_note, vlmevalkit_overall
from ._explain import per_reference
from ._lmms import LogLayout, LogReading, MetricRecord, Truth, with_record_docs
from ._vqa_family import per_answer

__all__ = [
    "relaxed_official",
    "relaxed_stripped",
    "relaxed_swapped",
]


def relaxed_official(prediction: str, references: Sequence[str]) -> float:
    """pix2struct: ``max_t relaxed_correctness(t, prediction)`` — 1.0 or 0.0. No strip (but
    ``float`` ignores surrounding whitespace, so only the string fallback sees it)."""
    return 1.0 if any(relaxed_correctness(t, prediction) for t in references) else 0.0


def relaxed_stripped(prediction: str, references: Sequence[str]) -> float:
    """lmms-eval and VLMEvalKit HEAD: the correct argument order on ``prediction.strip()``."""
    p = prediction.strip()
    return 1.0 if any(relaxed_correctness(t, p) for t in references) else 0.0


def relaxed_swapped(prediction: str, references: Sequence[str]) -> float:
    """Qwen-VL and VLMEvalKit 2024-07 → 2025-09-01: ``relaxed_correctness(pred.strip(), t)``.

    Quirk reproduced: with the arguments swapped, the tolerance is 5 % of the *prediction*
    and the zero check is on the prediction, so ``95`` vs ``100`` is wrong and ``1.05`` vs
    ``1`` is right — which is what those toolkits reported.
    """
    p = prediction.strip()
    return 1.0 if any(relaxed_correctness(p, t) for t in references) else 0.0


# --- splits --------------------------------------------------------------------------------


def _split_of(item: Item) -> str | None:
    """``test_human`` / ``test_augmented`` (VLMEvalKit's ``split``; lmms-eval's ``type`` is
    ``human_test`` / ``augmented_test``); other split names pass through."""
    value = item.fields.get("split", item.fields.get("type"))
    if value is None:
        return None
    text = str(value)
    if "human" in text:
        return "test_human"
    if "augmented" in text:
        return "test_augmented"
    return text


def _by_split(
    items: Sequence[Item], scores: Sequence[float]
) -> tuple[dict[str, list[float]], tuple[str, ...]]:
    """The scores of each split, and a note naming the items that have none."""
    keys = [_split_of(item) for item in items]
    return group_by(keys, scores), ungrouped_note(items, keys, "split")


def _percent(scores: Sequence[float]) -> float:
    """pix2struct's ``(100.0 * total) / N`` with the total summed left to right."""
    return (100.0 * naive_sum(scores)) / len(scores) if scores else 0.0


# --- aggregations --------------------------------------------------------------------------


def _per_split(
    key: str, average: Average, units: Units, digits: int, *, size_note: bool
) -> Aggregator:
    """Pooled *key* = ``average(scores)``, each split the same way, and the mean of the splits
    when there are several (as pix2struct's and Qwen-VL's users report them); *size_note*:
    say when the splits differ in size, so that their mean is not the pooled number."""

    def aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
        groups, notes = _by_split(items, scores)
        metrics: dict[str, float | int] = {key: average(scores), "n": len(scores)}
        table: dict[str, dict[str, float | int]] = {
            g: {key: average(v), "n": len(v)} for g, v in groups.items()
        }
        if len(groups) > 1:
            metrics["mean_of_splits"] = mean([float(t[key]) for t in table.values()])
            if size_note and len({len(v) for v in groups.values()}) > 1:
                notes += ("the splits differ in size, so their mean is not the pooled accuracy",)
        return Aggregate(
            metrics=metrics,
            headline=key,
            units=units,
            digits=digits,
            breakdowns={"split": table} if table else {},
            notes=notes,
        )

    return aggregate


#: pooled ``100·Σ/N`` (pix2struct), each split the same way, and the mean of the splits
_official_aggregate = _per_split("relaxed_accuracy", _percent, "percent", 2, size_note=True)


def _lmms_eval_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """lmms-eval's three ``mean`` metrics (``sum / len``): overall, human, augmented."""
    metrics: dict[str, float | int] = {"relaxed_overall": mean(scores), "n": len(scores)}
    groups, notes = _by_split(items, scores)
    if "test_human" in groups:
        metrics["relaxed_human_split"] = mean(groups["test_human"])
    if "test_augmented" in groups:
        metrics["relaxed_augmented_split"] = mean(groups["test_augmented"])
    return Aggregate(
        metrics=metrics, headline="relaxed_overall", units="fraction", digits=4, notes=notes
    )


def _vlmevalkit_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``np.mean(hit) * 100`` per split (sorted) and ``Overall`` (pooled), as ``_acc.csv``."""
    return vlmevalkit_overall(items, scores, ("split",))


#: Qwen-VL scores each split as its own dataset: ``sum(scores) / len(scores)``
_qwen_vl_aggregate = _per_split("accuracy", mean, "fraction", 4, size_note=False)


class _Row(NamedTuple):
    """A profile as data: the first six fields of its :class:`TaskProfile`."""

    name: str
    description: str
    reproduces: str
    toolkit: str
    score: ItemScorer
    aggregate: Callable[[Sequence[Item], Sequence[float]], Aggregate]


def _profile(row: _Row) -> TaskProfile:
    """The profile of *row*; its per-answer detail and explanation come from its scorer."""
    return TaskProfile(*row, detail=per_answer(row.score), explain=_explain_relaxed(row.score))


def _explain_relaxed(score: ItemScorer) -> Callable[[Item], Mapping[str, Any]]:
    """Per answer: both sides as pix2struct's ``_to_float`` reads them, the relative change
    and the 5 % tolerance, or the case-insensitive string comparison."""
    swapped = score is relaxed_swapped
    strip = score is not relaxed_official

    def sides(p: str, a: str) -> tuple[str, str]:
        p = p.strip() if strip else p
        return (p, a) if swapped else (a, p)  # (target, prediction) as the call passes them

    def numbers(p: str, a: str) -> str:
        t, q = sides(p, a)
        return f"{to_float(t)!r} vs {to_float(q)!r}"

    def change(p: str, a: str) -> str:
        t, q = sides(p, a)
        x, y = to_float(t), to_float(q)
        if x is None or y is None or not x:
            return "strings: " + ("equal" if q.lower() == t.lower() else "differ") + " (lower)"
        rel = abs(y - x) / abs(x)
        return f"{rel:.6g} {'<=' if rel <= 0.05 else '>'} 0.05"

    target = "the prediction" if swapped else "the answer"

    def hook(item: Item) -> Mapping[str, Any]:
        return per_reference(
            item,
            score,
            prediction_steps=(("strip", str.strip),) if strip else (),
            columns=(("target vs prediction (float)", numbers), ("relative change", change)),
            rule=f"numbers within 5 % of {target} (the target) are right, anything else (or a "
            "zero target) must equal it ignoring case",
        )

    return hook


_ROWS: tuple[_Row, ...] = (
    _Row(
        "official",
        "pix2struct relaxed_correctness(target, prediction): 5 % of the target; 100·Σ/N",
        PIX2STRUCT_PIN.at("pix2struct/metrics.py relaxed_correctness"),
        PIX2STRUCT_PIN.token,
        relaxed_official,
        _official_aggregate,
    ),
    _Row(
        "lmms-eval",
        "lmms-eval chartqa: correct order on the stripped generation; mean per split",
        LMMS_EVAL_PIN.at("lmms_eval/tasks/chartqa/utils.py"),
        LMMS_EVAL_PIN.token,
        relaxed_stripped,
        _lmms_eval_aggregate,
    ),
    _Row(
        "vlmevalkit",
        "VLMEvalKit since 677e30a (2025-09-01): (target, pred.strip()); np.mean × 100",
        VLMEVALKIT_PIN.at("vqa_eval.py process_line('relaxed_accuracy')"),
        VLMEVALKIT_PIN.token,
        relaxed_stripped,
        _vlmevalkit_aggregate,
    ),
    _Row(
        "vlmevalkit-2024",
        "VLMEvalKit 2024-07 → 2025-09-01: (pred.strip(), target) swapped; np.mean × 100",
        "open-compass/VLMEvalKit before 677e30a (issue #584; fixed by PR #1204)",
        "VLMEvalKit@pre-677e30a",
        relaxed_swapped,
        _vlmevalkit_aggregate,
    ),
    _Row(
        "qwen-vl",
        "Qwen-VL evaluate_relaxed_accuracy: (answer.strip(), annotation) swapped; Σ/N",
        QWEN_VL_PIN.at("eval_mm/evaluate_vqa.py"),
        QWEN_VL_PIN.token,
        relaxed_swapped,
        _qwen_vl_aggregate,
    ),
)
PROFILES = tuple(_profile(row) for row in _ROWS)


# --- reading -------------------------------------------------------------------------------


def _lmms_refs(doc: dict[str, Any], where: str) -> tuple[str, ...]:
    value = doc.get("answer", doc.get("label"))
    if value is None:
        raise InputError(f"{where}: the doc has no 'answer'")
    if isinstance(value, list):
        return tuple(str(v) for v in value)
    return (str(value),)


def _vlmevalkit_answers(text: str, item_id: object) -> tuple[str, ...]:
    """VLMEvalKit's ``istype(answer, list)``: a cell that evaluates to a list is several
    answers (``[2014, 2016]`` → ``2014``, ``2016``); any other cell, including one that only
    looks like a list (``[Gambia, Niger]``, which ``eval`` rejects), is one answer as written."""
    if text.lstrip().startswith("["):
        try:
            return tuple(parse_list_cell(text, f"index {item_id!r}"))
        except InputError:
            return (text,)
    return (text,)


#: lmms-eval chartqa/utils.py chartqa_process_results writes relaxed_overall per sample
TOOLKIT_LAYOUTS = Layouts(log=LogLayout(metrics=("relaxed_overall",)))


def _read(inputs: TaskInputs) -> TaskData:
    return read_by_layout(
        inputs, TOOLKIT_LAYOUTS, sheet=_read_sheet, log=_read_lmms_eval, other=_no_ground_truth
    )


def _read_sheet(inputs: TaskInputs, records: Records | None) -> TaskData:
    """A VLMEvalKit sheet; --annotations is ignored, with a note (read_vlmevalkit)."""
    data = read_vlmevalkit(
        inputs, fields=("split", "type", "question"), list_answers=False, records=records
    )
    items = [
        Item(it.id, it.prediction, _vlmevalkit_answers(it.references[0], it.id), it.fields)
        for it in data.items
    ]
    return replace(data, items=items)


def _no_ground_truth(records: Records, inputs: TaskInputs) -> TaskData:
    preds = results_predictions(records, inputs)
    raise InputError(
        f"{records.source}: no ground truth in this file (it is {preds.layout}); chartqa reads "
        "VLMEvalKit files (index, answer, prediction, split) and lmms-eval samples logs"
    )


#: ChartQA's test files in the order lmms-lab/ChartQA was built from them (lmms-eval@75571cf
#: ``tasks/chartqa/upload_chartqa.py``: every human row, then every augmented row)
_TEST_FILES = ("test_human.json", "test_augmented.json")


def _read_annotations(source: Any) -> tuple[list[Item], str]:
    """ChartQA's own test files (rows ``imgname``, ``query``, ``label``; or lmms-lab's
    ``question``, ``answer``, ``type``) as items in lmms-eval's order: a folder is read as
    ``test_human.json`` then ``test_augmented.json``, as lmms-lab/ChartQA was built; a single
    file in its own order. Item ids are positions (lmms-eval's ``doc_id``)."""
    from pathlib import Path  # only with annotations: a log's score does without (issue 23)

    files: list[Any] = [source]
    if isinstance(source, str | os.PathLike) and Path(source).is_dir():
        files = [Path(source) / name for name in _TEST_FILES]
        absent = [f.name for f in files if not f.is_file()]
        if absent:
            raise InputError(
                f"{source}: a ChartQA annotations folder needs {' and '.join(_TEST_FILES)} "
                f"(missing: {', '.join(absent)})"
            )
    items: list[Item] = []
    names = []
    for f in files:
        records = read_records(f)
        names.append(records.source)
        name = Path(records.source).name
        file_split = (
            "human_test" if "human" in name else "augmented_test" if "augment" in name else None
        )
        for i, row in enumerate(records.rows):
            where = records.where(i)
            label = row.get("label", row.get("answer"))
            question = row.get("query", row.get("question"))
            if label is None or (isinstance(label, dict | list) and not label):
                raise InputError(f"{where}: no 'label' (or 'answer'): the ground truth")
            refs = tuple(str(v) for v in label) if isinstance(label, list) else (str(label),)
            fields: dict[str, Any] = {}
            split = row.get("type", file_split)
            if split is not None:
                fields["type"] = field_value(split, where, "type")
            if question is not None:
                fields["question"] = question
            items.append(Item(len(items), None, refs, fields))
    if not items:
        raise InputError(f"{' + '.join(names)}: no ChartQA questions")
    return items, " + ".join(names)


#: the newer log (no doc): lmms-eval@75571cf tasks/chartqa/utils.py chartqa_process_results
#: records a bare relaxed_overall and, by the doc's type, relaxed_human_split or
#: relaxed_augmented_split; target = doc["answer"] (chartqa.yaml); the id is doc_id
_RECORD = MetricRecord(
    metrics=("relaxed_overall",),
    key_field="type",
    key_values={"relaxed_human_split": "human_test", "relaxed_augmented_split": "augmented_test"},
)


def _annotation_truth(inputs: TaskInputs) -> Truth:
    truth, truth_source = _read_annotations(inputs.annotations)
    return Truth(truth, (truth_source,), "chartqa-json")


def _join_docs(preds: Predictions, inputs: TaskInputs) -> TaskData:
    """Docs joined to ChartQA's test files by ``doc_id`` position (lmms-lab's rows carry no
    id), the annotations winning; a logged answer that differs is counted in a note."""
    truth = _annotation_truth(inputs)
    data = log_by_position(preds, inputs, truth, _LOG_READING)
    differ = [
        row["doc_id"]
        for row, where in zip(preds.records.rows, preds.wheres, strict=True)
        if _lmms_refs(row["doc"], where) != truth.items[row["doc_id"]].references
    ]
    differ_note = disagreement_note(differ, f"logged answer(s) of {preds.source}", truth.sources[0])
    return replace(data, notes=(*data.notes, *([differ_note] if differ_note else [])))


#: an lmms-eval ``--log_samples`` log of ``chartqa``. With ``doc`` (``type``, ``question``,
#: ``answer``) it carries its ground truth (ids are doc_ids: two different docs under one
#: doc_id are two logs mixed). ``--annotations`` (ChartQA's test files) is joined by ``doc_id``
#: position — lmms-lab's rows carry no id — and wins. Without ``doc`` the annotations are
#: needed
_LOG_READING = LogReading(
    layout=TOOLKIT_LAYOUTS.log,
    references=_lmms_refs,
    fields=("type", "split", "question"),
    group_fields=("type", "split"),
    what="doc_id",
    joined=_join_docs,
    need="--annotations ChartQA's test folder (test_human.json + test_augmented.json); doc_id "
    "is joined to it by position",
    lacks="relaxed_overall",
    truth=_annotation_truth,
)


def _read_lmms_eval(preds: Predictions, inputs: TaskInputs) -> TaskData:
    """An lmms-eval log of ChartQA (the newer form given its stand-in docs), read as
    :data:`_LOG_READING` declares."""
    return read_log(with_record_docs(preds, _RECORD, inputs), inputs, _LOG_READING)


TASK = register_task(
    Task(
        name="chartqa",
        datasets=("lmms-lab/ChartQA", "ahmedmasryku/chartqa"),
        title="ChartQA",
        metric="chartqa-relaxed",
        description="relaxed accuracy on chart questions (pix2struct's rule)",
        profiles=PROFILES,
        read=_read,
        layouts=(
            "VLMEvalKit spreadsheet (index, question, answer, prediction, split)",
            "lmms-eval --log_samples JSONL (doc.answer, doc.type, filtered_resps); without doc: "
            "+ --annotations ChartQA's test folder (test_human.json, test_augmented.json), "
            "joined by position",
            "lmms-eval --log_samples JSONL without doc, alone: target + relaxed_overall and its "
            "relaxed_human_split / relaxed_augmented_split key",
        ),
        aliases=("chart-qa", "chartqa-test", "plotqa"),
        annotations_optional=True,
        note="ChartQA ships no scorer; pix2struct's relaxed_correctness is the de-facto official "
        "one. plotqa: no official script either; the same 5 % rule",
    )
)
