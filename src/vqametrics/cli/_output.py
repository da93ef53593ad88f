"""What every scoring command shares on the output side: ``--format``, ``--name`` and the
one-row-per-system table of several ``--results``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..analysis.systems import SystemsTable
    from ..views.tables import Table

__all__ = [
    "TABLE_FORMATS",
    "add_format_options",
    "add_name_option",
    "check_stdin_once",
    "emit_table",
    "names_for",
    "wants_table",
]

#: the formats that print a table (text keeps each command's own view; json its payload)
TABLE_FORMATS = ("csv", "markdown", "latex")
_FORMATS = ("text", "json", "csv", "markdown", "latex")


def add_format_options(parser: argparse.ArgumentParser, formats: Sequence[str] = _FORMATS) -> None:
    """``--format text|json|csv|markdown|latex`` and ``--json`` (an alias of ``--format json``)."""
    tables = [f for f in formats if f in TABLE_FORMATS]
    parser.add_argument(
        "--format",
        dest="output_format",
        choices=formats,
        default="text",
        help="output: text (default), json"
        + (f", or a table as {', '.join(tables)}" if tables else ""),
    )
    parser.add_argument(
        "--json",
        dest="output_format",
        action="store_const",
        const="json",
        help="the same as --format json",
    )


def add_name_option(parser: argparse.ArgumentParser) -> None:
    """``--name``: one label per ``--results``, in the same order."""
    parser.add_argument(
        "--name",
        action="append",
        metavar="LABEL",
        help="the row label of each --results, in order (default: the file names, shortened)",
    )


def names_for(args: argparse.Namespace, paths: Sequence[Any]) -> list[str]:
    """The ``--name`` labels, or short names made from the file names."""
    from ..core.exceptions import InputError
    from ..views.tables import short_names

    check_stdin_once(paths)
    given = getattr(args, "name", None) or []
    if given and len(given) != len(paths):
        raise InputError(f"{len(given)} --name for {len(paths)} --results; give one per file")
    return list(given) if given else short_names([str(p) for p in paths])


def check_stdin_once(paths: Sequence[Any]) -> None:
    """Standard input can be read once: ``-`` given for two results files is a usage error
    (the second read found an empty stream)."""
    if sum(1 for p in paths if str(p) == "-") > 1:
        from ..core.exceptions import InputError

        raise InputError("standard input (-) can be given for one --results only")


def wants_table(args: argparse.Namespace, n_results: int) -> bool:
    """Whether the command prints the one-row-per-system table instead of its own view.

    Also checks the ``--name`` count first, whichever view is printed (one file's own view
    shows no name, but a wrong count is a mistake on the command line either way)."""
    given = getattr(args, "name", None) or []
    if given and len(given) != n_results:
        from ..core.exceptions import InputError

        raise InputError(f"{len(given)} --name for {n_results} --results; give one per file")
    return n_results > 1 or getattr(args, "output_format", "text") in TABLE_FORMATS


def emit_table(table: Table, fmt: str) -> None:
    """Print *table* in *fmt* (text, json, csv, markdown, latex)."""
    from ..views.tables import render

    sys.stdout.write(render(table, fmt))


def emit_systems(result: SystemsTable, args: argparse.Namespace) -> int:
    """Print a :class:`~vqametrics.analysis.systems.SystemsTable` as the command's output."""
    fmt = args.output_format
    if fmt == "json":
        import orjson

        sys.stdout.write(orjson.dumps(result.as_dict(), option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        digits = getattr(args, "digits", None)
        emit_table(result.table(2 if digits is None else digits), fmt)
    return 0


def ci_settings(args: argparse.Namespace) -> dict[str, Any]:
    """``ci``, ``n_bootstrap``, ``n_permutations`` and ``seed`` from whichever options the
    command declared (``--ci``, ``--bootstrap``, ``--permutations``, ``--seed``)."""
    bootstrap = getattr(args, "bootstrap", None)
    seed = getattr(args, "seed", None)
    return {
        "ci": bool(getattr(args, "ci", False)) or bootstrap is not None or seed is not None,
        "n_bootstrap": bootstrap,
        "n_permutations": getattr(args, "permutations", None),
        "seed": seed,
    }
