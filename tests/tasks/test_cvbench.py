"""CV-Bench: 2D = the unweighted mean over sources, 3D = micro, and their mean."""

from __future__ import annotations

from typing import Any

from vqametrics.tasks._run import evaluate_task


def _row(i: int, split: str, source: str, hit: bool) -> dict[str, Any]:
    return {"index": i, "question": "q", "A": "x", "B": "y", "answer": "A"} | {
        "split": split,
        "source": source,
        "category": "Count" if split == "2D" else "Depth",
        "prediction": "A" if hit else "B",
    }


ROWS_2D = [
    _row(0, "2D", "ADE20K", True),
    _row(1, "2D", "ADE20K", False),
    _row(2, "2D", "ADE20K", False),
    _row(3, "2D", "ADE20K", False),
    _row(4, "2D", "COCO", True),
]
ROWS_3D = [_row(10, "3D", "Omni3D", True), _row(11, "3D", "Omni3D", False)]


def test_2d_is_the_mean_over_sources_not_over_items() -> None:
    r = evaluate_task("cvbench", ROWS_2D)
    # (1/4 + 1/1) / 2, while the micro mean would be 2/5
    assert r.metrics["Overall"] == 0.625
    assert r.aggregate.breakdowns["source"]["ADE20K"]["accuracy"] == 0.25


def test_3d_is_micro() -> None:
    assert evaluate_task("cvbench", ROWS_3D).metrics["Overall"] == 0.5


def test_both_splits_report_each_and_their_mean() -> None:
    r = evaluate_task("cvbench", ROWS_2D + ROWS_3D)
    assert r.metrics["2D"] == 0.625 and r.metrics["3D"] == 0.5
    assert r.metrics["Overall"] == (0.625 + 0.5) / 2
