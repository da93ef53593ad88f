"""The shared MCQ machinery (tasks/_mcq.py): VLMEvalKit sheets, recorded judge decisions
replayed, the toolkit's hit checked, and the aggregations (hand-derived expectations)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.tasks import Item
from vqametrics.tasks._mcq import (
    macro_over,
    pair_accuracy,
    report_acc,
    sheet_choices,
    vlmevalkit_decision,
)
from vqametrics.tasks._run import evaluate_task

HEADER = "index,question,A,B,C,answer,prediction,category"


def _sheet(tmp_path: Path, lines: list[str], name: str = "m_RealWorldQA.csv") -> Path:
    f = tmp_path / name
    f.write_text("\n".join([HEADER, *lines]) + "\n", encoding="utf-8")
    return f


def _record(tmp_path: Path, rows: list[tuple[int, int, str]]) -> Path:
    f = tmp_path / "m_RealWorldQA_openai_result.csv"
    body = "".join(f'{i},{h},"{log}"\n' for i, h, log in rows)
    f.write_text("index,hit,log\n" + body, encoding="utf-8")
    return f


def test_sheet_choices_drop_empty_cells_and_cast_numbers() -> None:
    row = {"A": "cat", "B": None, "C": float("nan"), "D": 3, "E": "", "answer": "A"}
    assert sheet_choices(row) == {"A": "cat", "D": "3", "E": ""}


def test_judge_reply_is_replayed_through_can_infer(tmp_path: Path) -> None:
    sheet = _sheet(
        tmp_path,
        [
            "1,q,cat,dog,bird,B,B,x",  # the rules decide
            "2,q,cat,dog,bird,B,I am not sure,x",  # the judge decided: its reply is B
            "3,q,cat,dog,bird,C,I am not sure,x",  # three failed replies: a random letter
            "4,q,cat,dog,bird,A,I am not sure,x",  # no working judge
        ],
    )
    _record(
        tmp_path,
        [
            (1, 1, "Match Log: B. "),
            (2, 1, "Match Log: The best match is B. "),
            (3, 1, "Match Log: Failed to predict, thus randomly generate one. . "),
            (
                4,
                0,
                "Match Log: Failed in Prefetch, no GPT-based answer matching under "
                "`exact_matching` policy.. ",
            ),
        ],
    )
    r = evaluate_task("realworldqa", sheet)
    assert r.scores == [1.0, 1.0, 1.0, 0.0]
    assert "|judge:recorded|" in r.signature.format()
    notes = " | ".join(r.notes)
    assert "1 row(s) decided by the recorded judge reply" in notes
    assert "unseeded random letter" in notes and "recorded hit is used" in notes
    assert "Failed in Prefetch" in notes and "silently" in notes
    assert "agrees with ours on all 4" in notes
    detail = [rec["decided_by"] for rec in r.per_item()]
    assert detail == ["rules", "judge", "random", "no-judge"]
    # lmms-eval's profile never reads the VLMEvalKit record
    lm = evaluate_task("realworldqa", sheet, profile="lmms-eval")
    assert "judge:recorded" not in lm.signature.format()


def test_no_record_says_which_rows_needed_the_judge(tmp_path: Path) -> None:
    sheet = _sheet(tmp_path, ["1,q,cat,dog,bird,B,B,x", "2,q,cat,dog,bird,B,maybe,x"])
    r = evaluate_task("realworldqa", sheet)
    assert r.scores == [1.0, 0.0]
    assert any("would have needed the judge (index 2)" in n for n in r.notes)
    assert any("exact matching" in n for n in r.notes)
    assert "judge:recorded" not in r.signature.format()


def test_recorded_hit_that_differs_is_listed(tmp_path: Path) -> None:
    sheet = _sheet(tmp_path, ["1,q,cat,dog,bird,B,B,x", "2,q,cat,dog,bird,A,A,x"])
    _record(tmp_path, [(1, 1, "Match Log: B. "), (2, 0, "Match Log: A. ")])
    r = evaluate_task("realworldqa", sheet)
    assert any(
        "differs from ours on 1 of 2 rows (index 2: ours 1, recorded 0)" in n for n in r.notes
    )


@pytest.mark.parametrize("spelling", ["--judge-record", "--judge_record"])
def test_judge_record_option(
    spelling: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = _sheet(tmp_path, ["1,q,cat,dog,bird,B,hmm,x"])
    rec = tmp_path / "elsewhere.csv"
    rec.write_text('index,hit,log\n1,1,"Match Log: B. "\n', encoding="utf-8")
    args = ["score", "realworldqa", "--results", str(sheet), spelling, str(rec)]
    assert main([*args, "--json"]) == 0
    out = capsys.readouterr().out
    assert '"Overall": 1.0' in out and "judge:recorded" in out


def test_every_task_spells_judge_record_with_a_hyphen() -> None:
    """One spelling in every task's option list (MMMU and ScienceQA said ``--judge_record``;
    the underscore form is still read, for every task option)."""
    from vqametrics.tasks import list_tasks

    spelled = {t.name: t.options for t in list_tasks() if t.options}
    with_record = {t for t, opts in spelled.items() if any("record" in n for n, _ in opts)}
    assert {"mmmu", "scienceqa", "realworldqa"} <= with_record
    for task in with_record:
        names = [n for n, _ in spelled[task] if "record" in n]
        assert names == ["judge-record"], (task, names)


def test_column_names_are_lower_cased_and_answers_cast(tmp_path: Path) -> None:
    f = tmp_path / "s.csv"
    f.write_text("Index,Question,A,B,Answer,Prediction,Category\n1,q,0,1,B,1,x\n", "utf-8")
    r = evaluate_task("realworldqa", f)
    assert r.scores == [1.0] and r.data.items[0].fields["category"] == "x"


def test_empty_prediction_is_the_text_nan(tmp_path: Path) -> None:
    sheet = _sheet(tmp_path, ["1,q,cat,nan,bird,B,,x"])
    r = evaluate_task("realworldqa", sheet)
    # VLMEvalKit: str(NaN) == 'nan', which matches the option text 'nan'
    assert r.data.items[0].prediction == "nan" and r.scores == [1.0]
    assert any("read as the text 'nan'" in n for n in r.notes)


def test_bad_sheets_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dup = _sheet(tmp_path, ["1,q,cat,dog,bird,B,B,x", "1,q,cat,dog,bird,B,B,x"], "d.csv")
    assert main(["score", "realworldqa", "--results", str(dup)]) == 2
    err = capsys.readouterr().err
    assert "d.csv" in err and "duplicate index" in err and "Traceback" not in err
    noans = tmp_path / "n.csv"
    noans.write_text("index,A,B,prediction\n1,x,y,A\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"n\.csv: no 'answer' column"):
        evaluate_task("realworldqa", noans)


def test_decision_order() -> None:
    from vqametrics.kernels.choice import get_lineage

    ci = get_lineage("vlmevalkit_can_infer")
    ch = {"A": "cat", "B": "dog"}
    assert vlmevalkit_decision("B", ch, None, ci).by == "rules"
    assert vlmevalkit_decision("x", ch, None, ci).letter == "Z"
    assert vlmevalkit_decision("x", ch, "Match Log: x. ", ci).by == "other-rules"


def _items(fields: list[dict[str, Any]]) -> list[Item]:
    return [Item(i, "A", ("A",), f) for i, f in enumerate(fields)]


def test_report_acc_and_macro_over() -> None:
    items = _items([{"category": "b"}, {"category": "a"}, {"category": "a"}])
    agg = report_acc(items, [1.0, 0.0, 1.0], ("category",))
    assert agg.metrics["Overall"] == 2 / 3
    assert list(agg.breakdowns["category"]) == ["a", "b"]  # sorted, as report_acc
    assert agg.breakdowns["category"]["a"]["accuracy"] == 0.5
    # macro: (b 1/1 + a 1/2) / 2
    assert macro_over(items, [1.0, 0.0, 1.0], "category") == 0.75


def test_pair_accuracy() -> None:
    assert pair_accuracy([1, 0, 1, 1]) == (0.75, 0.5)
    with pytest.raises(InputError, match="odd"):
        pair_accuracy([1, 0, 1])


def test_annotations_are_not_silently_ignored(tmp_path: Path) -> None:
    sheet = _sheet(tmp_path, ["1,q,cat,dog,bird,B,B,x"])
    r = evaluate_task("realworldqa", sheet, annotations=str(sheet))
    assert any("--annotations ignored" in n for n in r.notes)
