"""MathVista: the four post-extraction rules against the shared cases, and LLaVA's official run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vqametrics import InputError
from vqametrics.cli import main
from vqametrics.kernels.mathvista import (
    MathVistaCrash,
    levenshtein,
    nearest_choice,
    normalize_lmms_eval,
    normalize_official,
    vlmevalkit_post_check,
    vlmevalkit_prefetch,
)
from vqametrics.tasks import score_answer
from vqametrics.tasks._run import evaluate_task

CASES = Path(__file__).resolve().parents[1] / "data" / "mcq-reasoning-cases.json"


def _cases() -> list[dict[str, Any]]:
    # a copy of ../shared/spec/mcq-reasoning-cases.json (computed by running each toolkit's code)
    cases: list[dict[str, Any]] = json.loads(CASES.read_text(encoding="utf-8"))["mathvista_score"]
    return cases


#: the cases' implementation key -> our profile
PROFILES = {
    "official_head": "official",
    "official_before_e999481": "official-2024",
    "lmms_eval": "lmms-eval",
    "vlmevalkit_post_check": "vlmevalkit",
}


def _params() -> list[Any]:
    return [
        pytest.param(c, key, c["expected"][key], id=f"{c['id']}-{key}")
        for c in _cases()
        for key in PROFILES
        if key in c["expected"]
    ]


def _context(inp: dict[str, Any], profile: str) -> dict[str, Any]:
    ctx = {
        "question_type": inp["question_type"],
        "answer_type": inp["answer_type"],
        "choices": inp["choices"],
        "precision": inp["precision"],
    }
    if profile.startswith("official"):
        ctx["ignore_empty_extractions"] = inp.get("ignore_empty_extractions", False)
    return ctx


def test_every_section_case_is_used() -> None:
    assert (
        len(_params()) == sum(1 for c in _cases() for k in c["expected"] if k in PROFILES)
        and len(_cases()) == 25
    )


@pytest.mark.parametrize(("case", "key", "expected"), _params())
def test_cases_score_answer(case: dict[str, Any], key: str, expected: Any) -> None:
    inp = case["input"]
    profile = PROFILES[key]
    got = score_answer(
        "mathvista", inp["extraction"], [inp["answer"]], profile=profile, **_context(inp, profile)
    )
    want = expected["true_false"] if isinstance(expected, dict) else expected
    assert got == (1.0 if want else 0.0)


@pytest.mark.parametrize(
    ("case", "key", "expected"),
    [p for p in _params() if isinstance(p.values[2], dict)],  # VLMEvalKit's is a bare bool
)
def test_cases_normalized_prediction(case: dict[str, Any], key: str, expected: Any) -> None:
    inp = case["input"]
    args = (inp["extraction"], inp["choices"], inp["question_type"], inp["answer_type"])
    if key == "lmms_eval":
        got = normalize_lmms_eval(*args, inp["precision"])
    else:
        got = normalize_official(
            *args,
            inp["precision"],
            ignore_empty_extractions=inp.get("ignore_empty_extractions", False),
            round_precision_as_given=key == "official_before_e999481",
        )
    assert got == expected["prediction"]


@pytest.mark.parametrize(
    "case",
    [
        c
        for c in _cases()
        if "vlmevalkit_prefetch_if_extraction_were_the_prediction" in c["expected"]
    ],
    ids=lambda c: c["id"],
)
def test_cases_vlmevalkit_prefetch(case: dict[str, Any]) -> None:
    inp = case["input"]
    want = case["expected"]["vlmevalkit_prefetch_if_extraction_were_the_prediction"]
    got = vlmevalkit_prefetch(
        inp["extraction"], inp["answer"], inp["question_type"], inp["answer_type"], inp["choices"]
    )
    assert got == want and type(got) is type(want)


# -- golden tests of the quirks the held-out cases name (spec §9), derived by hand -----------

FRACTIONS = ["3/11", "8/11", "6/11", "3/5"]


def _official(extraction: str, answer: str, **kw: Any) -> float:
    ctx = {"question_type": "multi_choice", "answer_type": "text", "choices": FRACTIONS}
    ctx.update(kw)
    return score_answer("mathvista", extraction, [answer], profile="official", **ctx)


def test_quirk_empty_extraction_is_the_shortest_choice() -> None:
    # "" is at distance len(c) from every choice: "3/5" (3) beats the 4-character ones
    assert _official("", "3/5") == 1.0
    assert normalize_official("", FRACTIONS, "multi_choice", "text", None) == "3/5"


def test_quirk_lower_case_letter_goes_to_levenshtein() -> None:
    # "b" is not a letter in range: distance 3 to "3/5" (3 subs) and 4 to the 4-char choices
    assert normalize_official("b", FRACTIONS, "multi_choice", "text", None) == "3/5"
    assert _official("b", "8/11") == 0.0
    assert _official("(b)", "8/11") == 1.0  # "(x)" anywhere is taken, upper-cased


def test_quirk_nearest_choice_first_on_ties() -> None:
    assert nearest_choice("x", ["ab", "cd"]) == "ab"
    assert levenshtein("kitten", "sitting") == 3


def test_quirk_vlmevalkit_has_no_levenshtein_fallback() -> None:
    # "8/12" is one edit from "8/11": official takes it, VLMEvalKit's can_infer finds nothing
    assert _official("8/12", "8/11") == 1.0
    assert not vlmevalkit_post_check("8/12", "8/11", "multi_choice", "text", FRACTIONS)


def test_quirk_integer_truncates_and_vlmevalkit_is_exact() -> None:
    ctx = {"question_type": "free_form", "answer_type": "integer", "choices": None}
    assert score_answer("mathvista", "1.5", ["1"], profile="official", **ctx) == 1.0
    assert score_answer("mathvista", "1e3", ["1000"], profile="official", **ctx) == 1.0
    assert score_answer("mathvista", "14.0", ["14"], profile="vlmevalkit", **ctx) == 0.0
    assert score_answer("mathvista", "14", ["14"], profile="vlmevalkit", **ctx) == 1.0


def test_quirk_float_precision_as_float_or_int() -> None:
    # HF's precision is a float (2.0): only HEAD rounds; with an int precision all four round
    ctx: dict[str, Any] = {"question_type": "free_form", "answer_type": "float", "choices": None}
    for profile, with_float in (
        ("official", 1.0),
        ("official-2024", 0.0),
        ("lmms-eval", 0.0),
    ):
        got = score_answer("mathvista", "1.453", ["1.45"], profile=profile, precision=2.0, **ctx)
        assert got == with_float, profile
        got = score_answer("mathvista", "1.453", ["1.45"], profile=profile, precision=2, **ctx)
        assert got == 1.0, profile


def test_quirk_text_free_form_crashes_official_only() -> None:
    ctx = {"question_type": "free_form", "answer_type": "text", "choices": None}
    for profile in ("official", "official-2024"):
        with pytest.raises(MathVistaCrash, match="UnboundLocalError"):
            score_answer("mathvista", "east", ["east"], profile=profile, **ctx)
    assert score_answer("mathvista", " east", ["east "], profile="lmms-eval", **ctx) == 1.0
    assert score_answer("mathvista", "east", ["east"], profile="vlmevalkit", **ctx) == 0.0


def test_quirk_lmms_none_equals_gold_text_none() -> None:
    ctx = {"question_type": "free_form", "answer_type": "integer", "choices": None}
    assert score_answer("mathvista", "abc", ["None"], profile="lmms-eval", **ctx) == 1.0
    assert score_answer("mathvista", "abc", ["None"], profile="official", **ctx) == 0.0


@given(st.integers(min_value=-(10**6), max_value=10**6))
def test_integers_written_as_integers_agree_everywhere(n: int) -> None:
    ctx = {"question_type": "free_form", "answer_type": "integer", "choices": None}
    for profile in ("official", "official-2024", "lmms-eval", "vlmevalkit"):
        assert score_answer("mathvista", str(n), [str(n)], profile=profile, **ctx) == 1.0
        assert score_answer("mathvista", str(n + 1), [str(n)], profile=profile, **ctx) == 0.0


@given(st.lists(st.text(max_size=6), min_size=1, max_size=5), st.data())
def test_official_mcq_always_lands_on_a_choice(choices: list[str], data: st.DataObject) -> None:
    text = data.draw(st.text(max_size=8))
    assert normalize_official(text, choices, "multi_choice", "text", None) in choices
    i = data.draw(st.integers(min_value=0, max_value=len(choices) - 1))
    letter = chr(ord("A") + i)
    assert normalize_official(f" {letter} ", choices, "multi_choice", "text", None) == choices[i]


# -- files ----------------------------------------------------------------------------------


def _problem(pid: str, **kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "pid": pid,
        "question_type": "free_form",
        "answer_type": "integer",
        "choices": None,
        "precision": None,
        "answer": "3",
        "response": "3",
        "extraction": "3",
        "metadata": {"language": "english", "task": "t", "skills": ["a", "b"]},
    }
    base.update(kw)
    return base


def _write(tmp_path: Path, problems: list[dict[str, Any]]) -> Path:
    f = tmp_path / "output_m.json"
    f.write_text(json.dumps({p["pid"]: p for p in problems}), encoding="utf-8")
    return f


def test_stored_verdicts_that_differ_are_named(tmp_path: Path) -> None:
    f = _write(
        tmp_path,
        [_problem("1", true_false=False), _problem("2", extraction="4", true_false=False)],
    )
    r = evaluate_task("mathvista", f)
    assert r.scores == [1.0, 0.0]
    assert any("1 of the 2 verdicts stored" in n and "'1': stored False" in n for n in r.notes)


def test_missing_extraction_names_item_field_and_remedy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = _problem("7")
    del p["extraction"]
    f = _write(tmp_path, [p])
    assert main(["score", "mathvista", "--results", str(f)]) == 2
    err = capsys.readouterr().err.strip()
    assert "'7'" in err and "'extraction'" in err and "extract_answer.py" in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_text_free_form_in_a_file_is_an_error_naming_the_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = _write(tmp_path, [_problem("1"), _problem("9", answer_type="text", answer="east")])
    assert main(["score", "mathvista", "--results", str(f)]) == 2
    err = capsys.readouterr().err
    assert "'9'" in err and "UnboundLocalError" in err and "Traceback" not in err
    r = evaluate_task("mathvista", f, profile="lmms-eval")
    assert r.scores == [1.0, 0.0]


def test_skills_count_once_per_skill(tmp_path: Path) -> None:
    f = _write(tmp_path, [_problem("1"), _problem("2", extraction="5")])
    r = evaluate_task("mathvista", f)
    skills = r.aggregate.breakdowns["skills"]
    assert skills["a"] == {"accuracy": 50.0, "correct": 1, "total": 2}
    assert r.signature.format().startswith("mathvista-acc|profile:official|")
    assert "judge:recorded" in r.signature.format()


def test_vlmevalkit_sheet_and_its_score_csv(tmp_path: Path) -> None:
    # a VLMEvalKit judge sheet (res, log) and the _score.csv VLMEvalKit wrote beside it
    sheet = tmp_path / "m_MathVista_MINI_gpt-4o-mini.csv"
    sheet.write_text(
        "index,question,answer,prediction,res,log,question_type,answer_type,choices,"
        "answer_option,task,skills,precision\n"
        "1,q,8/11,B,B,Prefetch succeed,multi_choice,text,\"['3/11', '8/11']\",B,fqa,"
        "\"['a']\",\n"
        "2,q,14,x,14.0,Succeed,free_form,integer,[],,fqa,\"['a', 'b']\",\n",
        encoding="utf-8",
    )
    score = tmp_path / "m_MathVista_MINI_gpt-4o-mini_score.csv"
    score.write_text(
        "Task&Skill,tot,prefetch,hit,prefetch_rate,acc\n"
        "Overall,2,1,1,50.0,50.0\na,2,1,1,50.0,50.0\nfqa,2,1,1,50.0,50.0\nb,1,0,0,0.0,0.0\n",
        encoding="utf-8",
    )
    r = evaluate_task("mathvista", sheet, profile="vlmevalkit")
    assert r.scores == [1.0, 0.0]  # "14.0" is not 14 for VLMEvalKit
    rows = r.aggregate.breakdowns["Task&Skill"]
    assert list(rows) == ["Overall", "a", "fqa", "b"]
    assert rows["Overall"] == {
        "tot": 2,
        "prefetch": 1,
        "hit": 1,
        "prefetch_rate": 50.0,
        "acc": 50.0,
    }
    assert r.data.reported is not None
    assert r.data.reported["values"]["Overall"]["acc"] == 50.0
    assert evaluate_task("mathvista", sheet, profile="official").scores == [1.0, 1.0]


def test_prediction_sheet_without_res_says_which_file(tmp_path: Path) -> None:
    sheet = tmp_path / "m_MathVista_MINI.csv"
    sheet.write_text("index,question,answer,prediction\n1,q,3,3\n", encoding="utf-8")
    with pytest.raises(InputError, match="no 'res' column"):
        evaluate_task("mathvista", sheet)


def test_lmms_eval_log_carries_its_own_verdicts(tmp_path: Path) -> None:
    rec = {
        "question_id": "5",
        "answer": "1.45",
        "extraction": "1.45",
        "prediction": None,
        "true_false": False,
        "question_type": "free_form",
        "answer_type": "float",
        "precision": 2.0,
        "choices": None,
        "metadata": {"language": "english", "skills": ["a"]},
    }
    f = tmp_path / "20250101_samples_mathvista_testmini_format.jsonl"
    f.write_text(
        json.dumps({"doc_id": 0, "filtered_resps": ["1.45"], "llm_as_judge_eval": rec}) + "\n",
        encoding="utf-8",
    )
    r = evaluate_task("mathvista", f, profile="lmms-eval")
    assert r.scores == [0.0] and r.sample_check is not None and r.sample_check.n_disagree == 0
    r = evaluate_task("mathvista", f, profile="official")
    assert r.scores == [1.0]
    assert r.sample_check is not None and r.sample_check.n_disagree == 1


# -- LLaVA (LLaMA-2-13B), the official run ---------------------------------------------------


@pytest.mark.shared
def test_llava_reproduces_the_official_score_file(shared_data: Path) -> None:
    folder = shared_data / "mathvista" / "official"
    out = folder / "output_llava_llama_2_13b.json"
    reported = json.loads((folder / "scores_llava_llama_2_13b.json").read_text(encoding="utf-8"))
    r = evaluate_task("mathvista", out)
    assert (r.metrics["correct"], r.metrics["total"]) == (261, 1000)
    assert str(round(r.metrics["accuracy"], 2)) == reported["average"]["accuracy"] == "26.1"
    assert reported["average"]["correct"] == 261
    n = 0
    for key, groups in reported.items():
        if key == "average":
            continue
        ours = r.aggregate.breakdowns[key]
        assert list(ours) == list(groups), key  # the file's order: by accuracy, highest first
        for value, row in groups.items():
            mine = ours[value]
            assert (mine["correct"], mine["total"]) == (row["correct"], row["total"]), value
            assert f"{mine['accuracy']:.2f}" == row["accuracy"], value
            n += 1
    assert n == 74
    # every verdict the file stores is the one recomputed: no disagreement note
    assert not any("verdicts stored" in note for note in r.notes)
    assert r.data.reported is not None and r.data.reported["toolkit"] == "MathVista"


@pytest.mark.shared
def test_llava_under_each_profile(shared_data: Path) -> None:
    out = shared_data / "mathvista" / "official" / "output_llava_llama_2_13b.json"
    # the file's precision is an int (1, 2), so the 2024 rounding bug does not bite here
    assert evaluate_task("mathvista", out, profile="official-2024").metrics["correct"] == 261
    assert evaluate_task("mathvista", out, profile="lmms-eval").metrics["correct"] == 261
    vk = evaluate_task("mathvista", out, profile="vlmevalkit")
    assert vk.metrics["hit"] == 258
    assert any("3 of the 1000 verdicts stored" in n for n in vk.notes)


@pytest.mark.shared
def test_llava_cli_shows_the_score_file_beside_ours(
    shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = shared_data / "mathvista" / "official" / "output_llava_llama_2_13b.json"
    assert main(["score", "mathvista", "--results", str(out)]) == 0
    text = capsys.readouterr().out
    assert "reported by MathVista (" in text and "multi_choice / correct" in text
    assert "the numbers differ" not in text
    assert main(["score", "mathvista", "--results", str(out), "--profile", "vlmevalkit"]) == 0
    assert "not compared under profile vlmevalkit" in capsys.readouterr().out


def test_why_mathvista_numbers_disagree_page_is_up_to_date() -> None:
    import importlib.util

    generator = (
        Path(__file__).resolve().parents[2] / "docs" / "gen_why_mathvista_numbers_disagree.py"
    )
    spec = importlib.util.spec_from_file_location("gen_why_mathvista", generator)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = module.OUTPUT.read_text(encoding="utf-8")
    assert committed == module.render(), (
        "docs/why-mathvista-numbers-disagree.md is stale: run "
        "python docs/gen_why_mathvista_numbers_disagree.py"
    )
    # the page's rows agree with the shared cases where they overlap (spec §9)
    assert "| a letter with a dot | `B.` | choice | `8/11` | `3/5` → wrong" in committed
    assert "| free-form text | `east` | text | `east` | raises (UnboundLocalError)" in committed


def test_answers_from_annotations_and_the_ignore_empty_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    choice = {
        "question_type": "multi_choice",
        "answer_type": "text",
        "choices": FRACTIONS,
        "extraction": "",
    }
    p = _problem("1", **choice)
    del p["answer"]
    f = _write(tmp_path, [p])
    with pytest.raises(InputError, match="annotations="):
        evaluate_task("mathvista", f)
    ann = tmp_path / "testmini.json"
    ann.write_text(json.dumps({"1": {"pid": "1", "answer": "3/5"}}), encoding="utf-8")
    # the empty extraction lands on the shortest choice, 3/5 ...
    assert evaluate_task("mathvista", f, annotations=ann).scores == [1.0]
    # ... unless the official flag makes it None
    args = ["score", "mathvista", "--results", str(f), "--annotations", str(ann), "--json"]
    assert main([*args, "--ignore-empty-extractions", "yes"]) == 0
    assert json.loads(capsys.readouterr().out)["metrics"]["correct"] == 0


def test_lmms_eval_results_json_is_set_beside_ours_in_percent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recs = []
    for i, ext in enumerate(["3", "4", "3"]):
        rec = {
            "question_id": str(i),
            "answer": "3",
            "extraction": ext,
            "true_false": ext == "3",
            "question_type": "free_form",
            "answer_type": "integer",
            "precision": None,
            "choices": None,
            "metadata": {"skills": ["a"]},
        }
        recs.append({"doc_id": i, "filtered_resps": [ext], "llm_as_judge_eval": rec})
    f = tmp_path / "20250101_samples_mathvista_testmini_format.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    # lmms-eval's aggregate: round(2 / 3 * 100, 2), already a percentage
    (tmp_path / "20250101_results.json").write_text(
        json.dumps({"results": {"mathvista_testmini_format": {"llm_as_judge_eval,none": 66.67}}}),
        encoding="utf-8",
    )
    assert main(["score", "mathvista", "--results", str(f), "--profile", "lmms-eval"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "llm_as_judge_eval,none" in line)
    assert "66.67" in row and "6667" not in row


def test_a_null_extraction_is_the_text_none(tmp_path: Path) -> None:
    # str(None) = "None" is what the official code compares: for choices it is the nearest one
    p = _problem("1", question_type="multi_choice", answer_type="text", choices=["Yes", "No"])
    p.update(extraction=None, answer="No")
    f = _write(tmp_path, [p, _problem("2", extraction=None)])
    r = evaluate_task("mathvista", f)
    # "None" is 2 edits from "No", 4 from "Yes"; an integer problem refuses it
    assert r.scores == [1.0, 0.0]
    assert any("2 extraction(s) are null" in n for n in r.notes)


def test_a_sheet_without_precision_says_floats_cannot_be_rounded(tmp_path: Path) -> None:
    sheet = tmp_path / "m_MathVista_MINI_gpt-4o-mini.csv"
    sheet.write_text(
        "index,question,answer,prediction,res,question_type,answer_type,choices,task,skills\n"
        "1,q,1.5,x,1.5,free_form,float,[],t,\"['a']\"\n",
        encoding="utf-8",
    )
    assert evaluate_task("mathvista", sheet, profile="vlmevalkit").scores == [1.0]
    r = evaluate_task("mathvista", sheet, profile="official")
    assert r.scores == [0.0] and any("no 'precision' column" in n for n in r.notes)


def test_a_problem_given_twice_is_an_error(tmp_path: Path) -> None:
    f = tmp_path / "output_m.json"
    f.write_text(json.dumps([_problem("1"), _problem("1")]), encoding="utf-8")
    with pytest.raises(InputError, match="duplicate pid '1'"):
        evaluate_task("mathvista", f)


@given(st.text(max_size=12), st.text(max_size=12))
def test_levenshtein_is_the_standard_edit_distance(a: str, b: str) -> None:
    # an independent implementation as the oracle (python-Levenshtein's is what MathVista calls)
    rapidfuzz = pytest.importorskip("rapidfuzz.distance")
    assert levenshtein(a, b) == rapidfuzz.Levenshtein.distance(a, b)
