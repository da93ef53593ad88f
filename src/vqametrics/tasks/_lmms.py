"""The lmms-eval ``--log_samples`` adapter, re-exported under its old name: it lives in
:mod:`vqametrics.readers.lmms_eval`, generic over tasks."""

from __future__ import annotations

from ..readers.lmms_eval import (
    TOOLKIT_SCORE,
    MetricRecord,
    clean_samples,
    drop_empty,
    empty_error,
    has_docs,
    is_lmms_eval,
    lmms_eval_items,
    lmms_eval_predictions,
    no_doc_error,
    positional_items,
    record_docs,
    sample_score,
    unique_samples,
    with_notes,
    with_record_docs,
    without_questions,
)

__all__ = [
    "TOOLKIT_SCORE",
    "MetricRecord",
    "clean_samples",
    "drop_empty",
    "empty_error",
    "has_docs",
    "is_lmms_eval",
    "lmms_eval_items",
    "lmms_eval_predictions",
    "no_doc_error",
    "positional_items",
    "record_docs",
    "sample_score",
    "unique_samples",
    "with_notes",
    "with_record_docs",
    "without_questions",
]
