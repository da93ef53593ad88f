"""The bytes of ``vqametrics vqa --out`` against fixed expectations, on every path the speed work
takes: the per-question loop (5 questions), the bulk writer in this process (one usable CPU) and
the bulk writer in a forked child with the split decode (two CPUs).

Expected bytes come from the official script's own files for the 5-question fixture
(``tests/data/vqa2_val_5q_official``, re-serialized compactly) and, for a 60,000-question input
built from its questions, from a literal derivation of vqaEval.py's arithmetic and an independent
serializer of the ``per_question.jsonl`` line format (``json.dumps``, compact, keys in the
documented order), never from the code under test.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import vqametrics
from vqametrics.cli import main
from vqametrics.readers import _fork

FIVE = Path(__file__).resolve().parent / "data" / "vqa2_val_5q_official"
N_LARGE = 60_000  # above the forked writer's threshold (report/files.py: 50,000)
OFFICIAL = ("accuracy", "evalQA", "evalQuesType", "evalAnsType")
# the one answer of the fixture that the official processPunctuation changes (", " is present,
# so each comma is removed); no fixture prediction or other answer is changed by any step
PUNCTUATED = {"crab, mayo, pepper": "crab mayo pepper"}


def _compact(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["vqa", *args])
    capsys.readouterr()
    assert code == 0


def _signature(n: int) -> bytes:
    return (
        f"vqa-acc|profile:official|toolkit:vqaEval@a013f00|answers:10|n:{n}|"
        f"vqametrics:{vqametrics.__version__}\n"
    ).encode()


def _record(q: dict[str, Any], pred: str) -> dict[str, Any]:
    """vqaEval.py's arithmetic for one question whose prediction no step changes, in the
    per_question.jsonl key order."""
    raw = [a["answer"] for a in q["answers"]]
    unanimous = len(set(raw)) == 1
    answers = raw if unanimous else [PUNCTUATED.get(a, a) for a in raw]
    loo = []
    for i in range(len(answers)):
        others = [b for j, b in enumerate(answers) if j != i]
        loo.append(min(1.0, sum(1 for b in others if b == pred) / 3))
    total = 0.0
    for v in loo:
        total += v
    changed = not unanimous and any(a in PUNCTUATED for a in raw)
    return {
        "question_id": q["question_id"],
        "prediction": pred,
        "normalized_prediction": pred,
        "normalized_answers": answers,
        "m": sum(1 for a in answers if a == pred),
        "leave_one_out": loo,
        "score": total / len(loo),
        "steps_changed": ["punctuation"] if changed else [],
        "unanimous_skip": unanimous,
        "question_type": q["question_type"],
        "answer_type": q["answer_type"],
        "verbose": False,
    }


def _expected_files(questions: list[dict[str, Any]], preds: list[str]) -> dict[str, bytes]:
    """The official four files (vqaEval.py's rounding and grouping) and per_question.jsonl."""
    records = [_record(q, p) for q, p in zip(questions, preds, strict=True)]
    scores = [r["score"] for r in records]
    by_qt: dict[str, list[int]] = {}
    by_at: dict[str, list[int]] = {}
    for i, q in enumerate(questions):
        by_qt.setdefault(q["question_type"], []).append(i)
        by_at.setdefault(q["answer_type"], []).append(i)

    def pct(rows: list[int]) -> float:
        total = 0.0  # the script's sum(), left to right as on Python <= 3.11 (3.12's compensates)
        for i in rows:
            total += scores[i]
        return round(100 * total / len(rows), 2)

    def per_q(rows: list[int]) -> dict[str, float]:
        return {str(questions[i]["question_id"]): round(100 * scores[i], 2) for i in rows}

    accuracy = {
        "overall": pct(list(range(len(scores)))),
        "perQuestionType": {k: pct(v) for k, v in by_qt.items()},
        "perAnswerType": {k: pct(v) for k, v in by_at.items()},
    }
    return {
        "accuracy.json": _compact(accuracy),
        "evalQA.json": _compact(per_q(list(range(len(scores))))),
        "evalQuesType.json": _compact({k: per_q(v) for k, v in by_qt.items()}),
        "evalAnsType.json": _compact({k: per_q(v) for k, v in by_at.items()}),
        "per_question.jsonl": b"".join(_compact(r) + b"\n" for r in records),
        "signature.txt": _signature(len(records)),
    }


def _check_manifest(out: Path, names: list[str]) -> None:
    import hashlib

    manifest = json.loads((out / "manifest.json").read_bytes())
    for name in names:
        data = (out / name).read_bytes()
        want = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        assert manifest["files"][name] == want, name
    assert (manifest["signature"] + "\n").encode() == (out / "signature.txt").read_bytes()


def test_five_questions_match_the_official_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "o"
    _run(
        [
            "--annotations",
            str(FIVE / "annotations.json"),
            "--results",
            str(FIVE / "results.json"),
            "--out",
            str(out),
        ],
        capsys,
    )
    for name in OFFICIAL:
        official = json.loads((FIVE / f"official_{name}.json").read_bytes())
        assert (out / f"{name}.json").read_bytes() == _compact(official), name
    questions = json.loads((FIVE / "annotations.json").read_bytes())["annotations"]
    preds = {
        r["question_id"]: r["answer"] for r in json.loads((FIVE / "results.json").read_bytes())
    }
    expected = _expected_files(questions, [preds[q["question_id"]] for q in questions])
    # the derivation agrees with the official files before it is trusted on the large input
    for name in OFFICIAL:
        assert expected[f"{name}.json"] == (out / f"{name}.json").read_bytes(), name
    for name in ("per_question.jsonl", "signature.txt"):
        assert (out / name).read_bytes() == expected[name], name
    _check_manifest(out, [*(f"{n}.json" for n in OFFICIAL), "per_question.jsonl"])


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes]]:
    """60,000 questions cycling over the fixture's five, each with a prediction drawn from its
    answers (or an unmatched word), and the bytes expected of ``--out``."""
    doc = json.loads((FIVE / "annotations.json").read_bytes())
    base = doc["annotations"]
    questions, preds = [], []
    for k in range(N_LARGE):
        q = dict(base[k % 5], question_id=base[k % 5]["question_id"] * 100_000 + k // 5)
        words = [*sorted({a["answer"] for a in q["answers"]} - set(PUNCTUATED)), "banana"]
        questions.append(q)
        preds.append(words[(k // 5) % len(words)])
    folder = tmp_path_factory.mktemp("large")
    (folder / "ann.json").write_text(json.dumps({**doc, "annotations": questions}))
    results = [
        {"question_id": q["question_id"], "answer": p}
        for q, p in zip(questions, preds, strict=True)
    ]
    (folder / "res.json").write_text(json.dumps(results))
    return folder, _expected_files(questions, preds)


@pytest.mark.slow  # 60,000 questions built twice (one per worker): make test-slow, run by CI
@pytest.mark.parametrize("cpus", [2, 1])
def test_large_input_matches_the_derivation(
    large: tuple[Path, dict[str, bytes]],
    cpus: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder, expected = large
    if cpus == 1:  # as under ``taskset -c 0``: the sequential paths
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    elif not hasattr(os, "fork") or _fork.usable_cpus() < 2:
        pytest.skip("needs os.fork and two usable CPUs")
    forks: list[int] = []
    real_fork = os.fork

    def spy() -> int:
        pid = real_fork()
        if pid:
            forks.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", spy)
    out = tmp_path / "o"
    _run(
        [
            *("--annotations", str(folder / "ann.json")),
            *("--results", str(folder / "res.json")),
            *("--out", str(out)),
        ],
        capsys,
    )
    # two CPUs: the split decode's child and the forked writer; one CPU: no child at all
    assert len(forks) == (2 if cpus == 2 else 0)
    for name, data in expected.items():
        assert (out / name).read_bytes() == data, name
    _check_manifest(out, [n for n in expected if n != "signature.txt"])


def test_one_cpu_means_no_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3}, raising=False)
    assert _fork.usable_cpus() == 1
    assert not _fork.fork_worthwhile()
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert _fork.fork_worthwhile() == _fork.can_fork()
