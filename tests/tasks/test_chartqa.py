"""ChartQA relaxed accuracy: every golden case for every profile it names, the spec's quirks
(§6.2) as goldens, properties of pix2struct's rule, the readers, and VILA-1.5-8B's VLMEvalKit
run reproducing the numbers VLMEvalKit reported.

Expected values come from ``vqa-family-cases.json`` (the toolkits' own code), the spec, the
``_acc.csv`` VLMEvalKit wrote, or hand derivation (stated beside each number). ChartQA data is
GPL-3.0: it is read from ``../shared/data`` only, never copied here.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.kernels.relaxed import relaxed_correctness, to_float
from vqametrics.tasks import get_task, score_answer
from vqametrics.tasks._run import evaluate_task

from .conftest import case_params

PROFILES = {
    "official_pix2struct": "official",
    "lmms_eval": "lmms-eval",
    "vlmevalkit_head": "vlmevalkit",
    "vlmevalkit_2024_07_to_2025_09_01": "vlmevalkit-2024",
    "qwen_vl": "qwen-vl",
}


@pytest.mark.parametrize(("case", "profile", "expected"), case_params("relaxed_accuracy", PROFILES))
def test_cases(case: dict[str, Any], profile: str, expected: bool) -> None:
    inp = case["input"]
    got = score_answer("chartqa", inp["prediction"], [inp["target"]], profile=profile)
    assert got == (1.0 if expected else 0.0)


def test_every_case_profile_is_mapped() -> None:
    from .conftest import family_cases

    keys = {k for c in family_cases("relaxed_accuracy") for k in c["expected"]}
    assert keys == set(PROFILES)


# --- quirks (spec §6.2), each derived by hand from float() and the 5 % rule --------------

QUIRKS = [
    # (prediction, target, official)
    ("105", "100", True),  # |105 − 100| / 100 = 0.05, inclusive
    ("95.2", "100", True),  # 0.048
    ("1.05", "1", False),  # 0.050000000000000044 > 0.05
    ("12%", "12", False),  # 0.12 vs 12
    ("12%", "0.12", True),
    ("12%%", "0.12", True),  # rstrip('%') removes both
    ("0", "0", True),  # zero target: string comparison
    ("0.0", "0", False),
    ("-0", "0", False),
    ("0", "-0.0", False),  # -0.0 is falsy too
    ("inf", "inf", False),  # (inf − inf) / inf is NaN
    ("nan", "nan", False),  # a NaN target is truthy; NaN ≤ 0.05 is False
    ("1e3", "1000", True),
    ("1_000", "1000", True),
    ("1,000", "1000", False),  # not a float: string comparison
    ("$12", "12", False),
    (" 12", "12", True),  # float() ignores surrounding whitespace
    ("12 ", "12", True),
    ("12% ", "12%", False),  # "12% " does not end with '%' and is not a float
    ("Yes", "yes", True),  # string comparison ignores case
    ("２０１０", "2010", True),  # float() reads full-width digits
    ("2008", "2010", True),  # years are numbers: 2/2010 < 0.05
]


@pytest.mark.parametrize(("pred", "target", "expected"), QUIRKS, ids=[q[0] for q in QUIRKS])
def test_quirks_official(pred: str, target: str, expected: bool) -> None:
    assert relaxed_correctness(target, pred) is expected
    assert score_answer("chartqa", pred, [target]) == float(expected)


def test_swapped_tolerance_is_relative_to_the_prediction() -> None:
    # 95 vs 100: 5/95 = 0.0526 > 0.05 when the prediction is the denominator
    assert score_answer("chartqa", "95", ["100"], profile="vlmevalkit-2024") == 0.0
    assert score_answer("chartqa", "95", ["100"], profile="qwen-vl") == 0.0
    # 95.2 vs 100: 4.8/95.2 = 0.0504
    assert score_answer("chartqa", "95.2", ["100"], profile="qwen-vl") == 0.0
    assert score_answer("chartqa", "95.2", ["100"]) == 1.0
    # a zero prediction falls back to the string comparison when swapped
    assert score_answer("chartqa", "0", ["0.01"], profile="qwen-vl") == 0.0


def test_strip() -> None:
    # official: "12% " is a string; the peers strip the prediction first
    assert score_answer("chartqa", "12% ", ["12%"]) == 0.0
    for profile in ("lmms-eval", "vlmevalkit", "vlmevalkit-2024", "qwen-vl"):
        assert score_answer("chartqa", "12% ", ["12%"], profile=profile) == 1.0
    assert score_answer("chartqa", " Yes\n", ["yes"], profile="lmms-eval") == 1.0
    assert score_answer("chartqa", " Yes\n", ["yes"]) == 0.0


def test_max_over_targets() -> None:
    assert score_answer("chartqa", "2005", ["2014", "2016"]) == 1.0  # 9/2014 < 0.05
    assert score_answer("chartqa", "x", ["2014", "X"]) == 1.0
    assert score_answer("chartqa", "x", ["2014", "y"]) == 0.0


def test_aliases_and_note() -> None:
    assert get_task("plotqa").name == "chartqa"
    assert get_task("chart-qa").name == "chartqa"
    assert "plotqa" in get_task("chartqa").note


# --- properties ----------------------------------------------------------------------------

NUMBERS = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12)
WORDS = st.text(alphabet="abcXYZ ,$", max_size=8)


@settings(max_examples=300, deadline=None)
@given(st.one_of(WORDS, NUMBERS.map(repr), st.text(max_size=8)))
def test_a_target_matches_itself_unless_its_value_is_not_finite(text: str) -> None:
    value = to_float(text)
    expected = value is None or value == 0 or math.isfinite(value)
    assert relaxed_correctness(text, text) is expected


@settings(max_examples=300, deadline=None)
@given(WORDS, WORDS)
def test_symmetric_between_non_numbers(a: str, b: str) -> None:
    assume(to_float(a) is None and to_float(b) is None)
    assert relaxed_correctness(a, b) == relaxed_correctness(b, a) == (a.lower() == b.lower())


@settings(max_examples=300, deadline=None)
@given(NUMBERS, st.floats(min_value=-0.049, max_value=0.049))
def test_within_five_percent_of_the_target(target: float, r: float) -> None:
    assume(target != 0 and abs(target) > 1e-6)
    assert relaxed_correctness(repr(target), repr(target * (1 + r)))


@settings(max_examples=300, deadline=None)
@given(NUMBERS, st.floats(min_value=0.051, max_value=10))
def test_beyond_five_percent_is_wrong(target: float, r: float) -> None:
    assume(target != 0 and abs(target) > 1e-6)
    assert not relaxed_correctness(repr(target), repr(target * (1 + r)))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=8), st.text(max_size=8))
def test_swapped_profiles_are_the_official_rule_reversed(pred: str, target: str) -> None:
    swapped = score_answer("chartqa", pred, [target], profile="qwen-vl")
    assert swapped == float(relaxed_correctness(pred.strip(), target))
    stripped = score_answer("chartqa", pred, [target], profile="vlmevalkit")
    assert stripped == float(relaxed_correctness(target, pred.strip()))


# --- readers and aggregation ---------------------------------------------------------------


def _rows() -> list[dict[str, Any]]:
    return [
        {"index": 1, "question": "q", "answer": "100", "prediction": "95", "split": "test_human"},
        {"index": 2, "question": "q", "answer": "Yes", "prediction": "no", "split": "test_human"},
        {"index": 3, "question": "q", "answer": "1", "prediction": "1.05 ", "split": "test_human"},
        {"index": 4, "question": "q", "answer": "[2014, 2016]", "prediction": "2016"}
        | {"split": "test_augmented"},
        {"index": 5, "question": "q", "answer": "[A, B]", "prediction": "A"}
        | {"split": "test_augmented"},
        {"index": 6, "question": "q", "answer": "7", "prediction": "7", "split": "test_augmented"},
    ]


def test_vlmevalkit_rows_and_splits() -> None:
    official = evaluate_task("chartqa", _rows())
    # 95 vs 100 correct; no vs Yes wrong; "1.05 " → 1.05 wrong; 2016 ∈ [2014, 2016]; "[A, B]" is
    # one answer (not a Python literal); 7 = 7
    assert official.scores == [1.0, 0.0, 0.0, 1.0, 0.0, 1.0]
    assert official.metrics["relaxed_accuracy"] == 50.0
    split = official.aggregate.breakdowns["split"]
    assert split["test_human"] == {"relaxed_accuracy": 100.0 / 3, "n": 3}
    assert split["test_augmented"] == {"relaxed_accuracy": 200.0 / 3, "n": 3}
    assert official.metrics["mean_of_splits"] == 50.0
    swapped = evaluate_task("chartqa", _rows(), profile="vlmevalkit-2024")
    # swapped: 95 vs 100 wrong (5/95), 1.05 vs 1 right (0.05/1.05)
    assert swapped.scores == [0.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    assert list(swapped.aggregate.breakdowns["split"]) == ["test_augmented", "test_human"]
    lmms = evaluate_task("chartqa", _rows(), profile="lmms-eval")
    assert lmms.metrics["relaxed_human_split"] == 1 / 3  # only 95 vs 100
    assert lmms.metrics["relaxed_augmented_split"] == 2 / 3
    assert lmms.aggregate.units == "fraction"


def test_unequal_splits_say_the_mean_is_not_pooled() -> None:
    rows = _rows()[:4]
    r = evaluate_task("chartqa", rows)
    assert r.metrics["relaxed_accuracy"] == 50.0
    assert r.metrics["mean_of_splits"] == (100.0 / 3 + 100.0) / 2
    assert any("not the pooled" in n for n in r.notes)


def test_lmms_eval_samples(tmp_path: Path) -> None:
    recs = [
        {"doc_id": 0, "doc": {"type": "human_test", "answer": "100"}, "filtered_resps": ["96 "]},
        {"doc_id": 1, "doc": {"type": "augmented_test", "answer": "Yes"}, "filtered_resps": ["x"]},
    ]
    f = tmp_path / "samples_chartqa.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in recs) + "\n", encoding="utf-8")
    r = evaluate_task("chartqa", f, profile="lmms-eval")
    assert r.scores == [1.0, 0.0]
    assert r.metrics == {
        "relaxed_overall": 0.5,
        "n": 2,
        "relaxed_human_split": 1.0,
        "relaxed_augmented_split": 0.0,
    }


def _err(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "r.csv"
    f.write_text("index,prediction\n1,a\n", encoding="utf-8")
    assert "answer" in _err(["score", "chartqa", "--results", str(f)], capsys)
    f.write_text("index,prediction,answer\n1,a,a\n", encoding="utf-8")
    # ChartQA's own JSON has no ids to join on: --annotations is ignored, and said so
    r = evaluate_task("chartqa", f, annotations=f)
    assert r.scores == [1.0] and any("--annotations ignored" in n for n in r.notes)
    err = _err(["score", "chartqa", "--results", str(f), "--profile", "pix2struct"], capsys)
    assert "vlmevalkit-2024" in err
    g = tmp_path / "sub.json"
    g.write_text(json.dumps([{"question_id": 1, "answer": "2"}]), encoding="utf-8")
    assert "no ground truth" in _err(["score", "chartqa", "--results", str(g)], capsys)


# --- real data: VILA-1.5-8B, VLMEvalKit, mid-2024 ------------------------------------------

VILA = ("chartqa", "vlmevalkit", "vila_8b_ChartQA_TEST.xlsx")


@pytest.mark.shared
@pytest.mark.parametrize("profile", ["vlmevalkit-2024", "vlmevalkit"])
def test_vila_reproduces_vlmevalkit(shared_data: Path, profile: str) -> None:
    pytest.importorskip("openpyxl")
    r = evaluate_task("chartqa", shared_data.joinpath(*VILA), profile=profile)
    # vila_8b_ChartQA_TEST_acc.csv, written by VLMEvalKit (c03bc04, mid-2024: the swapped
    # period): both orders reproduce it exactly, because the four items they disagree on cancel
    # out within each split (test_swap_cancels_out_on_vila)
    split = r.aggregate.breakdowns["split"]
    assert split["test_augmented"]["accuracy"] == 63.839999999999996
    assert split["test_human"]["accuracy"] == 37.92
    assert r.metrics["Overall"] == 50.88
    assert r.metrics["n"] == 2500
    assert r.data.reported is not None
    assert r.data.reported["values"]["all"] == {
        "test_augmented": 63.839999999999996,
        "test_human": 37.92,
        "Overall": 50.88,
    }


@pytest.mark.shared
def test_swap_cancels_out_on_vila(shared_data: Path) -> None:
    pytest.importorskip("openpyxl")
    path = shared_data.joinpath(*VILA)
    head = evaluate_task("chartqa", path, profile="vlmevalkit")
    old = evaluate_task("chartqa", path, profile="vlmevalkit-2024")
    differ = {
        it.id: (it.prediction, it.references, a, b)
        for it, a, b in zip(head.data.items, head.scores, old.scores, strict=True)
        if a != b
    }
    # hand-checked: 50.18 vs 47.68 is 5.2 % of the target but 4.98 % of the prediction, …
    assert differ == {
        328: ("50.18", ("47.68",), 0.0, 1.0),
        751: ("1.38", ("1.45",), 1.0, 0.0),  # 4.8 % of 1.45, 5.07 % of 1.38
        1417: ("21791", ("22920",), 1.0, 0.0),
        2202: ("81", ("77",), 0.0, 1.0),
    }


@pytest.mark.shared
def test_vila_list_answers_are_split_as_vlmevalkit_does(shared_data: Path) -> None:
    pytest.importorskip("openpyxl")
    r = evaluate_task("chartqa", shared_data.joinpath(*VILA), profile="vlmevalkit-2024")
    by_id = {it.id: (it, s) for it, s in zip(r.data.items, r.scores, strict=True)}
    item, score = by_id[349]
    assert item.references == ("2014", "2016") and item.prediction == "2005" and score == 1.0
    item, score = by_id[304]  # "[Gambia, Niger]" is not a Python literal: one answer
    assert item.references == ("[Gambia, Niger]",) and score == 0.0
    # were list cells kept whole, 8 human-split items would be lost: 466/1250 = 37.28, not the
    # 37.92 VLMEvalKit reported
    split_gain = sum(
        s for it, s in zip(r.data.items, r.scores, strict=True) if len(it.references) > 1
    )
    assert split_gain == 8.0


@pytest.mark.shared
def test_vila_official_and_cli(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("openpyxl")
    path = shared_data.joinpath(*VILA)
    assert main(["score", "chartqa", "--results", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"]["relaxed_accuracy"] == 50.88
    assert out["metrics"]["mean_of_splits"] == 50.88  # equal halves: the mean is the pooled
    assert out["breakdowns"]["split"]["test_human"]["relaxed_accuracy"] == 37.92
    assert out["signature"].startswith("chartqa-relaxed|profile:official|toolkit:pix2struct@")
    assert main(["score", "chartqa", "--results", str(path), "--profile", "vlmevalkit-2024"]) == 0
    text = capsys.readouterr().out
    assert "63.84" in text and "37.92" in text and "reported" in text


def test_per_item_shows_each_answers_score() -> None:
    rows = [{"index": 1, "answer": "[2014, 2016]", "prediction": "2015", "split": "test_human"}]
    (rec,) = evaluate_task("chartqa", rows).per_item()
    assert rec["answer_scores"] == [1.0, 1.0] and rec["score"] == 1.0
    (rec,) = evaluate_task("chartqa", rows, profile="vlmevalkit").per_item()
    assert rec["references"] == ["2014", "2016"]


def _chartqa_folder(tmp_path: Path) -> Path:
    # ChartQA's own test files: human rows first, then augmented (lmms-lab/ChartQA's order,
    # lmms-eval@75571cf tasks/chartqa/upload_chartqa.py)
    folder = tmp_path / "test"
    folder.mkdir()
    human = [{"imgname": "a.png", "query": "How many?", "label": "100"}]
    augmented = [
        {"imgname": "b.png", "query": "Is it?", "label": "Yes"},
        {"imgname": "c.png", "query": "Max?", "label": "7"},
    ]
    (folder / "test_human.json").write_text(json.dumps(human), encoding="utf-8")
    (folder / "test_augmented.json").write_text(json.dumps(augmented), encoding="utf-8")
    return folder


def _chartqa_log(tmp_path: Path, docs: bool) -> Path:
    preds = ["96 ", "no", "7"]
    recs = []
    for i, p in enumerate(preds):
        rec: dict[str, Any] = {"doc_id": i, "filtered_resps": [p], "target": "?"}
        if docs:
            answer = ["100", "Yes", "8"][i]  # doc 2 disagrees with the annotations' "7"
            rec["doc"] = {"type": "human_test" if i == 0 else "augmented_test", "answer": answer}
        recs.append(rec)
    f = tmp_path / f"samples_chartqa_{int(docs)}.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    return f


def test_lmms_eval_log_without_doc_joined_to_chartqa_files_by_position(tmp_path: Path) -> None:
    folder = _chartqa_folder(tmp_path)
    r = evaluate_task(
        "chartqa", _chartqa_log(tmp_path, False), annotations=folder, profile="lmms-eval"
    )
    # by hand: 96 vs 100 within 5 % (right); no vs Yes (wrong); 7 vs 7 (right)
    assert r.scores == [1.0, 0.0, 1.0]
    assert r.metrics["relaxed_human_split"] == 1.0 and r.metrics["relaxed_augmented_split"] == 0.5
    assert any("BY POSITION" in n for n in r.notes)
    with pytest.raises(InputError, match="no 'doc'"):
        evaluate_task("chartqa", _chartqa_log(tmp_path, False))


def test_lmms_eval_doc_and_chartqa_files_annotations_win(tmp_path: Path) -> None:
    folder = _chartqa_folder(tmp_path)
    log = _chartqa_log(tmp_path, True)
    alone = evaluate_task("chartqa", log, profile="lmms-eval")
    assert alone.scores == [1.0, 0.0, 0.0]  # 7 vs the doc's 8 (12.5 % off)
    both = evaluate_task("chartqa", log, annotations=folder, profile="lmms-eval")
    assert both.scores == [1.0, 0.0, 1.0]  # 7 vs the annotations' 7
    assert any("1 logged answer(s)" in n and "(e.g. 2)" in n for n in both.notes)


def test_chartqa_folder_without_its_two_files(tmp_path: Path) -> None:
    folder = _chartqa_folder(tmp_path)
    (folder / "test_augmented.json").unlink()
    with pytest.raises(InputError, match=r"missing: test_augmented\.json"):
        evaluate_task("chartqa", _chartqa_log(tmp_path, False), annotations=folder)
