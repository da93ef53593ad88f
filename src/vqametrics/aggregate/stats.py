r"""Confidence intervals and paired significance tests for any task's per-item scores.

Everything here re-aggregates the per-item scores that :func:`vqametrics.evaluate` (any task)
or :func:`vqametrics.evaluate_vqa` already computed, as sacreBLEU's ``significance.py``
re-aggregates sufficient statistics: no answer is ever normalized or scored again, so an
interval can never disagree with the score it brackets. An accuracy is the mean of per-item
scores; a breakdown (per answer type, per question type, per category) is the mean over the
items of that group.

**Clusters.** Questions about the same image are not independent (a model that misreads an image
tends to miss all its questions), so when image ids are known the *images* are the units that are
resampled, flipped and used in the standard error; otherwise each question is its own unit. An
accuracy is then a ratio estimator over clusters,

.. math::

    \hat\mu = \frac{\sum_g S_g}{\sum_g n_g},

where :math:`S_g` is the sum of the scores of the :math:`n_g` questions of cluster :math:`g`.

Three procedures, all vectorized with numpy and seeded with
``numpy.random.default_rng(seed)`` (default :data:`DEFAULT_SEED`, as in sacreBLEU):

* :func:`bootstrap_ci` — the cluster bootstrap, **percentile** interval: draw :math:`G` clusters
  with replacement, recompute every mean, take the 2.5th and 97.5th percentiles (numpy's linear
  interpolation) of the replicates. Percentile rather than basic or BCa because the replicates of
  a mean of bounded scores are close to symmetric at VQA sizes (so BCa's corrections are
  negligible), the percentile interval stays inside [0, 100] and is invariant to monotone
  transformations, and it is what sacreBLEU reports; its coverage is checked by simulation in
  ``tests/test_stats.py``.
* :func:`standard_error` — the analytic, cluster-robust standard error (see its docstring).
* :func:`paired_test` — for two systems on the same questions: the difference A − B, a *paired*
  bootstrap interval (the same resampled clusters for both systems) and a two-sided sign-flip
  permutation test of the per-question differences (flipped image by image when images are
  known), with the +1 correction of Phipson & Smyth (2010).

numpy (a dependency of vqametrics) is imported only when one of these functions runs; a broken
install without it raises :class:`MissingDependencyError` instead of a traceback.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from ..core.arguments import ArgumentTypeError, check
from ..core.exceptions import InputError, MissingDependencyError
from . import percent
from .defaults import DEFAULT_BOOTSTRAP, DEFAULT_PERMUTATIONS, DEFAULT_SEED

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from ..core.signature import Signature
    from ..profiles import Profile

    FloatArray = NDArray[np.float64]
    IntArray = NDArray[np.int64]

__all__ = [
    "DEFAULT_BOOTSTRAP",
    "DEFAULT_PERMUTATIONS",
    "DEFAULT_SEED",
    "BootstrapResult",
    "Difference",
    "Interval",
    "PairedResult",
    "ResultsDiff",
    "bootstrap_ci",
    "diff_results",
    "evaluation_ci",
    "evaluations_test",
    "paired_test",
    "require_numpy",
    "sign_flip_test",
    "standard_error",
]


class VQAColumns(Protocol):
    """What the functions here read of a :class:`vqametrics.readers.vqa.VQADataset` (a protocol:
    aggregation sits beside the readers, not above them)."""

    @property
    def question_ids(self) -> Sequence[Any]: ...
    @property
    def answers(self) -> Sequence[Sequence[str]]: ...
    @property
    def source(self) -> str: ...
    @property
    def question_types(self) -> Sequence[str | None]: ...
    @property
    def answer_types(self) -> Sequence[str | None]: ...
    @property
    def image_ids(self) -> Sequence[Hashable | None]: ...


class VQAEvaluation(Protocol):
    """What the functions here read of a :class:`vqametrics.pipeline.vqa.VQAEvaluation` (a
    protocol, so that ``evaluate`` may import this module for ``evaluate_vqa(ci=True)``)."""

    @property
    def scores(self) -> list[float]: ...
    @property
    def dataset(self) -> VQAColumns: ...
    @property
    def profile(self) -> Profile: ...
    @property
    def signature(self) -> Signature: ...
    def per_question(self) -> Iterator[dict[str, Any]]: ...


#: Largest number of float64 cells a working matrix may hold (64 MiB); replicates are processed
#: in row blocks of at most this size. Random numbers are drawn row by row, so the results do
#: not depend on the block size.
_BLOCK_CELLS = 1 << 23

Groups = Mapping[str, Sequence[str | None]]


def require_numpy() -> None:
    """Raise :class:`MissingDependencyError` unless numpy can be imported."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        raise MissingDependencyError(
            "confidence intervals and paired tests need numpy, which is missing: pip install numpy"
        ) from None


# ---------------------------------------------------------------------------------------------
# result objects


def _num(x: float) -> float | None:
    """JSON-friendly float: NaN (undefined) becomes None."""
    return None if math.isnan(x) else x


def _groups_as_dicts(groups: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """``{"perAnswerType": {type: result.as_dict()}, ...}``."""
    return {name: {k: v.as_dict() for k, v in group.items()} for name, group in groups.items()}


class _Spread:
    """What an interval and a difference share: the 95% bounds and the standard error."""

    low: float
    high: float
    se: float

    @property
    def ci95(self) -> tuple[float, float]:
        """``(low, high)``."""
        return (self.low, self.high)

    def as_dict(self) -> dict[str, Any]:
        """The fields in their order, the bounds as ``ci95``; NaN as None (JSON has no NaN)."""
        out: dict[str, Any] = {}
        # every subclass is a dataclass
        for f in fields(self):  # type: ignore[arg-type]
            if f.name == "low":
                out["ci95"] = [_num(self.low), _num(self.high)]
            elif f.name == "se":
                out["se"] = _num(self.se)
            elif f.name != "high":
                out[f.name] = getattr(self, f.name)
        return out


class _Replicates:
    """What a bootstrap and a paired result share: the replicates' settings."""

    overall: Interval | Difference
    #: the attributes :meth:`settings` lists, in order (the overall's clusters follow)
    _SETTINGS: ClassVar[tuple[str, ...]]

    def settings(self) -> dict[str, Any]:
        """How the intervals were made."""
        out = {name: getattr(self, name) for name in self._SETTINGS}
        return {**out, "clusters": self.overall.clusters}


@dataclass(frozen=True)
class Interval(_Spread):
    """One accuracy in percent with its bootstrap interval and analytic standard error.

    ``estimate`` is the unrounded accuracy, identical to the official one before rounding.
    ``se`` is NaN when the group has a single cluster (undefined).
    """

    estimate: float
    low: float
    high: float
    se: float
    n: int
    clusters: int

    def __repr__(self) -> str:
        return (
            f"Interval({self.estimate:.2f} [{self.low:.2f}, {self.high:.2f}], se {self.se:.2f}, "
            f"n={self.n})"
        )


class _AttrDict(dict[str, Any]):
    """A dict that returns itself when called: ``ci95`` and ``se`` became attributes, and the
    old method spelling ``ci95()`` keeps working."""

    def __call__(self) -> _AttrDict:
        return self


@dataclass(frozen=True)
class BootstrapResult(_Replicates):
    """Intervals for an overall accuracy and for each breakdown, from one set of replicates.

    ``groups`` maps a breakdown name (``"perAnswerType"``, ``"perQuestionType"``) to
    ``{key: Interval}``, keys in first-seen order, as in the official ``accuracy`` dict.
    """

    _SETTINGS = ("method", "n_bootstrap", "seed", "confidence", "resampled")

    overall: Interval
    groups: Mapping[str, Mapping[str, Interval]]
    n_bootstrap: int
    seed: int
    confidence: float
    #: the resampled unit: ``"images"`` (whole clusters) or ``"questions"``
    resampled: str
    method: str = "percentile"

    @property
    def ci95(self) -> _AttrDict:
        """``{"overall": [lo, hi], "perAnswerType": {key: [lo, hi]}, ...}`` in percent.

        An attribute, as ``overall``; calling it (``ci95()``, the old spelling) still works."""
        out = _AttrDict({"overall": [_num(self.overall.low), _num(self.overall.high)]})
        for name, group in self.groups.items():
            out[name] = {k: [_num(v.low), _num(v.high)] for k, v in group.items()}
        return out

    @property
    def se(self) -> _AttrDict:
        """The analytic standard errors in the same shape as :attr:`ci95` (callable too)."""
        out = _AttrDict({"overall": _num(self.overall.se)})
        for name, group in self.groups.items():
            out[name] = {k: _num(v.se) for k, v in group.items()}
        return out

    def __repr__(self) -> str:
        o = self.overall
        return (
            f"BootstrapResult(overall {o.estimate:.2f} [{o.low:.2f}, {o.high:.2f}], "
            f"{self.n_bootstrap} replicates over {self.resampled}, seed {self.seed})"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "overall": self.overall.as_dict(),
            **_groups_as_dicts(self.groups),
            "bootstrap": self.settings(),
        }


@dataclass(frozen=True)
class Difference(_Spread):
    """A difference of accuracies A − B in percent, with its paired interval and p-value."""

    delta: float
    low: float
    high: float
    se: float
    p_value: float
    n: int
    clusters: int
    #: questions whose score differs between A and B
    n_differ: int

    def __repr__(self) -> str:
        return (
            f"Difference(A − B = {self.delta:+.2f} [{self.low:+.2f}, {self.high:+.2f}], "
            f"p={self.p_value:.4g}, n={self.n})"
        )


@dataclass(frozen=True)
class PairedResult(_Replicates):
    """The paired comparison of two systems: overall and per breakdown."""

    _SETTINGS = (
        "method",
        "n_bootstrap",
        "n_permutations",
        "permutation",
        "seed",
        "confidence",
        "resampled",
    )

    overall: Difference
    groups: Mapping[str, Mapping[str, Difference]]
    n_bootstrap: int
    n_permutations: int
    seed: int
    confidence: float
    resampled: str
    #: ``"exact"`` (all 2^G sign patterns enumerated) or ``"monte-carlo"``
    permutation: str
    method: str = "percentile"

    def __repr__(self) -> str:
        return f"PairedResult({self.overall!r}, {self.n_bootstrap} replicates, seed {self.seed})"

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.overall.as_dict(),
            **_groups_as_dicts(self.groups),
            "bootstrap": self.settings(),
        }


# ---------------------------------------------------------------------------------------------
# input checks and layout


def _check(
    func: str,
    scores: Sequence[float],
    groups: Groups | None,
    clusters: Sequence[Hashable | None] | None,
    n_resamples: Mapping[str, int],
    confidence: float,
    seed: int,
) -> None:
    check(func, "scores", scores, "reals")
    n = len(scores)
    if n == 0:
        raise InputError(f"{func}: scores must not be empty")
    check(func, "groups", groups, "mapping", optional=True)
    for name, keys in (groups or {}).items():
        check(func, f"groups[{name!r}]", keys, "sequence")
        if len(keys) != n:
            raise InputError(
                f"{func}: groups[{name!r}] has {len(keys)} keys but there are {n} scores"
            )
    check(func, "clusters", clusters, "sequence", optional=True)
    if clusters is not None and len(clusters) != n:
        raise InputError(f"{func}: clusters has {len(clusters)} ids but there are {n} scores")
    for name, value in n_resamples.items():
        check(func, name, value, "int")
        if value < 1:
            raise InputError(f"{func}: {name} must be a positive integer, got {value!r}")
    check(func, "seed", seed, "int", minimum=0)
    check(func, "confidence", confidence, "real")
    if not 0 < confidence < 1:
        raise InputError(f"{func}: confidence must be in (0, 1), got {confidence!r}")


def _codes(keys: Sequence[Hashable | None]) -> tuple[list[int], list[Hashable]]:
    """Integer codes in first-seen order; ``None`` gets -1."""
    index: dict[Hashable, int] = {}
    codes = []
    for k in keys:
        if k is None:
            codes.append(-1)
        else:
            code = index.get(k)
            if code is None:
                code = index[k] = len(index)
            codes.append(code)
    return codes, list(index)


@dataclass(frozen=True)
class _Layout:
    """Columns (overall + every group) as sparse (cluster, column) entries, sorted by column.

    Entry ``e`` says: cluster ``cluster[e]`` holds ``count[e]`` questions of column ``col``, whose
    values sum to ``total[e]``; column ``j``'s entries are ``starts[j]:starts[j + 1]``.
    """

    n_clusters: int
    resampled: str
    columns: list[tuple[str | None, str]]  # (breakdown name or None for overall, key)
    #: breakdown names, in order, including those without any key
    families: list[str]
    cluster: IntArray
    count: FloatArray
    starts: IntArray
    #: per column: its questions, for the exact point estimates
    members: list[list[int]] = field(repr=False)
    #: for each (question, column) membership: the question and its entry
    question: IntArray = field(repr=False)
    inverse: IntArray = field(repr=False)

    def sums(self, values: FloatArray) -> FloatArray:
        """Per-entry sums of *values* (one value per question), aligned with ``count``."""
        import numpy as np

        out = np.bincount(self.inverse, weights=values[self.question], minlength=len(self.cluster))
        return out.astype(np.float64, copy=False)


def _layout(n: int, groups: Groups | None, clusters: Sequence[Hashable | None] | None) -> _Layout:
    import numpy as np

    if clusters is not None and any(c is not None for c in clusters):
        codes, _ = _codes(clusters)
        nxt = max(codes) + 1
        for i, c in enumerate(codes):  # a question without an image is its own cluster
            if c < 0:
                codes[i] = nxt
                nxt += 1
        cl = np.asarray(codes, dtype=np.int64)
        n_clusters = nxt
        resampled = "images"
    else:
        cl = np.arange(n, dtype=np.int64)
        n_clusters = n
        resampled = "questions"

    columns: list[tuple[str | None, str]] = [(None, "overall")]
    members: list[list[int]] = [list(range(n))]
    # per column block: question indices and column index, to build entries
    q_parts = [np.arange(n, dtype=np.int64)]
    col_parts = [np.zeros(n, dtype=np.int64)]
    for name, keys in (groups or {}).items():
        gcodes, names = _codes(keys)
        if not names:  # e.g. no answer types at all: an empty breakdown
            continue
        base = len(columns)
        columns.extend((name, str(k)) for k in names)
        mem: list[list[int]] = [[] for _ in names]
        for i, c in enumerate(gcodes):
            if c >= 0:
                mem[c].append(i)
        members.extend(mem)
        arr = np.asarray(gcodes, dtype=np.int64)
        valid = np.flatnonzero(arr >= 0)
        q_parts.append(valid)
        col_parts.append(arr[valid] + base)
    question = np.concatenate(q_parts)
    col = np.concatenate(col_parts)
    key = col * n_clusters + cl[question]
    ukey, inverse = np.unique(key, return_inverse=True)
    inverse = inverse.reshape(-1)
    ucol = ukey // n_clusters
    starts = np.searchsorted(ucol, np.arange(len(columns) + 1)).astype(np.int64)
    return _Layout(
        n_clusters=n_clusters,
        resampled=resampled,
        columns=columns,
        families=list(groups or {}),
        cluster=(ukey % n_clusters).astype(np.int64),
        count=np.bincount(inverse, minlength=len(ukey)).astype(np.float64),
        starts=starts,
        members=members,
        question=question,
        inverse=inverse,
    )


def _column_sums(weights: FloatArray, values: FloatArray, starts: IntArray) -> FloatArray:
    """``out[:, j] = sum(weights[:, e] * values[e] for e in column j)`` for a block of rows."""
    import numpy as np

    out: FloatArray = np.add.reduceat(weights * values, starts[:-1], axis=1)
    return out


def _row_block(n_rows: int, width: int) -> int:
    return max(1, min(n_rows, _BLOCK_CELLS // max(1, width)))


def _bootstrap_means(layout: _Layout, sums: FloatArray, n_bootstrap: int, seed: int) -> FloatArray:
    """``n_bootstrap × n_columns`` replicate means (NaN where a group drew no question)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    g = layout.n_clusters
    out = np.empty((n_bootstrap, len(layout.columns)))
    block = _row_block(n_bootstrap, max(g, len(layout.cluster)))
    for start in range(0, n_bootstrap, block):
        rows = min(block, n_bootstrap - start)
        weights = np.empty((rows, g))
        for r in range(rows):  # one draw per row: the stream does not depend on the block
            weights[r] = np.bincount(rng.integers(0, g, size=g), minlength=g)
        w = np.take(weights, layout.cluster, axis=1)  # faster than weights[:, cluster]
        num = _column_sums(w, sums, layout.starts)
        den = _column_sums(w, layout.count, layout.starts)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start : start + rows] = num / den
    return out


def _percentile_interval(
    replicates: FloatArray, confidence: float
) -> tuple[FloatArray, FloatArray]:
    import numpy as np

    alpha = 100 * (1 - confidence) / 2
    q = [alpha, 100 - alpha]
    ok = ~np.isnan(replicates)
    lo = np.full(replicates.shape[1], np.nan)
    hi = np.full(replicates.shape[1], np.nan)
    full = ok.all(axis=0)
    if full.any():
        lo[full], hi[full] = np.percentile(replicates[:, full], q, axis=0)
    for j in np.flatnonzero(~full & ok.any(axis=0)):
        lo[j], hi[j] = np.percentile(replicates[ok[:, j], j], q)
    return lo, hi


def _cluster_se(layout: _Layout, sums: FloatArray) -> tuple[FloatArray, IntArray]:
    """Per column: the cluster-robust SE of the mean (as a fraction) and the cluster count."""
    import numpy as np

    starts = layout.starts
    n_g = np.add.reduceat(layout.count, starts[:-1])
    s_g = np.add.reduceat(sums, starts[:-1])
    mean = s_g / n_g
    sizes = np.diff(starts)
    resid = sums - layout.count * np.repeat(mean, sizes)
    ss = np.add.reduceat(resid * resid, starts[:-1])
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.where(sizes > 1, sizes / np.maximum(sizes - 1, 1) * ss / (n_g * n_g), np.nan)
    se: FloatArray = np.sqrt(var)
    return se, sizes.astype(np.int64)


def _exact_means(values: Sequence[float], members: list[list[int]]) -> list[float]:
    """Unrounded percentages exactly as :func:`vqametrics.aggregate.percent` computes them."""
    return [percent([values[i] for i in m], None) for m in members]


# ---------------------------------------------------------------------------------------------
# public functions on score arrays


def standard_error(
    scores: Sequence[float], clusters: Sequence[Hashable | None] | None = None
) -> float:
    r"""The analytic standard error of an accuracy, in percent, cluster-robust.

    .. math::

        \widehat{\mathrm{SE}}(\hat\mu) = 100\,\sqrt{\frac{G}{G-1}\,
            \frac{\sum_{g=1}^{G} \left(S_g - n_g\,\hat\mu\right)^2}{N^2}},
        \qquad \hat\mu = \frac{\sum_g S_g}{N},\quad N = \sum_g n_g,

    the linearization (sandwich, CR1-style) variance of the ratio estimator, where :math:`G` is
    the number of clusters (images) and :math:`S_g`, :math:`n_g` the score sum and question count
    of cluster :math:`g`. Without clusters every question is its own (:math:`n_g = 1`) and this
    is the textbook :math:`\sqrt{s^2/N}` with the sample variance :math:`s^2` (ddof 1). For a
    breakdown the same formula runs over the questions of the group and the clusters that hold
    them.

    Parameters
    ----------
    scores : sequence of float
        Per-question scores (fractions, as in :attr:`VQAEvaluation.scores`).
    clusters : sequence of hashable, optional
        Image id per question; ``None`` entries (or no clusters) make questions independent.

    Returns
    -------
    float
        The standard error in percentage points; NaN with a single cluster.
    """
    _check("standard_error", scores, None, clusters, {}, 0.95, 0)
    require_numpy()
    import numpy as np

    layout = _layout(len(scores), None, clusters)
    se, _ = _cluster_se(layout, layout.sums(np.asarray(scores, dtype=np.float64)))
    return float(100 * se[0])


def bootstrap_ci(
    scores: Sequence[float],
    *,
    groups: Groups | None = None,
    clusters: Sequence[Hashable | None] | None = None,
    n_bootstrap: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> BootstrapResult:
    """Percentile cluster-bootstrap intervals for an accuracy and its breakdowns.

    Each replicate draws as many clusters as there are, with replacement, and recomputes the
    overall mean and every group mean from the drawn clusters (a group absent from a replicate
    gives no value for it; its interval uses the others). All groups share the replicates.

    Parameters
    ----------
    scores : sequence of float
        Per-question scores in [0, 1] (:attr:`VQAEvaluation.scores`).
    groups : mapping of str to sequence of (str or None), optional
        Breakdowns, e.g. ``{"perAnswerType": answer_types, "perQuestionType": question_types}``;
        a ``None`` key leaves that question out of that breakdown.
    clusters : sequence of hashable, optional
        Image id per question; whole images are resampled when given.
    n_bootstrap : int, default=1000
    seed : int, default=DEFAULT_SEED (12345)
    confidence : float, default=0.95

    Returns
    -------
    BootstrapResult
        Estimates, intervals and standard errors in percent (estimates unrounded, equal to the
        official values before rounding).

    Examples
    --------
    >>> r = bootstrap_ci([1.0, 0.0, 1.0, 0.6], n_bootstrap=200, seed=1)
    >>> r.overall.estimate, r.resampled
    (65.0, 'questions')
    """
    _check("bootstrap_ci", scores, groups, clusters, {"n_bootstrap": n_bootstrap}, confidence, seed)
    require_numpy()
    import numpy as np

    layout = _layout(len(scores), groups, clusters)
    sums = layout.sums(np.asarray(scores, dtype=np.float64))
    reps = _bootstrap_means(layout, sums, n_bootstrap, seed)
    lo, hi = _percentile_interval(reps, confidence)
    se, n_cl = _cluster_se(layout, sums)
    est = _exact_means(scores, layout.members)
    intervals = [
        Interval(
            estimate=est[j],
            low=float(100 * lo[j]),
            high=float(100 * hi[j]),
            se=float(100 * se[j]),
            n=len(layout.members[j]),
            clusters=int(n_cl[j]),
        )
        for j in range(len(layout.columns))
    ]
    return BootstrapResult(
        overall=intervals[0],
        groups=_nest(layout, intervals),
        n_bootstrap=n_bootstrap,
        seed=seed,
        confidence=confidence,
        resampled=layout.resampled,
    )


def _nest(layout: _Layout, items: Sequence[Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {name: {} for name in layout.families}
    for (name, key), item in zip(layout.columns[1:], items[1:], strict=True):
        assert name is not None
        out.setdefault(name, {})[key] = item
    return out


def _sign_flip_counts(
    layout: _Layout, sums: FloatArray, n_permutations: int, seed: int
) -> tuple[FloatArray, int, str]:
    """Per column: how many sign patterns give |T| >= |T_obs|, the number of patterns, method.

    Only clusters with a nonzero per-column difference matter (flipping a zero changes nothing),
    so they alone are flipped. When ``2**G`` such clusters is at most *n_permutations*, every
    pattern is enumerated (exact); otherwise *n_permutations* random patterns are drawn.
    """
    import numpy as np

    keep = sums != 0
    cluster = layout.cluster[keep]
    vals = sums[keep]
    cols = np.repeat(np.arange(len(layout.columns)), np.diff(layout.starts))[keep]
    starts = np.searchsorted(cols, np.arange(len(layout.columns) + 1)).astype(np.int64)
    used, cluster = np.unique(cluster, return_inverse=True)
    cluster = cluster.reshape(-1)
    g = len(used)
    ncol = len(layout.columns)
    total = np.zeros(ncol)
    absum = np.zeros(ncol)
    nonempty = np.diff(starts) > 0
    if vals.size:
        total[nonempty] = np.add.reduceat(vals, starts[:-1][nonempty])
        absum[nonempty] = np.add.reduceat(np.abs(vals), starts[:-1][nonempty])
    observed = np.abs(total)
    # sums of a few thousand floats carry rounding error: ties are equal within this tolerance
    tol = 1e-9 * np.maximum(absum, 1.0)

    def count(bits: NDArray[np.uint8]) -> FloatArray:
        flipped = np.zeros((bits.shape[0], ncol))
        if vals.size:
            picked = np.take(bits, cluster, axis=1)
            part = np.add.reduceat(picked * vals, starts[:-1][nonempty], axis=1)
            flipped[:, nonempty] = part
        stat = np.abs(total - 2 * flipped)
        hits: FloatArray = (stat >= observed - tol).sum(axis=0).astype(np.float64)
        return hits

    if g < 63 and (1 << g) <= n_permutations:
        patterns = 1 << g
        hits = np.zeros(ncol)
        block = _row_block(patterns, max(g, vals.size))
        for start in range(0, patterns, block):
            idx = np.arange(start, min(patterns, start + block), dtype=np.int64)
            bits = ((idx[:, None] >> np.arange(g, dtype=np.int64)) & 1).astype(np.uint8)
            hits += count(bits)
        return hits, patterns, "exact"
    rng = np.random.default_rng(seed)
    hits = np.zeros(ncol)
    nbytes = (g + 7) // 8
    block = _row_block(n_permutations, max(g, vals.size))
    for start in range(0, n_permutations, block):
        rows = min(block, n_permutations - start)
        raw = np.empty((rows, nbytes), dtype=np.uint8)
        for r in range(rows):  # one draw per row: the stream does not depend on the block
            raw[r] = rng.integers(0, 256, size=nbytes, dtype=np.uint8)
        hits += count(np.unpackbits(raw, axis=1, count=g))
    # +1: the observed pattern counts as one of the permutations (Phipson & Smyth 2010)
    return hits + 1, n_permutations + 1, "monte-carlo"


def sign_flip_test(
    differences: Sequence[float],
    *,
    clusters: Sequence[Hashable | None] | None = None,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = DEFAULT_SEED,
) -> float:
    r"""Two-sided paired permutation p-value for the mean of per-question differences.

    Under the null hypothesis that A and B are exchangeable on every question (on every image,
    when *clusters* are given), the sign of each difference :math:`d_i = a_i - b_i` (of each
    image's sum of differences) is equally likely to be + or −. The statistic is
    :math:`T = |\sum_i d_i|`; the p-value is the share of sign patterns with :math:`|T_b| \ge T`:

    .. math::

        p = \frac{1 + \#\{b : T_b \ge T\}}{1 + B}

    over :math:`B` random patterns (the +1 counts the observed one), or exactly
    :math:`\#\{b : T_b \ge T\} / 2^G` over all :math:`2^G` patterns when that is at most
    *n_permutations*. Only units with a nonzero difference are flipped, so :math:`p = 1` exactly
    when all differences are 0.

    Returns
    -------
    float
        The p-value, in (0, 1].
    """
    _check(
        "sign_flip_test",
        differences,
        None,
        clusters,
        {"n_permutations": n_permutations},
        0.95,
        seed,
    )
    require_numpy()
    import numpy as np

    layout = _layout(len(differences), None, clusters)
    sums = layout.sums(np.asarray(differences, dtype=np.float64))
    hits, patterns, _ = _sign_flip_counts(layout, sums, n_permutations, seed)
    return float(hits[0] / patterns)


def paired_test(
    scores_a: Sequence[float],
    scores_b: Sequence[float],
    *,
    groups: Groups | None = None,
    clusters: Sequence[Hashable | None] | None = None,
    n_bootstrap: int = DEFAULT_BOOTSTRAP,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> PairedResult:
    """Compare two systems scored on the same questions: A − B with interval and p-value.

    * ``delta``: the difference of the two unrounded accuracies, in percent, computed as the
      official aggregation does (so it is exactly ``score_a - score_b``).
    * ``ci95``: the paired percentile bootstrap — each replicate resamples the same clusters
      for both systems and recomputes the difference of means.
    * ``se``: the cluster-robust analytic SE (:func:`standard_error`) of the mean difference.
    * ``p_value``: the sign-flip permutation test of :func:`sign_flip_test`, per column with
      the same sign patterns (the per-group p-values are not corrected for multiplicity).

    The bootstrap and the permutations each start a fresh ``default_rng(seed)``, so either
    result does not depend on how many replicates the other used.

    Parameters
    ----------
    scores_a, scores_b : sequence of float
        Per-question scores of the two systems, aligned question by question.
    groups, clusters, n_bootstrap, seed, confidence
        As in :func:`bootstrap_ci`.
    n_permutations : int, default=10000

    Examples
    --------
    >>> r = paired_test([1.0, 0.3, 0.0], [1.0, 0.3, 0.0])
    >>> r.overall.delta, r.overall.p_value
    (0.0, 1.0)
    """
    _check(
        "paired_test",
        scores_a,
        groups,
        clusters,
        {"n_bootstrap": n_bootstrap, "n_permutations": n_permutations},
        confidence,
        seed,
    )
    check("paired_test", "scores_b", scores_b, "reals")
    if len(scores_b) != len(scores_a):
        raise InputError(
            f"paired_test: scores_b has {len(scores_b)} values but scores_a has {len(scores_a)}"
        )
    require_numpy()
    import numpy as np

    a = np.asarray(scores_a, dtype=np.float64)
    b = np.asarray(scores_b, dtype=np.float64)
    layout = _layout(len(a), groups, clusters)
    diff = layout.sums(a - b)
    reps = _bootstrap_means(layout, diff, n_bootstrap, seed)
    lo, hi = _percentile_interval(reps, confidence)
    se, n_cl = _cluster_se(layout, diff)
    hits, patterns, how = _sign_flip_counts(layout, diff, n_permutations, seed)
    est_a = _exact_means(scores_a, layout.members)
    est_b = _exact_means(scores_b, layout.members)
    differ = a != b
    items = [
        Difference(
            delta=est_a[j] - est_b[j],
            low=float(100 * lo[j]),
            high=float(100 * hi[j]),
            se=float(100 * se[j]),
            p_value=float(hits[j] / patterns),
            n=len(m),
            clusters=int(n_cl[j]),
            n_differ=int(differ[m].sum()),
        )
        for j, m in enumerate(layout.members)
    ]
    return PairedResult(
        overall=items[0],
        groups=_nest(layout, items),
        n_bootstrap=n_bootstrap,
        n_permutations=n_permutations,
        seed=seed,
        confidence=confidence,
        resampled=layout.resampled,
        permutation=how,
    )


# ---------------------------------------------------------------------------------------------
# on evaluations


class _Scored:
    """What the functions below read of an evaluation, for a VQA v2 ``VQAEvaluation`` (its
    official breakdown names) and for any task's ``TaskEvaluation`` (its breakdowns' names,
    grouped by the item fields of the same name; clusters are the ``image_id``/``image``
    field)."""

    def __init__(self, result: Any) -> None:
        self.result = result
        self.scores: Sequence[float] = result.scores
        self.task = getattr(result, "task", None)
        if self.task is None:  # a VQAEvaluation
            d = result.dataset
            self.ids: Sequence[Any] = d.question_ids
            self.references: Sequence[Sequence[str]] = d.answers
            self.source: str = d.source
            self.groups: dict[str, Sequence[str | None]] = {
                "perAnswerType": d.answer_types,
                "perQuestionType": d.question_types,
            }
            images: Sequence[Hashable | None] = d.image_ids
        else:
            items = result.data.items
            self.ids = [it.id for it in items]
            self.references = [it.references for it in items]
            self.source = ", ".join(result.data.sources) or result.task.name
            self.groups = {}
            for name in result.aggregate.breakdowns:
                column = [it.fields.get(name) for it in items]
                if any(v is not None for v in column):
                    self.groups[name] = [None if v is None else str(v) for v in column]
            key = next((k for k in ("image_id", "image") if items and k in items[0].fields), "")
            images = [it.fields.get(key) for it in items] if key else [None] * len(items)
        self.clusters = images if any(i is not None for i in images) else None

    def records(self) -> Iterator[dict[str, Any]]:
        if self.task is None:
            yield from self.result.per_question()
            return
        for rec in self.result.per_item():
            yield {"question_id": rec["id"], **rec}


def _scored(result: Any, where: str = "evaluation_ci", name: str = "result") -> _Scored:
    if isinstance(result, _Scored):
        return result
    # an evaluation is what evaluate() or evaluate_vqa() returned: anything else is named here
    # rather than failing on a missing attribute deep inside
    if not hasattr(result, "scores") or not (hasattr(result, "data") or hasattr(result, "dataset")):
        raise ArgumentTypeError(
            f"{where}: {name} must be an evaluation (what evaluate() returns), "
            f"got {type(result).__name__}"
        )
    return _Scored(result)


def _breakdowns(result: Any) -> dict[str, Sequence[str | None]]:
    return _scored(result).groups


def _images(result: Any) -> Sequence[Hashable | None] | None:
    return _scored(result).clusters


def evaluation_ci(
    result: Any,
    *,
    n_bootstrap: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> BootstrapResult:
    """:func:`bootstrap_ci` on an evaluation of any task (a ``TaskEvaluation``, or VQA v2's
    ``VQAEvaluation``): its per-item scores, its breakdowns and, when known, its images.

    The interval is of the mean per-item score, in percent; for a task whose headline is not
    that mean (POPE's F1, MME's points) it brackets the mean item score, not the headline.
    """
    view = _scored(result)
    return bootstrap_ci(
        view.scores,
        groups=view.groups,
        clusters=view.clusters,
        n_bootstrap=n_bootstrap,
        seed=seed,
        confidence=confidence,
    )


@dataclass(frozen=True)
class ResultsDiff:
    """:func:`diff_results`: the paired test plus the questions whose score changed."""

    test: PairedResult
    #: unrounded overall accuracies in percent
    score_a: float
    score_b: float
    #: one record per question whose score differs, largest ``|score_a - score_b|`` first
    flips: tuple[dict[str, Any], ...]
    signature: Signature

    def __repr__(self) -> str:
        o = self.test.overall
        return (
            f"ResultsDiff(A {self.score_a:.2f} − B {self.score_b:.2f} = {o.delta:+.2f} "
            f"[{o.low:+.2f}, {o.high:+.2f}], p={o.p_value:.4g}, {len(self.flips)} changed)"
        )

    def as_dict(self) -> dict[str, Any]:
        """The ``diff --json`` payload."""
        out = self.test.as_dict()
        return {
            "delta": out.pop("delta"),
            "ci95": out.pop("ci95"),
            "p_value": out.pop("p_value"),
            "se": out.pop("se"),
            "score_a": self.score_a,
            "score_b": self.score_b,
            **out,
            "signature": self.signature.format(),
            "flipped": list(self.flips),
        }


def _flips(a: _Scored, b: _Scored) -> Iterator[tuple[int, dict[str, Any]]]:
    for i, (ra, rb) in enumerate(zip(a.records(), b.records(), strict=True)):
        if ra["score"] == rb["score"]:
            continue
        rec = {
            "question_id": ra["question_id"],
            "difference": ra["score"] - rb["score"],
            "score_a": ra["score"],
            "score_b": rb["score"],
            "prediction_a": ra["prediction"],
            "prediction_b": rb["prediction"],
            "normalized_a": ra.get("normalized_prediction", ra.get("normalized")),
            "normalized_b": rb.get("normalized_prediction", rb.get("normalized")),
            "matches_a": ra.get("m", 0),
            "matches_b": rb.get("m", 0),
            "answers": list(a.references[i]),
        }
        if a.task is None:
            d = a.result.dataset
            rec.update(
                question_type=d.question_types[i],
                answer_type=d.answer_types[i],
                image_id=d.image_ids[i],
            )
        else:
            rec.update({k: ra[k] for k in a.groups if k in ra})
        yield i, rec


def evaluations_test(
    a: Any,
    b: Any,
    *,
    n_bootstrap: int = DEFAULT_BOOTSTRAP,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> PairedResult:
    """:func:`paired_test` of two evaluations (``TaskEvaluation`` of any task, or
    ``VQAEvaluation``) of the same annotations (A − B), with their breakdowns, resampling and
    flipping whole images when the annotations have image ids.

    Raises
    ------
    InputError
        The evaluations do not cover the same questions, or were scored with different profiles.
    """
    va, vb = _scored(a, "diff_results", "a"), _scored(b, "diff_results", "b")
    if list(va.ids) != list(vb.ids):
        only_a = set(va.ids) - set(vb.ids)
        only_b = set(vb.ids) - set(va.ids)
        what = (
            f"question {next(iter(only_a))!r} is only in A"
            if only_a
            else f"question {next(iter(only_b))!r} is only in B"
            if only_b
            else "the questions are in a different order"
        )
        raise InputError(
            f"{va.source} / {vb.source}: the two evaluations must cover the same "
            f"annotations ({len(va.ids)} vs {len(vb.ids)} questions; {what})"
        )
    for qid, x, y in zip(va.ids, va.references, vb.references, strict=True):
        if tuple(x) != tuple(y):
            raise InputError(
                f"{va.source} / {vb.source}: question {qid!r} has different "
                "human answers in the two evaluations"
            )
    if va.task is not None and vb.task is not None and va.task.name != vb.task.name:
        raise InputError(
            f"the two evaluations are of different tasks ({va.task.name!r} vs "
            f"{vb.task.name!r}); compare results of the same task"
        )
    if a.profile.name != b.profile.name:
        raise InputError(
            f"the two evaluations use different profiles ({a.profile.name!r} vs "
            f"{b.profile.name!r}); compare results scored with the same profile"
        )
    return paired_test(
        va.scores,
        vb.scores,
        groups=va.groups,
        clusters=va.clusters,
        n_bootstrap=n_bootstrap,
        n_permutations=n_permutations,
        seed=seed,
        confidence=confidence,
    )


def diff_results(
    a: Any,
    b: Any,
    *,
    n_bootstrap: int = DEFAULT_BOOTSTRAP,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> ResultsDiff:
    """Paired comparison of two evaluations of the same annotations (A − B).

    Runs :func:`paired_test` on the per-question scores with the answer-type and question-type
    breakdowns, resampling images when the annotations have image ids, and lists the questions
    whose score differs with both predictions and the human answers.

    Raises
    ------
    InputError
        The evaluations do not cover the same questions, or were scored with different profiles.
    """
    test = evaluations_test(
        a,
        b,
        n_bootstrap=n_bootstrap,
        n_permutations=n_permutations,
        seed=seed,
        confidence=confidence,
    )
    flips = sorted(_flips(_scored(a), _scored(b)), key=lambda t: (-abs(t[1]["difference"]), t[0]))
    return ResultsDiff(
        test=test,
        score_a=percent(a.scores, None),
        score_b=percent(b.scores, None),
        flips=tuple(rec for _, rec in flips),
        signature=a.signature.with_fields(
            bootstrap=n_bootstrap, permutations=n_permutations, seed=seed
        ),
    )
