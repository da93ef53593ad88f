"""AI2D: lmms-eval's leading-letter filter + exact match, and VLMEvalKit's eras."""

from __future__ import annotations

from pathlib import Path

import pytest

from vqametrics.tasks import get_task, parse_choice, score_answer
from vqametrics.tasks._run import evaluate_task


@pytest.mark.parametrize(
    ("response", "gold", "expected"),
    [
        # spec §5: right B, b, (B), **C**, B., B. dog; wrong 'The answer is B.', 'B dog', 'C) bird'
        ("B", "B", 1.0),
        ("b", "B", 1.0),
        ("(B)", "B", 1.0),
        ("**C**", "C", 1.0),
        ("B.", "B", 1.0),
        ("B. dog", "B", 1.0),
        ("The answer is B.", "B", 0.0),
        ("B dog", "B", 0.0),
        ("C) bird", "C", 0.0),
    ],
)
def test_lmms_eval_filter_and_exact_match(response: str, gold: str, expected: float) -> None:
    assert score_answer("ai2d", response, [gold], profile="lmms-eval") == expected


def test_vlmevalkit_default_and_lmms_mean() -> None:
    rows = [
        {"index": i, "question": "q", "A": "cat", "B": "dog", "answer": a, "prediction": p}
        for i, (a, p) in enumerate([("A", "A"), ("B", "The answer is B."), ("B", "dog")])
    ]
    assert evaluate_task("ai2d", rows).scores == [1.0, 1.0, 1.0]
    r = evaluate_task("ai2d", rows, profile="lmms-eval")
    assert r.scores == [1.0, 0.0, 0.0] and r.metrics["exact_match"] == 1 / 3


def test_no_official_scorer_is_said() -> None:
    task = get_task("ai2d")
    assert task.default_profile == "vlmevalkit" and "no official" in task.note
    ch = {"A": "cat", "B": "dog"}
    assert parse_choice("B. dog", ch, task="ai2d", profile="lmms-eval") == "B"
    assert parse_choice("Answer: B", ch, task="ai2d", profile="lmms-eval") is None


def test_lmms_eval_log_answer_is_an_index(tmp_path: Path) -> None:
    import json

    rows = []
    for i, (pred, idx, recorded) in enumerate([("B. dog", 1, 1), ("The answer is A.", 0, 0)]):
        doc = {"question": "q", "options": ["cat", "dog"], "answer": str(idx)}
        rows.append(
            {"doc_id": i, "doc": doc, "target": "AB"[idx], "resps": [[pred]]}
            | {"filtered_resps": [pred], "exact_match": recorded}
        )
    f = tmp_path / "2026_samples_ai2d.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    r = evaluate_task("ai2d", f, profile="lmms-eval")
    assert [it.references for it in r.data.items] == [("B",), ("A",)]
    assert r.scores == [1.0, 0.0] and r.metrics["exact_match"] == 0.5
    assert r.sample_check is not None and r.sample_check.as_dict()["n_disagree"] == 0
