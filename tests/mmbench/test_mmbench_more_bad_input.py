"""More bad MMBench input: each gives one line naming the file and the line, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from vqametrics.cli import main

HEADER = "index\tquestion\tA\tB\tC\tD\tanswer\tcategory\tl2-category\tsplit\n"


def _err(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_circular_gap_in_options_names_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "plain.tsv"
    src.write_text(HEADER + "5\tq?\tx\ty\t\tz\tA\tc\tl\tdev\n")
    assert main(["mmbench-circular", str(src), str(tmp_path / "out.tsv")]) == 2
    assert _err(capsys) == (
        f"vqametrics: error: {src}: line 2 (index 5): option letters must run from A without "
        "gaps, got ['A', 'B', 'D']"
    )


def test_circular_accepts_an_integral_float_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "plain.tsv"
    src.write_text(HEADER + "7.0\tq?\tx\ty\t\t\tB\tc\tl\tdev\n")
    out = tmp_path / "out.tsv"
    assert main(["mmbench-circular", str(src), str(out)]) == 0
    rows = out.read_text().splitlines()[1:]
    # two options: two copies, 7 and 1000007; the answer B moves to A in copy 1
    assert [r.split("\t")[0] for r in rows] == ["7", "1000007"]
    assert [r.split("\t")[6] for r in rows] == ["B", "A"]


def test_jsonl_prediction_must_be_a_scalar(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data.tsv"
    data.write_text(HEADER + "1\tq?\tx\ty\t\t\tA\tc\tl\tdev\n1000001\tq?\ty\tx\t\t\tB\tc\tl\tdev\n")
    preds = tmp_path / "p.jsonl"
    preds.write_text('{"index": 1, "prediction": {"x": 1}}\n')
    assert main(["mmbench", "--data", str(data), "--predictions", str(preds)]) == 2
    assert _err(capsys) == (
        f"vqametrics: error: {preds}: line 1: field 'prediction' must be a string, a number or "
        "null, got a JSON object"
    )


def test_out_is_an_existing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data.tsv"
    data.write_text(HEADER + "1\tq?\tx\ty\t\t\tA\tc\tl\tdev\n1000001\tq?\ty\tx\t\t\tB\tc\tl\tdev\n")
    preds = tmp_path / "p.jsonl"
    preds.write_text('{"index": 1, "prediction": "A"}\n{"index": 1000001, "prediction": "B"}\n')
    blocker = tmp_path / "out"
    blocker.write_text("")
    args = ["mmbench", "--data", str(data), "--predictions", str(preds), "--out", str(blocker)]
    assert main(args) == 2
    assert _err(capsys).strip().endswith(f"--out {blocker}: exists and is not a directory")
