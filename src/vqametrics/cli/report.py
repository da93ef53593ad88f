"""``vqametrics report``: one self-contained HTML report of one or more results files."""

from __future__ import annotations

import argparse
import sys
import time
from typing import TextIO

from ._chat import add_extract_option, warn_verbose
from ._common import (
    add_matching_options,
    add_profile_option,
    add_reader_options,
    nonnegative_int,
)

__all__ = ["ProgressBar", "register"]


def _install_hint() -> str:
    from .._extras import install_hint

    return f"vqametrics report needs the report extra: {install_hint('report')}"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "report",
        help="write one self-contained HTML report (charts inline, no network needed)",
        description="Score one or more results files on the same annotations and write one "
        "HTML file: headline VQA accuracy, EM and EM-any; the distribution of per-question "
        "scores; per answer and question type; what each normalization rule changed; the "
        "results under every profile; 'why this score' cards for the lowest-scoring "
        "questions; and, with two or more results files, a comparison of the models.",
    )
    p.add_argument(
        "--annotations",
        metavar="A",
        help="annotations file; optional when the first results file carries its ground "
        "truth (VLMEvalKit sheet, lmms-eval samples), as in vqametrics vqa",
    )
    p.add_argument(
        "--results",
        required=True,
        action="append",
        metavar="R",
        help="results file; repeat to compare several models (A − B as vqametrics diff)",
    )
    p.add_argument("--questions", metavar="Q", help="official questions file (texts on cards)")
    add_profile_option(p)
    p.add_argument(
        "-o",
        "--output",
        "--out",
        dest="output",
        required=True,
        metavar="FILE",
        help="the HTML file to write (--out is accepted too)",
    )
    p.add_argument(
        "--name",
        action="append",
        metavar="LABEL",
        help="the label of each --results, in order (default: the file names, shortened)",
    )
    p.add_argument(
        "--cards",
        type=nonnegative_int,
        default=12,
        metavar="N",
        help="'why this score' cards per model (default 12)",
    )
    add_reader_options(p, reported=False)
    add_matching_options(p)
    add_extract_option(p)
    p.set_defaults(func=run)


class ProgressBar:
    """A one-line progress bar on a terminal; silent when the stream is not a terminal."""

    def __init__(self, stream: TextIO | None = None, width: int = 28) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.start = time.monotonic()
        self._last = ""

    def __call__(self, done: int, total: int, what: str) -> None:
        if not self.enabled:
            return
        frac = done / total if total else 1.0
        filled = round(frac * self.width)
        elapsed = time.monotonic() - self.start
        line = (
            f"\r[{'#' * filled}{'-' * (self.width - filled)}] {100 * frac:3.0f}% "
            f"{elapsed:5.1f}s  {what[:40]}"
        )
        pad = max(0, len(self._last) - len(line))
        self.stream.write(line + " " * pad)
        self.stream.flush()
        self._last = line

    def close(self) -> None:
        if self.enabled and self._last:
            self.stream.write("\n")
            self.stream.flush()


def run(args: argparse.Namespace) -> int:
    try:
        import matplotlib  # noqa: F401
    except ModuleNotFoundError:
        print(f"vqametrics: error: {_install_hint()}", file=sys.stderr)
        return 1
    from ..report.html import build_report, render_report
    from ..report.output import check_not_input, write_output_file

    inputs = [args.annotations, *args.results, args.questions]
    check_not_input(args.output, inputs)  # before any work
    bar = ProgressBar()
    try:
        model = build_report(
            args.annotations,
            args.results,
            profile=args.profile,
            questions=args.questions,
            allow_missing=args.allow_missing,
            ignore_extra=args.ignore_extra,
            on_duplicate=args.on_duplicate,
            n_cards=args.cards,
            progress=bar,
            input_format=args.input_format,
            id_field=args.id_field,
            answer_field=args.answer_field,
            extract=args.extract,
            names=args.name,
        )
        text = render_report(model)
    finally:
        bar.close()
    write_output_file(args.output, text.encode("utf-8"), inputs=inputs)
    for r in model.runs:
        warn_verbose(r.evaluation.diagnostics, extracted=args.extract is not None)
        print(
            f"{r.name}: VQA acc {r.evaluation.accuracy['overall']:.2f}  "
            f"{r.evaluation.signature.format()}"
        )
    print(f"wrote {args.output}", file=sys.stderr)
    return 0
