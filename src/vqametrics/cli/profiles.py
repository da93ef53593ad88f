"""``vqametrics profiles``: list the scoring profiles, or compare them on a results file."""

from __future__ import annotations

import argparse

from ._common import (
    add_command,
    add_digits_option,
    add_json_flag,
    add_matching_options,
    add_reader_options,
    evaluate_from_args,
    nonnegative_int,
    print_json,
)
from ._output import add_name_option, emit_table, names_for, wants_table

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_command(sub, "profiles")
    p.add_argument("--list", action="store_true", help="list the profiles (the default)")
    p.add_argument(
        "--task",
        metavar="T",
        help="list the profiles of benchmark T (see 'vqametrics score --help'); "
        "'all' lists every benchmark's",
    )
    p.add_argument("--annotations", metavar="A", help="annotations file (see 'vqametrics vqa')")
    p.add_argument(
        "--results",
        action="append",
        metavar="R",
        help="results file (see 'vqametrics vqa'); repeat for one row per system",
    )
    p.add_argument("--questions", metavar="Q", help="official questions file (validated only)")
    add_reader_options(p)
    add_matching_options(p)
    p.add_argument(
        "--examples",
        type=nonnegative_int,
        default=3,
        metavar="N",
        help="examples per rule (default 3)",
    )
    add_digits_option(p)
    add_json_flag(p)
    add_name_option(p)
    p.set_defaults(func=run, _parser=p)


def run(args: argparse.Namespace) -> int:
    if args.task is not None:
        if args.annotations is not None or args.results is not None:
            args._parser.error("--task lists profiles; it does not go with --annotations/--results")
        return _list_task(args.task, args.json)
    if args.annotations is None and args.results is None:
        if args.output_format in ("csv", "markdown", "latex"):
            from ..profiles import list_profiles
            from ..views.tables import Table

            rows = tuple((p.name, p.description, p.reproduces, p.toolkit) for p in list_profiles())
            header = ("profile", "description", "reproduces", "toolkit")
            emit_table(Table(header, rows, text_columns=frozenset(range(4))), args.output_format)
            return 0
        return _list(args.json)
    if args.list or args.results is None:
        args._parser.error(
            "--results (with --annotations, unless the results carry their ground truth) "
            "goes without --list"
        )
    from ..analysis.profile_diff import compare_profiles, format_comparison

    paths = args.results
    if wants_table(args, len(paths)):
        from ..analysis.render import profiles_table

        names = names_for(args, paths)
        results = []
        for path in paths:
            ev = evaluate_from_args(args, path)
            results.append(compare_profiles(ev.dataset, ev.predictions))
        if args.json:
            print_json(
                {
                    "systems": [
                        dict(r.as_dict(examples=args.examples, digits=args.digits), name=n)
                        for n, r in zip(names, results, strict=True)
                    ]
                }
            )
        else:
            emit_table(profiles_table(names, results, args.digits), args.output_format)
        return 0
    official = evaluate_from_args(args, paths[0])
    comparison = compare_profiles(official.dataset, official.predictions)
    if args.json:
        print_json(comparison.as_dict(examples=args.examples, digits=args.digits))
    else:
        print(format_comparison(comparison, examples=args.examples, digits=args.digits))
    return 0


def _list(as_json: bool) -> int:
    from ..profiles import list_profiles

    profiles = list_profiles()
    if as_json:
        print_json([p.as_dict() for p in profiles])
        return 0
    width = max(len(p.name) for p in profiles)
    for p in profiles:
        print(f"{p.name:<{width}}  {p.description}")
        print(f"{'':<{width}}  reproduces: {p.reproduces}  (signature toolkit:{p.toolkit})")
    return 0


def _list_task(name: str, as_json: bool) -> int:
    """The profiles of one benchmark (or of all), with the toolkit each reproduces."""
    from ..tasks import get_task, list_tasks
    from ..tasks._base import KIND_TITLES

    tasks = list_tasks() if name == "all" else [get_task(name)]
    if name == "all":  # grouped by kind, in the order of KIND_TITLES
        tasks = [t for kind in KIND_TITLES for t in tasks if t.kind == kind]
    if as_json:
        print_json(
            [
                {
                    "task": t.name,
                    "title": t.title,
                    "kind": t.kind,
                    "default_profile": t.default_profile,
                    "note": t.note,
                    "profiles": [p.as_dict() for p in t.profiles],
                }
                for t in tasks
            ]
        )
        return 0
    heading = None
    for t in tasks:
        if name == "all" and KIND_TITLES[t.kind] != heading:
            if heading is not None:
                print()
            heading = KIND_TITLES[t.kind]
            print(f"== {heading} ==")
        print(f"{t.name} — {t.title}" + (f" ({t.note})" if t.note else ""))
        width = max(len(p.name) for p in t.profiles)
        for p in t.profiles:
            mark = "*" if p.name == t.default_profile else " "
            print(f" {mark}{p.name:<{width}}  {p.description}")
            print(f"  {'':<{width}}  reproduces: {p.reproduces}  (signature toolkit:{p.toolkit})")
    return 0
