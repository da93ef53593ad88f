"""``vqametrics diff``: is system A better than system B on the same questions?"""

from __future__ import annotations

import argparse
import warnings

from .._exceptions import AnswerCountWarning, LeaveOneOutWarning
from ._common import (
    MAX_REPLICATES,
    add_json_flag,
    evaluate_from_args,
    nonnegative_int,
    print_json,
    replicates,
    seed_int,
)
from .vqa import add_input_options

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ..stats import DEFAULT_BOOTSTRAP, DEFAULT_PERMUTATIONS, DEFAULT_SEED

    p = sub.add_parser(
        "diff",
        help="paired comparison of two results files: A − B, interval, p-value, changed questions",
        description="Score two results files on the same annotations and report the difference "
        "of their accuracies (A − B, percentage points, unrounded), a paired bootstrap 95% "
        "interval, a sign-flip permutation p-value (whole images are resampled and flipped when "
        "image ids are known), the same per answer type and question type, and the questions "
        "whose score changed.",
    )
    add_input_options(p, results=False)
    p.add_argument("--results-a", required=True, metavar="RA", help="predictions of system A")
    p.add_argument("--results-b", required=True, metavar="RB", help="predictions of system B")
    p.add_argument(
        "--bootstrap",
        type=replicates,
        default=DEFAULT_BOOTSTRAP,
        metavar="N",
        help=f"paired bootstrap replicates, at most {MAX_REPLICATES:,} "
        f"(default {DEFAULT_BOOTSTRAP})",
    )
    p.add_argument(
        "--permutations",
        type=replicates,
        default=DEFAULT_PERMUTATIONS,
        metavar="N",
        help=f"sign-flip permutations, at most {MAX_REPLICATES:,} (default "
        f"{DEFAULT_PERMUTATIONS}; all patterns are "
        "enumerated instead when there are at most that many)",
    )
    p.add_argument(
        "--seed",
        type=seed_int,
        default=DEFAULT_SEED,
        metavar="S",
        help=f"random seed, 0 <= S < 2**64 (default {DEFAULT_SEED})",
    )
    p.add_argument(
        "--top",
        type=nonnegative_int,
        default=10,
        metavar="K",
        help="changed questions to list in the text output (default 10; --json lists all)",
    )
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..load._json import display_name
    from ..load.vqa import load_annotations
    from ..stats import diff_results, require_numpy

    require_numpy()
    dataset = load_annotations(args.annotations, on_duplicate=args.on_duplicate)
    if args.questions:
        from ..load.vqa import load_questions

        load_questions(args.questions, dataset)
    a = evaluate_from_args(args, args.results_a, annotations=dataset)
    with warnings.catch_warnings():
        # the annotations' own warnings were given once already, for A
        warnings.simplefilter("ignore", LeaveOneOutWarning)
        warnings.simplefilter("ignore", AnswerCountWarning)
        b = evaluate_from_args(args, args.results_b, annotations=dataset)
    d = diff_results(
        a, b, n_bootstrap=args.bootstrap, n_permutations=args.permutations, seed=args.seed
    )
    name_a, name_b = display_name(args.results_a), display_name(args.results_b)
    if args.json:
        print_json({"results_a": name_a, "results_b": name_b, **d.as_dict()})
    else:
        from ..report.text import diff_text

        print(diff_text(d, name_a, name_b, top=args.top))
    return 0
