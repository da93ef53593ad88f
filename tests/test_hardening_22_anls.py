"""Issue 22/23, ANLS: the edit distance comes from rapidfuzz (with the scorers' cut-off) and the
pure DP is kept as the reference. A differential test holds the two equal — the distances, and
every toolkit's similarity bit for bit — and the audit's repros (two long dissimilar answers,
non-string arguments) are pinned. Timings live in ``benchmarks/bench_anls.py``, not here."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vqametrics import InputError
from vqametrics.kernels import anls
from vqametrics.kernels.anls import (
    UndefinedScoreError,
    anls_lmms_eval,
    anls_mmf,
    anls_official,
    anls_paper,
    anls_pix2struct,
    anls_stvqa_2019,
    anls_vlmevalkit,
    levenshtein,
    levenshtein_reference,
)

SCORERS: dict[str, Callable[[str, Sequence[str]], float]] = {
    "official": anls_official,
    "stvqa-2019": anls_stvqa_2019,
    "lmms-eval": anls_lmms_eval,
    "vlmevalkit": anls_vlmevalkit,
    "mmf": anls_mmf,
    "pix2struct": anls_pix2struct,
    "paper": anls_paper,
}

# small alphabets make near-misses (the interesting cases); the wide one adds astral code
# points, combining marks, case pairs whose .upper() grows (ß) and lone surrogates
NARROW = st.text(alphabet="abc ", max_size=30)
WIDE = st.text(
    alphabet=st.one_of(
        st.characters(),
        st.sampled_from(["ß", "ẞ", "İ", "\u0301", "😀", "\ud800", "\udfff", " ", "\t", "A", "a"]),
    ),
    max_size=40,
)
TEXT = st.one_of(NARROW, WIDE)


@contextmanager
def _pure_distance() -> Iterator[None]:
    """Score with the reference DP in place of rapidfuzz (the scorers' one edit-distance call)."""
    fast = anls._distance
    anls._distance = levenshtein_reference
    try:
        yield
    finally:
        anls._distance = fast


def _outcome(scorer: Callable[[str, Sequence[str]], float], p: str, refs: list[str]) -> str:
    """The similarity as its exact bits (``float.hex``), or the error the scorer raised."""
    try:
        return scorer(p, refs).hex()
    except UndefinedScoreError:
        return "undefined"


def test_known_distances_from_rapidfuzz() -> None:
    # hand-derived: kitten→sitting is 2 substitutions + 1 insertion
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("ß", "ss") == 2  # code points, not case folding
    assert levenshtein("😀x", "x") == 1  # one astral code point is one edit, not two
    assert levenshtein("a\ud800b", "ab") == 1  # a lone surrogate is a code point like any other
    assert levenshtein("abcdef", "uvwxyz", 2) == 3  # beyond the bound: bound + 1
    assert levenshtein("abcdef", "abcdxy", 2) == 2  # within the bound: exact


@settings(max_examples=600, deadline=None)
@given(TEXT, TEXT, st.one_of(st.none(), st.integers(min_value=0, max_value=45)))
def test_rapidfuzz_distance_equals_the_reference(a: str, b: str, bound: int | None) -> None:
    expected = levenshtein_reference(a, b, bound)
    assert levenshtein(a, b, bound) == expected
    assert levenshtein(b, a, bound) == expected


@settings(max_examples=400, deadline=None)
@given(TEXT, st.lists(TEXT, min_size=1, max_size=4))
def test_every_similarity_is_bit_identical_to_the_pure_path(pred: str, refs: list[str]) -> None:
    fast = {name: _outcome(f, pred, refs) for name, f in SCORERS.items()}
    with _pure_distance():
        pure = {name: _outcome(f, pred, refs) for name, f in SCORERS.items()}
    assert fast == pure


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="ab", min_size=50, max_size=300), st.text(alphabet="ab", max_size=300))
def test_long_near_misses_are_bit_identical_to_the_pure_path(pred: str, ref: str) -> None:
    # long strings over two letters: distances near the cut-off, where a wrong bound would show
    fast = [_outcome(f, pred, [ref]) for f in SCORERS.values()]
    with _pure_distance():
        pure = [_outcome(f, pred, [ref]) for f in SCORERS.values()]
    assert fast == pure


def test_two_dissimilar_10k_answers_score_zero() -> None:
    # the audit's hang: `score docvqa` on one 10k-character answer took more than a minute.
    # Disjoint alphabets: the distance is the length, NL = 1, similarity 0 in every toolkit.
    pred, ref = "ab" * 5000, "xy" * 5000
    for name, scorer in SCORERS.items():
        assert scorer(pred, [ref]) == 0.0, name


def test_a_10k_answer_one_edit_away_is_exact() -> None:
    # one substitution in 10,000 characters: 1 - 1/10000 (hand-derived), not cut off
    ref = "q" * 10_000
    pred = "q" * 4_999 + "z" + "q" * 5_000
    assert anls_official(pred, [ref]) == 1 - 1 / 10_000
    assert anls_pix2struct(pred, [ref]) == 1 - 1 / 10_000


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ((None, ["a"]), "string prediction"),
        ((1, ["a"]), "string prediction"),
        (("a", "a"), "list of string reference answers"),
        (("a", []), "list of string reference answers"),
        (("a", [None]), "list of string reference answers"),
        (("a", [1, "a"]), "list of string reference answers"),
        (("a", None), "list of string reference answers"),
    ],
)
def test_wrong_argument_types_are_the_librarys_error(
    args: tuple[object, ...], fragment: str
) -> None:
    # the audit: score_answer("docvqa", None, ["a"]) raised AttributeError
    for scorer in SCORERS.values():
        with pytest.raises(InputError, match=fragment):
            scorer(*args)


@pytest.mark.parametrize(
    "args", [(None, "a"), ("a", b"a"), ("a", "b", -1), ("a", "b", 1.5), ("a", "b", True)]
)
def test_levenshtein_rejects_wrong_arguments(args: tuple[object, ...]) -> None:
    for function in (levenshtein, levenshtein_reference):
        with pytest.raises(InputError, match="levenshtein"):
            function(*args)


def test_without_rapidfuzz_the_pure_dp_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(anls, "_fast", None)
    monkeypatch.setitem(sys.modules, "rapidfuzz.distance", None)  # import fails
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("abcdef", "uvwxyz", 2) == 3
    assert anls_official("ab   ", ["ac"]) == 0.8  # the spec's raw-length quirk, via the DP
    assert anls._fast is not None
    assert anls._fast.__module__ == anls.__name__  # the fallback, not rapidfuzz
