"""Per-call cost of ``vqametrics.integrations.rewards.compute_score`` (one RL rollout's reward).

1. Ordinary rollouts: µs per call.
2. Hostile rollouts (issue 22: a looping model's 56 KB of repeated ``<think>`` took 5–13 s):
   ms per call at 56 KB and at 112 KB, and their ratio (linear: about 2; quadratic: about 4).
   The 112 KB case is below the extractors' bound (``MAX_SCAN_CHARS``); the last row is a
   1 MB rollout, cut to that bound first.

python benchmarks/bench_rewards.py [--old]   (--old: also time the plain ``re.sub`` of the
reasoning-block pattern the extractor used before, on the 56 KB rollout: seconds)
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time

from vqametrics.integrations.rewards import compute_score

CASES = [
    ("vqav2", "<think>The man holds a bat.</think> The answer is baseball.", ["baseball"] * 10),
    ("okvqa", "Answer: pancakes", json.dumps(["pancake"] * 8 + ["pancakes"] * 2)),
    ("ocrvqa", "The answer is Fiction.", ["Fiction"]),
]
HOSTILE = {
    "<think> repeated": "<think>",
    "</think><think>": "</think><think>",
    "*a (emphasis)": "*a ",
    "blank lines": "\n",
    "<answer> repeated": "<answer>",
}
TEN = ["blue"] * 10


def per_call(text: str, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        compute_score("vqav2", text, TEN)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(n: int = 20_000) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", action="store_true")
    args = parser.parse_args()
    for source, text, truth in CASES:
        compute_score(source, text, truth)  # warm the caches and imports
        start = time.perf_counter()
        for _ in range(n):
            compute_score(source, text, truth)
        per = (time.perf_counter() - start) / n
        print(f"{source:8} {per * 1e6:7.1f} µs per call ({n} calls)")
    print("hostile rollouts (vqav2, median of 5):   56 KB      112 KB   ratio      1 MB")
    for name, unit in HOSTILE.items():
        small = "x" + unit * (56_000 // len(unit))
        big = "x" + unit * (112_000 // len(unit))
        huge = "x" + unit * (1_000_000 // len(unit))
        a, b, c = per_call(small), per_call(big), per_call(huge, 3)
        print(f"  {name:20} {a * 1e3:12.1f} ms {b * 1e3:8.1f} ms {b / a:6.2f} {c * 1e3:8.1f} ms")
    if args.old:
        tags = "think|thinking|reasoning|analysis|reflection"
        old = re.compile(rf"<({tags})\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
        start = time.perf_counter()
        old.sub(" ", "<think>" * 8000)
        print(f"  before (plain re.sub, 56 KB <think>): {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
