"""``vqametrics report``: one self-contained HTML report of one or more results files."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any, TextIO

from ._chat import add_extract_option, warn_verbose
from ._common import (
    add_command,
    add_matching_options,
    add_reader_options,
    nonnegative_int,
    task_input_args,
    vqa_reading_args,
)

__all__ = ["ProgressBar", "register"]


def _install_hint() -> str:
    from ..core.extras import install_hint

    return f"vqametrics report needs the report extra: {install_hint('report')}"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_command(sub, "report")
    p.add_argument(
        "--task",
        metavar="TASK",
        help="the benchmark (default: VQA v2; vqametrics score --help lists them); several "
        "as T1,T2 (or 'all') write one page for a toolkit's output: the paper table on top, "
        "then a section per benchmark (--results: folders or files, as vqametrics table)",
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
    p.add_argument(
        "--profile",
        metavar="NAME",
        help="scoring profile (default: the task's official one; vqametrics profiles lists them)",
    )
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
    add_reader_options(p)
    add_matching_options(p)
    add_extract_option(p)
    p.set_defaults(func=run, takes_extra=True)


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
    from ..views.html import build_report, render_report
    from ..views.output import check_output_file, write_output_file

    inputs = [args.annotations, *args.results, args.questions]
    check_output_file(args.output, inputs)  # before any work
    if args.task is not None and ("," in args.task or args.task.lower() == "all"):
        return _run_table(args, inputs)
    if args.task is not None and args.task.lower() not in _VQA_REPORT:
        return _run_task(args, inputs)
    _check_vqa_inputs(args)
    bar = ProgressBar()
    try:
        model = build_report(
            args.annotations,
            args.results,
            questions=args.questions,
            profile=args.profile or "official",
            names=args.name,
            n_cards=args.cards,
            progress=bar,
            **vqa_reading_args(args),
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


def _run_table(args: argparse.Namespace, inputs: list[str | None]) -> int:
    """``report --task T1,T2`` (or ``all``): the paper table's page (``vqametrics table
    --format html``) of the --results folders and files, for those tasks."""
    from ..paper_table import table
    from ..views.output import write_output_file

    tasks = None if args.task.lower() == "all" else [t for t in args.task.split(",") if t]
    profiles = [p for p in (args.profile or "").split(",") if p] or None
    bar = ProgressBar()
    try:
        result = table(args.results, tasks=tasks, profiles=profiles, progress=bar)
    finally:
        bar.close()
    page = result.to_html(n_cards=args.cards)
    write_output_file(args.output, page.encode("utf-8"), inputs=inputs)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


#: tasks whose report is VQA v2's (every profile, the normalization rules, EM, comparisons)
_VQA_REPORT = ("vqav2", "vqa", "vqa-v2", "vqa2", "okvqa", "ok-vqa")


def _check_vqa_inputs(args: argparse.Namespace) -> None:
    """Without ``--task`` the VQA v2 script scores the files: a file that names another
    benchmark (its file name, its ``dataset_name``) is refused rather than silently scored
    with the wrong script; so are options only a task report takes."""
    from ..core.exceptions import InputError
    from ..tasks import get_task
    from ..views.task_html import guess_task

    if args.extra:
        raise InputError(f"report: unrecognized arguments: {' '.join(args.extra)}")
    if args.reported is not None:
        raise InputError("report: --reported is read with --task TASK")
    if args.task is not None:
        return
    guess = guess_task([*args.results, args.annotations])
    if guess is not None and guess[0] not in _VQA_REPORT:
        name, path, why = guess
        title = get_task(name).title
        raise InputError(
            f"{path}: looks like a {title} file ({why}), and report without --task scores "
            f"VQA v2: pass --task {name} for {title}'s own scorer (or --task vqav2 to score "
            "it with the VQA v2 script anyway)"
        )


def _run_task(args: argparse.Namespace, inputs: list[Any]) -> int:
    """``report --task TASK``: one run of any task, as one HTML file."""
    from ..core.exceptions import InputError
    from ..tasks import get_task
    from ..tasks._run import evaluate_task
    from ..views.output import write_output_file
    from ..views.task_html import render_task_report

    task = get_task(args.task)
    if len(args.results) > 1:
        raise InputError(f"report --task {task.name}: one --results per report")
    if args.name:
        raise InputError("report --task: --name labels several results files; give one")
    options = _task_options(task, args.extra)
    ev = evaluate_task(
        task,
        args.results[0],
        reported=args.reported,
        **task_input_args(args),
        **options,
    )
    warn_verbose(ev.diagnostics, extracted=args.extract is not None)
    text = render_task_report(ev, n_cards=args.cards)
    write_output_file(args.output, text.encode("utf-8"), inputs=inputs)
    print(f"{task.title}: {ev.aggregate.headline} {ev.headline!r}  {ev.signature.format()}")
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


def _task_options(task: object, extra: list[str]) -> dict[str, str]:
    """The task's own options (``Task.options``) among the arguments left unparsed."""
    from ..core.exceptions import InputError
    from ._parser import parse_task_options

    names = list(getattr(task, "options", ()))
    values, unknown = parse_task_options("vqametrics report", names, extra)
    if unknown:
        known = ", ".join(f"--{n}" for n, _ in names) or "none"
        raise InputError(
            f"report: unrecognized arguments: {' '.join(unknown)} (task options: {known})"
        )
    return values
