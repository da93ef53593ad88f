"""MMVP: VLMEvalKit's pair accuracy (report_acc_MMVP) and its pairing checks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vqametrics.cli import main
from vqametrics.tasks._run import evaluate_task

ROOT = Path(__file__).resolve().parents[2]
CASES = json.loads((ROOT / "tests" / "data" / "mcq-reasoning-cases.json").read_text("utf-8"))


def _rows(hits: list[int]) -> list[dict[str, Any]]:
    rows = []
    for i, h in enumerate(hits):
        pred = "A" if h else "B"
        rows.append(
            {"index": i + 1, "question": f"q{i // 2}", "A": "yes", "B": "no", "answer": "A"}
            | {"prediction": pred}
        )
    return rows


@pytest.mark.parametrize("case", CASES["mmvp_aggregate"], ids=lambda c: c["id"])
def test_pair_accuracy(case: dict[str, Any]) -> None:
    hits = case["input"]["hits_in_file_order"]
    r = evaluate_task("mmvp", _rows(hits))
    assert r.scores == [float(h) for h in hits]
    exp = case["expected"]["vlmevalkit_report_acc_MMVP"]
    assert r.metrics["Average"] == exp["Average"] and r.metrics["Overall"] == exp["Overall"]
    assert r.aggregate.headline == "Overall"


def test_pairs_follow_the_sorted_index() -> None:
    rows = _rows([1, 1, 0, 1])
    r = evaluate_task("mmvp", list(reversed(rows)))
    assert r.metrics["Overall"] == 0.5


def test_odd_count_and_mismatched_pair_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "m.csv"
    f.write_text("index,question,A,B,answer,prediction\n1,q,yes,no,A,A\n", encoding="utf-8")
    assert main(["score", "mmvp", "--results", str(f)]) == 2
    err = capsys.readouterr().err
    assert "m.csv" in err and "even count" in err and "Traceback" not in err
    f.write_text(
        "index,question,A,B,answer,prediction\n1,q,yes,no,A,A\n2,other,yes,no,A,A\n",
        encoding="utf-8",
    )
    assert main(["score", "mmvp", "--results", str(f)]) == 2
    assert "different questions" in capsys.readouterr().err
