"""A measure's number in an evaluation, in the table's units (fractions as percent)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .benchmarks import Measure

if TYPE_CHECKING:
    from ..tasks._run import TaskEvaluation

__all__ = ["DISPLAY_DIGITS", "display", "our_value"]

#: units a cell is printed in, and its default digits (MME in points, OCRBench a count)
DISPLAY_DIGITS = {"percent": 1, "points": 1, "count": 0}


def display(value: float | int, units: str) -> tuple[float, str]:
    """A number in the table's units: fractions as percent; percent, points, counts as is."""
    if units == "fraction":
        return float(value) * 100.0, "percent"
    return float(value), units


def our_value(ev: TaskEvaluation, measure: Measure) -> tuple[float, str] | None:
    """The measure's number in *ev* (first of ``measure.ours`` found), in the table's units."""
    agg = ev.aggregate
    for name in measure.ours:
        value: Any = None
        if name == "":
            value = agg.metrics.get(agg.headline)
        elif "/" in name:
            group, metric = name.split("/", 1)
            for groups in agg.breakdowns.values():
                if group in groups and metric in groups[group]:
                    value = groups[group][metric]
                    break
        else:
            value = agg.metrics.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return display(value, agg.units)
    return None
