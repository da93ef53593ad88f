"""Golden tests, one or more per named QUIRK of the peer profiles.

Expected values are derived by hand from peer-profiles.md (the section is cited on each test)
or copied from its §7.2 table / peer-scoring-variants.md §4, which were produced by running the
peers' own code. They are never produced by vqametrics itself.
"""

from __future__ import annotations

from typing import Any

import pytest

from vqametrics import UnknownNameError
from vqametrics.kernels.accuracy import normalize_answer, vqa_accuracy
from vqametrics.normalize.evalscope import answer_list, extract_answer
from vqametrics.profiles import get_profile, list_profiles

ALL = [
    "official",
    "official-2017",
    "evalai-2017",
    "lmms-eval-vqav2",
    "lmms-eval-textvqa",
    "vlmevalkit",
    "evalscope",
]


def answers_for(answers: list[str], profile: str, ids: bool = True) -> list[Any]:
    """Records for the record-based profiles, plain strings for the others (§7.3)."""
    if get_profile(profile).leave_one_out != "records":
        return list(answers)
    if ids:
        return [{"answer": a, "answer_id": i + 1} for i, a in enumerate(answers)]
    return [{"answer": a} for a in answers]


# --- the registry ---------------------------------------------------------------------------


def test_unknown_profile_lists_all_eight_names() -> None:
    with pytest.raises(UnknownNameError) as info:
        get_profile("nope")
    message = str(info.value)
    assert "'nope'" in message
    for name in [*ALL, "simple"]:
        assert name in message


def test_eight_profiles_registered_in_order() -> None:
    names = [p.name for p in list_profiles()]
    assert names == ["official", "official-2017", "simple", *ALL[2:]]


@pytest.mark.parametrize(
    ("name", "pinned"),
    [
        ("evalai-2017", "35c7703"),
        ("lmms-eval-vqav2", "lmms-eval 0.7.3"),
        ("lmms-eval-vqav2", "75571cf"),
        ("lmms-eval-textvqa", "lmms-eval 0.7.3"),
        ("vlmevalkit", "e8e78f0"),
        ("evalscope", "fde259d"),
    ],
)
def test_profiles_record_the_reproduced_version(name: str, pinned: str) -> None:
    assert pinned in get_profile(name).reproduces


# --- §7.2: the side-by-side examples (peers' own outputs) -------------------------------------

TABLE_7_2 = [
    # prediction, answers, answer_ids, official, 2017, evalai, vqav2, textvqa, vlmevalkit, evalscope
    ('"The people\'s"', ["people's"] * 10, True, 0, 1, 1, 1, 1, 1, 1),
    ("7-eleven", ["7-eleven"] * 10, True, 1, 0, 1, 1, 1, 1, 1),
    ("A right!.", ["right"] * 4 + ["red"] * 4 + ["10:00", "2"], True, 1, 1, 0, 1, 1, 1, 1),
    (
        "An 1/2.",
        ["1/2"] * 3 + ["9.5"] * 3 + ["let's"] * 2 + ["LET'S", "3"],
        True,
        0.9,
        0.9,
        0.9,
        0.9,
        0.9,
        0,
        1,
    ),
    ("1,000-2,000", ["1000 - 2000"] * 3 + ["1000"] * 7, True, 0, 0, 0, 0, 0.9, 0, 1),
    ("dont", ["don't"] * 4 + ["no"] * 6, True, 1, 1, 1, 1, 1, 1, 0),
    ("the", ["the"] * 10, True, 1, 0, 0, 1, 1, 1, 0),
    (
        "日本",
        ["日本"] * 3 + ["2.0"] * 4 + ["Hes", "hes", "$5"],
        False,
        0.7,
        0.7,
        0.7,
        0.7,
        0.9,
        0.9,
        1,
    ),
]


@pytest.mark.parametrize("row", TABLE_7_2, ids=[r[0] for r in TABLE_7_2])
def test_side_by_side_table_7_2(row: tuple[Any, ...]) -> None:
    prediction, answers, ids, *expected = row
    got = [vqa_accuracy(prediction, answers_for(answers, p, ids), profile=p) for p in ALL]
    assert got == [float(e) for e in expected]


# peer-scoring-variants.md §4: lmms-eval VQAv2 with and without answer_id.
@pytest.mark.parametrize(
    ("prediction", "answers", "with_ids", "without_ids"),
    [
        ("Yes", ["yes"] * 10, 1.0, 0.0),
        ("2.", ["2"] * 9 + ["3"], 1.0, 0.1),
        ("cat", ["cat"] * 3 + ["dog"] * 7, 0.9, 0.7),
    ],
)
def test_lmms_vqav2_record_inequality_collapse(
    prediction: str, answers: list[str], with_ids: float, without_ids: float
) -> None:
    """§4.1 / §1.7: without ``answer_id`` equal records are left out together:
    ``(N - m) * min(1, m/3) / N``; ten identical ``yes`` → 0."""
    p = "lmms-eval-vqav2"
    assert vqa_accuracy(prediction, answers_for(answers, p, True), profile=p) == with_ids
    assert vqa_accuracy(prediction, answers_for(answers, p, False), profile=p) == without_ids


# --- evalai-2017: PUNCT_2017 (§1.4, §3) --------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("( é", " é"),  # step 1: the longest S22 prefix followed by [a-zA-Z0-9 ] is "(" only
        ("é !", "é "),  # step 2: run " !" after a non-alnum: cut after its first inner space
        ("yes !?", "yes"),  # step 2: run " !?" after a letter: deleted whole
        ("a-İ", "a-İ"),  # QUIRK ascii-only-classes
        ("3-4", "3-4"),  # QUIRK digit-adjacent-punctuation
        ("50/50", "50/50"),
        ("7-eleven", "7-eleven"),
        ("yes.!", "yes!"),  # QUIRK punctuation-after-final-period
        ("(no).", "no)"),
        ("x!.", "x!"),
        ("-", "-"),
        ("1,,000", "1000"),  # step 3: commas between digits
        ("1,000 dogs/cats", "1000 dogs cats"),  # QUIRK no-comma-trigger
        ("a/b-c", "a b c"),  # step 6: punctuation between ASCII letters → space
        ("x." * 40, "x" * 32 + "x." * 8),  # QUIRK period-limit-32
    ],
)
def test_evalai_punctuation_2017(text: str, expected: str) -> None:
    assert normalize_answer(text, profile="evalai-2017", role="answer") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("7 - eleven.", "7 eleven"), ("NOTHING).", "nothing)"), ("Two dogs!", "2 dogs")],
)
def test_evalai_prediction(text: str, expected: str) -> None:
    assert normalize_answer(text, profile="evalai-2017") == expected


def test_evalai_digit_adjacent_punctuation_costs_the_match() -> None:
    """§3 known bug: ``7 - eleven.`` → ``7 eleven`` never matches the answer ``7-eleven``."""
    answers = ["7-eleven"] * 9 + ["seven eleven"]
    assert vqa_accuracy("7 - eleven.", answers_for(answers, "evalai-2017"), "evalai-2017") == 0.0
    assert vqa_accuracy("7 - eleven.", answers_for(answers, "official"), "official") == 1.0


# --- lmms-eval: PUNCT_lmms and EVALAI_PREP (§1.2, §1.5, §4) -----------------------------------


def test_lmms_multi_comma_trigger() -> None:
    """QUIRK multi-comma-trigger: ``1,,000`` → ``1000`` (official ``1 000``)."""
    assert normalize_answer("1,,000", profile="lmms-eval-vqav2") == "1000"
    assert normalize_answer("1,,000", profile="official") == "1 000"
    # the trigger deletes all 21 characters, anywhere in the string
    assert normalize_answer("1,,000 dogs/cats", profile="lmms-eval-vqav2") == "1000 dogscats"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("black and whi,te", "black and white"),  # QUIRK commas-vanish-first
        ("x?y", "xy"),
        ("1,000 dogs/cats", "1000 dogs cats"),  # the comma trigger can no longer fire
        ("man's", "man 's"),  # QUIRK possessive-split
        ("Man's", "man 's"),  # lowercased before the split
        ("man’s", "man’s"),  # typographic apostrophe untouched
        ("The Dog's ball?", "dog 's ball"),
    ],
)
def test_lmms_textvqa_evalai_prep(text: str, expected: str) -> None:
    assert normalize_answer(text, profile="lmms-eval-textvqa") == expected


def test_lmms_textvqa_comma_inside_word_matches() -> None:
    answers = ["black and white"] * 3 + ["white"] * 7
    assert vqa_accuracy("black and whi,te", answers, profile="lmms-eval-textvqa") == 0.9
    assert vqa_accuracy("black and whi,te", answers, profile="official") == 0.0


def test_lmms_no_unanimity_rule() -> None:
    """§4.1: unanimous answers are normalized too (``Yes`` vs ten ``yes``: 1, official 0)."""
    answers = ["yes"] * 10
    for p in ("lmms-eval-vqav2", "lmms-eval-textvqa"):
        assert vqa_accuracy("Yes", answers_for(answers, p), profile=p) == 1.0
    assert vqa_accuracy("Yes", answers_for(answers, "official"), profile="official") == 0.0


# --- vlmevalkit: PUNCT_vlm (§1.2, §5) ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "vlm", "official"),
    [
        ("2.", "2.", "2"),  # QUIRK corrected-period-rule
        (".5.", ".5.", ".5"),
        ("5.%", "5.%", "5%"),
        ("An 1/2.", "1 2.", "1 2"),
        ("yes.", "yes", "yes"),
        ("3.5", "3.5", "3.5"),
        ("x." * 40, "x" * 32 + "x." * 8, "x" * 32 + "x." * 8),  # QUIRK period-limit-32
        ("1,000 dogs/cats", "1000 dogscats", "1000 dogscats"),  # official comma trigger
    ],
)
def test_vlmevalkit_period_rule(text: str, vlm: str, official: str) -> None:
    assert normalize_answer(text, profile="vlmevalkit") == vlm
    assert normalize_answer(text, profile="official") == official


def test_vlmevalkit_trailing_period_after_digit_scores_zero() -> None:
    answers = ["2"] * 9 + ["3"]
    assert vqa_accuracy("2.", answers, profile="vlmevalkit") == 0.0
    assert vqa_accuracy("2.", answers_for(answers, "official"), profile="official") == 1.0


# --- the three means (§1.7) --------------------------------------------------------------------

DOG = "dog"


def _place(hits: list[int]) -> list[str]:
    return ["cat" if i in hits else DOG for i in range(10)]


@pytest.mark.parametrize(
    ("hits", "naive", "exact", "numpy"),
    [
        ([0, 1], 0.6, 0.6, 0.6),
        ([3, 4], 0.6000000000000001, 0.6, 0.6),  # naive: both matches at 3-6
        ([8, 9], 0.5999999999999999, 0.6, 0.5999999999999999),  # numpy: the last two
        ([0, 1, 2], 0.9, 0.9, 0.9),
        ([0, 1, 9], 0.8999999999999998, 0.9, 0.8999999999999998),
        ([5, 6, 9], 0.9, 0.9, 0.8999999999999998),  # numpy: one match is the last answer
    ],
)
def test_means_last_bits(hits: list[int], naive: float, exact: float, numpy: float) -> None:
    answers = _place(hits)
    # evalai-2017 sums naively (records with distinct ids = position leave-one-out)
    assert vqa_accuracy("cat", answers_for(answers, "evalai-2017"), "evalai-2017") == naive
    assert vqa_accuracy("cat", answers, profile="lmms-eval-textvqa") == exact
    assert vqa_accuracy("cat", answers_for(answers, "lmms-eval-vqav2"), "lmms-eval-vqav2") == exact
    assert vqa_accuracy("cat", answers, profile="vlmevalkit") == numpy


# --- evalscope (§1.6, §6) ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3.5", "3 5"),  # QUIRK punctuation-to-space
        ("don't", "don t"),  # QUIRK no-contractions
        ("dont", "dont"),
        ("man's", "man s"),
        ("4:30", "4:30"),
        ("a.m.", "m"),
        ("1,2,3", "123"),  # QUIRK digit-commas-once
        ("1,,2", "1 2"),
        ("#1 & 50% off", "1 50 off"),
        ("The  Two\tDogs\n", "2 dogs"),
        ("none", "0"),
    ],
)
def test_evalscope_normalizer(text: str, expected: str) -> None:
    assert normalize_answer(text, profile="evalscope", role="answer") == expected
    assert normalize_answer(text, profile="evalscope", role="prediction") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('Let me think.\nANSWER: "Two"', "2"),  # QUIRK answer-extraction
        ("answer: no\nANSWER: yes", "yes"),  # the last one wins, any case
        ("ANSWER:\n\n blue", "blue"),  # \s* crosses newlines
        ("ANSWER: yes\nbecause", "yes"),  # . stops at a newline
        ("'\"red\"'", "red"),  # any run of quotes goes
        ("no answer line", "no answer line"),
    ],
)
def test_evalscope_extraction(text: str, expected: str) -> None:
    assert normalize_answer(text, profile="evalscope") == expected


def test_evalscope_extraction_keeps_inner_whitespace() -> None:
    assert extract_answer('ANSWER: " yes "') == " yes "


def test_evalscope_answers_are_not_extracted() -> None:
    assert normalize_answer("ANSWER: yes", profile="evalscope", role="answer") == "answer: yes"


def test_evalscope_answer_list() -> None:
    assert answer_list(["yes", " ", "", "\u3000", "no"]) == ["yes", "no"]
    assert answer_list("yes") == ["yes"]
    assert answer_list([{"answer": "", "text": "cat"}, {"answer": "dog"}, {}]) == ["cat", "dog"]


@pytest.mark.parametrize(
    ("prediction", "answers", "expected"),
    [
        ("yes", ["yes"], 1 / 3),  # N = 1: 0.333
        ("cat", ["cat"] * 3 + ["dog"] * 7, 1.0),  # m = 3 → 1.0 (official 0.9)
        ("cat", ["cat"] * 2 + ["dog"] * 8, 2 / 3),
        ("dont", ["don't"] * 4 + ["no"] * 6, 0.0),
        ("", ["", "", ""], 0.0),  # QUIRK empty-prediction-zero
        ("the", ["the"] * 3 + ["cat"] * 7, 0.0),  # "the" normalizes to ""
    ],
)
def test_evalscope_scores(prediction: str, answers: list[str], expected: float) -> None:
    assert vqa_accuracy(prediction, answers, profile="evalscope") == expected


def test_empty_prediction_matches_empty_answers_in_official() -> None:
    """§6: official gives ``""`` vs three ``""`` 0.6667 (each annotator sees 2 matches; the
    naive sum 2/3 + 2/3 + 2/3 rounds to exactly 2.0)."""
    assert vqa_accuracy("", ["", "", ""], profile="official") == 2 / 3
