"""One result type for every task: the JSON document (schema 1), explain, to_pandas, repr.

Expected numbers come from the official script's outputs bundled with the 5-question fixture
(``official_accuracy.json``, ``official_evalQA.json``) or are derived by hand in a comment.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from vqametrics import InputError, MissingDependencyError, UnknownNameError
from vqametrics.cli import main
from vqametrics.schema import evaluation_schema
from vqametrics.tasks._run import TaskEvaluation, evaluate_task

jsonschema = pytest.importorskip("jsonschema")

DATA = Path(__file__).resolve().parents[1] / "src" / "vqametrics" / "data"


def _validate(doc: dict[str, Any]) -> None:
    jsonschema.validate(doc, evaluation_schema(1))


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(argv) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def test_vqa_json_is_the_score_vqav2_document(
    fixture_5q: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = ["--annotations", str(fixture_5q / "annotations.json")]
    files += ["--results", str(fixture_5q / "results.json"), "--metrics", "vqa,em,em-any"]
    vqa = _json(["vqa", *files, "--json"], capsys)
    score = _json(["score", "vqav2", *files, "--json"], capsys)
    assert vqa == score
    _validate(vqa)
    official = json.loads((fixture_5q / "official_accuracy.json").read_text())
    assert vqa["schema"] == 1 and vqa["task"] == "vqav2" and vqa["units"] == "percent"
    assert round(vqa["metrics"]["overall"], 2) == official["overall"] == 98.0
    answer_types = vqa["breakdowns"]["answer_type"]
    assert {g: round(v["accuracy"], 2) for g, v in answer_types.items()} == (
        official["perAnswerType"]
    )
    # every prediction is its question's multiple_choice_answer (read by hand)
    assert vqa["metrics"]["em"] == vqa["metrics"]["em_any"] == 100.0
    assert answer_types["other"]["em"] == 100.0
    assert vqa["signatures"]["em"].startswith("em|profile:official|")


def test_the_interval_is_part_of_the_document(
    fixture_5q: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = ["--annotations", str(fixture_5q / "annotations.json")]
    files += ["--results", str(fixture_5q / "results.json")]
    doc = _json(["vqa", *files, "--bootstrap", "50", "--seed", "3", "--json"], capsys)
    _validate(doc)
    lo, hi = doc["intervals"]["ci95"]["overall"]
    assert lo <= doc["metrics"]["overall"] <= hi
    assert doc["intervals"]["bootstrap"]["n_bootstrap"] == 50
    assert "|bootstrap:50|seed:3|" in doc["signature"]


def test_the_old_vqa_document_does_not_validate(fixture_5q: Path) -> None:
    from vqametrics import evaluate_vqa

    old = evaluate_vqa(fixture_5q / "annotations.json", fixture_5q / "results.json").as_dict()
    with pytest.raises(jsonschema.ValidationError):
        _validate(json.loads(json.dumps(old)))


def _ocrvqa(tmp_path: Path) -> TaskEvaluation:
    f = tmp_path / "r.csv"
    f.write_text("index,answer,prediction\n1,cat,cat\n2,dog,a dog\n3,owl,\n", encoding="utf-8")
    return evaluate_task("ocrvqa", f, allow_missing=True)


def test_every_kind_of_task_validates(tmp_path: Path) -> None:
    evaluations = [
        evaluate_task(
            "textvqa",
            DATA / "textvqa_val_sample" / "results_vila-1.5-8b.json",
            annotations=DATA / "textvqa_val_sample" / "annotations.json",
        ),
        _ocrvqa(tmp_path),
    ]
    res = tmp_path / "answers.jsonl"
    lab = tmp_path / "coco_pope_random.json"
    res.write_text('{"answer": "Yes"}\n{"answer": "no"}\n{"answer": "maybe"}\n', encoding="utf-8")
    lab.write_text('{"label": "yes"}\n{"label": "yes"}\n{"label": "no"}\n', encoding="utf-8")
    evaluations.append(evaluate_task("pope", res, annotations=lab))
    for ev in evaluations:
        doc = json.loads(json.dumps(ev.as_dict()))
        _validate(doc)
        assert doc["task"] == ev.task.name and doc["n"] == len(ev.data.items)
    # ocrvqa: cat = cat, "a dog" is not "dog", the empty cell is missing: 1 of 3 (by hand)
    assert evaluations[1].as_dict()["metrics"]["Overall"] == pytest.approx(100 / 3)
    assert evaluations[1].as_dict()["n_missing"] == 1


def test_explain_a_vqa_question_as_the_script_scored_it(fixture_5q: Path) -> None:
    ev = evaluate_task(
        "vqav2", fixture_5q / "results.json", annotations=fixture_5q / "annotations.json"
    )
    # official_evalQA.json: 549971002 scored 90.0 ("crab": 3 of 10 answers)
    e = ev.explain(549971002)
    assert round(100 * e.score, 2) == 90.0 and e.m == 3
    assert e.score == ev.scores[ev.index(549971002)]
    assert ev.explain("549971002") == e  # the id as typed on a command line
    # docs/workflow.md: an unknown id is an UnknownNameError naming the id and the file
    with pytest.raises(UnknownNameError, match=r"annotations\.json: no item with id 1 among its 5"):
        ev.explain(1)
    with pytest.raises(UnknownNameError, match="no item with id 1 "):
        ev.index(1)


def test_explain_a_task_item_shows_what_was_compared(tmp_path: Path) -> None:
    # ocrvqa: strip + lower equality, so "a dog" is not "dog" (by hand): 0.0
    d = _ocrvqa(tmp_path).explain(2).as_dict()
    assert d["prediction"] == "a dog" and d["references"] == ["dog"] and d["score"] == 0.0


def test_explain_delegates_to_explain_item(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = importlib.import_module("vqametrics.tasks._explain")
    seen: list[Any] = []
    monkeypatch.setattr(
        module, "explain_item", lambda ev, i: seen.append(i) or "told", raising=False
    )
    assert _ocrvqa(tmp_path).explain("3") == "told" and seen == ["3"]


def test_to_pandas_one_row_per_item(fixture_5q: Path) -> None:
    pytest.importorskip("pandas")
    ev = evaluate_task(
        "vqav2", fixture_5q / "results.json", annotations=fixture_5q / "annotations.json"
    )
    df = ev.to_pandas()
    assert list(df.columns[:4]) == ["id", "prediction", "references", "score"]
    evalqa = json.loads((fixture_5q / "official_evalQA.json").read_text())
    assert {str(k): round(100 * s, 2) for k, s in zip(df["id"], df["score"], strict=True)} == evalqa
    assert set(df["answer_type"]) == {"other", "yes/no"}


def test_to_pandas_without_pandas_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ev = _ocrvqa(tmp_path)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(MissingDependencyError, match="pip install"):
        ev.to_pandas()


def test_repr_is_one_short_line(tmp_path: Path) -> None:
    text = repr(_ocrvqa(tmp_path))
    assert text.startswith("<TaskEvaluation ocrvqa Overall=")
    assert "3 items, 1 missing" in text and "\n" not in text and len(text) < 160
    assert "<table" in _ocrvqa(tmp_path)._repr_html_()


def test_exact_match_through_the_task_options() -> None:
    annotations = [
        {"question_id": 1, "answers": ["yes"] * 10},
        {"question_id": 2, "answers": ["no"] * 10},
    ]
    results = [{"question_id": 1, "answer": "yes"}, {"question_id": 2, "answer": "yes"}]
    ev = evaluate_task("vqav2", results, annotations=annotations, metrics="em,em-any")
    # by hand: q1 matches all ten answers, q2 none: VQA 50, EM 50, EM-any 50
    assert dict(ev.metrics) == {"overall": 50.0, "n": 2, "em": 50.0, "em_any": 50.0}
    with pytest.raises(Exception, match="unknown metric 'bleu'"):
        evaluate_task("vqav2", results, annotations=annotations, metrics="bleu")


def test_score_vqav2_out_writes_the_official_files(
    fixture_5q: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["score", "vqav2", "--annotations", str(fixture_5q / "annotations.json")]
    argv += ["--results", str(fixture_5q / "results.json"), "--out", str(out)]
    assert main(argv) == 0
    capsys.readouterr()
    for name in ("evalQA", "accuracy"):
        ours = json.loads((out / f"{name}.json").read_text())
        assert ours == json.loads((fixture_5q / f"official_{name}.json").read_text())
    assert (out / "per_question.jsonl").read_text().count("\n") == 5
    assert (out / "signature.txt").read_text().startswith("vqa-acc|profile:official|")


def test_intervals_and_paired_tests_on_any_task(tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    from vqametrics import diff_results, evaluate, evaluation_ci, paired_test

    ann = DATA / "textvqa_val_sample" / "annotations.json"
    res = DATA / "textvqa_val_sample" / "results_vila-1.5-8b.json"
    a = evaluate("textvqa", res, annotations=ann, ci=200, seed=1)
    lo, hi = a.intervals.ci95()["overall"]
    # the interval is of the mean item score in percent: the headline is that mean, a fraction
    assert lo <= 100 * a.headline <= hi and hi - lo < 30
    assert a.signature.format().endswith("|bootstrap:200|seed:1|vqametrics:0.1.0")
    assert a.intervals.ci95() == evaluation_ci(a, n_bootstrap=200, seed=1).ci95()
    # B answers every question "yes": the paired difference is A − B, exactly
    items = json.loads(res.read_text())
    other = tmp_path / "yes.json"
    other.write_text(json.dumps([{**r, "answer": "yes"} for r in items]), encoding="utf-8")
    b = evaluate("textvqa", other, annotations=ann)
    test = paired_test(a.scores, b.scores, n_bootstrap=100, n_permutations=100)
    assert test.overall.delta == pytest.approx(100 * (a.headline - b.headline))
    d = diff_results(a, b, n_bootstrap=100, n_permutations=100)
    assert d.test.overall.delta == test.overall.delta
    changed = [i for i, (x, y) in enumerate(zip(a.scores, b.scores, strict=True)) if x != y]
    assert len(d.flips) == len(changed) > 0
    assert {f["question_id"] for f in d.flips} == {a.data.items[i].id for i in changed}
    with pytest.raises(InputError, match="different tasks"):
        diff_results(a, _ocrvqa_like(a, tmp_path))


def _ocrvqa_like(a: TaskEvaluation, tmp_path: Path) -> TaskEvaluation:
    from dataclasses import replace

    from vqametrics import get_task

    return replace(a, task=get_task("ocrvqa"))


def test_score_ci_json_is_the_document_with_intervals(
    fixture_5q: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("numpy")
    files = ["--annotations", str(fixture_5q / "annotations.json")]
    files += ["--results", str(fixture_5q / "results.json"), "--bootstrap", "40", "--json"]
    vqa = _json(["vqa", *files], capsys)
    score = _json(["score", "vqav2", *files], capsys)
    assert vqa == score
    _validate(score)
    assert list(score["intervals"]["ci95"]) == ["overall", "answer_type", "question_type"]
