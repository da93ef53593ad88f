"""SEED-Bench (image): lmms-eval's first-character rule, VLMEvalKit's report_acc, and
VILA-1.5-8B's VLMEvalKit run reproduced column by column (vlmevalkit-2024)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from vqametrics.tasks import get_task, parse_choice, score_answer
from vqametrics.tasks._run import evaluate_task

ROOT = Path(__file__).resolve().parents[2]
CASES = json.loads((ROOT / "tests" / "data" / "mcq-reasoning-cases.json").read_text("utf-8"))
CASE = CASES["seedbench_aggregate"][0]
OPTIONS = {"A": "alpha", "B": "beta", "C": "gamma", "D": "delta"}


def _rows() -> list[dict[str, Any]]:
    return [
        {"index": i, "question": "q", **OPTIONS, **r} for i, r in enumerate(CASE["input"]["rows"])
    ]


def test_lmms_eval_first_char_rule() -> None:
    r = evaluate_task("seedbench", _rows(), profile="lmms-eval")
    for key, value in CASE["expected"]["lmms_eval"].items():
        assert r.metrics[key] == value
    assert [rec["pred"] for rec in r.per_item()] == CASE["expected"]["lmms_eval_pred_field"]


def test_vlmevalkit_report_acc_exact_matching() -> None:
    exp = CASE["expected"]["vlmevalkit_report_acc_exact_matching"]
    r = evaluate_task("seedbench", _rows())
    assert r.profile.name == "vlmevalkit"
    assert r.metrics["Overall"] == exp["Overall"]
    cats = {g: m["accuracy"] for g, m in r.aggregate.breakdowns["category"].items()}
    assert cats == {k: v for k, v in exp.items() if k not in ("split", "Overall")}


def test_no_official_scorer_is_said() -> None:
    task = get_task("seedbench")
    assert task.default_profile == "vlmevalkit"
    assert "likelihood" in task.note and "no official" in task.note
    assert "official" not in [p.name for p in task.profiles]
    # parse_choice's default 'official' falls back to the task's default (VLMEvalKit)
    ch = {"A": "cat", "B": "dog", "C": "bird", "D": "fish"}
    assert parse_choice("The answer is Dog", ch, task="seedbench") == "D"
    assert parse_choice("Answer: D", ch, task="seedbench", profile="lmms-eval") == "A"


def test_first_char_quirk() -> None:
    # spec §7: 'Answer: D' hits A under lmms-eval's SEED rule
    assert score_answer("seedbench", "Answer: D", ["A"], profile="lmms-eval") == 1.0
    assert score_answer("seedbench", "(B)", ["B"], profile="lmms-eval") == 0.0


def _acc_csv(path: Path) -> dict[str, float]:
    with open(path, newline="", encoding="utf-8") as fh:
        header, values = list(csv.reader(fh))
    return {h: float(v) for h, v in zip(header, values, strict=True) if h != "split"}


@pytest.mark.shared
@pytest.mark.slow
def test_vila_reproduces_every_acc_csv_column(shared_data: Path) -> None:
    pytest.importorskip("openpyxl")
    folder = shared_data / "seedbench_img" / "vlmevalkit"
    reported = _acc_csv(folder / "vila_8b_SEEDBench_IMG_acc.csv")
    r = evaluate_task("seedbench", folder / "vila_8b_SEEDBench_IMG.xlsx", profile="vlmevalkit-2024")
    assert r.metrics["Overall"] == reported.pop("Overall") == 0.6788926363125352
    assert r.metrics["n"] == 14232
    cats = {g: m["accuracy"] for g, m in r.aggregate.breakdowns["category"].items()}
    assert cats == reported
    assert any("agrees with ours on all 14232" in n for n in r.notes)
    assert any("33 row(s) have an answer letter whose option cell is empty" in n for n in r.notes)
    assert "|judge:recorded|" in r.signature.format()


def test_lmms_eval_log_with_doc(tmp_path: Path) -> None:
    rows = []
    for i, (pred, gold) in enumerate([("B. dog", "B"), ("(C)", "C"), ("a", "A")]):
        first = pred.strip()[0]
        doc = {"question_id": f"q{i}", "question": "q", "answer": gold, "data_type": "image"}
        doc |= {"choice_a": "cat", "choice_b": "dog", "choice_c": "bird", "choice_d": "fish"}
        rec = {"pred": first, "answer": gold, "question_id": f"q{i}"}
        rows.append(
            {"doc_id": i, "doc": doc, "target": gold, "resps": [[pred]], "filtered_resps": [pred]}
            | {"seed_image": rec, "seed_all": rec}
        )
    f = tmp_path / "2026_samples_seedbench.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    r = evaluate_task("seedbench", f, profile="lmms-eval")
    assert r.scores == [1.0, 0.0, 1.0]
    assert r.metrics["seed_image"] == r.metrics["seed_all"] == 2 / 3
    assert r.sample_check is not None and r.sample_check.as_dict()["n_disagree"] == 0
    # the doc's choice_a..d are the options VLMEvalKit's rules read
    assert evaluate_task("seedbench", f).scores == [1.0, 1.0, 0.0]
