"""Bad input gets one clear line naming the file and the question id or line, and exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vqametrics.cli import main

ANN = {
    "annotations": [
        {
            "question_id": qid,
            "question_type": "what",
            "answer_type": "other",
            "answers": [
                {"answer": a, "answer_id": i + 1} for i, a in enumerate(["cat"] * 6 + ["dog"] * 4)
            ],
        }
        for qid in (1000, 1001)
    ]
}


def write(tmp: Path, name: str, obj: object) -> str:
    path = tmp / name
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["vqa", *args])
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.startswith("vqametrics: error:")]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture
def ann(tmp_path: Path) -> str:
    return write(tmp_path, "ann.json", ANN)


def test_valid_input_scores(tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]) -> None:
    res = write(
        tmp_path,
        "res.json",
        [{"question_id": 1000, "answer": "cat"}, {"question_id": 1001, "answer": "dog"}],
    )
    code, out, _ = run(capsys, "--annotations", ann, "--results", res, "--json")
    assert code == 0
    assert round(json.loads(out)["metrics"]["overall"], 2) == 100.0


def test_invalid_json_names_line_and_column(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]
) -> None:
    res = write(
        tmp_path,
        "res.json",
        '[\n  {"question_id": 1000, "answer": "cat"},\n  {"question_id": 1001 "answer": "dog"}\n]',
    )
    code, _, err = run(capsys, "--annotations", ann, "--results", res)
    assert code == 2
    line = one_error_line(err)
    assert "res.json" in line and "invalid JSON at line 3, column" in line


def test_invalid_jsonl_names_the_line(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]
) -> None:
    res = write(
        tmp_path,
        "res.jsonl",
        '{"question_id": 1000, "answer": "cat"}\n{"question_id": 1001, "answer": }\n',
    )
    code, _, err = run(capsys, "--annotations", ann, "--results", res)
    assert code == 2
    assert "res.jsonl: line 2: invalid JSON" in one_error_line(err)


def test_jsonl_results_are_accepted(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]
) -> None:
    res = write(
        tmp_path,
        "res.jsonl",
        '{"question_id": 1000, "answer": "cat"}\n\n{"question_id": 1001, "answer": "cat"}\n',
    )
    code, out, _ = run(capsys, "--annotations", ann, "--results", res, "--json")
    assert code == 0
    # q1000: cat x6 -> 1.0; q1001: cat x6 -> 1.0
    assert round(json.loads(out)["metrics"]["overall"], 2) == 100.0


def test_mapping_results_are_accepted(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]
) -> None:
    res = write(tmp_path, "res.json", {"1000": "dog", "1001": "cat"})
    code, out, _ = run(capsys, "--annotations", ann, "--results", res, "--json")
    assert code == 0
    assert round(json.loads(out)["metrics"]["overall"], 2) == 100.0


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ("42", "expected a list of {question_id, answer}"),
        ('"text"', "got a JSON str"),
    ],
)
def test_wrong_top_level_shape(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str], obj: str, message: str
) -> None:
    res = write(tmp_path, "res.json", obj)
    code, _, err = run(capsys, "--annotations", ann, "--results", res)
    assert code == 2
    assert message in one_error_line(err)


def test_wrong_annotations_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path, "ann.json", {"questions": []})
    res = write(tmp_path, "res.json", [])
    code, _, err = run(capsys, "--annotations", bad, "--results", res)
    assert code == 2
    assert "ann.json: expected the official layout with an 'annotations' list" in one_error_line(
        err
    )


def test_missing_prediction_errors_then_allow_missing(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]
) -> None:
    res = write(tmp_path, "res.json", [{"question_id": 1000, "answer": "cat"}])
    code, _, err = run(capsys, "--annotations", ann, "--results", res)
    assert code == 2
    line = one_error_line(err)
    assert "question 1001: no prediction (1 of 2 question(s) missing)" in line
    assert "--allow-missing" in line
    code, out, _ = run(capsys, "--annotations", ann, "--results", res, "--allow-missing", "--json")
    assert code == 0
    payload = json.loads(out)
    assert round(payload["metrics"]["overall"], 2) == 50.0  # (1.0 + 0) / 2
    assert payload["n_missing"] == 1
    assert "missing:1" in payload["signature"]


def test_unknown_question_errors_then_ignore_extra(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]
) -> None:
    res = write(
        tmp_path,
        "res.json",
        [
            {"question_id": 1000, "answer": "cat"},
            {"question_id": 1001, "answer": "cat"},
            {"question_id": 5, "answer": "x"},
        ],
    )
    code, _, err = run(capsys, "--annotations", ann, "--results", res)
    assert code == 2
    assert "question 5: prediction for a question that is not in" in one_error_line(err)
    code, out, _ = run(capsys, "--annotations", ann, "--results", res, "--ignore-extra", "--json")
    assert code == 0
    assert json.loads(out)["n_extra_ignored"] == 1


def test_duplicate_prediction_errors_then_last_wins(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]
) -> None:
    res = write(
        tmp_path,
        "res.json",
        [
            {"question_id": 1000, "answer": "cat"},
            {"question_id": 1001, "answer": "cat"},
            {"question_id": 1000, "answer": "bird"},
        ],
    )
    code, _, err = run(capsys, "--annotations", ann, "--results", res)
    assert code == 2
    assert "question 1000: duplicate prediction" in one_error_line(err)
    code, out, _ = run(
        capsys, "--annotations", ann, "--results", res, "--on-duplicate", "last", "--json"
    )
    assert code == 0
    # the script keeps the last: q1000 `bird` -> 0, q1001 `cat` -> 1
    assert round(json.loads(out)["metrics"]["overall"], 2) == 50.0


def test_duplicate_question_in_annotations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dup = {"annotations": ANN["annotations"] + ANN["annotations"][:1]}
    a = write(tmp_path, "ann.json", dup)
    res = write(tmp_path, "res.json", {"1000": "cat", "1001": "cat"})
    code, _, err = run(capsys, "--annotations", a, "--results", res)
    assert code == 2
    assert "ann.json: question 1000: duplicate question id" in one_error_line(err)


def test_string_ids_are_matched_with_a_warning(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]
) -> None:
    res = write(
        tmp_path,
        "res.json",
        [{"question_id": "1000", "answer": "cat"}, {"question_id": "1001", "answer": "cat"}],
    )
    code, out, err = run(capsys, "--annotations", ann, "--results", res, "--json")
    assert code == 0
    assert round(json.loads(out)["metrics"]["overall"], 2) == 100.0
    assert "vqametrics: warning: 2 question id(s) are spelled differently" in err


@pytest.mark.parametrize("answer", [7, None, ["cat"]])
def test_non_string_prediction(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str], answer: object
) -> None:
    res = write(
        tmp_path,
        "res.json",
        [{"question_id": 1000, "answer": answer}, {"question_id": 1001, "answer": "cat"}],
    )
    code, _, err = run(capsys, "--annotations", ann, "--results", res)
    assert code == 2
    assert "res.json: question 1000: answer must be a string" in one_error_line(err)


def test_non_string_human_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = write(tmp_path, "ann.json", [{"question_id": 1, "answers": ["cat", 3, "dog"]}])
    res = write(tmp_path, "res.json", {"1": "cat"})
    code, _, err = run(capsys, "--annotations", a, "--results", res)
    assert code == 2
    assert "ann.json: question 1: an answer must be a string" in one_error_line(err)


def test_question_with_no_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = write(tmp_path, "ann.json", [{"question_id": 1, "answers": []}])
    res = write(tmp_path, "res.json", {"1": "cat"})
    code, _, err = run(capsys, "--annotations", a, "--results", res)
    assert code == 2
    assert "ann.json: question 1: has no answers" in one_error_line(err)


def test_empty_file(tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]) -> None:
    res = write(tmp_path, "res.json", "  \n")
    code, _, err = run(capsys, "--annotations", ann, "--results", res)
    assert code == 2
    assert "res.json: file is empty" in one_error_line(err)


def test_missing_file(tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--annotations", ann, "--results", str(tmp_path / "nope.json"))
    assert code == 2
    assert "nope.json: no such file" in one_error_line(err)


def test_answer_counts_other_than_ten_warn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = write(tmp_path, "ann.json", [{"question_id": 1, "answers": ["cat"] * 3 + ["dog"] * 2}])
    res = write(tmp_path, "res.json", {"1": "cat"})
    code, out, err = run(capsys, "--annotations", a, "--results", res, "--json")
    assert code == 0
    # N=5, m=3: [3*min(1,2/3) + 2*min(1,1)] / 5 = (2 + 2) / 5 = 0.8
    assert round(json.loads(out)["metrics"]["overall"], 2) == 80.0
    assert "1 question(s) do not have 10 answers (1 with 5)" in err
    assert "answers:5" in json.loads(out)["signature"]


def test_questions_file_missing_header_keys(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]
) -> None:
    q = write(
        tmp_path,
        "q.json",
        {"info": {}, "questions": [{"question_id": 1000}, {"question_id": 1001}]},
    )
    res = write(tmp_path, "res.json", {"1000": "cat", "1001": "cat"})
    code, _, err = run(capsys, "--annotations", ann, "--results", res, "--questions", q)
    assert code == 2
    assert (
        "q.json: missing header key(s) task_type, data_type, data_subtype, license"
        in one_error_line(err)
    )


def test_unknown_profile_lists_valid_ones(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["vqa", "--annotations", "a", "--results", "r", "--profile", "nope"])
    assert exc.value.code == 2
    assert "official" in capsys.readouterr().err


def test_non_scalar_image_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = {"annotations": [dict(ANN["annotations"][0], image_id=[1]), ANN["annotations"][1]]}
    a = write(tmp_path, "ann.json", bad)
    res = write(tmp_path, "res.json", {"1000": "cat", "1001": "cat"})
    code, _, err = run(capsys, "--annotations", a, "--results", res, "--ci")
    assert code == 2
    assert "ann.json: question 1000: 'image_id' must be an integer or a string" in one_error_line(
        err
    )


def test_unhashable_id_in_questions_file(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]
) -> None:
    header = {k: {} for k in ("info", "task_type", "data_type", "data_subtype", "license")}
    q = write(tmp_path, "q.json", {**header, "questions": [{"question_id": [1000]}]})
    res = write(tmp_path, "res.json", {"1000": "cat", "1001": "cat"})
    code, _, err = run(capsys, "--annotations", ann, "--results", res, "--questions", q)
    assert code == 2
    assert "q.json: entry 1: question_id is list ([1000]), expected a string or integer" in (
        one_error_line(err)
    )


def test_duplicate_in_jsonl_annotations_names_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = '{"question_id": 7, "answers": ["a", "b", "c"]}'
    a = write(tmp_path, "ann.jsonl", f"{rec}\n\n{rec}\n")
    res = write(tmp_path, "res.json", {"7": "a"})
    code, _, err = run(capsys, "--annotations", a, "--results", res)
    assert code == 2
    assert "question 7: duplicate question id (first at line 1)" in one_error_line(err)


def test_leading_zero_ids_are_not_matched(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]
) -> None:
    res = write(
        tmp_path,
        "res.json",
        [{"question_id": "01000", "answer": "cat"}, {"question_id": 1001, "answer": "cat"}],
    )
    code, _, err = run(capsys, "--annotations", ann, "--results", res)
    assert code == 2
    assert "question '01000': prediction for a question that is not in" in one_error_line(err)


def test_compare_accepts_on_duplicate_last(
    tmp_path: Path, ann: str, capsys: pytest.CaptureFixture[str]
) -> None:
    res = write(
        tmp_path,
        "res.json",
        [
            {"question_id": 1000, "answer": "cat"},
            {"question_id": 1001, "answer": "cat"},
            {"question_id": 1000, "answer": "bird"},
        ],
    )
    args = ["compare", "--annotations", ann, "--results", res]
    assert main(args) == 2
    assert "--on-duplicate last" in capsys.readouterr().err
    assert main([*args, "--on-duplicate", "last", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    # the last prediction for 1000 (`bird`) scores 0, `cat` for 1001 scores 1
    assert payload["metrics"]["vqa"]["value"] == 50.0


def test_partly_untyped_questions_are_noted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    anns = [dict(ANN["annotations"][0]), dict(ANN["annotations"][1])]
    del anns[1]["question_type"]
    a = write(tmp_path, "ann.json", {"annotations": anns})
    res = write(tmp_path, "res.json", {"1000": "cat", "1001": "cat"})
    code, out, _ = run(capsys, "--annotations", a, "--results", res, "--json")
    assert code == 0
    notes = json.loads(out)["notes"]
    assert any(n.startswith("1 question(s) have no question_type") for n in notes)
