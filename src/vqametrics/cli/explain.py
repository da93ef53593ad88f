"""``vqametrics explain``: one question, every step of its score."""

from __future__ import annotations

import argparse

from ._chat import add_extract_option
from ._common import add_profile_option, print_json
from ._output import add_format_options

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "explain",
        help="explain how one prediction scores against its human answers",
        description="Show the prediction and each human answer through every normalization "
        "step, which answers match, the leave-one-out table and the final score.",
    )
    p.add_argument("prediction", help="the model's answer")
    p.add_argument(
        "--answers", nargs="+", required=True, metavar="A", help="the human answers (usually 10)"
    )
    add_profile_option(p)
    add_extract_option(p)
    add_format_options(p, ("text", "json"))  # one question: no table
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..explain import explain
    from ..report.text import explanation_text

    e = explain(args.prediction, args.answers, profile=args.profile, extract=args.extract)
    if args.json:
        print_json(e.as_dict())
    else:
        print(explanation_text(e))
    return 0
