"""Per-call cost of ``vqametrics.rewards.compute_score`` (one RL rollout's reward).

python benchmarks/bench_rewards.py
"""

from __future__ import annotations

import json
import time

from vqametrics.rewards import compute_score

CASES = [
    ("vqav2", "<think>The man holds a bat.</think> The answer is baseball.", ["baseball"] * 10),
    ("okvqa", "Answer: pancakes", json.dumps(["pancake"] * 8 + ["pancakes"] * 2)),
    ("ocrvqa", "The answer is Fiction.", ["Fiction"]),
]


def main(n: int = 20_000) -> None:
    for source, text, truth in CASES:
        compute_score(source, text, truth)  # warm the caches and imports
        start = time.perf_counter()
        for _ in range(n):
            compute_score(source, text, truth)
        per_call = (time.perf_counter() - start) / n
        print(f"{source:8} {per_call * 1e6:7.1f} µs per call ({n} calls)")


if __name__ == "__main__":
    main()
