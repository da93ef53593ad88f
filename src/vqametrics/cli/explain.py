"""``vqametrics explain``: one answer (or one item of a run), every step of its score."""

from __future__ import annotations

import argparse
from typing import Any

from ._chat import add_extract_option
from ._common import (
    add_command,
    add_input_format_option,
    add_matching_options,
    print_json,
    task_input_args,
)
from ._output import add_format_options

__all__ = ["register"]

#: tasks whose one-answer explanation is VQA v2's own (every normalization step, the slips)
_VQA_TASKS = ("vqav2",)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_command(
        sub,
        "explain",
        epilog="examples:\n"
        "  vqametrics explain Crab! --answers crab crab crab lobster\n"
        "  vqametrics explain --task textvqa Dakota --answers dakota dakota 'dakota digital'\n"
        "  vqametrics explain --task mmbench 'The answer is B' --answers B --options A=cat "
        "B=dog\n"
        "  vqametrics explain --task ocrbench '10' --answers 1 --dataset-name IIIT5K\n"
        "  vqametrics explain --task textvqa --results R --annotations A --id 34602",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("prediction", nargs="?", help="the model's answer")
    p.add_argument(
        "--answers", nargs="+", metavar="A", help="the reference answers (VQA: usually 10)"
    )
    p.add_argument("--task", metavar="TASK", help="the benchmark (default: VQA v2)")
    p.add_argument(
        "--profile", metavar="NAME", help="scoring profile (default: the task's official one)"
    )
    p.add_argument(
        "--options",
        nargs="+",
        metavar="L=TEXT",
        help="multiple choice (mmbench): the options, as letter=text",
    )
    run = p.add_argument_group("one item of a run (--task, --results, --id)")
    run.add_argument("--results", metavar="R", help="the results file the item was scored in")
    run.add_argument("--annotations", metavar="A", help="ground truth, where the task needs it")
    run.add_argument("--questions", metavar="Q", help="question file, where the task needs it")
    run.add_argument("--id", dest="item_id", metavar="ITEM", help="the item's id")
    add_input_format_option(p)
    run.add_argument("--id-field", metavar="F", help="the results' id column, when unusual")
    run.add_argument("--answer-field", metavar="F", help="the results' answer column")
    add_matching_options(p)
    add_extract_option(p)
    add_format_options(p, ("text", "json"))  # one item: no table
    # a scorer's item fields (OCRBench --dataset-name, …) and a task's own options
    p.set_defaults(func=run_command, takes_extra=True)


def run_command(args: argparse.Namespace) -> int:
    from ..core.exceptions import InputError

    if args.results is not None or args.item_id is not None:
        return _run_item(args)
    if args.prediction is None or not args.answers:
        raise InputError(
            "explain: give a PREDICTION and --answers, or --task, --results and --id to "
            "explain one item of a run"
        )
    if args.task is None or args.task.lower() in _VQA_TASKS:
        _no_extra(args, "VQA v2")
        return _run_vqa(args)
    from ..tasks import get_task
    from ..views.explanation import explain_answer

    task = get_task(args.task)
    prof = task.profile(args.profile)
    context = _context(args, prof.context, task.name)
    e = explain_answer(
        task, args.prediction, args.answers, profile=prof.name, extract=args.extract, **context
    )
    _emit(args, e)
    return 0


def _run_vqa(args: argparse.Namespace) -> int:
    from ..views.explanation import explain
    from ..views.text import explanation_text

    if args.options:
        from ..core.exceptions import InputError

        raise InputError("explain: --options is for multiple choice (--task mmbench)")
    e = explain(
        args.prediction, args.answers, profile=args.profile or "official", extract=args.extract
    )
    if args.json:
        print_json(e.as_dict())
    else:
        print(explanation_text(e))
    return 0


def _run_item(args: argparse.Namespace) -> int:
    from ..core.exceptions import InputError
    from ..tasks import get_task
    from ..tasks._run import evaluate_task
    from ..views.explanation import explain_item

    missing = [
        flag
        for flag, value in (
            ("--task", args.task),
            ("--results", args.results),
            ("--id", args.item_id),
        )
        if value is None
    ]
    if missing:
        raise InputError(f"explain one item of a run: {' and '.join(missing)} needed too")
    if args.prediction is not None or args.answers:
        raise InputError(
            "explain: a PREDICTION and --answers, or --results and --id (the item's prediction "
            "and answers come from the files), not both"
        )
    task = get_task(args.task)
    options = _task_options(args, task)
    ev = evaluate_task(
        task,
        args.results,
        **task_input_args(args),
        **options,
    )
    _emit(args, explain_item(ev, args.item_id))
    return 0


def _emit(args: argparse.Namespace, e: Any) -> None:
    if args.json:
        print_json(e.as_dict())
    else:
        print(e.text())


def _parse_extra(
    args: argparse.Namespace, names: list[tuple[str, str]], what: str
) -> dict[str, str]:
    from ..core.exceptions import InputError
    from ._parser import parse_task_options

    values, unknown = parse_task_options("vqametrics explain", names, getattr(args, "extra", []))
    if unknown:
        known = ", ".join(f"--{n}" for n, _ in names) or "none"
        raise InputError(
            f"explain: unrecognized arguments for {what}: {' '.join(unknown)} ({known})"
        )
    return values


def _no_extra(args: argparse.Namespace, what: str) -> None:
    _parse_extra(args, [], what)


def _context(args: argparse.Namespace, context: tuple[str, ...], task: str) -> dict[str, Any]:
    """The item fields the profile's scorer takes, from ``--options`` (multiple choice) and
    ``--<field>`` (OCRBench ``--dataset-name``, …)."""
    from ..core.exceptions import InputError

    names = [(c.replace("_", "-"), f"the item's {c}") for c in context if c != "options"]
    out: dict[str, Any] = _parse_extra(args, names, f"task {task!r}")
    if args.options:
        if "options" not in context:
            raise InputError(f"explain: task {task!r} takes no --options (multiple choice only)")
        options: dict[str, str] = {}
        for text in args.options:
            letter, sep, value = text.partition("=")
            if not sep or not letter.strip():
                raise InputError(f"explain: --options {text!r}: expected LETTER=TEXT (A=cat)")
            if letter.strip() in options:
                raise InputError(
                    f"explain: --options gives letter {letter.strip()!r} twice "
                    f"({letter.strip()}={options[letter.strip()]!r} and {text!r}); give each once"
                )
            options[letter.strip()] = value
        out["options"] = options
    elif "options" in context:
        raise InputError(f"explain: task {task!r} needs --options A=TEXT B=TEXT …")
    return out


def _task_options(args: argparse.Namespace, task: Any) -> dict[str, str]:
    """A task's own reading options (``Task.options``, e.g. GQA's ``--choices``)."""
    if args.options:
        from ..core.exceptions import InputError

        raise InputError("explain: --options gives one answer's choices; a run has its own")
    return _parse_extra(args, list(task.options), f"task {task.name!r}")
