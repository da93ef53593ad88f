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

from vqametrics._exceptions import InputError
from vqametrics.cli import main
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
    assert "ground truth in 'pope_accuracy" in r.data.layouts[0]
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
