"""Per-call cost of ANLS (issues 22 and 23): rapidfuzz's edit distance against the pure DP.

Both paths score the same inputs in the same run, alternately; the pure path is the project's
own reference DP (``levenshtein_reference``) swapped into the scorer. Three cases:

1. **ordinary answers**: DocVQA-like predictions against 1–3 short reference answers
   (target: <= 20 µs a call on the fast path);
2. **1k**: two dissimilar 1,000-character answers (the pure DP's quadratic case);
3. **10k**: two dissimilar 10,000-character answers (the audit's hang; the pure path is only
   timed with ``--pure-10k``: it takes minutes).

Each figure is CPU time (``time.process_time``), the one to trust on a loaded host; the wall
time of the fast path on ordinary answers is printed beside it.

Usage: ``python benchmarks/bench_anls.py [--runs 5] [--pure-10k]``
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable, Sequence

from vqametrics.kernels import anls
from vqametrics.kernels.anls import anls_official, levenshtein_reference

WORDS = ["total", "2019", "$ 45.00", "john smith", "page 3", "yes", "the", "invoice", "12/03"]


def ordinary(rng: random.Random, n: int) -> list[tuple[str, list[str]]]:
    """Short answers, some exact, some near misses, some unrelated (as a model's are)."""
    items = []
    for _ in range(n):
        refs = [
            " ".join(rng.sample(WORDS, rng.choice((1, 2)))) for _ in range(rng.choice((1, 2, 3)))
        ]
        pick = rng.random()
        if pick < 0.4:
            pred = refs[0]
        elif pick < 0.7:
            pred = refs[0][:-1] + "x" if len(refs[0]) > 1 else "x"
        else:
            pred = rng.choice(WORDS).upper()
        items.append((pred, refs))
    return items


def dissimilar(length: int) -> list[tuple[str, list[str]]]:
    rng = random.Random(length)
    pred = "".join(rng.choice("abcdefgh") for _ in range(length))
    ref = "".join(rng.choice("efghijkl") for _ in range(length))
    return [(pred, [ref])]


def per_call(items: Sequence[tuple[str, list[str]]], repeat: int) -> tuple[float, float]:
    """(CPU, wall) seconds per call of :func:`anls_official` over *items*."""
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(repeat):
        for pred, refs in items:
            anls_official(pred, refs)
    calls = repeat * len(items)
    return (time.process_time() - cpu) / calls, (time.perf_counter() - wall) / calls


def timed(pure: bool, items: Sequence[tuple[str, list[str]]], repeat: int) -> tuple[float, float]:
    fast: Callable[[str, str, int | None], int] = anls._distance
    if pure:
        anls._distance = levenshtein_reference
    try:
        return per_call(items, repeat)
    finally:
        anls._distance = fast


def compare(
    name: str, items: list[tuple[str, list[str]]], repeat: int, runs: int, pure: bool
) -> None:
    ours, base = [], []
    anls_official(*items[0])  # import rapidfuzz outside the timing
    for _ in range(runs):
        ours.append(timed(False, items, repeat))
        if pure:
            base.append(timed(True, items, max(1, repeat // 50) if len(items) == 1 else repeat))
    fast = statistics.median(cpu for cpu, _ in ours)
    wall = statistics.median(w for _, w in ours)
    head = f"{name:18} rapidfuzz {fast * 1e6:8.1f} µs CPU ({wall * 1e6:7.1f} wall)"
    if base:
        slow = statistics.median(cpu for cpu, _ in base)
        print(f"{head}   pure DP {slow * 1e6:12.1f} µs   {slow / fast:7.1f}x faster")
    else:
        print(f"{head}   pure DP (skipped: --pure-10k)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pure-10k", action="store_true", help="also time the pure DP at 10k")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"ANLS (anls_official) per call, median of {args.runs} alternating runs, load {load:.1f}")
    compare("ordinary answers", ordinary(random.Random(0), 2000), 20, args.runs, True)
    compare("1k dissimilar", dissimilar(1000), 50, args.runs, True)
    compare(
        "10k dissimilar", dissimilar(10_000), 20, args.runs if args.pure_10k else 3, args.pure_10k
    )


if __name__ == "__main__":
    main()
