"""``vqametrics mmbench``, an alias of ``vqametrics score mmbench`` that keeps its options, and
``vqametrics mmbench-circular``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ._chat import (
    add_extract_option,
    add_judge_options,
    judge_from_args,
)
from ._common import (
    add_command,
    add_input_format_option,
    add_json_flag,
    add_matching_options,
    print_json,
    seed_int,
)
from ._output import add_name_option, emit_table, names_for, wants_table

__all__ = ["register"]

# Kept in sync with vqametrics.mmbench.extract by a test; listed here so that ``register``
# stays cheap (the scoring package is imported by the handlers only).
_EXTRACTORS = ("vlmevalkit", "vlmevalkit-2025", "vlmevalkit-2024", "lmms-eval")

#: the only toolkit layout of MMBench predictions (index + prediction; the ground truth always
#: comes from the data file); as mmbench/load.py's MMBENCH_LAYOUTS
MMBENCH_LAYOUTS = ("vlmevalkit",)

_MMBENCH_EPILOG = """\
data: the official TSV layout with circular copies (index % 1000000 = question id).
predictions: any layout of the reader (.tsv, .csv, .xlsx as VLMEvalKit writes it, .json, .jsonl,
gzip of any, - for stdin) with `index` and `prediction` (else --id-field/--answer-field).

strict (default): a question is the circular copies the data file has (2 to N for N options;
the official dev file has 4-option questions with 3 copies); a missing prediction for a copy
that exists is a miss, counted as incomplete.
--reference-compatible: exactly VLMEvalKit: missing copies are ignored, a question without a
pass-0 prediction is dropped, an empty prediction cell reads as "nan".
Unparsed answers count as misses and are reported; an LLM judge is called only with
--judge-url/--judge-model (cached; the judge model is named in the signature).
--extract NAME drops reasoning blocks etc. before the letter heuristics (extract:NAME).

exit codes: 0 success, 1 runtime failure, 2 usage error or bad input."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``mmbench`` and ``mmbench-circular`` subcommands."""
    p = add_command(
        subparsers,
        "mmbench",
        epilog=_MMBENCH_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--data",
        "--annotations",
        dest="data",
        metavar="MMBENCH.tsv",
        help="benchmark TSV, or a VLMEvalKit result sheet (it carries the benchmark); "
        "--annotations as in the other commands. Optional when each results file is a "
        "VLMEvalKit sheet: it is then its own benchmark",
    )
    p.add_argument(
        "--results",
        "--predictions",
        dest="results",
        required=True,
        action="append",
        metavar="FILE",
        help="model predictions (--predictions is the old spelling); repeat for one row per system",
    )
    add_input_format_option(p, layouts=MMBENCH_LAYOUTS)
    p.add_argument("--id-field", metavar="F", help="the predictions' index column (default index)")
    p.add_argument(
        "--reported",
        metavar="FILE",
        help="VLMEvalKit's own scores (_acc.csv); by default looked for beside the results file",
    )
    p.add_argument(
        "--answer-field", metavar="F", help="the predictions' answer column (default prediction)"
    )
    p.add_argument(
        "--mode",
        choices=("circular", "vanilla"),
        default="circular",
        help="circular (default) or vanilla (reports pass-0 rows and all rows)",
    )
    p.add_argument(
        "--extractor",
        "--profile",
        dest="extractor",
        choices=_EXTRACTORS,
        default="vlmevalkit",
        metavar="NAME",
        help="answer-extraction lineage, the profile of `score mmbench` (default: vlmevalkit); "
        f"one of: {', '.join(_EXTRACTORS)}",
    )
    p.add_argument(
        "--reference-compatible",
        action="store_true",
        help="reproduce VLMEvalKit exactly, including its handling of missing rows",
    )
    p.add_argument(
        "--random-fallback",
        type=seed_int,
        metavar="SEED",
        help="give unparsed answers the reference's random letter (options + Z), seeded "
        "(0 <= SEED < 2**64)",
    )
    p.add_argument(
        "-o",
        "--out",
        metavar="DIR",
        help="write metrics.json, per_item.jsonl, signature.txt and manifest.json here",
    )
    add_matching_options(p)
    add_extract_option(p)
    add_judge_options(
        p,
        "With --judge-url, rows the heuristics cannot parse go to the judge (3 tries, as "
        "VLMEvalKit does); each judged row records the prompt, the reply and the letter.",
    )
    add_json_flag(p)
    add_name_option(p)
    p.add_argument(
        "--by-ability",
        action="store_true",
        help="with --format csv|markdown|latex or several --results: one row per system and "
        "split with every ability, instead of one row per system with the paired comparison",
    )
    p.set_defaults(func=_run_mmbench)

    c = add_command(subparsers, "mmbench-circular")
    c.add_argument("input", metavar="IN.tsv", help="plain multiple-choice TSV (pass-0 rows)")
    c.add_argument("output", metavar="OUT.tsv", help="TSV with the circular copies")
    c.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="COLUMN=VALUE",
        help="keep only rows whose COLUMN equals VALUE (repeatable; all must hold)",
    )
    c.add_argument(
        "--on-duplicate",
        choices=("error", "last"),
        default="error",
        help="an index given twice (after --select): error (default) or keep the last row",
    )
    c.set_defaults(func=_run_circular)


def _score_args(args: argparse.Namespace) -> argparse.Namespace:
    """The ``score mmbench`` arguments of an ``mmbench`` command line: its own options mapped
    onto score's (``--data`` is ``--annotations``, ``--extractor`` is ``--profile``, the
    circular settings are the task's own options), the rest at score's defaults."""
    from . import score

    parser = argparse.ArgumentParser(add_help=False)
    score.register(parser.add_subparsers())
    out, _ = parser.parse_known_args(["score", "mmbench"])
    for key in vars(out):
        if key not in ("task", "func") and hasattr(args, key):
            setattr(out, key, getattr(args, key))
    out.json = args.json  # set by the command line from --format after parsing
    out.annotations = args.data
    out.profile = args.extractor
    extra = ["--mode", args.mode]
    if args.reference_compatible:
        extra += ["--reference-compatible", "yes"]
    if args.random_fallback is not None:
        extra += ["--random-fallback", str(args.random_fallback)]
    out.extra = extra
    return out


def _run_mmbench(args: argparse.Namespace) -> int:
    """``score mmbench`` on the mapped arguments: the same table or schema-1 document and the
    same signature; ``--by-ability`` keeps its one row per system and split."""
    from . import score

    mapped = _score_args(args)
    if args.by_ability and wants_table(args, len(args.results)):
        return _by_ability(args, mapped)
    return score.run(mapped)


def _by_ability(args: argparse.Namespace, mapped: argparse.Namespace) -> int:
    """One row per system and split with every ability (``--by-ability``); ``--json`` is one
    schema-1 document per system, under ``systems``."""
    from ..core.exceptions import InputError
    from ..mmbench import MMBenchResult
    from ..tasks import get_task
    from ..tasks._run import evaluate
    from ..views.command_tables import mmbench_table
    from ._common import task_input_args
    from .score import _task_options

    if args.out:
        raise InputError("--out writes the files of one predictions file; give one")
    client = judge_from_args(args)
    options: dict[str, Any] = dict(_task_options(get_task("mmbench"), mapped.extra))
    try:
        evaluations = [
            evaluate(
                "mmbench",
                path,
                reported=args.reported,
                **task_input_args(mapped),
                judge=client,
                **options,
            )
            for path in args.results
        ]
    finally:
        if client is not None:
            client.close()
    names = names_for(args, args.results)
    if args.json:
        pairs = zip(names, evaluations, strict=True)
        print_json({"systems": [dict(e.as_dict(), name=n) for n, e in pairs]})
        return 0
    results = [MMBenchResult.from_evaluation(e) for e in evaluations]
    emit_table(mmbench_table(names, results), args.output_format)
    return 0


def _run_circular(args: argparse.Namespace) -> int:
    from ..core.exceptions import InputError
    from ..mmbench import build_circular
    from ..mmbench.load import read_table, rows_from_table, tsv_text
    from ..mmbench.model import CIRCULAR_STRIDE
    from ..views.output import check_output_file, write_output_file

    check_output_file(args.output, [args.input])  # hard links and symlinks included
    table = read_table(args.input)
    selected = list(zip(table.rows, table.where, table.lines, strict=True))
    for cond in args.select:
        column, sep, value = cond.partition("=")
        if not sep:
            raise InputError(f"--select {cond!r}: expected COLUMN=VALUE")
        if column not in table.header:
            raise InputError(f"{table.source}: --select column {column!r} is not in the header")
        selected = [s for s in selected if (s[0].get(column) or "") == value]
    if not selected:
        raise InputError(f"{table.source}: no rows left after --select")
    subset = type(table)(
        table.source,
        table.header,
        tuple(s[0] for s in selected),
        tuple(s[1] for s in selected),
        tuple(s[2] for s in selected),
    )
    # validates index, options and answer, naming the line
    data = rows_from_table(subset, on_duplicate=args.on_duplicate)
    rows: list[dict[str, str]] = []
    cells_at = dict(zip(subset.lines, subset.rows, strict=True))  # --on-duplicate last drops
    for row in data.rows:
        cells = cells_at[row.line]
        where = f"{table.source}: line {row.line} (index {row.index})"
        if row.index >= CIRCULAR_STRIDE:
            raise InputError(f"{where}: already a circular copy (index >= {CIRCULAR_STRIDE})")
        plain = {h: v or "" for h, v in cells.items()}
        plain["index"] = str(row.index)  # as validated: `1.0` reads as 1
        try:
            rows += build_circular([plain])
        except InputError as exc:
            raise InputError(f"{where}: {str(exc).removeprefix(f'index {row.index}: ')}") from None
    write_output_file(args.output, tsv_text(table.header, rows).encode(), inputs=[args.input])
    sys.stdout.write(f"wrote {len(rows)} rows ({len(data.rows)} questions) to {args.output}\n")
    return 0
