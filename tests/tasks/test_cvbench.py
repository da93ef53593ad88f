"""CV-Bench: 2D = the unweighted mean over sources, 3D = micro, and their mean."""

from __future__ import annotations

from typing import Any

import pytest

from vqametrics.core.exceptions import InputError
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


@pytest.mark.parametrize("split", ["2d", "", None, "3-D"])
def test_a_split_neither_2d_nor_3d_is_refused(split: str | None) -> None:
    # it would otherwise be scored as a 3D row, silently
    rows = [*ROWS_2D, {**ROWS_3D[0], "split": split}]
    with pytest.raises(InputError, match=r"item 10: split .* is neither '2D' nor '3D'"):
        evaluate_task("cvbench", rows)


def test_a_2d_row_without_its_source_is_refused() -> None:
    # 2D is the mean over sources: a row without one would be a source of its own
    rows = [*ROWS_2D[:4], {**ROWS_2D[4], "source": None}]
    with pytest.raises(InputError, match="item 4: a 2D row without its source"):
        evaluate_task("cvbench", rows)


def test_a_sheet_without_a_split_column_is_one_splits() -> None:
    rows = [{k: v for k, v in row.items() if k != "split"} for row in ROWS_3D]
    assert evaluate_task("cvbench", rows).metrics["Overall"] == 0.5
