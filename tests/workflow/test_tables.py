"""Tables for papers: two systems in one table, in CSV, Markdown and LaTeX (and text, JSON)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from vqametrics.analysis.systems import short_names
from vqametrics.cli import main
from vqametrics.views.tables import Table, render

FIVE = Path(__file__).resolve().parents[1] / "data" / "vqa2_val_5q_official"


@pytest.fixture
def two_systems(tmp_path: Path) -> tuple[Path, Path]:
    """The official 5-question fixture (98.0 by the official script) and a system answering
    "zzz" everywhere (0.0: no human gave that answer)."""
    base = tmp_path / "baseline_run.json"
    base.write_bytes((FIVE / "results.json").read_bytes())
    rows = json.loads(base.read_text())
    worse = tmp_path / "worse_run.json"
    worse.write_text(json.dumps([{"question_id": r["question_id"], "answer": "zzz"} for r in rows]))
    return base, worse


def _vqa(fmt: str, systems: tuple[Path, Path], *extra: str) -> list[str]:
    return [
        "vqa",
        "--annotations",
        str(FIVE / "annotations.json"),
        "--results",
        str(systems[0]),
        "--results",
        str(systems[1]),
        "--format",
        fmt,
        *extra,
    ]


def test_csv_two_systems(
    two_systems: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_vqa("csv", two_systems, "--name", "base", "--name", "zzz")) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["system"] for r in rows] == ["base", "zzz"]
    # CSV keeps the unrounded value; rounded as the script does it is official_accuracy.json's
    assert round(float(rows[0]["VQA acc"]), 2) == 98.0
    assert float(rows[1]["VQA acc"]) == 0.0
    assert rows[0]["Δ (row − base)"] == ""  # the first system is the baseline
    # zzz − base, as diff --results zzz --results base
    assert float(rows[1]["Δ (row − base)"]) == -float(rows[0]["VQA acc"])
    assert float(rows[0]["other"]) == 97.5 and float(rows[0]["yes/no"]) == 100.0


def test_markdown_two_systems(
    two_systems: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_vqa("markdown", two_systems, "--metrics", "vqa,em_any")) == 0
    lines = capsys.readouterr().out.splitlines()
    head = "| system | n | VQA acc | other | yes/no | EM-any | Δ (row − baseline) |"
    assert lines[0].startswith(head)
    assert lines[1].startswith("|:---|---:|---:|")
    assert lines[2].startswith("| baseline | 5 | 98.00 |")
    assert lines[3].startswith("| worse | 5 | 0.00 |") and "| -98.00 |" in lines[3]


def test_latex_two_systems(
    two_systems: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_vqa("latex", two_systems, "--ci")) == 0
    out = capsys.readouterr().out
    assert "\\begin{tabular}{lrrrrrrrrrr}" in out and "\\bottomrule" in out
    assert "\\toprule\nsystem & n & VQA acc & 95\\% CI low & 95\\% CI high" in out
    body = [ln for ln in out.splitlines() if ln.startswith(("baseline &", "worse &"))]
    assert body[0].startswith("baseline & 5 & 98.00 &")
    assert body[1].startswith("worse & 5 & 0.00 & 0.00 & 0.00 &")
    assert "$\\Delta$ (row $-$ baseline)" in out


def test_text_and_json_alias(
    two_systems: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_vqa("text", two_systems)) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[2].split()[:3] == ["baseline", "5", "98.00"]
    args = [*_vqa("text", two_systems)[:-2], "--json"]
    assert main(args) == 0
    payload = json.loads(capsys.readouterr().out)
    assert [s["name"] for s in payload["systems"]] == ["baseline", "worse"]
    assert round(payload["systems"][1]["vs_first"]["delta"], 2) == -98.0


def test_diff_table_delta_is_a_minus_b(
    two_systems: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["diff", "--annotations", str(FIVE / "annotations.json")]
    pair = ["--results-a", str(two_systems[0]), "--results-b", str(two_systems[1])]
    assert main([*base, *pair, "--json"]) == 0
    delta = json.loads(capsys.readouterr().out)["delta"]
    assert main([*base, "--results", str(two_systems[0]), "--results", str(two_systems[1]),
                 "--format", "csv"]) == 0  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert rows[0]["group"] == "overall" and float(rows[0]["Δ (A − B)"]) == delta
    assert round(delta, 2) == 98.0


def test_em_any_spellings(
    two_systems: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    for spelling in ("em-any", "em_any"):
        args = ["vqa", "--annotations", str(FIVE / "annotations.json")]
        assert main([*args, "--results", str(two_systems[0]), "--metrics", spelling, "--json"]) == 0
        assert "em_any" in json.loads(capsys.readouterr().out)["metrics"]


def test_name_count_must_match(
    two_systems: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_vqa("csv", two_systems, "--name", "only-one")) == 2
    assert "1 --name for 2 --results" in capsys.readouterr().err


def test_short_names_drop_shared_parts() -> None:
    pica = [
        "coco14_promptC_gpt3_5GT_n16_repeat5_53.246136_CLIPImagequestion.json",
        "coco14_promptC_gpt3_VinVLTag_n16_repeat5_47.934998_CLIPImagequestion.json",
    ]
    assert short_names(pica) == ["5GT_53.246136", "VinVLTag_47.934998"]
    assert short_names(["a/run.json", "b/run.json"]) == ["run (1)", "run (2)"]
    assert short_names(["model.jsonl"]) == ["model"]


def test_renderers_escape() -> None:
    t = Table(("system", "acc"), (("a_b|c & 100%", 1.0), ("none", None)), notes=("note",))
    assert "a\\_b|c \\& 100\\%" in render(t, "latex")
    assert "| a_b\\|c & 100% | 1.00 |" in render(t, "markdown")
    assert render(t, "csv").splitlines()[2] == "none,"
    assert json.loads(render(t, "json"))["rows"][1] == {"system": "none", "acc": None}
    with pytest.raises(ValueError, match="unknown table format"):
        render(t, "html")


@pytest.mark.parametrize("command", ["compare", "profiles"])
def test_compare_and_profiles_one_row_per_system(
    command: str, two_systems: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    args = [command, "--annotations", str(FIVE / "annotations.json")]
    for path in two_systems:
        args += ["--results", str(path)]
    assert main([*args, "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["system"] for r in rows] == ["baseline", "worse"]
    key = "VQA accuracy" if command == "compare" else "official"
    assert round(float(rows[0][key]), 2) == 98.0 and float(rows[1][key]) == 0.0


def _mmbench_right_and_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, Path, Path]:
    """The 20 English samples with circular copies, and two systems: every answer right, every
    answer wrong."""
    samples = Path(__file__).resolve().parents[1] / "data" / "mmbench" / "mmbench_samples.tsv"
    data = tmp_path / "en.tsv"
    args = ["mmbench-circular", str(samples), str(data), "--select", "lang=en"]
    assert main([*args, "--select", "benchmark=MMBench"]) == 0
    capsys.readouterr()
    with data.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    right, wrong = tmp_path / "right.tsv", tmp_path / "wrong.tsv"
    for path, good in ((right, True), (wrong, False)):
        with path.open("w", encoding="utf-8") as f:
            f.write("index\tprediction\n")
            for r in rows:
                pick = r["answer"] if good else ("B" if r["answer"] == "A" else "A")
                f.write(f"{r['index']}\t{pick}\n")
    return data, right, wrong


def test_mmbench_two_systems_one_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, right, wrong = _mmbench_right_and_wrong(tmp_path, capsys)
    # --predictions (old spelling) and --results fill the same list
    cmd = ["mmbench", "--data", str(data), "--predictions", str(right), "--results", str(wrong)]
    assert main([*cmd, "--format", "csv"]) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    # every answer right / every answer wrong: 100% and 0%, Δ = wrong − right = −100% (20
    # groups); score mmbench's table is in the task's units, fractions
    assert [(r["system"], r["n"], float(r["Overall"])) for r in table] == [
        ("right", "20", 1.0),
        ("wrong", "20", 0.0),
    ]
    assert main([*cmd, "--format", "csv", "--by-ability"]) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    overall = {r["system"]: float(r["Overall"]) for r in table}
    assert overall == {"right": 100.0, "wrong": 0.0}


def test_score_single_file_ci(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "r.csv"
    f.write_text("index,prediction,answer\n1,a,a\n2,b,c\n3,c,c\n4,d,d\n", encoding="utf-8")
    assert main(["score", "ocrvqa", "--results", str(f), "--ci", "--format", "markdown"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "| system | n | Overall | 95% CI low | 95% CI high |"
    assert out[2].startswith("| r | 4 | 75.00 |")


def test_one_file_table_with_out(
    two_systems: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    args = ["vqa", "--annotations", str(FIVE / "annotations.json")]
    assert (
        main([*args, "--results", str(two_systems[0]), "--format", "csv", "--out", str(out)]) == 0
    )
    assert capsys.readouterr().out.splitlines()[1].startswith("baseline_run,5,97.9999")
    official = json.loads((FIVE / "official_accuracy.json").read_text())
    assert json.loads((out / "accuracy.json").read_text()) == official
    both = [*args, "--results", str(two_systems[0]), "--results", str(two_systems[1])]
    assert main([*both, "--out", str(out)]) == 2
    assert "give one --results" in capsys.readouterr().err


def test_mmbench_two_systems_delta(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, right, wrong = _mmbench_right_and_wrong(tmp_path, capsys)
    cmd = ["mmbench", "--data", str(data), "--results", str(right), "--results", str(wrong)]
    assert main([*cmd, "--format", "csv"]) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    # Δ = wrong − right = −100% of the 20 groups, in the table's units (fractions)
    assert float(table[1]["Δ (row − right)"]) == -1.0


def test_unpaired_systems_claim_no_bootstrap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """MMBench's headline is a fraction, not 100 × the mean of per-item scores: no paired test
    is run, so neither the notes nor the signature may speak of a paired bootstrap."""
    data, right, wrong = _mmbench_right_and_wrong(tmp_path, capsys)
    cmd = ["mmbench", "--data", str(data), "--results", str(right), "--results", str(wrong)]
    assert main([*cmd, "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "no paired interval or p-value" in out
    assert "Δ = system − right in points" not in out  # fractions, and no test to describe
    assert "bootstrap" not in out
    assert main([*cmd, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert "bootstrap" not in payload["signature"]
