"""The command table of the command line (names, modules, help lines) and the terminal's
width: what both the argparse-free ``--help`` (``cli/__init__``) and the parser
(``cli/_parser``) need, importing nothing but ``os`` and ``sys``."""

from __future__ import annotations

import os
import sys

__all__ = ["COMMANDS", "DESCRIPTION", "EPILOG", "columns"]

#: command -> (its module in this package, the help line ``--help`` lists), in that order. The
#: help lines are the ones the modules register (tests/test_cli_lazy.py holds them equal).
COMMANDS: dict[str, tuple[str, str]] = {
    "vqa": ("vqa", "score VQA predictions (official-exact soft accuracy)"),
    "score": ("score", "score a results file of any benchmark (TextVQA, POPE, MME, …)"),
    "explain": (
        "explain",
        "explain how one prediction scores against its answers (any task), or one item of a run",
    ),
    "profiles": (
        "profiles",
        "list the scoring profiles, or show why they score a results file differently",
    ),
    "diff": (
        "diff",
        "paired comparison of two results files: A − B, interval, p-value, changed questions",
    ),
    "mmbench": ("mmbench", "score MMBench predictions (CircularEval / VanillaEval)"),
    "mmbench-circular": ("mmbench", "build the circular copies of a multiple-choice TSV"),
    "compare": ("compare", "VQA accuracy vs EM vs EM-any (vs multiple choice), with disagreements"),
    "report": ("report", "write one self-contained HTML report (charts inline, no network needed)"),
    "table": ("table", "a paper's table from toolkit output folders, each number re-scored"),
    "demo": ("demo", "open the local web demo: how a VQA answer is scored, step by step"),
}

DESCRIPTION = "Reproducible, explainable VQA scoring."

EPILOG = """exit codes: 0 success, 1 runtime failure, 2 usage error or bad input.
Every score comes with a signature that pins how it was computed; quote it in papers."""


def columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` gives it (``$COLUMNS``, the
    terminal of stdout, else 80), without importing shutil (and its compression modules)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80
