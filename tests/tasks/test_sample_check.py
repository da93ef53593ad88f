"""The toolkit's per-sample scores beside ours (lmms-eval logs), grouped by the rule that
explains each disagreement; and lmms-eval's reported aggregates matched metric by metric."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vqametrics import evaluate_task
from vqametrics.cli import main
from vqametrics.pipeline.toolkit_check import check_samples
from vqametrics.tasks._base import Aggregate, Item, Task, TaskData, TaskInputs, TaskProfile
from vqametrics.views.task_text import task_text

CATS_AT_8_9 = ["dog"] * 8 + ["cat", "cat"]  # official 0.5999999999999999, lmms-eval 0.6 (§2.6)


def _log(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _sample(i: int, pred: str, answers: list[str], recorded: float) -> dict[str, Any]:
    return {
        "doc_id": i,
        "doc": {"question_id": 100 + i, "question": "what?", "image_id": "im", "answers": answers},
        "target": answers[0],
        "filtered_resps": [pred],
        "exact_match": recorded,
    }


@pytest.fixture
def textvqa_log(tmp_path: Path) -> Path:
    return _log(
        tmp_path / "20260101_000000_samples_textvqa_val.jsonl",
        [
            _sample(0, "cat", ["cat"] * 10, 1.0),  # agrees everywhere
            _sample(1, "cat", CATS_AT_8_9, 0.6),  # official differs, lmms-eval reproduces
            _sample(2, "cat", ["cat"] * 10, 0.3),  # nothing reproduces 0.3
        ],
    )


@pytest.fixture
def vqa_log(tmp_path: Path) -> Path:
    # 'Yes.' against ten 'yes': official 0.0 (unanimous answers skip normalization), lmms-eval
    # normalizes and records 1.0 — the rule "unanimity"
    return _log(
        tmp_path / "20260101_samples_vqav2_val.jsonl", [_sample(0, "Yes.", ["yes"] * 10, 1.0)]
    )


def test_official_profile_groups_by_rule(textvqa_log: Path) -> None:
    ev = evaluate_task("textvqa", textvqa_log)
    check = ev.sample_check
    assert check is not None
    assert check.toolkit_profile == "lmms-eval"
    assert check.n_compared == 3
    assert check.n_disagree == 2
    rules = {g["rule"]: g for g in check.groups}
    assert set(rules) == {"profile:lmms-eval", "unexplained"}
    ex = rules["profile:lmms-eval"]["examples"][0]
    assert (ex["id"], ex["toolkit"], ex["ours"]) == (101, 0.6, 0.5999999999999999)
    assert rules["unexplained"]["examples"][0]["id"] == 102
    assert check.groups[-1]["rule"] == "unexplained"  # the case worth reporting comes last


def test_toolkit_profile_leaves_only_the_unexplained(textvqa_log: Path) -> None:
    ev = evaluate_task("textvqa", textvqa_log, profile="lmms-eval")
    assert ev.sample_check is not None
    assert [(g["rule"], g["n"]) for g in ev.sample_check.groups] == [("unexplained", 1)]
    payload = ev.as_dict()["reported"]["per_sample"]
    assert payload["n_compared"] == 3 and payload["n_disagree"] == 1
    assert "1 of 3 item(s) disagree" in task_text(ev)


def test_no_recorded_scores_no_check() -> None:
    ev = evaluate_task(
        "textvqa",
        [{"question_id": 1, "answer": "cat"}],
        annotations=[{"question_id": 1, "image_id": "i", "question": "q", "answers": ["cat"] * 10}],
    )
    assert ev.sample_check is None
    assert "reported" not in ev.as_dict()


def _toy_task() -> Task:
    def exact(prediction: str, references: Any) -> float:
        return 1.0 if prediction == references[0] else 0.0

    def folded(prediction: str, references: Any) -> float:
        return 1.0 if prediction.lower() == references[0].lower() else 0.0

    def agg(items: Any, scores: Any) -> Aggregate:
        return Aggregate({"acc": sum(scores)}, "acc", "count")

    def prof(name: str, fn: Any, toolkit: str) -> TaskProfile:
        return TaskProfile(name, name, "test", toolkit, fn, agg)

    def read(inputs: TaskInputs) -> TaskData:
        raise AssertionError("not read")

    return Task(
        "toy",
        "Toy",
        "toy-acc",
        "toy",
        (
            prof("official", exact, "official"),
            prof("lmms-eval", exact, "lmms-eval@0.7.3"),
            prof("lmms-eval-2025", folded, "lmms-eval@pre-x"),
        ),
        read,
        (),
    )


def test_version_rule_names_the_release_that_reproduces() -> None:
    task = _toy_task()
    items = [
        Item(1, "A", ("a",), {"toolkit_score": 1.0}),  # only the older release folds case
        Item(2, "b", ("b",), {"toolkit_score": 1.0}),
        Item(3, "c", ("d",), {"toolkit_score": 1.0}),  # nobody gives 1
        Item(4, "e", ("e",), {}),  # nothing recorded: not compared
    ]
    chosen = task.profile("lmms-eval")
    scores = [chosen.score_item(it) for it in items]
    check = check_samples(task, chosen, items, scores)
    assert check is not None
    assert check.n_compared == 3
    assert [(g["rule"], g["n"]) for g in check.groups] == [
        ("version:lmms-eval-2025", 1),
        ("unexplained", 1),
    ]


def test_no_lmms_profile_no_check() -> None:
    task = _toy_task()
    task = Task(task.name, task.title, task.metric, "", task.profiles[:1], task.read, ())
    items = [Item(1, "a", ("a",), {"toolkit_score": 0.0})]
    assert check_samples(task, task.profiles[0], items, [1.0]) is None


def test_reported_aggregate_matched_by_metric_name(textvqa_log: Path, capsys: Any) -> None:
    (textvqa_log.parent / "20260101_000000_results.json").write_text(
        json.dumps({"results": {"textvqa_val": {"exact_match,none": 0.7, "alias": "textvqa_val"}}})
    )
    # lmms-eval profile (a fraction, as lmms-eval): (1 + 0.6 + 1) / 3 = 0.8666… beside 0.7
    code = main(["score", "textvqa", "--results", str(textvqa_log), "--profile", "lmms-eval"])
    out = capsys.readouterr().out
    assert code == 0
    line = next(x for x in out.splitlines() if "exact_match,none" in x)
    assert line.split()[-3:] == ["0.7000", "0.8667", "+0.1667"]
    assert "per-sample scores recorded by the toolkit: 1 of 3" in out
    # the document sets the same numbers beside each other, unrounded
    assert main(["score", "textvqa", "--results", str(textvqa_log), "--profile", "lmms-eval",
                 "--json"]) == 0  # fmt: skip
    (row,) = json.loads(capsys.readouterr().out)["reported"]["compared"]
    assert row["metric"] == "textvqa_val / exact_match,none" and row["reported"] == 0.7
    assert row["recomputed"] == pytest.approx(2.6 / 3, rel=1e-12)
    assert row["difference"] == row["recomputed"] - 0.7


def test_reported_metric_without_counterpart_is_not_set_beside_the_headline(
    textvqa_log: Path, capsys: Any
) -> None:
    (textvqa_log.parent / "20260101_000000_results.json").write_text(
        json.dumps({"results": {"textvqa_val": {"bleu,none": 0.1}}})
    )
    assert main(["score", "textvqa", "--results", str(textvqa_log), "--profile", "lmms-eval"]) == 0
    out = capsys.readouterr().out
    assert "bleu" not in out.split("reported by lmms-eval", 1)[1].split("\n", 2)[1]
    assert "no number in common" in out


def _pope_log(path: Path) -> Path:
    # by hand, lmms-eval profile: adversarial 2/2 right; popular 'no' for both (1/2); random
    # 'yes' for both (1/2): accuracy 4/6, TP 2 FP 1 FN 1 -> precision = recall = f1 = 2/3
    answers = ["yes", "no", "yes", "no", "yes", "no"]
    preds = ["Yes", "No", "No", "No", "Yes", "Yes"]
    splits = ["adversarial", "adversarial", "popular", "popular", "random", "random"]
    rows = []
    for i, (a, p, c) in enumerate(zip(answers, preds, splits, strict=True)):
        rec = {"question_id": str(i), "score": float(p.lower() == a)}
        rows.append(
            {
                "doc_id": i,
                "doc": {"question_id": str(i), "question": "Is there a dog?", "answer": a,
                        "category": c},
                "filtered_resps": [p],
                "pope_accuracy": rec,
            }
        )  # fmt: skip
    return _log(path, rows)


def test_lmms_eval_pope_metrics_set_beside_ours_by_declared_name(
    tmp_path: Path, capsys: Any
) -> None:
    log = _pope_log(tmp_path / "20260101_000000_samples_pope.jsonl")
    (tmp_path / "20260101_000000_results.json").write_text(
        json.dumps({"results": {"pope": {"pope_f1_score,none": 0.75, "pope_accuracy,none": 4 / 6}}})
    )
    assert main(["score", "pope", "--results", str(log), "--profile", "lmms-eval"]) == 0
    out = capsys.readouterr().out
    rows = {ln.split()[2]: ln.split()[3:] for ln in out.splitlines() if ",none" in ln}
    assert rows["pope_f1_score,none"] == ["0.7500", "0.6667", "-0.0833"]  # beside our f1
    assert rows["pope_accuracy,none"][-1] == "0"  # 4/6 both, to the last bit


def test_lmms_eval_subtasks_set_beside_our_split_groups(tmp_path: Path, capsys: Any) -> None:
    log = _pope_log(tmp_path / "pope_log.jsonl")
    rep = tmp_path / "results.json"
    rep.write_text(
        json.dumps(
            {
                "results": {
                    "pope_adv": {"pope_accuracy,none": 1.0},
                    "pope_pop": {"pope_accuracy,none": 0.5},
                    "pope_random": {"pope_accuracy,none": 0.25},
                }
            }
        )
    )
    argv = ["score", "pope", "--results", str(log), "--profile", "lmms-eval", "--reported"]
    assert main([*argv, str(rep)]) == 0
    out = capsys.readouterr().out
    diffs = {ln.split()[0]: ln.split()[-1] for ln in out.splitlines() if ",none" in ln}
    assert diffs == {"pope_adv": "0", "pope_pop": "0", "pope_random": "+0.2500"}


def test_a_doc_only_textvqa_log_says_its_answers_are_processed(textvqa_log: Path) -> None:
    # QUIRK processed-doc (lmms-eval@75571cf textvqa/utils.py rewrites doc["answers"] in place)
    ev = evaluate_task("textvqa", textvqa_log)
    assert any("AFTER its EvalAI answer processor" in n for n in ev.notes)


@pytest.mark.parametrize("task", ["pope", "gqa", "vizwiz", "ocrbench", "mme", "textvqa"])
def test_a_forced_layout_is_not_read_as_an_lmms_eval_log(
    task: str, tmp_path: Path, capsys: Any
) -> None:
    # the records have doc_id + filtered_resps but --input-format official forces question_id
    # + answer: the file is not taken for a log, the missing columns are named
    log = _pope_log(tmp_path / "log.jsonl")
    argv = ["score", task, "--results", str(log), "--input-format", "official"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "'official'" in err and "question_id" in err


def test_vqav2_and_every_other_task_write_one_per_sample_form(
    textvqa_log: Path, vqa_log: Path, capsys: Any
) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from vqametrics.schema import evaluation_schema

    docs = {}
    for task, log in (("vqav2", vqa_log), ("textvqa", textvqa_log)):
        assert main(["score", task, "--results", str(log), "--json"]) == 0
        docs[task] = json.loads(capsys.readouterr().out)
        jsonschema.validate(docs[task], evaluation_schema(1))
    vqa, other = (docs[t]["reported"]["per_sample"] for t in ("vqav2", "textvqa"))
    assert (
        set(vqa)
        == set(other)
        == {
            "metric",
            "toolkit_profile",
            "n_compared",
            "n_disagree",
            "by_rule",
        }
    )
    assert (vqa["metric"], vqa["toolkit_profile"]) == ("exact_match", "lmms-eval-vqav2")
    assert vqa["by_rule"] == [
        {
            "rule": "unanimity",
            "title": vqa["by_rule"][0]["title"],
            "n": 1,
            "examples": [{"id": 100, "prediction": "Yes.", "toolkit": 1.0, "ours": 0.0}],
        }
    ]
    assert {k for g in other["by_rule"] for k in g} == {"rule", "title", "n", "examples"}
    # the VQA v2 form before the one schema (n_questions, question_id) is refused
    old = json.loads(json.dumps(docs["vqav2"]))
    group = old["reported"]["per_sample"]["by_rule"][0]
    group["n_questions"] = group.pop("n")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(old, evaluation_schema(1))


def test_score_vqav2_text_shows_the_per_sample_check(vqa_log: Path, capsys: Any) -> None:
    assert main(["score", "vqav2", "--results", str(vqa_log)]) == 0
    out = capsys.readouterr().out
    assert "per-sample 'exact_match' recorded by the toolkit: 1 of 1 item(s) disagree" in out
    assert "  unanimity: 1 — " in out


def test_score_vqav2_sets_vlmevalkit_overall_beside_ours(tmp_path: Path, capsys: Any) -> None:
    # 'yes.' and 'no' against ten 'yes' / ten 'no': 100 under VLMEvalKit (punctuation
    # stripped), as its _acc.csv says; the text and the document show the same row
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    ws = book.active
    ws.append(["index", "question", "answer", "prediction"])
    ws.append([1, "q", str(["yes"] * 10), "yes."])
    ws.append([2, "q", str(["no"] * 10), "no"])
    book.save(tmp_path / "m_VQAv2.xlsx")
    (tmp_path / "m_VQAv2_acc.csv").write_text('"Overall"\n"100.0"\n')
    argv = ["score", "vqav2", "--results", str(tmp_path / "m_VQAv2.xlsx")]
    assert main([*argv, "--profile", "vlmevalkit"]) == 0
    text = capsys.readouterr().out
    row = next(ln for ln in text.splitlines() if ln.startswith("Overall"))
    assert row.split() == ["Overall", "100.00", "100.00", "0"]
    assert main([*argv, "--profile", "vlmevalkit", "--json"]) == 0
    (compared,) = json.loads(capsys.readouterr().out)["reported"]["compared"]
    assert compared == {
        "metric": "Overall",
        "reported": 100.0,
        "recomputed": 100.0,
        "difference": 0,
    }
