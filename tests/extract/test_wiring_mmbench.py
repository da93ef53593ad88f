"""MMBench under ``extract=``: reasoning blocks are dropped before the letter heuristics; the
judge client plugs into the callable-judge hook and each judged row records prompt and reply."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vqametrics import evaluate_mmbench
from vqametrics.cli import main
from vqametrics.mmbench import MMBenchRow

OPTS = {"A": "cat", "B": "dog", "C": "horse"}
ROWS = [
    MMBenchRow(1, OPTS, "B", question="Which animal?"),
    MMBenchRow(2, OPTS, "A", question="Which pet purrs?"),
    MMBenchRow(3, OPTS, "C", question="Which one neighs?"),
]
PREDS: dict[int, str | None] = {
    1: "<think>hmm</think>B",
    2: "A",
    3: "<think>Maybe A, maybe C.</think>\nC",
}


def test_think_blocks_unparsed_without_extract() -> None:
    r = evaluate_mmbench(ROWS, PREDS, mode="vanilla")
    assert r.score == pytest.approx(1 / 3)
    assert r.counts["unparsed"] == 2
    assert "|extract:" not in r.signature
    assert r.diagnostics.warning().startswith("warning: 2 of 3 predictions look verbose")
    passes = [p for q in r.per_question() for p in q["passes"]]  # type: ignore[attr-defined]
    assert [p["verbose"] for p in passes] == [True, False, True]


@pytest.mark.parametrize("name", ["answer", "lmms-eval", "vlmevalkit"])
def test_extract_drops_reasoning(name: str) -> None:
    r = evaluate_mmbench(ROWS, PREDS, mode="vanilla", extract=name)
    assert r.score == 1.0 and r.counts["unparsed"] == 0
    assert f"|extract:{name}|" in r.signature
    p = r.per_question()[0]["passes"][0]  # type: ignore[index]
    assert p["raw_prediction"] == PREDS[1] and p["prediction"] == "B"
    assert r.as_dict()["extract"]["changed"] == 2  # type: ignore[index]


def test_judge_client_in_mmbench(tmp_path: Path) -> None:
    pytest.importorskip("httpx")
    from judge.stub import Stub, serve

    with serve(Stub(reply=lambda prompt: "B")) as stub:
        from vqametrics.judge import JudgeClient

        client = JudgeClient(stub.url, "stub-judge", cache_dir=tmp_path, backoff=0.0)
        preds = {1: "the second one", 2: "A", 3: "C"}
        r = evaluate_mmbench(
            ROWS, preds, mode="vanilla", judge=client.as_callable(), judge_name=client.model
        )
        assert r.score == 1.0 and r.counts["judged"] == 1 and r.counts["judge_calls"] == 1
        assert "|judge:stub-judge|" in r.signature
        judged = r.per_question()[0]["passes"][0]["judge"]  # type: ignore[index]
        assert judged["response"] == "B" and judged["decision"] == "B"
        assert "the second one" in judged["prompt"]
        n = len(stub.requests)
        again = evaluate_mmbench(ROWS, preds, mode="vanilla", judge=client.as_callable())
        assert again.score == 1.0 and len(stub.requests) == n  # served from the cache


def _files(tmp_path: Path, preds: dict[int, str]) -> tuple[Path, Path]:
    data = tmp_path / "mmb.tsv"
    lines = ["index\tquestion\tA\tB\tC\tanswer\tcategory\tl2-category\tsplit"]
    lines += [f"{r.index}\t{r.question}\tcat\tdog\thorse\t{r.answer}\tc\tl2\tdev" for r in ROWS]
    data.write_text("\n".join(lines) + "\n")
    pred = tmp_path / "pred.jsonl"
    pred.write_text(
        "".join(json.dumps({"index": i, "prediction": p}) + "\n" for i, p in preds.items())
    )
    return data, pred


def test_cli_extract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, pred = _files(tmp_path, {i: p for i, p in PREDS.items() if p is not None})
    base = ["mmbench", "--data", str(data), "--predictions", str(pred), "--mode", "vanilla"]
    assert main([*base, "--json"]) == 0
    cap = capsys.readouterr()
    assert "2 of 3 predictions look verbose" in cap.err
    assert json.loads(cap.out)["metrics"]["unparsed"] == 2
    assert main([*base, "--json", "--extract", "answer"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["metrics"]["Overall"] == 1.0 and "|extract:answer|" in report["signature"]


def test_cli_judge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("httpx")
    from judge.stub import Stub, serve

    data, pred = _files(tmp_path, {1: "the second one", 2: "A", 3: "no idea"})
    # the judge answers B for row 1 and garbage for row 3: 3 tries, then unjudged
    reply = {"the second one": "B", "no idea": "I refuse."}

    def answer(prompt: str) -> str:
        return next(v for k, v in reply.items() if f"Answer: {k}" in prompt)

    with serve(Stub(reply=answer)) as stub:
        args = ["mmbench", "--data", str(data), "--predictions", str(pred), "--mode", "vanilla"]
        args += ["--judge-url", stub.url, "--judge-model", "stub", "--judge-cache", str(tmp_path)]
        assert main([*args, "--json", "--out", str(tmp_path / "o")]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["metrics"]["Overall"] == pytest.approx(2 / 3)
        stats = {k: report["judge"][k] for k in ("model", "judged", "judge_calls")}
        stats |= {k: report["judge"][k] for k in ("cache_hits", "unjudged")}
        assert stats == {
            "model": "stub",
            "judged": 1,
            "judge_calls": 4,  # 1 for row 1, 3 tries for row 3
            "cache_hits": 0,
            "unjudged": 1,
        }
        assert report["metrics"]["judged"] == 1
        assert "|judge:stub|" in report["signature"]
        assert report["signature"].count("|judge:") == 1  # the judge named once
        assert main([*args, "--json"]) == 0  # a re-run makes no calls
        again = json.loads(capsys.readouterr().out)["judge"]
        assert (again["judge_calls"], again["cache_hits"]) == (0, 4) and len(stub.requests) == 4
