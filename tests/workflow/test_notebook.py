"""Notebooks: short reprs, HTML views, explain(question_id), to_pandas, metrics= and ci=."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import vqametrics
from vqametrics import evaluate_vqa, evaluation_ci, explain
from vqametrics.analysis.compare import compare_vqa
from vqametrics.pipeline.vqa import VQAEvaluation
from vqametrics.readers.vqa import load_results

FIVE = Path(__file__).resolve().parents[1] / "data" / "vqa2_val_5q_official"
SAMPLE = Path(vqametrics.__file__).parent / "data" / "vqa2_val_sample"


@pytest.fixture(scope="module")
def sample() -> VQAEvaluation:
    return evaluate_vqa(SAMPLE / "annotations.json", SAMPLE / "results_minority.json")


def test_reprs_are_short(sample: VQAEvaluation) -> None:
    r = repr(sample)
    assert len(r) < 200, r
    assert r.startswith("<VQAEvaluation VQA acc 71.60 | profile official, 3427 questions")
    e = explain("Crab!", ["crab"] * 3 + ["lobster"] * 7)
    assert repr(e) == (
        "Explanation(profile='official', prediction='Crab!' -> 'crab', m=3 of 10, score=0.9)"
    )
    ci = evaluation_ci(sample, n_bootstrap=50)
    assert len(repr(ci)) < 150 and repr(ci).startswith("BootstrapResult(overall 71.60 [")
    assert repr(ci.overall).startswith("Interval(71.60 [")
    other = evaluate_vqa(SAMPLE / "annotations.json", SAMPLE / "results_majority.json")
    d = vqametrics.diff_results(other, sample, n_bootstrap=50, n_permutations=50)
    assert repr(d).startswith("ResultsDiff(A 100.00 − B 71.60 = +28.40 [")
    assert len(repr(d)) < 150


def test_other_result_reprs_are_short(sample: VQAEvaluation) -> None:
    c = compare_vqa(sample)
    assert len(repr(c)) < 300, repr(c)[:400]
    t = vqametrics.evaluate_task("ocrvqa", [{"index": 1, "prediction": "a", "answer": "a"}])
    assert len(repr(t)) < 300
    from vqametrics.analysis.profile_diff import compare_profiles

    p = compare_profiles(sample.dataset, sample.predictions)
    assert repr(p).startswith("<ProfileComparison ") and len(repr(p)) < 120


def test_html_views(sample: VQAEvaluation) -> None:
    html = sample._repr_html_()
    assert html.startswith("<table><caption>VQA evaluation · profile official · 3427 questions")
    assert "<td>overall</td>" in html and ">71.60<" in html
    assert sample.signature.format() in html
    e = explain("Yes", ["yes"] * 10)
    assert e._repr_html_() == "<pre>" + __import__("html").escape(e.text()) + "</pre>"
    assert "unanimity rule" in e.text()


def test_explain_question_matches_its_score() -> None:
    ev = evaluate_vqa(FIVE / "annotations.json", FIVE / "results.json")
    for i, qid in enumerate(ev.question_ids):
        e = ev.explain(qid)
        assert e.score == ev.scores[i]
        assert e.prediction == ev.predictions[i]
    assert ev.explain(str(ev.question_ids[0])).score == ev.scores[0]  # "id" or id
    with pytest.raises(vqametrics.InputError, match="not in"):
        ev.explain(-1)


def test_to_pandas_one_row_per_question() -> None:
    pytest.importorskip("pandas")
    ev = evaluate_vqa(FIVE / "annotations.json", FIVE / "results.json")
    df = ev.to_pandas()
    assert list(df.columns) == [
        "question_id",
        "question_type",
        "answer_type",
        "prediction",
        "normalized_prediction",
        "answers",
        "m",
        "score",
    ]
    assert len(df) == 5 and list(df["score"]) == ev.scores
    assert list(df["question_id"]) == ev.question_ids
    assert df["prediction"].iloc[0] == "looking in fridge"
    assert len(df["answers"].iloc[0]) == 10


def test_metrics_and_ci_arguments() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = evaluate_vqa(
            SAMPLE / "annotations.json",
            SAMPLE / "results_minority.json",
            metrics=["vqa", "em", "em_any"],
            ci=200,
        )
    assert set(ev.extra_metrics) == {"em", "em_any"}
    # the same numbers as vqametrics vqa --metrics em,em-any (test_tables/test_cli)
    assert ev.extra_metrics["em_any"]["overall"] == 99.97
    assert ev.intervals is not None and ev.intervals.n_bootstrap == 200
    lo, hi = ev.intervals.overall.ci95
    assert lo < ev.accuracy["overall"] < hi
    # attributes, and the old method spelling still works
    assert ev.intervals.ci95["overall"] == [lo, hi] == ev.intervals.ci95()["overall"]
    assert ev.intervals.se() == ev.intervals.se
    payload = ev.as_dict()
    assert payload["em_any"]["overall"] == 99.97 and payload["ci95"]["overall"] == [lo, hi]
    assert "EM-any 99.97" in repr(ev)
    with pytest.raises(vqametrics.UnknownNameError, match="valid metrics"):
        evaluate_vqa(FIVE / "annotations.json", FIVE / "results.json", metrics=["bleu"])


def test_task_evaluation_html() -> None:
    t = vqametrics.evaluate_task("ocrvqa", [{"index": 1, "prediction": "a", "answer": "a"}])
    html = t._repr_html_()
    assert html.startswith("<table><caption>OCR-VQA · profile vlmevalkit · 1 items")
    assert ">100.00<" in html and t.signature.format() in html


def test_dataset_and_matching_reprs_are_short(sample: VQAEvaluation) -> None:
    assert repr(sample.dataset).endswith(": 3427 questions>")
    assert repr(sample.matched) == ("<Matched 3427 predictions, 0 missing, 0 extra, 0 duplicates>")
    from vqametrics.aggregate.stats import evaluations_test

    t = evaluations_test(sample, sample, n_bootstrap=10, n_permutations=10)
    assert repr(t).startswith("PairedResult(Difference(A − B = +0.00")
    results = load_results(SAMPLE / "results_minority.json")
    assert repr(results).endswith(": 3427 predictions>")
