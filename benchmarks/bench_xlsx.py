"""Reading ``.xlsx`` (issue 23): the reader (python-calamine, openpyxl's values) against
openpyxl alone, on a generated VLMEvalKit TextVQA-sized sheet (5,000 rows) and, when given a
folder, every ``.xlsx`` under it. Runs alternate; medians and their ratio are printed.

Usage: ``python benchmarks/bench_xlsx.py [--runs 5] [FOLDER]``
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import time
from pathlib import Path

from vqametrics.readers import records


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


if __name__ == "__main__":
    main()
