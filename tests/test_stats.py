"""Intervals and paired tests (issue 6): hand-derived cases, exact enumeration, simulations.

Expected values come from the formulas in ``vqametrics.aggregate.stats`` worked by hand
(intermediate
sums in comments), from enumerating every sign pattern, or from theory (a Beta-binomial model
whose true accuracy is computed exactly). Simulations are seeded; their tolerances are three
binomial standard errors of the simulated rate, stated next to each assertion.
"""

from __future__ import annotations

import itertools
import math
import sys
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from vqametrics import MissingDependencyError, evaluate_vqa, vqa_accuracy
from vqametrics.aggregate.stats import (
    DEFAULT_SEED,
    bootstrap_ci,
    evaluation_ci,
    paired_test,
    sign_flip_test,
    standard_error,
)
from vqametrics.cli import main

# ---------------------------------------------------------------------------------------------
# standard error: the formula by hand


def test_se_independent_questions_is_textbook() -> None:
    # mean 0.5; s^2 = 4 * 0.25 / 3 = 1/3; SE = sqrt(1/3 / 4) = sqrt(1/12)
    assert standard_error([1.0, 0.0, 1.0, 0.0]) == pytest.approx(100 * math.sqrt(1 / 12))


def test_se_cluster_robust_by_hand() -> None:
    # two images: S = (2, 0), n = (2, 2), mu = 0.5, residuals S - n mu = (1, -1)
    # var = G/(G-1) * (1 + 1) / N^2 = 2 * 2 / 16 = 0.25  ->  SE = 0.5
    se = standard_error([1.0, 1.0, 0.0, 0.0], clusters=["a", "a", "b", "b"])
    assert se == pytest.approx(50.0)
    # the same scores as independent questions: sqrt(1/12), smaller
    assert standard_error([1.0, 1.0, 0.0, 0.0]) < se


def test_se_singleton_images_equal_independent_questions() -> None:
    scores = [0.0, 0.3, 0.6, 0.9, 1.0, 1.0, 0.3]
    assert standard_error(scores, clusters=list("abcdefg")) == pytest.approx(standard_error(scores))


def test_se_undefined_with_one_cluster() -> None:
    assert math.isnan(standard_error([1.0, 0.0], clusters=[7, 7]))


# ---------------------------------------------------------------------------------------------
# bootstrap_ci


def test_estimates_equal_official_unrounded_values() -> None:
    scores = [0.3, 0.6, 1.0, 0.0, 0.9, 1.0, 0.6]
    atypes = ["yes/no", "other", "other", None, "number", "other", "yes/no"]
    r = bootstrap_ci(scores, groups={"perAnswerType": atypes}, n_bootstrap=50)
    assert r.overall.estimate == pytest.approx(100 * 4.4 / 7, abs=1e-12)  # sum 4.4 by hand
    assert list(r.groups["perAnswerType"]) == ["yes/no", "other", "number"]  # first seen
    other = r.groups["perAnswerType"]["other"]
    assert other.estimate == pytest.approx(100 * 2.6 / 3, abs=1e-12)
    assert (other.n, other.clusters) == (3, 3)
    assert r.groups["perAnswerType"]["number"].n == 1
    assert r.ci95()["perAnswerType"]["other"] == [other.low, other.high]


def test_two_question_bootstrap_is_known() -> None:
    # scores (0, 1): a replicate mean is 0, 0.5 or 1 with probabilities 1/4, 1/2, 1/4; the
    # 2.5th and 97.5th percentiles of 1000 replicates are therefore 0 and 1
    r = bootstrap_ci([0.0, 1.0], n_bootstrap=1000)
    assert (r.overall.low, r.overall.high) == (0.0, 100.0)
    assert r.resampled == "questions"


def test_constant_scores_give_a_point_interval() -> None:
    r = bootstrap_ci([0.6] * 20, clusters=[i // 4 for i in range(20)], n_bootstrap=100)
    assert r.overall.low == pytest.approx(60.0)
    assert r.overall.high == pytest.approx(60.0)
    assert r.overall.se == pytest.approx(0.0)
    assert (r.resampled, r.overall.clusters) == ("images", 5)


def test_whole_images_are_resampled() -> None:
    from vqametrics.aggregate import stats

    # images a = (1, 1), b = (0, 0): a replicate holds 0, 2 or 4 copies of a's questions among
    # 4, so its mean is 0, 0.5 or 1, never 0.25 or 0.75 as with independent questions
    layout = stats._layout(4, None, ["a", "a", "b", "b"])
    sums = layout.sums(np.array([1.0, 1.0, 0.0, 0.0]))
    reps = stats._bootstrap_means(layout, sums, 400, DEFAULT_SEED)
    assert set(np.unique(reps[:, 0])) == {0.0, 0.5, 1.0}
    layout = stats._layout(4, None, None)
    reps = stats._bootstrap_means(layout, layout.sums(np.array([1.0, 1, 0, 0])), 400, 1)
    assert set(np.unique(reps[:, 0])) == {0.0, 0.25, 0.5, 0.75, 1.0}


def test_questions_without_image_are_their_own_cluster() -> None:
    r = bootstrap_ci([1.0, 0.0, 1.0], clusters=["x", None, None], n_bootstrap=20)
    assert (r.resampled, r.overall.clusters) == ("images", 3)


def test_seeded_and_reproducible(monkeypatch: pytest.MonkeyPatch) -> None:
    from vqametrics.aggregate import stats

    rng = np.random.default_rng(3)
    scores = rng.choice([0.0, 0.3, 0.6, 0.9, 1.0], 500).tolist()
    images = rng.integers(0, 120, 500).tolist()
    groups = {"perQuestionType": rng.choice(["what", "how many", "is the"], 500).tolist()}
    first = bootstrap_ci(scores, groups=groups, clusters=images, n_bootstrap=300, seed=9)
    assert bootstrap_ci(scores, groups=groups, clusters=images, n_bootstrap=300, seed=9) == first
    other = bootstrap_ci(scores, groups=groups, clusters=images, n_bootstrap=300, seed=10)
    assert other.overall.low != first.overall.low
    # the random stream is drawn row by row: the block size changes nothing
    monkeypatch.setattr(stats, "_BLOCK_CELLS", 1000)
    assert bootstrap_ci(scores, groups=groups, clusters=images, n_bootstrap=300, seed=9) == first


def test_rare_group_absent_from_replicates_warns_nothing() -> None:
    # "rare" holds one question of 40: most replicates miss it (no value for that group)
    keys = ["common"] * 39 + ["rare"]
    r = bootstrap_ci([0.5] * 39 + [1.0], groups={"g": keys}, n_bootstrap=200)
    assert r.groups["g"]["rare"].low == r.groups["g"]["rare"].high == 100.0
    assert math.isnan(r.groups["g"]["rare"].se)
    assert r.se()["g"]["rare"] is None  # JSON: undefined, not NaN


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"scores": []}, "must not be empty"),
        ({"scores": [1.0], "clusters": [1, 2]}, "clusters has 2 ids but there are 1 scores"),
        ({"scores": [1.0], "groups": {"g": []}}, r"groups\['g'\] has 0 keys"),
        ({"scores": [1.0], "n_bootstrap": 0}, "n_bootstrap must be a positive integer"),
        ({"scores": [1.0], "confidence": 1.0}, "confidence must be in"),
    ],
)
def test_bad_arguments(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        bootstrap_ci(**kwargs)  # type: ignore[arg-type]


def test_missing_numpy_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)
    with pytest.raises(MissingDependencyError, match=r"pip install numpy"):
        bootstrap_ci([1.0, 0.0])


# ---------------------------------------------------------------------------------------------
# sign-flip test: exact enumeration by hand


def _enumerated_p(units: list[int]) -> Fraction:
    """Share of all 2^G sign patterns whose |sum| reaches the observed |sum| (exact, in
    integers: the differences are given in tenths)."""
    observed = abs(sum(units))
    hits = sum(
        abs(sum(s * u for s, u in zip(signs, units, strict=True))) >= observed
        for signs in itertools.product((1, -1), repeat=len(units))
    )
    return Fraction(hits, 2 ** len(units))


def test_exact_p_value_by_enumeration() -> None:
    tenths = [3, -6, 10, 9, 0, -3, 7]  # observed sum 2.0
    expected = _enumerated_p(tenths)  # 2^7 = 128 patterns; the zero never matters
    assert expected == Fraction(36, 128)  # 18 of the 64 patterns of the 6 nonzero ones
    p = sign_flip_test([x / 10 for x in tenths], n_permutations=10000)
    assert p == float(expected)


def test_images_are_flipped_whole() -> None:
    # d = (1, 1, 1) on images (a, a, b): image sums (2, 1); |+-2 +-1| is 3, 1, 1, 3 -> p = 2/4
    assert sign_flip_test([1.0, 1.0, 1.0], clusters=["a", "a", "b"]) == 0.5
    # as independent questions: only the 2 patterns with equal signs reach 3 -> p = 2/8
    assert sign_flip_test([1.0, 1.0, 1.0]) == 0.25


def test_monte_carlo_p_value_agrees_with_enumeration() -> None:
    rng = np.random.default_rng(5)
    tenths = [int(k) for k in rng.choice([-10, -6, -3, 3, 6, 10], 16)]
    exact = float(_enumerated_p(tenths))  # 65,536 patterns
    n = 20000  # fewer than 2^16: Monte Carlo with the +1 correction
    p = sign_flip_test([x / 10 for x in tenths], n_permutations=n, seed=1)
    assert abs(p - exact) < 4 * math.sqrt(exact * (1 - exact) / n) + 1 / n


def test_p_is_exactly_one_without_differences() -> None:
    assert sign_flip_test([0.0] * 50) == 1.0
    assert sign_flip_test([0.0] * 50, clusters=[i % 7 for i in range(50)]) == 1.0


# ---------------------------------------------------------------------------------------------
# paired_test


def test_self_comparison() -> None:
    scores = [0.0, 0.3, 1.0, 0.6, 0.9, 1.0]
    r = paired_test(scores, scores, groups={"g": list("xxyyzz")}, clusters=[1, 2, 2, 3, 4, 5])
    for d in (r.overall, *r.groups["g"].values()):
        assert (d.delta, d.low, d.high, d.se, d.p_value, d.n_differ) == (0, 0, 0, 0, 1.0, 0)


def test_delta_is_the_exact_difference_and_antisymmetric() -> None:
    rng = np.random.default_rng(11)
    values = [0.0, 0.3, 0.6, 0.9, 1.0]
    a = rng.choice(values, 400).tolist()
    b = rng.choice(values, 400).tolist()
    images = rng.integers(0, 150, 400).tolist()
    ab = paired_test(a, b, clusters=images, n_bootstrap=400, n_permutations=2000)
    ba = paired_test(b, a, clusters=images, n_bootstrap=400, n_permutations=2000)
    assert ab.overall.delta == pytest.approx(100 * (math.fsum(a) - math.fsum(b)) / 400, abs=1e-9)
    assert ba.overall.delta == -ab.overall.delta
    assert ba.overall.low == pytest.approx(-ab.overall.high, abs=1e-12)
    assert ba.overall.high == pytest.approx(-ab.overall.low, abs=1e-12)
    assert ba.overall.p_value == ab.overall.p_value
    assert ab.overall.n_differ == sum(x != y for x, y in zip(a, b, strict=True))
    assert ab.permutation == "monte-carlo"


def test_paired_lengths_must_match() -> None:
    with pytest.raises(ValueError, match="scores_b has 2 values but scores_a has 3"):
        paired_test([1.0, 0.0, 1.0], [1.0, 0.0])


# ---------------------------------------------------------------------------------------------
# simulations: coverage and size

#: the score of a prediction that m of 10 annotators gave, from the scorer itself
SCORE = [vqa_accuracy("x", ["x"] * m + ["y"] * (10 - m)) for m in range(11)]
ALPHA, BETA = 1.0, 1.0  # image difficulty p ~ Beta(1, 1); matches m ~ Binomial(10, p)


def _true_accuracy() -> float:
    """E[score] under the Beta-binomial model, exactly: sum_m P(m) * score(m)."""

    def log_beta(x: float, y: float) -> float:
        return math.lgamma(x) + math.lgamma(y) - math.lgamma(x + y)

    pmf = [
        math.comb(10, m) * math.exp(log_beta(m + ALPHA, 10 - m + BETA) - log_beta(ALPHA, BETA))
        for m in range(11)
    ]
    assert math.isclose(sum(pmf), 1.0)
    return 100 * sum(p * s for p, s in zip(pmf, SCORE, strict=True))


def _dataset(
    rng: np.random.Generator, n_images: int, shift: float = 0.0
) -> tuple[list[float], list[float], list[int]]:
    """Two systems' scores on clustered questions: 1-5 questions per image, one difficulty
    per image; each system also has its own luck per image (so differences correlate within an
    image). ``shift`` = 0 makes the systems exchangeable."""
    score = np.array(SCORE)
    sizes = rng.integers(1, 6, n_images)
    images = np.repeat(np.arange(n_images), sizes)
    p = rng.beta(ALPHA, BETA, n_images)
    luck_a = rng.uniform(-0.2, 0.2, n_images) + shift
    luck_b = rng.uniform(-0.2, 0.2, n_images)
    a = score[rng.binomial(10, np.clip(p + luck_a, 0, 1)[images])]
    b = score[rng.binomial(10, np.clip(p + luck_b, 0, 1)[images])]
    base = score[rng.binomial(10, p[images])]
    return base.tolist(), (a - b).tolist(), images.tolist()


@pytest.mark.slow  # a Monte Carlo simulation (make test-slow)
def test_bootstrap_coverage_of_a_known_accuracy() -> None:
    truth = _true_accuracy()
    # Beta-binomial(10, 1, 1) is uniform on m = 0..10: (0 + .3 + .6 + .9 + 7 * 1) / 11 = 0.8
    assert truth == pytest.approx(80.0)
    rng = np.random.default_rng(2024)
    runs = 300
    covered = covered_se = covered_naive = 0
    for _ in range(runs):
        scores, _, images = _dataset(rng, 150)
        r = bootstrap_ci(scores, clusters=images, n_bootstrap=400, seed=int(rng.integers(1e9)))
        covered += r.overall.low <= truth <= r.overall.high
        est, se = r.overall.estimate, r.overall.se
        covered_se += est - 1.96 * se <= truth <= est + 1.96 * se
        naive = bootstrap_ci(scores, n_bootstrap=400, seed=int(rng.integers(1e9)))
        covered_naive += naive.overall.low <= truth <= naive.overall.high
    # tolerance: 3 binomial SEs of a 95% rate over 300 runs = 3 * sqrt(.95 * .05 / 300) = .038
    tol = 3 * math.sqrt(0.95 * 0.05 / runs)
    assert abs(covered / runs - 0.95) < tol
    assert abs(covered_se / runs - 0.95) < tol
    # ignoring the images (about 3 questions per image, strongly correlated) under-covers
    assert covered_naive / runs < 0.95 - tol


@pytest.mark.slow  # a Monte Carlo simulation (make test-slow)
def test_paired_test_size_and_coverage_under_the_null() -> None:
    rng = np.random.default_rng(7)
    runs = 300
    rejected = covered = rejected_naive = 0
    for _ in range(runs):
        _, diff, images = _dataset(rng, 150)
        zeros = [0.0] * len(diff)
        r = paired_test(diff, zeros, clusters=images, n_bootstrap=400, n_permutations=400)
        rejected += r.overall.p_value <= 0.05
        covered += r.overall.low <= 0.0 <= r.overall.high
        rejected_naive += sign_flip_test(diff, n_permutations=400) <= 0.05
    # tolerance: 3 binomial SEs of 5% over 300 runs = 3 * sqrt(.05 * .95 / 300) = .038
    tol = 3 * math.sqrt(0.05 * 0.95 / runs)
    assert abs(rejected / runs - 0.05) < tol
    assert abs(covered / runs - 0.95) < tol
    # flipping questions one by one ignores that a system's luck is shared within an image:
    # the test then rejects a true null far too often
    assert rejected_naive / runs > 0.05 + tol


@pytest.mark.slow  # a Monte Carlo simulation (make test-slow)
def test_paired_test_has_power_against_a_real_difference() -> None:
    rng = np.random.default_rng(8)
    rejected = 0
    for _ in range(40):
        _, diff, images = _dataset(rng, 300, shift=0.08)
        r = paired_test(diff, [0.0] * len(diff), clusters=images, n_bootstrap=200)
        rejected += r.overall.p_value <= 0.05 and r.overall.low > 0
    assert rejected >= 30


# ---------------------------------------------------------------------------------------------
# on evaluations and through `vqametrics vqa --ci`


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_vqa_ci_json(capsys: pytest.CaptureFixture[str], fixture_5q: object) -> None:
    import json
    from pathlib import Path

    base = Path(str(fixture_5q))
    args = ["vqa", "--annotations", str(base / "annotations.json")]
    args += ["--results", str(base / "results.json"), "--json"]
    code, out, _ = _run(capsys, *args, "--ci")
    assert code == 0
    payload = json.loads(out)
    assert payload["signature"].endswith("|bootstrap:1000|seed:12345|vqametrics:0.1.0")
    ci = payload["intervals"]["ci95"]
    assert list(ci) == ["overall", "answer_type", "question_type"]  # the breakdowns' names
    assert list(ci["question_type"]) == list(payload["breakdowns"]["question_type"])
    lo, hi = ci["overall"]
    assert lo <= payload["metrics"]["overall"] <= hi
    assert payload["intervals"]["bootstrap"]["resampled"] == "images"
    ev = evaluate_vqa(base / "annotations.json", base / "results.json")
    same = evaluation_ci(ev).ci95()  # the CLI is the library, the groups renamed
    names = {"answer_type": "perAnswerType", "question_type": "perQuestionType"}
    assert {names.get(k, k): v for k, v in ci.items()} == same
    # --seed and --bootstrap imply --ci and enter the signature
    code, out, _ = _run(capsys, *args, "--bootstrap", "200", "--seed", "7")
    assert json.loads(out)["signature"].endswith("|bootstrap:200|seed:7|vqametrics:0.1.0")
    again = json.loads(out)["intervals"]["ci95"]
    assert again["overall"] == evaluation_ci(ev, n_bootstrap=200, seed=7).ci95()["overall"]


def test_vqa_ci_table(capsys: pytest.CaptureFixture[str], fixture_5q: object) -> None:
    from pathlib import Path

    base = Path(str(fixture_5q))
    code, out, _ = _run(
        capsys,
        *("vqa", "--annotations", str(base / "annotations.json")),
        *("--results", str(base / "results.json"), "--ci"),
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["group", "n", "VQA", "acc", "95%", "lo", "95%", "hi", "SE"]
    # 98.0 overall; image bootstrap over 5 questions on 5 images, hand-checkable SE:
    # scores (1, 1, 1, .9, 1), one image each: sum of squares 4 * .02^2 + .08^2 = .008,
    # s^2 = .008 / 4 = .002, SE = sqrt(.002 / 5) = .02, i.e. 2.00 percentage points
    assert lines[2].split()[:2] == ["overall", "5"]
    assert lines[2].split()[-1] == "2.00"
    assert "percentile bootstrap over 5 images (1000 replicates, seed 12345)" in out
    assert lines[-1].endswith("|bootstrap:1000|seed:12345|vqametrics:0.1.0")


def test_vqa_ci_without_numpy(
    capsys: pytest.CaptureFixture[str], fixture_5q: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathlib import Path

    base = Path(str(fixture_5q))
    monkeypatch.setitem(sys.modules, "numpy", None)
    code, out, err = _run(
        capsys,
        *("vqa", "--annotations", str(base / "annotations.json")),
        *("--results", str(base / "results.json"), "--ci"),
    )
    assert (code, out) == (2, "")
    assert err.strip() == (
        "vqametrics: error: confidence intervals and paired tests need numpy, which is missing: "
        "pip install numpy"
    )


def test_vqa_ci_at_vqa_v2_scale_is_vectorized(monkeypatch: pytest.MonkeyPatch) -> None:
    """At VQA v2 val scale (214k questions, 40k images) the bootstrap works on (image, group)
    entries in a few matrix blocks, never question by question (``benchmarks/bench_guards.py``
    measures its time)."""
    import importlib

    stats = importlib.import_module("vqametrics.aggregate.stats")
    shapes: list[tuple[int, int]] = []
    column_sums = stats._column_sums

    def spy(weights: Any, values: Any, starts: Any) -> Any:
        shapes.append(weights.shape)
        return column_sums(weights, values, starts)

    monkeypatch.setattr(stats, "_column_sums", spy)
    rng = np.random.default_rng(0)
    n = 214_354
    scores = rng.choice([0.0, 0.3, 0.6, 0.9, 1.0], n).tolist()
    images = np.sort(rng.integers(0, 40_504, n)).tolist()
    atypes = rng.choice(["yes/no", "number", "other"], n).tolist()
    r = bootstrap_ci(scores, groups={"a": atypes}, clusters=images, n_bootstrap=100)
    widths = {w for _, w in shapes}
    assert len(widths) == 1  # one entry per (image, column): overall and 3 answer types
    assert widths.pop() <= 4 * len(set(images)) < 4 * n
    assert sum(rows for rows, _ in shapes) == 2 * 100  # numerator and denominator, each replicate
    assert len(shapes) <= 2 * 4  # in blocks, not one call per replicate
    assert r.overall.low < r.overall.estimate < r.overall.high
