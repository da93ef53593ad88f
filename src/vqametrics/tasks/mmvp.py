"""MMVP (300 = 150 pairs): pairs of images that CLIP sees alike, one question each.

No official scorer was read (spec mcq-reasoning.md §13); the default profile is VLMEvalKit's.

- ``vlmevalkit`` / ``vlmevalkit-2025`` / ``vlmevalkit-2024`` — ``report_acc_MMVP``: ``Average``
  = the item mean, ``Overall`` = the share of pairs with both items right. The pairing is
  positional in the index-sorted sheet: rows 2i and 2i+1 must ask the same question
  (VLMEvalKit asserts it).
- ``lmms-eval`` — lmms-eval@75571cf ``tasks/mmvp/utils.py``: its own A/B letter patterns
  (``_extract_answer_letter``), ``mmvp_accuracy`` = right / all and ``mmvp_pair_accuracy`` =
  the pairs (``pair_index = (Index - 1) // 2``, from the record) with both items right, over
  the pairs that have two samples.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..core.exceptions import InputError
from ..kernels.choice.lmms import mmvp_letter
from . import register_task
from ._base import Aggregate, Item, TaskData, TaskInputs
from ._lmms import MetricRecord
from ._mcq import (
    LmmsDoc,
    doc_answer,
    lmms_letter_profile,
    pair_accuracy,
    read_mcq,
    record_hit,
    require_options,
    vlmevalkit_choice_task,
)

__all__: list[str] = []

_METRICS = ("mmvp_accuracy", "mmvp_pair_accuracy")


def _aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``report_acc_MMVP``: ``Average = np.mean(hit)``, ``Overall = np.mean(pair both
    right)``.

    QUIRK pair-headline: VLMEvalKit's ``Overall`` is the pair accuracy, not the item mean (its
    ``Average``); kept, that is the number reported as MMVP.
    """
    average, overall = pair_accuracy(scores)
    return Aggregate(
        metrics={"Overall": overall, "Average": average, "n": len(scores)},
        headline="Overall",
        units="fraction",
        digits=4,
    )


def _lmms_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``mmvp_aggregate_results`` (right / all) and ``mmvp_aggregate_pair_results``: pairs
    grouped by ``pair_index``, a pair right when both samples are; a pair with one sample is
    left out of both counts (lmms-eval only warns)."""
    right = sum(1 for s in scores if s == 1.0)
    pairs: dict[Any, list[float]] = {}
    for it, s in zip(items, scores, strict=True):
        pairs.setdefault(it.fields.get("pair_index"), []).append(s)
    full = [v for v in pairs.values() if len(v) == 2]
    both = sum(1 for v in full if all(s == 1.0 for s in v))
    lone = [k for k, v in pairs.items() if len(v) == 1]
    notes = (
        (
            f"{len(lone)} pair(s) have one sample only (e.g. pair_index {lone[0]!r}): left out "
            "of mmvp_pair_accuracy, as lmms-eval does",
        )
        if lone
        else ()
    )
    return Aggregate(
        metrics={
            "mmvp_pair_accuracy": both / len(full) if full else 0.0,
            "mmvp_accuracy": right / len(scores) if scores else 0.0,
            "n": len(scores),
            "pairs": len(full),
        },
        headline="mmvp_pair_accuracy",
        units="fraction",
        digits=4,
        notes=notes,
    )


_OPTION = re.compile(r"\([a-z]\)\s*([^(]+?)(?=\s*\([a-z]\)|$)", re.IGNORECASE)


def _options(doc: Mapping[str, Any]) -> dict[str, str]:
    """``_parse_options``: ``(a) Open (b) Closed`` → ``{A: Open, B: Closed}``; a list as given."""
    raw = doc.get("Options", doc.get("options"))
    texts = [m.strip() for m in _OPTION.findall(raw)] if isinstance(raw, str) else raw
    if not isinstance(texts, list):
        return {}
    return {chr(ord("A") + i): str(t) for i, t in enumerate(texts)}


def _gold(doc: Mapping[str, Any], where: str) -> str:
    """``mmvp_doc_to_target``: ``(a)`` / ``a`` → A, ``(b)`` / ``b`` → B, else upper-cased."""
    raw = doc.get("Correct Answer", doc.get("answer"))
    if not isinstance(raw, str):
        return doc_answer(doc, where)
    answer = raw.strip().lower()
    if "(a)" in answer or answer == "a":
        return "A"
    if "(b)" in answer or answer == "b":
        return "B"
    return answer.upper()


_LMMS_DOC = LmmsDoc(
    id_keys=("Index", "index"),
    gold=_gold,
    options=_options,
    fields=("Index", "index", "pair_index", "Question", "question"),
    recorded=record_hit(*_METRICS),
    # no doc (lmms-eval 0.4 on): the record {index, pair_index, pred, pred_letter, gt,
    # is_correct}; target = mmvp_doc_to_target, the gold letter
    record=MetricRecord(metrics=_METRICS, doc={"index": "index", "pair_index": "pair_index"}),
)


def _pair_index(item: Item) -> Item:
    """``mmvp_process_results``: ``index = Index - 1`` when ``Index`` is a positive integer,
    ``pair_index = index // 2``; a record's own ``pair_index`` is kept."""
    if item.fields.get("pair_index") is not None:
        return item
    index = item.fields.get("Index", item.fields.get("index", -1))
    if isinstance(index, int) and index > 0:
        index -= 1
    if not isinstance(index, int):
        raise InputError(f"MMVP item {item.id!r}: Index {index!r} is not an integer")
    return replace(item, fields={**item.fields, "pair_index": index // 2})


def _read(inputs: TaskInputs) -> TaskData:
    data = read_mcq(inputs, fields=("category", "question"), lmms=_LMMS_DOC)
    profile = TASK.profile(inputs.profile).name
    if data.layouts[0].startswith("lmms-eval"):
        data = replace(data, items=[_pair_index(it) for it in data.items])
        return require_options(data, profile, "MMVP")
    items = data.items
    if len(items) % 2:
        raise InputError(
            f"{data.sources[0]}: {len(items)} rows; MMVP pairs rows 2i and 2i+1 (an even count)"
        )
    for i in range(0, len(items), 2):
        a, b = items[i], items[i + 1]
        if a.fields.get("question") != b.fields.get("question"):
            raise InputError(
                f"{data.sources[0]}: rows {a.id!r} and {b.id!r} form a pair but ask different "
                "questions (VLMEvalKit pairs rows 2i, 2i+1 of the index-sorted sheet)"
            )
    return data


LMMS_EVAL = lmms_letter_profile(
    "mmvp",
    mmvp_letter,
    "lmms_eval_mmvp",
    _lmms_aggregate,
    "lmms-eval mmvp: its A/B letter patterns; item and pair accuracy (pair_index from the record)",
)

TASK = register_task(
    vlmevalkit_choice_task(
        name="mmvp",
        title="MMVP",
        description="paired multiple choice: Overall = pairs with both items right",
        dataset="MMVP",
        aggregate=_aggregate,
        reproduces="multiple_choice.py report_acc_MMVP",
        lmms_eval=LMMS_EVAL,
        read=_read,
        layouts=(
            "VLMEvalKit sheet (index, question, A, B, answer, prediction), pairs in order",
            "lmms-eval --log_samples of mmvp, with doc (Index, Question, Options, Correct "
            "Answer) or without (target + the mmvp_accuracy record)",
        ),
        note="no official scorer was read; VLMEvalKit's pair accuracy is the default",
    )
)
