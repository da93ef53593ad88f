"""Strict CircularEval takes a question's copies from the data file, as in the official dev file.

The official MMBench dev upload file has 4-option questions with only 3 circular copies (the
fourth rotation was never made); strict mode scores each group on the copies it has and still
counts a missing prediction for a copy that exists as a miss. Expected values are derived by
hand from the synthetic rows below.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vqametrics import evaluate_mmbench
from vqametrics.cli import main
from vqametrics.mmbench import load_mmbench_tsv, load_predictions

HEADER = "index\tquestion\thint\tA\tB\tC\tD\tanswer\tcategory\tl2-category\tsplit\n"
# q1: 4 options, 3 copies (rotations 0, 1, 2); q2: 4 options, 4 copies; q3: 2 options, 2 copies
ROWS = (
    "1\tColour?\t\tred\tgreen\tblue\tyellow\tA\tc1\tl2\tdev\n"
    "1000001\tColour?\t\tgreen\tblue\tyellow\tred\tD\tc1\tl2\tdev\n"
    "2000001\tColour?\t\tblue\tyellow\tred\tgreen\tC\tc1\tl2\tdev\n"
    "2\tShape?\t\tsquare\tcircle\ttriangle\tstar\tB\tc1\tl2\tdev\n"
    "1000002\tShape?\t\tcircle\ttriangle\tstar\tsquare\tA\tc1\tl2\tdev\n"
    "2000002\tShape?\t\ttriangle\tstar\tsquare\tcircle\tD\tc1\tl2\tdev\n"
    "3000002\tShape?\t\tstar\tsquare\tcircle\ttriangle\tC\tc1\tl2\tdev\n"
    "3\tYes?\t\tyes\tno\t\t\tA\tc2\tl2\tdev\n"
    "1000003\tYes?\t\tno\tyes\t\t\tB\tc2\tl2\tdev\n"
)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "MMBench_DEV_EN.tsv"
    path.write_text(HEADER + ROWS, encoding="utf-8")
    return path


def _preds(tmp_path: Path, rows: list[tuple[int, str]]) -> Path:
    path = tmp_path / "preds.jsonl"
    path.write_text("".join(json.dumps({"index": i, "prediction": p}) + "\n" for i, p in rows))
    return path


PREDICTIONS = [
    (1, "A"),
    (1000001, "D"),
    (2000001, "C"),  # q1: all 3 copies right -> hit
    (2, "B"),
    (1000002, "A"),
    (2000002, "I am not sure"),  # unparsed -> q2 miss
    (3000002, "C"),
    (3, "A"),  # q3: copy 1000003 has no prediction -> miss (strict)
]


def test_groups_are_the_copies_the_data_has(tmp_path: Path, data: Path) -> None:
    result = evaluate_mmbench(
        load_mmbench_tsv(data), load_predictions(_preds(tmp_path, PREDICTIONS))
    )
    assert [(q.index, q.hit) for q in result.questions] == [(1, 1), (2, 0), (3, 0)]
    assert result.score == 1 / 3
    assert result.counts["fewer_copies"] == 1
    assert result.counts["incomplete"] == 1  # q3
    assert result.counts["unparsed"] == 1


def test_all_copies_right_is_a_hit_with_three_copies(tmp_path: Path, data: Path) -> None:
    preds = [*PREDICTIONS[:5], (2000002, "D"), (3000002, "C"), (3, "A"), (1000003, "B")]
    result = evaluate_mmbench(load_mmbench_tsv(data), load_predictions(_preds(tmp_path, preds)))
    assert result.score == 1.0


def test_text_lists_unparsed_predictions(
    tmp_path: Path, data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    preds = str(_preds(tmp_path, PREDICTIONS))
    code = main(["mmbench", "--data", str(data), "--predictions", preds, "--allow-missing"])
    out = capsys.readouterr().out
    assert code == 0
    assert "note: unparsed prediction 2000002: 'I am not sure'" in out  # 1 unparsed
    assert "unparsed: 1, fewer copies than options: 1" in out


def test_more_rows_than_options_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "d.tsv"
    path.write_text(
        HEADER
        + "3\tYes?\t\tyes\tno\t\t\tA\tc2\tl2\tdev\n"
        + "1000003\tYes?\t\tno\tyes\t\t\tB\tc2\tl2\tdev\n"
        + "2000003\tYes?\t\tyes\tno\t\t\tA\tc2\tl2\tdev\n"
    )
    preds = _preds(tmp_path, [(3, "A")])
    assert main(["mmbench", "--data", str(path), "--predictions", str(preds)]) == 2
    err = capsys.readouterr().err
    assert "question 3 has 2 options but 3 row(s)" in err


def test_predictions_from_stdin_gzip_and_custom_columns(tmp_path: Path, data: Path) -> None:
    import gzip

    rows = "\n".join(json.dumps({"id": i, "out": p}) for i, p in PREDICTIONS)
    path = tmp_path / "p.jsonl.gz"
    path.write_bytes(gzip.compress(rows.encode()))
    preds = load_predictions(path, id_field="id", answer_field="out")
    assert dict(preds.values) == dict(PREDICTIONS)


def test_mmbench_task_gives_the_numbers_of_the_command(tmp_path: Path, data: Path) -> None:
    from vqametrics.tasks import get_task, list_tasks, score_answer
    from vqametrics.tasks._run import evaluate_task

    preds = _preds(tmp_path, PREDICTIONS)
    direct = evaluate_mmbench(load_mmbench_tsv(data), load_predictions(preds))
    result = evaluate_task("mmbench", preds, annotations=data, allow_missing=True)
    assert result.metrics["Overall"] == direct.score == 1 / 3
    # one run, one signature: the profile first (docs/mmbench.md's example)
    assert result.signature.format() == direct.signature
    assert direct.signature.startswith("mmbench|profile:vlmevalkit|mode:circular|")
    assert get_task("mmbench").name in {t.name for t in list_tasks()}
    options = {"A": "red", "B": "green"}
    assert score_answer("mmbench", "The answer is B.", "B", options=options) == 1.0
    assert score_answer("mmbench", "A", "B", options=options) == 0.0
