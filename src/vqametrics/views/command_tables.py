"""The table of ``mmbench``: one row per system (results file) and split.

``vqa``, ``diff`` and ``score`` build theirs in :mod:`vqametrics.analysis.systems` (they add paired
comparisons), ``compare`` and ``profiles`` in :mod:`vqametrics.analysis.render`; this one has no
per-question score shared by every column, so it lists the numbers side by side only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .tables import Table

if TYPE_CHECKING:
    from ..mmbench import MMBenchResult

__all__ = ["mmbench_table"]


def mmbench_table(names: Sequence[str], results: Sequence[MMBenchResult], digits: int = 2) -> Table:
    """``mmbench``: per system and split of the headline table, the overall and per-ability
    accuracies in percent."""
    columns: list[str] = []
    for r in results:
        for row in r.tables[r.headline]:
            columns.extend(k for k in row if k != "split" and k not in columns)
    rows: list[tuple[Any, ...]] = []
    for name, r in zip(names, results, strict=True):
        for row in r.tables[r.headline]:
            cells = [row.get(c) for c in columns]
            rows.append(
                (name, row["split"], *(None if v is None else 100 * float(v) for v in cells))
            )
    notes = tuple(dict.fromkeys(r.signature for r in results))
    return Table(
        ("system", "split", *columns),
        tuple(rows),
        notes=notes,
        digits=digits,
        text_columns=frozenset({0, 1}),
    )
