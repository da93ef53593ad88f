"""OCR-VQA: VLMEvalKit's and Qwen-VL's exact match, and VILA's reported TESTCORE score."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from vqametrics.cli import main
from vqametrics.tasks import get_task, score_answer
from vqametrics.tasks._run import evaluate_task

from .conftest import case_params


@pytest.mark.parametrize(
    ("case", "profile", "expected"),
    case_params("ocrvqa_exact_match", {"vlmevalkit": "vlmevalkit", "qwen_vl": "qwen-vl"}),
)
def test_cases(case: dict[str, Any], profile: str, expected: float) -> None:
    inp = case["input"]
    assert score_answer("ocrvqa", inp["prediction"], [inp["gt"]], profile=profile) == expected


def test_no_official_scorer_is_said() -> None:
    task = get_task("ocrvqa")
    assert task.default_profile == "vlmevalkit"
    assert "no official" in task.note


def test_punctuation_is_not_forgiven() -> None:
    # hand-derived from the rule (strip + lower only): the period stays
    assert score_answer("ocrvqa", "Fiction.", ["Fiction"]) == 0.0
    assert score_answer("ocrvqa", " FICTION ", ["Fiction", "Other"]) == 1.0


@pytest.mark.shared
def test_vila_testcore_reproduces_reported(shared_data: Path) -> None:
    xlsx = shared_data / "ocrvqa" / "vlmevalkit" / "vila_8b_OCRVQA_TESTCORE.xlsx"
    pytest.importorskip("openpyxl")
    r = evaluate_task("ocrvqa", xlsx)
    # vila_8b_OCRVQA_TESTCORE_acc.csv, written by VLMEvalKit
    assert r.metrics["Overall"] == 60.807291666666664
    cats = r.aggregate.breakdowns["category"]
    assert cats["Engineering & Transportation"]["accuracy"] == 41.66666666666667
    assert cats["Travel"]["accuracy"] == 69.79166666666666
    assert len(cats) == 32
    assert r.data.reported is not None
    assert r.data.reported["values"]["all"]["Overall"] == 60.807291666666664


@pytest.mark.shared
def test_cli_json(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    pytest.importorskip("openpyxl")
    xlsx = shared_data / "ocrvqa" / "vlmevalkit" / "vila_8b_OCRVQA_TESTCORE.xlsx"
    assert main(["score", "ocrvqa", "--results", str(xlsx), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"]["Overall"] == 60.807291666666664
    assert out["signature"].startswith("ocrvqa-em|profile:vlmevalkit|toolkit:VLMEvalKit@e8e78f0|")
    assert out["n"] == 3072


def test_missing_answer_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "r.csv"
    f.write_text("index,prediction\n1,a\n", encoding="utf-8")
    assert main(["score", "ocrvqa", "--results", str(f)]) == 2
    err = capsys.readouterr().err
    assert "r.csv" in err and "answer" in err and "Traceback" not in err


def test_repeated_results_give_one_row_per_system(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "r.csv"
    f.write_text("index,prediction,answer\n1,a,a\n2,b,c\n", encoding="utf-8")
    g = tmp_path / "s.csv"
    g.write_text("index,prediction,answer\n1,x,a\n2,b,c\n", encoding="utf-8")
    args = ["score", "ocrvqa", "--results", str(f), "--results", str(g), "--format", "csv"]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("r,2,50.0,") and lines[2].startswith("s,2,0.0,-50.0,")


def test_csv_scores_like_in_memory(tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    f.write_text(
        "index,question,answer,prediction,category\n"
        "a,q,Fiction,fiction ,X\nb,q,\"['Yes', 'Y']\",No,X\nc,q,Travel,Travel,Y\n",
        encoding="utf-8",
    )
    from_file = evaluate_task("ocrvqa", f)
    rows = [
        {"index": "a", "answer": "Fiction", "prediction": "fiction ", "category": "X"},
        {"index": "b", "answer": "['Yes', 'Y']", "prediction": "No", "category": "X"},
        {"index": "c", "answer": "Travel", "prediction": "Travel", "category": "Y"},
    ]
    in_memory = evaluate_task("ocrvqa", rows)
    assert from_file.scores == in_memory.scores == [1.0, 0.0, 1.0]
    assert from_file.metrics["Overall"] == pytest.approx(200 / 3)
    assert from_file.aggregate.breakdowns["category"]["X"]["accuracy"] == 50.0


def test_profiles_list_per_task(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert main(["profiles", "--task", "ocrvqa", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing[0]["task"] == "ocrvqa"
    assert [p["name"] for p in listing[0]["profiles"]] == ["vlmevalkit", "qwen-vl"]
    assert main(["profiles", "--task", "ocrvqa"]) == 0
    text = capsys.readouterr().out
    assert "*vlmevalkit" in text and "no official scorer" in text
    assert main(["profiles", "--task", "no-such-task"]) == 2
    assert "unknown task" in capsys.readouterr().err


def test_annotations_are_not_silently_ignored(tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    f.write_text("index,prediction,answer\n1,a,a\n", encoding="utf-8")
    r = evaluate_task("ocrvqa", f, annotations=str(f))
    assert any("--annotations ignored" in n for n in r.notes)


@pytest.mark.parametrize("with_doc", [True, False])
def test_lmms_eval_log_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], with_doc: bool
) -> None:
    # lmms-eval has no OCR-VQA task (none under lmms_eval/tasks at 75571cf): nothing to guess
    import json

    f = tmp_path / "samples_ocrvqa.jsonl"
    row: dict[str, Any] = {"doc_id": 0, "target": "Travel", "filtered_resps": ["Travel"]}
    if with_doc:
        row["doc"] = {"question": "What type of book is this?", "answer": "Travel"}
    f.write_text(json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"samples_ocrvqa\.jsonl: .*no OCR-VQA task"):
        evaluate_task("ocrvqa", f)
    assert main(["score", "ocrvqa", "--results", str(f)]) == 2
    err = capsys.readouterr().err
    assert "no OCR-VQA task" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
