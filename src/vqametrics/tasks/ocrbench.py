"""OCRBench: 1,000 OCR questions scored by containment, as ``OCRBench/example.py`` does.

The official rule (spec vqa-family §9.1): an item is correct when one of its answers, after
``lower().strip()`` and ``'\\n' → ' '``, is a *substring* of the prediction treated the same
way (so ``1`` matches ``10``); HME100k items are case-sensitive with every space removed. The
score is the raw count of correct items, out of 1000, with a per-type breakdown. lmms-eval
also folds full-width ASCII since bbddc79; VLMEvalKit routes HME by category and adds
``Final Score Norm`` (the count / 10).

Inputs: OCRBench.json with ``predict``, a VLMEvalKit spreadsheet, or an lmms-eval samples log
(its ``doc`` is the ``echo840/OCRBench`` row: ``dataset``, ``question``, ``question_type``,
``answer``; without ``doc``, ``--annotations OCRBench.json`` is joined by position).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from .._exceptions import InputError
from ..load.join import check_unique
from ..load.layouts import Predictions, is_vlmevalkit
from ..load.records import Records, read_records
from . import register_task
from ._base import Aggregate, Item, Task, TaskData, TaskInputs, TaskProfile
from ._common import read_vlmevalkit, reported_scores
from ._lmms import (
    has_docs,
    lmms_eval_items,
    lmms_eval_predictions,
    no_doc_error,
    positional_items,
)

__all__ = [
    "DATASETS",
    "HME_CATEGORY",
    "LMMS_EVAL_METRICS",
    "LMMS_EVAL_REPORTED",
    "TYPES",
    "fold_fullwidth",
    "ocrbench_match",
]

HME_DATASET = "HME100k"
HME_CATEGORY = "Handwritten Mathematical Expression Recognition"
#: the six recognition types summed into "Text Recognition", then the other four, in the
#: order example.py prints them
RECOGNITION = (
    "Regular Text Recognition",
    "Irregular Text Recognition",
    "Artistic Text Recognition",
    "Handwriting Recognition",
    "Digit String Recognition",
    "Non-Semantic Text Recognition",
)
TYPES = (
    *RECOGNITION,
    "Scene Text-centric VQA",
    "Doc-oriented VQA",
    "Key Information Extraction",
    HME_CATEGORY,
)
#: example.py's 30 hard-coded dataset names, in its order (used for files of ≠ 1000 items)
DATASETS = (
    "IIIT5K", "svt", "IC13_857", "IC15_1811", "svtp", "ct80", "cocotext", "ctw", "totaltext",
    "HOST", "WOST", "WordArt", "IAM", "ReCTS", "ORAND", "NonSemanticText", "SemanticText",
    "STVQA", "textVQA", "ocrVQA", "ESTVQA", "ESTVQA_cn", "docVQA", "infographicVQA", "ChartQA",
    "ChartQA_Human", "FUNSD", "SROIE", "POIE", "HME100k",
)  # fmt: skip


def fold_fullwidth(text: str) -> str:
    """lmms-eval's fold since bbddc79: U+FF01–U+FF5E → ASCII, U+3000 → space; nothing else."""
    if all(ord(c) < 0x3000 for c in text):
        return text
    out = []
    for c in text:
        cp = ord(c)
        if 0xFF01 <= cp <= 0xFF5E:
            out.append(chr(cp - 0xFEE0))
        elif cp == 0x3000:
            out.append(" ")
        else:
            out.append(c)
    return "".join(out)


def _hme(text: str) -> str:
    return text.strip().replace("\n", " ").replace(" ", "")


def _plain(text: str) -> str:
    return text.lower().strip().replace("\n", " ")


def ocrbench_match(
    prediction: str, references: Sequence[str], *, hme: bool, fold: bool = False
) -> float:
    """1.0 when some answer, normalized, is a substring of the normalized prediction.

    Normalization: HME100k ``strip`` + ``'\\n' → ' '`` + every space removed (case kept);
    otherwise ``lower`` + ``strip`` + ``'\\n' → ' '`` (after :func:`fold_fullwidth` when
    *fold*). Quirks kept from example.py: containment, not equality (``1`` matches ``10``);
    an empty answer matches anything; the newline becomes a space *after* the strip, so
    ``cen\\ntre`` does not contain ``centre``; full-width letters do not match ASCII.
    """
    if hme:
        p = _hme(prediction)
        return 1.0 if any(_hme(a) in p for a in references) else 0.0
    if fold:
        p = _plain(fold_fullwidth(prediction))
        return 1.0 if any(_plain(fold_fullwidth(a)) in p for a in references) else 0.0
    p = _plain(prediction)
    return 1.0 if any(_plain(a) in p for a in references) else 0.0


def _is_hme_by_dataset(dataset_name: str | None, category: str | None) -> bool:
    # example.py and lmms-eval test the dataset name; without one, the category stands in
    # (every HME100k item is in the HME category of the released data)
    if dataset_name is not None:
        return dataset_name == HME_DATASET
    return category == HME_CATEGORY


def score_official(
    prediction: str,
    references: Sequence[str],
    dataset_name: str | None = None,
    category: str | None = None,
) -> float:
    """example.py: HME100k by ``dataset_name``, containment, no folding."""
    return ocrbench_match(prediction, references, hme=_is_hme_by_dataset(dataset_name, category))


def score_lmms_eval(
    prediction: str,
    references: Sequence[str],
    dataset_name: str | None = None,
    category: str | None = None,
) -> float:
    """lmms-eval (bbddc79 and later): the prediction stripped, full-width ASCII folded in the
    non-HME branch, then example.py's containment."""
    hme = _is_hme_by_dataset(dataset_name, category)
    return ocrbench_match(prediction.strip(), references, hme=hme, fold=not hme)


def score_lmms_eval_2025(
    prediction: str,
    references: Sequence[str],
    dataset_name: str | None = None,
    category: str | None = None,
) -> float:
    """lmms-eval before bbddc79 (2026-07-30): the prediction stripped, no folding."""
    hme = _is_hme_by_dataset(dataset_name, category)
    return ocrbench_match(prediction.strip(), references, hme=hme)


def score_vlmevalkit(
    prediction: str,
    references: Sequence[str],
    dataset_name: str | None = None,
    category: str | None = None,
) -> float:
    """VLMEvalKit: HME by ``category`` (equivalent on the released data), containment."""
    hme = category == HME_CATEGORY if category is not None else dataset_name == HME_DATASET
    return ocrbench_match(prediction, references, hme=hme)


# -- aggregation ---------------------------------------------------------------------------


def _type_sums(items: Sequence[Item], scores: Sequence[float], toolkit: str) -> dict[str, int]:
    sums = dict.fromkeys(TYPES, 0)
    for it, s in zip(items, scores, strict=True):
        t = it.fields.get("category")
        if t not in sums:
            raise InputError(
                f"item {it.id!r}: type {t!r} is not one of OCRBench's 10 types "
                f"({toolkit} sums into a fixed dict and stops with KeyError)"
            )
        sums[t] += int(s)
    return sums


def _printed_sums(sums: Mapping[str, int]) -> dict[str, int]:
    """The numbers example.py prints for a full file, in its order."""
    recognition = sum(sums[t] for t in RECOGNITION)
    out = {"Text Recognition": recognition}
    out.update({t: sums[t] for t in TYPES})
    out["Final Score"] = recognition + sum(sums[t] for t in TYPES[len(RECOGNITION) :])
    return out


def _aggregate_official(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """example.py: with exactly 1000 items, the per-type counts and the Final Score (a count
    out of 1000); otherwise the accuracy of each of its 30 datasets (a fraction).

    Quirk replaced: for a file of fewer items, example.py divides by the item count of every
    one of its 30 datasets and stops with ZeroDivisionError at the first one absent; here
    the datasets present are reported and the absent ones named in a note.
    """
    if len(items) == 1000:
        printed = _printed_sums(_type_sums(items, scores, "example.py"))
        return Aggregate(
            metrics={**printed, "n": len(items)},
            headline="Final Score",
            units="count",
            digits=0,
        )
    correct: dict[str, int] = {}
    count: dict[str, int] = {}
    nameless = 0
    for it, s in zip(items, scores, strict=True):
        name = it.fields.get("dataset_name")
        if name is None:
            nameless += 1
            continue
        count[name] = count.get(name, 0) + 1
        correct[name] = correct.get(name, 0) + int(s)
    order = [d for d in DATASETS if d in count] + [d for d in count if d not in DATASETS]
    per_dataset: dict[str, dict[str, float | int]] = {
        d: {"accuracy": correct[d] / float(count[d]), "n": count[d]} for d in order
    }
    notes = [
        f"the file has {len(items)} items, not 1000: example.py prints the accuracy of each "
        "dataset (a fraction, below) and no Final Score; 'correct' is the raw count of "
        "correct items"
    ]
    if nameless:
        notes.append(
            f"{nameless} item(s) carry no dataset_name (a VLMEvalKit spreadsheet has only the "
            "category): example.py's per-dataset accuracy leaves them out"
        )
    absent = [d for d in DATASETS if d not in count]
    if absent:
        notes.append(
            f"example.py would stop with ZeroDivisionError at {absent[0]!r}: "
            f"{len(absent)} of its 30 datasets are absent ({', '.join(absent)})"
        )
    unknown = [d for d in count if d not in DATASETS]
    if unknown:
        notes.append(
            f"dataset(s) not among example.py's 30 (it would stop with KeyError): "
            f"{', '.join(unknown)}"
        )
    return Aggregate(
        metrics={"correct": sum(correct.values()), "n": len(items)},
        headline="correct",
        units="count",
        digits=4,
        breakdowns={"dataset_name": per_dataset},
        notes=tuple(notes),
    )


def _aggregate_lmms_eval(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """lmms-eval ``ocrbench_aggregate_accuracy``: per-type sums, ``Final Score / 1000``.

    Bug not reproduced: its sums live in a module-level dict, so a second aggregation in the
    same process adds to the first; here every call starts from zero, as the first call in a
    fresh process does (the numbers lmms-eval prints for a single task run). Quirk kept: the
    division by 1000 whatever the item count (issues #918/#1220), noted when the file is
    not the full 1000.
    """
    printed = _printed_sums(_type_sums(items, scores, "lmms-eval"))
    notes: tuple[str, ...] = ()
    if len(items) != 1000:
        notes = (
            f"lmms-eval divides the Final Score by 1000 whatever the item count ({len(items)} "
            "here; issues #918/#1220)",
        )
    return Aggregate(
        metrics={"ocrbench_accuracy": printed["Final Score"] / 1000, **printed, "n": len(items)},
        headline="ocrbench_accuracy",
        units="fraction",
        digits=4,
        notes=notes,
    )


def _aggregate_vlmevalkit(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """VLMEvalKit ``OCRBench.evaluate``: the five summed groups, ``Final Score`` and
    ``Final Score Norm = Final Score / 10``."""
    sums = _type_sums(items, scores, "VLMEvalKit")
    printed = _printed_sums(sums)
    metrics: dict[str, float | int] = {
        "Text Recognition": printed["Text Recognition"],
        **{t: sums[t] for t in TYPES[len(RECOGNITION) :]},
        "Final Score": printed["Final Score"],
        "Final Score Norm": float(printed["Final Score"]) / 10,
        "n": len(items),
    }
    return Aggregate(metrics=metrics, headline="Final Score", units="count", digits=1)


# -- reading -------------------------------------------------------------------------------

#: what lmms-eval's ``ocrbench_process_results`` returns per sample (lmms-eval@75571cf
#: ``lmms_eval/tasks/ocrbench/utils.py``): ``{"ocrbench_accuracy": {"question_type", "score",
#: "prediction", "ground_truth"}}``, the 0/1 score inside
LMMS_EVAL_METRICS = ("ocrbench_accuracy",)

#: lmms-eval's aggregate metric (``results.json``, ``"<metric>,none"``: Final Score / 1000) →
#: the ``lmms-eval`` profile's metric that recomputes it
LMMS_EVAL_REPORTED: Mapping[str, str] = {"ocrbench_accuracy": "ocrbench_accuracy"}


def _read(inputs: TaskInputs) -> TaskData:
    if inputs.questions is not None:
        raise InputError("ocrbench: --questions is not used (the answers carry the questions)")
    records = read_records(inputs.results, format=inputs.format)
    cols = set(records.columns)
    preds = lmms_eval_predictions(records, inputs)
    if preds is not None:
        return _read_lmms_eval(inputs, preds)
    if inputs.annotations is not None:
        raise InputError(
            "ocrbench: the results file carries the answers (OCRBench.json with 'predict', "
            "or a VLMEvalKit spreadsheet); --annotations is used only with lmms-eval logs"
        )
    if "dataset_name" in cols and "answers" in cols:
        return _read_ocrbench_json(records, inputs)
    if is_vlmevalkit(records):
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
    refs = _answers(row.get("answers"), where, "'answers'")
    return refs, {"dataset_name": row["dataset_name"], "category": row["type"]}


def _read_ocrbench_json(records: Records, inputs: TaskInputs) -> TaskData:
    """OCRBench.json with example.py's ``predict`` added to each item."""
    items: list[Item] = []
    seen: dict[Any, str] = {}
    missing: list[str] = []
    for i, row in enumerate(records.rows):
        where = records.where(i)
        refs, fields = _ocrbench_row(row, where)
        pred = row.get("predict")
        if pred is not None and not isinstance(pred, str):
            raise InputError(
                f"{where}: 'predict' is {type(pred).__name__}, expected text "
                "(example.py calls .strip() on it)"
            )
        raw = row.get("id")
        key: str | int = raw if isinstance(raw, str | int) and not isinstance(raw, bool) else i + 1
        if key in seen:
            raise InputError(f"{where}: duplicate id {key!r} (first at {seen[key]})")
        seen[key] = where
        if pred is None:
            missing.append(where)
        items.append(Item(key, pred, refs, fields))
    notes: list[str] = []
    if missing and not inputs.allow_missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise InputError(
            f"{missing[0]}: no 'predict'{more} (example.py skips such items, i.e. counts them "
            "0: pass --allow-missing to do the same)"
        )
    if missing:
        notes.append(f"{len(missing)} item(s) without 'predict' counted 0, as example.py does")
    return TaskData(
        items,
        (records.source,),
        (f"ocrbench-json ({records.layout})",),
        tuple(notes),
        n_missing=len(missing),
    )


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


def _read_lmms_eval(inputs: TaskInputs, preds: Predictions) -> TaskData:
    """An lmms-eval ``--log_samples`` file. With ``doc``: scored against ``doc.answer``, or,
    given ``--annotations OCRBench.json``, against that file joined by ``doc_id`` position
    (the rows carry no id), doc/annotation disagreements counted in a note. Without ``doc``:
    ``--annotations`` is needed and joined by position."""
    source = preds.source
    if has_docs(preds):
        own = lmms_eval_items(
            preds,
            id_keys=(),
            references=lambda doc, where: _answers(doc.get("answer"), where, "doc.answer"),
            sample_metrics=LMMS_EVAL_METRICS,
        )
        items = [
            replace(it, fields={**it.fields, **_doc_fields(row["doc"], where)})
            for it, row, where in zip(own, preds.records.rows, preds.wheres, strict=True)
        ]
        check_unique([it.id for it in items], preds.wheres, what="doc_id")
        if inputs.annotations is None:
            return TaskData(items, (source,), (preds.layout,), (), reported_scores(inputs))
        truth, truth_source = _read_truth(inputs.annotations)
        joined, _, n_absent = positional_items(
            preds,
            truth,
            truth_source,
            sample_metrics=LMMS_EVAL_METRICS,
            allow_missing=inputs.allow_missing,
        )
        by_doc = {int(it.id): it for it in items}
        differ = [
            truth[i].id
            for i in sorted(by_doc)
            if (
                by_doc[i].references,
                by_doc[i].fields["dataset_name"],
                by_doc[i].fields["category"],
            )
            != (truth[i].references, truth[i].fields["dataset_name"], truth[i].fields["category"])
        ]
        notes = [
            f"{source} joined to {truth_source} by doc_id position (lmms-eval's OCRBench rows "
            "carry no id; doc_id i = the i-th item); the annotations' answers were used"
        ]
        if differ:
            shown = ", ".join(repr(q) for q in differ[:3])
            notes.append(
                f"{len(differ)} item(s) of {source} carry a doc (answer, dataset or type) that "
                f"differs from {truth_source} (e.g. {shown}); the annotations were used"
            )
        if n_absent:
            notes.append(f"{n_absent} item(s) had no sample and counted 0")
        return TaskData(
            joined,
            (truth_source, source),
            (preds.layout,),
            tuple(notes),
            reported_scores(inputs),
            n_missing=n_absent,
        )
    if inputs.annotations is None:
        raise no_doc_error(
            source, "--annotations OCRBench.json (joined by position: doc_id i = its i-th item)"
        )
    truth, truth_source = _read_truth(inputs.annotations)
    joined, note, n_absent = positional_items(
        preds,
        truth,
        truth_source,
        sample_metrics=LMMS_EVAL_METRICS,
        allow_missing=inputs.allow_missing,
    )
    notes = [note]
    if n_absent:
        notes.append(f"{n_absent} item(s) had no sample and counted 0")
    return TaskData(
        joined,
        (truth_source, source),
        (preds.layout,),
        tuple(notes),
        reported_scores(inputs),
        n_missing=n_absent,
    )


_CONTEXT = ("dataset_name", "category")


def _detail(by_category: bool, fold: bool) -> Callable[[Item], Mapping[str, Any]]:
    """What the containment test compared, for the per-item output."""

    def detail(item: Item) -> Mapping[str, Any]:
        name, cat = item.fields.get("dataset_name"), item.fields.get("category")
        if by_category and cat is not None:
            hme = cat == HME_CATEGORY
        else:
            hme = _is_hme_by_dataset(name, cat)
        pred = item.prediction or ""
        if hme:
            norm: Callable[[str], str] = _hme
        elif fold:
            norm = lambda s: _plain(fold_fullwidth(s))  # noqa: E731
        else:
            norm = _plain
        return {
            "hme_rule": hme,
            "compared_prediction": norm(pred),
            "compared_answers": [norm(a) for a in item.references],
        }

    return detail


def _profile(
    name: str,
    description: str,
    reproduces: str,
    toolkit: str,
    score: Callable[..., float],
    aggregate: Callable[[Sequence[Item], Sequence[float]], Aggregate],
) -> TaskProfile:
    detail = _detail(by_category=name == "vlmevalkit", fold=name == "lmms-eval")
    return TaskProfile(
        name, description, reproduces, toolkit, score, aggregate, _CONTEXT, detail=detail
    )


OFFICIAL = _profile(
    "official",
    "example.py: lower + strip, answer contained in the prediction; HME100k spaces removed",
    "Yuliang-Liu/MultimodalOCR@794c36d OCRBench/example.py (scoring block)",
    "MultimodalOCR@794c36d",
    score_official,
    _aggregate_official,
)
LMMS_EVAL = _profile(
    "lmms-eval",
    "lmms-eval: example.py's rule on the stripped prediction, full-width ASCII folded",
    "EvolvingLMMs-Lab/lmms-eval@75571cf tasks/ocrbench/utils.py (fold since bbddc79)",
    "lmms-eval@0.7.3",
    score_lmms_eval,
    _aggregate_lmms_eval,
)
LMMS_EVAL_2025 = _profile(
    "lmms-eval-2025",
    "lmms-eval before bbddc79 (2026-07-30): no full-width folding",
    "EvolvingLMMs-Lab/lmms-eval tasks/ocrbench/utils.py before bbddc79",
    "lmms-eval@pre-bbddc79",
    score_lmms_eval_2025,
    _aggregate_lmms_eval,
)
VLMEVALKIT = _profile(
    "vlmevalkit",
    "VLMEvalKit OCRBench.evaluate: HME by category, Final Score and Final Score Norm",
    "open-compass/VLMEvalKit@e8e78f0 vlmeval/dataset/image_vqa.py OCRBench.evaluate",
    "VLMEvalKit@e8e78f0",
    score_vlmevalkit,
    _aggregate_vlmevalkit,
)

TASK = register_task(
    Task(
        name="ocrbench",
        title="OCRBench",
        metric="ocrbench-count",
        description="1,000 OCR questions, answer contained in the prediction; a count of 1000",
        profiles=(OFFICIAL, LMMS_EVAL, LMMS_EVAL_2025, VLMEVALKIT),
        read=_read,
        layouts=(
            "OCRBench.json items with 'predict' (dataset_name, type, answers, predict)",
            "VLMEvalKit spreadsheet (index, question, answer as a list literal, category, "
            "prediction)",
            "lmms-eval --log_samples JSONL (doc.answer, doc.dataset, doc.question_type, "
            "filtered_resps); without doc: --annotations OCRBench.json, joined by position",
        ),
        aliases=("ocr-bench",),
        annotations_optional=True,
    )
)
