"""Tiny renderers shared by the result objects' ``repr``/``_repr_html_`` and the text views.

A leaf module (standard library only), so every result class can render itself without
importing the report package (which imports them).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["answer_counts", "fmt", "html_pre", "html_table", "text_table"]


def fmt(value: object, digits: int) -> str:
    """A cell: floats to *digits* decimals, everything else as ``str``."""
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def text_table(rows: Sequence[Sequence[object]], header: Sequence[str], digits: int = 2) -> str:
    """A left/right aligned plain-text table (numbers right-aligned, floats to *digits*)."""
    cells = [[str(c) for c in header]] + [[fmt(c, digits) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    numeric = [all(isinstance(r[i], int | float) for r in rows) for i in range(len(header))]

    def line(r: Sequence[str]) -> str:
        return "  ".join(
            c.rjust(w) if num else c.ljust(w) for c, w, num in zip(r, widths, numeric, strict=True)
        ).rstrip()

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), sep, *(line(r) for r in cells[1:])])


def html_table(
    header: Sequence[str], rows: Sequence[Sequence[object]], digits: int = 2, caption: str = ""
) -> str:
    """A compact HTML table for notebooks (numbers right-aligned)."""
    import html  # only the notebook views pay for it

    e = html.escape
    head = "".join(f"<th>{e(str(h))}</th>" for h in header)
    body = []
    for r in rows:
        tds = []
        for c in r:
            style = ' style="text-align:right"' if isinstance(c, int | float) else ""
            tds.append(f"<td{style}>{e(fmt(c, digits))}</td>")
        body.append("<tr>" + "".join(tds) + "</tr>")
    cap = f"<caption>{e(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def html_pre(text: str) -> str:
    """Preformatted text for notebooks."""
    import html

    return f"<pre>{html.escape(text)}</pre>"


def answer_counts(answers: Sequence[str]) -> str:
    """Human answers grouped, in first-seen order: ``'blue'x6, 'sky blue'``."""
    counts: dict[str, int] = {}
    for a in answers:
        counts[a] = counts.get(a, 0) + 1
    return ", ".join(f"{a!r}x{n}" if n > 1 else repr(a) for a, n in counts.items())
