"""The terminal table and the --out files of ``vqametrics score`` (report/task_text.py,
report/task_files.py), on real VLMEvalKit files whose reported numbers sit beside them."""

from __future__ import annotations

from pathlib import Path

import pytest

from vqametrics.cli import main
from vqametrics.views.task_text import _difference


@pytest.mark.parametrize(
    ("diff", "digits", "shown"),
    [
        (0.0, 2, "0"),
        (5.0, 2, "+5.00"),
        (-0.125, 3, "-0.125"),
        # would round to 0.00: shown so that it is not mistaken for equality
        (1.1368683772161603e-13, 2, "+1.1e-13"),
        (-0.004, 2, "-4.0e-03"),
    ],
)
def test_difference_is_never_a_rounded_zero(diff: float, digits: int, shown: str) -> None:
    assert _difference(diff, digits) == shown


@pytest.mark.shared
def test_reported_numbers_beside_the_vlmevalkit_profile(
    shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("openpyxl")
    xlsx = shared_data / "mme" / "vlmevalkit" / "vila_8b_MME.xlsx"
    assert main(["score", "mme", "--results", str(xlsx), "--profile", "vlmevalkit"]) == 0
    out = capsys.readouterr().out
    # vila_8b_MME_score.csv: perception 1558.5247098839536, reproduced to the last bit
    rows = [line.split() for line in out.splitlines()]
    assert ["perception", "1558.52", "1558.52", "0"] in rows
    assert ["reasoning", "282.50", "282.50", "0"] in rows


@pytest.mark.shared
@pytest.mark.parametrize("task", ["mme", "pope"])
def test_reported_numbers_not_compared_under_another_profile(
    task: str, shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the official numbers differ from VLMEvalKit's by design (MME official perception
    # 1563.52 vs 1558.52 reported; POPE official is in fractions, VLMEvalKit in percent)
    pytest.importorskip("openpyxl")
    xlsx = shared_data / task / "vlmevalkit" / f"vila_8b_{task.upper()}.xlsx"
    assert main(["score", task, "--results", str(xlsx)]) == 0
    out = capsys.readouterr().out
    assert "not compared under profile official; compare with --profile vlmevalkit\n" in out
    assert "difference" not in out


@pytest.mark.shared
def test_reported_numbers_shown_under_the_default_profile(
    shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 11: the VLMEvalKit files show their reported numbers beside ours, also with no
    # --profile; the values are those of vila_8b_ChartQA_TEST_acc.csv, read by hand
    pytest.importorskip("openpyxl")
    xlsx = shared_data / "chartqa" / "vlmevalkit" / "vila_8b_ChartQA_TEST.xlsx"
    assert main(["score", "chartqa", "--results", str(xlsx)]) == 0
    out = capsys.readouterr().out
    rows = [
        line.split() for line in out.split("not compared under profile official", 1)[1].splitlines()
    ]
    assert ["test_augmented", "63.84"] in rows
    assert ["test_human", "37.92"] in rows
    assert ["Overall", "50.88"] in rows
    assert "difference" not in out


def test_out_must_be_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "existence.txt").write_text("a\tQ\tYes\tyes\na\tQ\tNo\tno\n", encoding="utf-8")
    target = tmp_path / "taken"
    target.write_text("", encoding="utf-8")
    args = ["score", "mme", "--results", str(folder), "--allow-missing", "--out", str(target)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.strip().endswith(f"--out {target}: exists and is not a directory")
    assert len(err.strip().splitlines()) == 1


def test_out_writes_the_three_files_and_a_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "existence.txt").write_text("a\tQ\tYes\tyes\na\tQ\tNo\tyes\n", encoding="utf-8")
    out = tmp_path / "out"
    args = ["score", "mme", "--results", str(folder), "--allow-missing", "--out", str(out)]
    assert main(args) == 0
    capsys.readouterr()
    assert sorted(p.name for p in out.iterdir()) == [
        "manifest.json",
        "metrics.json",
        "per_item.jsonl",
        "signature.txt",
    ]
    # by hand: one right of two, no image with both right: 50 + 0
    assert '"perception": 50.0' in (out / "metrics.json").read_text()
    assert len((out / "per_item.jsonl").read_text().splitlines()) == 2
