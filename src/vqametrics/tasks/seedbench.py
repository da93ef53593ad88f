"""SEED-Bench (image dimensions 1–9): four-option questions in nine categories.

No official generative scorer exists: SEED-Bench's own protocol ranks the likelihood of each
option (``eval.py`` at AILab-CVC/SEED-Bench@991e849, whose accuracy loop also reads keys the
records never store), so every reported generative SEED-IMG number comes from a toolkit and
the default profile is VLMEvalKit's (spec mcq-reasoning.md §7).

- ``vlmevalkit`` / ``vlmevalkit-2025`` / ``vlmevalkit-2024`` — ``can_infer`` of the era, the
  recorded judge, ``report_acc`` over ``category`` (``SEEDBench_IMG_acc.csv``);
- ``lmms-eval`` — the first character of the stripped output, compared case-insensitively;
  ``seed_image`` / ``seed_all`` are micro means over the rows of each ``data_type``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..aggregate.formulas import group_by
from ..kernels.choice.lmms import seedbench_first_char, seedbench_hit
from . import register_task
from ._base import Aggregate, Item, TaskData, TaskInputs
from ._lmms import MetricRecord
from ._mcq import (
    LmmsDoc,
    doc_answer,
    lmms_hit_profile,
    read_mcq,
    vlmevalkit_choice_task,
)

__all__: list[str] = []


def _lmms_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """lmms-eval ``seed_aggregation_result``: ``correct / count`` per ``data_type`` metric
    (``seed_image``, ``seed_video``) and over all rows (``seed_all``). A VLMEvalKit sheet has
    no ``data_type``: its rows are images."""
    by_type = group_by([str(it.fields.get("data_type") or "image") for it in items], scores)
    metrics: dict[str, float | int] = {}
    for kind, v in by_type.items():
        metrics[f"seed_{kind}"] = sum(1 for s in v if s) / len(v)
    metrics["seed_all"] = sum(1 for s in scores if s) / len(scores) if scores else float("nan")
    metrics["n"] = len(scores)
    headline = "seed_image" if "seed_image" in metrics else "seed_all"
    return Aggregate(metrics=metrics, headline=headline, units="fraction", digits=4)


def _seed_options(doc: Mapping[str, Any]) -> dict[str, str]:
    return {
        letter: str(doc[f"choice_{letter.lower()}"])
        for letter in "ABCD"
        if doc.get(f"choice_{letter.lower()}") is not None
    }


def _seed_recorded(row: Mapping[str, Any], where: str) -> float | None:
    """The hit lmms-eval's aggregation gives the record's own ``pred`` (``seed_all``)."""
    rec = row.get("seed_all")
    if not isinstance(rec, Mapping) or not isinstance(rec.get("pred"), str):
        return None
    return float(rec["pred"].lower().strip() == str(rec.get("answer", "")).lower().strip())


_LMMS_DOC = LmmsDoc(
    id_keys=("question_id",),
    gold=doc_answer,
    options=_seed_options,
    fields=("data_type",),
    recorded=_seed_recorded,
    # no doc (lmms-eval 0.4 on): seed_process_result's {pred, answer, question_id} under
    # "seed_all" and "seed_<data_type>"; target = doc["answer"]
    record=MetricRecord(
        metrics=("seed_all",),
        doc={"question_id": "question_id"},
        key_field="data_type",
        key_prefix="seed_",
    ),
)


def _read(inputs: TaskInputs) -> TaskData:
    return read_mcq(inputs, fields=("category", "split", "question", "data_type"), lmms=_LMMS_DOC)


def _lmms_detail(item: Item) -> Mapping[str, Any]:
    """The per-sample ``pred`` lmms-eval records (the first character)."""
    return {} if item.prediction is None else {"pred": seedbench_first_char(item.prediction)}


LMMS_EVAL = replace(
    lmms_hit_profile(
        "seedbench",
        seedbench_hit,
        "lmms_eval_seedbench",
        "lmms-eval seedbench: first character of the output, micro mean per data_type",
        _lmms_aggregate,
    ),
    detail=_lmms_detail,
)

TASK = register_task(
    vlmevalkit_choice_task(
        name="seedbench",
        title="SEED-Bench (image)",
        description="four-option questions over nine image dimensions (no generative official)",
        dataset="SEEDBench_IMG",
        lmms_eval=LMMS_EVAL,
        read=_read,
        layouts=(
            "VLMEvalKit sheet (index, question, A-D, answer, category, prediction)",
            "VLMEvalKit record {model}_SEEDBench_IMG_{judge}_result.xlsx (hit, log)",
            "lmms-eval --log_samples with doc (question, choice_a..d, answer, data_type)",
            "lmms-eval --log_samples without doc: target + the seed_all record (question_id) and "
            "its seed_<data_type> key",
        ),
        aliases=("seedbench-img", "seed-bench"),
        note=(
            "no official generative scorer (the official protocol ranks option likelihoods); "
            "the default profile is VLMEvalKit's"
        ),
    )
)
