"""lmms-eval ``--log_samples`` records as task items: the answer and the dataset row (``doc``)
are both in each record, so a log needs no annotation file."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .._exceptions import InputError
from ..load.layouts import Predictions
from ._base import Item

__all__ = ["has_docs", "lmms_eval_items"]


def has_docs(preds: Predictions) -> bool:
    """Whether *preds* came from an lmms-eval samples log whose records carry ``doc``."""
    return preds.layout.startswith("lmms-eval-samples") and all(
        isinstance(row.get("doc"), dict) for row in preds.records.rows
    )


def lmms_eval_items(
    preds: Predictions,
    *,
    id_keys: Sequence[str],
    references: Callable[[dict[str, Any], str], tuple[str, ...]],
    fields: Sequence[str] = (),
) -> list[Item]:
    """One item per log record: id = the first of *id_keys* found in ``doc`` (else
    ``doc_id``), references = ``references(doc, where)``, *fields* copied from ``doc``."""
    items = []
    for row, key, text, where in zip(
        preds.records.rows, preds.ids, preds.texts, preds.wheres, strict=True
    ):
        doc = row["doc"]
        item_id: str | int = key if isinstance(key, str | int) else str(key)
        for k in id_keys:
            v = doc.get(k)
            if isinstance(v, str | int) and not isinstance(v, bool):
                item_id = v
                break
        refs = references(doc, where)
        if not refs:
            raise InputError(f"{where}: the doc has no ground-truth answer")
        extra = {f: doc[f] for f in fields if doc.get(f) is not None}
        items.append(Item(item_id, text, refs, extra))
    return items
