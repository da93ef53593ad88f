"""Averages across a table's benchmarks, as papers and leaderboards compute them.

``mean``: the mean of the printed percent columns (points and counts are left out, and said).

``opencompass``: the OpenCompass multi-modal leaderboard's average of 8 benchmarks. VLMEvalKit
(@e8e78f0) names them where it treats that set together (``vlmeval/api/bluelm_api.py``: the
MMBench v1.1 test splits EN and CN, AI2D_TEST, MMMU_DEV_VAL, MMStar, OCRBench, MMVet,
MathVista_MINI, HallusionBench). Each enters in percent: OCRBench as its ``Final Score Norm``,
the final score divided by 10 (``vlmeval/dataset/utils/ocrbench.py``); HallusionBench as the
mean of aAcc, fAcc and qAcc (spec mcq-reasoning.md §HallusionBench); MMBench v1.1 once, as the
mean of its EN and CN test splits; the others by their overall accuracy. The numbers are the
table's, under the chosen profiles (``--profile vlmevalkit`` for VLMEvalKit's own scoring).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.exceptions import InputError
from .benchmarks import benchmark
from .values import our_value

__all__ = ["AVERAGES", "OPENCOMPASS", "add_averages"]

#: the OpenCompass average's parts: name → the benchmark keys that make it
OPENCOMPASS: dict[str, tuple[str, ...]] = {
    "MMBench v1.1": ("MMBench_TEST_EN_V11", "MMBench_TEST_CN_V11"),
    "MMStar": ("MMStar",),
    "MMMU": ("MMMU_DEV_VAL",),
    "MathVista": ("MathVista_MINI",),
    "HallusionBench": ("HallusionBench",),
    "AI2D": ("AI2D_TEST",),
    "OCRBench": ("OCRBench",),
    "MM-Vet": ("MMVet",),
}
AVERAGES = ("mean", "opencompass")


def add_averages(table: Any, names: Sequence[str], evaluations: Mapping[Any, Any]) -> None:
    """Add the averages *names* to *table* (a column each), with a note per model for which
    one cannot be computed, naming what is missing."""
    for name in names:
        if name == "mean":
            _mean(table)
        elif name == "opencompass":
            _opencompass(table, evaluations)
        else:
            raise InputError(f"--average {name}: choose one of: {', '.join(AVERAGES)}")


def _mean(table: Any) -> None:
    cols = [
        c
        for c in table.columns
        if all(
            table.cells[(m, c.id)].units == "percent"
            for m in table.models
            if table.cells[(m, c.id)].value is not None
        )
    ]
    left = [c.id for c in table.columns if c not in cols]
    values: dict[str, float | None] = {}
    for m in table.models:
        cells = [table.cells[(m, c.id)] for c in cols]
        lacking = [c.column.id for c in cells if c.value is None]
        if lacking or not cells:
            values[m] = None
            table.average_notes.append(
                f"mean: {m} lacks {', '.join(lacking) or 'every percent column'}; no mean"
            )
            continue
        values[m] = sum(c.value for c in cells if c.value is not None) / len(cells)
    table.averages["Mean"] = values
    text = f"Mean: the mean of {', '.join(c.id for c in cols) or 'no column'}"
    if left:
        text += f" (left out, not in percent: {', '.join(left)})"
    table.average_notes.insert(0, text)


def _part(ev: Any, key: str) -> float | None:
    """One OpenCompass part of a run, in percent."""
    metrics = ev.aggregate.metrics
    if key == "HallusionBench":
        if all(k in metrics for k in ("aAcc", "fAcc", "qAcc")):
            return float(metrics["aAcc"] + metrics["fAcc"] + metrics["qAcc"]) / 3
        return None
    found = our_value(ev, benchmark(key).measures[0])
    if found is None:
        return None
    value, units = found
    if key == "OCRBench" and units == "count":
        return value / 10.0  # Final Score Norm
    return value if units == "percent" else None


def _opencompass(table: Any, evaluations: Mapping[Any, Any]) -> None:
    values: dict[str, float | None] = {}
    for m in table.models:
        parts: list[float] = []
        lacking: list[str] = []
        for name, keys in OPENCOMPASS.items():
            got = []
            for key in keys:
                entry = evaluations.get((m, key))
                value = _part(entry[0], key) if entry is not None else None
                if value is None:
                    lacking.append(f"{name} ({key})")
                else:
                    got.append(value)
            if len(got) == len(keys):
                parts.append(sum(got) / len(got))
        if lacking:
            values[m] = None
            table.average_notes.append(
                f"OpenCompass: {m} lacks {', '.join(lacking)}; the average needs all 8 of "
                f"{', '.join(OPENCOMPASS)}"
            )
        else:
            values[m] = sum(parts) / len(parts)
    table.averages["OpenCompass"] = values
    table.average_notes.insert(
        0,
        "OpenCompass: the mean of "
        + ", ".join(OPENCOMPASS)
        + " in percent (OCRBench / 10, HallusionBench the mean of aAcc, fAcc and qAcc, "
        "MMBench v1.1 the mean of EN and CN)",
    )
