"""MathVision: the official extraction + is_equal and VLMEvalKit's check, against the cases."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vqametrics import InputError
from vqametrics.cli import main
from vqametrics.kernels.latex_value import latex_value
from vqametrics.kernels.mathvision import (
    official_correct,
    official_is_equal,
    official_model_answer,
    vlmevalkit_is_equal,
    vlmevalkit_post_check,
)
from vqametrics.tasks import score_answer
from vqametrics.tasks._run import evaluate_task

CASES = Path(__file__).resolve().parents[1] / "data" / "mcq-reasoning-cases.json"
VK_KEY = "vlmevalkit_post_check_with_res_equal_official_model_answer"


def _cases() -> list[dict[str, Any]]:
    # a copy of ../shared/spec/mcq-reasoning-cases.json (computed by running each toolkit's code)
    cases: list[dict[str, Any]] = json.loads(CASES.read_text(encoding="utf-8"))["mathvision"]
    return cases


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c["id"])
def test_cases_official(case: dict[str, Any]) -> None:
    inp, want = case["input"], case["expected"]["official"]
    assert official_correct(inp["response"], inp["answer"], inp["options"]) == (
        want["model_answer"],
        want["correct"],
    )
    got = score_answer("mathvision", inp["response"], [inp["answer"]], options=inp["options"])
    assert got == (1.0 if want["correct"] else 0.0)


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c["id"])
def test_cases_vlmevalkit(case: dict[str, Any]) -> None:
    # the cases feed VLMEvalKit's check the official model_answer as its res
    inp, exp = case["input"], case["expected"]
    res = exp["official"]["model_answer"]
    assert vlmevalkit_post_check(res, inp["answer"], inp["options"]) is exp[VK_KEY]
    got = score_answer(
        "mathvision", res, [inp["answer"]], profile="vlmevalkit", options=inp["options"]
    )
    assert got == (1.0 if exp[VK_KEY] else 0.0)


def test_case_count() -> None:
    assert len(_cases()) == 14


# -- golden tests of the quirks the spec names (§10), derived by hand -----------------------


def test_quirk_round_to_two_decimals() -> None:
    assert official_is_equal("3.14", "3.14159")
    assert not official_is_equal("3.14", "3.146")  # 3.146 rounds to 3.15
    assert official_is_equal("6.28", "2\\pi") and official_is_equal("2\\sqrt{3}", "3.46")
    assert not vlmevalkit_is_equal("3.14159", "3.14")
    assert not vlmevalkit_is_equal("2\\pi", "6.28")
    assert vlmevalkit_is_equal("\\frac{1}{2}", "0.5")


def test_quirk_units_and_degrees_are_squashed_into_text() -> None:
    # spec §10: find_math_answer lower-cases and removes spaces and ^\circ
    assert official_model_answer("The angle is 60^\\circ") == "theangleis60"
    assert official_model_answer("The answer is 12 cm") == "12cm"
    assert score_answer("mathvision", "The answer is 12 cm", ["12"]) == 0.0


def test_quirk_a_lone_letter_is_not_caught_but_still_matches() -> None:
    assert official_model_answer("C") == "c"
    assert official_model_answer("Therefore the correct option is (C).") == "c"
    assert official_model_answer("(B)\nbecause ...") == "b"


def test_quirk_is_number_after_the_last_is() -> None:
    # "this 5" -> the text after the last "is " is "5", a number
    assert official_model_answer("So this is 5.") == "5"
    assert official_model_answer("The answer is 7. Done") == "7"


def test_tuples_are_compared_element_wise() -> None:
    assert official_is_equal("(1,2)", "(1, 2)")
    assert official_is_equal("(0.5,1)", "(\\frac{1}{2},1)")
    assert not official_is_equal("(1,2)", "(2,1)")


def test_quirk_vlmevalkit_caret_is_python_xor() -> None:
    # VLMEvalKit's bare eval reads 2^3 as 2 XOR 3 = 1
    assert vlmevalkit_is_equal("2^3", "1")


def test_option_value_or_letter_both_count() -> None:
    opts = ["3", "4", "5", "6", "7"]
    assert score_answer("mathvision", "The answer is 5", ["C"], options=opts) == 1.0
    assert score_answer("mathvision", "The answer is D.", ["C"], options=opts) == 0.0


def test_an_answer_that_is_no_option_letter_is_an_error() -> None:
    with pytest.raises(InputError, match="not an option letter"):
        score_answer("mathvision", "C", ["7"], options=["3", "4"])


def test_latex_values() -> None:
    assert latex_value("1,000") == 1000
    assert latex_value("\\frac{1}{3}+\\frac{2}{3}") == Fraction(1)
    assert latex_value("\\sqrt[3]{27}") == 3
    assert latex_value("2^{10}") == 1024
    for text in ("x", "1/0", "\\sin{30}", "\\sqrt{-4}", "", "1,5"):
        assert latex_value(text) is None, text


@given(st.integers(min_value=-(10**6), max_value=10**6))
def test_integers_agree_under_both_profiles(n: int) -> None:
    assert official_is_equal(str(n), f"{n}.0") and vlmevalkit_is_equal(str(n), f"{n}.0")
    assert not official_is_equal(str(n), str(n + 1))


@given(st.floats(min_value=-1000, max_value=1000, allow_nan=False))
def test_official_equality_is_two_decimal_rounding(x: float) -> None:
    # fixed-point texts (latex2sympy reads "1e-38" as 1 * e - 38, not a float literal)
    a, b = f"{x:.4f}", f"{x:.1f}"
    assert official_is_equal(a, a)
    assert official_is_equal(a, b) == (round(float(a), 2) == round(float(b), 2))


# -- files ----------------------------------------------------------------------------------


def _lines(tmp_path: Path, rows: list[dict[str, Any]], name: str = "model.jsonl") -> Path:
    f = tmp_path / name
    f.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return f


ANNOTATIONS = [
    {"id": "1", "answer": "C", "options": ["3", "4", "5"], "subject": "algebra", "level": 1},
    {"id": "2", "answer": "6.28", "options": [], "subject": "algebra", "level": 2},
    {"id": "3", "answer": "12", "options": [], "subject": "counting", "level": 2},
]


def test_official_output_with_annotations_and_result_file(tmp_path: Path) -> None:
    ann = _lines(tmp_path, ANNOTATIONS, "test.jsonl")
    out = _lines(
        tmp_path,
        [
            {"id": "1", "response": "The answer is 5", "correct": True},
            {"id": "2", "response": "\\boxed{2\\pi}", "correct": False},
            {"id": "3", "response": "12 cm", "correct": False},
        ],
    )
    (tmp_path / "model_result.json").write_text(
        json.dumps(
            {
                "-all": "2/3=66.67%",
                "-level1": "1/1=100.0%",
                "-level2": "1/2=50.0%",
                "-level2_algebra": "1/1=100.0%",
                "algebra": "2/2=100.0%",
                "algebra_level2": "1/1=100.0%",
            }
        ),
        encoding="utf-8",
    )
    r = evaluate_task("mathvision", out, annotations=ann)
    assert r.scores == [1.0, 1.0, 0.0]
    assert r.aggregate.breakdowns["level"]["level2"] == {"accuracy": 50.0, "correct": 1, "total": 2}
    assert r.aggregate.breakdowns["subject_level"]["algebra_level2"]["correct"] == 1
    assert any("1 of the 3 verdicts stored" in n and "'2'" in n for n in r.notes)
    assert r.data.reported is not None
    assert r.data.reported["values"]["level2"] == {
        "correct": 1.0,
        "total": 2.0,
        "accuracy_text": "50.0%",
    }
    assert "judge" not in r.signature.format()
    with pytest.raises(InputError, match="no 'res'"):
        evaluate_task("mathvision", out, annotations=ann, profile="vlmevalkit")


def test_output_without_answer_asks_for_annotations(tmp_path: Path) -> None:
    out = _lines(tmp_path, [{"id": "1", "response": "5"}])
    with pytest.raises(InputError, match="annotations="):
        evaluate_task("mathvision", out)


def test_vlmevalkit_sheet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sheet = tmp_path / "m_MathVision_gpt-4o-mini.csv"
    sheet.write_text(
        "index,question,answer,choices,category,prediction,res,log\n"
        "1,q,C,\"['3', '4', '5']\",algebra,\"so C\",C,Succeed\n"
        '2,q,6.28,[],algebra,"\\boxed{2\\pi}",2\\pi,Succeed\n'
        "3,q,12,[],counting,12,12,Prefetch succeed\n",
        encoding="utf-8",
    )
    (tmp_path / "m_MathVision_gpt-4o-mini_score.csv").write_text(
        "Subject,tot,prefetch,hit,prefetch_rate,acc\n"
        "Overall,3,1,2,33.33333333333333,66.66666666666666\n"
        "algebra,2,0,1,0.0,50.0\ncounting,1,1,1,100.0,100.0\n",
        encoding="utf-8",
    )
    r = evaluate_task("mathvision", sheet, profile="vlmevalkit")
    assert r.scores == [1.0, 0.0, 1.0]
    assert r.aggregate.breakdowns["Subject"]["Overall"]["acc"] == 66.66666666666666
    assert "judge:recorded" in r.signature.format()
    # the official rules read the raw prediction: 2\pi rounds to 6.28
    assert evaluate_task("mathvision", sheet).scores == [0.0, 1.0, 1.0]
    assert main(["score", "mathvision", "--results", str(sheet), "--profile", "vlmevalkit"]) == 0
    out = capsys.readouterr().out
    assert "Overall / acc" in out and "the numbers differ" not in out


def test_lmms_eval_log_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = _lines(tmp_path, [{"doc_id": 0, "filtered_resps": ["5"], "doc": {"answer": "5"}}])
    assert main(["score", "mathvision", "--results", str(f)]) == 2
    err = capsys.readouterr().err.strip()
    assert "lmms-eval" in err and "not scored" in err and len(err.splitlines()) == 1


def test_a_problem_given_twice_is_an_error(tmp_path: Path) -> None:
    ann = _lines(tmp_path, ANNOTATIONS, "test.jsonl")
    out = _lines(tmp_path, [{"id": "1", "response": "5"}, {"id": "1", "response": "4"}])
    with pytest.raises(InputError, match="duplicate id '1'"):
        evaluate_task("mathvision", out, annotations=ann)


def test_stored_verdict_note_names_the_differing_items() -> None:
    # hand-made: items 1 and 3 store a verdict that differs from the score, item 2 agrees, item 4
    # stores none (not counted), so 2 of the 3 stored verdicts differ
    from vqametrics.tasks._base import Item
    from vqametrics.tasks._math_read import stored_verdict_note

    items = [
        Item(1, "x", ("a",), {"stored": True}),
        Item(2, "x", ("a",), {"stored": True}),
        Item(3, "x", ("a",), {"stored": False}),
        Item(4, "x", ("a",), {}),
    ]
    (note,) = stored_verdict_note(items, [0.0, 1.0, 1.0, 0.0], "official", "stored", "correct")
    assert note == (
        "2 of the 3 verdicts stored in the file (correct) differ from profile official's: "
        "1: stored True, recomputed False; 3: stored False, recomputed True"
    )
    assert stored_verdict_note(items[1:2], [1.0], "official", "stored", "correct") == ()


@pytest.mark.parametrize("profile", ["official", "vlmevalkit"])
def test_worked_solutions_get_no_verbose_warning(tmp_path: Path, profile: str) -> None:
    # the official rules find the answer inside the response, and VLMEvalKit scores the
    # judge's res: "N of N predictions look verbose … see --extract" would be a false alarm
    reply = "Let me think step by step. The area is 12 square units, so the answer is 12."
    if profile == "official":
        ann = _lines(tmp_path, ANNOTATIONS, "test.jsonl")
        out = _lines(tmp_path, [{"id": a["id"], "response": reply} for a in ANNOTATIONS])
        r = evaluate_task("mathvision", out, annotations=ann)
        assert r.scores == [0.0, 0.0, 1.0]  # 12 is only the third problem's answer
    else:
        sheet = tmp_path / "m_MathVision_gpt-4o-mini.csv"
        sheet.write_text(
            f'index,question,answer,choices,category,prediction,res,log\n1,q,12,[],c,"{reply}",'
            "12,Succeed\n",
            encoding="utf-8",
        )
        r = evaluate_task("mathvision", sheet, profile="vlmevalkit")
        assert r.scores == [1.0]
    assert r.diagnostics is None
