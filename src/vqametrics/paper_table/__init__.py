"""The paper table: a toolkit's whole output folder as one table, models × benchmarks, every
cell re-scored with the benchmark's official scorer and set beside the toolkit's own number.

>>> t = table("outputs/")                                  # doctest: +SKIP
>>> print(t.to_markdown())                                 # doctest: +SKIP

Files are recognized by name (:mod:`.discover`, the names in :mod:`.benchmarks`), scored with
:func:`vqametrics.evaluate` (:mod:`.build`), averaged (:mod:`.averages`) and
laid out (:mod:`.render`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..core.arguments import ArgumentTypeError, check
from .benchmarks import BENCHMARKS, LMMS_EVAL_TASKS, VLMEVALKIT_DATASETS, Benchmark, Measure
from .build import build_table
from .cells import Cell, Column, PaperTable

__all__ = [
    "BENCHMARKS",
    "LMMS_EVAL_TASKS",
    "VLMEVALKIT_DATASETS",
    "Benchmark",
    "Cell",
    "Column",
    "Measure",
    "PaperTable",
    "table",
]


def table(
    paths: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
    *,
    tasks: Sequence[str] | None = None,
    profiles: Iterable[str] | Mapping[str, str] | str | None = None,
    names: Mapping[str, str] | None = None,
    columns: Sequence[str] | None = None,
    average: str | Sequence[str] | None = None,
    digits: int | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    search: bool = True,
) -> PaperTable:
    """One row per model, one column per benchmark, from toolkit output folders or files.

    Parameters
    ----------
    paths : path or paths
        VLMEvalKit output folders (``<model>/<model>_<DATASET>.xlsx`` with ``_acc.csv`` /
        ``_score.csv`` / ``_score.json`` beside), lmms-eval output folders
        (``<date>_samples_<task>.jsonl`` with ``<date>_results.json``), folders of such
        folders, or single files.
    tasks : names, optional
        Keep only these benchmarks: a task (``mmbench``), or a benchmark's title or
        VLMEvalKit dataset name (``CCBench``).
    profiles : ``["NAME", "TASK=NAME", …]`` or ``{task: name}``, optional
        The profile per task; a bare ``NAME`` applies to every task that has it. Default:
        each task's official scorer (when it cannot score the file, e.g. it needs a judge's
        verdicts, the profile of the toolkit that wrote the file, said in a note).
    names : ``{path: model}``, optional
        The model name of the runs under a path (default: from the file name; VLMEvalKit
        ``<model>_<DATASET>``, lmms-eval the folder's name); tells apart two runs of a model.
    columns : names, optional
        The columns, in order: a benchmark (its default columns), a column id (``MME-P``) or
        ``BENCHMARK:MEASURE`` (``POPE:random``).
    average : ``"mean"``, ``"opencompass"`` or both, optional
        Average columns (see :mod:`vqametrics.paper_table.averages`).
    digits : int, optional
        Digits of every cell (default: one decimal; OCRBench, a count, none).
    options : ``{task: {option: value}}``, optional
        Task options passed to the task's reader (``score TASK --OPTION``).
    progress : callable, optional
        ``progress(done, total, what)`` while files are found and scored.
    search : bool, default True
        For a cell that differs from the toolkit's number, score the file under the task's
        other profiles of that toolkit to name the one that reproduces it (each a re-read of
        the file); ``False`` marks the cell without searching.

    Returns
    -------
    PaperTable
        ``cells[(model, column id)]`` with each cell's unrounded number, the toolkit's number,
        the status (``reproduced``/``differs``/``no-reported``/``missing``), the profile that
        reproduces a differing number and the full :class:`TaskEvaluation`.
    """
    _check_arguments(locals())
    return build_table(
        paths,
        tasks=tasks,
        profiles=profiles,
        names=names,
        columns=columns,
        average=average,
        digits=digits,
        options=options,
        progress=progress,
        search=search,
    )


def _check_arguments(args: dict[str, Any]) -> None:
    """:func:`table`'s arguments of a wrong type: the library's error, before any file is read."""
    paths = args["paths"]
    if not isinstance(paths, str | os.PathLike):
        check("table", "paths", paths, "sequence")
        for p in paths:
            check("table", "each of paths", p, "path")
    for name in ("tasks", "columns"):
        check("table", name, args[name], "strs", optional=True)
    profiles, average = args["profiles"], args["average"]
    if profiles is not None and not isinstance(profiles, str | Mapping):
        check(
            "table", "profiles", list(profiles) if isinstance(profiles, set) else profiles, "strs"
        )
    if average is not None and not isinstance(average, str):
        check("table", "average", average, "strs")
    names, options = args["names"], args["options"]
    check("table", "names", names, "mapping", optional=True)
    if names and not all(isinstance(v, str) for v in names.values()):
        raise ArgumentTypeError("table: names must map paths to model names (strings)")
    check("table", "options", options, "mapping", optional=True)
    if options and not all(isinstance(v, Mapping) for v in options.values()):
        raise ArgumentTypeError("table: options must map tasks to {option: value} mappings")
    check("table", "digits", args["digits"], "int", optional=True, minimum=0)
    check("table", "progress", args["progress"], "callable", optional=True)
    check("table", "search", args["search"], "bool")
