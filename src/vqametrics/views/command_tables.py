"""The tables of ``compare``, ``profiles`` and ``mmbench``: one row per system (results file).

``vqa``, ``diff`` and ``score`` build theirs in :mod:`vqametrics.analysis.systems` (they add paired
comparisons); these three commands have no per-question score shared by every column, so
their tables list the numbers side by side only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .tables import Table

if TYPE_CHECKING:
    from ..analysis.compare import Comparison
    from ..analysis.profile_diff import ProfileComparison
    from ..mmbench import MMBenchResult

__all__ = ["comparison_table", "mmbench_table", "profiles_table"]


def comparison_table(names: Sequence[str], results: Sequence[Comparison], digits: int = 2) -> Table:
    """``compare``: VQA accuracy, EM, EM-any (and multiple choice) per system, in percent."""
    labels: dict[str, str] = {}
    for r in results:
        for m in r.metrics:
            labels.setdefault(m.key, m.label)
    rows = []
    for name, r in zip(names, results, strict=True):
        values = {m.key: m.value for m in r.metrics}
        rows.append((name, r.n_questions, *(values.get(k) for k in labels)))
    notes = tuple(dict.fromkeys(r.signature.format() for r in results))
    return Table(("system", "n", *labels.values()), tuple(rows), notes=notes, digits=digits)


def profiles_table(
    names: Sequence[str], results: Sequence[ProfileComparison], digits: int = 2
) -> Table:
    """``profiles``: the overall VQA accuracy of each system under every profile (percent,
    unrounded in CSV/JSON)."""
    profiles = list(results[0].profiles)
    rows = [
        (name, len(r.question_ids), len(r.differing), *(r.accuracy(p, None) for p in profiles))
        for name, r in zip(names, results, strict=True)
    ]
    return Table(("system", "n", "questions differing", *profiles), tuple(rows), digits=digits)


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
