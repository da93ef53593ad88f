"""Reading ``.xlsx`` (issue 23): the reader (python-calamine, openpyxl's values) against
openpyxl alone, on a generated VLMEvalKit TextVQA-sized sheet (5,000 rows) and, when given a
folder, every ``.xlsx`` under it. Runs alternate; medians and their ratio are printed.

End to end (when ``../shared`` is beside the checkout): ``vqametrics score textvqa`` on
VILA-1.5-8B's VLMEvalKit TextVQA sheet (5,000 rows, profile vlmevalkit-2024) against a fresh
``python -c`` that merely reads the same sheet with openpyxl (``read_only``, ``data_only``, every
row's values), alternately in fresh processes; CPU time (user + sys) and wall.

``--all`` does the same for each of VILA-1.5-8B's twelve VLMEvalKit prediction sheets in
``../shared/data``, each scored with the profile that reproduces VLMEvalKit's number and reading
what a user's run reads beside it (the reported scores; for four multiple-choice sheets the
judge record ``_openai_result.xlsx``, which the baseline then reads too), and for the whole
folder as one ``vqametrics table`` against reading all sixteen sheets. VLMEvalKit's own scorers
load the prediction sheet with pandas (openpyxl underneath) before they score a row, so the
read alone is a lower bound of the peer's time.

Usage: ``python benchmarks/bench_xlsx.py [--runs 5] [--all] [FOLDER]``
"""

from __future__ import annotations

import argparse
import io
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_peers import ROOT, SHARED, source_env, timed_process

from vqametrics.readers import records

#: the real sheet of the end-to-end figure
SHEET = SHARED / "textvqa_val" / "vlmevalkit" / "vila_8b_TextVQA_VAL.xlsx"

#: the baseline: merely reading the sheets with openpyxl (argv: the sheets)
OPENPYXL_READ = """
import sys, openpyxl
for sheet in sys.argv[1:]:
    book = openpyxl.load_workbook(sheet, read_only=True, data_only=True)
    rows = [list(r) for r in book.worksheets[0].iter_rows(values_only=True)]
    print(len(rows))
"""

#: VILA-1.5-8B's VLMEvalKit prediction sheets: (task, folder under ../shared/data, sheet,
#: the profile that reproduces VLMEvalKit's reported number (None: the task's default does),
#: the judge record beside it that the score reads too, if any)
VILA_SHEETS = (
    ("mmbench", "ccbench", "vila_8b_CCBench.xlsx", "vlmevalkit-2024", None),
    ("chartqa", "chartqa", "vila_8b_ChartQA_TEST.xlsx", None, None),
    ("hallusionbench", "hallusionbench", "vila_8b_HallusionBench.xlsx", "vlmevalkit", None),
    ("mme", "mme", "vila_8b_MME.xlsx", "vlmevalkit", None),
    ("mmstar", "mmstar", "vila_8b_MMStar.xlsx", "vlmevalkit-2024", "_openai_result"),
    ("ocrbench", "ocrbench", "vila_8b_OCRBench.xlsx", None, None),
    ("ocrvqa", "ocrvqa", "vila_8b_OCRVQA_TESTCORE.xlsx", None, None),
    ("pope", "pope", "vila_8b_POPE.xlsx", "vlmevalkit", None),
    ("realworldqa", "realworldqa", "vila_8b_RealWorldQA.xlsx", "vlmevalkit-2024", "_openai_result"),
    (
        "scienceqa",
        "scienceqa_img",
        "vila_8b_ScienceQA_TEST.xlsx",
        "vlmevalkit-2024",
        "_openai_result",
    ),
    (
        "seedbench",
        "seedbench_img",
        "vila_8b_SEEDBench_IMG.xlsx",
        "vlmevalkit-2024",
        "_openai_result",
    ),
    ("textvqa", "textvqa_val", "vila_8b_TextVQA_VAL.xlsx", "vlmevalkit-2024", None),
)


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


def _pair(label: str, ours: list[str], sheets: list[Path], runs: int) -> None:
    """*ours* against an openpyxl read of *sheets*, alternately in fresh processes."""
    env = source_env(ROOT / "src")
    base = [sys.executable, "-c", OPENPYXL_READ, *map(str, sheets)]
    for cmd in (ours, base):
        timed_process(cmd, env)  # warm the file cache and the bytecode
    pairs = [(timed_process(ours, env), timed_process(base, env)) for _ in range(runs)]
    wall = statistics.median(a[0] / b[0] for a, b in pairs)
    cpu = statistics.median(a[1] / b[1] for a, b in pairs)
    ours_cpu = statistics.median(a[1] for a, _ in pairs)
    base_cpu = statistics.median(b[1] for _, b in pairs)
    print(
        f"  {label:38} ours {ours_cpu * 1e3:6.0f} ms CPU, openpyxl read {base_cpu * 1e3:6.0f} ms"
        f" CPU; ratio CPU {cpu:.2f}x, wall {wall:.2f}x"
    )


def _score(task: str, sheet: Path, profile: str | None) -> list[str]:
    cmd = [sys.executable, "-m", "vqametrics", "score", task, "--results", str(sheet)]
    return cmd + (["--profile", profile] if profile else [])


def end_to_end(runs: int) -> None:
    """``score textvqa`` on the real sheet against an openpyxl read of it, fresh processes."""
    print(f"end to end, fresh processes, median of {runs} pairs (load {os.getloadavg()[0]:.1f})")
    _pair(f"score textvqa {SHEET.name}", _score("textvqa", SHEET, "vlmevalkit-2024"), [SHEET], runs)


def every_sheet(runs: int) -> None:
    """Each of VILA-1.5-8B's sheets scored, and the folder as one table, against reading them."""
    print(
        f"VILA-1.5-8B's VLMEvalKit sheets, median of {runs} pairs (load {os.getloadavg()[0]:.1f})"
    )
    sheets: list[Path] = []
    profiles: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "vila_8b"  # the layout VLMEvalKit writes: outputs/<model>/
        folder.mkdir()
        for task, data, name, profile, record in VILA_SHEETS:
            sheet = SHARED / data / "vlmevalkit" / name
            read = [sheet] + ([sheet.with_name(sheet.stem + record + ".xlsx")] if record else [])
            sheets += read
            for f in sheet.parent.glob("vila_8b_*"):
                (folder / f.name).symlink_to(f)
            label = f"score {task}" + (" (+ its judge record)" if record else "")
            _pair(label, _score(task, sheet, profile), read, runs)
            if profile:
                profiles += ["--profile", f"{task}={profile}"]
        table = [sys.executable, "-m", "vqametrics", "table", tmp, *profiles]
        _pair("table of the folder (13 cells)", table, sheets, runs)  # the 16 sheets above


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--all", action="store_true", help="every VILA-1.5-8B sheet, and a table")
    parser.add_argument("folder", nargs="?")
    args = parser.parse_args()
    print(f".xlsx reading, median of {args.runs} alternating runs (ratio to openpyxl)")
    compare("generated TextVQA sheet (5,000 rows)", textvqa_sheet(), args.runs)
    if args.folder:
        for path in sorted(Path(args.folder).rglob("*.xlsx")):
            compare(str(path), path.read_bytes(), args.runs)
    if SHEET.exists():
        end_to_end(max(args.runs, 5))
    if args.all and SHEET.exists():
        every_sheet(max(args.runs, 5))


if __name__ == "__main__":
    main()
