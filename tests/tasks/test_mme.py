"""MME: the official eval_tool calculation.py, LLaVA's converter, lmms-eval and VLMEvalKit.

Expected values come from the spec's cases (vqa-family-cases.json), the MME README (LaVIN
963.61 / 249.64), VLMEvalKit's reported ``vila_8b_MME_score.csv``, or are derived by hand.
MME data is research-only: these tests read ``../shared/data`` and never copy it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.tasks import get_task, parse_yes_no, score_answer
from vqametrics.tasks._run import evaluate_task
from vqametrics.tasks.mme import (
    COGNITION,
    PERCEPTION,
    MmeScoreError,
    official_task_score,
    parse_official,
)

from .conftest import family_cases

VLM = {"Yes": "yes", "No": "no", "Unknown": "other"}


# ------------------------------------------------------------------ mme_parse cases


@pytest.mark.parametrize("case", family_cases("mme_parse"), ids=lambda c: c["id"])
def test_parse_cases(case: dict[str, Any]) -> None:
    text = case["input"]["response"]
    exp = case["expected"]
    assert parse_yes_no(text, task="mme") == exp["official"]
    assert parse_yes_no(text, task="mme", profile="llava") == exp["official"]
    assert parse_yes_no(text, task="mme", profile="lmms-eval") == exp["lmms_eval"]
    assert parse_yes_no(text, task="mme", profile="vlmevalkit") == VLM[exp["vlmevalkit_no_judge"]]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # spec §8.2: the newline is part of the 4-character window
        ("yes\n", "yes"),
        (" yes", "yes"),
        ("  yes", "other"),
        ("y", "other"),
        ("y\n", "other"),
        ("not sure", "no"),
        ("none", "no"),
        ("nope", "no"),
        ("know", "no"),
        ("snow", "no"),
        ("I think yes", "other"),
        ("**Yes**", "other"),
        ("Yes, but no", "yes"),
        ("\nyes", "yes"),
        ("\n\n\nyes", "other"),
    ],
)
def test_official_parse_quirks(text: str, expected: str) -> None:
    assert parse_official(text) == expected


# ------------------------------------------------------------------ mme_task_score cases


def _task_folder(tmp_path: Path, lines: list[str], task: str = "existence") -> Path:
    folder = tmp_path / "results"
    folder.mkdir(exist_ok=True)
    (folder / f"{task}.txt").write_text("".join(lines), encoding="utf-8")
    return folder


@pytest.mark.parametrize("case", family_cases("mme_task_score"), ids=lambda c: c["id"])
def test_task_score_cases(case: dict[str, Any], tmp_path: Path) -> None:
    folder = _task_folder(tmp_path, case["input"]["task_file_lines"])
    exp = case["expected"]
    lmms = evaluate_task("mme", folder, profile="lmms-eval", allow_missing=True)
    assert lmms.aggregate.breakdowns["category"]["existence"]["score"] == exp["lmms_eval_score"]
    if isinstance(exp["official"], str):
        assert "ValueError" in exp["official"]
        with pytest.raises(MmeScoreError, match="every response parses as 'other'"):
            evaluate_task("mme", folder, allow_missing=True)
        assert issubclass(MmeScoreError, ValueError)
        return
    r = evaluate_task("mme", folder, allow_missing=True)
    task = r.aggregate.breakdowns["task"]["existence"]
    assert task["acc"] == exp["official"]["acc"]
    assert task["acc_plus"] == exp["official"]["acc_plus"]
    assert task["score"] == exp["official"]["score"]
    assert r.metrics["perception"] == exp["official"]["score"]


def test_all_other_crash_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _task_folder(tmp_path, ["a\tQ\tYes\tmaybe\n", "a\tQ\tNo\tmaybe\n"])
    assert main(["score", "mme", "--results", str(folder), "--allow-missing"]) == 2
    err = capsys.readouterr().err
    assert "existence" in err and "'other'" in err and "Traceback" not in err


def test_pairs_are_by_position_not_by_image() -> None:
    # QUIRK pairs-by-position, by hand: lines (a, b) and (b, a); the right answers are the
    # first two, so acc+ = 1/2 although no image has both of its questions right
    gts = ["yes", "no", "yes", "no"]
    parsed = ["yes", "no", "no", "yes"]
    out = official_task_score(gts, parsed)
    assert out["acc"] == 0.5 and out["acc_plus"] == 0.5 and out["score"] == 100.0


def test_score_order_is_acc_then_acc_plus() -> None:
    # 0 + acc*100 + acc_plus*100 in that order (hand: 1/3 and 2/3 of 3 pairs)
    gts = ["yes", "no"] * 3
    parsed = ["yes", "no", "yes", "no", "no", "no"]
    out = official_task_score(gts, parsed)
    assert out["acc"] == 5 / 6 and out["acc_plus"] == 2 / 3
    assert out["score"] == (0.0 + (5 / 6) * 100) + (2 / 3) * 100


def test_score_answer_per_item() -> None:
    assert score_answer("mme", "y", ["Yes"]) == 0.0
    assert score_answer("mme", "y", ["Yes"], profile="lmms-eval") == 1.0
    assert score_answer("mme", "I think yes", ["Yes"], profile="vlmevalkit") == 1.0


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["a\tQ\tYes\tyes\n", "a\tQ\tNo\tno\n", "b\tQ\tYes\tyes\n"], "3 lines, an odd number"),
        (["a\tQ\tYes\tyes\tand more\n", "a\tQ\tNo\tno\n"], "line 1: 5 tab-separated fields"),
        (["a\tQ\tYes\tyes\n", "a\tQ\tMaybe\tno\n"], "line 2: ground truth 'Maybe' is not yes/no"),
        (["a\tQ\tYes\n", "a\tQ\tNo\n"], "line 1: 3 tab-separated fields"),
        (["a\tQ\tYes\tyes\n", "\n"], "line 2: 1 tab-separated fields"),
    ],
)
def test_bad_task_file(
    lines: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _task_folder(tmp_path, lines)
    assert main(["score", "mme", "--results", str(folder), "--allow-missing"]) == 2
    err = capsys.readouterr().err
    assert "existence.txt" in err and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_lines_end_only_where_readlines_ends_them(tmp_path: Path) -> None:
    # calculation.py reads with readlines(): \f, \x85 and U+2028 stay inside the response,
    # and \r\n ends a line like \n; by hand both responses parse right: 100 + 100
    lines = ["a\tQ\tYes\tyes\u2028no\n", "a\tQ\tNo\tno\x0c\x85\r\n"]
    folder = _task_folder(tmp_path, lines)
    r = evaluate_task("mme", folder, allow_missing=True)
    task = r.aggregate.breakdowns["task"]["existence"]
    assert (task["n"], task["score"]) == (2, 200.0)


def test_pairs_of_two_images_are_noted(tmp_path: Path) -> None:
    # QUIRK pairs-by-position on lines a, b, a, b: by hand 3 of 4 right (acc 0.75), pair 1
    # both right and pair 2 not (acc+ 0.5): 75 + 50; the note says the pairs mix images
    lines = ["a\tQ\tYes\tyes\n", "b\tQ\tNo\tno\n", "a\tQ\tNo\tno\n", "b\tQ\tYes\tno\n"]
    r = evaluate_task("mme", _task_folder(tmp_path, lines), allow_missing=True)
    assert r.aggregate.breakdowns["task"]["existence"]["score"] == 125.0
    assert any(n.startswith("existence: 2 line pair(s) name two different images") for n in r.notes)


@pytest.mark.shared
def test_lavin_pairs_are_images(shared_data: Path) -> None:
    r = evaluate_task("mme", shared_data / "mme" / "eval_tool" / "LaVIN")
    assert not any("different images" in n for n in r.notes)


@pytest.mark.parametrize("missing", ["category", "image_path"])
def test_vlmevalkit_rows_need_category_and_image(
    missing: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cols = {"index": "7", "category": "count", "image_path": "count/1.jpg", "question": "Q"}
    del cols[missing]
    header = [*cols, "answer", "prediction"]
    rows = [[*cols.values(), "Yes", "Yes"], [*cols.values(), "No", "No"]]
    rows[1][0] = "8"
    res = tmp_path / "m_MME.csv"
    res.write_text("\n".join(",".join(r) for r in [header, *rows]) + "\n", encoding="utf-8")
    assert main(["score", "mme", "--results", str(res)]) == 2
    err = capsys.readouterr().err
    assert f"m_MME.csv: index 7: no '{missing}'" in err and len(err.strip().splitlines()) == 1


def test_unused_questions_are_noted(tmp_path: Path) -> None:
    folder = _task_folder(tmp_path, ["a\tQ\tYes\tyes\n", "a\tQ\tNo\tno\n"])
    r = evaluate_task("mme", folder, questions=tmp_path / "q.jsonl", allow_missing=True)
    assert any(n.startswith("--questions was not used") for n in r.notes)


def test_missing_task_files_need_allow_missing(tmp_path: Path) -> None:
    folder = _task_folder(tmp_path, ["a\tQ\tYes\tyes\n", "a\tQ\tNo\tno\n"])
    with pytest.raises(InputError, match=r"no count\.txt \(13 of the 14"):
        evaluate_task("mme", folder)
    r = evaluate_task("mme", folder, allow_missing=True)
    assert r.metrics == {"perception": 200.0}
    assert any("1 of 10" in n for n in r.notes)


def test_answers_without_annotations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    res = tmp_path / "answers.jsonl"
    res.write_text('{"question_id": "count/1.jpg", "prompt": "Q", "text": "Yes"}\n')
    assert main(["score", "mme", "--results", str(res)]) == 2
    assert "Your_Results" in capsys.readouterr().err


# ------------------------------------------------------------------ parity: LaVIN (MME README)


@pytest.mark.shared
def test_lavin_official_parity(shared_data: Path) -> None:
    (case,) = family_cases("parity")
    exp = case["expected"]["official"]
    r = evaluate_task("mme", shared_data / "mme" / "eval_tool" / "LaVIN")
    assert r.metrics["perception"] == exp["perception"] == 963.6114445778312
    assert r.metrics["cognition"] == exp["cognition"] == 249.64285714285714
    tasks = r.aggregate.breakdowns["task"]
    assert list(tasks) == [*PERCEPTION, *COGNITION]
    for task in (*PERCEPTION, *COGNITION):
        assert tasks[task]["score"] == exp[task], task
    assert r.signature.format().startswith("mme|profile:official|toolkit:MME-eval_tool@dd29509|")


@pytest.mark.shared
def test_lavin_lmms_eval(shared_data: Path) -> None:
    (case,) = family_cases("parity")
    exp = case["expected"]["lmms_eval_aggregation"]
    r = evaluate_task("mme", shared_data / "mme" / "eval_tool" / "LaVIN", profile="lmms-eval")
    assert r.metrics["perception"] == exp["perception"] == 963.6114445778311
    cats = r.aggregate.breakdowns["category"]
    assert cats["count"]["score"] == exp["count"]
    assert cats["posters"]["score"] == exp["posters"]


@pytest.mark.shared
def test_lavin_vlmevalkit(shared_data: Path) -> None:
    (case,) = family_cases("parity")
    exp = case["expected"]["vlmevalkit_no_judge"]
    r = evaluate_task("mme", shared_data / "mme" / "eval_tool" / "LaVIN", profile="vlmevalkit")
    assert r.metrics["perception"] == exp["perception"]
    assert r.metrics["reasoning"] == exp["reasoning"]
    cats = r.aggregate.breakdowns["category"]
    assert cats["commonsense_reasoning"]["score"] == exp["commonsense_reasoning"]
    # spec §8.3: 12 of 2,374 LaVIN responses are Unknown to YOrN_Extraction
    assert any(n.startswith("12 response(s)") for n in r.notes)


@pytest.mark.shared
def test_lavin_cli_json(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = shared_data / "mme" / "eval_tool" / "LaVIN"
    assert main(["score", "mme", "--results", str(folder), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"] == {"perception": 963.6114445778312, "cognition": 249.64285714285714}
    assert out["units"] == "points" and out["n"] == 2374
    assert out["breakdowns"]["task"]["count"]["score"] == 88.33333333333334


# ------------------------------------------------------------------ parity: VLMEvalKit VILA


@pytest.mark.shared
def test_vila_vlmevalkit_reproduces_reported(shared_data: Path) -> None:
    pytest.importorskip("openpyxl")
    xlsx = shared_data / "mme" / "vlmevalkit" / "vila_8b_MME.xlsx"
    r = evaluate_task("mme", xlsx, profile="vlmevalkit")
    # vila_8b_MME_score.csv, written by VLMEvalKit
    reported = {
        "OCR": 162.5,
        "artwork": 127.25,
        "celebrity": 147.3529411764706,
        "code_reasoning": 47.5,
        "color": 175.0,
        "commonsense_reasoning": 125.0,
        "count": 163.33333333333334,
        "existence": 185.0,
        "landmark": 157.0,
        "numerical_calculation": 47.5,
        "position": 143.33333333333331,
        "posters": 137.75510204081633,
        "scene": 160.0,
        "text_translation": 62.5,
    }
    assert r.metrics == {"perception": 1558.5247098839536, "reasoning": 282.5}
    cats = r.aggregate.breakdowns["category"]
    assert {c: v["score"] for c, v in cats.items()} == reported
    assert list(cats) == sorted(reported)


# ------------------------------------------------------------------ LLaVA's converter


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.shared
def test_llava_join_with_answers_equal_to_gt(shared_data: Path) -> None:
    """Answers built from LLaVA's question file, each the GT of its Your_Results line:
    every question of every task right → 2000 / 800 (hand-derived maximum)."""
    gt: dict[tuple[str, str, str], str] = {}
    your = shared_data / "mme" / "eval_tool" / "Your_Results"
    for path in your.glob("*.txt"):
        for line in path.read_text(encoding="utf-8").splitlines():
            img, question, answer = line.split("\t")
            q = question.replace("  Please answer", " Please answer")
            gt[(path.stem, img.split(".")[0], q)] = answer
    answers = []
    for q in _jsonl(shared_data / "mme" / "llava" / "llava_mme.jsonl"):
        task = q["question_id"].split("/")[0]
        stem = q["question_id"].split("/")[-1].split(".")[0]
        question = q["text"].split("\n")[0] + " Please answer yes or no."
        answers.append(
            {
                "question_id": q["question_id"],
                "prompt": q["text"],
                "text": gt[(task, stem, question)],
            }
        )
    r = evaluate_task("mme", answers, annotations=your, profile="llava")
    assert r.metrics == {"perception": 2000.0, "cognition": 800.0}
    assert len(r.scores) == 2374


@pytest.mark.shared
def test_llava_real_answers(shared_data: Path) -> None:
    your = shared_data / "mme" / "eval_tool" / "Your_Results"
    res = shared_data / "mme" / "llava" / "answers_llava-v1.5-7b.jsonl"
    # 2,368 answers for 2,374 questions: 3 images of landmark and scene were never answered
    with pytest.raises(InputError, match="6 question"):
        evaluate_task("mme", res, annotations=your, profile="llava")
    r = evaluate_task("mme", res, annotations=your, profile="llava", allow_missing=True)
    assert len(r.scores) == 2368 and r.data.n_missing == 6
    tasks = r.aggregate.breakdowns["task"]
    assert tasks["landmark"]["n"] == 398 and tasks["scene"]["n"] == 396
    # a separate line-for-line port of convert_answer_to_mme.py + calculation.py (a scratch
    # script, no vqametrics code) gives these; LLaVA-1.5-7B's published perception is 1510.7
    assert r.metrics == {"perception": 1507.4821375786496, "cognition": 355.7142857142857}


def test_llava_answer_with_a_tab_is_an_error(tmp_path: Path) -> None:
    your = _task_folder(tmp_path, ["1.jpg\tIs it? Please answer yes or no.\tYes\n"] * 1)
    res = tmp_path / "answers.jsonl"
    res.write_text(
        json.dumps({"question_id": "existence/1.jpg", "prompt": "Is it?", "text": "Yes\tNo"}) + "\n"
    )
    with pytest.raises(InputError, match=r"answers\.jsonl: line 1: the answer contains a tab"):
        evaluate_task("mme", res, annotations=your, allow_missing=True)


def test_llava_unknown_question_is_an_error(tmp_path: Path) -> None:
    your = _task_folder(tmp_path, ["1.jpg\tIs it? Please answer yes or no.\tYes\n"])
    res = tmp_path / "answers.jsonl"
    res.write_text(
        json.dumps({"question_id": "existence/1.jpg", "prompt": "Is that?", "text": "Yes"}) + "\n"
    )
    with pytest.raises(InputError, match=r"line 1: no line of existence\.txt"):
        evaluate_task("mme", res, annotations=your, allow_missing=True)


# ------------------------------------------------------------------ properties


@given(st.text())
def test_parse_is_total(text: str) -> None:
    for prof in ("official", "lmms-eval", "vlmevalkit", "llava"):
        assert parse_yes_no(text, task="mme", profile=prof) in ("yes", "no", "other")


@given(
    st.lists(
        st.tuples(st.sampled_from(["yes", "no"]), st.sampled_from(["yes", "no", "other"])),
        min_size=2,
        max_size=40,
    ).filter(lambda xs: len(xs) % 2 == 0 and any(p != "other" for _, p in xs))
)
def test_acc_plus_never_exceeds_acc(pairs: list[tuple[str, str]]) -> None:
    out = official_task_score([g for g, _ in pairs], [p for _, p in pairs])
    assert 0.0 <= out["acc_plus"] <= out["acc"] <= 1.0
    assert 0.0 <= out["score"] <= 200.0


def test_registered_profiles() -> None:
    task = get_task("mme")
    assert [p.name for p in task.profiles] == ["official", "llava", "lmms-eval", "vlmevalkit"]


@pytest.mark.shared
def test_yorn_extraction_matches_vlmevalkit_auxmatch(shared_data: Path) -> None:
    pytest.importorskip("openpyxl")
    from vqametrics.readers.records import read_records

    aux = read_records(shared_data / "mme" / "vlmevalkit" / "vila_8b_MME_auxmatch.xlsx")
    # the 'extracted' column was written by VLMEvalKit's YOrN_Extraction (8 are Unknown)
    unknown = 0
    for row in aux.rows:
        got = parse_yes_no(str(row["prediction"]), task="mme", profile="vlmevalkit")
        assert got == VLM[row["extracted"]], row["index"]
        unknown += got == "other"
    assert unknown == 8
