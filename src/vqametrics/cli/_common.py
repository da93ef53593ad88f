"""Helpers shared by the subcommands: output formats and small argparse conveniences."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ..core.exceptions import InputError, VqaMetricsWarning
from ..readers.formats import INPUT_FORMAT_CHOICES, LAYOUTS, describe_choices, parse_input_format

if TYPE_CHECKING:
    from ..extract import Diagnostics
    from ..pipeline.vqa import VQAEvaluation
    from ..readers.vqa import VQADataset

__all__ = [
    "INPUT_FORMATS",
    "add_ci_options",
    "add_command",
    "add_digits_option",
    "add_input_format_option",
    "add_input_options",
    "add_json_flag",
    "add_matching_options",
    "add_profile_option",
    "add_reader_options",
    "evaluate_from_args",
    "input_format_type",
    "int_in_range",
    "named_warnings",
    "nonnegative_int",
    "positive_int",
    "print_json",
    "replicates",
    "seed_int",
    "task_input_args",
    "vqa_reading_args",
]


#: the single names ``--input-format`` takes: toolkit layouts and file formats (a layout and a
#: file format may also be joined by a comma: ``vlmevalkit,csv``)
INPUT_FORMATS = INPUT_FORMAT_CHOICES


def add_command(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], name: str, **kwargs: Any
) -> argparse.ArgumentParser:
    """The parser of command *name*: its help line from the command table (``_table.py``, the
    one ``--help`` lists) and its description from ``_help.py``; *kwargs* as argparse's."""
    from ._help import DESCRIPTIONS
    from ._table import COMMANDS

    return sub.add_parser(name, help=COMMANDS[name][1], description=DESCRIPTIONS[name], **kwargs)


def input_format_type(layouts: tuple[str, ...] = tuple(LAYOUTS)) -> Callable[[str], str]:
    """argparse type of ``--input-format``: a layout, a file format, or ``LAYOUT,FORMAT``
    (a usage error, exit 2, for anything else)."""

    def parse(text: str) -> str:
        try:
            fmt = parse_input_format(text, layouts=layouts)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return ",".join(p for p in (fmt.layout_name, fmt.file_format) if p)

    parse.__name__ = "input format"
    return parse


def add_input_format_option(
    parser: argparse.ArgumentParser, layouts: tuple[str, ...] = tuple(LAYOUTS)
) -> None:
    """``--input-format LAYOUT|FORMAT|LAYOUT,FORMAT`` with the choices in its help."""
    parser.add_argument(
        "--input-format",
        type=input_format_type(layouts),
        metavar="NAME",
        help="force how the results are read instead of recognizing it: a toolkit layout "
        "(its id and answer columns are used), a file format, or LAYOUT,FORMAT "
        f"(e.g. {layouts[0]},csv); {describe_choices(layouts)}",
    )


def add_reader_options(parser: argparse.ArgumentParser, reported: bool = True) -> None:
    """``--input-format``, ``--id-field``, ``--answer-field`` (and ``--reported``): how the
    results file is read when its layout is unusual."""
    add_input_format_option(parser)
    parser.add_argument("--id-field", metavar="F", help="the results' id column, when unusual")
    parser.add_argument(
        "--answer-field", metavar="F", help="the results' answer column, when unusual"
    )
    if reported:
        parser.add_argument(
            "--reported",
            metavar="FILE",
            help="the toolkit's own scores (VLMEvalKit _acc.csv/_score.csv, lmms-eval "
            "results.json); by default looked for beside the results file",
        )


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """``--format text|json|csv|markdown|latex`` and ``--json`` (= ``--format json``); the
    command line sets ``args.json`` from them (cli/_output.py)."""
    from ._output import add_format_options

    add_format_options(parser)


def add_profile_option(parser: argparse.ArgumentParser, default: str = "official") -> None:
    """``--profile NAME`` with the registered profiles as choices."""
    from ..profiles import list_profiles

    names = [p.name for p in list_profiles()]
    parser.add_argument(
        "--profile",
        default=default,
        choices=names,
        metavar="NAME",
        help=f"scoring profile (default: {default}); one of: {', '.join(names)}",
    )


def print_json(obj: Any) -> None:
    """Write *obj* as indented JSON to stdout."""
    import orjson  # here: a command that writes no JSON never loads it

    sys.stdout.write(orjson.dumps(obj, option=orjson.OPT_INDENT_2).decode() + "\n")


def add_matching_options(parser: argparse.ArgumentParser) -> None:
    """``--allow-missing``, ``--ignore-extra`` and ``--on-duplicate``: how predictions that do
    not match the annotations one to one are handled (default: every mismatch is an error)."""
    parser.add_argument(
        "--allow-missing",
        action="store_true",
        help="score questions without a prediction 0 (default: error)",
    )
    parser.add_argument(
        "--ignore-extra",
        action="store_true",
        help="skip predictions for unknown questions (default: error)",
    )
    parser.add_argument(
        "--on-duplicate",
        choices=("error", "last"),
        default="error",
        help="duplicate question ids: error (default) or keep the last, as the script does",
    )


#: Largest ``--digits``: a double has 15-17 significant digits, more would print noise.
MAX_DIGITS = 15
#: Largest ``--bootstrap`` and ``--permutations``: memory grows with the replicates (a
#: million replicates of ~70 breakdown columns is about 0.5 GB).
MAX_REPLICATES = 1_000_000
#: Seeds are unsigned 64-bit integers: ``0 <= seed < 2**64``.
SEED_LIMIT = 2**64


def add_digits_option(parser: argparse.ArgumentParser) -> None:
    """``--digits``: rounding of the percentages (the official script's ``n``), 0 to 15."""
    parser.add_argument(
        "--digits",
        type=int_in_range(0, MAX_DIGITS),
        default=2,
        help=f"rounding of percentages, 0-{MAX_DIGITS} (default 2)",
    )


#: The number type an argparse ``type=`` function converts to.
_N = TypeVar("_N", int, float)


def _converted(convert: Callable[[str], _N], text: str, what: str) -> _N:
    """``convert(text)``, or the argparse error ``not WHAT: 'text'`` (its first 40 characters)."""
    try:
        return convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not {what}: {text[:40]!r}") from None


def int_in_range(low: int, high: int) -> Callable[[str], int]:
    """argparse type: an integer with ``low <= value <= high`` (a clear range error else)."""

    def parse(text: str) -> int:
        value = _converted(int, text, "an integer")
        if not low <= value <= high:
            shown = str(value) if len(str(value)) <= 25 else f"{str(value)[:20]}..."
            raise argparse.ArgumentTypeError(f"must be between {low} and {high}, got {shown}")
        return value

    parse.__name__ = "integer"  # argparse names the type in some messages
    return parse


def float_in_range(low: float, high: float) -> Callable[[str], float]:
    """argparse type: a finite number with ``low < value <= high`` (a clear range error else)."""

    def parse(text: str) -> float:
        value = _converted(float, text, "a number")
        if not low < value <= high:  # also refuses nan
            raise argparse.ArgumentTypeError(f"must be above {low:g} and at most {high:g}")
        return value

    parse.__name__ = "number"
    return parse


#: argparse types of the replicate counts and of seeds.
replicates = int_in_range(1, MAX_REPLICATES)
seed_int = int_in_range(0, SEED_LIMIT - 1)


def nonnegative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {value}")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    value = nonnegative_int(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be a positive integer")
    return value


def add_input_options(parser: argparse.ArgumentParser, results: bool = True) -> None:
    """The input options shared by the commands that score a results file."""
    parser.add_argument(
        "--annotations",
        metavar="A",
        help="annotations: official JSON, or a list/JSONL of {question_id, answers}; optional "
        "when the results carry their ground truth (VLMEvalKit sheet, lmms-eval samples)",
    )
    if results:
        parser.add_argument(
            "--results",
            required=True,
            action="append",
            metavar="R",
            help="predictions: official list of {question_id, answer}, JSONL, {qid: answer}, "
            "CSV/TSV/XLSX, gzip of any, - for stdin, LLaVA answers.jsonl, a VLMEvalKit sheet, "
            "lmms-eval samples (recognized by content); repeat to score several systems in one "
            "table",
        )
    parser.add_argument(
        "--questions", metavar="Q", help="official questions file (validated; optional)"
    )
    add_reader_options(parser)
    add_profile_option(parser)
    add_matching_options(parser)


def add_ci_options(parser: argparse.ArgumentParser) -> None:
    """``--ci``, ``--bootstrap N`` and ``--seed S``."""
    from ..aggregate.defaults import DEFAULT_BOOTSTRAP, DEFAULT_SEED

    group = parser.add_argument_group("confidence intervals")
    group.add_argument(
        "--ci",
        action="store_true",
        help="add a 95%% percentile bootstrap interval and the analytic standard error to the "
        "overall score and every breakdown (whole images are resampled when known)",
    )
    group.add_argument(
        "--bootstrap",
        type=replicates,
        metavar="N",
        help=f"bootstrap replicates, at most {MAX_REPLICATES:,} (default {DEFAULT_BOOTSTRAP}; "
        "implies --ci)",
    )
    group.add_argument(
        "--seed",
        type=seed_int,
        metavar="S",
        help=f"random seed, 0 <= S < 2**64 (default {DEFAULT_SEED}; implies --ci)",
    )
    group.add_argument(
        "--permutations",
        type=replicates,
        metavar="N",
        help="sign-flip permutations of the comparisons with the first of several --results "
        f"(default 10000, at most {MAX_REPLICATES:,})",
    )


def task_input_args(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of ``evaluate_task`` that every task command reads from its
    options (inputs, profile, layout, the missing/extra/duplicate rule, the extractor)."""
    return {
        "annotations": args.annotations,
        "questions": args.questions,
        "profile": args.profile,
        "format": args.input_format,
        "id_field": args.id_field,
        "answer_field": args.answer_field,
        "allow_missing": args.allow_missing,
        "ignore_extra": args.ignore_extra,
        "on_duplicate": args.on_duplicate,
        "extract": args.extract,
    }


#: the options of how a VQA results file is read and matched with its annotations, under the
#: keyword ``evaluate_vqa`` and ``build_report`` take them by
_VQA_READING = (
    "allow_missing",
    "ignore_extra",
    "on_duplicate",
    "input_format",
    "id_field",
    "answer_field",
    "extract",
)


def vqa_reading_args(
    args: argparse.Namespace, names: Sequence[str] = _VQA_READING
) -> dict[str, Any]:
    """The options *names* that the command declared, by keyword (options it did not declare
    keep the library's defaults)."""
    return {name: getattr(args, name) for name in names if hasattr(args, name)}


def evaluate_from_args(
    args: argparse.Namespace,
    results: str | None = None,
    annotations: VQADataset | None = None,
) -> VQAEvaluation:
    """``evaluate_vqa`` with the input, profile, matching and digits options a command declared
    (options it did not declare keep the library's defaults)."""
    from ..tasks.vqav2 import evaluate_vqa

    options = vqa_reading_args(args, (*_VQA_READING, "profile", "digits", "reported"))
    if annotations is None:
        options["questions"] = getattr(args, "questions", None)
    path = results if results is not None else args.results
    result = evaluate_vqa(
        annotations if annotations is not None else getattr(args, "annotations", None),
        path,
        **options,
    )
    # diagnostics are always on: every command that scores predictions says when they look
    # verbose (naming the file when a command scores several)
    several = len(getattr(args, "results", None) or ()) > 1 or hasattr(args, "results_b")
    warn_verbose(
        result.diagnostics,
        extracted=getattr(args, "extract", None) is not None,
        source=str(path) if several else None,
    )
    return result


def warn_verbose(
    diagnostics: Diagnostics | None, extracted: bool = False, source: str | None = None
) -> None:
    """The stderr line ``N of M predictions look verbose … see --extract`` (prefixed with
    *source* when a command scores several files)."""
    if diagnostics is None:
        return
    line = diagnostics.warning()
    if line is None:
        return
    if extracted:
        line = line.split("; the score counts them")[0] + " (before --extract)"
    if source is not None:
        line = line.replace("warning: ", f"warning: {source}: ", 1)
    print(line, file=sys.stderr)


@contextlib.contextmanager
def named_warnings(source: str) -> Iterator[None]:
    """Within this block, every warning raised is shown prefixed with *source* (a command that
    scores several files says whose file each warning is about)."""
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", VqaMetricsWarning)
            yield
    finally:  # shown once the recording is over, through the caller's own display
        name = os.path.basename(source)
        for w in caught:
            text = str(w.message)
            said = text.startswith((f"{source}:", f"{name}:"))  # the message names it already
            shown = text if said else f"{source}: {text}"
            warnings.warn_explicit(shown, w.category, w.filename, w.lineno)
