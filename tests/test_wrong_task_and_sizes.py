"""A file given to the wrong task, and a fixed-size benchmark with items missing (audit B, D2
and D5).

D2: VLMEvalKit names its sheet ``<model>_<DATASET>.xlsx`` and lmms-eval its log
``<date>_samples_<task>.jsonl``; a file whose name says another task than the one scoring it is
scored as asked, with a :class:`TaskMismatchWarning` naming the file, the task its name says
and the command that scores it. The paper table picks the task from the name itself, so it
never warns. D5: OCRBench (1000 items) and MathVista testmini (1000 problems) scored on
another number of items say so in a note, as MMStar's official profile does; a note changes no
number.
"""

from __future__ import annotations

import json
import re
import shutil
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from vqametrics import evaluate
from vqametrics.cli import main
from vqametrics.errors import TaskMismatchWarning, VqaMetricsWarning
from vqametrics.paper_table import LMMS_EVAL_TASKS, VLMEVALKIT_DATASETS, table
from vqametrics.paper_table.benchmarks import BENCHMARKS
from vqametrics.readers import toolkit_names
from vqametrics.readers.toolkit_names import (
    BENCHMARK_TASKS,
    lmms_samples,
    named_benchmark,
    warn_if_other_task,
)
from vqametrics.tasks import Item, get_task
from vqametrics.tasks import mmstar as mmstar_task
from vqametrics.tasks._sizes import size_note

MME = ("mme", "vlmevalkit", "vila_8b_MME.xlsx")
POPE = ("pope", "vlmevalkit", "vila_8b_POPE.xlsx")
TEXTVQA = ("textvqa_val", "vlmevalkit", "vila_8b_TextVQA_VAL.xlsx")
OCRBENCH = ("ocrbench", "vlmevalkit", "vila_8b_OCRBench.xlsx")
MATHVISTA = ("mathvista", "official", "output_llava_llama_2_13b.json")

OCRBENCH_NOTE = (
    "999 items, but OCRBench has 1000: the Final Score is a count of correct items, out of "
    "1000 only on the full benchmark (Final Score Norm, the count / 10, assumes it)"
)
MATHVISTA_NOTE = (
    "{n} problems, but MathVista testmini has 1000: the accuracy is over the problems scored here"
)


@contextmanager
def no_mismatch_warning() -> Iterator[None]:
    """Within this block, a TaskMismatchWarning fails the test (any other warning is left to
    the suite's own filter)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TaskMismatchWarning)
        yield
    assert [str(w.message) for w in caught if w.category is TaskMismatchWarning] == []


def _mismatch(task: str, results: Any, **kwargs: Any) -> str:
    """The one TaskMismatchWarning scoring *results* as *task* gives, its text."""
    with pytest.warns(TaskMismatchWarning) as caught:
        evaluate(task, results, **kwargs)
    texts = [str(w.message) for w in caught if w.category is TaskMismatchWarning]
    assert len(texts) == 1, texts
    return texts[0]


# ----- D2: what a name says (no data needed) ---------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("vila_8b_MME.xlsx", ("VLMEvalKit", "MME", "MME")),
        ("llava_POPE_ft_MME.xlsx", ("VLMEvalKit", "MME", "MME")),
        ("m_MMBench_DEV_EN_V11.tsv", ("VLMEvalKit", "MMBench_DEV_EN_V11", "MMBench_DEV_EN_V11")),
        ("m_AI2D_TEST_NO_MASK.csv", ("VLMEvalKit", "AI2D_TEST_NO_MASK", "AI2D_TEST")),
        ("m_TextVQA_VAL.json", ("VLMEvalKit", "TextVQA_VAL", "TextVQA_VAL")),
        ("2026_samples_scienceqa_img.jsonl", ("lmms-eval", "scienceqa_img", "ScienceQA_TEST")),
        ("vila_8b_MME_score.csv", None),  # the reported scores, not the run
        ("vila_8b_MME_auxmatch.xlsx", None),
        ("2026_samples_pope_random.jsonl", None),  # an lmms-eval task not known here
        ("answers.jsonl", None),
        ("MME.xlsx", None),  # no model before the dataset
    ],
)
def test_a_file_name_names_its_benchmark(name: str, expected: Any) -> None:
    assert named_benchmark(name) == expected


@pytest.mark.parametrize(
    "name",
    [
        "20260218_234435_samples_scienceqa_img.jsonl",
        "a_samples_b_samples_mme.jsonl",
        "x_samples_.jsonl",
        "_samples_mme.jsonl",
        "d_samples_mme.jsonl.gz",
        "d_samples_mme.json",
        "samples_mme_2026.jsonl",
        "d_samples_mme",
    ],
)
def test_the_lmms_eval_name_is_read_as_its_pattern(name: str) -> None:
    # lmms_samples reads without compiling a pattern (issue 23): the same as the pattern
    m = re.match(r"^(?P<date>.+?)_samples_(?P<task>.+)\.jsonl$", name)
    expected = (m["date"], m["task"]) if m and m["task"] in LMMS_EVAL_TASKS else None
    assert lmms_samples(name) == expected


def test_every_named_task_is_a_registered_name() -> None:
    # the names the warning compares are the registry's own (aliases already resolved)
    assert {task: get_task(task).name for task in BENCHMARK_TASKS.values()} == {
        task: task for task in BENCHMARK_TASKS.values()
    }


def test_the_paper_table_reads_the_same_names() -> None:
    # one place: the table's public names are the reader's, its benchmarks in the same order
    assert VLMEVALKIT_DATASETS is toolkit_names.VLMEVALKIT_DATASETS
    assert LMMS_EVAL_TASKS is toolkit_names.LMMS_EVAL_TASKS
    assert [(b.key, b.task) for b in BENCHMARKS] == list(BENCHMARK_TASKS.items())


@pytest.mark.parametrize(
    "results",
    [
        "-",
        "answers.jsonl",
        "results/vila_8b_MME_score.csv",
        [{"question_id": 1, "answer": "yes"}],
        {"vila_8b_MME.xlsx": "yes"},
        b"vila_8b_MME.xlsx",
    ],
)
def test_what_names_no_other_task_does_not_warn(results: Any) -> None:
    with no_mismatch_warning():
        warn_if_other_task(results, "pope", "POPE")


def test_the_warning_is_a_vqametrics_warning() -> None:
    assert issubclass(TaskMismatchWarning, VqaMetricsWarning)
    with pytest.warns(TaskMismatchWarning) as caught:
        warn_if_other_task(Path("runs") / "vila_8b_MME.xlsx.gz", "pope", "POPE")
    assert str(caught[0].message) == (
        "vila_8b_MME.xlsx.gz: named as VLMEvalKit's MME sheet, which `vqametrics score mme` "
        "scores; scored as POPE here"
    )


# ----- D2: scoring ---------------------------------------------------------------------------


def _vqa_sheet(path: Path) -> Path:
    """A one-row VLMEvalKit VQA sheet (index, question, answer, prediction) at *path*."""
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    ws = book.active
    ws.append(["index", "question", "answer", "prediction"])
    ws.append([1, "q", str(["yes"] * 10), "yes"])
    book.save(path)
    return path


def _textvqa_log(folder: Path) -> Path:
    """A one-line lmms-eval TextVQA log with its doc (question_id, answers)."""
    doc = {"question_id": 1, "question": "what?", "image_id": "im", "answers": ["cat"] * 10}
    row = {"doc_id": 0, "doc": doc, "target": "cat", "filtered_resps": ["cat"]}
    path = folder / "20260101_000000_samples_textvqa_val.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return path


def test_an_lmms_eval_log_of_another_task_warns(tmp_path: Path) -> None:
    log = _textvqa_log(tmp_path)
    assert _mismatch("vqav2", str(log)) == (
        "20260101_000000_samples_textvqa_val.jsonl: named as lmms-eval's textvqa_val log, "
        "which `vqametrics score textvqa` scores; scored as VQA v2 here"
    )
    with no_mismatch_warning():
        evaluate("textvqa", str(log))
        evaluate("textvqa_val", log)  # an alias of the same task


def test_a_synthetic_sheet_of_another_task_warns(tmp_path: Path) -> None:
    sheet = _vqa_sheet(tmp_path / "m_TextVQA_VAL.xlsx")
    text = _mismatch("vqa2", sheet)  # an alias of vqav2: the title is the task's
    assert text.startswith("m_TextVQA_VAL.xlsx: named as VLMEvalKit's TextVQA_VAL sheet,")
    assert text.endswith("`vqametrics score textvqa` scores; scored as VQA v2 here")
    with no_mismatch_warning():
        evaluate("text-vqa", sheet)
        evaluate("vqav2", _vqa_sheet(tmp_path / "m_VQAv2.xlsx"))  # no benchmark of the table


@pytest.mark.shared
def test_the_mme_sheet_scored_as_pope_warns(shared_data: Path) -> None:
    sheet = shared_data.joinpath(*MME)
    assert _mismatch("pope", str(sheet), profile="vlmevalkit") == (
        "vila_8b_MME.xlsx: named as VLMEvalKit's MME sheet, which `vqametrics score mme` "
        "scores; scored as POPE here"
    )


@pytest.mark.shared
def test_the_textvqa_sheet_scored_as_chartqa_warns(shared_data: Path) -> None:
    sheet = shared_data.joinpath(*TEXTVQA)
    text = _mismatch("chart-qa", sheet)
    assert text == (
        "vila_8b_TextVQA_VAL.xlsx: named as VLMEvalKit's TextVQA_VAL sheet, which "
        "`vqametrics score textvqa` scores; scored as ChartQA here"
    )


@pytest.mark.shared
@pytest.mark.parametrize(
    ("task", "parts", "profile"),
    [
        ("pope", POPE, "vlmevalkit"),
        ("mme", MME, None),
        ("ocr-bench", OCRBENCH, "vlmevalkit"),
        ("textvqa", TEXTVQA, None),
        ("mathvista", MATHVISTA, None),
    ],
)
def test_a_correctly_named_file_does_not_warn(
    shared_data: Path, task: str, parts: tuple[str, ...], profile: str | None
) -> None:
    with no_mismatch_warning():
        evaluate(task, str(shared_data.joinpath(*parts)), profile=profile)


@pytest.mark.shared
def test_the_command_line_shows_one_clean_warning_line(
    shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = shared_data.joinpath(*MME)
    assert main(["score", "pope", "--profile", "vlmevalkit", "--results", str(sheet)]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if "named as" in line]
    assert lines == [
        "vqametrics: warning: vila_8b_MME.xlsx: named as VLMEvalKit's MME sheet, which "
        "`vqametrics score mme` scores; scored as POPE here"
    ]


@pytest.mark.shared
def test_several_results_name_the_file_once(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # several files: each warning is prefixed with its file, unless it names the file already
    sheets = []
    for model in ("a", "b"):
        sheets.append(tmp_path / f"{model}_MME.xlsx")
        sheets[-1].write_bytes(shared_data.joinpath(*MME).read_bytes())
    argv = ["score", "pope", "--profile", "vlmevalkit"]
    assert main([*argv, "--results", str(sheets[0]), "--results", str(sheets[1])]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if "named as" in line]
    assert lines == [
        f"vqametrics: warning: {model}_MME.xlsx: named as VLMEvalKit's MME sheet, which "
        "`vqametrics score mme` scores; scored as POPE here"
        for model in ("a", "b")
    ]


@pytest.mark.shared
def test_a_task_that_refuses_the_file_gives_only_its_error(
    shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # MMBench refuses an MMStar sheet itself: no warning says it was scored
    sheet = shared_data / "mmstar" / "vlmevalkit" / "vila_8b_MMStar.xlsx"
    assert main(["score", "mmbench", "--results", str(sheet)]) == 2
    err = capsys.readouterr().err
    assert "named as" not in err and "error:" in err


@pytest.mark.shared
def test_the_table_never_warns(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    for parts in (MME, POPE, TEXTVQA, OCRBENCH):
        folder = shared_data.joinpath(*parts[:-1])
        for f in folder.iterdir():
            if f.is_file() and f.name != "LICENSE":
                dest = runs / parts[0] / f.name
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(f, dest)
    with no_mismatch_warning():
        t = table(runs)
    assert {c.benchmark.key for c in t.columns} >= {"MME", "POPE", "TextVQA_VAL", "OCRBench"}
    assert main(["table", str(runs)]) == 0
    assert "named as" not in capsys.readouterr().err


# ----- D5: a fixed-size benchmark with items missing -------------------------------------------


def test_the_size_note() -> None:
    assert size_note(1000, 1000, "items", "x") == ()
    assert size_note(999, 1000, "items", "x has 1000") == ("999 items, but x has 1000",)


def test_mmstar_keeps_its_wording() -> None:
    item = Item("1", "A", ("A",), {"category": "math", "l2_category": "geometry"})
    notes = mmstar_task.OFFICIAL.aggregate([item], [1.0]).notes
    assert "1 rows, but the official denominators are fixed (250 per category, 1500 overall)" in (
        notes
    )


@pytest.fixture
def ocrbench_999(shared_data: Path, tmp_path: Path) -> Path:
    """The VILA OCRBench sheet with its 8th data row deleted (999 items), in tmp_path."""
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.load_workbook(shared_data.joinpath(*OCRBENCH))
    book.active.delete_rows(9)
    out = tmp_path / "vila_8b_OCRBench.xlsx"
    book.save(out)
    return out


@pytest.mark.shared
def test_ocrbench_with_an_item_missing_is_noted(ocrbench_999: Path, shared_data: Path) -> None:
    ev = evaluate("ocrbench", str(ocrbench_999), profile="vlmevalkit")
    assert ev.metrics["n"] == 999 and OCRBENCH_NOTE in ev.notes
    full = evaluate("ocrbench", str(shared_data.joinpath(*OCRBENCH)), profile="vlmevalkit")
    assert not any("OCRBench has 1000" in n for n in full.notes)


def _mathvista_problem(pid: str, split: str | None) -> dict[str, Any]:
    """A free-form integer problem with its recorded extraction (``metadata.split`` when given)."""
    row: dict[str, Any] = {
        "pid": pid,
        "question_type": "free_form",
        "answer_type": "integer",
        "precision": None,
        "choices": None,
        "answer": "3",
        "extraction": "3",
    }
    if split is not None:
        row["metadata"] = {"split": split}
    return row


@pytest.mark.parametrize(
    ("pids", "split", "noted"),
    [
        (("1", "2"), "testmini", True),
        (("1", "2"), None, True),  # no split: testmini's pids
        (("1", "2"), "test", False),  # the test split (5141 problems) is another benchmark
        (("1001", "1002"), None, False),  # no split, pids outside testmini's
    ],
)
def test_mathvista_notes_a_testmini_file_of_other_than_1000(
    tmp_path: Path, pids: tuple[str, ...], split: str | None, noted: bool
) -> None:
    path = tmp_path / "output_m.json"
    path.write_text(json.dumps({p: _mathvista_problem(p, split) for p in pids}), encoding="utf-8")
    for profile in ("official", "official-2024", "lmms-eval", "vlmevalkit"):
        notes = evaluate("mathvista", str(path), profile=profile).notes
        assert (MATHVISTA_NOTE.format(n=2) in notes) is noted, (profile, notes)


@pytest.mark.shared
def test_mathvista_with_a_problem_missing_is_noted(shared_data: Path, tmp_path: Path) -> None:
    problems = json.loads(shared_data.joinpath(*MATHVISTA).read_text(encoding="utf-8"))
    del problems["4"]
    path = tmp_path / "output_m.json"
    path.write_text(json.dumps(problems), encoding="utf-8")
    for profile in ("official", "lmms-eval", "vlmevalkit"):
        assert MATHVISTA_NOTE.format(n=999) in evaluate("mathvista", path, profile=profile).notes
    full = evaluate("mathvista", str(shared_data.joinpath(*MATHVISTA)))
    assert not any("MathVista testmini has" in n for n in full.notes)
