"""MME from lmms-eval ``--log_samples`` logs (issue 11): with ``doc`` the log carries its
ground truth; without it, ``doc_id`` is joined to the eval_tool ``Your_Results`` lines by
position.

The doc fields (``question_id`` — the image, by which lmms-eval pairs acc+ — ``question``,
``answer``, ``category``) and the per-sample metric keys (``mme_perception_score`` /
``mme_cognition_score``, dicts with ``score``) are lmms-eval@75571cf's
``lmms_eval/tasks/mme/utils.py`` and ``mme.yaml``. Expected numbers are derived by hand or are
the MME README's LaVIN example (963.61 / 249.64, spec parity case); MME data is research-only,
so the LaVIN files are reshaped in ``tmp_path`` from ``../shared/data`` and never copied.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.tasks._run import evaluate_task
from vqametrics.tasks.mme import COGNITION, PERCEPTION

from .conftest import family_cases

#: existence, two images: image a both right; image b one right. By hand: official acc 3/4,
#: acc+ 1/2 → 75 + 50 = 125.0; lmms-eval per image (a) 100 + 100, (b) 50 + 0 → mean 125.0
LINES = [
    ("a.jpg", "Is there a dog in this image? Please answer yes or no.", "Yes", "Yes"),
    ("a.jpg", "Is there a cat in this image? Please answer yes or no.", "No", "No"),
    ("b.jpg", "Is there a car in this image? Please answer yes or no.", "Yes", "No"),
    ("b.jpg", "Is there a bus in this image? Please answer yes or no.", "No", "No"),
]
SCORES = [1.0, 1.0, 0.0, 1.0]


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _record(
    i: int, task: str, img: str, question: str, gt: str, resp: str, doc: bool, score: float | None
) -> dict[str, Any]:
    row: dict[str, Any] = {"doc_id": i, "target": gt, "filtered_resps": [resp]}
    if doc:
        row["doc"] = {
            "question_id": f"{task}/{img}",
            "question": question,
            "answer": gt,
            "category": task,
        }
    if score is not None:
        key = "mme_perception_score" if task in PERCEPTION else "mme_cognition_score"
        row[key] = {"question_id": f"{task}/{img}", "category": task, "score": score}
    return row


def _log(path: Path, *, doc: bool = True, scores: bool = False, answers: Any = None) -> Path:
    rows = []
    for i, (img, q, gt, resp) in enumerate(LINES):
        doc_gt = answers[i] if answers is not None else gt
        score = SCORES[i] if scores else None
        rows.append(_record(i, "existence", img, q, doc_gt, resp, doc, score))
    return _write(path, rows)


def _your_results(tmp_path: Path) -> Path:
    folder = tmp_path / "Your_Results"
    folder.mkdir()
    text = "".join(f"{img}\t{q}\t{gt}\n" for img, q, gt, _ in LINES)
    (folder / "existence.txt").write_text(text, encoding="utf-8")
    return folder


def _eval_tool(tmp_path: Path) -> Path:
    folder = tmp_path / "results"
    folder.mkdir()
    text = "".join(f"{img}\t{q}\t{gt}\t{resp}\n" for img, q, gt, resp in LINES)
    (folder / "existence.txt").write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize("profile", ["official", "lmms-eval", "vlmevalkit"])
def test_log_with_doc_needs_no_annotations(tmp_path: Path, profile: str) -> None:
    r = evaluate_task("mme", _log(tmp_path / "samples_mme.jsonl"), profile=profile)
    same = evaluate_task("mme", _eval_tool(tmp_path), profile=profile, allow_missing=True)
    assert dict(r.metrics) == dict(same.metrics)
    if profile != "vlmevalkit":
        assert r.metrics["perception"] == 125.0
    assert r.data.items[0].fields["image"] == "existence/a.jpg"
    assert [it.id for it in r.data.items[:2]] == ["existence/a.jpg#1", "existence/a.jpg#2"]


def test_annotations_win_and_disagreements_are_counted(tmp_path: Path) -> None:
    ann = _your_results(tmp_path)
    r = evaluate_task("mme", _log(tmp_path / "samples_mme.jsonl"), annotations=ann)
    assert r.metrics["perception"] == 125.0
    assert any("joined to" in n and "question" in n for n in r.notes)
    assert not any("differ" in n for n in r.notes)
    # the doc says Yes where Your_Results says No (line 2): the GT file wins, counted once
    wrong = ["Yes", "Yes", "Yes", "No"]
    r2 = evaluate_task(
        "mme", _log(tmp_path / "samples_wrong.jsonl", answers=wrong), annotations=ann
    )
    assert r2.metrics["perception"] == 125.0
    assert any(n.startswith("1 doc answer(s)") and "differ from" in n for n in r2.notes)


def test_doc_not_in_your_results_is_an_error(tmp_path: Path) -> None:
    ann = _your_results(tmp_path)
    rows = [_record(0, "count", "c.jpg", "How many?", "Yes", "Yes", True, None)]
    log = _write(tmp_path / "samples_mme.jsonl", rows)
    with pytest.raises(InputError, match=r"samples_mme\.jsonl: line 1: 1 record"):
        evaluate_task("mme", log, annotations=ann)


def test_doc_without_category_cannot_be_scored(tmp_path: Path) -> None:
    rows = [_record(0, "existence", "a.jpg", "Q?", "Yes", "Yes", True, None)]
    del rows[0]["doc"]["category"]
    log = _write(tmp_path / "samples_mme.jsonl", rows)
    with pytest.raises(InputError, match=r"line 1: the doc has no 'category'"):
        evaluate_task("mme", log)


def test_doc_answer_that_is_not_yes_no(tmp_path: Path) -> None:
    rows = [_record(0, "existence", "a.jpg", "Q?", "Maybe", "Yes", True, None)]
    log = _write(tmp_path / "samples_mme.jsonl", rows)
    with pytest.raises(InputError, match=r"line 1: doc.answer 'Maybe' is not yes/no"):
        evaluate_task("mme", log)


@pytest.mark.parametrize("profile", ["official", "lmms-eval"])
def test_log_without_doc_is_joined_by_position(tmp_path: Path, profile: str) -> None:
    ann = _your_results(tmp_path)
    log = _log(tmp_path / "samples_mme.jsonl", doc=False)
    r = evaluate_task("mme", log, annotations=ann, profile=profile)
    assert r.metrics["perception"] == 125.0
    assert any("BY POSITION" in n for n in r.notes)
    assert r.data.items[2].fields["question"] == LINES[2][1]  # doc_id 2 = the 3rd GT line


def test_log_without_doc_and_without_annotations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _log(tmp_path / "samples_mme.jsonl", doc=False)
    with pytest.raises(InputError, match=r"samples_mme\.jsonl: .*no 'doc'.*Your_Results"):
        evaluate_task("mme", log)
    assert main(["score", "mme", "--results", str(log)]) == 2
    err = capsys.readouterr().err
    assert "samples_mme.jsonl" in err and "Traceback" not in err


@pytest.mark.parametrize("doc", [True, False])
def test_toolkit_score_is_recorded(tmp_path: Path, doc: bool) -> None:
    log = _log(tmp_path / "samples_mme.jsonl", doc=doc, scores=True)
    ann = None if doc else _your_results(tmp_path)
    r = evaluate_task("mme", log, annotations=ann, profile="lmms-eval")
    assert [it.fields["toolkit_score"] for it in r.data.items] == SCORES
    assert r.scores == SCORES


def test_cli_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _log(tmp_path / "samples_mme.jsonl")
    assert main(["score", "mme", "--results", str(log), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"] == {"perception": 125.0}
    assert out["breakdowns"]["task"]["existence"]["acc_plus"] == 0.5


# ------------------------------------------------------------------ LaVIN (MME README)


def _lavin_log(shared: Path, path: Path, *, doc: bool = True) -> Path:
    """The eval_tool LaVIN example as an lmms-eval log, tasks in calculation.py's order; the
    response keeps its line's ``\\n`` so the predictions are exactly the eval_tool's."""
    rows = []
    folder = shared / "mme" / "eval_tool" / "LaVIN"
    for task in (*PERCEPTION, *COGNITION):
        for line in (folder / f"{task}.txt").read_text(encoding="utf-8").splitlines(True):
            img, question, gt, resp = line.split("\t")
            rows.append(_record(len(rows), task, img, question, gt, resp, doc, None))
    return _write(path, rows)


@pytest.mark.shared
def test_lavin_log_with_doc(shared_data: Path, tmp_path: Path) -> None:
    (case,) = family_cases("parity")
    log = _lavin_log(shared_data, tmp_path / "samples_mme.jsonl")
    r = evaluate_task("mme", log)
    assert r.metrics["perception"] == case["expected"]["official"]["perception"]
    assert r.metrics["cognition"] == case["expected"]["official"]["cognition"]
    lmms = evaluate_task("mme", log, profile="lmms-eval")
    exp = case["expected"]["lmms_eval_aggregation"]
    assert lmms.metrics["perception"] == exp["perception"] == 963.6114445778311
    your = shared_data / "mme" / "eval_tool" / "Your_Results"
    joined = evaluate_task("mme", log, annotations=your)
    assert dict(joined.metrics) == dict(r.metrics)
    assert not any("differ" in n for n in joined.notes)


@pytest.mark.shared
def test_lavin_log_without_doc(shared_data: Path, tmp_path: Path) -> None:
    (case,) = family_cases("parity")
    log = _lavin_log(shared_data, tmp_path / "samples_mme.jsonl", doc=False)
    your = shared_data / "mme" / "eval_tool" / "Your_Results"
    r = evaluate_task("mme", log, annotations=your)
    assert r.metrics["perception"] == case["expected"]["official"]["perception"]
    assert r.metrics["cognition"] == case["expected"]["official"]["cognition"]
    assert not any("differ" in n for n in r.notes)


def test_reported_names_are_the_lmms_eval_metrics() -> None:
    from vqametrics.tasks._mme_read import LMMS_EVAL_METRICS, LMMS_EVAL_REPORTED

    assert set(LMMS_EVAL_REPORTED) == set(LMMS_EVAL_METRICS)
    assert set(LMMS_EVAL_REPORTED.values()) == {"perception", "cognition"}


def test_log_on_standard_input(tmp_path: Path) -> None:
    import subprocess
    import sys

    # the log is read from the pipe once; the same numbers as test_cli_json
    log = _log(tmp_path / "samples_mme.jsonl")
    argv = [sys.executable, "-m", "vqametrics", "score", "mme", "--results", "-", "--json"]
    out = subprocess.run(argv, input=log.read_bytes(), capture_output=True, check=True)
    assert json.loads(out.stdout)["metrics"] == {"perception": 125.0}


def test_doc_join_repeated_record_is_an_error_or_the_last_kept(tmp_path: Path) -> None:
    """A fifth record asks line 3's question again (answering it right): an error naming the
    first record, or with on_duplicate="last" the last kept at the first's place. By hand:
    image b then has both right, so acc 4/4 and acc+ 2/2 → 200.0."""
    ann = _your_results(tmp_path)
    img, q, gt, _ = LINES[2]
    rows = [json.loads(line) for line in _log(tmp_path / "s.jsonl").read_text().splitlines()]
    rows.append(_record(4, "existence", img, q, gt, "Yes", True, None))
    log = _write(tmp_path / "samples_mme.jsonl", rows)
    with pytest.raises(InputError, match=r"line 5: a second record for the question of .*line 3 "):
        evaluate_task("mme", log, annotations=ann)
    r = evaluate_task("mme", log, annotations=ann, on_duplicate="last")
    assert r.metrics["perception"] == 200.0
    assert [it.prediction for it in r.data.items] == ["Yes", "No", "Yes", "No"]
    assert "1 repeated record(s) of a question: the last of each was kept" in " ".join(r.notes)


def test_doc_join_question_without_record(tmp_path: Path) -> None:
    ann = _your_results(tmp_path)
    rows = [json.loads(line) for line in _log(tmp_path / "s.jsonl").read_text().splitlines()]
    log = _write(tmp_path / "samples_mme.jsonl", rows[:2])  # image b has no record
    with pytest.raises(InputError, match=r"2 question\(s\) of .* have no record, e.g. .*line 3;"):
        evaluate_task("mme", log, annotations=ann)
    r = evaluate_task("mme", log, annotations=ann, allow_missing=True)
    assert r.data.n_missing == 2
    assert len(r.data.items) == 2  # left out, as LLaVA's converter leaves them out
    assert r.metrics["perception"] == 200.0  # by hand: image a both right, 100 + 100
    assert "2 question(s) without a record were left out" in r.notes
