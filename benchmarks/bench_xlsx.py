"""Reading ``.xlsx`` (issue 23): the reader (python-calamine, openpyxl's values) against
openpyxl alone, on a generated VLMEvalKit TextVQA-sized sheet (5,000 rows) and, when given a
folder, every ``.xlsx`` under it. Runs alternate; medians and their ratio are printed.

End to end (when ``../shared`` is beside the checkout): ``vqametrics score textvqa`` on
VILA-1.5-8B's VLMEvalKit TextVQA sheet (5,000 rows, profile vlmevalkit-2024) against a fresh
``python -c`` that merely reads the same sheet with openpyxl (``read_only``, ``data_only``, every
row's values), alternately in fresh processes; CPU time (user + sys) and wall.

Usage: ``python benchmarks/bench_xlsx.py [--runs 5] [FOLDER]``
"""

from __future__ import annotations

import argparse
import io
import os
import random
import statistics
import sys
import time
from pathlib import Path

from bench_peers import ROOT, SHARED, timed_process

from vqametrics.readers import records

#: the real sheet of the end-to-end figure
SHEET = SHARED / "textvqa_val" / "vlmevalkit" / "vila_8b_TextVQA_VAL.xlsx"

#: the baseline: merely reading the sheet with openpyxl (argv: the sheet)
OPENPYXL_READ = """
import sys, openpyxl
book = openpyxl.load_workbook(sys.argv[1], read_only=True, data_only=True)
rows = [list(r) for r in book.worksheets[0].iter_rows(values_only=True)]
print(len(rows))
"""


def textvqa_sheet(n: int = 5000) -> bytes:
    import openpyxl

    rng = random.Random(0)
    words = ["red", "stop", "coca cola", "2", "10", "yes", "bowmore", "dakota digital"]
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["index", "question", "answer", "prediction", "image_path"])
    for i in range(n):
        answers = [rng.choice(words) for _ in range(10)]
        ws.append([34602 + i, "what is written?", repr(answers), rng.choice(words), f"{i}.jpg"])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def timed(fn: object, data: bytes, name: str) -> float:
    start = time.perf_counter()
    fn(name, data)  # type: ignore[operator]
    return time.perf_counter() - start


def compare(name: str, data: bytes, runs: int) -> None:
    ours, base = [], []
    for _ in range(runs):
        ours.append(timed(lambda n, d: records._parse_xlsx(n, d, ".xlsx", "data"), data, name))
        base.append(timed(records._openpyxl_table, data, name))
    a, b = statistics.median(ours), statistics.median(base)
    print(f"  {name[-48:]:48} reader {a * 1e3:8.1f} ms  openpyxl {b * 1e3:8.1f} ms  {a / b:5.2f}x")


def end_to_end(runs: int) -> None:
    """``score textvqa`` on the real sheet against an openpyxl read of it, fresh processes."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    ours = [sys.executable, "-m", "vqametrics", "score", "textvqa", "--results", str(SHEET)]
    ours += ["--profile", "vlmevalkit-2024"]
    base = [sys.executable, "-c", OPENPYXL_READ, str(SHEET)]
    for cmd in (ours, base):
        timed_process(cmd, env)  # warm the file cache and the bytecode
    pairs = [(timed_process(ours, env), timed_process(base, env)) for _ in range(runs)]
    wall = statistics.median(a[0] / b[0] for a, b in pairs)
    cpu = statistics.median(a[1] / b[1] for a, b in pairs)
    ours_cpu = statistics.median(a[1] for a, _ in pairs)
    base_cpu = statistics.median(b[1] for _, b in pairs)
    print(
        f"end to end, {SHEET.name}: score textvqa {ours_cpu * 1e3:.0f} ms CPU, openpyxl read "
        f"{base_cpu * 1e3:.0f} ms CPU; ratio CPU {cpu:.2f}x, wall {wall:.2f}x "
        f"(load {os.getloadavg()[0]:.1f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("folder", nargs="?")
    args = parser.parse_args()
    print(f".xlsx reading, median of {args.runs} alternating runs (ratio to openpyxl)")
    compare("generated TextVQA sheet (5,000 rows)", textvqa_sheet(), args.runs)
    if args.folder:
        for path in sorted(Path(args.folder).rglob("*.xlsx")):
            compare(str(path), path.read_bytes(), args.runs)
    if SHEET.exists():
        end_to_end(max(args.runs, 5))


if __name__ == "__main__":
    main()
