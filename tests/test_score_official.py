"""The per-question score and aggregation: spec official-vqa-eval.md §12 items 1, 2, 5, 6, 7, 10.

Expected values are hand-derived or quoted from the spec's measured tables.
"""

from __future__ import annotations

import itertools
import json

import pytest

from vqametrics import evaluate_vqa, vqa_accuracy
from vqametrics.aggregate import percent


def records(answers: list[str]) -> list[dict[str, object]]:
    return [
        {"answer": a, "answer_confidence": "yes", "answer_id": i + 1} for i, a in enumerate(answers)
    ]


# §12.1 unanimous answers: exact compare after cleanup only
@pytest.mark.parametrize(
    ("prediction", "expected"), [("Yes", 0.0), ("yes.", 0.0), ("yes!", 0.0), (" yes\n", 1.0)]
)
def test_unanimous_answers_skip_normalization(prediction: str, expected: float) -> None:
    assert vqa_accuracy(prediction, records(["yes"] * 10)) == expected


# §12.2 / §3.4 "Measured consequences": HEAD vs pre-2021, one question each
FLOWS = [
    ("Yes", ["yes"] * 10, 0.0, 1.0),
    ("yes.", ["yes"] * 10, 0.0, 1.0),
    ("Yes.", ["yes"] * 9 + ["no"], 1.0, 1.0),
    ("2", ["two", "2", "2"] + ["3"] * 7, 0.9, 0.6),
    ("two", ["two", "2", "2"] + ["3"] * 7, 0.9, 0.6),
    ("none", ["none", "0"] + ["1"] * 8, 0.6, 0.3),
    ("0", ["none", "0"] + ["1"] * 8, 0.6, 0.3),
    ("none", ["none"] * 10, 1.0, 0.0),
]


@pytest.mark.parametrize(("prediction", "answers", "head", "pre2021"), FLOWS)
def test_official_vs_official_2017(
    prediction: str, answers: list[str], head: float, pre2021: float
) -> None:
    assert vqa_accuracy(prediction, records(answers), "official") == pytest.approx(head, abs=1e-15)
    got = vqa_accuracy(prediction, records(answers), "official-2017")
    assert got == pytest.approx(pre2021, abs=1e-15)


def test_2017_answers_get_punctuation_only() -> None:
    # pre-2021: GT `The cat` is never lowercased or stripped of its article, so never matched
    assert vqa_accuracy("the cat", records(["The cat"] * 5 + ["dog"] * 5), "official-2017") == 0.0
    assert vqa_accuracy("the cat", records(["The cat"] * 5 + ["dog"] * 5), "official") == 1.0


# §12.5 leave-one-out by record inequality
def test_identical_records_without_answer_id_collapse() -> None:
    same = [{"answer": "yes", "answer_confidence": "yes"}] * 10
    assert vqa_accuracy("yes", same) == 0.0


def test_seven_identical_yes_records_score_point_three() -> None:
    # spec §4: 7 `yes` + 3 `no` identical dicts score 0.3 for `yes` instead of 1.0:
    # the 7 yes-annotators see 0 other matches, the 3 no-annotators see 7 -> (3 * 1) / 10
    recs = [{"answer": "yes"}] * 7 + [{"answer": "no"}] * 3
    assert vqa_accuracy("yes", recs) == pytest.approx(0.3, abs=1e-15)


def test_other_fields_make_records_unequal_again() -> None:
    recs = [{"answer": "yes", "answer_confidence": c} for c in ["yes", "maybe", "no"] * 3] + [
        {"answer": "no", "answer_confidence": "yes"}
    ]
    # yes-records fall into 3 confidence groups of 3: each yes-annotator loses its own group of 3
    # -> k = 9 - 3 = 6 -> 1.0; the no-annotator sees 9 -> 1.0
    assert vqa_accuracy("yes", recs) == 1.0


def test_plain_strings_are_left_out_by_position() -> None:
    assert vqa_accuracy("yes", ["yes"] * 10) == 1.0


# §12.6 acc = min(1, 0.3 m) with the exact float by match positions (spec §4 table)
def expected_m2(pos: tuple[int, int]) -> float:
    if all(3 <= p <= 6 for p in pos):
        return 0.6000000000000001
    if all(7 <= p <= 9 for p in pos):
        return 0.5999999999999999
    return 0.6


def test_m2_float_depends_on_positions() -> None:
    counts: dict[float, int] = {}
    for pos in itertools.combinations(range(10), 2):
        answers = ["x" if i in pos else f"o{i}" for i in range(10)]
        got = vqa_accuracy("x", records(answers))
        assert got == expected_m2(pos), pos
        counts[got] = counts.get(got, 0) + 1
    # spec §4: 0.6 (36 placements), 0.6000000000000001 (6), 0.5999999999999999 (3)
    assert counts == {0.6: 36, 0.6000000000000001: 6, 0.5999999999999999: 3}


def test_m3_float_depends_on_positions() -> None:
    counts: dict[float, int] = {}
    for pos in itertools.combinations(range(10), 3):
        answers = ["x" if i in pos else f"o{i}" for i in range(10)]
        got = vqa_accuracy("x", records(answers))
        low = 9 in pos and any(p <= 3 for p in pos)
        assert got == (0.8999999999999998 if low else 0.9), pos
        counts[got] = counts.get(got, 0) + 1
    assert counts == {0.9: 94, 0.8999999999999998: 26}


@pytest.mark.parametrize(("m", "expected"), [(0, 0.0), (1, 0.3), (4, 1.0), (7, 1.0), (10, 1.0)])
def test_closed_form_exact_values(m: int, expected: float) -> None:
    answers = ["x"] * m + [f"o{i}" for i in range(10 - m)]
    assert vqa_accuracy("x", records(answers)) == expected


@pytest.mark.parametrize("n", [1, 2, 3, 5, 12])
def test_general_answer_count(n: int) -> None:
    # spec §4: [m*min(1,(m-1)/3) + (N-m)*min(1,m/3)] / N, for every m
    for m in range(n + 1):
        answers = ["x"] * m + [f"o{i}" for i in range(n - m)]
        expected = (m * min(1, (m - 1) / 3) + (n - m) * min(1, m / 3)) / n
        assert vqa_accuracy("x", records(answers)) == pytest.approx(expected, abs=1e-12), m


def test_one_answer_always_scores_zero() -> None:
    # one answer: no "others", so nobody can be matched
    assert vqa_accuracy("x", records(["x"])) == 0.0


# §12.7 rounding: aggregates from unrounded values, (100*S)/N, Python 3 ties to even
def test_rounding_tie_follows_python3() -> None:
    # 800 questions with exactly one correct: overall exactly 0.125 -> 0.12 (py2 gave 0.13)
    anns = [{"question_id": i, "answers": ["x"] * 10} for i in range(800)]
    preds = {i: ("x" if i == 0 else "y") for i in range(800)}
    r = evaluate_vqa(anns, preds)
    assert r.accuracy["overall"] == 0.12


def test_aggregate_is_naive_sum_times_100_over_n() -> None:
    values = [0.6000000000000001, 0.3, 0.8999999999999998, 0.1, 0.7]
    s = 0.0
    for v in values:
        s += v
    assert percent(values, None) == 100 * s / len(values)
    assert percent(values, 2) == round(100 * s / len(values), 2)


def test_per_question_outputs_rounded_aggregates_unrounded() -> None:
    # q1 scores 0.6000000000000001 (matches at positions 3 and 4); evalQA shows 60.0
    anns = [
        {
            "question_id": 1,
            "answers": records(["o0", "o1", "o2", "x", "x", "o5", "o6", "o7", "o8", "o9"]),
        },
        {"question_id": 2, "answers": records(["x"] * 10)},
    ]
    r = evaluate_vqa(anns, {1: "x", 2: "x"})
    out = r.official_outputs()
    assert r.scores == [0.6000000000000001, 1.0]
    assert out["evalQA"] == {1: 60.0, 2: 100.0}
    assert out["accuracy"]["overall"] == round(100 * (0.6000000000000001 + 1.0) / 2, 2) == 80.0


# §12.10 statefulness: the official script mutates its GT; we must not
def test_repeated_evaluation_is_stable_and_inputs_are_not_mutated() -> None:
    anns = [{"question_id": 7, "answers": records(["dog"] * 9 + ["a dog"])}]
    before = json.dumps(anns)
    first = evaluate_vqa(anns, {7: "The Dog"})
    second = evaluate_vqa(first.dataset, {7: "The Dog"})
    assert first.scores == second.scores == [1.0]  # the script gives 100 then 0
    assert json.dumps(anns) == before


def test_textbook_example() -> None:
    q = {
        1: [
            "red apple",
            "Red apple",
            "a red apple",
            "red apple",
            "red apple",
            "apple",
            "crimson apple",
            "red fruit",
            "red",
            "red apple",
        ],
        2: [
            "blue",
            "blue",
            "sky blue",
            "blue",
            "light blue",
            "blue",
            "azure",
            "blue",
            "blue",
            "deep blue",
        ],
        3: ["green"] * 4 + ["light green"] + ["green"] * 4 + ["emerald"],
    }
    anns = [{"question_id": k, "answers": records(v)} for k, v in q.items()]
    preds = {1: "red apple", 2: "sky blue", 3: "yellow"}
    off = evaluate_vqa(anns, preds)
    assert off.official_outputs()["evalQA"] == {1: 100.0, 2: 30.0, 3: 0.0}
    assert off.accuracy["overall"] == 43.33
    simple = evaluate_vqa(anns, preds, profile="simple")
    assert [round(100 * s, 2) for s in simple.scores] == [100.0, 33.33, 0.0]
    assert simple.accuracy["overall"] == 44.44
