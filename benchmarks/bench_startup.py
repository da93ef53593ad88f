"""Start-up of the command line (issue 23): each command against a bare ``python -c pass``.

Every case runs in a fresh process, the cases alternating run by run; the medians and their
ratio to the bare interpreter are printed (target: ``vqametrics --help`` <= 2x). The small
``score`` is POPE on 20 VLMEvalKit rows; ``--importtime`` also prints the slowest imports of
each command (``python -X importtime``).

Usage: ``python benchmarks/bench_startup.py [--runs 15] [--importtime]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = str(Path(__file__).resolve().parent.parent / "src")


def cases(tmp: Path) -> dict[str, list[str]]:
    rows = [
        {"index": i, "question": "Is there a dog?", "prediction": "Yes" if i % 2 else "No",
         "answer": "Yes", "category": "random"}
        for i in range(20)
    ]  # fmt: skip
    small = tmp / "pope.json"
    small.write_text(json.dumps(rows))
    # the installed console script (what a user runs), else python -m (runpy costs ~10 ms)
    script = Path(sys.executable).with_name("vqametrics")
    cli = [sys.executable, str(script)] if script.exists() else [sys.executable, "-m", "vqametrics"]
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "vqametrics --help": [*cli, "--help"],
        "vqametrics --version": [*cli, "--version"],
        "vqametrics score --help": [*cli, "score", "--help"],
        "score pope (20 rows)": [*cli, "score", "pope", "--results", str(small), "--profile",
                                 "vlmevalkit"],
    }  # fmt: skip


def wall(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def slowest_imports(cmd: list[str], env: dict[str, str], n: int = 8) -> list[str]:
    out = subprocess.run(
        [cmd[0], "-X", "importtime", *cmd[1:]], capture_output=True, text=True, env=env
    ).stderr.splitlines()[1:]
    rows = [(int(line.split("|")[1]), line.split("|")[2].rstrip()) for line in out if "|" in line]
    return [f"{cum / 1000:8.1f} ms {name}" for cum, name in sorted(rows)[-n:]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--importtime", action="store_true")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode: so here
    with tempfile.TemporaryDirectory() as tmp:
        todo = cases(Path(tmp))
        times: dict[str, list[float]] = {name: [] for name in todo}
        for cmd in todo.values():
            wall(cmd, env)  # warm the file cache
        for _ in range(args.runs):
            for name, cmd in todo.items():
                times[name].append(wall(cmd, env))
        base = statistics.median(times["python -c pass"])
        floor = min(times["python -c pass"])
        print(
            f"start-up over {args.runs} alternating runs: median and fastest, each with its "
            "ratio to python -c pass"
        )
        for name, ts in times.items():
            med, low = statistics.median(ts), min(ts)
            print(
                f"  {name:26} {med * 1000:8.1f} ms {med / base:5.2f}x   "
                f"{low * 1000:8.1f} ms {low / floor:5.2f}x"
            )
        if args.importtime:
            for name, cmd in todo.items():
                if name != "python -c pass":
                    print(f"slowest imports of {name}:")
                    print("\n".join(slowest_imports(cmd, env)))


if __name__ == "__main__":
    main()
