"""The terminal view of any task's score: metrics, breakdowns, reported vs recomputed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .text import table

if TYPE_CHECKING:
    from ..pipeline.toolkit_check import ReportedComparison
    from ..tasks._base import Aggregate
    from ..tasks._run import TaskEvaluation

__all__ = ["reported_text", "task_text", "unit_suffix"]


def task_text(result: TaskEvaluation, digits: int | None = None) -> str:
    """Metrics rounded as the toolkit displays them, each breakdown as a table, the toolkit's
    reported numbers beside ours when they were found, the notes and the signature."""
    agg = result.aggregate
    d = agg.digits if digits is None else digits
    lines = [f"{result.task.title} — profile {result.profile.name}{unit_suffix(result)}"]
    rows = [[k, v] for k, v in agg.metrics.items()]
    lines.append(table(rows, ["metric", "value"], d))
    for name, groups in breakdowns(agg):
        keys = breakdown_columns(groups)
        grows = [[g, *(m.get(k, "") for k in keys)] for g, m in groups.items()]
        lines.append("")
        lines.append(table(grows, [name, *keys], d))
    if result.data.reported:
        lines.append("")
    reported = reported_text(result, d)
    if reported:
        lines.append(reported)
    for note in result.notes:
        lines.append(f"note: {note}")
    lines.append(f"read: {', '.join(result.data.layouts)}")
    lines.append(result.signature.format())
    return "\n".join(lines)


def breakdowns(agg: Aggregate) -> list[tuple[str, Mapping[Any, Mapping[str, Any]]]]:
    """The breakdowns that have groups, in order: ``(name, {group: metrics})``."""
    return [(name, groups) for name, groups in agg.breakdowns.items() if groups]


def breakdown_columns(groups: Mapping[Any, Mapping[str, Any]]) -> list[str]:
    """The metric names of a breakdown's groups, first seen first (a group may lack some)."""
    keys: list[str] = []
    for metrics in groups.values():
        keys.extend(k for k in metrics if k not in keys)
    return keys


def reported_text(result: TaskEvaluation, digits: int | None = None) -> str:
    """The toolkit's numbers beside ours (:func:`compare_reported`) and the per-sample check,
    as ``score TASK`` and ``vqa`` print them for every task; ``""`` when the file came with
    neither."""
    if not result.data.reported and result.sample_check is None:
        return ""  # nothing to set beside ours: the comparison is not even imported
    from ..pipeline.toolkit_check import compare_reported

    d = result.aggregate.digits if digits is None else digits
    comparison = compare_reported(result)
    lines = [] if comparison is None else [_comparison_text(result, comparison, d)]
    if result.sample_check is not None:
        lines.append(result.sample_check.format())
    return "\n".join(lines)


def _comparison_text(result: TaskEvaluation, c: ReportedComparison, digits: int) -> str:
    """Rows of ``metric  reported  recomputed  difference`` for every number both have, and
    the hint when one differs. Not compared under this profile (VLMEvalKit's numbers under
    another toolkit's profile: a difference would be the toolkits' disagreement, or their
    units, not a reproduction check): the toolkit's numbers alone, as it wrote them, with the
    profiles to compare them under."""
    source = c.source if c.source is not None else "?"
    if not c.compared:
        hint = f"; compare with --profile {' or '.join(c.compare_with)}" if c.compare_with else ""
        head = (
            f"reported by {c.toolkit or 'VLMEvalKit'} ({source}): not compared "
            f"under profile {result.profile.name}{hint}"
        )
        shown = [list(row) for row in c.shown]
        return head + ("\n" + table(shown, ["metric", "reported"], digits) if shown else "")
    head = f"reported by {c.toolkit or 'the toolkit'} ({source}) vs recomputed{unit_suffix(result)}"
    if not c.rows:
        return head + ": no number in common"
    header = ["metric", "reported", "recomputed", "difference"]
    cells = [
        [label, *_distinct(theirs, mine, digits), _difference(mine - theirs, digits)]
        for label, theirs, mine in c.rows
    ]
    # the numbers right-aligned under their headings (they are text, to show enough digits)
    for col in (1, 2, 3):
        width = max(len(header[col]), *(len(row[col]) for row in cells))
        for row in cells:
            row[col] = row[col].rjust(width)
    out = head + ":\n" + table(cells, header, digits)
    if c.hint is not None:
        out += f"\nthe numbers differ: {c.hint}"
    return out


def unit_suffix(result: TaskEvaluation) -> str:
    """The units after a heading: `` (%)`` for percent, nothing for fractions and counts."""
    units = result.aggregate.units
    return {"fraction": "", "percent": " (%)", "points": " (points)", "count": ""}[units]


def _distinct(theirs: float, mine: float, digits: int) -> tuple[str, str]:
    """Both numbers at *digits*, or with as many more digits as it takes to tell them apart
    (``60.162`` vs ``60.156``, never ``60.16`` vs ``60.16``)."""
    d = digits
    while d < 17 and f"{theirs:.{d}f}" == f"{mine:.{d}f}" and theirs != mine:
        d += 1
    width = max(len(f"{theirs:.{d}f}"), len(f"{mine:.{d}f}"))
    return f"{theirs:.{d}f}".rjust(width), f"{mine:.{d}f}".rjust(width)


def _difference(diff: float, digits: int) -> str:
    """``0`` when the numbers are equal to the last bit; otherwise the signed difference, in
    scientific notation when rounding to *digits* would show it as zero."""
    if diff == 0:
        return "0"
    if abs(diff) < 0.5 * 10.0**-digits:
        return f"{diff:+.1e}"
    return f"{diff:+.{digits}f}"
