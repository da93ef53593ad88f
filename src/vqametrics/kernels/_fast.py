"""The vectorized scorer: the same per-question scores as the per-question loop, in bulk.

Design (every output bit-identical to :func:`vqametrics.kernels.vqa.score_normalized` applied
question by question; ``tests/test_differential.py`` checks it against a literal port):

1. **Intern.** Each distinct answer string and each distinct prediction gets an integer code
   once; a question's answers become a row of 10 codes (:class:`AnswerCodes`).
2. **Normalize each distinct string once.** The profile's unconditional steps, then its
   conditional ones, run once per distinct string; every result is interned into one string
   table, so equal normalized strings have equal ids whichever side they come from.
3. **Compare as integers.** The unanimity rule compares the 10 prepared ids of a row; a row's
   10 matches form a bitmask (bit *i* = answer *i*).
4. **Look the score up.** Given 10 answer records that all differ, a question's score depends
   on nothing but that bitmask, so the profile's own per-question function is run once for
   each of the 1024 masks (:func:`mask_tables`): bit-exact by construction, including the
   position-dependent last bits of the naive mean (spec official-vqa-eval.md §4).

Questions outside that shape (not 10 answers, or records without distinct ``answer_id`` under
the official record-inequality leave-one-out) go through the per-question loop. numpy is
imported lazily: ``import vqametrics`` stays light.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core.answers import N_ANSWERS, AnswerCodes, answer_codes, intern_strings
from ..profiles import Profile, Step

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    IntArray = npt.NDArray[np.int64]
    BoolArray = npt.NDArray[np.bool_]
    FloatArray = npt.NDArray[np.float64]

__all__ = [
    "AnswerCodes",
    "AnswerTracer",
    "FastScores",
    "answer_codes",
    "have_numpy",
    "mask_tables",
    "score_fast",
    "unique_inverse",
]

#: Below this many questions the per-question loop is as fast (and numpy is not imported).
MIN_QUESTIONS = 2000


def have_numpy() -> bool:
    try:
        import numpy  # noqa: F401
    except ImportError:  # pragma: no cover - numpy is optional
        return False
    return True


def unique_inverse(values: IntArray) -> tuple[IntArray, IntArray]:
    """``numpy.unique(values, return_inverse=True)`` of non-negative integer codes (sorted
    distinct values, and each value's index among them), with the inverse flat.

    Codes packed from a few small columns (step bitmasks, types) span a small range; there a
    table of the values present takes one pass instead of ``unique``'s sort (about 1 ms instead
    of 20 ms at 214k rows). A wide range is left to ``unique``.
    """
    import numpy as np

    if len(values) and int(values.min()) >= 0 and int(values.max()) < 4 * len(values) + 1024:
        present = np.zeros(int(values.max()) + 1, dtype=np.bool_)
        present[values] = True
        rank = np.cumsum(present, dtype=np.int64) - 1
        return np.flatnonzero(present), rank[values]
    distinct, inverse = np.unique(values, return_inverse=True)
    return distinct, inverse.reshape(-1)


@dataclass(frozen=True)
class MaskTables:
    """Per-mask results of a profile on 10 distinct records (index: the match bitmask)."""

    scores: FloatArray
    scores_list: list[float]
    loo: list[list[float]]
    m: list[int]


_TABLES: dict[tuple[Any, ...], MaskTables] = {}


def mask_tables(profile: Profile) -> MaskTables:
    """Run the profile's own per-question scorer once per bitmask of 10 distinct records."""
    from .vqa import leave_one_out_values, score_normalized

    key = (profile.leave_one_out, profile.mean)
    hit = _TABLES.get(key)
    if hit is not None:
        return hit
    import numpy as np

    scores: list[float] = []
    loo: list[list[float]] = []
    ms: list[int] = []
    for mask in range(1 << N_ANSWERS):
        matches = [bool(mask >> i & 1) for i in range(N_ANSWERS)]
        answers = ["match" if hit else "other" for hit in matches]
        scores.append(score_normalized("match", answers, None, profile))
        ms.append(sum(matches))
        if profile.leave_one_out == "none":
            loo.append([])
        else:
            loo.append(leave_one_out_values(matches, None, profile.leave_one_out))
    tables = MaskTables(np.array(scores, dtype=np.float64), scores, loo, ms)
    _TABLES[key] = tables
    return tables


@dataclass(frozen=True, eq=False)
class FastScores:
    """What the vectorized pass found, kept for the per-question report."""

    #: unrounded scores, as Python floats
    scores: list[float]
    #: rows done in bulk; the others were scored one by one
    vector_rows: BoolArray
    #: per row: the unanimity rule skipped the conditional steps
    unanimous: BoolArray
    #: per row: bitmask of matching answers (bulk rows)
    mask: IntArray
    #: per row: id of the normalized prediction in ``strings`` (-1: no prediction)
    prediction: IntArray
    #: per row: ids of the normalized answers in ``strings`` (bulk rows)
    answers: IntArray
    #: the interned normalized strings
    strings: list[str]
    tables: MaskTables
    #: per row: code of the raw prediction in ``raw_predictions``
    raw_prediction: IntArray
    raw_predictions: list[str]
    #: step name -> bit, and per distinct raw answer/prediction the bits of the steps that
    #: changed it, ``(conditional steps skipped, all steps)``
    step_bits: dict[str, int]
    answer_bits: tuple[IntArray, IntArray]
    prediction_bits: tuple[IntArray, IntArray]
    #: rows per question/answer type, computed once per evaluation
    groups: dict[int, Any] = field(default_factory=dict)
    #: other results computed once per evaluation (the report's ``steps_changed``)
    memo: dict[str, Any] = field(default_factory=dict)

    def slow_rows(self) -> list[int]:
        """Rows left to the per-question loop."""
        import numpy as np

        return np.flatnonzero(~self.vector_rows).tolist()  # type: ignore[no-any-return]


class _Interner:
    __slots__ = ("ids", "strings")

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.strings: list[str] = []

    def __call__(self, text: str) -> int:
        i = self.ids.get(text)
        if i is None:
            i = self.ids[text] = len(self.strings)
            self.strings.append(text)
        return i


def score_fast(
    codes: AnswerCodes,
    groups: Sequence[object],
    predictions: Sequence[str | None],
    profile: Profile,
) -> FastScores:
    """Scores of every row that fits the bulk shape; other rows are left at 0 (see
    ``vector_rows``) for the caller's per-question loop."""
    import numpy as np

    n = len(predictions)
    vector_rows = codes.regular.copy()
    if profile.leave_one_out == "records" and groups.count(None) != len(groups):
        vector_rows &= np.fromiter((g is None for g in groups), dtype=np.bool_, count=n)
    missing = [i for i, p in enumerate(predictions) if p is None] if None in predictions else []
    if missing:
        pred_list = list(predictions)
        for i in missing:
            pred_list[i] = ""
        pred_strings, pred_codes = intern_strings(pred_list)  # type: ignore[arg-type]
    else:
        pred_strings, pred_codes = intern_strings(predictions)  # type: ignore[arg-type]

    # normalize each distinct string once, step by step (as the profile's composed functions
    # do), noting which named steps changed it: the report's ``steps_changed`` comes for free
    intern = _Interner()
    bit = _step_bits(profile)
    seen: dict[Any, dict[Any, tuple[int, int]]] = {}  # the sides share what they both meet
    stages = _stages(profile.answer_steps, bit)
    traced = codes.traces  # the answer side traced ahead (AnswerTracer), if for these steps
    known = traced[1] if traced is not None and traced[0].stages == stages else None
    prep_a, fin_a, bits_a = _normalize_side(codes.strings, stages, intern, seen, known)
    prep_p, fin_p, bits_p = _normalize_side(
        pred_strings, _stages(profile.prediction_steps, bit), intern, seen
    )

    ap = prep_a[codes.codes]  # (n, 10) prepared answer ids
    pp = prep_p[pred_codes]  # (n,) prepared prediction ids
    if profile.unanimity_rule:
        unanimous = (ap == ap[:, :1]).all(axis=1)
    else:
        unanimous = np.zeros(n, dtype=np.bool_)
    ans = np.where(unanimous[:, None], ap, fin_a[ap])
    pred = np.where(unanimous, pp, fin_p[pp])
    hits = ans == pred[:, None]
    mask = hits.astype(np.int64) @ (1 << np.arange(N_ANSWERS, dtype=np.int64))
    tables = mask_tables(profile)
    scores = tables.scores[mask]
    if profile.empty_prediction_scores_zero:
        empty = intern.ids.get("")
        if empty is not None:
            scores[pred == empty] = 0.0
    if missing:
        idx = np.array(missing, dtype=np.int64)
        pred[idx] = -1
        vector_rows[idx] = False  # the per-question loop reports them as missing
    scores[~vector_rows] = 0.0
    return FastScores(
        scores=scores.tolist(),
        vector_rows=vector_rows,
        unanimous=unanimous,
        mask=mask,
        prediction=pred,
        answers=ans,
        strings=intern.strings,
        tables=tables,
        raw_prediction=pred_codes,
        raw_predictions=pred_strings,
        step_bits=bit,
        answer_bits=bits_a,
        prediction_bits=bits_p,
    )


def _step_bits(profile: Profile) -> dict[str, int]:
    """A bit per named step of *profile* (prediction steps first), for ``steps_changed``."""
    bit: dict[str, int] = {}
    for st in (*profile.prediction_steps, *profile.answer_steps):
        bit.setdefault(st.name, 1 << len(bit))
    return bit


#: a side's steps as ``(fn, bit)`` pairs: the unconditional ones, then the conditional ones
Stages = tuple[
    tuple[tuple[Callable[[str], str], int], ...], tuple[tuple[Callable[[str], str], int], ...]
]


def _stages(steps: tuple[Step, ...], bit: dict[str, int]) -> Stages:
    first = tuple((st.fn, bit[st.name]) for st in steps if not st.conditional)
    then = tuple((st.fn, bit[st.name]) for st in steps if st.conditional)
    return first, then


#: what :class:`AnswerTracer` found: per text, its result and bits after the unconditional
#: steps; per such result, after the conditional ones
Traces = tuple[dict[str, tuple[str, int]], dict[str, tuple[str, int]]]


class AnswerTracer:
    """The part of :func:`score_fast` that depends on the answers alone, done ahead: each
    distinct answer traced through a profile's answer steps (:func:`_traced`), for a process
    with time to spare (the annotations loader's forked child, whose half of the work ends
    before the parent's; at 214k questions the answers' 7.8k distinct texts take it 0.04 s,
    and the scoring traces 20k strings instead of 34k). Calling it needs no numpy; its result
    is pure data, and
    :attr:`stages` tells :func:`score_fast` which steps it is for (``AnswerCodes.traces``)."""

    def __init__(self, profile: Profile) -> None:
        self.stages = _stages(profile.answer_steps, _step_bits(profile))

    def __call__(self, strings: list[str]) -> Traces:
        first, then = self.stages
        prepared = {text: _traced(text, first) for text in strings}
        finished = {out: _traced(out, then) for out, _ in prepared.values()}
        return prepared, finished


def _normalize_side(
    strings: list[str],
    stages: Stages,
    intern: _Interner,
    seen: dict[Any, dict[Any, tuple[int, int]]],
    known: Traces | None = None,
) -> tuple[IntArray, IntArray, tuple[IntArray, IntArray]]:
    """Prepared ids (unconditional steps) of *strings*, finished ids (conditional steps) by
    prepared id, and per string the bits of the steps that changed it: ``(skipped, full)``.

    *seen* holds, per stage of steps, what each text or prepared id became (``(id, bits)``):
    a string that the answers and the predictions share (most profiles normalize both alike)
    goes through the steps once. *known*: the traces :class:`AnswerTracer` computed for these
    stages (looked up instead of traced again: the same results, in the same order).
    """
    import numpy as np

    first, then = stages
    known_first, known_then = known if known is not None else ({}, {})
    prep = np.empty(len(strings), dtype=np.int64)
    skip_bits = np.zeros(len(strings), dtype=np.int64)
    prepared = seen.setdefault(first, {})
    for k, text in enumerate(strings):
        hit = prepared.get(text)
        if hit is None:
            out, changed = known_first.get(text) or _traced(text, first)
            hit = prepared[text] = (intern(out), changed)
        prep[k], skip_bits[k] = hit
    used = np.unique(prep).tolist()
    fin = np.full(len(intern.strings), -1, dtype=np.int64)
    fin_bits = np.zeros(len(intern.strings), dtype=np.int64)
    finished = seen.setdefault(("finished", then), {})
    for u in used:
        hit = finished.get(u)
        if hit is None:
            text = intern.strings[u]
            out, changed = known_then.get(text) or _traced(text, then)
            hit = finished[u] = (intern(out), changed)
        fin[u], fin_bits[u] = hit
    return prep, fin, (skip_bits, skip_bits | fin_bits[prep])


def _traced(text: str, steps: tuple[tuple[Callable[[str], str], int], ...]) -> tuple[str, int]:
    """*text* through *steps* ``(fn, bit)``, and the bits of the steps that changed it."""
    bits = 0
    for fn, flag in steps:
        new = fn(text)
        if new != text:
            bits |= flag
        text = new
    return text, bits


# --- aggregates -------------------------------------------------------------------------------
# ``aggregate.breakdown``/``official_outputs`` in bulk. np.cumsum (``add.accumulate``) adds left
# to right, so its last element is the naive sum of the script (unlike np.sum, which is
# pairwise); ``tests/test_differential.py`` checks both functions against ``aggregate``.
