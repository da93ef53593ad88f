"""``vqametrics compare``: one set of predictions under VQA accuracy, EM, EM-any and MC."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ._common import (
    add_command,
    add_digits_option,
    add_json_flag,
    add_matching_options,
    add_profile_option,
    add_reader_options,
    evaluate_from_args,
    nonnegative_int,
    print_json,
)

if TYPE_CHECKING:
    from ..analysis.compare import Comparison

from ._output import add_name_option, emit_table, names_for, wants_table

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_command(sub, "compare", formatter_class=argparse.RawDescriptionHelpFormatter)
    data = p.add_mutually_exclusive_group()
    data.add_argument(
        "--annotations", metavar="A", help="VQA annotations: official JSON or list/JSONL"
    )
    data.add_argument(
        "--aokvqa", metavar="FILE", help="A-OKVQA in its original schema (aokvqa_v1p0_val.json)"
    )
    p.add_argument(
        "--results",
        required=True,
        action="append",
        metavar="R",
        help="the predictions (any layout of `vqametrics vqa`; --annotations may be left out "
        "when they carry their ground truth); repeat to list several systems in one table",
    )
    add_reader_options(p)
    p.add_argument(
        "--questions", metavar="Q", help="official questions file (VQA format; validated only)"
    )
    add_profile_option(p)
    p.add_argument(
        "--examples",
        type=nonnegative_int,
        default=3,
        metavar="K",
        help="examples shown per disagreement category (default 3)",
    )
    add_digits_option(p)
    add_matching_options(p)
    add_json_flag(p)
    add_name_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    paths = args.results
    if not wants_table(args, len(paths)):
        return _run_one(args, paths[0])
    from ..analysis.render import comparison_table

    names = names_for(args, paths)
    results = [_compare(args, path) for path in paths]
    if args.json:
        print_json(
            {"systems": [dict(r.as_dict(), name=n) for n, r in zip(names, results, strict=True)]}
        )
    else:
        emit_table(comparison_table(names, results, args.digits), args.output_format)
    return 0


def _run_one(args: argparse.Namespace, path: str) -> int:
    result = _compare(args, path)
    if args.json:
        print_json(result.as_dict())
    else:
        from ..analysis.render import comparison_text

        print(comparison_text(result))
    return 0


def _compare(args: argparse.Namespace, path: str) -> Comparison:
    from ..analysis.compare import compare_aokvqa, compare_vqa, load_aokvqa, load_aokvqa_predictions
    from ..readers._json import display_name

    if args.aokvqa is not None:
        from ..core.exceptions import InputError

        if args.questions is not None:
            raise InputError("--questions applies to VQA-format data, not to --aokvqa")
        result = compare_aokvqa(
            load_aokvqa(args.aokvqa, on_duplicate=args.on_duplicate),
            load_aokvqa_predictions(path, on_duplicate=args.on_duplicate),
            profile=args.profile,
            examples=args.examples,
            digits=args.digits,
            allow_missing=args.allow_missing,
            ignore_extra=args.ignore_extra,
            source=display_name(args.aokvqa),
            predictions_source=display_name(path),
        )
    else:
        evaluation = evaluate_from_args(args, path)
        result = compare_vqa(evaluation, examples=args.examples)
    return result
