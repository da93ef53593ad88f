"""Prediction formats (TSV, CSV, XLSX, JSONL), the reference-compatible reading of empty cells,
the random fallback and the judge hook through evaluate_mmbench."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from vqametrics import evaluate_mmbench
from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.mmbench import (
    MMBenchRow,
    list_extractors,
    load_mmbench_tsv,
    load_predictions,
)

HEADER = "index\tquestion\thint\tA\tB\tC\tD\tanswer\tcategory\tl2-category\tsplit\n"
# Question 1: 2 options, answer A; its copy has the options swapped, answer B.
DATA = (
    "1\tWhat?\t\tred\tgreen\t\t\tA\tc1\tcoarse_perception\tdev\n"
    "1000001\tWhat?\t\tgreen\tred\t\t\tB\tc1\tcoarse_perception\tdev\n"
)
PREDS = {1: "A", 1000001: "(B)"}


@pytest.fixture
def data_path(tmp_path: Path) -> Path:
    p = tmp_path / "data.tsv"
    p.write_text(HEADER + DATA, encoding="utf-8")
    return p


def test_tsv_csv_jsonl_xlsx_read_the_same(tmp_path: Path) -> None:
    import openpyxl

    (tmp_path / "p.tsv").write_text("index\tprediction\n1\tA\n1000001\t(B)\n", encoding="utf-8")
    (tmp_path / "p.csv").write_text('index,prediction,extra\n1,A,x\n1000001,"(B)",y\n', "utf-8")
    (tmp_path / "p.jsonl").write_text(
        '{"index": 1, "prediction": "A"}\n{"index": "1000001", "prediction": "(B)"}\n', "utf-8"
    )
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["index", "question", "prediction"])
    sheet.append([1, "What?", "A"])
    sheet.append([1000001.0, "What?", "(B)"])  # pandas-written files may hold float indices
    book.save(tmp_path / "p.xlsx")
    for name in ("p.tsv", "p.csv", "p.jsonl", "p.xlsx"):
        assert dict(load_predictions(tmp_path / name).values) == PREDS, name


def test_empty_cells_read_as_none_and_numbers_as_text(tmp_path: Path) -> None:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["index", "prediction"])
    sheet.append([1, None])
    sheet.append([2, 3])
    book.save(tmp_path / "p.xlsx")
    assert dict(load_predictions(tmp_path / "p.xlsx").values) == {1: None, 2: "3"}
    (tmp_path / "p.tsv").write_text("index\tprediction\n1\t\n2\t3\n", encoding="utf-8")
    assert dict(load_predictions(tmp_path / "p.tsv").values) == {1: None, 2: "3"}
    (tmp_path / "p.jsonl").write_text(
        '{"index": 1, "prediction": null}\n{"index": 2, "prediction": "3"}\n', "utf-8"
    )
    assert dict(load_predictions(tmp_path / "p.jsonl").values) == {1: None, 2: "3"}
    # JSON says what a value is: its number 3 is not the answer text "3" (issue 22)
    (tmp_path / "n.jsonl").write_text('{"index": 2, "prediction": 3}\n', "utf-8")
    with pytest.raises(InputError, match=r"n\.jsonl: line 1: 'prediction' is int 3"):
        load_predictions(tmp_path / "n.jsonl")


def test_data_loader_fields(data_path: Path) -> None:
    data = load_mmbench_tsv(data_path)
    assert data.source == str(data_path)
    row = data.rows[1]
    assert (row.index, row.g_index, row.pass_number) == (1000001, 1, 1)
    assert dict(row.options) == {"A": "green", "B": "red"}  # empty C/D are not options
    assert (row.answer, row.category, row.l2_category, row.split) == (
        "B",
        "c1",
        "coarse_perception",
        "dev",
    )
    assert row.n_columns == 4
    assert row.line == 3


def test_empty_prediction_reads_nan_only_in_reference_mode() -> None:
    # spec §2: the reference str()s a NaN cell to "nan", which the text stage matches against
    # any option whose lower-cased text is a substring of "nan" (here "NaN"; spec §3.2 says
    # "banana", but the substring test runs the other way: option text in answer). Strict
    # mode reads an empty cell as "".
    rows = [
        MMBenchRow(1, {"A": "NaN", "B": "0.0"}, "A"),
        MMBenchRow(1000001, {"A": "0.0", "B": "NaN"}, "B"),
    ]
    preds: dict[int, str | None] = {1: None, 1000001: "B"}
    ref = evaluate_mmbench(rows, preds, reference_compatible=True)
    strict = evaluate_mmbench(rows, preds)
    assert ref.questions[0].passes[0].prediction is None
    assert (ref.questions[0].passes[0].letter, ref.questions[0].passes[0].stage) == (
        "A",
        "option_text",
    )
    assert ref.score == 1.0
    assert strict.questions[0].passes[0].letter is None
    assert strict.score == 0.0 and strict.counts["unparsed"] == 1


def test_vanilla_strict_and_reference_missing_rows() -> None:
    rows = [
        MMBenchRow(1, {"A": "x", "B": "y"}, "A"),
        MMBenchRow(1000001, {"A": "y", "B": "x"}, "B"),
        MMBenchRow(2, {"A": "x", "B": "y"}, "B"),
        MMBenchRow(1000002, {"A": "y", "B": "x"}, "A"),
    ]
    preds = {1: "A", 1000001: "B", 2: "B"}  # row 1000002 has no prediction
    strict = evaluate_mmbench(rows, preds, mode="vanilla")
    ref = evaluate_mmbench(rows, preds, mode="vanilla", reference_compatible=True)
    # strict: pass-0 2/2; all rows 3/4 (the missing row is a miss); reference: all rows 3/3.
    assert strict.score == 1.0
    assert strict.tables["vanilla_all"][0]["Overall"] == 0.75
    assert strict.counts["incomplete"] == 1
    assert ref.tables["vanilla_all"][0]["Overall"] == 1.0
    assert ref.table_counts["vanilla_all"][0]["Overall"] == 3


def test_random_fallback_is_seeded_and_recorded() -> None:
    rows = [MMBenchRow(i, {"A": "x", "B": "y"}, "A") for i in range(40)]
    preds = dict.fromkeys(range(40), "no idea")
    a = evaluate_mmbench(rows, preds, mode="vanilla", random_fallback=7)
    b = evaluate_mmbench(rows, preds, mode="vanilla", random_fallback=7)
    assert [q.passes[0].letter for q in a.questions] == [q.passes[0].letter for q in b.questions]
    assert {q.passes[0].letter for q in a.questions} <= {"A", "B", "Z"}
    assert a.counts["random"] == 40 and a.counts["unparsed"] == 0
    assert "|random:7|" in a.signature
    none = evaluate_mmbench(rows, preds, mode="vanilla")
    assert none.score == 0.0 and none.counts["unparsed"] == 40 and none.counts["random"] == 0


def test_judge_through_evaluate_counts_calls() -> None:
    rows = [
        MMBenchRow(3, {"A": "cat", "B": "dog"}, "A", question="Which pet?"),
        MMBenchRow(1000003, {"A": "dog", "B": "cat"}, "B", question="Which pet?"),
    ]
    replies = iter(["Failed to obtain answer via API", "B"])
    prompts: list[str] = []

    def judge(prompt: str) -> str:
        prompts.append(prompt)
        return next(replies)

    res = evaluate_mmbench(rows, {3: "A", 1000003: "the furry one"}, judge=judge, judge_name="fake")
    assert res.score == 1.0
    assert (res.counts["judged"], res.counts["judge_calls"]) == (1, 2)
    assert res.questions[0].passes[1].stage == "judge"
    assert "|judge:fake|" in res.signature
    assert "B. cat" in prompts[0]


def test_cli_vanilla_json_and_extractor(
    data_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    preds = tmp_path / "p.jsonl"
    preds.write_text(
        '{"index": 1, "prediction": "[A]"}\n{"index": 1000001, "prediction": "B"}\n', "utf-8"
    )
    args = ["mmbench", "--data", str(data_path), "--predictions", str(preds), "--json"]
    assert main([*args, "--mode", "vanilla"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["headline"] == "Overall" and "|mode:vanilla|" in report["signature"]
    assert report["metrics"]["Overall"] == 1.0  # VanillaEval: the pass-0 rows
    # every row counted as its own question: the API's vanilla_all table (not in the document)
    api = evaluate_mmbench(load_mmbench_tsv(data_path), load_predictions(preds), mode="vanilla")
    assert api.tables["vanilla_all"][0]["Overall"] == 1.0
    # gen1 does not strip brackets: "[A]" is unparsed there (spec §3.2).
    assert main([*args, "--extractor", "lmms-eval"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["metrics"]["Overall"] == 0.0 and report["metrics"]["unparsed"] == 1
    assert report["signature"].startswith(
        "mmbench|profile:lmms-eval|mode:circular|extractor:lmms-eval|strict:yes"
    )
    assert main([*args, "--reference-compatible"]) == 0
    assert "|strict:no|" in json.loads(capsys.readouterr().out)["signature"]


def test_cli_extractor_choices_match_registry() -> None:
    from vqametrics.cli import mmbench as cli_mmbench

    assert tuple(e.name for e in list_extractors()) == cli_mmbench._EXTRACTORS


@pytest.mark.parametrize("fmt", ["markdown", "csv"])
def test_cli_table_counts_are_integers(
    data_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    """The table's count columns (unparsed and judged items) are numbers of items: printed as
    integers, never with the accuracy's decimals."""
    preds = tmp_path / "p.tsv"
    preds.write_text("index\tprediction\n1\tA\n1000001\tno idea\n", encoding="utf-8")
    cmd = ["mmbench", "--data", str(data_path), "--results", str(preds), "--format", fmt]
    assert main(cmd) == 0
    out = capsys.readouterr().out
    if fmt == "csv":
        row = next(csv.DictReader(io.StringIO(out)))
    else:  # the header, the rule, then the row
        header, _, first = (line.strip("|").split("|") for line in out.splitlines()[:3])
        row = dict(zip((h.strip() for h in header), (c.strip() for c in first), strict=True))
    # question 1's copy is unparsed (one item), nothing went to a judge
    assert (row["n"], row["unparsed"], row["judged"]) == ("1", "1", "0")
