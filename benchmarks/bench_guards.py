"""Timings that used to be assertions in the tests (issue 18): measured here, asserted nowhere.

The tests check what these runs do (the work: calls, blocks, bounds); this prints how long they
take, median of ``--runs``:

1. ``bootstrap_ci`` at VQA v2 val scale: 214,354 questions on 40,504 images, three answer types,
   100 replicates (was a "< 5 s" assertion in ``tests/test_stats.py``).
2. ``compare_profiles`` on OK-VQA val with ``evaluate_vqa`` (was "< 10 s" in
   ``tests/profiles/test_profile_diff.py``); only with ``--okvqa DIR``, the folder holding
   ``okvqa_val_eval.json`` and the PICa VinVL-tag results (team data, never bundled).

DocVQA val at its official size (was "< 1 s" in ``tests/tasks/test_anls.py``) is timed with every
other task by ``benchmarks/bench_tasks.py``.

Usage: ``python benchmarks/bench_guards.py [--runs 3] [--okvqa DIR]``
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

PICA = "coco14_promptC_gpt3_VinVLTag_n16_repeat5_47.934998_CLIPImagequestion.json"


def median_seconds(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bootstrap_at_vqa_v2_scale(runs: int) -> float:
    import numpy as np

    from vqametrics.aggregate.stats import bootstrap_ci

    rng = np.random.default_rng(0)
    n = 214_354
    scores = rng.choice([0.0, 0.3, 0.6, 0.9, 1.0], n).tolist()
    images = np.sort(rng.integers(0, 40_504, n)).tolist()
    atypes = rng.choice(["yes/no", "number", "other"], n).tolist()
    return median_seconds(
        lambda: bootstrap_ci(scores, groups={"a": atypes}, clusters=images, n_bootstrap=100), runs
    )


def okvqa_profiles(folder: Path, runs: int) -> float:
    from vqametrics import evaluate_vqa
    from vqametrics.analysis.profile_diff import compare_profiles

    def run() -> None:
        result = evaluate_vqa(folder / "okvqa_val_eval.json", folder / PICA)
        compare_profiles(result.dataset, result.predictions)

    return median_seconds(run, runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--okvqa", type=Path, help="folder of the OK-VQA val files")
    args = parser.parse_args()
    t = bootstrap_at_vqa_v2_scale(args.runs)
    print(f"bootstrap_ci, 214,354 questions / 40,504 images, 100 replicates: {t:.2f} s")
    if args.okvqa is not None:
        t = okvqa_profiles(args.okvqa, args.runs)
        print(f"evaluate_vqa + compare_profiles, OK-VQA val (5,046 questions): {t:.2f} s")


if __name__ == "__main__":
    main()
