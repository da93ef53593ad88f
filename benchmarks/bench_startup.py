"""Start-up of the command line (issue 23): each command against a bare ``python -c pass``.

Every case runs in a fresh process, the cases alternating run by run; the medians and their
ratio to the bare interpreter are printed (target: ``vqametrics --help`` <= 2x), of the wall
time and of the CPU time (user + sys from ``wait4``: the figure to trust on a loaded host). The
small ``score`` is POPE on 20 VLMEvalKit rows, ChartQA on 20 VLMEvalKit CSV rows (a task
whose profiles have explain hooks), and MathVista on 20 rows of its own output (extractions
recorded: a judged task scored without its judge); ``--importtime`` also prints the slowest
imports of each command (``python -X importtime``). ``--before SRC`` runs every command a
second time from another source tree (e.g. an export of main's ``src/``), in the same
alternation.

Usage: ``python benchmarks/bench_startup.py [--runs 15] [--importtime] [--before SRC]``
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
    chart = tmp / "chartqa.csv"
    lines = ["index,question,answer,prediction,split"]
    lines += [f"{i},q,{i},{i % 3},{('test_human', 'test_augmented')[i % 2]}" for i in range(20)]
    chart.write_text("\n".join(lines) + "\n")
    mathvista = tmp / "mathvista.json"  # MathVista's own output, extractions recorded
    records = {
        str(i): {"question": "How many?", "image": f"images/{i}.jpg", "choices": None,
                 "unit": None, "precision": None, "answer": str(i), "question_type": "free_form",
                 "answer_type": "integer", "pid": str(i), "metadata": {"split": "testmini"},
                 "query": "How many?", "response": f"It is {i % 3}.", "extraction": str(i % 3),
                 "prediction": str(i % 3), "true_false": i % 3 == i}
        for i in range(20)
    }  # fmt: skip
    mathvista.write_text(json.dumps(records))
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
        "score chartqa (20 rows)": [*cli, "score", "chartqa", "--results", str(chart)],
        "score mathvista (20 rows)": [*cli, "score", "mathvista", "--results", str(mathvista)],
    }  # fmt: skip


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of *cmd* in a fresh process; fails loudly on a non-zero exit."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def environment(src: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode: so here
    return env


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
    parser.add_argument("--before", metavar="SRC", help="also time this source tree")
    args = parser.parse_args()
    trees = {"": SRC} if args.before is None else {"": SRC, " (before)": args.before}
    with tempfile.TemporaryDirectory() as tmp:
        todo = {
            name + tag: (cmd, environment(src))
            for name, cmd in cases(Path(tmp)).items()
            for tag, src in trees.items()
            if not (tag and name == "python -c pass")
        }
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in todo}
        for cmd, env in todo.values():
            timed(cmd, env)  # warm the file cache and the bytecode
        for _ in range(args.runs):
            for name, (cmd, env) in todo.items():
                times[name].append(timed(cmd, env))
        base = [statistics.median(t[k] for t in times["python -c pass"]) for k in (0, 1)]
        print(
            f"start-up over {args.runs} alternating runs on {os.cpu_count()} CPUs, Python "
            f"{sys.version.split()[0]}, load {os.getloadavg()[0]:.1f}: median wall and CPU "
            "time, each with its ratio to python -c pass"
        )
        for name, ts in times.items():
            wall, cpu = (statistics.median(t[k] for t in ts) for k in (0, 1))
            print(
                f"  {name:37} {wall * 1000:7.1f} ms {wall / base[0]:5.2f}x   "
                f"CPU {cpu * 1000:7.1f} ms {cpu / base[1]:5.2f}x"
            )
        if args.importtime:
            for name, (cmd, env) in todo.items():
                if name != "python -c pass":
                    print(f"slowest imports of {name}:")
                    print("\n".join(slowest_imports(cmd, env)))


if __name__ == "__main__":
    main()
