"""The split decode of large annotations files (``load._bulk._split_annotations``): a forked child
decodes the answers while this process decodes the rest and reads the questions and results
files ahead (``ReadAhead``). Whatever the input, the outcome is the sequential path's: the same
dataset, output bytes, messages (in the same order) and exit codes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# every bad-input test runs here once more, with the split decode forced (``split`` below)
from test_bad_input import *  # noqa: F403
from vqametrics.cli import main
from vqametrics.readers import _bulk, vqa
from vqametrics.readers._fork import Forked

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def _children() -> set[int]:
    path = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
    return set(map(int, path.read_text().split())) if path.exists() else set()


@pytest.fixture(autouse=True)
def split(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Split from the first byte on; yields, per split attempt, whether it gave the dataset."""
    monkeypatch.setattr(_bulk, "SPLIT_MIN_BYTES", 0)
    outcomes: list[bool] = []
    real = _bulk._split_annotations

    def spy(*args: Any) -> Any:
        dataset = real(*args)
        outcomes.append(dataset is not None)
        return dataset

    monkeypatch.setattr(_bulk, "_split_annotations", spy)
    before = _children()
    yield outcomes
    assert _children() == before  # every child reaped


def _record(qid: Any, n: int = 10, ids: Any = "distinct", **extra: Any) -> dict[str, Any]:
    answers: list[Any] = []
    for i in range(n):
        a: dict[str, Any] = {
            "answer": ["cat", "dog", "two", "2"][i % 4],
            "answer_confidence": "yes",
        }
        if ids == "distinct":
            a["answer_id"] = i + 1
        elif ids == "equal":
            a["answer_id"] = 1
        answers.append(a)
    return {"question_id": qid, "question_type": "what", "answer_type": "other", **extra,
            "answers": answers}  # fmt: skip


GOOD = [_record(1000 + q, image_id=q // 2) for q in range(6)]
QUESTIONS = {
    "info": {},
    "license": {},
    "task_type": "Open-Ended",
    "data_type": "mscoco",
    "data_subtype": "val2014",
    "questions": [{"question_id": r["question_id"]} for r in GOOD],
}
RESULTS = [{"question_id": r["question_id"], "answer": "cat"} for r in GOOD]

# name -> annotations file text: each irregular in its own way
ANNOTATIONS: dict[str, str] = {
    "regular": json.dumps({"annotations": GOOD}),
    "flat list": json.dumps(GOOD),
    "no answer_id": json.dumps([*GOOD[:-1], _record(1005, ids=None)]),
    "equal answer_ids": json.dumps([*GOOD[:-1], _record(1005, ids="equal")]),
    "answer counts vary": json.dumps([*GOOD[:-1], _record(1005, n=3)]),
    "no answers": json.dumps([*GOOD[:-1], {**GOOD[-1], "answers": []}]),
    "answers missing": json.dumps([*GOOD[:-1], {"question_id": 1005}]),
    "plain answers": json.dumps([*GOOD[:-1], {"question_id": 1005, "answers": ["cat"] * 10}]),
    "answer not a string": json.dumps([*GOOD[:-1], _record(1005)]).replace('"dog"', "7", 1),
    "answers not a list": json.dumps([*GOOD[:-1], {"question_id": 1005, "answers": "cat"}]),
    "duplicate question": json.dumps([*GOOD, GOOD[0]]),
    "float question id": json.dumps([*GOOD[:-1], _record(1005.0)]),
    "bool question id": json.dumps([*GOOD[:-1], _record(True)]),
    "answer_id too large": json.dumps([*GOOD[:-1], _record(1005)]).replace(
        '"answer_id": 3', '"answer_id": 18446744073709551616', 1
    ),
    "type not a string": json.dumps([*GOOD[:-1], _record(1005, question_type=5)]),
    # each field is checked by exactly one of the two decodes (the text fields and ids here)
    "answer type not a string": json.dumps([*GOOD[:-1], _record(1005, answer_type=["x"])]),
    "multiple-choice answer not a string": json.dumps(
        [*GOOD[:-1], _record(1005, multiple_choice_answer=3)]
    ),
    "image id a float": json.dumps([*GOOD[:-1], _record(1005, image_id=1.5)]),
    "null types and images named image": json.dumps(
        [
            {**r, "question_type": None, "image": f"{i}.jpg", "multiple_choice_answer": "cat"}
            for i, r in enumerate(GOOD)
        ]
    ),
    "syntax error in the answers": json.dumps(GOOD).replace('"answer_id": 2', '"answer_id": 2,,'),
    "syntax error in the rest": json.dumps(GOOD).replace('"what"', '"what" :', 1),
    "invalid UTF-8 in an answer": json.dumps(GOOD).replace('"dog"', '"d\udcffog"', 1),
    "invalid UTF-8 in a skipped field": json.dumps(GOOD).replace('"yes"', '"y\udcffes"', 1),
    "empty": json.dumps({"annotations": []}),
    "no annotations key": json.dumps({"questions": GOOD}),
}


def _write(tmp: Path, name: str, text: str) -> str:
    path = tmp / name
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    return str(path)


def _run(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    split: bool,
    args: list[str],
) -> tuple[int, str, str]:
    monkeypatch.setattr(_bulk, "SPLIT_MIN_BYTES", 0 if split else 1 << 62)
    code = main(["vqa", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _same_both_ways(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> tuple[int, str, str]:
    sequential = _run(capsys, monkeypatch, False, args)
    assert _run(capsys, monkeypatch, True, args) == sequential
    return sequential


@pytest.mark.parametrize("case", ANNOTATIONS)
@pytest.mark.parametrize("on_duplicate", ["error", "last"])
def test_same_outcome_as_the_sequential_path(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    split: list[bool],
    case: str,
    on_duplicate: str,
) -> None:
    ann = _write(tmp_path, "ann.json", ANNOTATIONS[case])
    q = _write(tmp_path, "q.json", json.dumps(QUESTIONS))
    res = _write(tmp_path, "res.json", json.dumps(RESULTS))
    args = ["--annotations", ann, "--questions", q, "--results", res, "--json"]
    _same_both_ways(capsys, monkeypatch, [*args, "--on-duplicate", on_duplicate])
    # the split decode gives the dataset exactly where the sequential fast path does
    accepted = ("regular", "flat list", "answer counts vary", "null types and images named image")
    assert split == [case in accepted]


# an annotations file that fails and questions/results files that fail too: the message is the
# one that comes first on the sequential path, whichever file the read-ahead decoded first
BAD_OTHERS = {
    "questions header": ("q.json", json.dumps({k: v for k, v in QUESTIONS.items() if k != "info"})),
    "questions no header": ("q.json", json.dumps({"questions": QUESTIONS["questions"]})),
    "questions not JSON": ("q.json", "{"),
    "questions empty": ("q.json", " "),
    "questions miss one": ("q.json", json.dumps({**QUESTIONS, "questions": []})),
    "results not JSON": ("res.json", "[{"),
    "results empty list": ("res.json", "[]"),
    "results extra": ("res.json", json.dumps([*RESULTS, {"question_id": 1, "answer": "x"}])),
    "results not strings": ("res.json", json.dumps([{"question_id": 1000, "answer": 1}])),
}


@pytest.mark.parametrize("ann_case", ["regular", "duplicate question", "no answer_id"])
@pytest.mark.parametrize("other", BAD_OTHERS)
def test_errors_come_in_the_sequential_order(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    ann_case: str,
    other: str,
) -> None:
    ann = _write(tmp_path, "ann.json", ANNOTATIONS[ann_case])
    q = _write(tmp_path, "q.json", json.dumps(QUESTIONS))
    res = _write(tmp_path, "res.json", json.dumps(RESULTS))
    _write(tmp_path, *BAD_OTHERS[other])
    code, _, err = _same_both_ways(
        capsys, monkeypatch, ["--annotations", ann, "--questions", q, "--results", res]
    )
    assert code != 0 and "Traceback" not in err
    if ann_case == "duplicate question":
        assert "ann.json: question 1000: duplicate question id" in err


def test_missing_files_come_in_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ann = _write(tmp_path, "ann.json", ANNOTATIONS["regular"])
    args = ["--annotations", ann, "--questions", str(tmp_path / "q.json")]
    code, _, err = _same_both_ways(capsys, monkeypatch, [*args, "--results", "/nope.json"])
    assert code == 2 and "q.json: no such file" in err


def test_outputs_are_the_same_bytes(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    split: list[bool],
) -> None:
    ann = _write(tmp_path, "ann.json", ANNOTATIONS["regular"])
    q = _write(tmp_path, "q.json", json.dumps(QUESTIONS))
    res = _write(tmp_path, "res.json", json.dumps(RESULTS))
    args = ["--annotations", ann, "--questions", q, "--results", res]
    seq = _run(capsys, monkeypatch, False, [*args, "--out", str(tmp_path / "seq")])
    par = _run(capsys, monkeypatch, True, [*args, "--out", str(tmp_path / "par")])
    assert split == [True]
    assert seq[:2] == par[:2] and seq[2].replace("seq", "X") == par[2].replace("par", "X")
    for path in (tmp_path / "seq").iterdir():
        assert path.read_bytes() == (tmp_path / "par" / path.name).read_bytes()


def _killed(*args: Any) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_killed_child_falls_back(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    split: list[bool],
) -> None:
    ann = _write(tmp_path, "ann.json", ANNOTATIONS["regular"])
    res = _write(tmp_path, "res.json", json.dumps(RESULTS))
    expected = _run(capsys, monkeypatch, False, ["--annotations", ann, "--results", res])
    monkeypatch.setattr(_bulk, "_answers_in_child", _killed)
    assert _run(capsys, monkeypatch, True, ["--annotations", ann, "--results", res]) == expected
    assert split == [False]


def test_a_pipe_is_not_read_ahead(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ann = _write(tmp_path, "ann.json", ANNOTATIONS["regular"])
    res = _write(tmp_path, "res.json", json.dumps(RESULTS))
    outcomes = []
    for is_split in (False, True):
        fifo = tmp_path / f"res{is_split}.json"
        os.mkfifo(fifo)
        # a process (not a thread, which would prevent forking) feeds the pipe
        feeder = subprocess.Popen(["sh", "-c", f"cat '{res}' > '{fifo}'"])
        outcomes.append(
            _run(capsys, monkeypatch, is_split, ["--annotations", ann, "--results", str(fifo)])
        )
        feeder.wait()
    assert outcomes[0] == outcomes[1] and outcomes[0][0] == 0


def test_read_ahead_keeps_only_what_the_loaders_use(tmp_path: Path) -> None:
    q = _write(tmp_path, "q.json", json.dumps(QUESTIONS))
    empty = _write(tmp_path, "res.json", "[]")
    ahead = vqa.ReadAhead(q, empty)
    ahead()
    assert ahead.take("results", empty) is None  # "contains no predictions": worded at its turn
    assert ahead.take("questions", tmp_path / "q.json") is None  # not the same path object
    assert len(ahead.take("questions", q).questions) == len(GOOD)
    assert ahead.take("questions", q) is None  # taken once


def test_result_without_reaping_reaps_on_exit() -> None:
    before = _children()
    with Forked(sum, [1, 2]) as job:
        assert job.result(reap=False) == 3
        with pytest.raises(RuntimeError, match="already collected"):
            job.result()
    assert _children() == before


def test_the_child_traces_the_answers_for_the_scorer(
    tmp_path: Path, split: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the split's child calls the tracer on the distinct answer texts; the dataset keeps it and
    # its result for the scorer; the sequential path (no child, no time to spare) does not
    from vqametrics.kernels._fast import AnswerTracer
    from vqametrics.profiles import get_profile

    path = _write(tmp_path, "ann.json", ANNOTATIONS["regular"])
    tracer = AnswerTracer(get_profile("official"))
    codes = vqa.load_annotations(path, answer_tracer=tracer)._answer_codes
    assert split == [True]
    assert codes.strings == ["cat", "dog", "two", "2"]
    assert codes.traces is not None and codes.traces[0] is tracer
    prepared, finished = codes.traces[1]
    assert prepared == tracer(codes.strings)[0]
    assert sorted(prepared) == ["2", "cat", "dog", "two"]
    assert finished["two"] == ("2", finished["two"][1]) and finished["two"][1] != 0  # a number word
    monkeypatch.setattr(_bulk, "SPLIT_MIN_BYTES", 1 << 62)
    assert vqa.load_annotations(path, answer_tracer=tracer)._answer_codes.traces is None
