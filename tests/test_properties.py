"""Property tests (hypothesis) for the invariants the core issue lists."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from vqametrics import normalize_answer, vqa_accuracy

WORDS = st.sampled_from(
    ["yes", "no", "Yes", "2", "two", "a dog", "dog", "the cat", "t-shirt", "1,000", "none", "red."]
)
TEN = st.lists(WORDS, min_size=10, max_size=10)
LADDER = {0.0, 0.3, 0.6, 0.9, 1.0}


def records(answers: list[str]) -> list[dict[str, object]]:
    return [{"answer": a, "answer_id": i + 1} for i, a in enumerate(answers)]


@given(WORDS, TEN)
def test_scores_lie_on_the_ladder(prediction: str, answers: list[str]) -> None:
    score = vqa_accuracy(prediction, records(answers))
    assert round(score, 12) in LADDER


@given(WORDS, TEN, st.integers(0, 9))
def test_one_more_agreeing_annotator_never_lowers_the_score(
    prediction: str, answers: list[str], slot: int
) -> None:
    before = vqa_accuracy(prediction, records(answers))
    more = list(answers)
    more[slot] = prediction
    assert vqa_accuracy(prediction, records(more)) >= before - 1e-12


@given(WORDS, TEN, st.randoms(use_true_random=False))
def test_permuting_answer_records_keeps_the_rounded_score(
    prediction: str, answers: list[str], rnd: object
) -> None:
    recs = records(answers)
    shuffled = list(recs)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    a = round(100 * vqa_accuracy(prediction, recs), 2)
    b = round(100 * vqa_accuracy(prediction, shuffled), 2)
    assert a == b


@given(st.text())
def test_simple_normalization_is_idempotent(text: str) -> None:
    once = normalize_answer(text, "simple")
    assert normalize_answer(once, "simple") == once


@settings(max_examples=300)
@given(st.text())
def test_official_normalization_never_raises(text: str) -> None:
    for role in ("prediction", "answer"):
        out = normalize_answer(text, "official", role)  # type: ignore[arg-type]
        assert isinstance(out, str)
        assert "\n" not in out and "\t" not in out


@given(st.text(max_size=30), st.lists(st.text(max_size=30), min_size=1, max_size=12))
def test_any_answers_score_in_unit_interval(prediction: str, answers: list[str]) -> None:
    for profile in ("official", "official-2017", "simple"):
        score = vqa_accuracy(prediction, answers, profile)
        assert 0.0 <= score <= 1.0


# The simple profile's normal form of each word, by hand: lowercase, [a-z0-9'] tokens joined by
# a space, articles dropped, number words (not "none") to digits.
SIMPLE_BY_HAND = {
    "yes": "yes",
    "no": "no",
    "Yes": "yes",
    "2": "2",
    "two": "2",
    "a dog": "dog",
    "dog": "dog",
    "the cat": "cat",
    "t-shirt": "t shirt",
    "1,000": "1 000",
    "none": "none",
    "red.": "red",
}


def test_simple_normal_forms_by_hand() -> None:
    assert {w: normalize_answer(w, "simple") for w in SIMPLE_BY_HAND} == SIMPLE_BY_HAND


@given(WORDS, TEN)
def test_simple_is_textbook_min_m_over_3(prediction: str, answers: list[str]) -> None:
    p = SIMPLE_BY_HAND[prediction]
    m = sum(SIMPLE_BY_HAND[a] == p for a in answers)
    assert vqa_accuracy(prediction, answers, "simple") == min(1.0, m / 3)
