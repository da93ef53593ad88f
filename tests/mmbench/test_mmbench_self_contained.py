"""``vqametrics mmbench`` on a VLMEvalKit sheet alone: the sheet is its own benchmark, and the
``_acc.csv`` beside it is set against our numbers. Expected values derived by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vqametrics.cli import main

HEADER = "index\tquestion\tA\tB\tanswer\tcategory\tprediction\n"
# two 2-option questions, both copies each; q1 right on both copies (hit), q2 wrong on copy 1
ROWS = (
    "1\tYes?\tyes\tno\tA\tc1\tA\n"
    "1000001\tYes?\tno\tyes\tB\tc1\tB\n"
    "2\tNo?\tyes\tno\tB\tc2\tB\n"
    "1000002\tNo?\tno\tyes\tA\tc2\tB\n"
)


@pytest.fixture
def sheet(tmp_path: Path) -> Path:
    path = tmp_path / "m_MMBench_DEV_EN.tsv"
    path.write_text(HEADER + ROWS, encoding="utf-8")
    return path


def test_sheet_alone_scores_like_sheet_as_data(
    sheet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["mmbench", "--results", str(sheet), "--json"]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert main(["mmbench", "--data", str(sheet), "--results", str(sheet), "--json"]) == 0
    both = json.loads(capsys.readouterr().out)
    assert alone["metrics"]["Overall"] == both["metrics"]["Overall"] == 0.5  # 1 of 2 questions
    assert "reported" not in alone
    assert alone["n"] == 2


def test_reported_acc_csv_beside_the_sheet(sheet: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (sheet.parent / "m_MMBench_DEV_EN_acc.csv").write_text(
        '"split","Overall","c1","c2"\n"none","0.75","1.0","0.5"\n'
    )
    assert main(["mmbench", "--results", str(sheet), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rep = doc["reported"]
    assert rep["toolkit"] == "VLMEvalKit"
    assert rep["values"]["all"] == {"split": "none", "Overall": 0.75, "c1": 1.0, "c2": 0.5}
    assert doc["metrics"]["Overall"] == 0.5  # recomputed: 1 of 2 questions
    cats = doc["breakdowns"]["category"]  # c1: 1 of 1; c2: 0 of 1 vs 0.5 reported
    assert (cats["c1"]["accuracy"], cats["c2"]["accuracy"]) == (1.0, 0.0)
    assert main(["mmbench", "--results", str(sheet)]) == 0
    text = capsys.readouterr().out
    rows = {ln.split()[0]: ln.split()[1:] for ln in text.splitlines() if ln.split()}
    assert "reported by VLMEvalKit (" in text and "m_MMBench_DEV_EN_acc.csv)" in text
    assert rows["Overall"][-3:] == ["0.7500", "0.5000", "-0.2500"]
    assert rows["c1"][-1] == "0" and rows["c2"][-1] == "-0.5000"
    assert "the numbers differ" in text and "--profile vlmevalkit-2024" in text
    assert text.rstrip().splitlines()[-1].startswith("mmbench|profile:vlmevalkit|")


def test_given_reported_file_is_used(
    sheet: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "elsewhere_acc.csv"
    other.write_text('"split","Overall"\n"none","0.5"\n')
    assert main(["mmbench", "--results", str(sheet), "--reported", str(other)]) == 0
    text = capsys.readouterr().out
    assert "elsewhere_acc.csv" in text and "the numbers differ" not in text


def test_results_without_benchmark_need_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    preds = tmp_path / "preds.jsonl"
    preds.write_text(json.dumps({"index": 1, "prediction": "A"}) + "\n")
    assert main(["mmbench", "--results", str(preds)]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        "\n" not in err
        and "--annotations (the benchmark TSV) is required" in err
        and "preds.jsonl" in err
    )


def _lmms_rows(with_doc: bool) -> list[dict[str, object]]:
    """The four rows above as an lmms-eval mmbench_en_dev --log_samples file: the dataset row
    in ``doc`` (``L2-category`` as lmms-lab/MMBench spells it), the answer in
    ``filtered_resps``, and the per-sample ``gpt_eval_score`` record mmbench_process_results
    logs (index, question, answer, prediction, options; lmms-eval@75571cf en_utils.py)."""
    out: list[dict[str, object]] = []
    for i, line in enumerate(ROWS.splitlines()):
        index, question, a, b, answer, category, prediction = line.split("\t")
        doc = {"index": int(index), "question": question, "hint": "nan", "A": a, "B": b}
        doc |= {"answer": answer, "category": category, "L2-category": "l2", "split": "dev"}
        record: dict[str, object] = {"doc_id": i, "target": answer}
        if with_doc:
            record["doc"] = doc
        record["filtered_resps"] = [f" {prediction}\n"]
        record["gpt_eval_score"] = {**doc, "prediction": prediction, "C": "nan", "D": "nan"}
        out.append(record)
    return out


@pytest.mark.parametrize("with_doc", [True, False])
def test_lmms_eval_log_carries_the_benchmark(
    with_doc: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 11: the lmms-eval layout is read by mmbench too; the log carries the benchmark
    # (in doc, and in the logged gpt_eval_score record when doc is not logged): 1 of 2 hits
    path = tmp_path / "x_samples_mmbench_en_dev.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _lmms_rows(with_doc)))
    assert main(["mmbench", "--results", str(path), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["metrics"]["Overall"] == 0.5
