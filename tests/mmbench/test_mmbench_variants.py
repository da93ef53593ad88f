"""MMBench's releases declared on the task (v1.0 / v1.1, EN / CN, dev / test, CCBench), the
``mmbench`` command as an alias of ``score mmbench``, and the sheets of other benchmarks named.

Expected values: the VLMEvalKit dataset names and the 20 L3 abilities from spec mmbench.md §1,
CCBench's categories from the ``_acc.csv`` VLMEvalKit wrote, the language of each sample row
from ``../shared/data/mmbench_samples`` (its ``lang`` column)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from vqametrics.cli import main
from vqametrics.mmbench import build_judge_prompt, load_mmbench_tsv
from vqametrics.tasks import get_task
from vqametrics.tasks.mmbench import (
    CCBENCH_CATEGORIES,
    MMBENCH_ABILITIES,
    MMBENCH_VARIANTS,
    mmbench_variant,
    other_task_sheet,
)

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
SAMPLES = SHARED / "mmbench_samples" / "mmbench_samples.tsv"
CCBENCH = SHARED / "ccbench" / "vlmevalkit"

# spec mmbench.md §1: "MMBench_{DEV,TEST}_{EN,CN} (v1.0) and *_V11", and CCBench
VLMEVALKIT_NAMES = [
    "MMBench_DEV_EN",
    "MMBench_DEV_CN",
    "MMBench_TEST_EN",
    "MMBench_TEST_CN",
    "MMBench_DEV_EN_V11",
    "MMBench_DEV_CN_V11",
    "MMBench_TEST_EN_V11",
    "MMBench_TEST_CN_V11",
    "CCBench",
]


def _need(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"{path} not present (../shared/data beside the checkout)")


@pytest.mark.parametrize("name", VLMEVALKIT_NAMES)
def test_every_release_is_a_name_of_the_task(name: str) -> None:
    variant = mmbench_variant(name)
    assert variant.dataset == name  # VLMEvalKit's own spelling
    assert get_task(name).name == "mmbench"
    assert get_task(name.replace("_", "-")).name == "mmbench"


def test_variants_differ_where_the_spec_says() -> None:
    assert len(MMBENCH_VARIANTS) == 9
    v10, v11 = mmbench_variant("MMBench_DEV_CN"), mmbench_variant("MMBench_DEV_CN_V11")
    assert (v10.version, v11.version) == ("v1.0", "v1.1")
    assert (v10.language, mmbench_variant("MMBench_TEST_EN").language) == ("cn", "en")
    assert mmbench_variant("MMBench_TEST_EN").split == "test"
    assert len(MMBENCH_ABILITIES) == len(set(MMBENCH_ABILITIES)) == 20
    assert mmbench_variant("ccbench").categories == CCBENCH_CATEGORIES
    assert mmbench_variant("MMBench_DEV_EN").categories == MMBENCH_ABILITIES


def test_unknown_variant_is_named() -> None:
    from vqametrics import UnknownNameError

    with pytest.raises(UnknownNameError, match="MMBench_DEV_KR"):
        mmbench_variant("MMBench_DEV_KR")


def _sample_rows() -> list[dict[str, str]]:
    _need(SAMPLES)
    with SAMPLES.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def test_samples_have_their_variants_categories() -> None:
    rows = _sample_rows()
    for lang in ("en", "cn"):
        cats = {r["category"] for r in rows if r["lang"] == lang and r["benchmark"] == "MMBench"}
        assert cats <= set(MMBENCH_ABILITIES) and len(cats) >= 19, lang
    cc = {r["category"] for r in rows if r["benchmark"] == "CCBench"}
    assert cc <= set(CCBENCH_CATEGORIES) and cc


def test_cn_rows_get_the_chinese_judge_prompt() -> None:
    # spec §3: a question with a CJK character is judged with the Chinese template, so the
    # CN releases and CCBench are judged in Chinese, the EN ones in English
    for r in _sample_rows():
        options = {k: r[k] for k in "ABCD" if r.get(k)}
        prompt = build_judge_prompt(r["question"], options, "x")
        assert ("问题" in prompt) == (r["lang"] == "cn"), r["index"]


def test_ccbench_sheet_has_the_ccbench_categories() -> None:
    sheet, acc = CCBENCH / "vila_8b_CCBench.xlsx", CCBENCH / "vila_8b_CCBench_acc.csv"
    _need(sheet)
    with acc.open(encoding="utf-8", newline="") as f:
        reported = next(csv.DictReader(f))
    assert sorted(k for k in reported if k not in ("split", "Overall")) == sorted(
        CCBENCH_CATEGORIES
    )
    cats = {row.category for row in load_mmbench_tsv(sheet).rows}
    assert cats == set(CCBENCH_CATEGORIES)


def test_score_ccbench_is_score_mmbench(capsys: pytest.CaptureFixture[str]) -> None:
    sheet = CCBENCH / "vila_8b_CCBench.xlsx"
    _need(sheet)
    assert main(["score", "ccbench", "--results", str(sheet), "--json"]) == 0
    by_alias = json.loads(capsys.readouterr().out)
    assert main(["score", "mmbench", "--results", str(sheet), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == by_alias
    assert by_alias["task"] == "mmbench" and by_alias["n"] == 510  # 510 questions x 4 rows


# --- the mmbench command is `score mmbench` ------------------------------------------------

HEADER = "index\tquestion\tA\tB\tanswer\tcategory\tprediction\n"
ROWS = (
    "1\tYes?\tyes\tno\tA\tc1\tA\n"
    "1000001\tYes?\tno\tyes\tB\tc1\tB\n"
    "2\tNo?\tyes\tno\tB\tc2\tB\n"
    "1000002\tNo?\tno\tyes\tA\tc2\tperhaps\n"
)


@pytest.fixture
def sheet(tmp_path: Path) -> Path:
    path = tmp_path / "m_MMBench_DEV_EN.tsv"
    path.write_text(HEADER + ROWS, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ([], []),
        (["--json"], ["--json"]),
        (["--mode", "vanilla"], ["--mode", "vanilla"]),
        (["--reference-compatible"], ["--reference-compatible", "yes"]),
        (["--random-fallback", "7", "--json"], ["--random-fallback", "7", "--json"]),
        (["--extractor", "vlmevalkit-2024"], ["--profile", "vlmevalkit-2024"]),
    ],
)
def test_mmbench_prints_what_score_mmbench_prints(
    sheet: Path, old: list[str], new: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["mmbench", "--data", str(sheet), "--results", str(sheet), *old]) == 0
    alias = capsys.readouterr().out
    assert (
        main(["score", "mmbench", "--annotations", str(sheet), "--results", str(sheet), *new]) == 0
    )
    assert alias == capsys.readouterr().out
    assert "mmbench|profile:" in alias


def test_random_fallback_seed_is_a_number_on_both_spellings(
    sheet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the string "7" would seed another sequence than the number 7
    from vqametrics import evaluate

    api = evaluate("mmbench", str(sheet), random_fallback=7)
    assert main(["mmbench", "--results", str(sheet), "--random-fallback", "7", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["metrics"] == api.as_dict()["metrics"]
    assert "|random:7|" in doc["signature"]


def test_bad_reference_compatible_value(sheet: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["score", "mmbench", "--results", str(sheet), "--reference-compatible", "maybe"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--reference-compatible 'maybe': expected yes or no" in err
    assert "Traceback" not in err


# --- sheets of other benchmarks ------------------------------------------------------------

OTHER = [
    ("mmstar/vlmevalkit/vila_8b_MMStar.xlsx", "an MMStar sheet", "mmstar"),
    ("seedbench_img/vlmevalkit/vila_8b_SEEDBench_IMG.xlsx", "a SEED-Bench sheet", "seedbench"),
    ("realworldqa/vlmevalkit/vila_8b_RealWorldQA.xlsx", "a RealWorldQA sheet", "realworldqa"),
]


@pytest.mark.parametrize(("rel", "what", "task"), OTHER)
@pytest.mark.parametrize("command", [["mmbench"], ["score", "mmbench"]])
def test_other_benchmark_sheet_is_named(
    rel: str, what: str, task: str, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    path = SHARED / rel
    _need(path)
    assert main([*command, "--results", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert f"this looks like {what}" in err[0]
    assert f"vqametrics score {task} --results {path}" in err[0]
    assert get_task(task).name == task  # the command it suggests exists


def test_mmbench_sheets_are_not_taken_for_others() -> None:
    for name in VLMEVALKIT_NAMES:
        assert other_task_sheet(f"model_{name}.xlsx") is None
    assert other_task_sheet("-") is None
