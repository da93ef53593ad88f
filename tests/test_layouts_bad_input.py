"""Bad results files in any layout: one clear line naming the file and row, exit 2, no score."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from vqametrics.cli import main

ANN_ROWS = [
    {"question_id": 1, "answers": ["yes"] * 10},
    {"question_id": 2, "answers": ["two"] * 9 + ["2"]},
]


@pytest.fixture
def ann(tmp_path: Path) -> str:
    path = tmp_path / "ann.json"
    path.write_text(json.dumps(ANN_ROWS))
    return str(path)


def _error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""  # nothing half-scored
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_unrecognized_columns_name_every_layout_tried(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]
) -> None:
    res = _write(tmp_path, "r.csv", "qid,response\n1,yes\n2,two\n")
    err = _error(capsys, ["vqa", "--annotations", ann, "--results", res])
    assert "r.csv: layout not recognized: its csv rows have the fields qid, response" in err
    for layout in ("vlmevalkit (no 'index'/'prediction')", "official (no 'question_id'/'answer')"):
        assert layout in err
    assert "lmms-eval-samples" in err and "llava-answers" in err
    assert "--id-field and --answer-field" in err
    # naming the columns makes the same file score
    assert (
        main(
            [
                "vqa",
                "--annotations",
                ann,
                "--results",
                res,
                "--id-field",
                "qid",
                "--answer-field",
                "response",
            ]
        )
        == 0
    )


def test_spreadsheet_named_json_is_not_invalid_json(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]
) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    book.active.append(["question_id", "answer"])
    book.active.append([1, "yes"])
    book.active.append([2, "two"])
    path = tmp_path / "r.json"
    book.save(path)
    assert main(["vqa", "--annotations", ann, "--results", str(path)]) == 0
    assert "official (xlsx)" in capsys.readouterr().out


def test_record_without_answer_lists_its_fields(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [{"question_id": 1, "answer": "yes"}, {"question_id": 2, "output": "two"}]
    res = _write(tmp_path, "r.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    err = _error(capsys, ["vqa", "--annotations", ann, "--results", res])
    assert "question 2: prediction has no 'answer' (fields: question_id, output)" in err
    assert "--answer-field" in err


def test_vlmevalkit_answer_cell_not_a_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    res = _write(
        tmp_path,
        "m_VQA.tsv",
        "index\tquestion\tanswer\tprediction\n1\tq\t['yes', 'yes'\tyes\n",
    )
    err = _error(capsys, ["vqa", "--results", res])
    assert "m_VQA.tsv: row 2: answer cell is not a valid list literal" in err


def test_vlmevalkit_duplicate_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    res = _write(
        tmp_path,
        "m_VQA.csv",
        "index,question,answer,prediction\n1,q,\"['yes']\",yes\n1,q,\"['yes']\",no\n",
    )
    err = _error(capsys, ["vqa", "--results", res])
    assert "m_VQA.csv" in err and "duplicate question id" in err


def test_ids_in_one_file_and_not_the_other(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = _write(tmp_path, "extra.csv", "question_id,answer\n1,yes\n2,two\n3,no\n")
    err = _error(capsys, ["vqa", "--annotations", ann, "--results", extra])
    assert "extra.csv: question 3: prediction for a question that is not in" in err
    missing = _write(tmp_path, "missing.csv", "question_id,answer\n1,yes\n")
    err = _error(capsys, ["vqa", "--annotations", ann, "--results", missing])
    assert "missing.csv: question 2: no prediction" in err


def test_truncated_csv_row(tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]) -> None:
    res = _write(tmp_path, "r.csv", "question_id,answer\n1,yes\n2\n")
    err = _error(capsys, ["vqa", "--annotations", ann, "--results", res])
    assert "r.csv: row 3 has 1 cell(s) but the header has 2 (a truncated file?)" in err


def test_gzip_that_is_not_gzip(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]
) -> None:
    res = _write(tmp_path, "r.json.gz", '[{"question_id": 1, "answer": "yes"}]')
    err = _error(capsys, ["vqa", "--annotations", ann, "--results", res])
    assert "r.json.gz: named .gz but is not gzip-compressed" in err
    broken = tmp_path / "b.json.gz"
    broken.write_bytes(gzip.compress(b'[{"question_id": 1, "answer": "yes"}]')[:20])
    err = _error(capsys, ["vqa", "--annotations", ann, "--results", str(broken)])
    assert "b.json.gz: not a valid gzip stream" in err


def test_lmms_eval_doc_id_out_of_range(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [{"doc_id": 0, "filtered_resps": ["yes"]}, {"doc_id": 5, "filtered_resps": ["two"]}]
    res = _write(tmp_path, "s.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    err = _error(capsys, ["vqa", "--annotations", ann, "--results", res])
    assert "s.jsonl: sample 2: doc_id 5 is not a position in the 2 annotated questions" in err


def test_plain_text_names_the_option_that_forces_the_format(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # --format is the OUTPUT format; the option that says how to read a file is --input-format
    res = _write(tmp_path, "preds.txt", "yes\ntwo\n")
    err = _error(capsys, ["vqa", "--annotations", ann, "--results", res])
    assert err.startswith("vqametrics: error: ") and "preds.txt: layout not recognized" in err
    assert "--input-format" in err
    assert "--format " not in err.replace("--input-format", "")
    # a Python caller reads the keyword argument instead
    import vqametrics
    from vqametrics.core.exceptions import InputError

    with pytest.raises(InputError, match="input_format="):
        vqametrics.evaluate_vqa(ann, res)


def test_several_results_keep_each_files_notes(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 11: a log without doc is joined BY POSITION "and say so" -- also when it is the
    # second of several --results (the notes of every file, named, under the one table)
    off = _write(
        tmp_path,
        "off.json",
        '[{"question_id": 1, "answer": "yes"}, {"question_id": 2, "answer": "two"}]',
    )
    rows = [{"doc_id": 0, "filtered_resps": ["yes"]}, {"doc_id": 1, "filtered_resps": ["2"]}]
    log = _write(tmp_path, "s.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    assert main(["vqa", "--annotations", ann, "--results", off, "--results", log]) == 0
    out = capsys.readouterr().out
    assert "s: " in out and "BY POSITION" in out
    assert main(["vqa", "--annotations", ann, "--results", off, "--results", log, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert any("BY POSITION" in n for n in payload["systems"][1]["notes"])


def test_several_self_contained_results_report_ground_truth_disagreements(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # without --annotations the first sheet's ground truth is used for all: a second sheet
    # whose ground truth differs is said, never silently overridden
    pytest.importorskip("openpyxl")
    import openpyxl

    def sheet(name: str, second_answers: str) -> str:
        book = openpyxl.Workbook()
        ws = book.active
        ws.append(["index", "question", "answer", "prediction"])
        ws.append([1, "q", str(["yes"] * 10), "yes"])
        ws.append([2, "q", second_answers, "two"])
        book.save(tmp_path / name)
        return str(tmp_path / name)

    a = sheet("a_VQAv2.xlsx", str(["two"] * 10))
    b = sheet("b_VQAv2.xlsx", str(["three"] * 10))
    assert main(["vqa", "--results", a, "--results", b]) == 0
    out = capsys.readouterr().out
    assert "b: " in out and "differ from" in out and "a_VQAv2.xlsx" in out


@pytest.mark.parametrize(
    ("name", "profile", "hint"),
    [
        ("m_VQAv2_VAL", "official", "--profile vlmevalkit"),
        ("m_VQAv2_VAL", "vlmevalkit", None),
        ("m_TextVQA_VAL", "official", "vqametrics score textvqa"),
    ],
)
def test_reported_numbers_that_differ_say_what_to_try(
    name: str, profile: str, hint: str | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "why does my number not match": 'yes.' against ten 'yes' scores 0 officially (the
    # unanimity rule skips normalization) and 100 under VLMEvalKit (punctuation stripped);
    # VLMEvalKit reported 100 (for TextVQA it reports 100 too, while vqa's VQA v2 rule gives
    # something else: its own TextVQA scorer is score textvqa)
    pytest.importorskip("openpyxl")
    import openpyxl

    book = openpyxl.Workbook()
    ws = book.active
    ws.append(["index", "question", "answer", "prediction"])
    ws.append([1, "q", str(["yes"] * 10), "yes."])
    book.save(tmp_path / f"{name}.xlsx")
    (tmp_path / f"{name}_acc.csv").write_text('"Overall"\n"100.0"\n')
    args = ["vqa", "--results", str(tmp_path / f"{name}.xlsx"), "--profile", profile]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "reported by VLMEvalKit" in out
    if hint is None:
        assert "the numbers differ" not in out
    else:
        assert "the numbers differ" in out and hint in out


def test_several_results_show_each_files_reported_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a sheet whose _acc.csv sits beside it keeps "reported vs recomputed" in a several-file
    # table too. Hand-derived: 'yes' against ten 'yes' scores 100; VLMEvalKit reported 100
    pytest.importorskip("openpyxl")
    import openpyxl

    for name in ("a_VQAv2", "b_VQAv2"):
        book = openpyxl.Workbook()
        ws = book.active
        ws.append(["index", "question", "answer", "prediction"])
        ws.append([1, "q", str(["yes"] * 10), "yes"])
        book.save(tmp_path / f"{name}.xlsx")
    (tmp_path / "b_VQAv2_acc.csv").write_text('"Overall"\n"100.0"\n')
    args = ["vqa", "--results", str(tmp_path / "a_VQAv2.xlsx")]
    assert main([*args, "--results", str(tmp_path / "b_VQAv2.xlsx")]) == 0
    out = capsys.readouterr().out
    assert "\nb: reported by VLMEvalKit" in out
    assert "vs recomputed (%): Overall 100 vs 100; 1 of 1 number(s) equal to the last bit" in out
    assert "\na: reported" not in out
