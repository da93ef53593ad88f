"""The table as text, Markdown, LaTeX, CSV, JSON and HTML; the numbers come from the
:class:`~vqametrics.paper_table.build.PaperTable`, this module only lays them out."""

from __future__ import annotations

import csv
import io
import os
from typing import Any

from .._version import __version__
from ..views.tables import latex_escape, markdown_escape

# the table and its cells are typed Any here: build.py imports this module to render, and
# the layers test forbids an import back (even for type checking)
PaperTable = Any
Cell = Any

__all__ = ["as_dict", "csv_text", "html", "html_table", "latex", "legend", "markdown", "text"]

SCHEMA = "vqametrics-table/1"
_MARK = "*"


def _average_digits(table: PaperTable) -> int:
    return 1 if table.digits is None else table.digits


#: what a cell whose run could not be scored reads (its note under the table says why)
FAILED = "failed"


def _cell_text(cell: Cell, reported: bool, mark: str = _MARK) -> str:
    if cell.status == "failed":
        return FAILED
    if cell.value is None:
        return ""
    out = str(cell.text()) + (mark if cell.status == "differs" else "")
    if reported and cell.reported is not None:
        out += f" ({cell.reported_text()})"
    return out


def _rows(
    table: PaperTable, reported: bool, mark: str = _MARK
) -> tuple[list[str], list[list[str]]]:
    header = ["model", *(c.id for c in table.columns), *table.averages]
    d = _average_digits(table)
    rows = []
    for m in table.models:
        row = [m, *(_cell_text(table.cells[(m, c.id)], reported, mark) for c in table.columns)]
        for values in table.averages.values():
            v = values.get(m)
            row.append("" if v is None else f"{v:.{d}f}")
        rows.append(row)
    return header, rows


def _difference(ours: float, theirs: float, digits: int) -> str:
    """The signed difference, with as many more digits as it takes not to print zero."""
    diff = ours - theirs
    d = digits
    while d < digits + 8 and abs(diff) < 0.5 * 10.0**-d:
        d += 1
    return f"{diff:+.{d}f}"


def legend(table: PaperTable) -> list[str]:
    """The lines under the table: what each column is (its signature), every cell that
    differs from the toolkit's number and which profile reproduces it, the empty cells, the
    notes, the averages and the files that were not recognized."""
    lines: list[str] = []
    for col in table.columns:
        sigs: dict[str, list[str]] = {}
        for m in table.models:
            cell = table.cells[(m, col.id)]
            if cell.signature is not None:
                sigs.setdefault(cell.signature, []).append(m)
        for sig, models in sigs.items():
            who = "" if len(sigs) == 1 else f" [{', '.join(models)}]"
            unit = {"percent": "%", "points": "points", "count": "count"}.get(
                next(table.cells[(m, col.id)].units for m in models), ""
            )
            lines.append(f"{col.id} ({unit}){who}: {sig}")
    differing = table.differing()
    shown = [c for c in table.cells.values() if c.reported is not None]
    if shown:
        lines.append(
            "(in parentheses) the toolkit's reported number; "
            + (
                f"{_MARK} ours differs from it at the printed digits:"
                if differing
                else "each is reproduced at the printed digits"
            )
        )
    for c in differing:
        assert c.value is not None and c.reported is not None
        src = os.path.basename(c.reported_source or "?")
        if c.reproduced_by is not None:
            how = f"--profile {c.reproduced_by} reproduces it"
        elif c.tried:
            how = f"no other profile reproduces it (tried {', '.join(c.tried)})"
        elif table.searched:
            how = "no other profile of that toolkit to try"
        else:
            how = "profiles not searched (--no-search)"
        lines.append(
            f"  {c.model} {c.column.id}: ours {c.text()} ({c.profile}) vs reported "
            f"{c.reported_text()} ({src}), difference {_difference(c.value, c.reported, c.digits)}"
            f"; {how}"
        )
    notes: list[str] = list(table.notes)
    for c in table.cells.values():
        notes += [n for n in c.notes if n not in notes]
    lines += [f"note: {n}" for n in notes]
    lines += [f"average: {n}" for n in table.average_notes]
    if table.unrecognized:
        names = ", ".join(os.path.basename(p) for p in table.unrecognized)
        lines.append(f"not recognized ({len(table.unrecognized)} file(s)): {names}")
    return lines


def text(table: PaperTable, *, reported: bool = True) -> str:
    header, rows = _rows(table, reported)
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    out = [
        "  ".join(
            h.ljust(w) if i == 0 else h.rjust(w)
            for i, (h, w) in enumerate(zip(header, widths, strict=True))
        )
    ]
    out.append("  ".join("-" * w for w in widths))
    for r in rows:
        out.append(
            "  ".join(
                v.ljust(w) if i == 0 else v.rjust(w)
                for i, (v, w) in enumerate(zip(r, widths, strict=True))
            )
        )
    return "\n".join([*out, "", *legend(table)])


def markdown(table: PaperTable, *, reported: bool = True) -> str:
    header, rows = _rows(table, reported, mark="\\*")
    out = ["| " + " | ".join(markdown_escape(h) for h in header) + " |"]
    out.append("|" + "|".join([":---", *(["---:"] * (len(header) - 1))]) + "|")
    out += ["| " + " | ".join(markdown_escape(v) for v in r) + " |" for r in rows]
    out.append("")
    out += [f"- {markdown_escape(line.strip())}" for line in legend(table)]
    return "\n".join(out)


def latex(table: PaperTable, *, reported: bool = True) -> str:
    """A ``tabular`` (booktabs rules) with a dagger on a number that differs from the
    toolkit's; the legend follows as LaTeX comments."""
    header, rows = _rows(table, reported, mark="\x00")
    spec = "l" + "r" * (len(header) - 1)
    out = [f"\\begin{{tabular}}{{{spec}}}", "\\toprule"]
    out.append(" & ".join(latex_escape(h) for h in header) + " \\\\")
    out.append("\\midrule")
    for r in rows:
        cells = [latex_escape(v).replace("\x00", "$^\\dagger$") for v in r]
        out.append(" & ".join(cells) + " \\\\")
    out += ["\\bottomrule", "\\end{tabular}"]
    out += [f"% {line.strip()}".replace(_MARK + " ours", "\\dagger ours") for line in legend(table)]
    return "\n".join(out)


def csv_text(table: PaperTable) -> str:
    """One row per model: each column's number (rounded as printed), the toolkit's beside it,
    and whether it differs; the averages last."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    head = ["model"]
    for c in table.columns:
        head += [c.id, f"{c.id} reported", f"{c.id} differs"]
    head += list(table.averages)
    w.writerow(head)
    d = _average_digits(table)
    for m in table.models:
        row: list[str] = [m]
        for c in table.columns:
            cell = table.cells[(m, c.id)]
            row += [
                FAILED if cell.status == "failed" else cell.text(),
                cell.reported_text(),
                "" if cell.reported is None else ("yes" if cell.status == "differs" else "no"),
            ]
        for values in table.averages.values():
            v = values.get(m)
            row.append("" if v is None else f"{v:.{d}f}")
        w.writerow(row)
    return buf.getvalue()


def as_dict(table: PaperTable) -> dict[str, Any]:
    """Every model and column: our number unrounded, the reported one, the file, the profile
    and the signature (``--format json``)."""
    return {
        "schema": SCHEMA,
        "vqametrics": __version__,
        "models": list(table.models),
        "columns": [
            {
                "id": c.id,
                "benchmark": c.benchmark.key,
                "title": c.benchmark.title,
                "task": c.benchmark.task,
                "measure": c.measure.key,
            }
            for c in table.columns
        ],
        "cells": [table.cells[(m, c.id)].as_dict() for m in table.models for c in table.columns],
        "averages": {k: dict(v) for k, v in table.averages.items()},
        "legend": legend(table),
        "notes": list(table.notes),
        "average_notes": list(table.average_notes),
        "unrecognized": list(table.unrecognized),
        "runs": [
            {
                "model": r.model,
                "benchmark": r.benchmark,
                "file": os.fspath(r.path),
                "toolkit": r.toolkit,
                "reported": [os.fspath(p) for p in r.reported],
                "auxiliary": [os.fspath(p) for p in r.auxiliary],
            }
            for r in table.runs
        ],
    }


def html_table(table: PaperTable) -> str:
    """The table and its legend as an HTML fragment (for notebooks and the report)."""
    from ..views.html import _e, _table

    header, rows = _rows(table, True)
    body = _table(header, rows, [False, *([True] * (len(header) - 1))])
    items = "".join(f"<li>{_e(line.strip())}</li>" for line in legend(table))
    return body + f'<ul class="small">{items}</ul>'


def html(table: PaperTable, *, n_cards: int = 6) -> str:
    """One self-contained page: the table on top, then a section per benchmark and model
    (headline, splits and categories, distribution, reported vs recomputed, the lowest-scoring
    items with "why this score"), laid out by the task report (``report/task_html.py``)."""
    from ..views.html import _CSS, _e
    from ..views.task_html import _cards, _distribution, _groups, _headline, _reported

    sections: list[str] = []
    nav: list[str] = []
    seen: set[tuple[str, str]] = set()
    for col in table.columns:
        for m in table.models:
            cell = table.cells[(m, col.id)]
            key = (m, col.benchmark.key)
            if cell.evaluation is None or key in seen:
                continue
            seen.add(key)
            ev = cell.evaluation
            anchor = f"run-{len(sections)}"
            title = f"{col.benchmark.title} — {m}"
            nav.append(f'<a href="#{anchor}">{_e(title)}</a>')
            sections.append(
                f'<section id="{anchor}"><h2>{_e(title)}</h2>'
                f'<p class="small muted"><code>{_e(cell.file or "")}</code> · profile '
                f"<code>{_e(ev.profile.name)}</code> ({_e(ev.profile.reproduces)})</p>"
                + _headline(ev)
                + _groups(ev)
                + _distribution(ev)
                + _reported(ev)
                + _cards(ev, n_cards)
                + "</section>"
            )
    body = (
        '<header><p class="mono small muted">vqametrics table</p>'
        f"<h1>{len(table.models)} model(s) × {len(table.columns)} column(s)</h1>"
        f'<nav class="small">{" · ".join(nav)}</nav></header>'
        f'<h2 id="table">Table</h2>{html_table(table)}'
        + "".join(sections)
        + '<footer class="small muted"><p>Generated by vqametrics '
        f"{_e(__version__)}; self-contained, no network needed.</p></footer>"
    )
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>vqametrics table</title><style>{_CSS}</style></head><body><main>"
        + body
        + "</main></body></html>\n"
    )
