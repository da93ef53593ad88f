"""``vqametrics diff``: is system A better than system B on the same questions?"""

from __future__ import annotations

import argparse
import warnings

from ..core.exceptions import AnswerCountWarning, LeaveOneOutWarning
from ._common import (
    MAX_REPLICATES,
    add_command,
    add_input_options,
    add_json_flag,
    evaluate_from_args,
    nonnegative_int,
    print_json,
    replicates,
    seed_int,
)
from ._output import add_name_option, check_stdin_once, names_for
from ._systems import run_vqa_systems

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ..aggregate.stats import DEFAULT_BOOTSTRAP, DEFAULT_PERMUTATIONS, DEFAULT_SEED

    p = add_command(sub, "diff")
    add_input_options(p, results=False)
    p.add_argument(
        "--results",
        action="append",
        default=[],
        metavar="R",
        help="predictions; the first is A, the second B (Δ = A − B); three or more give one "
        "table, each system against the first",
    )
    p.add_argument("--results-a", metavar="RA", help="predictions of system A (= first --results)")
    p.add_argument("--results-b", metavar="RB", help="predictions of system B (= second --results)")
    add_name_option(p)
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
    from ..aggregate.stats import diff_results, require_numpy
    from ..core.exceptions import InputError
    from ..readers._json import display_name
    from ..readers.vqa import load_annotations

    lettered = (args.results_a, args.results_b)
    if lettered != (None, None) and (args.results or None in lettered):
        raise InputError(
            "diff: give the systems either as --results A --results B … or as "
            "--results-a A --results-b B (both), not a mix"
        )
    paths = [p for p in (args.results_a, args.results_b) if p is not None] + args.results
    if len(paths) < 2:
        raise InputError("diff needs two results files: --results A --results B")
    check_stdin_once(paths)
    require_numpy()
    if len(paths) > 2:
        return run_vqa_systems(args, paths, ["vqa"])
    if args.annotations is None:
        # the results carry their ground truth (VLMEvalKit, lmms-eval): A's is used for both
        a = evaluate_from_args(args, paths[0])
        dataset = a.dataset
    else:
        dataset = load_annotations(args.annotations, on_duplicate=args.on_duplicate)
        if args.questions:
            from ..readers.vqa import load_questions

            load_questions(args.questions, dataset)
        a = evaluate_from_args(args, paths[0], annotations=dataset)
    with warnings.catch_warnings():
        # the annotations' own warnings were given once already, for A
        warnings.simplefilter("ignore", LeaveOneOutWarning)
        warnings.simplefilter("ignore", AnswerCountWarning)
        b = evaluate_from_args(args, paths[1], annotations=dataset)
    d = diff_results(
        a, b, n_bootstrap=args.bootstrap, n_permutations=args.permutations, seed=args.seed
    )
    if args.name:
        name_a, name_b = names_for(args, paths)
    else:
        name_a, name_b = display_name(paths[0]), display_name(paths[1])
    if args.output_format in ("csv", "markdown", "latex"):
        from ..analysis.systems import diff_table
        from ..views.tables import render

        if not args.name:
            name_a, name_b = names_for(args, paths)
        print(render(diff_table(d, a, b, name_a, name_b), args.output_format), end="")
    elif args.json:
        print_json({"results_a": name_a, "results_b": name_b, **d.as_dict()})
    else:
        from ..views.text import diff_text

        print(diff_text(d, name_a, name_b, top=args.top))
    return 0
