"""``vqametrics profiles``: the list, its JSON form, and the comparison of a results file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vqametrics.cli import main

NAMES = [
    "official",
    "official-2017",
    "simple",
    "evalai-2017",
    "lmms-eval-vqav2",
    "lmms-eval-textvqa",
    "vlmevalkit",
    "evalscope",
]


@pytest.mark.parametrize("argv", [["profiles"], ["profiles", "--list"]])
def test_list_text(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 * len(NAMES)
    assert [line.split()[0] for line in out[::2]] == NAMES
    assert out[9].strip() == (
        "reproduces: lmms-eval 0.7.3 (EvolvingLMMs-Lab/lmms-eval@75571cf)  "
        "(signature toolkit:lmms-eval@0.7.3)"
    )


def test_list_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profiles", "--list", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in data] == NAMES
    evalscope = data[-1]
    assert evalscope["reproduces"] == "EvalScope (modelscope/evalscope@fde259d)"
    assert evalscope["leave_one_out"] == "none"
    assert evalscope["toolkit"] == "evalscope@fde259d"
    assert evalscope["prediction_steps"][0] == "answer: extraction"
    assert all(p["description"] and p["reproduces"] for p in data)


@pytest.mark.parametrize(
    "argv",
    [
        ["profiles", "--annotations", "a.json"],
        ["profiles", "--list", "--annotations", "a.json", "--results", "r.json"],
    ],
)
def test_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert "--results (with --annotations, unless" in capsys.readouterr().err


def test_results_alone_must_carry_ground_truth(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    res = tmp_path / "r.json"
    res.write_text('[{"question_id": 1, "answer": "yes"}]')
    assert main(["profiles", "--results", str(res)]) == 2
    assert "carries no ground truth" in capsys.readouterr().err


def _files(tmp_path: Path) -> tuple[str, str]:
    annotations = [
        {"question_id": 1, "answers": ["yes"] * 10},
        {"question_id": 2, "answers": ["2"] * 9 + ["3"]},
        {"question_id": 3, "answers": ["cat"] * 3 + ["dog"] * 7},
    ]
    results = [
        {"question_id": 1, "answer": "Yes"},
        {"question_id": 2, "answer": "2."},
        {"question_id": 3, "answer": "cat"},
    ]
    a = tmp_path / "a.json"
    r = tmp_path / "r.json"
    a.write_text(json.dumps(annotations))
    r.write_text(json.dumps(results))
    return str(a), str(r)


def test_compare_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, r = _files(tmp_path)
    assert main(["profiles", "--annotations", a, "--results", r]) == 0
    out = capsys.readouterr().out
    # official: 0 (unanimous, exact) + 1 + 0.9 → 63.33
    assert "  official            63.33\n" in out
    assert "[period-rule] corrected period rule (VLMEvalKit): 1 question(s)" in out
    assert "e.g. 2: '2.' vs '2'x9, '3' → official 1, vlmevalkit 0" in out


def test_compare_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, r = _files(tmp_path)
    assert main(["profiles", "--annotations", a, "--results", r, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["accuracy"]["official"] == 63.33
    assert data["accuracy"]["evalscope"] == 100.0  # min(1, m/3): 1 + 1 + 1
    rules = {r["rule"]: r for r in data["rules"]}
    assert rules["unanimity"]["questions_per_profile"]["lmms-eval-vqav2"] == 1
    assert rules["textbook-formula"]["examples"][0]["question_id"] == 3


def test_missing_file_is_a_clean_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, _ = _files(tmp_path)
    code = main(["profiles", "--annotations", a, "--results", str(tmp_path / "nope.json")])
    assert code == 2
    assert "nope.json" in capsys.readouterr().err
