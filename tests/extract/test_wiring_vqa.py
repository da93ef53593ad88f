"""``vqametrics vqa``: the stderr line, ``--json`` diagnostics, ``--extract`` traced in
per_question.jsonl (bulk and per-question writers alike), and the judge metric beside."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from vqametrics.cli import main
from vqametrics.pipeline.vqa_outputs import write_vqa_outputs
from vqametrics.tasks.vqav2 import evaluate_vqa

from .chat_templates import wrap

SAMPLE = resources.files("vqametrics") / "data" / "vqa2_val_sample"
ANN = str(SAMPLE / "annotations.json")


@pytest.fixture(scope="module")
def wrapped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    plain = json.loads((SAMPLE / "results_majority.json").read_text())
    rows = [
        {"question_id": r["question_id"], "answer": wrap(r["answer"], i)}
        for i, r in enumerate(plain)
    ]
    path = tmp_path_factory.mktemp("chat") / "results_chat.json"
    path.write_text(json.dumps(rows))
    return path


def test_cli_warns_and_reports(wrapped: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vqa", "--annotations", ANN, "--results", str(wrapped), "--json"]) == 0
    cap = capsys.readouterr()
    payload = json.loads(cap.out)
    n = payload["diagnostics"]["verbose_predictions"]
    assert f"{n} of {payload['n']} predictions look verbose" in cap.err
    assert "see --extract" in cap.err
    assert "extract" not in payload


def test_cli_extract_answer(
    wrapped: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    args = ["vqa", "--annotations", ANN, "--results", str(wrapped), "--extract", "answer"]
    assert main([*args, "--json", "--out", str(out)]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert round(payload["metrics"]["overall"], 2) >= 99.0
    assert "|extract:answer|" in payload["signature"]
    assert payload["extract"]["rules"]["reasoning_block"] > 0
    first = json.loads((out / "per_question.jsonl").read_text().splitlines()[0])
    assert first["raw_prediction"].startswith("Yes, there is")
    assert (first["extracted"], first["extract_rule"], first["verbose"]) == ("yes", "yes_no", True)
    assert first["prediction"] == "yes"


def test_bulk_and_slow_writers_agree(wrapped: Path, tmp_path: Path) -> None:
    preds = {r["question_id"]: r["answer"] for r in json.loads(wrapped.read_text())}
    result = evaluate_vqa(ANN, preds, extract="evalscope")
    assert result._fast is not None  # the sample is large enough for the bulk scorer
    write_vqa_outputs(result, tmp_path)
    lines = [json.loads(x) for x in (tmp_path / "per_question.jsonl").read_text().splitlines()]
    slow = list(result._per_question_slow(range(len(result.scores))))
    assert lines == slow
    assert {"verbose", "raw_prediction", "extracted", "extract_rule"} <= set(lines[0])


def test_unknown_extract_is_usage_error(wrapped: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["vqa", "--annotations", ANN, "--results", str(wrapped), "--extract", "nope"])
    assert exc.value.code == 2


def test_judge_needs_url_and_model(wrapped: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["vqa", "--annotations", ANN, "--results", str(wrapped)]
    assert main([*args, "--judge-url", "http://127.0.0.1:9/v1"]) == 2
    assert "--judge-url needs --judge-model" in capsys.readouterr().err


@pytest.mark.slow
def test_judge_metric_beside(
    wrapped: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("httpx")
    from judge.stub import Stub, serve

    # the stub says "equivalent" whenever the model answer contains a human answer
    def reply(prompt: str) -> str:
        humans = prompt.split("Human answers: ", 1)[1].split("\n", 1)[0].split("; ")
        model = prompt.split("Model answer: ", 1)[1].split("\nReply:", 1)[0].lower()
        return "Yes" if any(h.lower() in model for h in humans) else "No"

    with serve(Stub(reply=reply)) as stub:
        out = tmp_path / "out"
        qs = str(SAMPLE / "questions.json")
        args = ["vqa", "--annotations", ANN, "--results", str(wrapped), "--questions", qs, "--json"]
        judge = ["--judge-url", stub.url, "--judge-model", "stub", "--judge-cache", str(tmp_path)]
        assert main([*args, *judge, "--out", str(out)]) == 0
        payload = json.loads(capsys.readouterr().out)
        j = payload["judge"]
        assert round(payload["metrics"]["overall"], 2) < 10  # the rule-based score is unchanged
        assert j["judge_calls"] == len(stub.requests) > 0 and j["cache_hits"] == 0
        assert j["judged"] + j["decided_by_rules"] == j["decided"]
        assert j["accuracy"] > 90 and "judge-eq|judge:stub|" in j["signature"]
        rec = json.loads((out / "judge.jsonl").read_text().splitlines()[0])
        assert {"question_id", "prediction", "decision", "prompt", "response"} <= set(rec)
        texts = {
            q["question_id"]: q["question"] for q in json.loads(Path(qs).read_text())["questions"]
        }
        assert f"Question: {texts[rec['question_id']]}" in rec["prompt"]
        calls = len(stub.requests)
        assert main([*args, *judge]) == 0  # a re-run makes no calls
        again = json.loads(capsys.readouterr().out)["judge"]
        assert len(stub.requests) == calls and again["cache_hits"] == calls
        assert again["judge_calls"] == 0
        assert again["accuracy"] == j["accuracy"]


def test_unwritable_judge_cache(
    wrapped: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("httpx")
    blocker = tmp_path / "f"
    blocker.write_text("")
    args = ["vqa", "--annotations", ANN, "--results", str(wrapped), "--judge-url"]
    args += ["http://127.0.0.1:9/v1", "--judge-model", "m", "--judge-cache", str(blocker / "x")]
    assert main(args) == 2
    assert "not a writable directory" in capsys.readouterr().err
