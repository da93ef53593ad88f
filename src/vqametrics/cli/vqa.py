"""``vqametrics vqa``: score a results file against annotations, as the official script does."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ._common import add_json_flag, add_profile_option, print_json

if TYPE_CHECKING:
    from ..aggregate import Breakdown
    from ..evaluate import VQAEvaluation

__all__ = ["register"]


def add_input_options(parser: argparse.ArgumentParser, results: bool = True) -> None:
    """The input options shared by the commands that score a results file."""
    parser.add_argument(
        "--annotations",
        required=True,
        metavar="A",
        help="annotations: official JSON, or a list/JSONL of {question_id, answers}",
    )
    if results:
        parser.add_argument(
            "--results",
            required=True,
            metavar="R",
            help="predictions: official list of {question_id, answer}, JSONL, or {qid: answer}",
        )
    parser.add_argument(
        "--questions", metavar="Q", help="official questions file (validated; optional)"
    )
    add_profile_option(parser)
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


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "vqa",
        help="score VQA predictions (official-exact soft accuracy)",
        description="Score predictions against the 10 human answers per question, exactly as "
        "the official VQA evaluation script does (or as another profile does).",
    )
    add_input_options(p)
    p.add_argument(
        "--out",
        metavar="DIR",
        help="write accuracy.json, evalQA.json, evalQuesType.json, evalAnsType.json, "
        "per_question.jsonl and signature.txt into DIR",
    )
    p.add_argument("--digits", type=int, default=2, help="rounding of percentages (default 2)")
    p.add_argument(
        "--metrics",
        default="vqa",
        metavar="LIST",
        help="comma-separated metrics: vqa, em, em-any (default: vqa)",
    )
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..evaluate import evaluate_vqa

    metrics = _parse_metrics(args.metrics)
    result = evaluate_vqa(
        args.annotations,
        args.results,
        questions=args.questions,
        profile=args.profile,
        allow_missing=args.allow_missing,
        ignore_extra=args.ignore_extra,
        on_duplicate=args.on_duplicate,
        digits=args.digits,
    )
    extra = _extra_metrics(result, metrics)
    if args.out:
        from ..report.files import write_vqa_outputs

        write_vqa_outputs(result, args.out)
    if args.json:
        payload = result.as_dict()
        for name, value in extra.items():
            payload[name] = value
        print_json(payload)
    else:
        from ..report.text import vqa_table

        labels = {"em": "EM", "em_any": "EM-any"}
        print(vqa_table(result, {labels[k]: v for k, v in extra.items()}))
    if args.out:
        print(f"wrote outputs to {args.out}", file=sys.stderr)
    return 0


_METRICS = ("vqa", "em", "em-any")


def _parse_metrics(text: str) -> list[str]:
    from .._exceptions import UnknownNameError

    names = [t.strip() for t in text.split(",") if t.strip()]
    bad = [n for n in names if n not in _METRICS]
    if bad or not names:
        raise UnknownNameError(
            f"unknown metric {bad[0] if bad else text!r}; valid metrics: {', '.join(_METRICS)}"
        )
    return names


def _extra_metrics(result: VQAEvaluation, metrics: list[str]) -> dict[str, Breakdown]:
    """EM and EM-any breakdowns, when asked for (see ``vqametrics.score.exact_match``)."""
    wanted = [m for m in metrics if m != "vqa"]
    if not wanted:
        return {}
    from ..score.exact_match import exact_match_breakdowns

    return exact_match_breakdowns(result, wanted)
