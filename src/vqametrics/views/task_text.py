"""The terminal view of any task's score: metrics, breakdowns, reported vs recomputed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..pipeline.toolkit_check import reported_comparable, reported_pairs, vlmevalkit_profile
from ..readers.layouts import reported_numbers
from .text import table

if TYPE_CHECKING:
    from ..tasks._base import Aggregate
    from ..tasks._run import TaskEvaluation

__all__ = ["reported_comparable", "reported_pairs", "task_text"]


def task_text(result: TaskEvaluation, digits: int | None = None) -> str:
    """Metrics rounded as the toolkit displays them, each breakdown as a table, the toolkit's
    reported numbers beside ours when they were found, the notes and the signature."""
    agg = result.aggregate
    d = agg.digits if digits is None else digits
    unit = {"fraction": "", "percent": " (%)", "points": " (points)", "count": ""}[agg.units]
    lines = [f"{result.task.title} — profile {result.profile.name}{unit}"]
    rows = [[k, v] for k, v in agg.metrics.items()]
    lines.append(table(rows, ["metric", "value"], d))
    for name, groups in breakdowns(agg):
        keys = breakdown_columns(groups)
        grows = [[g, *(m.get(k, "") for k in keys)] for g, m in groups.items()]
        lines.append("")
        lines.append(table(grows, [name, *keys], d))
    reported = result.data.reported
    if reported:
        lines.append("")
        lines.append(_reported_text(result, reported, d))
    if result.sample_check is not None:
        lines.append(result.sample_check.format())
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


def _reported_text(result: TaskEvaluation, reported: Mapping[str, Any], digits: int) -> str:
    """Rows of ``metric  reported  recomputed  difference`` for every number both have.

    The reported numbers are VLMEvalKit's (its ``_acc.csv``/``_score.csv``), so they are set
    beside ours only under a VLMEvalKit profile; under another profile a difference would be
    the toolkits' disagreement (or their units), not a reproduction check, so they are listed
    alone, with the profile to compare them under.
    """
    source = reported.get("source", "?")
    lmms = reported.get("toolkit") == "lmms-eval"
    if not reported_comparable(result, reported):
        names = list(reported.get("profiles") or ())
        names = names or [p.name for p in result.task.profiles if vlmevalkit_profile(p)]
        hint = f"; compare with --profile {' or '.join(names)}" if names else ""
        head = (
            f"reported by {reported.get('toolkit', 'VLMEvalKit')} ({source}): not compared "
            f"under profile {result.profile.name}{hint}"
        )
        shown = [
            [key if group == "all" else f"{group} / {key}", theirs]
            for group, key, theirs in reported_numbers(reported)
        ]
        # the toolkit's own numbers are still shown, as it wrote them (its rule, its units)
        return head + ("\n" + table(shown, ["metric", "reported"], digits) if shown else "")
    rows = [
        (label, theirs, mine, _difference(mine - theirs, digits))
        for label, theirs, mine in reported_pairs(result, reported)
    ]
    head = f"reported by the toolkit ({source}) vs recomputed"
    if not rows:
        return head + ": no number in common"
    header = ["metric", "reported", "recomputed", "difference"]
    width = max(len(header[3]), *(len(r[3]) for r in rows))
    # the difference right-aligned like the numbers beside it
    cells = [
        [label, *_distinct(theirs, mine, digits), diff.rjust(width)]
        for label, theirs, mine, diff in rows
    ]
    out = head + ":\n" + table(cells, header, digits)
    if any(diff != "0" for *_, diff in rows):
        same = vlmevalkit_profile if not lmms else (lambda p: p.toolkit.startswith("lmms-eval"))
        named = reported.get("profiles")
        others = [
            p
            for p in result.task.profiles
            if (p.name in named if named is not None else same(p)) and p is not result.profile
        ]
        if others:
            alts = "; ".join(f"--profile {p.name} ({p.description})" for p in others)
            out += (
                "\nthe numbers differ: the file may come from another release of the toolkit; "
                f"its other profiles here: {alts}"
            )
    return out


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
