"""MMStar: the official fixed denominators, lmms-eval's l2 macro mean, VLMEvalKit's report_acc,
and VILA-1.5-8B's VLMEvalKit run reproduced column by column (vlmevalkit-2024)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from vqametrics.cli import main
from vqametrics.tasks import get_task, parse_choice, score_answer
from vqametrics.tasks._run import evaluate_task

ROOT = Path(__file__).resolve().parents[2]
CASES = json.loads((ROOT / "tests" / "data" / "mcq-reasoning-cases.json").read_text("utf-8"))
OPTIONS = {"A": "alpha", "B": "beta", "C": "gamma", "D": "delta"}


def _rows(case: dict[str, Any], *, dash: bool = False) -> list[dict[str, Any]]:
    rows = []
    for i, r in enumerate(case["input"]["rows"]):
        row = {"index": i, "question": "q", **OPTIONS, "answer": r["answer"]}
        row.update(category=r["category"], prediction=r["prediction"])
        # VLMEvalKit's report_acc groups by the column 'l2-category'
        row["l2-category" if dash else "l2_category"] = r["l2_category"]
        rows.append(row)
    return rows


@pytest.mark.parametrize("case", CASES["mmstar_aggregate"], ids=lambda c: c["id"])
def test_official_fixed_denominators(case: dict[str, Any]) -> None:
    r = evaluate_task("mmstar", _rows(case), profile="official")
    for key, value in case["expected"]["official_MMStar_eval"].items():
        assert r.metrics[key] == value, key
    assert any("fixed" in n for n in r.notes)


@pytest.mark.parametrize("case", CASES["mmstar_aggregate"], ids=lambda c: c["id"])
def test_lmms_eval_macro_over_l2(case: dict[str, Any]) -> None:
    r = evaluate_task("mmstar", _rows(case), profile="lmms-eval")
    for key, value in case["expected"]["lmms_eval"].items():
        assert r.metrics[key] == value, key


@pytest.mark.parametrize("case", CASES["mmstar_aggregate"], ids=lambda c: c["id"])
def test_vlmevalkit_report_acc_exact_matching(case: dict[str, Any]) -> None:
    r = evaluate_task("mmstar", _rows(case, dash=True), profile="vlmevalkit")
    assert r.scores == [float(h) for h in case["expected"]["vlmevalkit_hits"]]
    exp = case["expected"]["vlmevalkit_report_acc_exact_matching"]
    assert r.metrics["Overall"] == exp["Overall"]
    groups = {g: m["accuracy"] for b in r.aggregate.breakdowns.values() for g, m in b.items()}
    assert groups == {k: v for k, v in exp.items() if k not in ("split", "Overall")}
    # no judge record: the rows the rules cannot read are said, as exact matching scores them
    unread = any("would have needed the judge" in n for n in r.notes)
    assert unread == (0 in case["expected"]["vlmevalkit_hits"])
    assert "judge:recorded" not in r.signature.format()


def test_official_rule_examples() -> None:
    # spec §4: 'Based on the image, the answer is C.' counts as B; 'The answer is definitely B'
    # as D
    assert score_answer("mmstar", "Based on the image, the answer is C.", ["B"]) == 1.0
    assert score_answer("mmstar", "The answer is definitely B", ["D"]) == 1.0
    assert score_answer("mmstar", "The answer is definitely B", ["B"]) == 0.0
    assert score_answer("mmstar", "**C**", ["C"], profile="lmms-eval") == 1.0
    assert score_answer("mmstar", "**C**", ["C"]) == 0.0


def test_parse_choice_per_profile() -> None:
    ch = {"A": "cat", "B": "dog", "C": "bird", "D": "fish"}
    assert parse_choice("Answer: D", ch, task="mmstar") == "A"
    assert parse_choice("Answer: D", ch, task="mmstar", profile="lmms-eval") == "D"
    assert parse_choice("Answer: D", ch, task="mmstar", profile="vlmevalkit") == "D"
    assert parse_choice("The answer is Dog", ch, task="mmstar", profile="vlmevalkit") == "D"
    assert parse_choice("The answer is Dog", ch, task="mmstar", profile="vlmevalkit-2025") == "B"
    assert parse_choice("I don't know", ch, task="mmstar", profile="vlmevalkit") is None


def test_unknown_category_and_empty_l2_are_said() -> None:
    rows = [
        {"index": 0, "A": "x", "B": "y", "answer": "A", "prediction": "A"}
        | {"category": "math", "l2_category": "geometry"},
        {"index": 1, "A": "x", "B": "y", "answer": "A", "prediction": "A"}
        | {"category": "cooking", "l2_category": "baking"},
    ]
    r = evaluate_task("mmstar", rows)
    assert r.metrics["math"] == 1 / 250 and r.metrics["final score"] == 1 / 1500
    assert any("outside MMStar's table" in n for n in r.notes)
    assert any("divides by zero" in n for n in r.notes)


def test_sheet_without_options_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "s.csv"
    f.write_text("index,question,answer,prediction\n0,q,A,A\n", encoding="utf-8")
    assert main(["score", "mmstar", "--results", str(f)]) == 2
    err = capsys.readouterr().err
    assert "s.csv" in err and "option columns" in err and "Traceback" not in err


def test_default_profile_is_official() -> None:
    task = get_task("mmstar")
    assert task.default_profile == "official"
    names = [p.name for p in task.profiles]
    assert names == ["official", "lmms-eval", "vlmevalkit", "vlmevalkit-2025", "vlmevalkit-2024"]


def _acc_csv(path: Path) -> dict[str, float]:
    with open(path, newline="", encoding="utf-8") as fh:
        header, values = list(csv.reader(fh))
    return {h: float(v) for h, v in zip(header, values, strict=True) if h != "split"}


@pytest.mark.shared
@pytest.mark.parametrize("name", ["vila_8b_MMStar.xlsx", "vila_8b_MMStar_openai_result.xlsx"])
def test_vila_reproduces_every_acc_csv_column(shared_data: Path, name: str) -> None:
    pytest.importorskip("openpyxl")
    folder = shared_data / "mmstar" / "vlmevalkit"
    reported = _acc_csv(folder / "vila_8b_MMStar_acc.csv")
    r = evaluate_task("mmstar", folder / name, profile="vlmevalkit-2024")
    assert r.metrics["Overall"] == reported.pop("Overall") == 0.4166666666666667
    cats = {g: m["accuracy"] for g, m in r.aggregate.breakdowns["category"].items()}
    assert cats == reported  # every column, bit-equal
    # the sheet's l2_category is not VLMEvalKit's 'l2-category': no l2 columns, as in _acc.csv
    assert "l2-category" not in r.aggregate.breakdowns
    assert any("agrees with ours on all 1500" in n for n in r.notes)
    assert any("12 row(s)" in n and "Failed in Prefetch" in n for n in r.notes)
    assert any("answer letter whose option cell is empty" in n for n in r.notes)
    assert "|judge:recorded|" in r.signature.format()
    assert r.data.reported is not None and r.data.reported["source"].endswith("_acc.csv")


@pytest.mark.shared
def test_vila_under_head_rules_lists_the_rows_that_differ(shared_data: Path) -> None:
    pytest.importorskip("openpyxl")
    xlsx = shared_data / "mmstar" / "vlmevalkit" / "vila_8b_MMStar.xlsx"
    r = evaluate_task("mmstar", xlsx, profile="vlmevalkit")
    assert r.metrics["Overall"] != 0.4166666666666667
    assert any("recorded hit differs from ours" in n for n in r.notes)


@pytest.mark.shared
def test_vila_cli_json(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("openpyxl")
    xlsx = shared_data / "mmstar" / "vlmevalkit" / "vila_8b_MMStar.xlsx"
    args = ["score", "mmstar", "--results", str(xlsx), "--profile", "vlmevalkit-2024", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"]["Overall"] == 0.4166666666666667
    assert out["signature"].startswith("mmstar-acc|profile:vlmevalkit-2024|")


def _log(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    f = tmp_path / "2026_samples_mmstar.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return f


def test_lmms_eval_log_with_doc(tmp_path: Path) -> None:
    # the §16 shape: doc (index, question, answer, category, l2_category) and, per category and
    # under 'average', {question_id, l2_category, score}
    rows = []
    for i, (pred, gold, l2, recorded) in enumerate(
        [
            ("**C**", "C", "geometry", 1.0),
            ("b", "B", "geometry", 0.0),
            ("A", "A", "recognition", 1.0),
        ]
    ):
        cat = "math" if l2 == "geometry" else "fine-grained perception"
        rec = {"question_id": i, "l2_category": l2, "score": recorded}
        rows.append(
            {
                "doc_id": i,
                "doc": {"index": i, "question": "q", "answer": gold, "category": cat}
                | {"l2_category": l2},
                "target": gold,
                "resps": [[pred]],
                "filtered_resps": [pred],
                cat: rec,
                "average": rec,
            }
        )
    r = evaluate_task("mmstar", _log(tmp_path, rows), profile="lmms-eval")
    assert r.scores == [1.0, 0.0, 1.0]
    # macro over l2: (geometry 1/2 + recognition 1/1) / 2
    assert r.metrics["average"] == 0.75
    assert r.sample_check is not None and r.sample_check.as_dict()["n_disagree"] == 0
    official = evaluate_task("mmstar", _log(tmp_path, rows))
    assert official.scores == [0.0, 1.0, 1.0]  # first character: '*' misses, 'b' hits
