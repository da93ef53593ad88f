"""``vqametrics score TASK``: score a results file of any registered benchmark."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from ._chat import add_extract_option, add_judge_options, judge_from_args, warn_verbose
from ._common import (
    MAX_DIGITS,
    add_ci_options,
    add_command,
    add_json_flag,
    add_matching_options,
    add_reader_options,
    int_in_range,
    named_warnings,
    print_json,
    task_input_args,
)
from ._exit import hold_until_exit
from ._output import add_name_option, emit_systems, names_for, wants_table

if TYPE_CHECKING:
    from ..tasks import Task
    from ..tasks._run import TaskEvaluation

__all__ = ["register"]


class _Once(argparse.Action):
    """An option that may be given once: a second ``--annotations`` is a usage error, never a
    silently dropped file."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        if getattr(namespace, self.dest, None) is not None:
            parser.error(f"{option_string} given twice; score one results file per run")
        setattr(namespace, self.dest, values)


class _ScoreParser(argparse.ArgumentParser):
    """The ``score`` parser. Its help lists the benchmarks and their own options, which are
    imported only when the help is shown, so that every command starts without them."""

    def format_help(self) -> str:
        from ..tasks import list_tasks
        from ..tasks._base import KIND_TITLES

        tasks = list_tasks()
        lines = ["tasks by kind (vqametrics profiles --task T lists a task's profiles):"]
        for kind, title in KIND_TITLES.items():
            group = [t for t in tasks if t.kind == kind]
            if group:
                lines += [f" {title}:"]
                lines += [f"  {t.name:<15} {t.title}: {t.description}" for t in group]
        options = [(t.name, name, text) for t in tasks for name, text in t.options]
        if options:
            lines += ["", "task options (only for the task named):"]
            lines += [f"  --{name} V  [{task}] {text}" for task, name, text in options]
        self.epilog = "\n".join(lines)
        return super().format_help()


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_command(sub, "score", formatter_class=argparse.RawDescriptionHelpFormatter)
    p.__class__ = _ScoreParser  # the same parser, with the help above
    p.add_argument("task", metavar="TASK", help="the benchmark (see the list of tasks below)")
    p.add_argument(
        "--results",
        action="append",
        metavar="R",
        help="predictions: a file in any layout the task reads, or - for standard input; "
        "repeat to score several systems in one table",
    )
    p.add_argument("--annotations", action=_Once, metavar="A", help="ground truth (file or folder)")
    p.add_argument("--questions", action=_Once, metavar="Q", help="question file, where needed")
    p.add_argument("--profile", metavar="NAME", help="toolkit profile (default: the official one)")
    add_reader_options(p)
    add_matching_options(p)
    add_extract_option(p)
    add_judge_options(p, JUDGE_HELP)
    p.add_argument(
        "-o",
        "--out",
        metavar="DIR",
        help="write metrics.json, per_item.jsonl, signature.txt, manifest.json",
    )
    p.add_argument(
        "--digits",
        type=int_in_range(0, MAX_DIGITS),
        metavar="N",
        help=f"rounding of the table, 0-{MAX_DIGITS} (default: the toolkit's)",
    )
    add_json_flag(p)
    add_name_option(p)
    add_ci_options(p)
    p.set_defaults(func=run, takes_extra=True)


#: which tasks and profiles take --judge-url (kept in step with the registry by a test: the
#: tasks with a judge stage or a yes/no parser; the parser is built without importing them)
JUDGE_HELP = (
    "With --judge-url: yes/no tasks (pope, mme; hallusionbench --profile vlmevalkit): the "
    "answers the profile's parser leaves 'other' are read by the judge, as VLMEvalKit does. "
    "Judged tasks, for the items with no recorded judge output, with the toolkit's prompt "
    "(--judge-prompt FILE where it cannot be bundled): mathvista (official, official-2024, "
    "lmms-eval, vlmevalkit: the answer extraction), mathvision (vlmevalkit only: the official "
    "scorer needs no judge), hallusionbench (official, lmms-eval: the verdicts), mmvet "
    "(official, vlmevalkit, lmms-eval: the grades). mmbench: the rows the letter heuristics "
    "leave undecided, in VLMEvalKit's order. The signature names the judge "
    "(judge:<model>[/prompt:<id>])."
)


def run(args: argparse.Namespace) -> int:
    from ..core.exceptions import InputError
    from ..tasks import get_task
    from ..tasks._run import evaluate as evaluate_one

    task = get_task(args.task)
    if not args.results:
        raise InputError(f"score {task.name}: --results is required")
    inputs = (*(r for r in args.results if r != "-"), args.annotations, args.questions)
    if args.out:
        from ..views.output import check_out_dir
        from ..views.task_files import task_output_files

        check_out_dir(args.out, task_output_files(task), inputs)  # before any work
    options: dict[str, Any] = dict(_task_options(task, getattr(args, "extra", [])))
    client = judge_from_args(args)  # bad judge settings fail before any file is read

    several = len(args.results) > 1

    def evaluate(results: str) -> TaskEvaluation:
        if not several:
            return evaluate_file(results)
        with named_warnings(results):  # several files: each warning says whose it is
            return evaluate_file(results)

    def evaluate_file(results: str) -> TaskEvaluation:
        result = evaluate_one(
            task,
            results,
            reported=args.reported,
            **task_input_args(args),
            judge=client,
            **options,
        )
        warn_verbose(
            result.diagnostics,
            extracted=args.extract is not None,
            source=results if several else None,
        )
        hold_until_exit(result)
        return result

    from ._output import ci_settings

    ci = ci_settings(args)
    # one file's --json is its document, intervals included; otherwise --ci is the table's
    document = args.json and len(args.results) == 1 and not wants_table(args, 1)
    try:
        if wants_table(args, len(args.results)) or (ci["ci"] and not document):
            from ..analysis.systems import compare_task_systems

            if args.out and len(args.results) > 1:
                raise InputError("--out writes the files of one results file; give one --results")
            names = names_for(args, args.results)
            evaluations = [evaluate(r) for r in args.results]
            if args.out:
                from ..views.task_files import write_task_outputs

                write_task_outputs(evaluations[0], args.out, inputs=inputs)
            table = compare_task_systems(evaluations, names, **ci)
            return emit_systems(table, args)
        result = evaluate(args.results[0])
        if ci["ci"]:
            from ..aggregate.stats import require_numpy
            from ..tasks._run import with_intervals

            require_numpy()
            result = with_intervals(result, ci["n_bootstrap"], ci["seed"])
    finally:
        if client is not None:
            client.close()
    if client is not None and result.judge_stats is not None:
        j = result.judge_stats
        print(
            f"judge {j.model}: {j.judged} judged, {j.unjudged} unjudged (left as written), "
            f"{j.judge_calls} calls, {j.cache_hits} cache hits",
            file=sys.stderr,
        )
    if args.out:
        from ..views.task_files import write_task_outputs

        write_task_outputs(result, args.out, inputs=inputs)
    if args.json:
        print_json(result.as_dict())
    else:
        from ..views.task_text import task_text

        sys.stdout.write(task_text(result, args.digits) + "\n")
    return 0


def _task_options(task: Task, extra: list[str]) -> dict[str, str]:
    """The task's own options (``Task.options``, e.g. GQA's ``--choices``) among the arguments
    the generic ``score`` options left; anything else is a usage error."""
    from ..core.exceptions import InputError
    from ._parser import parse_task_options

    values, unknown = parse_task_options(f"vqametrics score {task.name}", task.options, extra)
    if unknown:
        known = ", ".join(f"--{name}" for name, _ in task.options) or "none"
        raise InputError(
            f"unrecognized arguments for task {task.name!r}: {' '.join(unknown)} "
            f"(its own options: {known})"
        )
    return values
