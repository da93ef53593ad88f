"""``score TASK --extract``: diagnostics always, extraction on request, traced per item."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vqametrics.cli import main
from vqametrics.tasks._run import evaluate_task

ROWS = [
    {"index": 0, "question": "q", "answer": "Fiction", "prediction": "The answer is Fiction."},
    {"index": 1, "question": "q", "answer": "Travel", "prediction": "**Travel**"},
    {"index": 2, "question": "q", "answer": "Cookbooks", "prediction": "Cookbooks"},
]


def test_parity_profiles_never_extract_unless_asked() -> None:
    r = evaluate_task("ocrvqa", ROWS)
    assert r.metrics["Overall"] == pytest.approx(100 / 3)  # only the plain answer matches
    assert r.extraction is None and "extract" not in r.signature.format()
    assert r.diagnostics is not None and r.diagnostics.verbose == 2
    assert r.as_dict()["diagnostics"]["verbose_predictions"] == 2
    first = next(iter(r.per_item()))
    assert first["verbose"] is True and "answer_marker" in first["verbose_reasons"]


def test_extract_answer() -> None:
    r = evaluate_task("ocrvqa", ROWS, extract="answer")
    assert r.metrics["Overall"] == 100.0
    assert "|extract:answer|" in r.signature.format()
    rec = next(iter(r.per_item()))
    assert rec["raw_prediction"] == "The answer is Fiction."
    assert rec["extracted"] == rec["prediction"] == "Fiction"
    assert rec["extract_rule"] == "answer_marker+trailing_period"
    assert r.as_dict()["extract"]["rules"] == {
        "answer_marker": 1,
        "trailing_period": 1,
        "markdown": 1,
    }
    # diagnostics describe the raw predictions and never change a score
    assert r.diagnostics is not None and r.diagnostics.verbose == 2


def test_long_references_raise_the_word_limit() -> None:
    title = "A Field Guide to the Birds of Eastern and Central North America"
    r = evaluate_task(
        "ocrvqa", [{"index": 0, "question": "q", "answer": title, "prediction": title}]
    )
    assert r.diagnostics is not None and r.diagnostics.verbose == 0


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(ROWS))
    assert main(["score", "ocrvqa", "--results", str(path), "--json"]) == 0
    cap = capsys.readouterr()
    assert "2 of 3 predictions look verbose" in cap.err and "--extract" in cap.err
    assert json.loads(cap.out)["diagnostics"]["verbose_predictions"] == 2
    out = tmp_path / "out"
    args = ["score", "ocrvqa", "--results", str(path), "--extract", "answer", "--out", str(out)]
    assert main([*args, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["metrics"]["Overall"] == 100.0 and payload["extract"]["changed"] == 2
    line = json.loads((out / "per_item.jsonl").read_text().splitlines()[1])
    assert (line["raw_prediction"], line["extract_rule"]) == ("**Travel**", "markdown")


def test_cli_unknown_extractor(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["score", "ocrvqa", "--results", "x.json", "--extract", "magic"])
    assert exc.value.code == 2
    assert "invalid choice: 'magic'" in capsys.readouterr().err


def test_explain_shows_raw_extracted_and_rule(capsys: pytest.CaptureFixture[str]) -> None:
    from vqametrics.views.explanation import explain

    plain = explain("<think>x</think> blue", ["blue"] * 4)
    assert plain.score == 0.0 and plain.verbose == ("reasoning_block",)
    e = explain("<think>x</think> blue", ["blue"] * 4, extract="answer")
    assert e.score == 1.0
    assert e.as_dict()["extract"] == {
        "name": "answer",
        "raw_prediction": "<think>x</think> blue",
        "extracted": "blue",
        "rules": ["reasoning_block"],
    }
    assert main(["explain", "<think>x</think> blue", "--answers", "blue", "blue", "blue"]) == 0
    assert "looks verbose (reasoning_block)" in capsys.readouterr().out
    args = ["explain", "<think>x</think> blue", "--answers", "blue", "--extract", "answer"]
    assert main(args) == 0
    assert "extract answer: reasoning_block -> 'blue'" in capsys.readouterr().out
