"""The task core: joins, empty cells, errors that name the item, option checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from vqametrics import InputError
from vqametrics.cli import main
from vqametrics.readers.join import join_by_id
from vqametrics.readers.records import read_records
from vqametrics.tasks._run import evaluate_task


def test_one_id_written_two_ways_in_one_file_is_a_duplicate() -> None:
    with pytest.raises(InputError, match="duplicate prediction"):
        join_by_id([12], [12, "12"], ["a", "b"], source="r.json")
    joined = join_by_id([12], [12, "12"], ["a", "b"], source="r.json", on_duplicate="last")
    assert joined.predictions == ["b"] and joined.duplicates == 1


def test_ids_across_files_still_match_across_spellings() -> None:
    joined = join_by_id([12, 13], ["12", "13"], ["a", "b"], source="r.json")
    assert joined.predictions == ["a", "b"] and joined.id_type_fixed == 2
    with pytest.raises(InputError, match="unknown question id '012'"):
        join_by_id([12], ["012", 12], ["a", "b"], source="r.json")


def test_an_empty_cell_is_missing_in_csv_as_in_xlsx(tmp_path: Path) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    csv_file = tmp_path / "r.csv"
    csv_file.write_text("index,answer,prediction\n1,a,\n2,b,b\n", encoding="utf-8")
    xlsx_file = tmp_path / "r.xlsx"
    book = openpyxl.Workbook()
    sheet = book.active
    for row in (("index", "answer", "prediction"), (1, "a", None), (2, "b", "b")):
        sheet.append(row)
    book.save(xlsx_file)
    prediction = [[r["prediction"] for r in read_records(f).rows] for f in (csv_file, xlsx_file)]
    assert prediction == [[None, "b"], [None, "b"]]
    for f in (csv_file, xlsx_file):
        with pytest.raises(InputError, match="empty prediction"):
            evaluate_task("ocrvqa", f)
        r = evaluate_task("ocrvqa", f, allow_missing=True)
        assert r.scores == [0.0, 1.0] and r.data.n_missing == 1


def test_a_scoring_error_names_the_item(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # TextVQA's official scorer asserts ten answers; the message must say which question
    f = tmp_path / "ann.json"
    f.write_text(
        '{"data": [{"question_id": 7, "question": "q", "image_id": "i", "answers": ["a"]}]}',
        encoding="utf-8",
    )
    r = tmp_path / "res.json"
    r.write_text('[{"question_id": 7, "answer": "a"}]', encoding="utf-8")
    assert main(["score", "textvqa", "--annotations", str(f), "--results", str(r)]) == 2
    err = capsys.readouterr().err
    assert "7" in err and "10" in err and "Traceback" not in err


def test_digits_must_not_be_negative(tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    f.write_text("index,answer,prediction\n1,a,a\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["score", "ocrvqa", "--results", str(f), "--digits", "-1"])
    assert exc.value.code == 2


def test_ignored_questions_are_said(tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    f.write_text("index,answer,prediction\n1,a,a\n", encoding="utf-8")
    r = evaluate_task("ocrvqa", f, questions=str(f))
    assert any("--questions ignored" in n for n in r.notes)


def test_no_id_in_common_says_so() -> None:
    with pytest.raises(InputError, match="none of its 2 question ids is in the ground truth"):
        join_by_id([1, 2, 3], ["a", "b"], ["x", "y"], source="r.json", allow_missing=True)


def test_a_missing_prediction_names_the_unknown_one_beside_it() -> None:
    # image 1 (an int where a file name belongs) is the missing image misspelled: say both
    with pytest.raises(InputError) as caught:
        join_by_id(
            ["a.jpg", "b.jpg"],
            [1, "b.jpg"],
            ["x", "y"],
            source="r.json",
            wheres=["r.json: item 1", "r.json: item 2"],
            what="image",
        )
    said = str(caught.value)  # the hint names --allow-missing or allow_missing=True
    assert said.startswith("r.json: no prediction for image 'a.jpg' (pass ")
    assert said.endswith("; 1 prediction names an unknown image (first 1, at r.json: item 1)")
    with pytest.raises(InputError, match=r"score them 0\)$"):  # nothing unknown: nothing said
        join_by_id(["a.jpg", "b.jpg"], ["b.jpg"], ["y"], source="r.json", what="image")


def test_a_null_answer_is_missing_not_a_silent_zero(tmp_path: Path) -> None:
    ann = tmp_path / "ann.json"
    ann.write_text(
        '{"data": [{"question_id": 7, "question": "q", "image_id": "i", "answers": '
        + str(["a"] * 10).replace("'", '"')
        + "}]}",
        encoding="utf-8",
    )
    res = tmp_path / "res.json"
    res.write_text('[{"question_id": 7, "answer": null}]', encoding="utf-8")
    with pytest.raises(InputError, match="empty or null"):
        evaluate_task("textvqa", res, annotations=ann)
    r = evaluate_task("textvqa", res, annotations=ann, allow_missing=True)
    assert r.scores == [0.0] and r.data.n_missing == 1


SHEET = (
    "index,question,answer,prediction,split,category\n"
    "1,q,12,12,test_human,X\n2,q,Yes,No,test_human,X\n"
)
POPE_SHEET = "index,question,answer,prediction,category\n1,q,Yes,Yes,random\n2,q,No,Yes,random\n"


@pytest.mark.parametrize(
    ("task", "content", "suffix"),
    [
        ("ocrvqa", SHEET, ".csv"),
        ("chartqa", SHEET, ".csv"),
        ("pope", POPE_SHEET, ".csv"),
        (
            "mme",
            "index,question,answer,prediction,category,image_path\n"
            "1,q,Yes,Yes,count,a.jpg\n2,q,No,Yes,count,a.jpg\n",
            ".csv",
        ),
    ],
)
def test_standard_input_scores_like_the_file(
    tmp_path: Path, task: str, content: str, suffix: str
) -> None:
    # standard input can be read once: every reader must take the rows it already read
    import json
    import subprocess
    import sys

    f = tmp_path / f"r{suffix}"
    f.write_text(content, encoding="utf-8")
    base = [sys.executable, "-m", "vqametrics", "score", task, "--json", "--results"]
    by_path = subprocess.run([*base, str(f)], capture_output=True, text=True, check=True)
    with open(f, "rb") as fh:
        by_pipe = subprocess.run([*base, "-"], stdin=fh, capture_output=True, text=True)
    assert by_pipe.returncode == 0, by_pipe.stderr
    assert json.loads(by_pipe.stdout)["metrics"] == json.loads(by_path.stdout)["metrics"]
