"""Every golden case of peer-cases.json, under every profile it pins (spec peer-profiles.md §7.3).

The expected values were produced by running each toolkit's own code (see the file's ``about``);
``tests/data/peer-cases.json`` is a verbatim copy of ``shared/spec/peer-cases.json``. Scores are
compared with ``==``: the profiles promise bit-exact parity.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vqametrics.kernels.accuracy import normalize_answer, vqa_accuracy
from vqametrics.profiles import get_profile, list_profiles

CASES_PATH = Path(__file__).resolve().parents[1] / "data" / "peer-cases.json"
CASES: dict[str, Any] = json.loads(CASES_PATH.read_text("utf-8"))
PROFILES: list[str] = CASES["profiles"]

# one test per profile, each over every case of the file: the 6,454 (case, profile) checks run
# in 14 tests, and a failure lists every case that differs (ids n<i>-<role> and q<i>)


def _mismatches(checks: list[tuple[str, Any, Any]]) -> str:
    bad = [f"{cid}: got {got!r}, expected {want!r}" for cid, got, want in checks if got != want]
    return f"{len(bad)} case(s) differ:\n" + "\n".join(bad[:40]) if bad else ""


def answers_for(case: dict[str, Any], profile: str) -> list[Any]:
    """Records for the record-based peers, plain strings for the string-based ones (§7.3)."""
    answers: list[str] = case["answers"]
    if get_profile(profile).leave_one_out != "records":
        return list(answers)
    if case["answer_ids"]:
        return [{"answer": a, "answer_id": i + 1} for i, a in enumerate(answers)]
    return [{"answer": a} for a in answers]


def test_case_file_covers_the_seven_profiles() -> None:
    assert PROFILES == [
        "official",
        "official-2017",
        "evalai-2017",
        "lmms-eval-vqav2",
        "lmms-eval-textvqa",
        "vlmevalkit",
        "evalscope",
    ]
    assert len(CASES["normalize"]) == 356
    assert len(CASES["questions"]) == 566
    registered = {p.name for p in list_profiles()}
    assert set(PROFILES) <= registered


def test_copy_matches_shared_spec(shared_spec: Path) -> None:
    assert CASES_PATH.read_bytes() == (shared_spec / "peer-cases.json").read_bytes()


@pytest.mark.parametrize("profile", PROFILES)
def test_normalize(profile: str) -> None:
    checks = [
        (
            f"n{i}-{case['role']}",
            normalize_answer(case["input"], profile=profile, role=case["role"]),
            case["expected"][profile],
        )
        for i, case in enumerate(CASES["normalize"])
    ]
    assert len(checks) == 356
    assert not _mismatches(checks), _mismatches(checks)


@pytest.mark.parametrize("profile", PROFILES)
def test_question_score_bit_exact(profile: str) -> None:
    checks = []
    for i, case in enumerate(CASES["questions"]):
        got = vqa_accuracy(case["prediction"], answers_for(case, profile), profile=profile)
        assert isinstance(got, float), f"q{i}"
        checks.append((f"q{i}", got, case["expected"][profile]))
    assert len(checks) == 566
    assert not _mismatches(checks), _mismatches(checks)


STRING_BASED = [p for p in PROFILES if get_profile(p).leave_one_out != "records"]


@pytest.mark.parametrize("profile", STRING_BASED)
def test_string_based_profiles_accept_records(profile: str) -> None:
    """String-based peers read only the ``answer`` field: records, with or without
    ``answer_id``, score like the plain strings (position leave-one-out ignores record groups)."""
    for case in CASES["questions"]:
        expected = case["expected"][profile]
        with_ids = [{"answer": a, "answer_id": i + 1} for i, a in enumerate(case["answers"])]
        without_ids = [{"answer": a} for a in case["answers"]]
        assert vqa_accuracy(case["prediction"], with_ids, profile=profile) == expected
        assert vqa_accuracy(case["prediction"], without_ids, profile=profile) == expected
