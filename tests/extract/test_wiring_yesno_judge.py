"""``score pope|mme --judge-url``: answers the profile's parser leaves ``other`` are read by the
yes/no judge (as VLMEvalKit does); decided ones score as yes/no, the rest stay unjudged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("httpx")

from judge.stub import Stub, serve
from vqametrics.cli import main
from vqametrics.judge import JudgeClient
from vqametrics.tasks._run import evaluate_task

ROWS = [
    {"index": 0, "question": "Is there a dog?", "prediction": "Yes", "answer": "Yes"},
    {"index": 1, "question": "Is there a cat?", "prediction": "I can see a cat.", "answer": "Yes"},
    {"index": 2, "question": "Is there a car?", "prediction": "There is none.", "answer": "No"},
    {"index": 3, "question": "Is there a bus?", "prediction": "Hmm.", "answer": "No"},
]
for _r in ROWS:
    _r["category"] = "random"


def _reply(prompt: str) -> str:
    answer = prompt.rsplit("Answer: ", 1)[1].split("\n", 1)[0]
    return {"I can see a cat.": "Yes", "There is none.": "No"}.get(answer, "Unknown")


def test_vlmevalkit_pope_with_judge(tmp_path: Path) -> None:
    plain = evaluate_task("pope", ROWS, profile="vlmevalkit")
    assert plain.metrics["acc"] == 25.0  # the 3 unparsed answers are wrong without a judge
    with serve(Stub(reply=_reply)) as stub:
        client = JudgeClient(stub.url, "stub", cache_dir=tmp_path, backoff=0.0)
        r = evaluate_task("pope", ROWS, profile="vlmevalkit", judge=client)
        assert len(stub.requests) == 3  # only the 3 answers YOrN_Extraction leaves Unknown
    assert r.metrics["acc"] == 75.0  # "Hmm." stays unjudged and wrong
    assert "|judge:stub|" in r.signature.format()
    assert r.judge_stats is not None
    assert (r.judge_stats.judged, r.judge_stats.unjudged) == (2, 1)
    recs = list(r.per_item())
    assert (
        recs[1]["judge"]["decision"] == "yes" and "I can see a cat." in recs[1]["judge"]["prompt"]
    )
    assert recs[3]["judge"]["decision"] is None and recs[3]["judge"]["response"] == "Unknown"
    assert "judge" not in recs[0]
    assert r.as_dict()["judge"]["judge_calls"] == 3


def test_cli_pope_judge_and_non_yes_no_task(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "pope.json"
    path.write_text(json.dumps(ROWS))
    with serve(Stub(reply=_reply)) as stub:
        judge = [
            "--judge-url",
            stub.url,
            "--judge-model",
            "stub",
            "--judge-cache",
            str(tmp_path / "c"),
        ]
        args = ["score", "pope", "--results", str(path), "--profile", "vlmevalkit", "--json"]
        assert main([*args, *judge]) == 0
        payload = json.loads(capsys.readouterr().out)
        assert payload["judge"]["judged"] == 2 and payload["metrics"]["acc"] == 75.0
        assert main([*args, *judge]) == 0  # cached: no new calls
        again = json.loads(capsys.readouterr().out)["judge"]
        assert (again["judge_calls"], again["cache_hits"]) == (0, 3) and len(stub.requests) == 3
        ocr = tmp_path / "ocr.json"
        ocr.write_text(
            json.dumps([{"index": 0, "question": "q", "answer": "a", "prediction": "a"}])
        )
        assert main(["score", "ocrvqa", "--results", str(ocr), *judge]) == 2
        assert "no yes/no parser" in capsys.readouterr().err


def test_vlmevalkit_mme_with_judge(tmp_path: Path) -> None:
    rows = [
        {"index": i, "question": "Is there a dog? Please answer yes or no.", "answer": a,
         "prediction": p, "category": "existence", "image_path": f"img{i // 2}.jpg"}
        for i, (p, a) in enumerate(
            [("Yes", "Yes"), ("No", "No"), ("I can see a cat.", "Yes"), ("There is none.", "No")]
        )
    ]  # fmt: skip
    plain = evaluate_task("mme", rows, profile="vlmevalkit")
    assert plain.metrics["perception"] == 100.0  # acc 50 + acc+ 50: only image 0 right
    assert any("neither yes nor no" in n for n in plain.notes)
    with serve(Stub(reply=_reply)) as stub:
        client = JudgeClient(stub.url, "stub", cache_dir=tmp_path, backoff=0.0)
        r = evaluate_task("mme", rows, profile="vlmevalkit", judge=client)
    assert r.metrics["perception"] == 200.0  # acc 100 + acc+ 100 once the judge reads image 1
    assert not any("neither yes nor no" in n for n in r.notes)
    assert r.judge_stats is not None and r.judge_stats.judged == 2
