"""POPE from lmms-eval ``--log_samples`` logs (issue 11): with ``doc`` the log carries its
labels; without it, ``doc_id`` is joined to the label files by position.

The doc fields (``question_id``, ``question``, ``answer``, ``category``) and the per-sample
metric keys (``pope_accuracy`` … dicts with ``score``) are lmms-eval@75571cf's
``lmms_eval/tasks/pope/utils.py`` and ``pope.yaml``. Expected numbers come from the spec's
``pope_aggregate`` case (vqa-family-cases.json) or are derived by hand; the real label files
are read from ``../shared/data/pope`` and reshaped in ``tmp_path``, never copied.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.tasks._run import evaluate_task

from .conftest import family_cases

SPLITS = ("adversarial", "popular", "random")


def _case() -> tuple[list[str], list[str], dict[str, Any]]:
    case = family_cases("pope_aggregate")[0]
    return case["input"]["answers"], case["input"]["labels"], case["expected"]


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _question(i: int) -> str:
    return f"Is there a thing{i} in the image?"


def _log(
    path: Path,
    answers: list[str],
    labels: list[str],
    *,
    doc: bool = True,
    split: str = "random",
    scores: list[float] | None = None,
) -> Path:
    """An lmms-eval samples log: one record per answer, ``doc`` = lmms-lab/POPE's row."""
    rows = []
    for i, (a, lab) in enumerate(zip(answers, labels, strict=True)):
        row: dict[str, Any] = {"doc_id": i, "target": lab, "filtered_resps": [a]}
        if doc:
            row["doc"] = {
                "id": str(i),
                "question_id": str(i + 1),
                "question": _question(i),
                "answer": lab,
                "image_source": f"COCO_val2014_{i:012d}",
                "category": split,
            }
        if scores is not None:
            for key in ("pope_accuracy", "pope_precision", "pope_f1_score"):
                row[key] = {"question_id": str(i + 1), "score": scores[i]}
        rows.append(row)
    return _write(path, rows)


def _labels(path: Path, labels: list[str]) -> Path:
    rows = [
        {"question_id": i + 1, "image": f"img{i}.jpg", "text": _question(i), "label": lab}
        for i, lab in enumerate(labels)
    ]
    return _write(path, rows)


@pytest.mark.parametrize(("profile", "key"), [("official", "official"), ("lmms-eval", None)])
def test_log_with_doc_needs_no_annotations(tmp_path: Path, profile: str, key: str | None) -> None:
    answers, labels, expected = _case()
    log = _log(tmp_path / "samples_pope.jsonl", answers, labels)
    r = evaluate_task("pope", log, profile=profile)
    same = evaluate_task(
        "pope",
        [{"answer": a} for a in answers],
        annotations=[{"label": x} for x in labels],
        profile=profile,
    )
    assert dict(r.metrics) == dict(same.metrics)
    if key == "official":
        for name, value in expected["official"].items():
            assert r.metrics[name] == value, name
    else:
        assert r.metrics["accuracy"] == expected["lmms_eval"]["acc"]
        assert r.metrics["yes_ratio"] == expected["lmms_eval"]["yes_ratio"]
    assert r.data.layouts[0].startswith("lmms-eval-samples")
    # lmms-lab/POPE's category is the split; the ids are <split>/<question_id>
    assert r.signature.format().count("splits:random") == 1
    assert r.data.items[0].id == "random/1"


def test_annotations_win_and_disagreements_are_counted(tmp_path: Path) -> None:
    answers, labels, expected = _case()
    lab = _labels(tmp_path / "coco_pope_random.json", labels)
    log = _log(tmp_path / "samples_pope.jsonl", answers, labels)
    r = evaluate_task("pope", log, annotations=lab)
    for name, value in expected["official"].items():
        assert r.metrics[name] == value, name
    assert any("joined to them by each doc's category" in n for n in r.notes)
    assert not any("differ" in n for n in r.notes)

    wrong = list(labels)
    wrong[0] = "no" if labels[0] == "yes" else "yes"  # the doc's answer disagrees once
    log = _log(tmp_path / "samples_wrong.jsonl", answers, wrong)
    r2 = evaluate_task("pope", log, annotations=lab)
    assert dict(r2.metrics) == dict(r.metrics)  # the label file wins
    assert any(
        n.startswith("1 doc answer(s)") and "differ from" in n and "'random/1'" in n
        for n in r2.notes
    )


def test_doc_question_that_is_not_the_label_line_is_an_error(tmp_path: Path) -> None:
    answers, labels, _ = _case()
    rows = [{"question_id": 1, "text": "Is there a cat in the image?", "label": labels[0]}]
    lab = _write(tmp_path / "coco_pope_random.json", rows)
    log = _log(tmp_path / "samples_pope.jsonl", answers[:1], labels[:1])
    with pytest.raises(InputError, match=r"samples_pope\.jsonl: line 1: .*does not name"):
        evaluate_task("pope", log, annotations=lab)


def test_doc_of_another_split_needs_ignore_extra(tmp_path: Path) -> None:
    answers, labels, _ = _case()
    lab = _labels(tmp_path / "coco_pope_random.json", labels)
    log = _log(tmp_path / "samples_pope.jsonl", answers, labels, split="popular")
    with pytest.raises(InputError, match=r"not in .*coco_pope_random\.json"):
        evaluate_task("pope", log, annotations=lab)


def test_log_without_doc_is_joined_by_position(tmp_path: Path) -> None:
    answers, labels, expected = _case()
    lab = _labels(tmp_path / "coco_pope_random.json", labels)
    log = _log(tmp_path / "samples_pope.jsonl", answers, labels, doc=False)
    r = evaluate_task("pope", log, annotations=lab)
    for name, value in expected["official"].items():
        assert r.metrics[name] == value, name
    assert any("BY POSITION" in n for n in r.notes)
    assert r.data.items[2].fields["label_line"] == 3  # doc_id 2 = the 3rd label line


def test_log_without_doc_and_without_annotations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers, labels, _ = _case()
    log = _log(tmp_path / "samples_pope.jsonl", answers, labels, doc=False)
    with pytest.raises(InputError, match=r"samples_pope\.jsonl: .*no 'doc'.*annotations="):
        evaluate_task("pope", log)
    assert main(["score", "pope", "--results", str(log)]) == 2
    err = capsys.readouterr().err
    assert "samples_pope.jsonl" in err and "Traceback" not in err


@pytest.mark.parametrize("doc", [True, False])
def test_toolkit_score_is_recorded(tmp_path: Path, doc: bool) -> None:
    answers, labels, _ = _case()
    # lmms-eval's score, by hand: 1.0 where the lower-cased, stripped answer is the label
    scores = [1.0 if a.lower().strip() == x else 0.0 for a, x in zip(answers, labels, strict=True)]
    assert scores == [1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    log = _log(tmp_path / "samples_pope.jsonl", answers, labels, doc=doc, scores=scores)
    lab = None if doc else _labels(tmp_path / "coco_pope_random.json", labels)
    r = evaluate_task("pope", log, annotations=lab, profile="lmms-eval")
    assert [it.fields["toolkit_score"] for it in r.data.items] == scores
    assert r.scores == scores  # our lmms-eval profile agrees with the toolkit, sample by sample


def test_cli_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the brief's repro: four records with doc, no --annotations
    answers = ["Yes", "Yes", "No", "No"]
    labels = ["yes", "no", "yes", "no"]
    log = _log(tmp_path / "pope_lmms.jsonl", answers, labels, split="adversarial")
    assert main(["score", "pope", "--results", str(log), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # by hand: TP 1 (0), FP 1 (1), FN 1 (2), TN 1 (3)
    assert out["metrics"]["TP"] == out["metrics"]["FP"] == 1
    assert out["metrics"]["f1"] == 0.5 and out["metrics"]["acc"] == 0.5
    assert out["n"] == 4


# ------------------------------------------------------------------ real label files


def _label_rows(folder: Path, split: str) -> list[dict[str, Any]]:
    text = (folder / f"coco_pope_{split}.json").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def _real_log(shared: Path, path: Path, doc: bool = True) -> Path:
    """lmms-lab/POPE's 9,000 rows (the HEAD labels), each answered with its label."""
    rows = []
    for split in SPLITS:
        for r in _label_rows(shared / "pope" / "head_3df3ba1", split):
            row: dict[str, Any] = {
                "doc_id": len(rows),
                "target": r["label"],
                "filtered_resps": ["Yes" if r["label"] == "yes" else "No"],
            }
            if doc:
                row["doc"] = {
                    "question_id": str(r["question_id"]),
                    "question": r["text"],
                    "answer": r["label"],
                    "category": split,
                }
            rows.append(row)
    return _write(path, rows)


@pytest.mark.shared
@pytest.mark.slow
def test_real_labels_joined_by_doc(shared_data: Path, tmp_path: Path) -> None:
    log = _real_log(shared_data, tmp_path / "samples_pope.jsonl")
    alone = evaluate_task("pope", log)
    r = evaluate_task("pope", log, annotations=shared_data / "pope" / "head_3df3ba1")
    # every answer is its label: F1 1.0 on each split, so the mean over splits is 1.0
    assert alone.metrics["f1_mean"] == r.metrics["f1_mean"] == 1.0
    assert r.metrics["n"] == 9000
    assert "labels:3df3ba1" in r.signature.format()
    # the e3e3926 labels respell questions and have 2,910 random lines: not silently joined
    with pytest.raises(InputError, match=r"line 11: .*'Is there an umbrella in the imange\?'"):
        evaluate_task("pope", log, annotations=shared_data / "pope" / "e3e3926")


@pytest.mark.shared
def test_real_labels_by_position(shared_data: Path, tmp_path: Path) -> None:
    log = _real_log(shared_data, tmp_path / "samples_pope.jsonl", doc=False)
    r = evaluate_task("pope", log, annotations=shared_data / "pope" / "head_3df3ba1")
    assert r.metrics["f1_mean"] == 1.0 and r.metrics["n"] == 9000
    assert not any("differ" in n for n in r.notes)  # the targets are the labels, in order


def test_reported_names_are_the_lmms_eval_metrics(tmp_path: Path) -> None:
    from vqametrics.tasks._pope_read import LMMS_EVAL_METRICS, LMMS_EVAL_REPORTED

    assert set(LMMS_EVAL_REPORTED) == set(LMMS_EVAL_METRICS)
    answers, labels, _ = _case()
    r = evaluate_task("pope", _log(tmp_path / "s.jsonl", answers, labels), profile="lmms-eval")
    assert set(LMMS_EVAL_REPORTED.values()) <= set(r.metrics)


def test_questions_are_not_used_and_said_so(tmp_path: Path) -> None:
    answers, labels, _ = _case()
    log = _log(tmp_path / "s.jsonl", answers, labels)
    questions = _write(tmp_path / "q.jsonl", [{"question_id": 1, "category": "random"}])
    r = evaluate_task("pope", log, questions=questions)
    assert "--questions was not used: lmms-eval logs are read without it" in r.notes


def test_log_on_standard_input(tmp_path: Path) -> None:
    import subprocess
    import sys

    # the log is read from the pipe once; by hand as in test_cli_json: TP = FP = 1, f1 0.5
    log = _log(tmp_path / "pope_lmms.jsonl", ["Yes", "Yes", "No", "No"], ["yes", "no"] * 2)
    argv = [sys.executable, "-m", "vqametrics", "score", "pope", "--results", "-", "--json"]
    out = subprocess.run(argv, input=log.read_bytes(), capture_output=True, check=True)
    metrics = json.loads(out.stdout)["metrics"]
    assert metrics["TP"] == metrics["FP"] == 1 and metrics["f1"] == 0.5


def _repeat_first(log: Path, answer: str) -> Path:
    """The log with one more record, a new doc_id, for the first record's question."""
    rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    again = json.loads(json.dumps(rows[0]))
    again["doc_id"] = len(rows)
    again["filtered_resps"] = [answer]
    return _write(log, [*rows, again])


def test_doc_join_repeated_record_is_an_error_or_the_last_kept(tmp_path: Path) -> None:
    answers, labels, _ = _case()
    lab = _labels(tmp_path / "coco_pope_random.json", labels)
    log = _repeat_first(_log(tmp_path / "samples_pope.jsonl", answers, labels), "Nope.")
    last = len(answers) + 1
    with pytest.raises(
        InputError,
        match=rf"line {last}: a second record for question 'random/1' \(first at .*line 1;",
    ):
        evaluate_task("pope", log, annotations=lab)
    r = evaluate_task("pope", log, annotations=lab, on_duplicate="last")
    assert len(r.data.items) == len(labels)
    assert r.data.items[0].id == "random/1"
    assert r.data.items[0].prediction == "Nope."  # the last record, at the first one's place
    assert "1 repeated record(s) of a question: the last of each was kept" in " ".join(r.notes)


def test_doc_join_label_line_without_record(tmp_path: Path) -> None:
    answers, labels, _ = _case()
    lab = _labels(tmp_path / "coco_pope_random.json", labels)
    log = _log(tmp_path / "samples_pope.jsonl", answers[:-1], labels[:-1])
    n = len(labels)
    with pytest.raises(
        InputError, match=rf"1 label line\(s\) have no record \(first: 'random/{n}'\)"
    ):
        evaluate_task("pope", log, annotations=lab)
    r = evaluate_task("pope", log, annotations=lab, allow_missing=True)
    assert r.data.n_missing == 1
    assert r.data.items[-1].prediction is None  # kept, scored wrong, as the label file has it
    assert "1 label line(s) had no record and are scored wrong" in r.notes
