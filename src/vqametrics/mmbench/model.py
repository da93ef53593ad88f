"""Value objects of MMBench scoring: one TSV row, a data set, a prediction set."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

__all__ = ["CIRCULAR_STRIDE", "MMBenchData", "MMBenchRow", "Predictions"]

#: Copy k of question g has index ``g + k * CIRCULAR_STRIDE`` (spec mmbench.md §1).
CIRCULAR_STRIDE = 1_000_000


@dataclass(frozen=True)
class MMBenchRow:
    """One row of an MMBench TSV: one prompt sent to the model.

    Attributes
    ----------
    index:
        Unique row id. ``index % 1_000_000`` is the question (group) id; the row with
        ``index == g_index`` is pass 0, the original option order.
    options:
        Option letter -> text, non-empty options only, in letter order. Treat as read-only.
    answer:
        The correct letter for this row (already rotated in circular copies).
    question, hint:
        Texts; the question goes into the judge prompt.
    category, l2_category, split:
        L3 ability, L2 ability and split (``""`` when absent), used in reports.
    n_columns:
        Option columns A-D present in the file, empty or not (used only by the ``lmms-eval``
        random fallback); ``0`` means ``len(options)``.
    line:
        First line of the row in its source file (for messages); ``0`` if unknown.
    """

    index: int
    options: Mapping[str, str]
    answer: str
    question: str = ""
    hint: str = ""
    category: str = ""
    l2_category: str = ""
    split: str = ""
    n_columns: int = 0
    line: int = field(default=0, compare=False)

    def __reduce__(self) -> tuple[Any, ...]:
        return _reduce_read_only(self)

    @property
    def g_index(self) -> int:
        """The question id, ``index % 1_000_000``."""
        return self.index % CIRCULAR_STRIDE

    @property
    def pass_number(self) -> int:
        """0 for the original row, k for circular copy k."""
        return self.index // CIRCULAR_STRIDE


@dataclass(frozen=True)
class MMBenchData:
    """The rows of an MMBench TSV (with answers), and where they came from."""

    rows: tuple[MMBenchRow, ...]
    source: str = "<data>"


@dataclass(frozen=True)
class Predictions:
    """Predictions keyed by row index; ``None`` marks an empty cell (pandas would read NaN)."""

    values: Mapping[int, str | None]
    source: str = "<predictions>"
    #: rows whose index came again and replaced the earlier one (``on_duplicate="last"``)
    duplicates: int = 0

    def __reduce__(self) -> tuple[Any, ...]:
        return _reduce_read_only(self)


def _reduce_read_only(obj: Any) -> tuple[Any, ...]:
    """Pickle a value object whose mappings are read-only views (``MappingProxyType``, which
    pickle refuses): as plain dicts, wrapped again when unpickled."""
    values = tuple(getattr(obj, f.name) for f in fields(obj))
    proxied = tuple(i for i, v in enumerate(values) if isinstance(v, MappingProxyType))
    plain = tuple(dict(v) if i in proxied else v for i, v in enumerate(values))
    return (_read_only_again, (type(obj), plain, proxied))


def _read_only_again(cls: type, values: tuple[Any, ...], proxied: tuple[int, ...]) -> Any:
    return cls(*(MappingProxyType(v) if i in proxied else v for i, v in enumerate(values)))
