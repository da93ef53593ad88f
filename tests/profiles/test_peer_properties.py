"""Property tests over every registered profile (hypothesis).

Only invariants that the spec guarantees are tested: normalization is total on arbitrary
Unicode, the score ranges of §1.7 / §6, and the order (in)dependence of each mean.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vqametrics.kernels.accuracy import normalize_answer, vqa_accuracy
from vqametrics.normalize import evalscope as es
from vqametrics.normalize import lmms_eval as lmms
from vqametrics.normalize.official import PUNCTUATION
from vqametrics.profiles import get_profile, list_profiles

NAMES = [p.name for p in list_profiles()]
POSITION = [p.name for p in list_profiles() if p.leave_one_out == "position"]

# Strings rich in what the normalizers react to: punctuation, digits, whitespace of every kind,
# apostrophes, articles, number words, ANSWER: lines and arbitrary Unicode.
_ATOMS = st.sampled_from(
    [
        *PUNCTUATION,
        ".",
        "'",
        "'s",
        ",",
        " ",
        "\n",
        "\t",
        "\u00a0",
        "\u3000",
        "\u200b",
        "İ",
        "٣",
        "a",
        "the",
        "an",
        "two",
        "none",
        "dont",
        "ANSWER:",
        "answer: ",
        '"',
        ":",
        "1",
        "0",
        "%",
        "#",
        "x",
        "Yes",
        "yes",
    ]
)
MESSY = st.lists(st.one_of(_ATOMS, st.text(max_size=3)), max_size=12).map("".join)
ANSWER_POOL = ["yes", "Yes", "yes.", "no", "2", "two", "2.", "the", "", "cat", "1,000", "don't"]


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(), MESSY))
@pytest.mark.parametrize("name", NAMES)
def test_normalize_is_total(name: str, text: str) -> None:
    for role in ("prediction", "answer"):
        assert isinstance(normalize_answer(text, profile=name, role=role), str)


@settings(max_examples=200, deadline=None)
@given(
    prediction=st.one_of(st.sampled_from(ANSWER_POOL), MESSY),
    answers=st.lists(st.one_of(st.sampled_from(ANSWER_POOL), MESSY), min_size=1, max_size=15),
)
@pytest.mark.parametrize("name", NAMES)
def test_score_in_unit_interval(name: str, prediction: str, answers: list[str]) -> None:
    score = vqa_accuracy(prediction, answers, profile=name)
    assert isinstance(score, float)
    assert 0.0 <= score <= 1.0


@settings(max_examples=300, deadline=None)
@given(
    prediction=st.one_of(st.sampled_from(ANSWER_POOL), MESSY),
    answers=st.lists(st.one_of(st.sampled_from(ANSWER_POOL), MESSY), min_size=1, max_size=15),
)
def test_evalscope_scores_are_thirds(prediction: str, answers: list[str]) -> None:
    """§6: ``min(1, m/3)`` gives exactly one of four binary64 values, for any N."""
    score = vqa_accuracy(prediction, answers, profile="evalscope")
    assert score in {0.0, 0.3333333333333333, 0.6666666666666666, 1.0}


@settings(max_examples=200, deadline=None)
@given(
    prediction=st.sampled_from(ANSWER_POOL),
    answers=st.lists(st.sampled_from(ANSWER_POOL), min_size=10, max_size=10),
)
def test_exact_mean_of_ten_is_a_round_tenth(prediction: str, answers: list[str]) -> None:
    """§1.7 table: with N = 10 and the exact mean only 0.0, 0.3, 0.6, 0.9, 1.0 occur."""
    score = vqa_accuracy(prediction, answers, profile="lmms-eval-textvqa")
    assert score in {0.0, 0.3, 0.6, 0.9, 1.0}


@settings(max_examples=200, deadline=None)
@given(
    prediction=st.one_of(st.sampled_from(ANSWER_POOL), MESSY),
    answers=st.lists(st.one_of(st.sampled_from(ANSWER_POOL), MESSY), min_size=1, max_size=15),
    seed=st.integers(0, 2**32 - 1),
)
@pytest.mark.parametrize("name", [*POSITION, "evalscope"])
def test_order_of_answers(name: str, prediction: str, answers: list[str], seed: int) -> None:
    """Position leave-one-out and ``min(1, m/3)`` do not depend on the answer order, except
    for the last bits of a floating-point sum: exactly for the exact mean and for evalscope,
    to within the rounding of a sum of at most 15 values for numpy's pairwise sum."""
    shuffled = list(answers)
    random.Random(seed).shuffle(shuffled)
    a = vqa_accuracy(prediction, answers, profile=name)
    b = vqa_accuracy(prediction, shuffled, profile=name)
    if get_profile(name).mean == "numpy" and get_profile(name).leave_one_out != "none":
        assert math.isclose(a, b, rel_tol=0, abs_tol=1e-15)
    else:
        assert a == b


@settings(max_examples=200, deadline=None)
@given(
    prediction=st.one_of(st.sampled_from(ANSWER_POOL), MESSY),
    answers=st.lists(st.one_of(st.sampled_from(ANSWER_POOL), MESSY), min_size=1, max_size=15),
)
@pytest.mark.parametrize("name", POSITION)
def test_position_profiles_round_the_exact_mean(
    name: str, prediction: str, answers: list[str]
) -> None:
    """Every mean is within one float rounding of the exact mean of the thirds."""
    normalized = [normalize_answer(a, profile=name, role="answer") for a in answers]
    pred = normalize_answer(prediction, profile=name)
    m = normalized.count(pred)
    values = [min(Fraction(1), Fraction(m - (a == pred), 3)) for a in normalized]
    exact = sum(values, Fraction(0)) / len(values)
    got = vqa_accuracy(prediction, answers, profile=name)
    assert math.isclose(got, float(exact), rel_tol=0, abs_tol=1e-15)


@settings(max_examples=200, deadline=None)
@given(
    prediction=st.one_of(st.sampled_from(ANSWER_POOL), MESSY),
    answers=st.lists(st.one_of(st.sampled_from(ANSWER_POOL), MESSY), min_size=1, max_size=15),
)
def test_lmms_vqav2_distinct_ids_is_position_leave_one_out(
    prediction: str, answers: list[str]
) -> None:
    """§1.7: with distinct ``answer_id``s, leave-one-out by record is leave-one-out by position."""
    records = [{"answer": a, "answer_id": i + 1} for i, a in enumerate(answers)]
    assert vqa_accuracy(prediction, records, "lmms-eval-vqav2") == vqa_accuracy(
        prediction, answers, "lmms-eval-vqav2"
    )


# Independent ports of two blocks, written from the words of peer-profiles §1.5 and §1.6.
_SPEC_PUNCT = set("!\"#$%&'()*+,-./;<=>?@[\\]^_`{|}~")  # ASCII punctuation except ":"
_SPEC_NUMBERS = {
    "none": "0",
    "zero": "0",
    **{
        w: str(i)
        for i, w in enumerate(
            ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"], 1
        )
    },
}


def _spec_clean(s: str) -> str:
    return s.replace("\n", " ").replace("\t", " ").strip()


def _spec_evalai_prep(s: str) -> str:
    """§1.5: lower; delete , and ?; 's -> ' 's'; strip; CLEAN."""
    return _spec_clean(s.lower().replace(",", "").replace("?", "").replace("'s", " 's").strip())


def _spec_es_norm(s: str) -> str:
    """§1.6 ES_NORM."""
    s = s.lower().strip().replace("\n", " ").replace("\t", " ")
    s = "".join(
        c
        for i, c in enumerate(s)
        if not (c == "," and 0 < i < len(s) - 1 and s[i - 1].isdecimal() and s[i + 1].isdecimal())
    )
    s = "".join(" " if c in _SPEC_PUNCT else c for c in s)
    words = [_SPEC_NUMBERS.get(w, w) for w in s.split()]
    return " ".join(w for w in words if w not in ("a", "an", "the"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1,2,3", "123"),
        ("1,,2", "1 2"),
        ("3.5", "3 5"),
        ("don't", "don t"),
        ("man's", "man s"),
        ("4:30", "4:30"),
        ("The Two dogs!", "2 dogs"),
        (" A\tcat\n", "cat"),
    ],
)
def test_es_norm_examples_from_the_spec(text: str, expected: str) -> None:
    assert es.es_normalize(text) == expected == _spec_es_norm(text)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(), MESSY))
def test_traced_sub_steps_compose_to_the_blocks(text: str) -> None:
    """The blocks (and the sub-steps shown in explanations, composed) equal independent ports
    of the spec's words."""
    assert es.es_normalize(text) == _spec_es_norm(text)
    assert normalize_answer(text, "evalscope", "answer") == _spec_es_norm(text)
    prep = lmms.prep_cleanup(
        lmms.split_possessive(lmms.drop_commas_question_marks(lmms.lowercase_first(text)))
    )
    assert prep == lmms.evalai_prep(text) == _spec_evalai_prep(text)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(), MESSY))
def test_evalscope_normalizer_output_has_no_spaced_punctuation(text: str) -> None:
    """After ES_NORM no ASCII punctuation but ``:`` is left and whitespace is single spaces."""
    out = es.es_normalize(text)
    assert not set(out) & set(es.ES_PUNCTUATION)
    assert out == " ".join(out.split())
