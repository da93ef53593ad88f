"""RealWorldQA: lmms-eval's letter-or-text rule, VLMEvalKit's eras, and VILA-1.5-8B's
VLMEvalKit run reproduced (vlmevalkit-2024)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from vqametrics.tasks import get_task, score_answer
from vqametrics.tasks._run import evaluate_task


def test_lmms_eval_letter_and_text_golds() -> None:
    # lmms-eval realworldqa_process_results: a gold A-D goes through extract_mcq_answer (A-D),
    # any other gold is a lower/strip/rstrip('.') text match (hand-derived from the rule)
    assert score_answer("realworldqa", "The answer is (C).", ["C"], profile="lmms-eval") == 1.0
    assert score_answer("realworldqa", "Downhill.", ["Downhill"], profile="lmms-eval") == 1.0
    assert score_answer("realworldqa", " 0 ", ["0"], profile="lmms-eval") == 1.0
    assert score_answer("realworldqa", "E", ["E"], profile="lmms-eval") == 1.0
    assert score_answer("realworldqa", "E.", ["A"], profile="lmms-eval") == 0.0


def test_vlmevalkit_two_option_rows_keep_absent_options() -> None:
    rows = [
        {"index": 0, "question": "q", "A": "Left", "B": "Right", "answer": "B", "prediction": "B"},
        # C is empty: an absent option, the row is still counted
        {"index": 1, "question": "q", "A": "0", "B": "1", "C": None, "answer": "C"}
        | {"prediction": "C."},
    ]
    r = evaluate_task("realworldqa", rows)
    assert r.scores == [1.0, 0.0] and r.metrics["Overall"] == 0.5
    assert any("option cell is empty" in n for n in r.notes)


def test_no_official_scorer_is_said() -> None:
    task = get_task("realworldqa")
    assert task.default_profile == "vlmevalkit" and "no official" in task.note


@pytest.mark.shared
@pytest.mark.parametrize(
    "name", ["vila_8b_RealWorldQA.xlsx", "vila_8b_RealWorldQA_openai_result.xlsx"]
)
def test_vila_reproduces_acc_csv(shared_data: Path, name: str) -> None:
    pytest.importorskip("openpyxl")
    folder = shared_data / "realworldqa" / "vlmevalkit"
    with open(folder / "vila_8b_RealWorldQA_acc.csv", newline="", encoding="utf-8") as fh:
        header, values = list(csv.reader(fh))
    assert header == ["split", "Overall"]
    r = evaluate_task("realworldqa", folder / name, profile="vlmevalkit-2024")
    assert r.metrics["Overall"] == float(values[1]) == 0.465359477124183
    assert any("agrees with ours on all 765" in n for n in r.notes)
    # HEAD's rules read two rows differently: the check names them
    head = evaluate_task("realworldqa", folder / name, profile="vlmevalkit")
    assert any("differs from ours on 1 of 765" in n for n in head.notes)


def test_lmms_eval_log_with_doc(tmp_path: Path) -> None:
    import json

    rows = [
        {"doc_id": 0, "doc": {"question": "q", "answer": "B"}, "target": "B"}
        | {"resps": [["(B)"]], "filtered_resps": ["(B)"], "exact_match": 1.0},
        {"doc_id": 1, "doc": {"question": "q", "answer": "Downhill"}, "target": "Downhill"}
        | {"resps": [["downhill."]], "filtered_resps": ["downhill."], "exact_match": 0.0},
    ]
    f = tmp_path / "2026_samples_realworldqa.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    r = evaluate_task("realworldqa", f, profile="lmms-eval")
    assert r.scores == [1.0, 1.0]
    # the second record says 0 where the rule gives 1: the check lists it
    assert r.sample_check is not None and r.sample_check.as_dict()["n_disagree"] == 1


def test_lmms_eval_log_without_options_is_refused_under_vlmevalkit(tmp_path: Path) -> None:
    import json

    f = tmp_path / "2026_samples_mmvp.jsonl"
    row = {"doc_id": 0, "doc": {"question": "q", "answer": "A"}, "filtered_resps": ["A"]}
    f.write_text(json.dumps(row) + "\n", encoding="utf-8")
    # mmvp reads lmms-eval logs now; a VLMEvalKit profile needs the option texts
    with pytest.raises(ValueError, match=r"samples_mmvp\.jsonl: this log holds no option texts"):
        evaluate_task("mmvp", f)


def test_score_answer_needs_options_under_vlmevalkit() -> None:
    opts = {"A": "Left", "B": "Straight", "C": "Right"}
    # can_infer reads the option text when no letter is given
    assert score_answer("realworldqa", "turn right", ["C"], options=opts) == 1.0
    assert score_answer("realworldqa", "C.", ["C"], options=opts, profile="vlmevalkit-2024") == 1.0
    with pytest.raises(ValueError, match="needs options"):
        score_answer("realworldqa", "C", ["C"])
