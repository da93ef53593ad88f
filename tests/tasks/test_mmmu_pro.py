"""The ``mmmu-pro`` task: evaluate.py's rule, its unseeded random letters counted, replayed or
drawn, never silently resolved."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.tasks import score_answer
from vqametrics.tasks._run import evaluate_task

CASES = json.loads(
    (Path(__file__).parents[1] / "data" / "mcq-reasoning-cases.json").read_text(encoding="utf-8")
)
TEN = [f"option {i}" for i in range(10)]


def _file(tmp_path: Path, rows: list[dict[str, Any]], name: str = "m_standard_cot.jsonl") -> str:
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return str(path)


def _row(i: int, response: str, answer: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": f"test_Art_{i}",
        "options": str(TEN),
        "answer": answer,
        "response": response,
        **extra,
    }


@pytest.mark.parametrize(
    "case",
    [c for c in CASES["choice_extract"] if c["expected"]["mmmu_pro_official"] != "random"],
    ids=lambda c: c["id"],
)
def test_score_answer_cases(case: dict[str, Any]) -> None:
    inp, letter = case["input"], case["expected"]["mmmu_pro_official"]
    for gold in inp["options"]:
        got = score_answer("mmmu-pro", inp["response"], [gold], options=inp["options"])
        assert got == float(gold == letter)


def test_answer_tail_rule_hand_derived(tmp_path: Path) -> None:
    # "Answer: (E)" -> E; "Answer: DNA" holds D and A (N is not one of ten options): two
    # letters, so the tiers decide: "DNA " contains "A " (letter then space) -> A; "zzz" ->
    # the random fallback
    rows = [
        _row(1, "Reasoning...\nAnswer: (E)", "E"),
        _row(2, "Answer: DNA", "A"),
        _row(3, "zzz", "A"),
    ]
    r = evaluate_task("mmmu-pro", _file(tmp_path, rows))
    assert r.scores == [1.0, 1.0, 0.0]
    assert r.metrics["random"] == 1
    assert any("UNSEEDED" in n for n in r.notes)
    assert (
        "fallback-seed:none" in r.signature.format() and "setting:standard" in r.signature.format()
    )
    assert any("1730" in n for n in r.notes)


def test_recorded_draw_is_replayed_and_if_right_checked(tmp_path: Path) -> None:
    rows = [
        _row(1, "zzz", "C", pred_indexs="C", if_right=True),
        _row(2, "B", "B", pred_indexs="B", if_right=True),
    ]
    r = evaluate_task("mmmu-pro", _file(tmp_path, rows))
    assert r.scores == [1.0, 1.0] and r.metrics["Accuracy"] == 100.0
    assert "replayed:1" in r.signature.format()
    assert any("agrees with ours on all 2 rows" in n for n in r.notes)


def test_seeded_draw(tmp_path: Path) -> None:
    r = evaluate_task("mmmu-pro", _file(tmp_path, [_row(1, "zzz", "A")]), fallback_seed="3")
    want = random.Random(3).choice("ABCDEFGHIJ")
    assert r.scores == [float(want == "A")] and "fallback-seed:3" in r.signature.format()


def test_bad_rows_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _file(tmp_path, [{"id": "x", "options": "not a list", "answer": "A", "response": "A"}])
    assert main(["score", "mmmu-pro", "--results", path]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "line 1" in err and "not a list" in err
    with pytest.raises(InputError, match="not an MMMU-Pro output file"):
        evaluate_task("mmmu-pro", _file(tmp_path, [{"id": "x", "response": "A"}]))
