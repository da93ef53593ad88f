"""One table, five renderings: text, JSON, CSV, Markdown and LaTeX (for papers).

Every scoring command builds a :class:`Table` (a header and rows of plain values) and renders
it with :func:`render`. Numbers stay numbers until the renderer: CSV and JSON keep them
unrounded (a spreadsheet or a script rounds later), text, Markdown and LaTeX round floats to
``digits``. ``None`` is an empty cell (``—`` in text, Markdown and LaTeX).
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

__all__ = ["FORMATS", "Table", "latex_escape", "markdown_escape", "render", "short_names"]

#: The output formats of every scoring command (``--format``).
FORMATS = ("text", "json", "csv", "markdown", "latex")


@dataclass(frozen=True)
class Table:
    """A header, rows of plain values (str, int, float, None), an optional title and notes."""

    header: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    title: str = ""
    notes: tuple[str, ...] = ()
    digits: int = 2
    #: columns (by index) that are text even when they hold numbers (ids, names)
    text_columns: frozenset[int] = field(default_factory=lambda: frozenset({0}))
    #: decimals of particular columns (by index), e.g. 4 for p-values
    column_digits: Mapping[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for row in self.rows:
            if len(row) != len(self.header):
                raise ValueError(f"row {row!r} has {len(row)} cells, header {len(self.header)}")

    def digits_of(self, column: int) -> int:
        return self.column_digits.get(column, self.digits)

    def records(self) -> list[dict[str, Any]]:
        """The rows as ``{header: value}`` dicts (the JSON rendering)."""
        return [dict(zip(self.header, row, strict=True)) for row in self.rows]


def _cell(value: Any, digits: int, empty: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return empty
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _text(t: Table) -> str:
    cells = [[_cell(v, t.digits_of(j), "—") for j, v in enumerate(row)] for row in t.rows]
    widths = [max(len(h), *(len(r[j]) for r in cells)) for j, h in enumerate(t.header)]

    def line(values: Sequence[str]) -> str:
        parts = [
            v.ljust(w) if j in t.text_columns else v.rjust(w)
            for j, (v, w) in enumerate(zip(values, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    out = [t.title] if t.title else []
    out += [line(t.header), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in cells]
    out += t.notes
    return "\n".join(out) + "\n"


def _csv(t: Table) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(t.header)
    for row in t.rows:
        w.writerow(["" if v is None else repr(v) if isinstance(v, float) else v for v in row])
    return buf.getvalue()


def markdown_escape(text: str) -> str:
    """*text* as one Markdown table cell: ``|`` escaped, on one line."""
    return text.replace("|", "\\|").replace("\n", " ")


def _markdown(t: Table) -> str:
    head = "| " + " | ".join(markdown_escape(h) for h in t.header) + " |"
    rule = "|" + "|".join(":---" if j in t.text_columns else "---:" for j in range(len(t.header)))
    out = [f"**{markdown_escape(t.title)}**", ""] if t.title else []
    out += [head, rule + "|"]
    for row in t.rows:
        cells = (markdown_escape(_cell(v, t.digits_of(j), "—")) for j, v in enumerate(row))
        out.append("| " + " | ".join(cells) + " |")
    if t.notes:
        out.append("")
        out += [n.replace("\n", " ") for n in t.notes]
    return "\n".join(out) + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "−": "$-$",
    "Δ": r"$\Delta$",
    "±": r"$\pm$",
    "—": "--",
}


def latex_escape(text: str) -> str:
    """*text* as one LaTeX table cell: the special characters escaped, on one line."""
    # a line break inside a cell would end the row's paragraph (a blank line is \par, an
    # error inside a tabular): one line, as in Markdown
    return "".join(_LATEX_SPECIAL.get(c, c) for c in " ".join(text.split("\n")))


def _latex(t: Table) -> str:
    spec = "".join("l" if j in t.text_columns else "r" for j in range(len(t.header)))
    out = [
        "% vqametrics table (booktabs)" + (f": {_one_line(t.title)}" if t.title else ""),
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
        " & ".join(latex_escape(h) for h in t.header) + r" \\",
        "\\midrule",
    ]
    for row in t.rows:
        cells = (latex_escape(_cell(v, t.digits_of(j), "—")) for j, v in enumerate(row))
        out.append(" & ".join(cells) + r" \\")
    out += ["\\bottomrule", "\\end{tabular}"]
    out += [f"% {_one_line(n)}" for n in t.notes]  # every line of a note stays a comment
    return "\n".join(out) + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split("\n"))


def _json(t: Table) -> str:
    payload: dict[str, Any] = {"rows": t.records()}
    if t.title:
        payload["title"] = t.title
    if t.notes:
        payload["notes"] = list(t.notes)
    return orjson.dumps(payload, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY).decode()


_RENDERERS = {"text": _text, "json": _json, "csv": _csv, "markdown": _markdown, "latex": _latex}


def render(table: Table, fmt: str = "text") -> str:
    """*table* as text, JSON, CSV, Markdown or LaTeX (a booktabs ``tabular``).

    >>> t = Table(("system", "VQA acc"), (("base", 61.234), ("ours", 63.5)))
    >>> print(render(t, "markdown"), end="")
    | system | VQA acc |
    |:---|---:|
    | base | 61.23 |
    | ours | 63.50 |
    >>> print(render(t, "csv"), end="")
    system,VQA acc
    base,61.234
    ours,63.5
    """
    try:
        fn = _RENDERERS[fmt]
    except KeyError:
        raise ValueError(f"unknown table format {fmt!r}; one of: {', '.join(FORMATS)}") from None
    text = fn(table)
    return text if text.endswith("\n") else text + "\n"


_WORDS = re.compile(r"[_\-\s]+")


def short_names(paths: Sequence[str], width: int = 24) -> list[str]:
    """Row names for files: the stems without the words (split at ``_ - space``) that every
    stem has, shortened to *width* characters with ``…``, made unique with ``(2)``.

    >>> short_names(["runs/coco14_gpt3_5GT_n16_CLIP.json", "runs/coco14_gpt3_VinVL_n16_CLIP.json"])
    ['5GT', 'VinVL']
    """
    stems = [Path(str(p)).name.removesuffix(".gz") for p in paths]
    stems = [s.rsplit(".", 1)[0] if "." in s else s for s in stems]
    if len(stems) > 1 and len(set(stems)) == len(stems):
        words = [[w for w in _WORDS.split(s) if w] for s in stems]
        shared = set(words[0]).intersection(*map(set, words[1:]))
        cut = ["_".join(w for w in ws if w not in shared) for ws in words]
        if all(cut) and len(set(cut)) == len(cut):
            stems = cut
    names = [s if len(s) <= width else s[: width - 1] + "…" for s in stems]
    counts = Counter(names)
    seen: Counter[str] = Counter()
    out = []
    for s in names:
        seen[s] += 1
        out.append(s if counts[s] == 1 else f"{s} ({seen[s]})")
    return out
