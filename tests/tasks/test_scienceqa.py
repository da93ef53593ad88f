"""The ``scienceqa`` task (IMG): the official, LLaVA, lmms-eval and VLMEvalKit rules, VILA-1.5-8B's
VLMEvalKit sheet and LLaVA-1.5-7B's lmms-eval log against what the toolkits reported."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path
from typing import Any

import pytest

from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.kernels.choice import RANDOM, get_lineage
from vqametrics.kernels.choice.scienceqa import (
    llava_sqa_parsed,
    llava_sqa_parsed_5200b75,
    official_rng,
    scienceqa_official_parsed,
)
from vqametrics.tasks import score_answer
from vqametrics.tasks._run import evaluate_task

CASES = json.loads(
    (Path(__file__).parents[1] / "data" / "mcq-reasoning-cases.json").read_text(encoding="utf-8")
)
LINEAGES = (
    "scienceqa_official",
    "llava_eval_science_qa",
    "llava_eval_science_qa_5200b75",
    "lmms_eval_scienceqa_img",
)
PARSED = {
    "llava_eval_science_qa_parsed_ans": llava_sqa_parsed,
    "llava_eval_science_qa_5200b75_parsed_ans": llava_sqa_parsed_5200b75,
}
PROFILES = {
    "scienceqa_official": "official",
    "llava_eval_science_qa": "llava",
    "llava_eval_science_qa_5200b75": "llava-5200b75",
    "lmms_eval_scienceqa_img": "lmms-eval",
}


def _params(keys: Any) -> list[Any]:
    return [pytest.param(c, k, id=f"{c['id']}-{k}") for c in CASES["choice_extract"] for k in keys]


@pytest.mark.parametrize(("case", "key"), _params(LINEAGES))
def test_choice_extract_lineages(case: dict[str, Any], key: str) -> None:
    inp = case["input"]
    assert get_lineage(key)(inp["response"], dict(inp["options"])) == case["expected"][key]


@pytest.mark.parametrize(("case", "key"), _params(PARSED))
def test_llava_parsed_ans(case: dict[str, Any], key: str) -> None:
    assert PARSED[key](case["input"]["response"]) == case["expected"][key]


@pytest.mark.parametrize(("case", "key"), _params(PROFILES))
def test_score_answer_each_gold(case: dict[str, Any], key: str) -> None:
    inp, letter = case["input"], case["expected"][key]
    for gold in inp["options"]:
        if letter == RANDOM:
            with pytest.raises(InputError, match="random"):
                score_answer(
                    "scienceqa",
                    inp["response"],
                    [gold],
                    profile=PROFILES[key],
                    options=inp["options"],
                )
            continue
        got = score_answer(
            "scienceqa", inp["response"], [gold], profile=PROFILES[key], options=inp["options"]
        )
        assert got == float(gold == letter)


def test_official_parse_quirks_hand_derived() -> None:
    assert scienceqa_official_parsed("The answer is B.") == "B"
    assert scienceqa_official_parsed("The answer is B") == "FAILED"  # '.' needs a character
    assert scienceqa_official_parsed("The answer is A. The answer is C.") == "FAILED"  # twice
    assert scienceqa_official_parsed("first line\nThe answer is C.") == "FAILED"  # stop at \n


def test_official_draw_sequence_is_run_gpt3s() -> None:
    """A literal replay of run_gpt3.py's calls on the global generator: random.seed(10), the
    3 shots sampled from the 12,726 train ids, then random.choice(range(len(choices))) per
    failed answer."""
    state = random.getstate()
    try:
        random.seed(10)
        random.sample([str(i) for i in range(12726)], 3)
        want = [random.choice(range(n)) for n in (2, 4, 3, 5, 2, 4)]
    finally:
        random.setstate(state)
    rng = official_rng()
    lineage = get_lineage("scienceqa_official")
    got = [
        "ABCDE".index(str(lineage("no letter", {c: c for c in "ABCDE"[:n]}, rng=rng)))
        for n in (2, 4, 3, 5, 2, 4)
    ]
    assert got == want


def _sheet(tmp_path: Path, rows: list[dict[str, Any]]) -> str:
    path = tmp_path / "m_ScienceQA_TEST.tsv"
    cols = ["index", "question", "A", "B", "C", "answer", "category", "prediction"]
    lines = ["\t".join(cols)] + ["\t".join(str(r.get(c, "")) for c in cols) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_official_run_counts_and_seeds_its_draws(tmp_path: Path) -> None:
    rows = [
        {
            "index": 1,
            "question": "q",
            "A": "x",
            "B": "y",
            "C": "z",
            "answer": "B",
            "category": "c",
            "prediction": "The answer is B.",
        },
        {
            "index": 2,
            "question": "q",
            "A": "x",
            "B": "y",
            "C": "z",
            "answer": "A",
            "category": "c",
            "prediction": "B",
        },
    ]
    path = _sheet(tmp_path, rows)
    r = evaluate_task("scienceqa", path)
    sig = r.signature.format()
    assert "fallback-seed:10" in sig and "shots:3" in sig and "random:1" in sig
    assert r.metrics["random"] == 1
    assert any("decided at random" in n for n in r.notes)
    # the draw is the first of the official sequence over 3 options
    first = "ABC"[official_rng().choice(range(3))]
    assert r.scores == [1.0, float(first == "A")]
    unseeded = evaluate_task("scienceqa", path, fallback_seed="none")
    assert unseeded.scores == [1.0, 0.0] and any("NOT resolved" in n for n in unseeded.notes)
    llava = evaluate_task("scienceqa", path, profile="llava")
    assert llava.scores == [1.0, 0.0] and llava.metrics["Accuracy"] == 50.0


# ----- the real runs (../shared/data) ------------------------------------------------------

SHEET = "scienceqa_img/vlmevalkit/vila_8b_ScienceQA_TEST.xlsx"
ACC = "scienceqa_img/vlmevalkit/vila_8b_ScienceQA_TEST_acc.csv"
LOG = "lmms_eval_logs/20260218_234435_samples_scienceqa_img.jsonl"


@pytest.mark.shared
def test_vila_sheet_reproduces_every_acc_csv_column(shared_data: Path) -> None:
    pytest.importorskip("openpyxl")
    sheet = shared_data / SHEET
    with (shared_data / ACC).open(encoding="utf-8", newline="") as f:
        (row,) = list(csv.DictReader(f))
    r = evaluate_task("scienceqa", str(sheet), profile="vlmevalkit-2024")
    assert row.pop("split") == "test"
    assert r.metrics["Overall"] == float(row.pop("Overall")) == 0.7258304412493802
    cats = r.aggregate.breakdowns["category"]
    assert len(row) == len(cats) == 65  # one column per category (data ATTRIBUTION.md)
    assert {k: v["accuracy"] for k, v in cats.items()} == {k: float(v) for k, v in row.items()}
    assert any(k.endswith("\t") for k in cats)  # the column name VLMEvalKit wrote with a tab
    # the judge record beside the sheet: every recorded hit is ours
    assert "judge:recorded" in r.signature.format()
    assert "agrees with ours on all 2017 recorded rows" in " ".join(r.notes)
    assert any("Failed in Prefetch" in n and n.startswith("18 row") for n in r.notes)


@pytest.mark.shared
def test_vila_sheet_later_rules_differ(shared_data: Path) -> None:
    pytest.importorskip("openpyxl")
    r = evaluate_task("scienceqa", str(shared_data / SHEET), profile="vlmevalkit")
    assert r.metrics["Overall"] != 0.7258304412493802
    assert "differs from ours" in " ".join(r.notes)


@pytest.mark.shared
def test_lmms_eval_log_recomputed(shared_data: Path) -> None:
    r = evaluate_task("scienceqa", str(shared_data / LOG), profile="lmms-eval")
    # 20260218_234435_results.json: scienceqa_img exact_match,none
    assert r.metrics["exact_match"] == 0.6950917203767972
    assert r.metrics["n"] == 2017
    assert r.sample_check is not None and r.sample_check.n_disagree == 0
    assert r.data.reported is not None
    assert r.data.reported["values"]["scienceqa_img"]["exact_match,none"] == 0.6950917203767972


@pytest.mark.shared
def test_lmms_eval_log_without_doc_needs_the_lmms_profile(
    shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(shared_data / LOG)
    assert main(["score", "scienceqa", "--results", path]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "no options" in err and "--profile lmms-eval" in err


def test_lmms_eval_log_with_doc(tmp_path: Path) -> None:
    rows = [
        {
            "doc_id": 0,
            "doc": {
                "question": "q",
                "choices": ["x", "y"],
                "answer": 1,
                "subject": "natural science",
                "grade": "grade3",
            },
            "target": "B",
            "filtered_resps": ["B."],
            "exact_match": 1.0,
        },
        {
            "doc_id": 1,
            "doc": {
                "question": "q",
                "choices": ["x", "y", "z"],
                "answer": 2,
                "subject": "social science",
                "grade": "grade9",
            },
            "target": "C",
            "filtered_resps": ["The answer is C."],
            "exact_match": 0.0,
        },
    ]
    path = tmp_path / "x_samples_scienceqa_img.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    assert evaluate_task("scienceqa", str(path), profile="lmms-eval").scores == [1.0, 0.0]
    off = evaluate_task("scienceqa", str(path))
    # "B." is no 'The answer is X.' -> drawn (random:1); the second is read: C
    assert off.scores[1] == 1.0 and off.metrics["random"] == 1
    assert off.metrics["acc_grade_7_12"] == 100.0  # evaluate_acc.py's key
    assert evaluate_task("scienceqa", str(path), profile="llava").scores == [0.0, 1.0]


def test_bad_doc_answer_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    row = {
        "doc_id": 0,
        "doc": {"choices": ["x"], "answer": 3},
        "target": "A",
        "filtered_resps": ["A"],
        "exact_match": 1.0,
    }
    path = tmp_path / "x_samples_scienceqa_img.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert main(["score", "scienceqa", "--results", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "line 1" in err and "not an index" in err


def _llava_base(tmp_path: Path) -> Path:
    base = tmp_path / "scienceqa"
    base.mkdir()
    problems = {
        "1": {"choices": ["x", "y"], "answer": 1, "image": "image.png", "subject": "s"},
        "2": {"choices": ["x", "y", "z"], "answer": 0, "image": None, "subject": "s"},
        "3": {"choices": ["x", "y"], "answer": 0, "image": "image.png", "subject": "s"},
        "9": {"choices": ["x", "y"], "answer": 0, "image": None, "subject": "s"},
    }
    (base / "problems.json").write_text(json.dumps(problems), encoding="utf-8")
    splits = {"test": ["1", "2", "3"], "train": ["9"]}
    (base / "pid_splits.json").write_text(json.dumps(splits), encoding="utf-8")
    return base


#: the prompts LLaVA's model_vqa_science.py writes for _llava_base's problems
_LLAVA_PROMPTS = {"1": "<image>\nq", "2": "q", "3": "<image>\nq"}


def _llava_answers(tmp_path: Path, answers: list[tuple[str, str]]) -> Path:
    """LLaVA's answers file: one (question_id, text) a line, with the problem's prompt."""
    path = tmp_path / "answers.jsonl"
    rows = [{"question_id": q, "prompt": _LLAVA_PROMPTS[q], "text": t} for q, t in answers]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_llava_answers_over_the_test_split(tmp_path: Path) -> None:
    base = _llava_base(tmp_path)
    path = _llava_answers(tmp_path, [("1", "B"), ("2", "A. x"), ("3", "The answer is A")])
    r = evaluate_task("scienceqa", str(path), annotations=str(base), profile="llava")
    # hand-derived: B right; "A. x" right ('X. ' first); "The answer is A" fails (no char after)
    assert r.scores == [1.0, 1.0, 0.0]
    assert r.metrics["Accuracy"] == 2 / 3 * 100  # correct / total * 100, as the script
    assert r.metrics["IMG-Accuracy"] == 50.0 and r.metrics["n_img"] == 2
    later = evaluate_task("scienceqa", str(path), annotations=str(base), profile="llava-5200b75")
    assert later.scores == [1.0, 1.0, 1.0]  # 5200b75 also reads 'The answer is X' undotted
    # a missing answer is LLaVA's FAILED: an error unless --allow-missing, then a miss
    path = _llava_answers(tmp_path, [("1", "B")])
    with pytest.raises(InputError, match=r"allow.missing"):
        evaluate_task("scienceqa", str(path), annotations=str(base), profile="llava")
    r = evaluate_task(
        "scienceqa", str(path), annotations=str(base), profile="llava", allow_missing=True
    )
    assert r.scores == [1.0, 0.0, 0.0] and r.data.n_missing == 2


def test_official_result_file_replays_its_draws(tmp_path: Path) -> None:
    """run_gpt3.py writes the index it decided, its random draws included: they are used,
    and the result is the script's own accuracy."""
    base = _llava_base(tmp_path)
    result = {
        "acc": 100 * 2 / 3,
        "results": {"1": 1, "2": 2, "3": 0},
        # 1: read (B, right); 2: read as A but recorded C (another version?); 3: a draw (A)
        "outputs": {"1": "The answer is B.", "2": "The answer is A.", "3": "no answer"},
    }
    path = tmp_path / "gpt3_test_QCM-ALE_3_seed_10.json"
    path.write_text(json.dumps(result), encoding="utf-8")
    r = evaluate_task("scienceqa", str(path), annotations=str(base))
    # problems: 1 -> B, 2 -> A, 3 -> A; evaluate_acc.py scores the recorded C of item 2
    assert r.scores == [1.0, 0.0, 1.0]
    assert "replayed:1" in r.signature.format() and r.metrics["random"] == 1
    assert any("its result file records it" in n for n in r.notes)
    assert any("1 recorded prediction(s) differ" in n for n in r.notes)
    with pytest.raises(InputError, match="annotations="):
        evaluate_task("scienceqa", str(path))


@pytest.mark.shared
def test_vila_judge_record_read_directly(shared_data: Path) -> None:
    pytest.importorskip("openpyxl")
    record = shared_data / "scienceqa_img/vlmevalkit/vila_8b_ScienceQA_TEST_openai_result.xlsx"
    r = evaluate_task("scienceqa", str(record), profile="vlmevalkit-2024")
    assert r.metrics["Overall"] == 0.7258304412493802  # vila_8b_ScienceQA_TEST_acc.csv
    assert r.data.reported is not None and r.data.reported["source"].endswith("_acc.csv")


def test_llava_answer_given_twice_follows_the_one_duplicate_rule(tmp_path: Path) -> None:
    # issue 22: the same rule and message as every reader; --on-duplicate last keeps the last
    base = _llava_base(tmp_path)
    path = _llava_answers(tmp_path, [("1", "A"), ("2", "A"), ("3", "A"), ("1", "B")])
    with pytest.raises(InputError, match=r"line 4: duplicate question_id '1' \(first at .*line 1"):
        evaluate_task("scienceqa", str(path), annotations=str(base), profile="llava")
    r = evaluate_task(
        "scienceqa", str(path), annotations=str(base), profile="llava", on_duplicate="last"
    )
    assert r.scores == [1.0, 1.0, 1.0]  # problem 1's gold is B: the last answer is scored
    assert "1 repeated question_id row(s): the last of each was kept" in " ".join(r.notes)
