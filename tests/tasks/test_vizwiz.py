"""VizWiz-VQA: the official accuracy (raw answers, curly contractions), answerability AP/F1,
and the lmms-eval and VLMEvalKit profiles."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vqametrics.cli import main
from vqametrics.normalize.official import CONTRACTIONS
from vqametrics.normalize.vizwiz import CURLY, CURLY_CONTRACTIONS, prediction
from vqametrics.tasks import get_task, score_answer
from vqametrics.tasks._run import evaluate_task
from vqametrics.tasks.vizwiz import average_precision, derived_answerable, f1_at_half

from .conftest import case_params, family_cases

PROFILES = {
    "official_vizwiz": "official",
    "lmms_eval": "lmms-eval",
    "vlmevalkit_head": "vlmevalkit",
    "vlmevalkit_before_2025_05_13": "vlmevalkit-2024",
}
CASE_PARAMS = [
    p for p in case_params("vizwiz_accuracy", PROFILES) if "prediction" in p.values[0]["input"]
]
SINGLE = [c for c in family_cases("vizwiz_accuracy") if "prediction" in c["input"]]


@pytest.mark.parametrize(("case", "profile", "expected"), CASE_PARAMS)
def test_cases(case: dict[str, Any], profile: str, expected: float) -> None:
    inp = case["input"]
    assert score_answer("vizwiz", inp["prediction"], inp["gt_answers"], profile=profile) == expected


@pytest.mark.parametrize("case", SINGLE, ids=[c["id"] for c in SINGLE])
def test_normalized_prediction_cases(case: dict[str, Any]) -> None:
    assert (
        prediction(case["input"]["prediction"])
        == case["expected"]["official_normalized_prediction"]
    )


def _files(items: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    ann = [
        {
            "image": f"VizWiz_val_{i:08d}.jpg",
            "question": "what is this?",
            "answers": [{"answer": a, "answer_confidence": "yes"} for a in it["gt_answers"]],
            "answer_type": it["answer_type"],
            "answerable": 1,
        }
        for i, it in enumerate(items)
    ]
    res = [
        {"image": a["image"], "answer": it["prediction"]} for a, it in zip(ann, items, strict=True)
    ]
    return ann, res


def test_aggregate_case() -> None:
    case = next(c for c in family_cases("vizwiz_accuracy") if "items" in c["input"])
    ann, res = _files(case["input"]["items"])
    r = evaluate_task("vizwiz", res, annotations=ann)
    exp = case["expected"]["official_vizwiz"]
    assert round(r.metrics["overall"], 2) == exp["overall"]
    per = r.aggregate.breakdowns["perAnswerType"]
    assert {t: round(v["accuracy"], 2) for t, v in per.items()} == exp["perAnswerType"]
    assert list(per) == list(exp["perAnswerType"])  # first-seen order, as the script's dict
    assert r.aggregate.units == "percent"
    assert "average_precision" not in r.metrics  # the results carry no 'answerable'
    assert any("answerability" in n for n in r.notes)


@pytest.mark.parametrize(
    "case",
    [c for c in family_cases("vizwiz_answerability") if "gt_answerable" in c["input"]],
    ids=lambda c: c["id"],
)
def test_answerability_cases(case: dict[str, Any]) -> None:
    inp = case["input"]
    gt_n = [1 - g for g in inp["gt_answerable"]]
    pred_n = [1.0 - p for p in inp["pred_answerable"]]
    exp = case["expected"]["official_vizwiz"]
    assert round(100 * average_precision(gt_n, pred_n), 2) == exp["average_precision"]
    assert round(100 * f1_at_half(gt_n, pred_n), 2) == exp["f1_score"]
    # and through the whole-file path, from the results' 'answerable'
    ann = [
        {"image": f"i{k}", "answers": [{"answer": "a"}] * 10, "answer_type": "other",
         "answerable": g}
        for k, g in enumerate(inp["gt_answerable"])
    ]  # fmt: skip
    res = [
        {"image": f"i{k}", "answer": "a", "answerable": p}
        for k, p in enumerate(inp["pred_answerable"])
    ]
    r = evaluate_task("vizwiz", res, annotations=ann)
    assert round(r.metrics["average_precision"], 2) == exp["average_precision"]
    assert round(r.metrics["f1_score"], 2) == exp["f1_score"]


def test_tri_derived_answerable_case() -> None:
    case = next(c for c in family_cases("vizwiz_answerability") if "predictions" in c["input"])
    got = [derived_answerable(p) for p in case["input"]["predictions"]]
    assert got == case["expected"]["tri_vlm_evaluation_answerable"]


def test_average_precision_hand_derived() -> None:
    # ties are one step: scores all equal -> precision = base rate at recall 1
    assert average_precision([1, 0, 0, 0], [0.5, 0.5, 0.5, 0.5]) == 0.25
    # a perfect ranking
    assert average_precision([0, 1, 1], [0.1, 0.9, 0.8]) == 1.0
    # worst ranking of 1 positive among 3: precision 1/3 at the only recall step
    assert average_precision([1, 0, 0], [0.1, 0.9, 0.8]) == pytest.approx(1 / 3)
    # no positive at all: recall taken as 1, AP 0 (scikit-learn warns)
    assert average_precision([0, 0], [0.3, 0.7]) == 0.0
    assert f1_at_half([0, 0], [0.1, 0.2]) == 0.0


@pytest.mark.slow
def test_sklearn_agrees_when_installed() -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    import random

    import numpy as np

    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(1, 60)
        y = [rng.randint(0, 1) for _ in range(n)]
        if sum(y) == 0:
            y[0] = 1
        s = [rng.choice([0.0, 0.1, 0.5, 0.7, 1.0, rng.random()]) for _ in range(n)]
        assert average_precision(y, s) == metrics.average_precision_score(np.array(y), s)
        assert f1_at_half(y, s) == metrics.f1_score(np.array(y), np.array(s) > 0.5)


# ---------------------------------------------------------------------------- quirks (§3.4)


def test_curly_table_spec_3_1() -> None:
    assert len(CURLY_CONTRACTIONS) == len(CONTRACTIONS) == 120
    with_curly = [k for k, v in CURLY_CONTRACTIONS.items() if CURLY in k + v]
    assert len(with_curly) == 112
    # the straight exceptions the spec names
    assert CURLY_CONTRACTIONS["weve"] == "we've"
    assert CURLY_CONTRACTIONS["wheres"] == "where's"
    assert CURLY_CONTRACTIONS["whove"] == "who've"
    assert CURLY_CONTRACTIONS["dont"] == "don\u2019t"


def test_quirk_raw_ground_truth() -> None:
    assert score_answer("vizwiz", "the milk", ["the milk"] * 10) == 0.0
    assert score_answer("vizwiz", "two", ["two"] * 10) == 0.0  # prediction becomes '2'
    assert score_answer("vizwiz", "two", ["two"] * 10, profile="lmms-eval") == 1.0
    assert score_answer("vizwiz", "don't know", ["don't know"] * 10) == 1.0
    assert score_answer("vizwiz", "dont know", ["don\u2019t know"] * 10) == 1.0


def test_unanswerable_is_just_an_answer() -> None:
    assert score_answer("vizwiz", "Unanswerable.", ["unanswerable"] * 10) == 1.0
    assert score_answer("vizwiz", "unsuitable", ["unanswerable"] * 10) == 0.0


def test_profiles() -> None:
    task = get_task("vizwiz-vqa")
    assert [p.name for p in task.profiles] == [
        "official",
        "lmms-eval",
        "vlmevalkit",
        "vlmevalkit-2024",
    ]


# ------------------------------------------------------------------------ files, CLI, errors


def _write(tmp_path: Path, ann: Any, res: Any) -> tuple[Path, Path]:
    a, r = tmp_path / "val.json", tmp_path / "results.json"
    a.write_text(json.dumps(ann), encoding="utf-8")
    r.write_text(json.dumps(res), encoding="utf-8")
    return a, r


def _two() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    ann = [
        {"image": "a.jpg", "question": "q", "answers": [{"answer": "soup"}] * 10,
         "answer_type": "other", "answerable": 1},
        {"image": "b.jpg", "question": "q", "answers": [{"answer": "unanswerable"}] * 10,
         "answer_type": "unanswerable", "answerable": 0},
    ]  # fmt: skip
    res = [
        {"image": "a.jpg", "answer": "Soup", "answerable": 0.9},
        {"image": "b.jpg", "answer": "unanswerable", "answerable": 0.2},
    ]
    return ann, res


def test_cli_json_with_answerability(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, r = _write(tmp_path, *_two())
    assert main(["score", "vizwiz", "--results", str(r), "--annotations", str(a), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"]["overall"] == 100.0
    assert out["metrics"]["average_precision"] == 100.0
    assert out["metrics"]["f1_score"] == 100.0
    assert out["breakdowns"]["perAnswerType"]["unanswerable"]["accuracy"] == 100.0
    assert out["signature"].startswith("vizwiz-acc|profile:official|")


def test_answerable_on_some_results_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ann, res = _two()
    del res[1]["answerable"]
    a, r = _write(tmp_path, ann, res)
    assert main(["score", "vizwiz", "--results", str(r), "--annotations", str(a)]) == 2
    err = capsys.readouterr().err
    assert "results.json" in err and "answerable" in err and "Traceback" not in err


def test_answerable_out_of_range(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ann, res = _two()
    res[0]["answerable"] = "yes"
    a, r = _write(tmp_path, ann, res)
    assert main(["score", "vizwiz", "--results", str(r), "--annotations", str(a)]) == 2
    assert "'yes'" in capsys.readouterr().err


def test_missing_result_names_the_image(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ann, res = _two()
    a, r = _write(tmp_path, ann, res[:1])
    assert main(["score", "vizwiz", "--results", str(r), "--annotations", str(a)]) == 2
    assert "b.jpg" in capsys.readouterr().err


def test_wrong_layout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, res = _two()
    a, r = _write(tmp_path, [{"question_id": 1, "answers": ["x"]}], res)
    assert main(["score", "vizwiz", "--results", str(r), "--annotations", str(a)]) == 2
    err = capsys.readouterr().err
    assert "val.json" in err and "image" in err


def test_per_item_eval_qa_is_rounded_like_the_script() -> None:
    ann = [{"image": "a", "answers": [{"answer": "x"}] * 9 + [{"answer": "y"}], "answerable": 1}]
    r = evaluate_task("vizwiz", [{"image": "a", "answer": "y"}], annotations=ann)
    (rec,) = list(r.per_item())
    # one match out of ten: 9 annotators see it (1/3 each), the one who gave it does not
    assert rec["score"] == pytest.approx(0.3)
    assert rec["evalQA"] == 30.0
    assert rec["normalized"] == "y"


def test_no_answers_is_an_error() -> None:
    with pytest.raises(ValueError, match="no answers"):
        score_answer("vizwiz", "x", [])


def test_peer_aggregates_units() -> None:
    ann, res = _two()
    lm = evaluate_task("vizwiz", res, annotations=ann, profile="lmms-eval")
    assert lm.metrics["exact_match"] == 1.0 and lm.aggregate.units == "fraction"
    vl = evaluate_task("vizwiz", res, annotations=ann, profile="vlmevalkit")
    assert vl.metrics["Overall"] == 100.0 and vl.aggregate.units == "percent"


def test_vlmevalkit_sheet_carries_ground_truth(tmp_path: Path) -> None:
    f = tmp_path / "m_VizWiz.csv"
    f.write_text(
        "index,question,answer,prediction\n1,q,\"['2', '2', '2']\",2.\n"
        "2,q,\"['soup', 'soup', 'x']\",Soup\n",
        encoding="utf-8",
    )
    head = evaluate_task("vizwiz", f, profile="vlmevalkit")
    old = evaluate_task("vizwiz", f, profile="vlmevalkit-2024")
    # hand-derived: three answers '2'; '2.' keeps its period at HEAD, so 0; before 2025-05-13
    # it becomes '2' and each annotator sees two matches: 2/3. 'Soup': (1/3 + 1/3 + 2/3) / 3
    assert head.scores[0] == 0.0
    assert old.scores[0] == pytest.approx(2 / 3)
    assert head.scores[1] == old.scores[1] == pytest.approx(4 / 9)


# ------------------------------------------------------------------------------- properties

_words = st.sampled_from(["soup", "Soup", "the soup", "dont know", "don't know", "two", "2", ""])


@settings(max_examples=150, deadline=None)
@given(pred=_words, gts=st.lists(_words, min_size=1, max_size=10))
def test_scores_in_unit_interval(pred: str, gts: list[str]) -> None:
    for prof in ("official", "lmms-eval", "vlmevalkit", "vlmevalkit-2024"):
        assert 0.0 <= score_answer("vizwiz", pred, gts, profile=prof) <= 1.0


@settings(max_examples=150, deadline=None)
@given(
    labels=st.lists(st.tuples(st.integers(0, 1), st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])),
                    min_size=1, max_size=30),
    data=st.data(),
)  # fmt: skip
def test_answerability_ignores_order(labels: list[tuple[int, float]], data: Any) -> None:
    perm = data.draw(st.permutations(labels))
    y, s = [t for t, _ in labels], [p for _, p in labels]
    py, ps = [t for t, _ in perm], [p for _, p in perm]
    assert average_precision(py, ps) == pytest.approx(average_precision(y, s))
    assert f1_at_half(py, ps) == f1_at_half(y, s)
    assert 0.0 <= average_precision(y, s) <= 1.0


@pytest.mark.parametrize("profile", ["official", "lmms-eval", "vlmevalkit", "vlmevalkit-2024"])
def test_cli_an_image_without_answers_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], profile: str
) -> None:
    # vqaEval.py divides by zero and VLMEvalKit's np.mean([]) is nan: bad input, named
    tsv = tmp_path / "model_VizWiz.tsv"
    tsv.write_text(
        f"index\tquestion\tanswer\tprediction\n1\tq\t{['x'] * 10}\tx\n2\tq\t[]\ty\n",
        encoding="utf-8",
    )
    code = main(["score", "vizwiz", "--results", str(tsv), "--profile", profile])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip() == f"vqametrics: error: {tsv}: question 2 has no answers"
    ann = tmp_path / "val.json"
    ann.write_text(json.dumps([{"image": "a.jpg", "answers": [], "answerable": 1}]))
    res = tmp_path / "res.json"
    res.write_text(json.dumps([{"image": "a.jpg", "answer": "x"}]))
    code = main(["score", "vizwiz", "--results", str(res), "--annotations", str(ann)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip() == f"vqametrics: error: {ann}: image 'a.jpg' has no answers"


def test_quirk_builtin_sum_positions_spec_3_4() -> None:
    # spec §3.4 → §2.6: two matches at positions 8, 9 give eight 2/3 then two 1/3, summed left to
    # right as CPython ≤ 3.11's sum() does: 0.5999999999999999 (3.12's sum would give 0.6)
    gts = ["milk"] * 8 + ["soup"] * 2
    assert score_answer("vizwiz", "soup", gts) == 0.5999999999999999
    assert score_answer("vizwiz", "soup", gts[::-1]) == 0.6
    assert score_answer("vizwiz", "soup", gts, profile="lmms-eval") == 0.6  # statistics.mean


def test_cli_questions_file_is_not_silently_ignored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, r = _write(tmp_path, *_two())
    code = main(["score", "vizwiz", "--results", str(r), "--annotations", str(a),
                 "--questions", str(a)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert "--questions is not used" in err and len(err.strip().splitlines()) == 1


def test_vlmevalkit_sheet_with_its_answers_column(tmp_path: Path) -> None:
    # VLMEvalKit's VizWiz.tsv names the ground truth 'answers' (VizWiz.evaluate asserts it and
    # copies it to 'answer'); its _acc.csv beside the sheet is still found
    f = tmp_path / "m_VizWiz.tsv"
    f.write_text(
        "index\tquestion\tanswers\tprediction\n"
        "1\tq\t['milk', 'milk', 'milk']\tMilk\n2\tq\t['soup', 'soup', 'x']\tsoup\n",
        encoding="utf-8",
    )
    (tmp_path / "m_VizWiz_acc.csv").write_text('"Overall"\n"55.55555555555556"\n')
    r = evaluate_task("vizwiz", f, profile="vlmevalkit")
    # hand-derived: 'milk' x3, each annotator sees two matches: 2/3; 'soup' at positions 0, 1
    # of three: (1/3 + 1/3 + 2/3) / 3 = 4/9; Overall = (2/3 + 4/9) / 2 × 100
    assert r.scores == [pytest.approx(2 / 3), pytest.approx(4 / 9)]
    assert r.metrics["Overall"] == pytest.approx(500 / 9)
    assert r.data.sources == (str(f),)
    assert r.data.reported is not None and r.data.reported["source"].endswith("_acc.csv")


# -- lmms-eval --log_samples logs ------------------------------------------------------------
# The record layout is lmms-eval@75571cf's (evaluator.py; tasks/vizwiz_vqa/): doc is the
# lmms-lab/VizWiz-VQA row (question_id, question, answers, category), target is the text
# "answer" (doc_to_target names a column the rows lack), and vizwiz_vqa_process_results adds
# "exact_match" and rewrites doc.answers with MMF's processor before the record is logged.


def _case_items() -> list[dict[str, Any]]:
    case = next(c for c in family_cases("vizwiz_accuracy") if "items" in c["input"])
    items: list[dict[str, Any]] = case["input"]["items"]
    return items


#: lmms-eval's exact_match for the case's items, by hand: "soup" matches 2 of 10 answers, so
#: the 2 matching annotators see 1 other match (1/3) and the 8 others see 2 (2/3): 18/30
_CASE_TOOLKIT = [1.0, 1.0, 0.6, 1.0]


def _lmms_log(path: Path, items: list[dict[str, Any]], *, with_doc: bool = True) -> Path:
    lines = []
    for i, (it, score) in enumerate(zip(items, _CASE_TOOLKIT, strict=True)):
        row: dict[str, Any] = {
            "doc_id": i,
            "target": "answer",
            "filtered_resps": [it["prediction"]],
            "exact_match": score,
            "submission": {"image": f"VizWiz_val_{i:08d}.jpg", "answer": it["prediction"]},
        }
        if with_doc:
            row["doc"] = {
                "question_id": f"VizWiz_val_{i:08d}",
                "question": "what is this?",
                "answers": list(it["gt_answers"]),
                "category": it["answer_type"],
            }
        lines.append(json.dumps(row) + "\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("profile", ["official", "lmms-eval", "vlmevalkit"])
def test_lmms_eval_log_with_doc_scores_like_the_official_layout(
    tmp_path: Path, profile: str
) -> None:
    items = _case_items()
    ann, res = _files(items)
    log = _lmms_log(tmp_path / "samples_vizwiz_vqa_val.jsonl", items)
    r = evaluate_task("vizwiz", log, profile=profile)
    assert r.metrics == evaluate_task("vizwiz", res, annotations=ann, profile=profile).metrics
    if profile == "official":
        assert r.metrics["overall"] == 90.0  # the case's expected overall
    assert [it.id for it in r.data.items][:1] == ["VizWiz_val_00000000.jpg"]
    assert any("rewrites doc.answers" in n for n in r.notes)


def test_lmms_eval_log_records_the_toolkit_score(tmp_path: Path) -> None:
    log = _lmms_log(tmp_path / "s.jsonl", _case_items())
    r = evaluate_task("vizwiz", log, profile="lmms-eval")
    assert [it.fields["toolkit_score"] for it in r.data.items] == _CASE_TOOLKIT
    # and the lmms-eval profile recomputes exactly what lmms-eval recorded
    assert r.scores == _CASE_TOOLKIT


def test_lmms_eval_processed_doc_answers_quirk(tmp_path: Path) -> None:
    # the raw answer "Coca Cola" can never match under the official rule (raw ground truth);
    # lmms-eval logs it processed ("coca cola"), which the prediction matches: only
    # --annotations restores the official score
    raw = [{"prediction": "coca cola", "gt_answers": ["Coca Cola"] * 10, "answer_type": "other"}]
    ann, _ = _files(raw)
    log = tmp_path / "s.jsonl"
    doc = {"question_id": "VizWiz_val_00000000", "question": "q", "answers": ["coca cola"] * 10}
    row = {"doc_id": 0, "doc": doc, "target": "answer", "filtered_resps": ["coca cola"]}
    log.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert evaluate_task("vizwiz", log).metrics["overall"] == 100.0
    with_ann = evaluate_task("vizwiz", log, annotations=ann)
    assert with_ann.metrics["overall"] == 0.0
    # the same answers after MMF's processing: not counted as a disagreement
    assert not any("differ" in n for n in with_ann.notes)


def test_lmms_eval_log_with_doc_and_annotations(tmp_path: Path) -> None:
    items = _case_items()
    ann, res = _files(items)
    a = tmp_path / "val.json"
    a.write_text(json.dumps(ann), encoding="utf-8")
    changed = [dict(it) for it in items]
    changed[1] = {**items[1], "gt_answers": ["no"] * 10}  # a doc disagreeing with val.json
    log = _lmms_log(tmp_path / "samples.jsonl", changed)
    r = evaluate_task("vizwiz", log, annotations=a)
    expected = evaluate_task("vizwiz", res, annotations=ann)
    assert r.metrics == expected.metrics
    assert r.aggregate.breakdowns == expected.aggregate.breakdowns  # answer_type from val.json
    note = next(n for n in r.notes if "differ" in n)
    assert note.startswith("1 doc.answers") and "'VizWiz_val_00000001.jpg'" in note
    assert [it.fields["toolkit_score"] for it in r.data.items] == _CASE_TOOLKIT


def test_lmms_eval_log_without_doc_joins_by_position(tmp_path: Path) -> None:
    items = _case_items()
    ann, res = _files(items)
    a = tmp_path / "val.json"
    a.write_text(json.dumps(ann), encoding="utf-8")
    log = _lmms_log(tmp_path / "samples.jsonl", items, with_doc=False)
    r = evaluate_task("vizwiz", log, annotations=a)
    expected = evaluate_task("vizwiz", res, annotations=ann)
    assert r.metrics == expected.metrics
    assert r.aggregate.breakdowns == expected.aggregate.breakdowns
    note = next(n for n in r.notes if "BY POSITION" in n)
    # the logged target is the text "answer" (never rendered): not a disagreement
    assert "differ" not in note
    assert [it.fields["toolkit_score"] for it in r.data.items] == _CASE_TOOLKIT


def test_lmms_eval_log_without_doc_needs_annotations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _lmms_log(tmp_path / "samples_vizwiz.jsonl", _case_items(), with_doc=False)
    with pytest.raises(ValueError, match=r"samples_vizwiz\.jsonl: .*no 'doc'.*annotations="):
        evaluate_task("vizwiz", log)
    assert main(["score", "vizwiz", "--results", str(log)]) == 2
    err = capsys.readouterr().err
    assert "samples_vizwiz.jsonl" in err and "Traceback" not in err


def test_lmms_eval_test_split_doc_without_answers(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    doc = {"question_id": "VizWiz_test_00000000", "question": "q", "answers": None}
    log.write_text(
        json.dumps({"doc_id": 0, "doc": doc, "target": "answer", "filtered_resps": ["x"]}) + "\n",
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match=r"s\.jsonl: line 1: doc\.answers is empty"):
        evaluate_task("vizwiz", log)


def test_lmms_eval_log_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _lmms_log(tmp_path / "samples.jsonl", _case_items())
    argv = ["score", "vizwiz", "--results", str(log), "--profile", "lmms-eval", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"]["exact_match"] == pytest.approx(3.6 / 4)


def test_lmms_eval_results_json_beside_the_log_is_reported(tmp_path: Path) -> None:
    log = _lmms_log(tmp_path / "20250101_samples_vizwiz_vqa_val.jsonl", _case_items())
    (tmp_path / "20250101_results.json").write_text(
        json.dumps({"results": {"vizwiz_vqa_val": {"exact_match,none": 0.9}}}), "utf-8"
    )
    r = evaluate_task("vizwiz", log, profile="lmms-eval")
    assert r.data.reported is not None
    assert r.data.reported["values"] == {"vizwiz_vqa_val": {"exact_match,none": 0.9}}
    assert r.metrics["exact_match"] == pytest.approx(0.9)


def test_reported_names_are_the_lmms_eval_metrics(tmp_path: Path) -> None:
    from vqametrics.tasks.vizwiz import LMMS_EVAL_METRICS, LMMS_EVAL_REPORTED

    assert set(LMMS_EVAL_REPORTED) == set(LMMS_EVAL_METRICS)
    r = evaluate_task("vizwiz", _lmms_log(tmp_path / "s.jsonl", _case_items()), profile="lmms-eval")
    assert set(LMMS_EVAL_REPORTED.values()) <= set(r.metrics)
