"""A VLMEvalKit MMBench sheet's own scores (its ``_acc.csv``) set beside ours, metric by
metric, with the extractor lineages to try when they differ."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..core.display import text_table
from ..kernels.choice.heuristics import list_extractors
from ..readers.layouts import locate_reported

if TYPE_CHECKING:
    from .circular import MMBenchResult

__all__ = ["compare_reported", "format_reported"]


def compare_reported(
    result: MMBenchResult, path: str, given: str | None = None
) -> dict[str, Any] | None:
    """VLMEvalKit's ``_acc.csv`` (*given*, else found beside the sheet *path*) set beside
    *result*'s table: the same split rows and columns, each as ``{metric, reported,
    recomputed, difference}`` in ``"compared"``; ``None`` when there is no such file."""
    rep = locate_reported(path, given)
    if rep is None or (given is None and rep["toolkit"] != "VLMEvalKit"):
        return None  # found beside: only VLMEvalKit's _acc.csv has MMBench's table
    toolkit, source, values = rep["toolkit"], rep["source"], rep["values"]
    table = result.tables.get("circular") or next(iter(result.tables.values()))
    ours = {str(row.get("split", "none")): row for row in table}
    compared = []
    for key, theirs_row in values.items():
        if not isinstance(theirs_row, dict):
            continue
        split = str(theirs_row.get("split", key))
        mine_row = ours.get(split) or (next(iter(ours.values())) if len(ours) == 1 else None)
        if mine_row is None:
            continue
        for metric, theirs in theirs_row.items():
            mine = mine_row.get(metric)
            if isinstance(theirs, float) and isinstance(mine, int | float):
                label = metric if len(values) == 1 else f"{split} / {metric}"
                compared.append(
                    {
                        "metric": label,
                        "reported": theirs,
                        "recomputed": mine,
                        "difference": mine - theirs,
                    }
                )
    return {"source": source, "toolkit": toolkit, "values": values, "compared": compared}


def format_reported(reported: Mapping[str, Any], extractor: str) -> str:
    """The comparison as a table (``0`` where the numbers are equal to the last bit) and,
    when they differ, the other VLMEvalKit extractor lineages to try."""
    head = f"reported by {reported['toolkit']} ({reported['source']}) vs recomputed"
    rows = reported["compared"]
    if not rows:
        return head + ": no number in common"
    cells = [
        [
            r["metric"],
            f"{r['reported']:.4f}",
            f"{r['recomputed']:.4f}",
            "0" if r["difference"] == 0 else f"{r['difference']:+.4f}",
        ]
        for r in rows
    ]
    out = head + ":\n" + text_table(cells, ["metric", "reported", "recomputed", "difference"], 4)
    if any(r["difference"] != 0 for r in rows):
        others = [
            f"--extractor {e.name} ({e.period})"
            for e in list_extractors()
            if e.name.startswith("vlmevalkit") and e.name != extractor
        ]
        out += (
            "\nthe numbers differ: the sheet may come from another VLMEvalKit release; try "
            + "; ".join(others)
        )
    return out
