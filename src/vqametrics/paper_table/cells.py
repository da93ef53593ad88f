"""What a paper table holds: its columns, its cells (each with the evaluation behind it) and
the table itself, which renders as text, Markdown, LaTeX, CSV, JSON, HTML or a DataFrame."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..core.exceptions import UnknownNameError
from .benchmarks import Benchmark, Measure
from .discover import Run

if TYPE_CHECKING:
    from ..tasks._run import TaskEvaluation

__all__ = ["Cell", "Column", "PaperTable", "Status"]

Status = Literal["reproduced", "differs", "no-reported", "missing", "failed"]


@dataclass(frozen=True)
class Column:
    """One printed column: a benchmark and one of its measures (``MME-P``, ``TextVQA``)."""

    benchmark: Benchmark
    measure: Measure

    @property
    def id(self) -> str:
        b, m = self.benchmark, self.measure
        return b.title if not m.label else f"{b.title}-{m.label}"


@dataclass
class Cell:
    """One model's number for one column, with everything behind it.

    ``value`` is ours, unrounded, in the column's units (``units``: percent, points, count);
    ``reported`` the toolkit's, in the same units, when its score file had it. ``status``:
    ``reproduced`` (equal at the printed digits), ``differs``, ``no-reported``, ``missing``
    (the model has no run of the benchmark) or ``failed`` (its run could not be scored:
    ``error`` is the one-line error naming the file, a note under the table repeats it).
    ``reproduced_by`` names the profile whose number equals the toolkit's when ours differs
    (``None``: none of the task's profiles does).
    """

    model: str
    column: Column
    evaluation: TaskEvaluation | None = None
    value: float | None = None
    units: str = "percent"
    digits: int = 1
    reported: float | None = None
    reported_source: str | None = None
    status: Status = "missing"
    reproduced_by: str | None = None
    tried: tuple[str, ...] = ()
    file: str | None = None
    notes: tuple[str, ...] = ()
    error: str | None = None

    @property
    def profile(self) -> str | None:
        return self.evaluation.profile.name if self.evaluation is not None else None

    @property
    def signature(self) -> str | None:
        return self.evaluation.signature.format() if self.evaluation is not None else None

    def text(self, digits: int | None = None) -> str:
        """Our number at the printed digits (empty when missing)."""
        if self.value is None:
            return ""
        return f"{self.value:.{self.digits if digits is None else digits}f}"

    def reported_text(self, digits: int | None = None) -> str:
        if self.reported is None:
            return ""
        return f"{self.reported:.{self.digits if digits is None else digits}f}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "column": self.column.id,
            "benchmark": self.column.benchmark.key,
            "task": self.column.benchmark.task,
            "value": self.value,
            "units": self.units,
            "digits": self.digits,
            "reported": self.reported,
            "reported_source": self.reported_source,
            "status": self.status,
            "reproduced_by": self.reproduced_by,
            "file": self.file,
            "profile": self.profile,
            "signature": self.signature,
            "notes": list(self.notes),
            "error": self.error,
        }


@dataclass
class PaperTable:
    """Models × columns, every cell with its evaluation; rendered by ``to_markdown``,
    ``to_latex``, ``to_csv``, ``to_text``, ``to_json``, ``to_html`` and ``to_pandas``."""

    models: list[str]
    columns: list[Column]
    cells: dict[tuple[str, str], Cell]
    runs: list[Run]
    unrecognized: list[str]
    notes: list[str] = field(default_factory=list)
    averages: dict[str, dict[str, float | None]] = field(default_factory=dict)
    average_notes: list[str] = field(default_factory=list)
    digits: int | None = None
    #: whether differing cells were searched for the profile that reproduces the toolkit
    searched: bool = True

    def cell(self, model: str, column: str) -> Cell:
        """The cell of *model* in the column *column* (its id, e.g. ``MME-P``)."""
        try:
            return self.cells[(model, column)]
        except KeyError:
            raise UnknownNameError(
                f"no cell ({model!r}, {column!r}); models: {', '.join(self.models)}; "
                f"columns: {', '.join(c.id for c in self.columns)}"
            ) from None

    def evaluations(self) -> dict[tuple[str, str], TaskEvaluation]:
        """Every run's evaluation, by ``(model, benchmark key)``."""
        out: dict[tuple[str, str], TaskEvaluation] = {}
        for c in self.cells.values():
            if c.evaluation is not None:
                out[(c.model, c.column.benchmark.key)] = c.evaluation
        return out

    def differing(self) -> list[Cell]:
        return [c for c in self._ordered() if c.status == "differs"]

    def _ordered(self) -> list[Cell]:
        return [self.cells[(m, c.id)] for m in self.models for c in self.columns]

    def to_pandas(self) -> Any:
        """A DataFrame, models × columns, of our unrounded numbers (``.attrs["reported"]``:
        the toolkit's, same shape); needs pandas."""
        try:
            import pandas as pd
        except ImportError:
            from ..core.exceptions import MissingDependencyError
            from ..core.extras import install_hint

            raise MissingDependencyError(
                f"PaperTable.to_pandas needs pandas: {install_hint('pandas')}"
            ) from None
        data = {c.id: [self.cells[(m, c.id)].value for m in self.models] for c in self.columns}
        for name, values in self.averages.items():
            data[name] = [values.get(m) for m in self.models]
        frame = pd.DataFrame(data, index=pd.Index(self.models, name="model"))
        frame.attrs["reported"] = {
            c.id: {m: self.cells[(m, c.id)].reported for m in self.models} for c in self.columns
        }
        return frame

    def to_markdown(self, *, reported: bool = True) -> str:
        from .render import markdown

        return markdown(self, reported=reported)

    def to_latex(self, *, reported: bool = True) -> str:
        from .render import latex

        return latex(self, reported=reported)

    def to_csv(self) -> str:
        from .render import csv_text

        return csv_text(self)

    def to_text(self, *, reported: bool = True) -> str:
        from .render import text

        return text(self, reported=reported)

    def as_dict(self) -> dict[str, Any]:
        from .render import as_dict

        return as_dict(self)

    def to_json(self) -> str:
        import json

        return json.dumps(self.as_dict(), indent=2, ensure_ascii=False)

    def to_html(self, *, n_cards: int = 6) -> str:
        from .render import html

        return html(self, n_cards=n_cards)

    def __repr__(self) -> str:
        return (
            f"<PaperTable {len(self.models)} model(s) × {len(self.columns)} column(s), "
            f"{len(self.differing())} differing from the toolkit>"
        )

    def _repr_html_(self) -> str:
        from .render import html_table

        return html_table(self)
