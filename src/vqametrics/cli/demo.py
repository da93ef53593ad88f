"""``vqametrics demo``: score the bundled sample in the terminal (the web demo replaces this)."""

from __future__ import annotations

import argparse

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("demo", help="score the bundled VQA v2 sample and the textbook example")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..data import ANSWER_SETS, sample_files
    from ..evaluate import evaluate_vqa
    from ..report.text import table

    rows: list[list[object]] = []
    for name in ["textbook", *ANSWER_SETS]:
        files = sample_files(name)
        for profile in ("official", "simple"):
            r = evaluate_vqa(files["annotations"], files["results"], profile=profile)
            rows.append([name, profile, len(r.scores), r.accuracy["overall"]])
    print("Bundled VQA v2 val sample (CC BY 4.0) with SIMULATED answer sets:")
    for name, what in ANSWER_SETS.items():
        print(f"  {name:<15} {what}")
    print()
    print(table(rows, ["answer set", "profile", "n", "VQA acc"]))
    return 0
