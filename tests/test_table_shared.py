"""The paper table on the real VLMEvalKit run of VILA-1.5-8B (../shared/data), laid out as
VLMEvalKit lays out a model's folder: one row in which every cell equals ``score TASK`` on its
file, every reported number (read here from the toolkit's own files) beside ours, and the cells
that reproduce it unmarked, in every format."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import shared_path
from vqametrics.paper_table import table
from vqametrics.tasks import get_task
from vqametrics.tasks._run import evaluate_task

# the whole real folder is scored once per module (about 20 s of CPU): in make test-slow
pytestmark = [pytest.mark.shared, pytest.mark.slow]

MODEL = "vila_8b"

#: shared folder → the VLMEvalKit dataset name of its sheet
FOLDERS = {
    "textvqa_val": "TextVQA_VAL",
    "pope": "POPE",
    "mme": "MME",
    "chartqa": "ChartQA_TEST",
    "ocrvqa": "OCRVQA_TESTCORE",
    "ccbench": "CCBench",
    "ocrbench": "OCRBench",
    "mmstar": "MMStar",
    "seedbench_img": "SEEDBench_IMG",
    "realworldqa": "RealWorldQA",
    "scienceqa_img": "ScienceQA_TEST",
    "hallusionbench": "HallusionBench",
}

#: column → (task, our number: a metric name or "" for the headline, the toolkit's file
#: suffix, its row, its column, the factor to percent/points)
COLUMNS: dict[str, tuple[str, str, str, str, str, float]] = {
    "TextVQA": ("textvqa", "", "_acc.csv", "", "Overall", 1.0),
    "POPE-F1": ("pope", "", "_score.csv", "Overall", "Overall", 1.0),
    "MME-P": ("mme", "perception", "_score.csv", "", "perception", 1.0),
    "MME-C": ("mme", "cognition", "_score.csv", "", "reasoning", 1.0),
    "ChartQA": ("chartqa", "", "_acc.csv", "", "Overall", 1.0),
    "OCR-VQA": ("ocrvqa", "", "_acc.csv", "", "Overall", 1.0),
    "CCBench": ("mmbench", "", "_acc.csv", "", "Overall", 100.0),
    "OCRBench": ("ocrbench", "Final Score", "_score.json", "", "Final Score", 1.0),
    "MMStar": ("mmstar", "", "_acc.csv", "", "Overall", 100.0),
    "SEED-Bench": ("seedbench", "", "_acc.csv", "", "Overall", 100.0),
    "RealWorldQA": ("realworldqa", "", "_acc.csv", "", "Overall", 100.0),
    "ScienceQA": ("scienceqa", "", "_acc.csv", "", "Overall", 100.0),
    "HallusionBench-aAcc": ("hallusionbench", "aAcc", "_score.csv", "Overall", "aAcc", 1.0),
}
#: the official HallusionBench scorer needs the judge's verdicts, which a VLMEvalKit folder
#: does not hold: the table scores it with VLMEvalKit's profile and says so
FALLBACK = {"hallusionbench": "vlmevalkit"}
DIGITS = {"OCRBench": 0}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = shared_path("data")
    for name in sorted({t for t, *_ in COLUMNS.values()}):
        get_task(name)  # a task missing from this checkout fails here, by name
    root = tmp_path_factory.mktemp("outputs")
    model = root / MODEL
    model.mkdir()
    for sub, dataset in FOLDERS.items():
        files = sorted((data / sub / "vlmevalkit").glob(f"{MODEL}_{dataset}*"))
        assert files, f"no {dataset} files in {sub}"
        for f in files:
            (model / f.name).symlink_to(f)
    return root


@pytest.fixture(scope="module")
def paper(folder: Path) -> Any:
    return table(folder)


def _dataset(column: str) -> str:
    return {
        "TextVQA": "TextVQA_VAL",
        "POPE-F1": "POPE",
        "MME-P": "MME",
        "MME-C": "MME",
        "ChartQA": "ChartQA_TEST",
        "OCR-VQA": "OCRVQA_TESTCORE",
        "CCBench": "CCBench",
        "OCRBench": "OCRBench",
        "MMStar": "MMStar",
        "SEED-Bench": "SEEDBench_IMG",
        "RealWorldQA": "RealWorldQA",
        "ScienceQA": "ScienceQA_TEST",
        "HallusionBench-aAcc": "HallusionBench",
    }[column]


def _reported(folder: Path, column: str) -> float:
    """The toolkit's number, read here from its own file with the csv / json modules."""
    _, _, suffix, row, col, scale = COLUMNS[column]
    path = folder / MODEL / f"{MODEL}_{_dataset(column)}{suffix}"
    if suffix.endswith(".json"):
        return float(json.loads(path.read_text())[col]) * scale
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    header = rows[0]
    if not row:
        return float(rows[1][header.index(col)]) * scale
    line = next(r for r in rows[1:] if r[0] == row)
    return float(line[header.index(col)]) * scale


def _ours(ev: Any, metric: str) -> float:
    value = ev.metrics[metric] if metric else ev.headline
    return float(value) * (100.0 if ev.aggregate.units == "fraction" else 1.0)


@pytest.fixture(scope="module")
def expected(folder: Path, paper: Any) -> dict[str, tuple[float, float, str, Any]]:
    """column → (ours from evaluate_task, the toolkit's, its file, that evaluation)."""
    out = {}
    for column, (task, metric, *_) in COLUMNS.items():
        profile = FALLBACK.get(task, get_task(task).default_profile)
        path = folder / MODEL / f"{MODEL}_{_dataset(column)}.xlsx"
        ev = evaluate_task(task, str(path), profile=profile)
        out[column] = (_ours(ev, metric), _reported(folder, column), str(path), ev)
    return out


def test_one_row_one_column_per_benchmark(paper: Any, folder: Path) -> None:
    assert paper.models == [MODEL]
    assert [c.id for c in paper.columns] == [
        "CCBench",
        "MME-P",
        "MME-C",
        "POPE-F1",
        "TextVQA",
        "ChartQA",
        "OCR-VQA",
        "OCRBench",
        "MMStar",
        "SEED-Bench",
        "RealWorldQA",
        "ScienceQA",
        "HallusionBench-aAcc",
    ]
    assert paper.unrecognized == []  # every auxiliary file was attached to its run
    runs = {r.benchmark: r for r in paper.runs}
    assert len(runs) == 12
    assert [p.name for p in runs["OCRBench"].reported] == [f"{MODEL}_OCRBench_score.json"]
    assert [p.name for p in runs["MME"].auxiliary] == [f"{MODEL}_MME_auxmatch.xlsx"]
    assert [p.name for p in runs["MMStar"].auxiliary] == [f"{MODEL}_MMStar_openai_result.xlsx"]


def test_every_cell_equals_score_on_its_file(paper: Any, expected: dict[str, Any]) -> None:
    for column, (ours, _, path, ev) in expected.items():
        cell = paper.cell(MODEL, column)
        assert cell.file == path
        assert cell.profile == ev.profile.name, column
        assert cell.value == ours, column
        assert cell.signature == ev.signature.format(), column
    note = " ".join(paper.cell(MODEL, "HallusionBench-aAcc").notes)
    assert "--profile vlmevalkit" in note and "judge verdict" in note


def test_every_reported_number_beside_ours(paper: Any, expected: dict[str, Any]) -> None:
    for column, (ours, theirs, _, _) in expected.items():
        cell = paper.cell(MODEL, column)
        assert cell.reported == pytest.approx(theirs, rel=1e-12, abs=0), column
        d = DIGITS.get(column, 1)
        same = f"{ours:.{d}f}" == f"{theirs:.{d}f}"
        assert cell.status == ("reproduced" if same else "differs"), column
    # what the files hold: these reproduce under the official scorer, the others do not
    reproduced = {c.column.id for c in paper.cells.values() if c.status == "reproduced"}
    assert reproduced == {"TextVQA", "ChartQA", "OCR-VQA", "OCRBench", "HallusionBench-aAcc"}


def test_a_differing_cell_names_the_profile_that_reproduces_it(
    paper: Any, folder: Path, expected: dict[str, Any]
) -> None:
    differing = paper.differing()
    assert differing
    for cell in differing:
        column = cell.column.id
        assert cell.reproduced_by is not None, column
        task, metric, *_ = COLUMNS[column]
        path = folder / MODEL / f"{MODEL}_{_dataset(column)}.xlsx"
        ev = evaluate_task(task, str(path), profile=cell.reproduced_by)
        name = "reasoning" if metric == "cognition" and "reasoning" in ev.metrics else metric
        d = DIGITS.get(column, 1)
        assert f"{_ours(ev, name):.{d}f}" == f"{expected[column][1]:.{d}f}", column
    lines = "\n".join(paper.to_text().splitlines())
    assert f"{MODEL} MME-P: ours 1563.5 (official) vs reported 1558.5" in lines
    assert "--profile vlmevalkit reproduces it" in lines


def _shown(ours: float, theirs: float, d: int, mark: str) -> str:
    differs = f"{ours:.{d}f}" != f"{theirs:.{d}f}"
    return f"{ours:.{d}f}{mark if differs else ''} ({theirs:.{d}f})"


def test_markdown_and_text(paper: Any, expected: dict[str, Any]) -> None:
    md = paper.to_markdown()
    row = next(line for line in md.splitlines() if line.startswith(f"| {MODEL} |"))
    cells = [c.strip() for c in row.strip("|").split("|")][1:]
    order = [c.id for c in paper.columns]
    for column, (ours, theirs, *_) in expected.items():
        d = DIGITS.get(column, 1)
        assert cells[order.index(column)] == _shown(ours, theirs, d, "\\*"), column
    txt = paper.to_text()
    line = next(ln for ln in txt.splitlines() if ln.startswith(MODEL))
    for column, (ours, theirs, *_) in expected.items():
        assert _shown(ours, theirs, DIGITS.get(column, 1), "*") in line, column
    for column, (*_, ev) in expected.items():
        assert f"{column} (" in txt and ev.signature.format() in txt


def test_latex(paper: Any, expected: dict[str, Any]) -> None:
    tex = paper.to_latex(reported=False)
    assert tex.startswith("\\begin{tabular}{l" + "r" * len(paper.columns) + "}")
    row = next(line for line in tex.splitlines() if line.startswith("vila\\_8b &"))
    cells = [c.strip() for c in row.removesuffix("\\\\").split("&")][1:]
    order = [c.id for c in paper.columns]
    for column, (ours, theirs, *_) in expected.items():
        d = DIGITS.get(column, 1)
        mark = "$^\\dagger$" if f"{ours:.{d}f}" != f"{theirs:.{d}f}" else ""
        assert cells[order.index(column)] == f"{ours:.{d}f}{mark}", column
    row = next(ln for ln in paper.to_latex().splitlines() if ln.startswith("vila\\_8b &"))
    cells = [c.strip() for c in row.removesuffix("\\\\").split("&")][1:]
    for column, (ours, theirs, *_) in expected.items():
        shown = _shown(ours, theirs, DIGITS.get(column, 1), "$^\\dagger$")
        assert cells[order.index(column)] == shown, column


def test_csv(paper: Any, expected: dict[str, Any]) -> None:
    rows = list(csv.DictReader(io.StringIO(paper.to_csv())))
    assert len(rows) == 1 and rows[0]["model"] == MODEL
    for column, (ours, theirs, *_) in expected.items():
        d = DIGITS.get(column, 1)
        assert rows[0][column] == f"{ours:.{d}f}"
        assert rows[0][f"{column} reported"] == f"{theirs:.{d}f}"
        differs = f"{ours:.{d}f}" != f"{theirs:.{d}f}"
        assert rows[0][f"{column} differs"] == ("yes" if differs else "no")


def test_json(paper: Any, expected: dict[str, Any]) -> None:
    doc = json.loads(paper.to_json())
    assert doc["schema"] == "vqametrics-table/1"
    cells = {c["column"]: c for c in doc["cells"]}
    for column, (ours, theirs, path, ev) in expected.items():
        c = cells[column]
        assert c["value"] == ours  # unrounded
        assert c["reported"] == pytest.approx(theirs, rel=1e-12, abs=0)
        assert c["file"] == path
        assert c["profile"] == ev.profile.name
        assert c["signature"] == ev.signature.format()
        assert c["reported_source"].endswith(COLUMNS[column][2])


def test_to_pandas(paper: Any, expected: dict[str, Any]) -> None:
    pytest.importorskip("pandas")
    frame = paper.to_pandas()
    assert list(frame.index) == [MODEL]
    assert list(frame.columns) == [c.id for c in paper.columns]
    for column, (ours, theirs, *_) in expected.items():
        assert frame.loc[MODEL, column] == ours
        assert frame.attrs["reported"][column][MODEL] == pytest.approx(theirs, rel=1e-12)


def test_averages_on_the_real_row(folder: Path, expected: dict[str, Any]) -> None:
    t = table(
        folder,
        tasks=["textvqa", "chartqa", "mme", "ocrbench", "hallusionbench"],
        average=["mean", "opencompass"],
    )
    # the mean of the percent columns only (MME's points and OCRBench's count left out)
    by_hand = (
        expected["TextVQA"][0] + expected["ChartQA"][0] + expected["HallusionBench-aAcc"][0]
    ) / 3
    assert t.averages["Mean"][MODEL] == pytest.approx(by_hand, rel=1e-12)
    assert t.averages["OpenCompass"][MODEL] is None
    notes = " ".join(t.average_notes)
    assert "left out, not in percent: MME-P, MME-C, OCRBench" in notes
    for part in (
        "MMBench_TEST_EN_V11",
        "MMStar",
        "MMMU_DEV_VAL",
        "MathVista_MINI",
        "AI2D_TEST",
        "MMVet",
    ):
        assert part in notes


def test_lmms_eval_log_beside_a_vlmevalkit_folder(folder: Path) -> None:
    logs = shared_path("data", "lmms_eval_logs")
    t = table([folder, logs], tasks=["scienceqa"])
    model = "liuhaotian/llava-v1.5-7b"  # the model_name of its results.json
    assert t.models == sorted([MODEL, model])
    cell = t.cell(model, "ScienceQA")
    results = json.loads((logs / "20260218_234435_results.json").read_text())
    theirs = results["results"]["scienceqa_img"]["exact_match,none"] * 100
    ev = evaluate_task("scienceqa", str(cell.file), profile=cell.profile)
    assert cell.value == ev.headline * (100.0 if ev.aggregate.units == "fraction" else 1.0)
    assert cell.reported == pytest.approx(theirs, rel=1e-12)
    assert cell.status == "reproduced"
    assert "ATTRIBUTION.md" in " ".join(t.unrecognized)


def test_the_docs_show_this_table(paper: Any) -> None:
    root = Path(__file__).resolve().parents[1]
    row = next(ln for ln in paper.to_markdown().splitlines() if ln.startswith(f"| {MODEL} |"))
    docs = (root / "docs" / "table.md").read_text(encoding="utf-8")
    assert row in docs
    for line in paper.to_text().splitlines():
        if line.startswith(f"  {MODEL} "):
            assert line.strip() in docs, line
    readme = (root / "README.md").read_text(encoding="utf-8")
    small = table(paper.runs[0].path.parents[1], columns=["TextVQA", "MME", "POPE", "OCRBench"])
    for line in small.to_markdown().splitlines()[:3]:
        assert line in readme, line
