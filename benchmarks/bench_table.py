"""The speed of the paper table (issue 21): a folder of VLMEvalKit sheets read end to end.

By default, seeded synthetic VLMEvalKit output folders are written: ``--models`` models ×
three benchmarks (OCR-VQA TESTCORE 3,072 rows, ChartQA test 2,500, POPE 5,127, each an
``.xlsx`` sheet with its ``_acc.csv`` / ``_score.csv`` beside it, the reported number set off
by one point for one model in three so that the reproduction search runs), then
``vqametrics.paper_table.table`` reads, scores and lays them out (median of ``--runs``).
``--folder DIR`` times a real output folder instead (e.g. a model folder of the team's
shared VLMEvalKit runs).

Usage: ``python benchmarks/bench_table.py [--models 10] [--runs 3] [--folder DIR]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

WORDS = ["red", "blue", "stop", "yes", "no", "dog", "cat", "2", "10", "3.5", "bus", "sign"]


def _sheet(path: Path, header: list[str], rows: list[list[object]]) -> None:
    from openpyxl import Workbook

    wb = Workbook(write_only=True)
    ws = wb.create_sheet()
    ws.append(header)
    for row in rows:
        ws.append(row)
    wb.save(path)


def _write_model(folder: Path, model: str, rng: random.Random, off: bool) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    shift = 1.0 if off else 0.0
    # OCR-VQA: exact match, category per row
    rows: list[list[object]] = []
    hits = 0
    for i in range(3072):
        answer = rng.choice(WORDS)
        pred = answer if rng.random() < 0.6 else rng.choice(WORDS)
        hits += pred == answer
        rows.append([i, f"q{i}", answer, pred, rng.choice(["Arts", "Law", "Travel"])])
    _sheet(
        folder / f"{model}_OCRVQA_TESTCORE.xlsx",
        ["index", "question", "answer", "prediction", "category"],
        rows,
    )
    (folder / f"{model}_OCRVQA_TESTCORE_acc.csv").write_text(
        f'"Overall"\n"{100 * hits / 3072 + shift}"\n'
    )
    # ChartQA: numbers within / beyond the 5 % tolerance
    rows = []
    for i in range(2500):
        answer = rng.randint(1, 500)
        pred = answer * (1 + rng.choice([0.0, 0.03, 0.2]))
        rows.append(
            [i, f"q{i}", str(answer), f"{pred:g}", rng.choice(["test_human", "test_augmented"])]
        )
    _sheet(
        folder / f"{model}_ChartQA_TEST.xlsx",
        ["index", "question", "answer", "prediction", "split"],
        rows,
    )
    (folder / f"{model}_ChartQA_TEST_acc.csv").write_text('"Overall"\n"50.0"\n')
    # POPE: yes/no per split
    rows = []
    for i in range(5127):
        answer = rng.choice(["yes", "no"])
        pred = answer if rng.random() < 0.85 else ("no" if answer == "yes" else "yes")
        split = rng.choice(["random", "popular", "adversarial"])
        rows.append([i, f"Is there a {rng.choice(WORDS)}?", answer, pred.capitalize(), split])
    _sheet(
        folder / f"{model}_POPE.xlsx",
        ["index", "question", "answer", "prediction", "category"],
        rows,
    )
    return 3


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=10)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--folder", type=Path, help="time this output folder instead")
    args = ap.parse_args()
    from vqametrics.paper_table import table

    with tempfile.TemporaryDirectory() as tmp:
        if args.folder is not None:
            root = args.folder
            n_sheets = sum(1 for p in root.rglob("*.xlsx"))
        else:
            root = Path(tmp) / "outputs"
            rng = random.Random(21)
            n_sheets = sum(
                _write_model(root / f"model{m:02d}", f"model{m:02d}", rng, m % 3 == 0)
                for m in range(args.models)
            )
        for search in (False, True):
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                result = table(root, search=search)
                times.append(time.perf_counter() - start)
            median = statistics.median(times)
            how = "searched for their profile" if search else "not searched (--no-search)"
            print(
                f"{n_sheets} sheets ({len(result.models)} models × {len(result.columns)} "
                f"columns, {len(result.differing())} differing cells {how}): median "
                f"{median:.2f} s over {args.runs} runs, {median / max(n_sheets, 1):.3f} s "
                "per sheet"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
