"""The speed benchmark of issue 3: prints the four figures the README quotes.

1. **Ratio.** ``vqametrics vqa --annotations A --questions Q --results R --out DIR`` end to end in
   a fresh process, against a fresh ``python -c`` that only ``json.load``s the same three files;
   the two are run alternately, and the median of the per-pair ratios is printed, of the wall
   time and of the CPU time (user + sys of the process and its children, from ``wait4``: the
   figure to trust on a shared machine, where wall times follow the other users' load), on all
   CPUs and on one (``taskset -c 0``, as a busy laptop or a one-CPU batch job runs it; issue 23's
   targets: <= 0.40 and <= 0.60 of the floor). The load average is printed beside them.
2. **Peak RSS** of the ``vqametrics vqa`` runs (``wait4`` rusage; target: <= 400 MiB).
3. **Linearity.** The same command on 20k, 214k and 2M questions; for each step the time ratio
   divided by the size ratio is printed (target: <= 1.1, i.e. 10x the questions <= 11x the time).
4. **Throughput** of the Python API on already-loaded data: ``score_dataset`` on the
   ``VQADataset`` returned by ``load_annotations`` (its answers already interned by the loader)
   and the aligned predictions from ``match_predictions`` (target: >= 1M questions/s).

The data is generated once by ``benchmarks/generate.py`` into ``benchmarks/_data/``
(git-ignored; about 2 GB with the 2M-question set, which takes about two minutes to generate).

Every timed run uses a bytecode cache (as an installed package does; ``--no-bytecode-cache``
to let each run compile vqametrics); ``--before SRC`` runs another checkout's ``src`` in the
same rotation, for a ratio against the code before a change.

Usage: ``python benchmarks/bench.py [--runs 5] [--no-2m] [--no-one-cpu] [--before SRC]``
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import DEFAULT_QUESTIONS, ensure

FILES = ("annotations.json", "questions.json", "results.json")
BASELINE = (
    "import json\n"
    "for name in ('annotations.json', 'questions.json', 'results.json'):\n"
    "    with open(name, encoding='utf-8') as fh:\n"
    "        json.load(fh)\n"
)


def run(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """Run *cmd*; return (wall seconds, peak RSS in MiB). Fails loudly on a non-zero exit."""
    wall, _, peak = run_timed(cmd, cwd)
    return wall, peak


#: the environment of every timed run: with a bytecode cache (in the benchmark's temporary
#: folder), as an installed package has; without one (``PYTHONDONTWRITEBYTECODE`` set in a
#: source checkout) each run compiles all of vqametrics again, about 0.3-1 s of CPU that an
#: installed copy never spends (``--no-bytecode-cache`` measures that case)
CHILD_ENV: dict[str, str] = dict(os.environ)
# the runs start in the data folder: this checkout's code first, and any relative entry of
# PYTHONPATH made absolute (else a run would silently import another installed copy)
CHILD_ENV["PYTHONPATH"] = os.pathsep.join(
    [
        str(Path(__file__).resolve().parent.parent / "src"),
        *(os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p),
    ]
)


def use_bytecode_cache(folder: Path) -> None:
    """Let every timed run read and write compiled modules under *folder*."""
    CHILD_ENV.pop("PYTHONDONTWRITEBYTECODE", None)
    CHILD_ENV["PYTHONPYCACHEPREFIX"] = str(folder)


def run_timed(cmd: list[str], cwd: Path, src: str | None = None) -> tuple[float, float, float]:
    """Run *cmd* (importing vqametrics from *src* when given); return (wall seconds, CPU
    seconds: user + sys of it and its children, peak RSS in MiB). Fails loudly on a non-zero
    exit."""
    env = CHILD_ENV if src is None else {**CHILD_ENV, "PYTHONPATH": os.path.abspath(src)}
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode != 0:
        raise SystemExit(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{err}")
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024  # Linux reports KiB


def vqa_cmd(data: Path, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "vqametrics",
        "vqa",
        "--annotations",
        str(data / "annotations.json"),
        "--questions",
        str(data / "questions.json"),
        "--results",
        str(data / "results.json"),
        "--out",
        str(out),
    ]


def ratio(
    data: Path,
    runs: int,
    tmp: Path,
    prefix: tuple[str, ...] = (),
    before: str | None = None,
) -> tuple[float, float, float, float]:
    """Alternating runs; (median wall, median json.load wall, peak RSS, median RSS), after
    printing each pair and the median per-pair wall and CPU ratios (and those of the code in
    *before*, a ``src`` folder, run in the same rotation, when given)."""
    ours: list[tuple[float, float]] = []
    base: list[tuple[float, float]] = []
    old: list[tuple[float, float]] = []
    rss = []
    old_rss = []
    baseline = [*prefix, sys.executable, "-c", BASELINE]
    vqa = [*prefix, *vqa_cmd(data, tmp / "out")]
    for i in range(runs):
        rotation = [("base", baseline), ("ours", vqa)] + ([("before", vqa)] if before else [])
        if i % 2:
            rotation.reverse()
        for name, cmd in rotation:
            shutil.rmtree(tmp / "out", ignore_errors=True)
            wall, cpu, peak = run_timed(cmd, data, before if name == "before" else None)
            {"ours": ours, "base": base, "before": old}[name].append((wall, cpu))
            if name != "base":
                (rss if name == "ours" else old_rss).append(peak)
        print(
            f"  run {i + 1}: json.load {base[-1][0]:.2f} s (CPU {base[-1][1]:.2f} s), "
            f"vqametrics {ours[-1][0]:.2f} s (CPU {ours[-1][1]:.2f} s)",
            flush=True,
        )
    walls = [o[0] / b[0] for o, b in zip(ours, base, strict=True)]
    cpus = [o[1] / b[1] for o, b in zip(ours, base, strict=True)]
    cpu_ours = statistics.median(o[1] for o in ours)
    cpu_base = statistics.median(b[1] for b in base)
    print(
        f"  per-pair ratios (median): wall {statistics.median(walls):.2f}, "
        f"CPU {statistics.median(cpus):.2f}; CPU vqametrics {cpu_ours:.2f} s, "
        f"json.load {cpu_base:.2f} s; load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    if old:
        old_wall = statistics.median(o[0] / b[0] for o, b in zip(old, base, strict=True))
        old_cpu = statistics.median(o[1] / b[1] for o, b in zip(old, base, strict=True))
        print(
            f"  before ({before}): wall {old_wall:.2f}, CPU {old_cpu:.2f}; "
            f"CPU {statistics.median(o[1] for o in old):.2f} s, peak RSS {max(old_rss):.0f} MiB"
        )
    return (
        statistics.median(o[0] for o in ours),
        statistics.median(b[0] for b in base),
        max(rss),
        statistics.median(rss),
    )


def throughput(data: Path, repeats: int = 5) -> tuple[int, float, float]:
    import gc

    from vqametrics.pipeline.vqa import score_dataset
    from vqametrics.readers.vqa import load_annotations, load_results, match_predictions

    dataset = load_annotations(data / "annotations.json")
    preds = match_predictions(dataset, load_results(data / "results.json")).predictions
    score_dataset(dataset, preds)  # warm-up: numpy import, mask tables
    times = []
    for _ in range(repeats):
        gc.collect()
        t0 = time.perf_counter()
        score_dataset(dataset, preds)
        times.append(time.perf_counter() - t0)
    # "cold": the dataset's interned answers are not cached yet (e.g. built in memory)
    cold = []
    for _ in range(repeats):
        object.__setattr__(dataset, "_answer_codes", None)
        gc.collect()
        t0 = time.perf_counter()
        score_dataset(dataset, preds)
        cold.append(time.perf_counter() - t0)
    return len(dataset), statistics.median(times), statistics.median(cold)


def main() -> None:
    parser = argparse.ArgumentParser(description="vqametrics speed benchmark (issue 3)")
    parser.add_argument("--runs", type=int, default=5, help="alternating runs for the ratio")
    parser.add_argument("--no-2m", action="store_true", help="skip the 2M-question point")
    parser.add_argument(
        "--no-one-cpu", action="store_true", help="skip the one-CPU (taskset -c 0) ratio"
    )
    parser.add_argument(
        "--before",
        metavar="SRC",
        help="also run the code in this src folder (e.g. another checkout's) in the same rotation",
    )
    parser.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="let each run compile vqametrics (as a source checkout does without .pyc files)",
    )
    args = parser.parse_args()
    started = time.perf_counter()
    sizes = [20_000, DEFAULT_QUESTIONS] + ([] if args.no_2m else [2_000_000])
    dirs = {n: ensure(n) for n in sizes}
    print(f"python {sys.version.split()[0]} on {os.cpu_count()} CPUs", flush=True)

    with tempfile.TemporaryDirectory(prefix="vqametrics-bench-") as tmp_name:
        tmp = Path(tmp_name)
        main_data = dirs[DEFAULT_QUESTIONS]
        if not args.no_bytecode_cache:
            use_bytecode_cache(tmp / "pycache")
            for src in (None, args.before):  # fills the cache: no run below compiles
                run_timed(vqa_cmd(dirs[20_000], tmp / "out"), dirs[20_000], src)
        print(
            f"\n1-2. end to end on {DEFAULT_QUESTIONS:,} questions ({args.runs} runs, alternating)"
        )
        ours, base, peak, rss_med = ratio(main_data, args.runs, tmp, before=args.before)
        print(f"  median: json.load only {base:.2f} s, vqametrics vqa {ours:.2f} s")
        print(f"  RATIO vqametrics / json.load = {ours / base:.2f}  (target <= 0.40)")
        print(f"  PEAK RSS = {peak:.0f} MiB (median {rss_med:.0f} MiB; target <= 400 MiB)")
        if not args.no_one_cpu and shutil.which("taskset"):
            print(f"\n1b. the same on one CPU (taskset -c 0; {args.runs} runs, alternating)")
            ours, base, peak, _ = ratio(
                main_data, args.runs, tmp, ("taskset", "-c", "0"), args.before
            )
            print(f"  RATIO (one CPU) = {ours / base:.2f}  (target <= 0.60); peak {peak:.0f} MiB")

        print("\n3. linearity (median of 3 runs per size)")
        walls = {}
        for n in sizes:
            reps = 3
            results = [run(vqa_cmd(dirs[n], tmp / f"out{n}"), dirs[n]) for _ in range(reps)]
            walls[n] = statistics.median(w for w, _ in results)
            peak_n = max(r for _, r in results)
            print(
                f"  N = {n:>9,}: {walls[n]:6.2f} s, {n / walls[n] / 1e3:6.0f}k questions/s, "
                f"peak RSS {peak_n:.0f} MiB",
                flush=True,
            )
        for a, b in itertools.pairwise(sizes):
            growth = walls[b] / walls[a]
            print(
                f"  {a:,} -> {b:,}: x{b / a:.2f} questions, x{growth:.2f} time; "
                f"time/size = {growth / (b / a):.2f} (target <= 1.10)"
            )

    n, warm, cold = throughput(main_data)
    print(f"\n4. Python API, score_dataset on already-loaded data ({n:,} questions, median of 5)")
    print(f"  {n / warm / 1e6:.2f} M questions/s ({warm * 1e3:.0f} ms; target >= 1 M/s)")
    print(f"  {n / cold / 1e6:.2f} M questions/s without the loader's interned answers")
    print(f"\nbenchmark took {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
