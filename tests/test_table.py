"""The paper table on small hand-made VLMEvalKit folders: recognition of runs and auxiliary
files, bad input (one line, exit 2), averages, the command line and the HTML page."""

from __future__ import annotations

import csv
import io
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.paper_table import VLMEVALKIT_DATASETS, table
from vqametrics.paper_table.discover import find_runs

# OCR-VQA, VLMEvalKit's exact match (case-folded): Fiction/fiction, Law/Law, Travel/travel
# match, History/science does not: 3/4 = 75.0
OCRVQA = (
    "index\tquestion\tanswer\tprediction\tcategory\n"
    "1\tq1\tFiction\tfiction\tArts\n"
    "2\tq2\tHistory\tscience\tArts\n"
    "3\tq3\tLaw\tLaw\tLaw\n"
    "4\tq4\tTravel\ttravel\tLaw\n"
)
# ChartQA, relaxed accuracy: 12.5 vs 12 is within 5% (4.2%), Yes/yes matches, 80 vs 100 is
# 20% off: 2/3 = 66.7
CHARTQA = (
    "index\tquestion\tanswer\tprediction\tsplit\n"
    "1\tq1\t12\t12.5\ttest_human\n"
    "2\tq2\tyes\tYes\ttest_augmented\n"
    "3\tq3\t100\t80\ttest_human\n"
)


def _run(folder: Path, model: str, dataset: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{model}_{dataset}.tsv"
    path.write_text(text, encoding="utf-8")
    return path


def _acc(folder: Path, model: str, dataset: str, overall: float) -> Path:
    path = folder / f"{model}_{dataset}_acc.csv"
    path.write_text(f'"Overall"\n"{overall}"\n', encoding="utf-8")
    return path


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


# -- recognition ----------------------------------------------------------------------------


def test_recognizes_runs_and_attaches_auxiliary_files(tmp_path: Path) -> None:
    m = tmp_path / "outputs" / "m1"
    m.mkdir(parents=True)
    names = [
        "m1_MMBench_DEV_EN_V11.xlsx",
        "m1_MMBench_DEV_EN_V11_acc.csv",
        "m1_MMBench_DEV_EN_V11_openai_result.xlsx",
        "m1_MMBench_DEV_EN_V11_gpt-4o-mini.pkl",
        "m1_OCRVQA_TEST.xlsx",
        "m1_OCRVQA_TESTCORE.xlsx",
        "m1_OCRBench.xlsx",
        "m1_OCRBench_score.json",
        "m1_POPE.xlsx",
        "m1_POPE_auxmatch.xlsx",
        "m1_POPE_score.csv",
        "m1_HallusionBench.xlsx",
        "m1_HallusionBench_chatgpt-0125.xlsx",
        "notes.txt",
        "m1_Unknown_Bench.xlsx",
        "m2_POPE_score.csv",  # a score file without its sheet
    ]
    for n in names:
        (m / n).write_text("x")
    found = find_runs([tmp_path / "outputs"])
    runs = {r.benchmark: r for r in found.runs}
    assert sorted(runs) == [
        "HallusionBench",
        "MMBench_DEV_EN_V11",
        "OCRBench",
        "OCRVQA_TEST",
        "OCRVQA_TESTCORE",
        "POPE",
    ]
    assert {r.model for r in found.runs} == {"m1"}
    mmb = runs["MMBench_DEV_EN_V11"]
    assert [p.name for p in mmb.reported] == ["m1_MMBench_DEV_EN_V11_acc.csv"]
    assert sorted(p.name for p in mmb.auxiliary) == [
        "m1_MMBench_DEV_EN_V11_gpt-4o-mini.pkl",
        "m1_MMBench_DEV_EN_V11_openai_result.xlsx",
    ]
    assert [p.name for p in runs["OCRBench"].reported] == ["m1_OCRBench_score.json"]
    assert [p.name for p in runs["POPE"].auxiliary] == ["m1_POPE_auxmatch.xlsx"]
    assert [p.name for p in runs["HallusionBench"].auxiliary] == [
        "m1_HallusionBench_chatgpt-0125.xlsx"
    ]
    assert [p.name for p in found.unrecognized] == [
        "m1_Unknown_Bench.xlsx",
        "m2_POPE_score.csv",
        "notes.txt",
    ]


def test_lmms_eval_samples_take_their_results_file(tmp_path: Path) -> None:
    d = tmp_path / "run"
    d.mkdir()
    (d / "20250101_results.json").write_text(json.dumps({"model_name": "org/model-7b"}))
    (d / "20250101_samples_pope.jsonl").write_text("")
    (d / "20250101_samples_textvqa_val.jsonl").write_text("")
    (d / "20250101_samples_unknown_task.jsonl").write_text("")
    found = find_runs([d])
    assert [(r.model, r.benchmark, r.toolkit) for r in found.runs] == [
        ("org/model-7b", "POPE", "lmms-eval"),
        ("org/model-7b", "TextVQA_VAL", "lmms-eval"),
    ]
    # one results file serves every task of the run
    assert all([p.name for p in r.reported] == ["20250101_results.json"] for r in found.runs)
    assert [p.name for p in found.unrecognized] == ["20250101_samples_unknown_task.jsonl"]


# -- cells ----------------------------------------------------------------------------------


def test_cells_units_and_reported(tmp_path: Path) -> None:
    m = tmp_path / "m"
    _run(m, "m", "OCRVQA_TESTCORE", OCRVQA)
    _acc(m, "m", "OCRVQA_TESTCORE", 75.0)
    _run(m, "m", "ChartQA_TEST", CHARTQA)
    _acc(m, "m", "ChartQA_TEST", 70.0)  # not what the sheet gives
    t = table(tmp_path)
    assert [c.id for c in t.columns] == ["ChartQA", "OCR-VQA"]
    ocr = t.cell("m", "OCR-VQA")
    assert (ocr.value, ocr.reported, ocr.status, ocr.units) == (75.0, 75.0, "reproduced", "percent")
    chart = t.cell("m", "ChartQA")
    assert chart.value == pytest.approx(200 / 3)
    assert (chart.reported, chart.status) == (70.0, "differs")
    md = t.to_markdown()
    assert "| m | 66.7\\* (70.0) | 75.0 (75.0) |" in md
    assert "m ChartQA: ours 66.7 (official) vs reported 70.0" in md
    assert "difference -3.3" in md
    bare = t.to_markdown(reported=False)
    assert "| m | 66.7\\* | 75.0 |" in bare and "(70.0)" not in bare
    assert "vs reported 70.0" in bare  # the differing number stays in the legend
    assert table(tmp_path, digits=3).cell("m", "ChartQA").text() == "66.667"
    quick = table(tmp_path, search=False)
    assert quick.cell("m", "ChartQA").status == "differs"
    assert quick.cell("m", "ChartQA").tried == ()
    assert "profiles not searched (--no-search)" in quick.to_text()


def test_profile_per_task_and_for_all(tmp_path: Path) -> None:
    _run(tmp_path / "m", "m", "ChartQA_TEST", CHARTQA)
    _run(tmp_path / "m", "m", "OCRVQA_TESTCORE", OCRVQA)
    t = table(tmp_path, profiles=["chartqa=vlmevalkit"])
    assert t.cell("m", "ChartQA").profile == "vlmevalkit"
    assert t.cell("m", "OCR-VQA").profile == "vlmevalkit"  # its default
    t = table(tmp_path, profiles=["qwen-vl"])  # both tasks have a qwen-vl profile
    assert {c.profile for c in t.cells.values()} == {"qwen-vl"}
    with pytest.raises(Exception, match="no profile 'nope'"):
        table(tmp_path, profiles=["chartqa=nope"])
    with pytest.raises(InputError, match="profile='nope': none of the tasks found"):
        table(tmp_path, profiles=["nope"])
    t = table(tmp_path, profiles=["vlmevalkit-2024"])  # ChartQA has it, OCR-VQA does not
    assert t.cell("m", "ChartQA").profile == "vlmevalkit-2024"
    assert t.cell("m", "OCR-VQA").profile == "vlmevalkit"
    assert "task ocrvqa has no profile 'vlmevalkit-2024'" in t.to_text()


def test_columns_choose_and_order(tmp_path: Path) -> None:
    _run(tmp_path / "m", "m", "ChartQA_TEST", CHARTQA)
    _run(tmp_path / "m", "m", "OCRVQA_TESTCORE", OCRVQA)
    t = table(tmp_path, columns=["OCR-VQA", "chartqa"])
    assert [c.id for c in t.columns] == ["OCR-VQA", "ChartQA"]
    with pytest.raises(
        InputError,
        match=r"--columns MME-P: no such column among the runs found; they have: ChartQA",
    ):
        table(tmp_path, columns=["MME-P"])


def test_mean_average_by_hand(tmp_path: Path) -> None:
    _run(tmp_path / "a", "a", "ChartQA_TEST", CHARTQA)
    _run(tmp_path / "a", "a", "OCRVQA_TESTCORE", OCRVQA)
    _run(tmp_path / "b", "b", "OCRVQA_TESTCORE", OCRVQA)
    t = table(tmp_path, average="mean")
    assert t.averages["Mean"]["a"] == pytest.approx((200 / 3 + 75.0) / 2)
    assert t.averages["Mean"]["b"] is None
    assert any("b lacks ChartQA" in n for n in t.average_notes)
    rows = list(csv.DictReader(io.StringIO(t.to_csv())))
    assert [r["Mean"] for r in rows] == ["70.8", ""]
    with pytest.raises(InputError, match="--average median: choose one of: mean, opencompass"):
        table(tmp_path, average="median")


def test_opencompass_names_what_is_missing(tmp_path: Path) -> None:
    _run(tmp_path / "a", "a", "OCRVQA_TESTCORE", OCRVQA)
    t = table(tmp_path, average="opencompass")
    assert t.averages["OpenCompass"]["a"] is None
    note = next(n for n in t.average_notes if n.startswith("OpenCompass: a lacks"))
    for part in (
        "MMBench_TEST_EN_V11",
        "MMBench_TEST_CN_V11",
        "MMStar",
        "MMMU_DEV_VAL",
        "MathVista_MINI",
        "HallusionBench",
        "AI2D_TEST",
        "OCRBench",
        "MMVet",
    ):
        assert part in note


# -- bad input ------------------------------------------------------------------------------


def test_two_files_for_one_model_and_benchmark(tmp_path: Path) -> None:
    a = _run(tmp_path / "x", "m", "OCRVQA_TESTCORE", OCRVQA)
    b = _run(tmp_path / "y", "m", "OCRVQA_TESTCORE", OCRVQA.replace("science", "History"))
    with pytest.raises(InputError) as err:
        table(tmp_path)
    assert str(a) in str(err.value) and str(b) in str(err.value) and "--name" in str(err.value)
    t = table(tmp_path, names={str(tmp_path / "x"): "first", str(tmp_path / "y"): "second"})
    assert t.models == ["first", "second"]
    assert t.cell("first", "OCR-VQA").value == 75.0
    assert t.cell("second", "OCR-VQA").value == 100.0


def test_nothing_recognized_lists_what_was_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "readme.txt").write_text("x")
    (tmp_path / "scores.json").write_text("{}")
    code, out, err = _cli(["table", str(tmp_path)], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert "no benchmark run recognized" in err
    assert "readme.txt" in err and "scores.json" in err


def test_unreadable_reported_file_gives_our_number_and_a_note(tmp_path: Path) -> None:
    m = tmp_path / "m"
    _run(m, "m", "OCRVQA_TESTCORE", OCRVQA)
    (m / "m_OCRVQA_TESTCORE_acc.csv").write_bytes(b"\xff\xfe\x00garbage")
    t = table(tmp_path)
    cell = t.cell("m", "OCR-VQA")
    assert (cell.value, cell.reported, cell.status) == (75.0, None, "no-reported")
    assert any("could not be read" in n and "our number only" in n for n in cell.notes)
    assert "m_OCRVQA_TESTCORE_acc.csv" in t.to_text()


def test_missing_benchmark_is_an_empty_cell_said_under_the_table(tmp_path: Path) -> None:
    _run(tmp_path / "a", "a", "ChartQA_TEST", CHARTQA)
    _run(tmp_path / "a", "a", "OCRVQA_TESTCORE", OCRVQA)
    _run(tmp_path / "b", "b", "OCRVQA_TESTCORE", OCRVQA)
    t = table(tmp_path)
    assert t.cell("b", "ChartQA").status == "missing"
    assert t.cell("b", "ChartQA").value is None
    assert "| b |  | 75.0 |" in t.to_markdown()
    assert "b has no run of ChartQA: empty cells" in t.to_text()


def test_a_broken_sheet_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(tmp_path / "m", "m", "OCRVQA_TESTCORE", "index\tquestion\n1\tq\n")
    code, out, err = _cli(["table", str(tmp_path)], capsys)
    assert code == 2 and out == ""
    assert err.startswith("vqametrics: error: ") and err.count("\n") == 1
    assert "m_OCRVQA_TESTCORE.tsv" in err


def test_bad_options_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run(tmp_path / "m", "m", "OCRVQA_TESTCORE", OCRVQA)
    for args, text in (
        (["--name", "oops"], "expected NAME=PATH"),
        (["--task", "nosuchtask"], "unknown task 'nosuchtask'"),
        (["--columns", "Nope"], "no such column"),
        (["--profile", "ocrvqa="], "expected NAME or TASK=NAME"),
    ):
        code, _, err = _cli(["table", str(tmp_path), *args], capsys)
        assert code == 2, args
        assert text in err and err.count("\n") == 1, (args, err)
    code, _, err = _cli(["table", str(tmp_path / "absent")], capsys)
    assert code == 2 and "no such file or folder" in err


# -- the command line -----------------------------------------------------------------------


def test_cli_formats_and_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "src"
    _run(src / "m", "m", "OCRVQA_TESTCORE", OCRVQA)
    _acc(src / "m", "m", "OCRVQA_TESTCORE", 75.0)
    code, out, _ = _cli(["table", str(src), "--format", "json"], capsys)
    assert code == 0
    doc = json.loads(out)
    (cell,) = doc["cells"]
    assert cell["value"] == 75.0 and cell["reported"] == 75.0 and cell["status"] == "reproduced"
    assert cell["signature"].startswith("ocrvqa-em|profile:vlmevalkit|")
    code, out, _ = _cli(["table", str(src), "--format", "latex"], capsys)
    assert "m & 75.0 (75.0) \\\\" in out
    code, out, _ = _cli(["table", str(src), "--format", "latex", "--no-reported"], capsys)
    assert "m & 75.0 \\\\" in out
    code, out, _ = _cli(["table", str(src), "--format", "csv", "--digits", "2"], capsys)
    assert out.splitlines()[1] == "m,75.00,75.00,no"
    out_dir = tmp_path / "out"
    code, out, _ = _cli(["table", str(src), "--out", str(out_dir)], capsys)
    assert code == 0 and "75.0 (75.0)" in out
    written = sorted(p.name for p in out_dir.iterdir())
    assert written == [
        "manifest.json",
        "table.csv",
        "table.json",
        "table.md",
        "table.tex",
        "table.txt",
    ]
    assert (out_dir / "table.txt").read_text() == out


def test_html_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    _run(tmp_path / "m", "m", "OCRVQA_TESTCORE", OCRVQA)
    _run(tmp_path / "m", "m", "ChartQA_TEST", CHARTQA)
    code, out, _ = _cli(["table", str(tmp_path), "--format", "html"], capsys)
    assert code == 0
    assert out.startswith("<!doctype html>")
    assert out.index('id="table"') < out.index("<h2>ChartQA — m</h2>")
    assert out.index("<h2>ChartQA — m</h2>") < out.index("<h2>OCR-VQA — m</h2>")
    assert "Why this score" in out or "why" in out.lower()
    assert "<script src=" not in out and "<link " not in out  # nothing fetched


def test_progress_is_reported(tmp_path: Path) -> None:
    _run(tmp_path / "m", "m", "OCRVQA_TESTCORE", OCRVQA)
    calls: list[tuple[int, int]] = []
    table(tmp_path, progress=lambda done, total, what: calls.append((done, total)))
    assert calls and calls[-1][0] == calls[-1][1]


# -- properties -----------------------------------------------------------------------------

_MODEL_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-."


@settings(max_examples=150, deadline=None)
@given(
    model=st.text(_MODEL_CHARS, min_size=1, max_size=24).filter(
        lambda s: not s.startswith(".") and not s.endswith("_")
    ),
    dataset=st.sampled_from(sorted(VLMEVALKIT_DATASETS)),
    reported=st.sampled_from(["_acc.csv", "_score.csv", "_score.json"]),
    aux=st.sampled_from(["_openai_result.xlsx", "_auxmatch.xlsx", "_gpt-4o-mini.xlsx"]),
)
# a model named after another dataset, and a longer dataset name ending in a shorter one
@example(model="llava_POPE_ft", dataset="MME", reported="_score.csv", aux="_auxmatch.xlsx")
@example(model="m_MME", dataset="MMBench_DEV_EN_V11", reported="_acc.csv", aux="_auxmatch.xlsx")
def test_any_model_name_is_read_back(model: str, dataset: str, reported: str, aux: str) -> None:
    """``<model>_<DATASET>.xlsx`` is that model's run of that dataset's benchmark whatever the
    model's name holds (underscores, dots, another dataset's name), and the files named after
    it are attached to it."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "out"
        folder.mkdir()
        for suffix in (".xlsx", reported, aux):
            (folder / f"{model}_{dataset}{suffix}").write_text("x")
        found = find_runs([folder])
        assert [(r.model, r.benchmark) for r in found.runs] == [
            (model, VLMEVALKIT_DATASETS[dataset])
        ]
        (run,) = found.runs
        assert [p.name for p in run.reported] == [f"{model}_{dataset}{reported}"]
        assert [p.name for p in run.auxiliary] == [f"{model}_{dataset}{aux}"]
        assert found.unrecognized == []


def test_report_with_several_tasks_writes_the_table_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    _run(tmp_path / "m", "m", "OCRVQA_TESTCORE", OCRVQA)
    _run(tmp_path / "m", "m", "ChartQA_TEST", CHARTQA)
    out = tmp_path / "page.html"
    argv = ["report", "--task", "ocrvqa,chartqa", "--results", str(tmp_path / "m"), "-o", str(out)]
    code, _, err = _cli(argv, capsys)
    assert code == 0, err
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>")
    assert page.index('id="table"') < page.index("<h2>ChartQA — m</h2>")
    assert "<h2>OCR-VQA — m</h2>" in page
    # the cells of the hand-derived numbers above: OCR-VQA 3/4, ChartQA 2/3
    assert "75.0" in page and "66.7" in page
    assert "<script src=" not in page and "<link " not in page
