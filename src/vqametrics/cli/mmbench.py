"""``vqametrics mmbench`` (CircularEval / VanillaEval) and ``vqametrics mmbench-circular``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ._chat import (
    add_extract_option,
    add_judge_options,
    judge_from_args,
    mmbench_judge_checked,
    warn_verbose,
)
from ._common import add_input_format_option, add_json_flag, print_json, seed_int
from ._output import add_name_option, emit_systems, emit_table, names_for, wants_table

__all__ = ["register"]

_MMBENCH_OUTPUTS = ("report.json", "per_question.jsonl")

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
    p = subparsers.add_parser(
        "mmbench",
        help="score MMBench predictions (CircularEval / VanillaEval)",
        description="Score multiple-choice predictions the way the MMBench reference does.",
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
        choices=_EXTRACTORS,
        default="vlmevalkit",
        metavar="NAME",
        help=f"answer-extraction lineage (default: vlmevalkit); one of: {', '.join(_EXTRACTORS)}",
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
        help="write report.json, per_question.jsonl and manifest.json here",
    )
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

    c = subparsers.add_parser(
        "mmbench-circular",
        help="build the circular copies of a multiple-choice TSV",
        description=(
            "Write one row per rotation of the options (index + k*1000000; options rotated "
            "left by k; answer letter moved accordingly), as VLMEvalKit's CIRCULAR tool does."
        ),
    )
    c.add_argument("input", metavar="IN.tsv", help="plain multiple-choice TSV (pass-0 rows)")
    c.add_argument("output", metavar="OUT.tsv", help="TSV with the circular copies")
    c.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="COLUMN=VALUE",
        help="keep only rows whose COLUMN equals VALUE (repeatable; all must hold)",
    )
    c.set_defaults(func=_run_circular)


def _own_benchmark(path: str) -> Any:
    """A results file read as its own benchmark (a VLMEvalKit sheet carries question, options
    and answer beside each prediction), or a clear error asking for ``--data``."""
    from ..core.exceptions import InputError
    from ..mmbench import load_mmbench_tsv

    if path == "-":
        raise InputError("mmbench: --data (the benchmark TSV) is required with --results -")
    try:
        return load_mmbench_tsv(path)
    except InputError as exc:
        raise InputError(
            f"mmbench: --data (the benchmark TSV) is required: {path} does not carry the "
            f"benchmark ({exc})"
        ) from None


def _run_mmbench(args: argparse.Namespace) -> int:
    import orjson

    from ..mmbench import MMBenchResult, evaluate_mmbench, load_mmbench_tsv, load_predictions
    from ..mmbench.reported import compare_reported, format_reported
    from ..views.output import check_out_dir, publish_dir

    inputs = (*([args.data] if args.data is not None else []), *args.results)
    if args.out:
        check_out_dir(args.out, _MMBENCH_OUTPUTS, inputs)  # before any work
    client = judge_from_args(args)  # bad judge settings fail before anything is read
    data = load_mmbench_tsv(args.data) if args.data is not None else None

    def evaluate(path: str) -> MMBenchResult:
        return mmbench_judge_checked(_evaluate(path), client)

    def _evaluate(path: str) -> MMBenchResult:
        return evaluate_mmbench(
            data if data is not None else _own_benchmark(path),
            load_predictions(
                path,
                input_format=args.input_format,
                id_field=args.id_field,
                answer_field=args.answer_field,
            ),
            mode=args.mode,
            extractor=args.extractor,
            reference_compatible=args.reference_compatible,
            random_fallback=args.random_fallback,
            extract=args.extract,
            judge=client.as_callable() if client is not None else None,
            judge_name=client.model if client is not None else None,
        )

    paths = args.results
    if wants_table(args, len(paths)):
        from ..core.exceptions import InputError
        from ..views.command_tables import mmbench_table

        if args.out:
            raise InputError("--out writes the files of one predictions file; give one")
        names = names_for(args, paths)
        results = [evaluate(p) for p in paths]
        if args.by_ability:
            if args.json:
                pairs = zip(names, results, strict=True)
                print_json({"systems": [dict(r.as_dict(), name=n) for n, r in pairs]})
            else:
                emit_table(mmbench_table(names, results), args.output_format)
            return 0
        from ..analysis.systems import compare_mmbench_systems

        return emit_systems(compare_mmbench_systems(results, names), args)
    result = evaluate(paths[0])
    warn_verbose(result.diagnostics, extracted=args.extract is not None)
    report = result.as_dict()
    if client is not None:
        client.close()
        failed = sum(1 for q in result.questions for p in q.passes if p.stage == "judge_failed")
        report["judge_stats"] = {
            "model": client.model,
            "judged": result.counts["judged"],
            "judge_calls": client.calls,
            "cache_hits": client.cache_hits,
            "unjudged": failed,
        }
    if args.out:
        files = {
            "report.json": orjson.dumps(report, option=orjson.OPT_INDENT_2) + b"\n",
            "per_question.jsonl": b"".join(
                orjson.dumps(q, option=orjson.OPT_APPEND_NEWLINE) for q in result.per_question()
            ),
        }
        publish_dir(args.out, files, inputs=inputs, signature=result.signature)
    reported = compare_reported(result, paths[0], args.reported)
    if reported is not None:
        report["reported"] = reported
    if args.json:
        print_json(report)
    else:
        text = result.format()
        if reported is not None:
            # beside the tables, before the signature line that ends every report
            body, sig = text.rsplit("\nsignature: ", 1)
            text = f"{body}\n{format_reported(reported, args.extractor)}\nsignature: {sig}"
        sys.stdout.write(text + "\n")
    return 0


def _run_circular(args: argparse.Namespace) -> int:
    from ..core.exceptions import InputError
    from ..mmbench import build_circular
    from ..mmbench.load import read_table, rows_from_table, tsv_text
    from ..mmbench.model import CIRCULAR_STRIDE
    from ..views.output import check_not_input, write_output_file

    check_not_input(args.output, [args.input])  # hard links and symlinks included
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
    data = rows_from_table(subset)  # validates index, options and answer, naming the line
    rows: list[dict[str, str]] = []
    for row, cells in zip(data.rows, subset.rows, strict=True):
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
