"""GQA: eval.py v1.1's suite and the front-ends' exact matches (spec vqa-family §4).

Expected values come from the spec's cases (``gqa_exact_match``, ``gqa_suite``) or are
derived by hand from eval.py's rules; the fixtures are synthetic (the GQA data licence is not
established, so no GQA data is bundled).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vqametrics.cli import main
from vqametrics.tasks import get_task, score_answer
from vqametrics.tasks._run import evaluate_task
from vqametrics.tasks.gqa import belongs, chi_square, llava_convert, qwen_vl_clean

from .conftest import case_params, family_cases

PROFILES = {
    "official": "official",
    "llava_convert_then_official": "llava",
    "lmms_eval": "lmms-eval",
    "vlmevalkit": "vlmevalkit",
    "qwen_vl": "qwen-vl",
}


@pytest.mark.parametrize(("case", "profile", "expected"), case_params("gqa_exact_match", PROFILES))
def test_exact_match_cases(case: dict[str, Any], profile: str, expected: float) -> None:
    inp = case["input"]
    assert score_answer("gqa", inp["prediction"], [inp["gold"]], profile=profile) == expected


def _suite_inputs(case: dict[str, Any]) -> tuple[list[dict[str, str]], dict[str, Any]]:
    inp = case["input"]
    preds = [{"questionId": k, "prediction": v} for k, v in inp["predictions"].items()]
    return preds, inp["questions"]


def _printed(metrics: Any) -> list[str]:
    """eval.py's print loop over our metrics: ``{Title}: {:.2f}%``, distribution without %."""
    lines = []
    for m in ("binary", "open", "accuracy", "consistency", "validity", "plausibility"):
        if m in metrics:
            lines.append(f"{m.capitalize()}: {metrics[m]:.2f}%")
    lines.append(f"Distribution: {metrics['distribution']:.2f} (lower is better)")
    return lines


def test_suite_official_with_choices_and_consistency() -> None:
    case = family_cases("gqa_suite")[0]
    preds, questions = _suite_inputs(case)
    r = evaluate_task("gqa", preds, questions=questions, choices=case["input"]["choices"])
    exp = case["expected"]["official"]
    for key in ("accuracy", "binary", "open", "validity", "plausibility", "consistency"):
        assert r.metrics[key] == exp[key], key
    assert r.metrics["distribution"] == exp["distribution"]
    assert _printed(r.metrics) == case["expected"]["official_printed"]
    names = {
        "structural": "accuracyPerStructuralType",
        "semantic": "accuracyPerSemanticType",
        "steps": "accuracyPerSteps",
        "words": "accuracyPerLength",
    }
    for ours, theirs in names.items():
        got = {k: [v["accuracy"], v["n"]] for k, v in r.aggregate.breakdowns[ours].items()}
        assert got == exp[theirs], ours
    assert r.metrics["n"] == 5  # question 6 is unbalanced
    assert any("grounding" in n and "sceneGraphs" in n for n in r.notes)


def test_suite_patched_numbers_and_llava_profile() -> None:
    case = family_cases("gqa_suite")[1]
    preds, questions = _suite_inputs(case)
    exp = case["expected"]["llava_patched"]
    # the patched eval.py without the converter: the official suite minus validity etc.
    r = evaluate_task("gqa", preds, questions=questions)
    for key in ("accuracy", "binary", "open", "distribution"):
        assert r.metrics[key] == exp[key], key
    assert "validity" not in r.metrics
    assert any("--choices" in n for n in r.notes)
    # the llava profile: validity and plausibility are not reported as LLaVA's fake 0.00
    llava = evaluate_task("gqa", preds, questions=questions, profile="llava")
    assert exp["validity"] == 0 and "validity" not in llava.metrics
    assert "plausibility" not in llava.metrics and "consistency" not in llava.metrics
    assert any("Validity: 0.00%" in n for n in llava.notes)
    # its converter lower-cases "No" (question 3, gold "no"): one more correct binary answer
    assert llava.metrics["accuracy"] == 40.0
    assert llava.metrics["binary"] == 1 / 3 * 100  # avg × 100, as eval.py


def test_printed_breakdown_keys_are_raw() -> None:
    # quirk: eval.py's renaming tests a stale loop variable, so "attr" is printed as is
    case = family_cases("gqa_suite")[0]
    preds, questions = _suite_inputs(case)
    r = evaluate_task("gqa", preds, questions=questions)
    assert list(r.aggregate.breakdowns["semantic"]) == ["attr", "obj"]
    # printed order: sorted, numbers as numbers
    assert list(r.aggregate.breakdowns["words"]) == ["4", "5", "7", "10"]


def test_common_questions_accept_color_material_shape() -> None:
    # quirk: belongs() replaces the choices by [color, material, shape] for *Common types
    assert belongs("shape", ["nothing"], "twoCommon")
    assert not belongs("nothing", ["nothing"], "twoCommon")
    assert belongs("red", ["red"], "directWhich")
    assert not belongs(None, ["red"], "directWhich")


def test_chi_square_by_hand() -> None:
    # group A: gold {x: 2, y: 1}, predicted {x: 1, z: 2} → (1-2)²/2 + (0-1)²/1 = 1.5, n = 3
    # group B: gold {u: 1}, predicted {u: 1} → 0, n = 1; chi2 = (1.5·3 + 0·1) / 4 = 1.125
    gold = {"A": {"x": 2, "y": 1}, "B": {"u": 1}}
    pred = {"A": {"x": 1, "z": 2}, "B": {"u": 1}}
    assert chi_square(gold, pred) == 1.125


def _q(
    answer: str,
    *,
    structural: str = "query",
    balanced: bool = True,
    group: str | None = None,
    entailed: list[str] | None = None,
    question: str = "What is it?",
) -> dict[str, Any]:
    return {
        "question": question,
        "answer": answer,
        "isBalanced": balanced,
        "types": {"structural": structural, "semantic": "obj", "detailed": "objThisChoose"},
        "groups": {"global": group, "local": None},
        "entailed": entailed or [],
        "semantic": [{"operation": "select", "argument": "x"}],
    }


def test_empty_average_is_zero() -> None:
    # avg([]) = 0: no binary question, so "Binary: 0.00%"
    questions = {"a": _q("cat"), "b": _q("dog")}
    r = evaluate_task("gqa", {"a": "cat", "b": "cat"}, questions=questions)
    assert r.metrics["binary"] == 0
    assert r.metrics["open"] == 50.0
    assert any("distribution is not computed" in n for n in r.notes)


def test_average_then_times_100() -> None:
    # avg(l) * 100, not 100 * sum / n: 1/3 * 100 = 33.33333333333333 (100/3 = …336)
    questions = {k: _q("x") for k in "abc"}
    r = evaluate_task("gqa", {"a": "x", "b": "y", "c": "y"}, questions=questions)
    assert r.metrics["accuracy"] == 33.33333333333333


def test_steps_and_words() -> None:
    from vqametrics.tasks._gqa_read import steps_number, words_number

    program = [
        {"operation": "select", "argument": "table"},
        {"operation": "exist", "argument": "?"},
        {"operation": "query", "argument": "name"},
        {"operation": "choose name", "argument": "a|b"},
        {"operation": "relate", "argument": "existing,on,s"},
    ]
    # "exist", "query: name" and "choose name" are substring tests: "relate: existing,…"
    # contains "exist" and does not count either
    assert steps_number(program) == 1
    assert words_number("  Is the  cup red? ") == 4


def test_qwen_vl_split_takes_the_text_between_occurrences() -> None:
    # "this " contains "is ": split("is ")[1] is the empty text between the two occurrences
    assert qwen_vl_clean("This is a picture of a cat.") == ""
    assert qwen_vl_clean("The color is blue") == "blue"
    assert qwen_vl_clean("Yes, it is") == "yes"


def test_consistency_needs_entailed_questions() -> None:
    questions = {"a": _q("red", entailed=["z"]), "b": _q("blue")}
    r = evaluate_task("gqa", {"a": "red", "b": "blue"}, questions=questions)
    assert "consistency" not in r.metrics
    note = next(n for n in r.notes if n.startswith("consistency"))
    assert "'z'" in note and "all_questions" in note


def test_consistency_uses_unbalanced_entailed_questions() -> None:
    # a and b correct; a entails c (unbalanced, wrong) and b: avg(0, 1) = 0.5; b entails a: 1
    questions = {
        "a": _q("red", entailed=["a", "c", "b"]),
        "b": _q("blue", entailed=["a"]),
        "c": _q("yes", balanced=False),
    }
    r = evaluate_task("gqa", {"a": "red", "b": "blue", "c": "no"}, questions=questions)
    assert r.metrics["consistency"] == 75.0
    assert r.metrics["n"] == 2


def test_missing_unbalanced_prediction(capsys: pytest.CaptureFixture[str]) -> None:
    questions = {"a": _q("red"), "u": _q("yes", balanced=False)}
    with pytest.raises(ValueError, match=r"'u'.*KeyError.*allow_missing=True"):
        evaluate_task("gqa", {"a": "red"}, questions=questions)
    r = evaluate_task("gqa", {"a": "red"}, questions=questions, allow_missing=True)
    assert r.metrics["accuracy"] == 100.0 and r.data.n_missing == 0
    assert any("unbalanced" in n and "skipped" in n for n in r.notes)


def test_missing_balanced_prediction_scores_zero_when_allowed() -> None:
    questions = {"a": _q("red"), "b": _q("blue")}
    with pytest.raises(ValueError, match="'b'"):
        evaluate_task("gqa", {"a": "red"}, questions=questions)
    r = evaluate_task("gqa", {"a": "red"}, questions=questions, allow_missing=True)
    assert r.metrics["accuracy"] == 50.0 and r.data.n_missing == 1


def _write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def test_cli_llava_answers_and_choices(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = family_cases("gqa_suite")[0]
    q = _write(tmp_path / "testdev_questions.json", case["input"]["questions"])
    c = _write(tmp_path / "testdev_choices.json", case["input"]["choices"])
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        "".join(
            json.dumps({"question_id": k, "prompt": "p", "text": v}) + "\n"
            for k, v in case["input"]["predictions"].items()
        ),
        encoding="utf-8",
    )
    argv = ["score", "gqa", "--results", str(answers), "--questions", str(q), "--json"]
    assert main([*argv, "--choices", str(c)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"]["validity"] == 60.0
    assert out["signature"].startswith("gqa-acc|profile:official|toolkit:gqa-eval@1.1|n:5|")
    assert main([*argv, "--profile", "lmms-eval"]) == 0
    out = json.loads(capsys.readouterr().out)
    # lmms-eval: red, No (→ no) correct of 5
    assert out["metrics"]["exact_match"] == 0.4 and out["units"] == "fraction"


def test_chunked_questions_folder(tmp_path: Path) -> None:
    # loadFile("x.json") reads x/x_*.json when x.json does not exist
    # a dotted parent folder: eval.py would split the whole path at its first dot
    folder = tmp_path / "gqa.v1.1" / "train_all_questions"
    folder.mkdir(parents=True)
    _write(folder / "train_all_questions_0.json", {"a": _q("red")})
    _write(folder / "train_all_questions_1.json", {"b": _q("blue")})
    preds = [{"questionId": "a", "prediction": "red"}, {"questionId": "b", "prediction": "x"}]
    for source in (folder, folder.parent / "train_all_questions.json"):
        r = evaluate_task("gqa", preds, questions=source)
        assert r.metrics["accuracy"] == 50.0


def test_bad_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    preds = _write(tmp_path / "p.json", [{"questionId": "a", "prediction": "red"}])
    not_dict = _write(tmp_path / "q.json", [{"question": "x"}])
    bad_q = _write(tmp_path / "q2.json", {"a": {"question": "x", "answer": "red"}})
    good_q = _write(tmp_path / "q3.json", {"a": _q("red")})
    no_choice = _write(tmp_path / "c.json", {"b": {"valid": [], "plausible": []}})
    runs = [
        (["--questions", str(not_dict)], "q.json: expected a JSON object"),
        (["--questions", str(bad_q)], "q2.json: question 'a': 'isBalanced'"),
        ([], "questions file is needed"),
        (["--questions", str(good_q), "--choices", str(no_choice)], "no choices for balanced"),
        (["--questions", str(good_q), "--profile", "nope"], "no profile 'nope'"),
    ]
    for extra, message in runs:
        assert main(["score", "gqa", "--results", str(preds), *extra]) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err, (extra, err)


def test_extra_predictions_are_an_error_unless_ignored(tmp_path: Path) -> None:
    questions = {"a": _q("red")}
    with pytest.raises(ValueError, match=r"'b'.*ignore_extra=True"):
        evaluate_task("gqa", {"a": "red", "b": "x"}, questions=questions)
    r = evaluate_task("gqa", {"a": "red", "b": "x"}, questions=questions, ignore_extra=True)
    assert r.metrics["accuracy"] == 100.0 and r.data.n_extra_ignored == 1


def test_profiles_listed() -> None:
    names = [p.name for p in get_task("gqa").profiles]
    assert names == ["official", "llava", "lmms-eval", "vlmevalkit", "qwen-vl"]


@given(st.text(max_size=12), st.text(max_size=12))
def test_official_is_raw_equality(pred: str, gold: str) -> None:
    assert score_answer("gqa", pred, [gold]) == (1.0 if pred == gold else 0.0)


@given(st.text(max_size=12), st.text(max_size=12))
def test_llava_is_official_after_its_converter(pred: str, gold: str) -> None:
    once = llava_convert(pred)
    assert llava_convert(once) == once
    assert score_answer("gqa", pred, [gold], profile="llava") == score_answer("gqa", once, [gold])


@given(st.lists(st.tuples(st.sampled_from(["query", "verify"]), st.booleans()), min_size=1))
def test_accuracy_splits_into_open_and_binary(rows: list[tuple[str, bool]]) -> None:
    questions = {str(i): _q("x", structural=s) for i, (s, _) in enumerate(rows)}
    preds = {str(i): "x" if ok else "y" for i, (_, ok) in enumerate(rows)}
    m = evaluate_task("gqa", preds, questions=questions).metrics
    n_open = sum(1 for s, _ in rows if s == "query")
    n_bin = len(rows) - n_open
    assert m["accuracy"] == pytest.approx(100 * sum(ok for _, ok in rows) / len(rows))
    assert m["accuracy"] * len(rows) == pytest.approx(m["open"] * n_open + m["binary"] * n_bin)


def test_vlmevalkit_spreadsheet_without_questions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "model_GQA_TestDev_Balanced.tsv"
    f.write_text(
        "index\tquestion\tanswer\tcategory\tprediction\n"
        "0\tq\tyes\tA\t Yes \n"
        "1\tq\ttable\tA\tyes.\n"
        "2\tq\tno\tB\tNo\n",
        encoding="utf-8",
    )
    assert main(["score", "gqa", "--results", str(f), "--profile", "vlmevalkit", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # strip + lower: rows 0 and 2 match, row 1 does not; np.mean × 100
    assert out["metrics"]["Overall"] == 2 / 3 * 100
    assert out["breakdowns"]["category"] == {
        "A": {"accuracy": 50.0, "n": 2},
        "B": {"accuracy": 100.0, "n": 1},
    }
    # the official profile on the same file: raw ==, accuracy only, and a note saying why
    assert main(["score", "gqa", "--results", str(f), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"] == {"accuracy": 0, "n": 3}
    assert any("--questions" in n for n in out["notes"])


def test_vlmevalkit_averages_over_answers() -> None:
    # GQA falls to hit_calculate's default branch: the mean over the answers, not the max
    assert score_answer("gqa", "red", ["red", "blue"], profile="vlmevalkit") == 0.5
    assert score_answer("gqa", "red", ["red", "blue"], profile="lmms-eval") == 1.0


@given(
    st.lists(
        st.tuples(st.sampled_from(["red", "blue", "yes"]), st.sampled_from(["color", "x", None])),
        min_size=1,
        max_size=20,
    )
)
def test_perfect_answers_have_zero_distribution(rows: list[tuple[str, str | None]]) -> None:
    questions = {str(i): _q(a, group=g) for i, (a, g) in enumerate(rows)}
    preds = {str(i): a for i, (a, _) in enumerate(rows)}
    r = evaluate_task("gqa", preds, questions=questions)
    assert r.metrics["accuracy"] == 100.0
    if any(g is not None for _, g in rows):
        assert r.metrics["distribution"] == 0.0
    else:
        assert "distribution" not in r.metrics


# -- lmms-eval --log_samples logs ------------------------------------------------------------
# The record layout is lmms-eval@75571cf's (evaluator.py; tasks/gqa/gqa.yaml): doc is the
# lmms-lab-encoder/GQA testdev_balanced_instructions row (id = the question id, imageId,
# question, answer), target = doc.answer, and the default process_results adds exact_match.

#: lmms-eval's exact_match on the suite case, by hand (lower-case, ASCII punctuation deleted):
#: red = red, no ≠ yes, No → no, shape ≠ color, purple ≠ blue
_SUITE_TOOLKIT = [1.0, 0.0, 1.0, 0.0, 0.0]


def _lmms_log(path: Path, case: dict[str, Any], *, with_doc: bool = True) -> Path:
    questions = case["input"]["questions"]
    balanced = [k for k, q in questions.items() if q["isBalanced"]]
    lines = []
    for i, (qid, score) in enumerate(zip(balanced, _SUITE_TOOLKIT, strict=True)):
        q = questions[qid]
        row: dict[str, Any] = {
            "doc_id": i,
            "target": q["answer"],
            "filtered_resps": [case["input"]["predictions"][qid]],
            "exact_match": score,
        }
        if with_doc:
            row["doc"] = {
                "id": qid,
                "imageId": "n1",
                "question": q["question"],
                "answer": q["answer"],
            }
        lines.append(json.dumps(row) + "\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


def test_lmms_eval_log_with_doc_alone_is_accuracy_only(tmp_path: Path) -> None:
    case = family_cases("gqa_suite")[0]
    preds, questions = _suite_inputs(case)
    log = _lmms_log(tmp_path / "samples_gqa.jsonl", case)
    lm = evaluate_task("gqa", log, profile="lmms-eval")
    assert (
        lm.metrics == evaluate_task("gqa", preds, questions=questions, profile="lmms-eval").metrics
    )
    assert lm.metrics == {"exact_match": 0.4, "n": 5}
    official = evaluate_task("gqa", log)
    # the case's official accuracy; the rest of the suite needs the questions file
    assert official.metrics == {"accuracy": case["expected"]["official"]["accuracy"], "n": 5}
    assert any("--questions" in n for n in official.notes)
    assert [it.id for it in official.data.items] == ["1", "2", "3", "4", "5"]


def test_lmms_eval_log_records_the_toolkit_score(tmp_path: Path) -> None:
    case = family_cases("gqa_suite")[0]
    log = _lmms_log(tmp_path / "samples_gqa.jsonl", case)
    r = evaluate_task("gqa", log, profile="lmms-eval")
    assert [it.fields["toolkit_score"] for it in r.data.items] == _SUITE_TOOLKIT
    assert r.scores == _SUITE_TOOLKIT  # the profile recomputes what lmms-eval recorded
    q = _write(tmp_path / "q.json", case["input"]["questions"])
    with_q = evaluate_task("gqa", log, questions=q, allow_missing=True)
    assert [it.fields["toolkit_score"] for it in with_q.data.items] == _SUITE_TOOLKIT


def test_lmms_eval_log_with_doc_and_questions(tmp_path: Path) -> None:
    case = family_cases("gqa_suite")[0]
    preds, questions = _suite_inputs(case)
    choices = case["input"]["choices"]
    rows = _lmms_log(tmp_path / "a.jsonl", case).read_text("utf-8").splitlines()
    first = json.loads(rows[0])
    first["doc"]["answer"] = "blue"  # disagrees with the questions file (red)
    log = tmp_path / "samples_gqa.jsonl"
    log.write_text("\n".join([json.dumps(first), *rows[1:]]) + "\n", encoding="utf-8")
    # lmms-eval logs the balanced questions only: question 6 (unbalanced) has no prediction
    r = evaluate_task("gqa", log, questions=questions, choices=choices, allow_missing=True)
    exp = evaluate_task("gqa", preds, questions=questions, choices=choices)
    assert r.metrics == exp.metrics
    assert r.metrics["accuracy"] == case["expected"]["official"]["accuracy"]
    assert r.aggregate.breakdowns == exp.aggregate.breakdowns
    note = next(n for n in r.notes if "differ from" in n)
    assert note.startswith("1 doc.answer(s)") and "'1'" in note
    assert any("1 unbalanced question(s)" in n for n in r.notes)


def test_lmms_eval_log_without_doc_joins_by_position(tmp_path: Path) -> None:
    case = family_cases("gqa_suite")[0]
    preds, questions = _suite_inputs(case)
    log = _lmms_log(tmp_path / "samples_gqa.jsonl", case, with_doc=False)
    q = _write(tmp_path / "testdev_balanced_questions.json", questions)
    r = evaluate_task("gqa", log, questions=q, allow_missing=True)
    exp = evaluate_task("gqa", preds, questions=questions)
    assert r.metrics == exp.metrics
    note = next(n for n in r.notes if "BY POSITION" in n)
    assert "differ" not in note  # each logged target is the question's answer
    assert [it.fields["toolkit_score"] for it in r.data.items] == _SUITE_TOOLKIT


def test_lmms_eval_log_without_doc_needs_questions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _lmms_log(tmp_path / "samples_gqa.jsonl", family_cases("gqa_suite")[0], with_doc=False)
    with pytest.raises(ValueError, match=r"samples_gqa\.jsonl: .*no 'doc'.*questions="):
        evaluate_task("gqa", log)
    assert main(["score", "gqa", "--results", str(log)]) == 2
    err = capsys.readouterr().err
    assert "samples_gqa.jsonl" in err and "Traceback" not in err


def test_lmms_eval_log_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = family_cases("gqa_suite")[0]
    log = _lmms_log(tmp_path / "samples_gqa.jsonl", case)
    q = _write(tmp_path / "q.json", case["input"]["questions"])
    argv = ["score", "gqa", "--results", str(log), "--questions", str(q), "--allow-missing"]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"]["accuracy"] == 20.0 and out["metrics"]["binary"] == 0.0
    assert main(["score", "gqa", "--results", str(log), "--profile", "lmms-eval", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["metrics"]["exact_match"] == 0.4


def test_lmms_eval_results_json_beside_the_log_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # lmms-eval writes {date}_results.json beside {date}_samples_{task}.jsonl
    log = _lmms_log(tmp_path / "20250101_samples_gqa.jsonl", family_cases("gqa_suite")[0])
    _write(tmp_path / "20250101_results.json", {"results": {"gqa": {"exact_match,none": 0.4}}})
    assert main(["score", "gqa", "--results", str(log), "--profile", "lmms-eval", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["reported"]["values"] == {"gqa": {"exact_match,none": 0.4}}
    assert out["metrics"]["exact_match"] == 0.4


@given(st.permutations(range(5)))
def test_lmms_eval_positional_join_ignores_record_order(order: list[int]) -> None:
    # doc_id, not the line, says which question a record answers
    import tempfile

    case = family_cases("gqa_suite")[0]
    with tempfile.TemporaryDirectory() as tmp:
        log = _lmms_log(Path(tmp) / "s.jsonl", case, with_doc=False)
        lines = log.read_text("utf-8").splitlines()
        log.write_text("".join(lines[i] + "\n" for i in order), encoding="utf-8")
        q = case["input"]["questions"]
        r = evaluate_task("gqa", log, questions=q, allow_missing=True)
    assert r.metrics["accuracy"] == case["expected"]["official"]["accuracy"]
    assert [it.fields["toolkit_score"] for it in r.data.items] == _SUITE_TOOLKIT


def test_lmms_eval_doc_without_id_is_named(tmp_path: Path) -> None:
    case = family_cases("gqa_suite")[0]
    rows = _lmms_log(tmp_path / "a.jsonl", case).read_text("utf-8").splitlines()
    first = json.loads(rows[0])
    del first["doc"]["id"]
    log = tmp_path / "s.jsonl"
    log.write_text("\n".join([json.dumps(first), *rows[1:]]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"s\.jsonl: line 1: doc\.id .* missing"):
        evaluate_task("gqa", log, questions=case["input"]["questions"], allow_missing=True)


def test_reported_names_are_the_lmms_eval_metrics(tmp_path: Path) -> None:
    from vqametrics.tasks._gqa_read import LMMS_EVAL_METRICS, LMMS_EVAL_REPORTED

    assert set(LMMS_EVAL_REPORTED) == set(LMMS_EVAL_METRICS)
    log = _lmms_log(tmp_path / "s.jsonl", family_cases("gqa_suite")[0])
    r = evaluate_task("gqa", log, profile="lmms-eval")
    assert set(LMMS_EVAL_REPORTED.values()) <= set(r.metrics)
