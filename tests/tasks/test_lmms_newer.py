"""lmms-eval's newer ``--log_samples`` form (issue 18): no ``doc``, ``filtered_resps`` a plain
string, the ground truth in ``target`` and the per-sample metric record; read without
``--annotations`` by the one path of ``tasks/_lmms.py`` (``MetricRecord``, ``record_docs``).

The row shape is lmms-eval@75571cf's ``lmms_eval/loggers/evaluation_tracker.py``
``save_results_samples`` (``doc`` and ``arguments`` popped, ``filtered_resps`` ``[value]`` →
``value``, ``target`` cast to ``str``, ``resps`` dropped when equal to it, ``input`` added)
over the example ``lmms_eval/evaluator.py`` ``evaluate`` builds; the metric records are each
task's ``process_results`` at that pin (cited per test). Expected numbers are the shared
``pope_aggregate`` case or derived by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.tasks._run import evaluate_task
from vqametrics.tasks.mme import PERCEPTION

from .conftest import family_cases


def _row(i: int, target: str, resp: str, question: str, **metrics: Any) -> dict[str, Any]:
    """One sample as ``save_results_samples`` writes it for a one-request generate task."""
    return {
        "doc_id": i,
        "target": target,
        "filtered_resps": resp,
        "token_counts": [None],
        "doc_hash": f"{i:064x}",
        **metrics,
        "input": question,
    }


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------- POPE


def _pope_log(path: Path, answers: list[str], labels: list[str], qids: list[str]) -> Path:
    """lmms-eval@75571cf tasks/pope/utils.py ``pope_process_results``: every metric key holds
    ``{question_id, score, prediction, ground_truth}`` (score: lower+strip equality, ported
    here by hand); ``doc_to_target: answer``."""
    rows = []
    for i, (a, lab, q) in enumerate(zip(answers, labels, qids, strict=True)):
        pred = a.lower().strip()
        rec = {
            "question_id": q,
            "score": float(pred == lab),
            "prediction": pred,
            "ground_truth": lab,
        }
        keys = ("pope_accuracy", "pope_precision", "pope_recall", "pope_f1_score", "pope_yes_ratio")
        rows.append(_row(i, lab, a, f"Is there a thing{i}?", **{k: rec for k in keys}))
    return _write(path, rows)


def _pope_case() -> tuple[list[str], list[str], dict[str, Any]]:
    case = family_cases("pope_aggregate")[0]
    return case["input"]["answers"], case["input"]["labels"], case["expected"]


@pytest.mark.parametrize("profile", ["official", "lmms-eval"])
def test_pope_newer_log_needs_no_annotations(tmp_path: Path, profile: str) -> None:
    answers, labels, expected = _pope_case()
    qids = [str(i + 1) for i in range(len(answers))]
    r = evaluate_task(
        "pope", _pope_log(tmp_path / "s.jsonl", answers, labels, qids), profile=profile
    )
    if profile == "official":
        for name, value in expected["official"].items():
            assert r.metrics[name] == value, name
    else:
        assert r.metrics["accuracy"] == expected["lmms_eval"]["acc"]
        assert r.metrics["yes_ratio"] == expected["lmms_eval"]["yes_ratio"]
    assert [it.id for it in r.data.items] == qids
    assert "ground truth in 'target' + 'pope_accuracy/" in r.data.layouts[0]
    # the recorded score is lmms-eval's own: under its profile every sample agrees
    if profile == "lmms-eval":
        assert r.sample_check is not None
        assert (r.sample_check.n_compared, r.sample_check.n_disagree) == (len(answers), 0)


def test_pope_repeated_question_ids_are_numbered_not_dropped(tmp_path: Path) -> None:
    """The ``pope`` task runs three splits whose question ids repeat and the record names no
    split: the repeats are numbered in log order, every sample kept."""
    answers, labels = ["yes", "no", "no", "yes"], ["yes", "no", "yes", "yes"]
    log = _pope_log(tmp_path / "s.jsonl", answers, labels, ["1", "2", "1", "2"])
    r = evaluate_task("pope", log, profile="lmms-eval")
    assert [it.id for it in r.data.items] == ["1", "2", "1#2", "2#2"]
    assert r.metrics["accuracy"] == 3 / 4  # by hand: the third is wrong


def test_pope_log_concatenated_twice_is_a_repeat_not_more_questions(tmp_path: Path) -> None:
    """The repeats are numbered by distinct doc_id: a log appended to itself repeats doc_ids,
    which the one rule for repeated samples refuses (or keeps once with --on-duplicate last)."""
    answers, labels = ["yes", "no", "no"], ["yes", "no", "yes"]
    log = _pope_log(tmp_path / "s.jsonl", answers, labels, ["1", "2", "1"])
    log.write_text(log.read_text() * 2)
    with pytest.raises(InputError, match=r"line 4: duplicate sample, doc_id 0 again"):
        evaluate_task("pope", log)
    r = evaluate_task("pope", log, profile="lmms-eval", on_duplicate="last")
    assert [it.id for it in r.data.items] == ["1", "2", "1#2"]
    assert r.metrics["accuracy"] == 2 / 3  # by hand: the third is wrong


def test_pope_recorded_score_that_differs_is_unexplained(tmp_path: Path) -> None:
    log = _pope_log(tmp_path / "s.jsonl", ["yes", "no"], ["yes", "no"], ["1", "2"])
    rows = [json.loads(x) for x in log.read_text().splitlines()]
    for k in ("pope_accuracy", "pope_precision", "pope_recall", "pope_f1_score", "pope_yes_ratio"):
        rows[1][k] = {**rows[1][k], "score": 0.0}
    r = evaluate_task("pope", _write(log, rows), profile="lmms-eval")
    assert r.sample_check is not None
    assert [(g["rule"], g["n"]) for g in r.sample_check.groups] == [("unexplained", 1)]


def test_pope_newer_log_with_annotations_is_joined_by_position(tmp_path: Path) -> None:
    """``--annotations`` given: the label file wins, joined by position as for any log
    without ``doc``."""
    answers, labels, expected = _pope_case()
    qids = [str(i + 1) for i in range(len(answers))]
    log = _pope_log(tmp_path / "s.jsonl", answers, labels, qids)
    lab = _write(
        tmp_path / "coco_pope_random.json",
        [{"question_id": i + 1, "image": f"i{i}.jpg", "label": x} for i, x in enumerate(labels)],
    )
    r = evaluate_task("pope", log, annotations=lab)
    for name, value in expected["official"].items():
        assert r.metrics[name] == value, name
    assert any("BY POSITION" in n for n in r.notes)


def test_a_row_without_the_record_is_an_error_naming_it(tmp_path: Path) -> None:
    log = _pope_log(tmp_path / "s.jsonl", ["yes", "no"], ["yes", "no"], ["1", "2"])
    rows = [json.loads(x) for x in log.read_text().splitlines()]
    for k in ("pope_accuracy", "pope_precision", "pope_recall", "pope_f1_score", "pope_yes_ratio"):
        del rows[1][k]
    with pytest.raises(InputError, match=r"s\.jsonl.*line 2.*no 'pope_accuracy/"):
        evaluate_task("pope", _write(log, rows))


# ---------------------------------------------------------------------------- MME

#: existence, two images (as test_mme_lmms.py): image a both right; image b one right. By
#: hand: official acc 3/4, acc+ 1/2 → 75 + 50 = 125.0; lmms-eval per image 200, 50 → 125.0
MME_LINES = [
    ("a.jpg", "Is there a dog in this image? Please answer yes or no.", "Yes", "Yes"),
    ("a.jpg", "Is there a cat in this image? Please answer yes or no.", "No", "No"),
    ("b.jpg", "Is there a car in this image? Please answer yes or no.", "Yes", "No"),
    ("b.jpg", "Is there a bus in this image? Please answer yes or no.", "No", "No"),
]
MME_SCORES = [1.0, 1.0, 0.0, 1.0]


def _mme_log(path: Path, task: str = "existence") -> Path:
    """lmms-eval@75571cf tasks/mme/utils.py ``mme_process_results``: ``{question_id (the
    image path), category, score}`` under ``mme_perception_score`` (or ``_cognition_``);
    ``doc_to_target: answer``."""
    key = "mme_perception_score" if task in PERCEPTION else "mme_cognition_score"
    rows = [
        _row(
            i, gt, resp, q, **{key: {"question_id": f"{task}/{img}", "category": task, "score": s}}
        )
        for i, ((img, q, gt, resp), s) in enumerate(zip(MME_LINES, MME_SCORES, strict=True))
    ]
    return _write(path, rows)


@pytest.mark.parametrize("profile", ["official", "lmms-eval"])
def test_mme_newer_log_needs_no_annotations(tmp_path: Path, profile: str) -> None:
    r = evaluate_task("mme", _mme_log(tmp_path / "s.jsonl"), profile=profile)
    assert r.metrics["perception"] == 125.0
    # the image's two questions share the record's question_id: numbered as the doc path does
    assert [it.id for it in r.data.items] == [
        "existence/a.jpg#1",
        "existence/a.jpg#2",
        "existence/b.jpg#1",
        "existence/b.jpg#2",
    ]
    assert {it.fields["category"] for it in r.data.items} == {"existence"}
    if profile == "lmms-eval":
        assert r.sample_check is not None
        assert (r.sample_check.n_compared, r.sample_check.n_disagree) == (4, 0)


def test_mme_record_without_category_is_an_error(tmp_path: Path) -> None:
    log = _mme_log(tmp_path / "s.jsonl")
    rows = [json.loads(x) for x in log.read_text().splitlines()]
    del rows[2]["mme_perception_score"]["category"]
    with pytest.raises(
        InputError, match=r"line 3.*'mme_perception_score' record has no 'category'"
    ):
        evaluate_task("mme", _write(log, rows))


def test_mme_newer_log_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _mme_log(tmp_path / "s.jsonl")
    assert main(["score", "mme", "--results", str(log), "--profile", "lmms-eval", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["metrics"]["perception"] == 125.0
    assert doc["reported"]["per_sample"]["n_disagree"] == 0


# ---------------------------------------------------------------------------- MMStar

#: (index, category, l2_category, gold, response). By hand (lmms-eval profile, macro over l2):
#: l2 "image scene and topic" 1 of 2, "image style & quality" 1 of 1, "numeric commonsense"
#: 1 of 1 → average (0.5 + 1 + 1) / 3; coarse perception (0.5 + 1) / 2; math 1.0
MMSTAR = [
    (7, "coarse perception", "image scene and topic", "A", "A"),
    (8, "coarse perception", "image scene and topic", "B", "C"),
    (9, "coarse perception", "image style & quality", "D", "D"),
    (1200, "math", "numeric commonsense", "C", "C"),
]


def _mmstar_log(path: Path) -> Path:
    """lmms-eval@75571cf tasks/mmstar/utils.py ``mmstar_process_results``: ``{question_id:
    doc["index"], l2_category, score}`` under the category's name and under ``average``;
    ``doc_to_target: answer``."""
    rows = []
    for i, (idx, cat, l2, gold, resp) in enumerate(MMSTAR):
        rec = {"question_id": idx, "l2_category": l2, "score": float(resp == gold)}
        rows.append(_row(i, gold, resp, f"Question {idx}?", **{cat: rec, "average": rec}))
    return _write(path, rows)


def test_mmstar_newer_log_needs_no_annotations(tmp_path: Path) -> None:
    r = evaluate_task("mmstar", _mmstar_log(tmp_path / "s.jsonl"), profile="lmms-eval")
    assert r.metrics["average"] == 2.5 / 3
    assert r.metrics["coarse perception"] == 0.75
    assert r.metrics["math"] == 1.0
    assert [it.id for it in r.data.items] == [7, 8, 9, 1200]
    assert r.data.items[3].fields["category"] == "math"  # the record's other key
    assert r.sample_check is not None
    assert (r.sample_check.n_compared, r.sample_check.n_disagree) == (4, 0)
    assert any("no option texts are known" in n for n in r.notes)


# ---------------------------------------------------------------------------- SEED-Bench


def _seed_log(path: Path) -> Path:
    """lmms-eval@75571cf tasks/seedbench/utils.py ``seed_process_result``: ``{pred (the first
    character), answer, question_id}`` under ``seed_<data_type>`` and ``seed_all`` (no score:
    the aggregation compares pred and answer); ``doc_to_target: answer``."""
    rows = []
    for i, (gold, resp, pred) in enumerate(
        [("A", "A", "A"), ("B", "B) dog", "B"), ("C", "D", "D")]
    ):
        rec = {"pred": pred, "answer": gold, "question_id": f"q{i}"}
        rows.append(_row(i, gold, resp, f"Question {i}?", seed_image=rec, seed_all=rec))
    return _write(path, rows)


def test_seedbench_newer_log_needs_no_annotations(tmp_path: Path) -> None:
    r = evaluate_task("seedbench", _seed_log(tmp_path / "s.jsonl"), profile="lmms-eval")
    # by hand: first characters A, B, D against A, B, C → 2 of 3, all of data_type image
    assert r.metrics["seed_image"] == r.metrics["seed_all"] == 2 / 3
    assert [it.id for it in r.data.items] == ["q0", "q1", "q2"]
    assert {it.fields["data_type"] for it in r.data.items} == {"image"}
    assert r.sample_check is not None and r.sample_check.n_disagree == 0


# ---------------------------------------------------------------------------- the real log

REAL = "lmms_eval_logs/20260218_234435_samples_scienceqa_img.jsonl"


@pytest.mark.shared
def test_the_real_log_is_the_older_form(shared_data: Path) -> None:
    """The shared log (lmms-eval v0.6-9, ATTRIBUTION.md) predates the newer form: every
    ``filtered_resps`` is a list and ``exact_match`` a bare number, so a task that needs a
    metric record (an id, a category) finds none; a bare-score task (AI2D, RealWorldQA) reads
    each row's ``target`` as its gold, which is the letter the toolkit scored against."""
    from vqametrics.readers.records import read_records
    from vqametrics.tasks._base import TaskInputs
    from vqametrics.tasks._lmms import MetricRecord, lmms_eval_predictions, record_docs

    path = shared_data / REAL
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 2017
    assert all(isinstance(r["filtered_resps"], list) and "doc" not in r for r in rows)
    preds = lmms_eval_predictions(read_records(str(path)), TaskInputs(results=str(path)))
    assert preds is not None
    keyed = MetricRecord(metrics=("exact_match",), doc={"question_id": "question_id"})
    assert record_docs(preds, keyed) is None
    bare = record_docs(preds, MetricRecord(metrics=("exact_match",)))
    assert bare is not None
    assert [r["doc"] for r in bare.records.rows] == [{"answer": r["target"]} for r in rows]
    assert "ground truth in 'target'" in bare.layout


# ---------------------------------------------------------------------------- MM-Vet


def test_mmvet_newer_log_carries_its_grades(tmp_path: Path) -> None:
    """lmms-eval@75571cf tasks/mmvet/utils.py ``mmvet_process_results``: ``gpt_eval_score`` =
    ``{question_id, question, gt_answer, capabilities, pred_answer, score, eval_model}``; the
    recorded grade is the score (by hand: Overall = the mean grade × 100)."""
    rows = []
    for i, (cap, s) in enumerate([("rec,ocr", 0.5), ("ocr", 1.0), ("gen,rec", 0.2)]):
        rec = {
            "question_id": f"v{i}",
            "question": "q",
            "gt_answer": "a",
            "capabilities": cap,
            "pred_answer": "p",
            "score": s,
            "eval_model": "gpt-4o",
        }
        rows.append(_row(i, "a", "p", "q", gpt_eval_score=rec))
    r = evaluate_task("mmvet", _write(tmp_path / "s.jsonl", rows), profile="lmms-eval")
    assert r.metrics["Overall"] == (0.5 + 1.0 + 0.2) / 3 * 100
    assert [it.id for it in r.data.items] == ["v0", "v1", "v2"]
    assert r.data.items[0].fields["capability"] == "rec,ocr"
    assert "judge_model:gpt-4o" in r.signature.format()


# ---------------------------------------------------------------------------- HallusionBench


def test_hallusionbench_newer_log_with_its_gpt_response_caches(tmp_path: Path) -> None:
    """lmms-eval@75571cf tasks/hallusion_bench/evaluate_hb.py ``hb_process_results``: under
    ``aAcc``, ``fAcc`` and ``qAcc`` the doc itself less its image, plus ``model_prediction``;
    ``doc_to_target: gt_answer_details``. The verdicts come from the judge caches, as for a
    log with ``doc``; the expected aAcc is the shared case's."""
    from .test_hallusionbench import _cases, _official_dicts

    case = _cases()[1]
    full = _official_dicts(case)
    log = tmp_path / "model" / "20260301_samples_hallusion_bench_image.jsonl"
    log.parent.mkdir()
    rows = []
    for i, r in enumerate(full):
        sample = {k: v for k, v in r.items() if k not in ("gpt4v_output_gpt_check", "same")}
        rec = {k: sample for k in ("aAcc", "fAcc", "qAcc")}
        rows.append(_row(i, str(r.get("gt_answer_details", "")), r["model_prediction"], "q", **rec))
    _write(log, rows)
    caches = tmp_path / "gpt_response"
    caches.mkdir()
    vd = [
        dict(
            r,
            gpt_answer="...\nOutput:"
            + {"0": "incorrect", "1": "correct"}[r["gpt4v_output_gpt_check"]],
        )
        for r in full
    ]
    (caches / "hallusion_output_vd_model.json").write_text(json.dumps(vd), encoding="utf-8")
    r = evaluate_task("hallusionbench", log, profile="lmms-eval")
    assert r.metrics["aAcc"] == case["expected"]["official"]["aAcc"]
    assert "ground truth in 'aAcc/fAcc/qAcc'" in r.data.layouts[0]


# ---------------------------------------------------------------------------- AI2D, RealWorldQA


@pytest.mark.parametrize("task", ["ai2d", "realworldqa"])
def test_bare_exact_match_tasks_score_against_target(tmp_path: Path, task: str) -> None:
    """lmms-eval@75571cf tasks/ai2d/ai2d.yaml (builtin ``exact_match`` against
    ``ai2d_doc_to_target``, the gold letter) and tasks/realworldqa/utils.py
    ``realworldqa_process_results`` (a bare ``exact_match``; target = doc["answer"]): the
    logged target is the gold, the id the doc_id. By hand: B/B right, C/D wrong → 0.5."""
    rows = [
        _row(0, "B", "B", "Which? A. x B. y", exact_match=1.0),
        _row(1, "D", "C", "Which? C. x D. y", exact_match=0.0),
    ]
    r = evaluate_task(task, _write(tmp_path / "s.jsonl", rows), profile="lmms-eval")
    assert r.scores == [1.0, 0.0]
    assert [it.id for it in r.data.items] == [0, 1]
    assert [it.references for it in r.data.items] == [("B",), ("D",)]
    assert r.sample_check is not None and r.sample_check.n_disagree == 0


# ---------------------------------------------------------------------------- what a record lacks


@pytest.mark.parametrize(
    ("task", "metrics", "lacks", "need"),
    [
        # lmms-eval@75571cf tasks/textvqa/utils.py, tasks/vizwiz_vqa/utils.py: exact_match and
        # a submission {question_id | image, answer}; the ten answers are not recorded
        ("textvqa", {"exact_match": 1.0}, "reference answers", "annotations= TextVQA_0.5.1_val"),
        ("vizwiz", {"exact_match": 1.0}, "reference answers", "annotations= val.json"),
        # tasks/ocrbench/utils.py: {question_type, score, prediction, ground_truth}, no dataset
        (
            "ocrbench",
            {"ocrbench_accuracy": {"question_type": "t", "score": 1, "prediction": "a"}},
            "dataset name",
            "annotations= OCRBench.json",
        ),
        # tasks/chartqa/utils.py: a log without relaxed_overall has nothing to read
        ("chartqa", {"exact_match": 1.0}, "relaxed_overall", "annotations= ChartQA's test"),
    ],
)
def test_a_record_short_of_the_scorer_says_what_to_pass(
    tmp_path: Path, task: str, metrics: dict[str, Any], lacks: str, need: str
) -> None:
    log = _write(tmp_path / "s.jsonl", [_row(0, "yes", "yes", "q", **metrics)])
    with pytest.raises(InputError) as err:
        evaluate_task(task, log)
    text = str(err.value)
    assert "\n" not in text
    assert text.startswith(f"{log}: ") and lacks in text and need in text


# ---------------------------------------------------------------------------- ChartQA


def test_chartqa_newer_log_reads_target_and_the_split_key(tmp_path: Path) -> None:
    """lmms-eval@75571cf tasks/chartqa/utils.py ``chartqa_process_results``: a bare
    ``relaxed_overall`` and ``relaxed_human_split`` or ``relaxed_augmented_split`` by the doc's
    type; ``doc_to_target: answer``. By hand (5 % rule): 10.4 vs 10 right, 11 vs 10 wrong,
    'Yes' vs 'yes' right → human 1/2, augmented 1/1, overall 2/3."""
    rows = [
        _row(0, "10", "10.4", "q0", relaxed_overall=1.0, relaxed_human_split=1.0),
        _row(1, "10", "11", "q1", relaxed_overall=0.0, relaxed_human_split=0.0),
        _row(2, "yes", "Yes", "q2", relaxed_overall=1.0, relaxed_augmented_split=1.0),
    ]
    r = evaluate_task("chartqa", _write(tmp_path / "s.jsonl", rows), profile="lmms-eval")
    assert r.metrics["relaxed_overall"] == 2 / 3
    assert r.metrics["relaxed_human_split"] == 0.5
    assert r.metrics["relaxed_augmented_split"] == 1.0
    assert [it.fields["type"] for it in r.data.items] == [
        "human_test",
        "human_test",
        "augmented_test",
    ]
    assert r.sample_check is not None and r.sample_check.n_disagree == 0
