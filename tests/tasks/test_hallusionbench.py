"""HallusionBench: the official verdict-based scorer, lmms-eval's rounding, VLMEvalKit's yes/no
rating (cases of mcq-reasoning-cases.json) and VILA-1.5-8B's reported VLMEvalKit numbers."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.kernels.hallusion import HallusionScoreError, verdict_code
from vqametrics.tasks import score_answer
from vqametrics.tasks._run import evaluate_task
from vqametrics.tasks._yesno import yorn_extraction

CASES = Path(__file__).resolve().parents[1] / "data" / "mcq-reasoning-cases.json"


def _cases() -> list[dict[str, Any]]:
    data = json.loads(CASES.read_text(encoding="utf-8"))
    cases: list[dict[str, Any]] = data["hallusionbench_aggregate"]
    return cases


def _records(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The case's records as a VLMEvalKit-like table (its ``vlmevalkit_index`` as ``index``)."""
    out = []
    for r in case["input"]["records"]:
        row = dict(r)
        row["index"] = row.pop("vlmevalkit_index")
        out.append(row)
    return out


def _official_dicts(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The case's records as the official files hold them (no index, verdict in the official
    field, the answer in ``model_prediction``)."""
    out = []
    for r in case["input"]["records"]:
        row = {k: v for k, v in r.items() if k not in ("vlmevalkit_index", "answer", "judge")}
        row["model_prediction"] = row.pop("prediction")
        row["gpt4v_output_gpt_check"] = r["judge"]
        out.append(row)
    return out


CASE_IDS = [c["id"] for c in _cases()]


@pytest.mark.parametrize("case", _cases(), ids=CASE_IDS)
def test_official_cases(case: dict[str, Any]) -> None:
    expected = case["expected"]["official"]
    r = evaluate_task("hallusionbench", _records(case), profile="official", verdict_field="judge")
    got = {k: r.metrics[k] for k in expected}
    # evaluation.py prints round(x, 4); the cases hold those values
    got = {k: round(v, 4) if isinstance(v, float) else v for k, v in got.items()}
    assert got == expected


@pytest.mark.parametrize("case", _cases(), ids=CASE_IDS)
def test_official_cases_from_official_records(case: dict[str, Any]) -> None:
    expected = case["expected"]["official"]
    r = evaluate_task("hallusionbench", _official_dicts(case), profile="official")
    assert round(r.metrics["aAcc"], 4) == expected["aAcc"]
    assert round(r.metrics["fAcc"], 4) == expected["fAcc"]
    assert round(r.metrics["qAcc"], 4) == expected["qAcc"]
    assert r.signature.format().count("judge:recorded") == 1


@pytest.mark.parametrize("case", _cases(), ids=CASE_IDS)
def test_lmms_eval_rounds_the_official_numbers(case: dict[str, Any]) -> None:
    # lmms-eval runs the official aggregators and returns round(100 * c / t, 4): the cases'
    # official values, exactly
    expected = case["expected"]["official"]
    r = evaluate_task("hallusionbench", _official_dicts(case), profile="lmms-eval")
    for key in ("aAcc", "fAcc", "qAcc"):
        assert r.metrics[key] == expected[key]
    assert "LH" not in r.metrics


@pytest.mark.parametrize("case", _cases(), ids=CASE_IDS)
def test_vlmevalkit_cases(case: dict[str, Any]) -> None:
    expected = case["expected"]["vlmevalkit_hallusion_rating"]
    records = _records(case)
    assert [yorn_extraction(r["prediction"]) for r in records] == expected["extracted"]
    r = evaluate_task("hallusionbench", records, profile="vlmevalkit")
    overall = {k: v for k, v in expected["Overall"].items() if k != "split"}
    assert {k: r.metrics[k] for k in overall} == overall
    assert r.metrics["opencompass_mean"] == expected["Overall_mean_of_3"]
    splits = r.aggregate.breakdowns["split"]
    assert set(splits) == {"Overall", *expected["by_split"]}
    for name, numbers in expected["by_split"].items():
        assert {k: splits[name][k] for k in numbers} == numbers


# ---------------------------------------------------------------------------- quirks


def test_incorrect_is_tested_before_correct() -> None:
    assert verdict_code("Incorrect.") == "0"
    assert verdict_code("The prediction is not incorrect") == "0"
    assert verdict_code("correct") == "1"
    assert verdict_code("I cannot tell") == "2"


def _rec(cat: str, sub: str, s: str, f: str, q: str, vi: str, v: str, **kw: Any) -> dict[str, Any]:
    return {
        "category": cat,
        "subcategory": sub,
        "set_id": s,
        "figure_id": f,
        "question_id": q,
        "visual_input": vi,
        "model_prediction": kw.pop("pred", "Yes"),
        "gpt4v_output_gpt_check": v,
        "same": kw.pop("same", "0"),
        **kw,
    }


def test_unclear_counts_as_correct_only_on_vs_without_figure() -> None:
    # hand-derived from assign_correctness
    assert score_answer("hallusionbench", "?", [], category="VS", figure_id="0", verdict="2") == 1
    assert score_answer("hallusionbench", "?", [], category="VS", figure_id="1", verdict="2") == 0
    assert score_answer("hallusionbench", "?", [], category="VD", figure_id="0", verdict="2") == 0


def test_official_figure_accuracy_skips_vs_without_figure() -> None:
    recs = [
        _rec("VS", "chart", "0", "0", "0", "0", "0"),  # no figure: wrong, not a figure
        _rec("VS", "chart", "0", "1", "0", "2", "1"),
    ]
    r = evaluate_task("hallusionbench", recs, profile="official")
    assert r.metrics["n_figures"] == 1
    assert r.metrics["fAcc"] == 100.0
    assert r.metrics["aAcc"] == 50.0


def test_vlmevalkit_merges_vd_and_vs_groups_sharing_l2_and_set() -> None:
    # QUIRK no-category-in-groups: l2-category "ocr" and set 0 figure 0 in VD and VS are one
    # figure to Hallusion_rating (2 rows, one wrong: fAcc 0); the official scorer keeps two
    recs = [
        {"index": "VD_ocr_1_0_0_0", "category": "VD", "l2-category": "ocr", "answer": "Yes",
         "prediction": "Yes"},
        {"index": "VS_ocr_1_0_0_0", "category": "VS", "l2-category": "ocr", "answer": "Yes",
         "prediction": "No"},
    ]  # fmt: skip
    r = evaluate_task("hallusionbench", recs, profile="vlmevalkit")
    assert r.metrics["fAcc"] == 0.0
    assert r.metrics["qAcc"] == 0.0
    assert r.aggregate.breakdowns["split"]["VD"]["fAcc"] == 100.0


def test_no_hard_question_is_the_official_division_by_zero() -> None:
    recs = [_rec("VD", "math", "0", "0", "0", "1", "1")]
    with pytest.raises(HallusionScoreError, match="hard question"):
        evaluate_task("hallusionbench", recs, profile="official")


def test_missing_verdict_names_item_field_and_remedy() -> None:
    recs = [
        _rec("VD", "math", "0", "0", "0", "1", "1"),
        _rec("VD", "math", "0", "1", "0", "2", "1"),
    ]
    del recs[1]["gpt4v_output_gpt_check"]
    with pytest.raises(InputError) as err:
        evaluate_task("hallusionbench", recs, profile="official")
    msg = str(err.value)
    assert "VD_math_0_1_0" in msg and "gpt4v_output_gpt_check" in msg and "verdicts=" in msg
    assert "\n" not in msg


def test_duplicate_question_is_an_error() -> None:
    recs = [
        _rec("VD", "math", "0", "0", "0", "1", "1"),
        _rec("VD", "math", "0", "0", "0", "1", "0"),
    ]
    with pytest.raises(InputError, match="again"):
        evaluate_task("hallusionbench", recs, profile="official")


def test_diagnosis_needs_same_and_says_so() -> None:
    # VD, original right, edited wrong: the diagnosis reads 'same'; without it, left out
    recs = [
        _rec("VD", "math", "0", "0", "0", "1", "1"),
        _rec("VD", "math", "0", "1", "0", "2", "0"),
    ]
    del recs[1]["same"]
    r = evaluate_task("hallusionbench", recs, profile="official")
    assert "LH" not in r.metrics
    assert any("check_same" in n for n in r.notes)
    assert r.metrics["qAcc"] == 0.0
    recs[1]["same"] = "1"  # same answer on the edited figure: Mixed
    r = evaluate_task("hallusionbench", recs, profile="official")
    assert (r.metrics["LH"], r.metrics["VI"], r.metrics["Mix"]) == (0, 0, 1)


def test_judge_caches_beside_the_result_file(tmp_path: Path) -> None:
    case = _cases()[0]
    full = _official_dicts(case)
    bare = [
        {k: v for k, v in r.items() if k not in ("gpt4v_output_gpt_check", "same")} for r in full
    ]
    (tmp_path / "HallusionBench_result.json").write_text(json.dumps(bare), encoding="utf-8")
    vd = [r for r in full if r["category"] == "VD"]
    vs = [dict(r) for r in full if r["category"] == "VS"]
    vs[0]["model_prediction"] = "something else"
    (tmp_path / "hallusion_output_vd_model.json").write_text(json.dumps(vd), encoding="utf-8")
    (tmp_path / "hallusion_output_vs_model.json").write_text(json.dumps(vs), encoding="utf-8")
    r = evaluate_task("hallusionbench", tmp_path / "HallusionBench_result.json")
    assert round(r.metrics["aAcc"], 4) == case["expected"]["official"]["aAcc"]
    assert any("judge verdicts read from" in n for n in r.notes)
    assert any("1 answer(s) the recorded verdicts judged differ" in n for n in r.notes)


def test_lmms_eval_log_with_its_gpt_response_caches(tmp_path: Path) -> None:
    case = _cases()[1]
    full = _official_dicts(case)
    log = tmp_path / "model" / "20250101_samples_hallusion_bench_image.jsonl"
    log.parent.mkdir()
    lines = []
    for i, r in enumerate(full):
        doc = {k: v for k, v in r.items() if k not in ("gpt4v_output_gpt_check", "same")}
        doc.pop("model_prediction")
        lines.append(json.dumps({"doc_id": i, "doc": doc, "target": "",
                                 "filtered_resps": [r["model_prediction"]]}))  # fmt: skip
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    caches = tmp_path / "gpt_response"
    caches.mkdir()
    vd = [dict(r, gpt_answer="...\nOutput:" + {"0": "incorrect", "1": "correct"}[
        r["gpt4v_output_gpt_check"]]) for r in full]  # fmt: skip
    vd[0]["gpt_answer"] = "...\nOutput: Incorrect"  # stored 1, reply says 0
    (caches / "hallusion_output_vd_model.json").write_text(json.dumps(vd), encoding="utf-8")
    r = evaluate_task("hallusionbench", log, profile="lmms-eval")
    assert r.metrics["aAcc"] == case["expected"]["official"]["aAcc"]
    assert any("1 stored verdict(s) differ" in n and "VD_illusion_0_0_0" in n for n in r.notes)


# ---------------------------------------------------------------------------- real data


def _reported(path: Path) -> dict[str, dict[str, float]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return {
            row["split"]: {k: float(row[k]) for k in ("aAcc", "fAcc", "qAcc")}
            for row in csv.DictReader(fh)
        }


@pytest.mark.shared
@pytest.mark.parametrize(
    "name", ["vila_8b_HallusionBench.xlsx", "vila_8b_HallusionBench_auxmatch.xlsx"]
)
def test_vila_reproduces_vlmevalkit(shared_data: Path, name: str) -> None:
    pytest.importorskip("openpyxl")
    folder = shared_data / "hallusionbench" / "vlmevalkit"
    r = evaluate_task("hallusionbench", folder / name, profile="vlmevalkit")
    assert r.metrics["aAcc"] == 52.26077812828601
    assert r.metrics["fAcc"] == 22.254335260115607
    assert r.metrics["qAcc"] == 20.659340659340657
    reported = _reported(folder / "vila_8b_HallusionBench_score.csv")
    splits = r.aggregate.breakdowns["split"]
    assert set(splits) == set(reported)
    for split, numbers in reported.items():
        assert {k: splits[split][k] for k in numbers} == numbers, split
    assert r.metrics["opencompass_mean"] == pytest.approx(
        (52.26077812828601 + 22.254335260115607 + 20.659340659340657) / 3, abs=1e-12
    )
    assert r.data.reported is not None  # the _score.csv, found beside either sheet
    assert r.data.reported["values"]["Overall"]["aAcc"] == 52.26077812828601
    assert any("21 answer(s) are neither yes nor no" in n for n in r.notes)


@pytest.mark.shared
def test_vila_official_profile_asks_for_verdicts(shared_data: Path) -> None:
    pytest.importorskip("openpyxl")
    xlsx = shared_data / "hallusionbench" / "vlmevalkit" / "vila_8b_HallusionBench.xlsx"
    with pytest.raises(InputError, match=r"VD_illusion_1_0_0_0.*no judge verdict"):
        evaluate_task("hallusionbench", xlsx)


@pytest.mark.shared
def test_vila_cli(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("openpyxl")
    xlsx = shared_data / "hallusionbench" / "vlmevalkit" / "vila_8b_HallusionBench_auxmatch.xlsx"
    code = main(["score", "hallusionbench", "--results", str(xlsx), "--profile", "vlmevalkit",
                 "--json"])  # fmt: skip
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"]["aAcc"] == 52.26077812828601
    assert out["reported"]["values"]["VD_ocr"]["qAcc"] == 46.51162790697674


@settings(max_examples=50, deadline=None)
@given(st.permutations(range(7)), st.lists(st.sampled_from("012"), min_size=7, max_size=7))
def test_official_numbers_do_not_depend_on_record_order(
    order: list[int], verdicts: list[str]
) -> None:
    # every official count is a count over keyed groups: reordering the records changes none
    recs = _official_dicts(_cases()[0])
    for r, v in zip(recs, verdicts, strict=True):
        r["gpt4v_output_gpt_check"] = v
    a = evaluate_task("hallusionbench", recs, profile="official")
    b = evaluate_task("hallusionbench", [recs[i] for i in order], profile="official")
    assert dict(a.metrics) == dict(b.metrics)


@given(st.text(max_size=30))
def test_a_verdict_is_always_a_code(reply: str) -> None:
    code = verdict_code(reply)
    assert code in ("0", "1", "2")
    assert (code == "0") == ("incorrect" in reply.lower())


def test_a_verdict_code_out_of_range_is_an_error() -> None:
    recs = [_rec("VD", "math", "0", "0", "0", "1", "7")]
    with pytest.raises(InputError, match=r"item 1: gpt4v_output_gpt_check '7' is not a verdict"):
        evaluate_task("hallusionbench", recs, profile="official")


def test_a_raw_reply_in_the_verdict_field_is_coded() -> None:
    recs = [
        _rec("VD", "math", "0", "0", "0", "1", "The prediction is incorrect."),
        _rec("VD", "math", "0", "1", "0", "2", "Correct"),
    ]
    r = evaluate_task("hallusionbench", recs, profile="official")
    assert r.scores == [0.0, 1.0]


@pytest.mark.parametrize("profile", ["official", "lmms-eval", "vlmevalkit"])
def test_answers_in_sentences_get_no_verbose_warning(profile: str) -> None:
    # issue 22: the recorded GPT verdicts (official, lmms-eval) and the YOrN rule (VLMEvalKit)
    # read sentences by design; none of them says "N of N predictions look verbose"
    case = _cases()[0]
    rows = _official_dicts(case) if profile != "vlmevalkit" else _records(case)
    key = "model_prediction" if profile != "vlmevalkit" else "prediction"
    for row in rows:
        row[key] = f"Looking at the figure carefully, my answer is {row[key]}."
    r = evaluate_task("hallusionbench", rows, profile=profile)
    assert r.diagnostics is None
