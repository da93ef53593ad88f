"""The paper table: a toolkit's whole output folder as one table, models × benchmarks, every
cell re-scored with the benchmark's official scorer and set beside the toolkit's own number.

>>> t = table("outputs/")                                  # doctest: +SKIP
>>> print(t.to_markdown())                                 # doctest: +SKIP

Files are recognized by name (:mod:`.discover`, the names in :mod:`.benchmarks`), scored with
:func:`vqametrics.evaluate` (:mod:`.build`), averaged (:mod:`.averages`) and
laid out (:mod:`.render`).
"""

from __future__ import annotations

from .benchmarks import BENCHMARKS, LMMS_EVAL_TASKS, VLMEVALKIT_DATASETS, Benchmark, Measure
from .build import table
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
