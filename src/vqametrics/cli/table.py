"""``vqametrics table PATH…``: a toolkit's output folders as one paper table (models ×
benchmarks), every cell re-scored and set beside the toolkit's own number."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ._common import MAX_DIGITS, add_command, int_in_range

__all__ = ["register"]

_FORMATS = ("text", "markdown", "latex", "csv", "json", "html")
#: what --out writes: one file per text format (and the HTML page with --format html)
_OUT_FILES = {
    "text": "table.txt",
    "markdown": "table.md",
    "latex": "table.tex",
    "csv": "table.csv",
    "json": "table.json",
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_command(sub, "table")
    p.add_argument("paths", nargs="+", metavar="PATH", help="output folders or single files")
    p.add_argument(
        "--task",
        nargs="+",
        action="extend",
        metavar="T",
        help="only these benchmarks: a task (mmbench) or a benchmark (CCBench, TextVQA_VAL)",
    )
    p.add_argument(
        "--profile",
        nargs="+",
        action="extend",
        metavar="[TASK=]P",
        help="the profile of a task (mme=vlmevalkit), or of every task that has it "
        "(vlmevalkit); default: each task's official scorer",
    )
    p.add_argument(
        "--name",
        nargs="+",
        action="extend",
        metavar="NAME=PATH",
        help="the model name of the runs under PATH (tells apart two runs of one model)",
    )
    p.add_argument(
        "--columns",
        nargs="+",
        action="extend",
        metavar="C",
        help="the columns, in order: a benchmark (MME), a column (MME-P) or BENCHMARK:MEASURE "
        "(POPE:random, HallusionBench:qAcc); commas separate too",
    )
    p.add_argument(
        "--average",
        action="append",
        choices=("mean", "opencompass"),
        help="add an average column: the mean of the percent columns, or OpenCompass's "
        "8-benchmark average",
    )
    p.add_argument(
        "--format",
        dest="table_format",
        choices=_FORMATS,
        default="text",
        help="text (default), markdown, latex, csv, json, or html (one self-contained page "
        "with a section per benchmark; needs the report extra)",
    )
    p.add_argument(
        "--digits",
        type=int_in_range(0, MAX_DIGITS),
        metavar="N",
        help="digits of every cell (default: one decimal; OCRBench's count none)",
    )
    p.add_argument(
        "--no-reported",
        action="store_true",
        help="print our numbers only (the toolkit's stay in the legend where they differ)",
    )
    p.add_argument(
        "--no-search",
        action="store_true",
        help="mark a cell that differs from the toolkit's number without scoring the file "
        "under the other profiles to name the one that reproduces it (faster)",
    )
    p.add_argument(
        "-o",
        "--out",
        metavar="DIR",
        help="also write table.txt, table.md, table.tex, table.csv, table.json (and "
        "report.html with --format html) into DIR",
    )
    p.set_defaults(func=run)


def _pairs(values: list[str] | None, option: str) -> dict[str, str]:
    from ..core.exceptions import InputError

    out: dict[str, str] = {}
    for value in values or ():
        name, sep, path = value.partition("=")
        if not sep or not name or not path:
            raise InputError(f"{option} {value}: expected NAME=PATH")
        out[path] = name
    return out


def _split(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    return [v for value in values for v in value.split(",") if v.strip()]


def _say_failed(result: Any) -> None:
    """One line on stderr when some runs could not be scored: their cells read ``failed`` and
    the notes under the table give each error (the exit code stays 0: the other cells are
    scored; with none scored ``table`` raises the error instead, exit 2)."""
    failed = {
        (c.model, c.column.benchmark.key) for c in result.cells.values() if c.status == "failed"
    }
    if failed:
        print(
            f"vqametrics: warning: {len(failed)} run(s) could not be scored: their cells read "
            "'failed', and the notes under the table say why",
            file=sys.stderr,
        )


def run(args: argparse.Namespace) -> int:
    from ..paper_table import table
    from .report import ProgressBar

    if args.out:
        from ..views.output import check_out_dir

        names = list(_OUT_FILES.values())
        if args.table_format == "html":
            names.append("report.html")
        check_out_dir(args.out, names, args.paths)  # before any work
    if args.table_format == "html":
        try:
            import matplotlib  # noqa: F401
        except ModuleNotFoundError:
            from ..core.extras import install_hint

            print(
                "vqametrics: error: table --format html needs the report extra: "
                f"{install_hint('report')}",
                file=sys.stderr,
            )
            return 1
    bar = ProgressBar()
    try:
        result = table(
            args.paths,
            tasks=_split(args.task),
            profiles=args.profile,
            names=_pairs(args.name, "--name"),
            columns=_split(args.columns),
            average=args.average,
            digits=args.digits,
            progress=bar,
            search=not args.no_search,
        )
    finally:
        bar.close()
    _say_failed(result)
    shown = not args.no_reported
    texts = {
        "text": result.to_text(reported=shown) + "\n",
        "markdown": result.to_markdown(reported=shown) + "\n",
        "latex": result.to_latex(reported=shown) + "\n",
        "csv": result.to_csv(),
        "json": result.to_json() + "\n",
    }
    page = result.to_html() if args.table_format == "html" else None
    if args.out:
        from ..views.output import publish_dir

        files = {name: texts[fmt].encode("utf-8") for fmt, name in _OUT_FILES.items()}
        if page is not None:
            files["report.html"] = page.encode("utf-8")
        publish_dir(args.out, files, inputs=args.paths)
        print(f"wrote {args.out}", file=sys.stderr)
    if page is not None:
        if not args.out:
            sys.stdout.write(page)
        return 0
    sys.stdout.write(texts[args.table_format])
    return 0
