"""The `vqa` and `explain` commands end to end, in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vqametrics.cli import main


def test_vqa_table_shows_breakdowns_and_signature(
    fixture_5q: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "vqa",
            "--annotations",
            str(fixture_5q / "annotations.json"),
            "--results",
            str(fixture_5q / "results.json"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["group", "n", "VQA", "acc"]
    assert lines[2].split() == ["overall", "5", "98.00"]
    assert "answer type    other" in out and "97.50" in out
    assert "question type  none of the above" in out
    assert (
        lines[-1]
        == "vqa-acc|profile:official|toolkit:vqaEval@a013f00|answers:10|n:5|vqametrics:0.1.0"
    )


def test_vqa_json_payload(fixture_5q: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "vqa",
            "--annotations",
            str(fixture_5q / "annotations.json"),
            "--results",
            str(fixture_5q / "results.json"),
            "--json",
        ]
    )
    payload = json.loads(capsys.readouterr().out)
    assert code == 0
    assert payload["profile"] == "official"
    assert payload["n"] == 5
    official = json.loads((fixture_5q / "official_accuracy.json").read_text())
    assert round(payload["metrics"]["overall"], 2) == official["overall"]
    for key, name in (("answer_type", "perAnswerType"), ("question_type", "perQuestionType")):
        groups = payload["breakdowns"][key]
        assert {g: round(v["accuracy"], 2) for g, v in groups.items()} == official[name]
    assert (
        payload["signature"]
        == "vqa-acc|profile:official|toolkit:vqaEval@a013f00|answers:10|n:5|vqametrics:0.1.0"
    )


def test_out_dir_files(
    fixture_5q: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "vqa",
            "--annotations",
            str(fixture_5q / "annotations.json"),
            "--results",
            str(fixture_5q / "results.json"),
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 0
    sig = (tmp_path / "signature.txt").read_text()
    assert (
        sig == "vqa-acc|profile:official|toolkit:vqaEval@a013f00|answers:10|n:5|vqametrics:0.1.0\n"
    )
    rows = [json.loads(x) for x in (tmp_path / "per_question.jsonl").read_text().splitlines()]
    assert [r["question_id"] for r in rows] == [
        425226003,
        17282002,
        197840001,
        153486002,
        549971002,
    ]
    crab = rows[-1]
    assert crab["prediction"] == "crab"
    assert crab["m"] == 3
    assert crab["score"] == 0.8999999999999998
    # annotators 2, 8, 9 (0-based) matched: each sees 2 others; the rest see 3
    assert crab["leave_one_out"] == [1.0, 1.0, 2 / 3, 1.0, 1.0, 1.0, 1.0, 1.0, 2 / 3, 2 / 3]
    assert crab["normalized_answers"][0] == "crab mayo pepper"
    assert "punctuation" in crab["steps_changed"]
    assert crab["unanimous_skip"] is False
    no = rows[3]
    assert no["unanimous_skip"] is True and no["steps_changed"] == []


def test_explain_text(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["explain", "Crab!", "--answers", *(["crab"] * 3 + ["lobster"] * 7)])
    out = capsys.readouterr().out
    assert code == 0
    assert "=> 'crab'" in out
    assert "m = 3 matching slip(s)" in out
    assert "textbook min(1, m/3)         = 1.0000" in out
    assert "score = 0.9  (90.00%)" in out


def test_explain_unanimous_quirk(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["explain", "Yes", "--answers", *(["yes"] * 10), "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0
    assert payload["unanimous"] is True
    assert payload["score"] == 0.0
    assert payload["m"] == 0
    assert [s["skipped"] for s in payload["prediction_steps"]][1:] == [True] * 5


def test_explain_simple_profile(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "explain",
            "sky blue",
            "--answers",
            "blue",
            "sky blue",
            "blue",
            "--profile",
            "simple",
            "--json",
        ]
    )
    payload = json.loads(capsys.readouterr().out)
    assert code == 0
    assert payload["leave_one_out"] == []
    assert payload["score"] == 1 / 3


def test_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == "vqametrics 0.1.0"


def test_python_dash_m(fixture_5q: Path) -> None:
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "vqametrics", "explain", "two", "--answers", "2", "2", "3"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    # N=3, m=2: two annotators see 1 other match (1/3), one sees 2 (2/3): (1/3+1/3+2/3)/3
    assert "score = 0.4444444444444444" in proc.stdout


def test_em_columns_and_signatures(fixture_5q: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["vqa", "--annotations", str(fixture_5q / "annotations.json")]
    args += ["--results", str(fixture_5q / "results.json"), "--metrics", "vqa,em,em-any"]
    assert main([*args, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    # all five predictions equal their question's multiple_choice_answer (checked by hand)
    assert payload["metrics"]["em"] == 100.0
    assert payload["metrics"]["em_any"] == 100.0
    assert payload["signatures"]["em"] == (
        "em|profile:official|toolkit:vqaEval@a013f00|ref:mca|n:5|vqametrics:0.1.0"
    )
    assert main(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["group", "n", "VQA", "acc", "EM", "EM-any"]
    assert out[-2].startswith("em|profile:official")
    assert out[-1].startswith("em-any|profile:official")


def test_unknown_metric(fixture_5q: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["vqa", "--annotations", str(fixture_5q / "annotations.json")]
    args += ["--results", str(fixture_5q / "results.json"), "--metrics", "vqa,bleu"]
    assert main(args) == 2
    assert "unknown metric 'bleu'; valid metrics: vqa, em, em-any" in capsys.readouterr().err


def test_explain_shows_how_each_slip_was_cleaned(capsys: pytest.CaptureFixture[str]) -> None:
    answers = ["red apple"] * 7 + ["Red apple", "a red apple", "red-apple"]
    assert main(["explain", "red apple", "--answers", *answers]) == 0
    out = capsys.readouterr().out
    assert "  slip 8: 'Red apple' -lowercase-> 'red apple'" in out
    assert "  slip 9: 'a red apple' -articles-> 'red apple'" in out
    assert "  slip 10: 'red-apple' -punctuation-> 'red apple'" in out
    assert "slip 1:" not in out  # unchanged slips are not listed


def test_digits_apply_to_the_table(fixture_5q: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["vqa", "--annotations", str(fixture_5q / "annotations.json")]
    args += ["--results", str(fixture_5q / "results.json"), "--digits", "3"]
    assert main(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2].split() == ["overall", "5", "98.000"]


def test_in_memory_annotations_honour_on_duplicate() -> None:
    from vqametrics import evaluate_vqa
    from vqametrics.errors import AnswerCountWarning

    recs = [{"question_id": 1, "answers": ["a"] * 3}, {"question_id": 1, "answers": ["b"] * 3}]
    with pytest.warns(AnswerCountWarning):
        r = evaluate_vqa(recs, {1: "b"}, on_duplicate="last")
    # the last record (`b` x 3) is kept: each of the 3 annotators sees 2 matching others -> 2/3
    assert r.scores == [2 / 3]


def test_the_command_line_starts_without_the_benchmarks_or_the_judge() -> None:
    # every command builds the whole parser: it must not import the task modules (loaded by
    # `score` when it runs, or for its --help) nor the judge client
    import subprocess
    import sys

    code = (
        "import sys, vqametrics.cli as c; c.build_parser(); "
        "print(sorted(m for m in sys.modules if m.startswith(('vqametrics.tasks.', "
        "'vqametrics.judge'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_score_help_lists_the_tasks_and_their_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["score", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "textvqa" in out and "pope" in out and "--choices V  [gqa]" in out


@pytest.mark.parametrize("fails", [False, True])
def test_vqa_leaves_the_collector_as_it_found_it(
    fixture_5q: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], fails: bool
) -> None:
    # the command pauses the cyclic collector while it scores; an in-process caller keeps its own
    import gc

    results = fixture_5q / "results.json"
    if fails:  # an input error (exit code 2, README) raised while the collector is paused
        results = tmp_path / "broken.json"
        results.write_text('[{"question_id": 1, "answer": "x"}, {')
    args = ["vqa", "--annotations", str(fixture_5q / "annotations.json"), "--results"]
    assert gc.isenabled()
    assert main([*args, str(results), "--out", str(tmp_path / "out")]) == (2 if fails else 0)
    assert gc.isenabled()
    gc.disable()
    try:
        assert main([*args, str(results)]) == (2 if fails else 0)
        assert not gc.isenabled()
    finally:
        gc.enable()
    capsys.readouterr()
