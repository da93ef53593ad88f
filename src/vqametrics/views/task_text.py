"""The terminal view of any task's score: metrics, breakdowns, reported vs recomputed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..readers.layouts import reported_numbers
from .text import table

if TYPE_CHECKING:
    from ..tasks._base import Aggregate
    from ..tasks._run import TaskEvaluation

__all__ = ["task_text"]


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
        names = names or [p.name for p in result.task.profiles if _is_vlmevalkit(p)]
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
        same = _is_vlmevalkit if not lmms else (lambda p: p.toolkit.startswith("lmms-eval"))
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


def reported_comparable(result: TaskEvaluation, reported: Mapping[str, Any]) -> bool:
    """Whether *reported* is set beside *result*'s numbers: lmms-eval's always (its task names
    its metrics), VLMEvalKit's only under a VLMEvalKit profile (else a difference would be the
    toolkits' disagreement, not a reproduction check); a record naming its ``profiles`` (an
    official score file) only under those."""
    if reported.get("profiles") is not None:
        return result.profile.name in reported["profiles"]
    return reported.get("toolkit") == "lmms-eval" or _is_vlmevalkit(result.profile)


def reported_pairs(
    result: TaskEvaluation, reported: Mapping[str, Any]
) -> list[tuple[str, float, float]]:
    """``(metric, reported, recomputed)`` for every reported number that has a counterpart of
    the same meaning among ours (lmms-eval's fractions scaled to our units)."""
    ours = _flat(result)
    lmms = reported.get("toolkit") == "lmms-eval"
    rows: list[tuple[str, float, float]] = []
    n_groups = len(reported.get("values", {}))
    for group, key, theirs in reported_numbers(reported):
        if lmms:
            # lmms-eval: "<metric>,<filter>" per task, as fractions
            mine = _lmms_counterpart(result, ours, group, key, n_groups)
            if mine is not None:
                # lmms-eval's metrics are fractions, unless the record says they are percent
                percent = result.aggregate.units == "percent" and reported.get("units") != "percent"
                scale = 100.0 if percent else 1.0
                rows.append((f"{group} / {key}", theirs * scale, float(mine)))
            continue
        mine = ours.get((group, key))
        if mine is None and group == "all":
            mine = ours.get(("all", key)) or ours.get(("*", key))
        if mine is not None:
            label = key if group == "all" else f"{group} / {key}"
            rows.append((label, theirs, float(mine)))
    return rows


def _lmms_counterpart(
    result: TaskEvaluation,
    ours: Mapping[tuple[str, str], float | int],
    group: str,
    key: str,
    n_groups: int,
) -> float | int | None:
    """Our number for lmms-eval's ``results[group]["<metric>,<filter>"]``: the metric of the
    same name without the task prefix (``pope_f1_score`` → ``f1_score``), in the breakdown
    group of that name; for a lone task, the overall metric of that name, or our headline
    when lmms-eval's metric is the task's main one. ``None`` when nothing corresponds (never
    a number set beside the wrong one)."""
    metric = key.split(",", 1)[0]
    names = [metric]
    if metric in result.task.reported_names:
        names.insert(0, result.task.reported_names[metric])
    for prefix in (group, result.task.name):
        if metric.startswith(prefix + "_"):
            names.append(metric[len(prefix) + 1 :])
    for g in ("all", group) if n_groups == 1 else _our_groups(ours, group, result.task.name):
        for name in names:
            if (g, name) in ours:
                return ours[(g, name)]
    headline = result.aggregate.headline
    if n_groups == 1 and any(n in (headline, "exact_match", "relaxed_overall") for n in names):
        return result.headline
    return None


def _our_groups(
    ours: Mapping[tuple[str, str], float | int], group: str, task: str
) -> tuple[str, ...]:
    """Our breakdown group for lmms-eval's subtask *group*: the same name, or the one group
    whose name starts with what follows the task prefix (``pope_adv`` → ``adversarial``)."""
    if any(g == group for g, _ in ours):
        return (group,)
    rest = group[len(task) + 1 :] if group.startswith(task + "_") else ""
    found = {g for g, _ in ours if rest and g.startswith(rest)}
    return tuple(found) if len(found) == 1 else ()


def _is_vlmevalkit(profile: Any) -> bool:
    """A profile reproducing VLMEvalKit (MMBench's profiles are named after the extractor)."""
    return bool(profile.toolkit.startswith("VLMEvalKit") or profile.name.startswith("vlmevalkit"))


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


def _flat(result: TaskEvaluation) -> dict[tuple[str, str], float | int]:
    """Our numbers keyed by ``(group, metric)``; overall ones under ``("all", metric)``, and
    every breakdown group's under ``("*", group)`` when it has a single accuracy-like value."""
    out: dict[tuple[str, str], float | int] = {}
    for k, v in result.aggregate.metrics.items():
        out[("all", k)] = v
    for groups in result.aggregate.breakdowns.values():
        for g, metrics in groups.items():
            for k, v in metrics.items():
                out[(g, k)] = v
            main = [v for k, v in metrics.items() if k != "n"]
            if len(main) == 1:
                out[("*", g)] = main[0]
    return out
