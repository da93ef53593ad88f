"""Invariants checked with hypothesis."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from vqametrics import evaluate_mmbench
from vqametrics.mmbench import (
    MMBenchRow,
    circular_copies,
    explain_choice,
    list_extractors,
)

LETTERS = "ABCDEFGH"
EXTRACTORS = [e.name for e in list_extractors()]


@st.composite
def items(draw: st.DrawFn) -> tuple[dict[str, str], str]:
    n = draw(st.integers(2, 8))
    texts = draw(st.lists(st.text(min_size=1, max_size=8), min_size=n, max_size=n, unique=True))
    options = dict(zip(LETTERS[:n], texts, strict=True))
    return options, draw(st.sampled_from(list(options)))


@given(items(), st.integers(0, 999_999))
def test_circular_copies_are_the_n_rotations(item: tuple[dict[str, str], str], g: int) -> None:
    options, answer = item
    n = len(options)
    copies = circular_copies(options, answer, g)
    assert [c.index for c in copies] == [g + k * 1_000_000 for k in range(n)]
    texts = list(options.values())
    for k, c in enumerate(copies):
        assert list(c.options) == list(options)  # same letters, same order
        assert list(c.options.values()) == texts[k:] + texts[:k]  # rotated left by k
        assert c.answer is not None
        assert c.options[c.answer] == options[answer]  # the answer follows its text
    assert copies[0].options == options and copies[0].answer == answer
    # every letter is the answer in exactly one pass: position bias cannot pass all of them
    assert sorted(c.answer or "" for c in copies) == list(options)


choices_st = st.dictionaries(
    st.sampled_from("ABCD"), st.text(max_size=12), min_size=1, max_size=4
).map(lambda d: dict(sorted(d.items())))


@settings(max_examples=300)
@given(st.text(max_size=80), choices_st, st.sampled_from(EXTRACTORS))
def test_extraction_never_raises_and_stays_in_range(
    prediction: str, choices: dict[str, str], extractor: str
) -> None:
    res = explain_choice(prediction, choices, extractor)
    allowed = set(choices) | set("ABCDE") if extractor == "lmms-eval" else set(choices) | {"Z"}
    assert res.letter is None or res.letter in allowed
    assert (res.letter is None) == (res.stage == "none")


@settings(max_examples=100)
@given(
    st.lists(items(), min_size=1, max_size=6),
    st.randoms(use_true_random=False),
    st.sampled_from(EXTRACTORS),
)
def test_circular_never_beats_vanilla_pass0_and_is_order_free(
    qs: list[tuple[dict[str, str], str]], rnd: random.Random, extractor: str
) -> None:
    rows: list[MMBenchRow] = []
    preds: dict[int, str] = {}
    for g, (options, answer) in enumerate(qs):
        for c in circular_copies(options, answer, g):
            assert c.answer is not None
            rows.append(MMBenchRow(c.index, c.options, c.answer))
            preds[c.index] = rnd.choice([c.answer, "A", "B", "Z", "no idea", "A or B"])
    circ = evaluate_mmbench(rows, preds, extractor=extractor)
    van = evaluate_mmbench(rows, preds, mode="vanilla", extractor=extractor)
    # a circular hit needs a correct pass 0, so CircularEval <= VanillaEval(pass 0)
    assert circ.score <= van.score
    shuffled = rows[:]
    rnd.shuffle(shuffled)
    again = evaluate_mmbench(shuffled, preds, extractor=extractor)
    assert again.questions == circ.questions and again.tables == circ.tables
