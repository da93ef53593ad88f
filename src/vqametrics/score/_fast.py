"""The vectorized scorer: the same per-question scores as the per-question loop, in bulk.

Design (every output bit-identical to :func:`vqametrics.score.vqa.score_normalized` applied
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

from collections import defaultdict
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain, count
from typing import TYPE_CHECKING, Any

from ..aggregate import Breakdown
from ..profiles import Profile, Step

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..evaluate import VQAEvaluation

    IntArray = npt.NDArray[np.int64]
    BoolArray = npt.NDArray[np.bool_]
    FloatArray = npt.NDArray[np.float64]

__all__ = ["AnswerCodes", "FastScores", "answer_codes", "have_numpy", "mask_tables", "score_fast"]

N_ANSWERS = 10
GroupCache = dict[int, tuple[Sequence[str | None], list[tuple[str, "IntArray"]]]]
#: Below this many questions the per-question loop is as fast (and numpy is not imported).
MIN_QUESTIONS = 2000


def have_numpy() -> bool:
    try:
        import numpy  # noqa: F401
    except ImportError:  # pragma: no cover - numpy is optional
        return False
    return True


@dataclass(frozen=True, eq=False)
class AnswerCodes:
    """A dataset's answers as integer codes: ``strings[codes[q, i]]`` is answer *i* of *q*.

    Only rows with exactly 10 answers are filled (``regular``); the others are zeros.
    """

    strings: list[str]
    codes: IntArray
    regular: BoolArray


def intern_strings(items: Iterable[str]) -> tuple[list[str], IntArray]:
    """Distinct strings in first-seen order, and the code of every item."""
    import numpy as np

    table: defaultdict[str, int] = defaultdict(count().__next__)  # code = first appearance
    codes = np.array(list(map(table.__getitem__, items)), dtype=np.int64)
    return list(table), codes


def answer_codes(answers: Sequence[Sequence[str]]) -> AnswerCodes:
    """Intern a dataset's answers (see :class:`AnswerCodes`)."""
    import numpy as np

    flat = list(chain.from_iterable(answers))
    strings, flat_codes = intern_strings(flat)
    lens = np.fromiter(map(len, answers), dtype=np.int64, count=len(answers))
    return codes_from_flat(strings, flat_codes, lens)


def codes_from_flat(strings: list[str], flat_codes: IntArray, lens: IntArray) -> AnswerCodes:
    """Build :class:`AnswerCodes` from the codes of all answers in order and the row lengths."""
    import numpy as np

    n = len(lens)
    regular = lens == N_ANSWERS
    if bool(regular.all()):
        codes = flat_codes.reshape(n, N_ANSWERS)
    else:
        starts = np.zeros(n, dtype=np.int64)
        np.cumsum(lens[:-1], out=starts[1:])
        codes = np.zeros((n, N_ANSWERS), dtype=np.int64)
        idx = starts[regular][:, None] + np.arange(N_ANSWERS)
        codes[regular] = flat_codes[idx]
    return AnswerCodes(strings, codes, regular)


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
    groups: GroupCache = field(default_factory=dict)
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
    bit: dict[str, int] = {}
    for st in (*profile.prediction_steps, *profile.answer_steps):
        bit.setdefault(st.name, 1 << len(bit))
    prep_a, fin_a, bits_a = _normalize_side(codes.strings, profile.answer_steps, intern, bit)
    prep_p, fin_p, bits_p = _normalize_side(pred_strings, profile.prediction_steps, intern, bit)

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


def _normalize_side(
    strings: list[str], steps: tuple[Step, ...], intern: _Interner, bit: dict[str, int]
) -> tuple[IntArray, IntArray, tuple[IntArray, IntArray]]:
    """Prepared ids (unconditional steps) of *strings*, finished ids (conditional steps) by
    prepared id, and per string the bits of the steps that changed it: ``(skipped, full)``."""
    import numpy as np

    first = tuple((st.fn, bit[st.name]) for st in steps if not st.conditional)
    then = tuple((st.fn, bit[st.name]) for st in steps if st.conditional)
    prep = np.empty(len(strings), dtype=np.int64)
    skip_bits = np.zeros(len(strings), dtype=np.int64)
    for k, text in enumerate(strings):
        b = 0
        for fn, flag in first:
            new = fn(text)
            if new != text:
                b |= flag
            text = new
        prep[k] = intern(text)
        skip_bits[k] = b
    used = np.unique(prep).tolist()
    fin = np.full(len(intern.strings), -1, dtype=np.int64)
    fin_bits = np.zeros(len(intern.strings), dtype=np.int64)
    for u in used:
        text = intern.strings[u]
        b = 0
        for fn, flag in then:
            new = fn(text)
            if new != text:
                b |= flag
            text = new
        fin[u] = intern(text)
        fin_bits[u] = b
    return prep, fin, (skip_bits, skip_bits | fin_bits[prep])


# --- aggregates -------------------------------------------------------------------------------
# ``aggregate.breakdown``/``official_outputs`` in bulk. np.cumsum (``add.accumulate``) adds left
# to right, so its last element is the naive sum of the script (unlike np.sum, which is
# pairwise); ``tests/test_differential.py`` checks both functions against ``aggregate``.


def _naive_sum(values: FloatArray) -> float:
    import numpy as np

    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def _groups(
    keys: Sequence[str | None], cache: GroupCache | None = None
) -> list[tuple[str, IntArray]]:
    """Rows of each key, keys in first-seen order, rows in order; ``None`` is left out.

    *cache* (one per evaluation, see ``FastScores.groups``) keeps the result per column.
    """
    if cache is None:
        return _compute_groups(keys)
    hit = cache.get(id(keys))
    if hit is None or hit[0] is not keys:
        hit = cache[id(keys)] = (keys, _compute_groups(keys))
    return hit[1]


def _compute_groups(keys: Sequence[str | None]) -> list[tuple[str, IntArray]]:
    import numpy as np

    table: defaultdict[str | None, int] = defaultdict(count().__next__)
    codes = np.array(list(map(table.__getitem__, keys)), dtype=np.int64)
    order = np.argsort(codes, kind="stable")
    ends = np.cumsum(np.bincount(codes, minlength=len(table))).tolist()
    out, start = [], 0
    for key, end in zip(table, ends, strict=True):
        if key is not None:
            out.append((key, order[start:end]))
        start = end
    return out


def _percent(values: FloatArray, digits: int | None) -> float:
    value = 100 * _naive_sum(values) / len(values)
    return value if digits is None else round(value, digits)


def fast_breakdown(
    scores: Sequence[float],
    question_types: Sequence[str | None],
    answer_types: Sequence[str | None],
    digits: int | None = 2,
    cache: GroupCache | None = None,
) -> Breakdown:
    """``aggregate.breakdown``, bit for bit."""
    import numpy as np

    if not scores:
        raise ValueError("no questions to aggregate")
    values = np.array(scores, dtype=np.float64)
    return {
        "overall": _percent(values, digits),
        "perQuestionType": {
            k: _percent(values[r], digits) for k, r in _groups(question_types, cache)
        },
        "perAnswerType": {k: _percent(values[r], digits) for k, r in _groups(answer_types, cache)},
    }


def _rounded(scores: Sequence[float], digits: int) -> list[float]:
    """``round(100 * s, digits)`` of every score, computed once per distinct value."""
    import numpy as np

    values = np.array(scores, dtype=np.float64)
    bits, inverse = np.unique(values.view(np.int64), return_inverse=True)
    distinct = bits.view(np.float64).tolist()
    table = np.array([round(100 * v, digits) for v in distinct], dtype=np.float64)
    return table[inverse.reshape(-1)].tolist()  # type: ignore[no-any-return]


def fast_official_outputs(
    question_ids: Sequence[Hashable],
    scores: Sequence[float],
    question_types: Sequence[str | None],
    answer_types: Sequence[str | None],
    digits: int = 2,
    cache: GroupCache | None = None,
) -> dict[str, Any]:
    """``aggregate.official_outputs``, bit for bit."""
    import numpy as np

    if len(question_ids) != len(scores) or len(scores) != len(question_types):
        from ..aggregate import official_outputs

        return official_outputs(question_ids, scores, question_types, answer_types, digits)
    eval_qa = dict(zip(question_ids, _rounded(scores, digits), strict=True))
    qids = np.empty(len(question_ids), dtype=object)
    qids[:] = question_ids
    get = eval_qa.__getitem__

    def by(keys: Sequence[str | None]) -> dict[str, dict[Hashable, float]]:
        out = {}
        for key, rows in _groups(keys, cache):
            group = qids[rows].tolist()
            out[key] = dict(zip(group, map(get, group), strict=True))
        return out

    return {
        "accuracy": fast_breakdown(scores, question_types, answer_types, digits, cache),
        "evalQA": eval_qa,
        "evalQuesType": by(question_types),
        "evalAnsType": by(answer_types),
    }


# --- the per-question report ------------------------------------------------------------------
# ``VQAEvaluation.per_question`` in bulk: every field comes from a per-string or per-mask table.
# Rows outside the bulk shape come from the per-question loop, in place.


def _steps_changed(ev: VQAEvaluation, fast: FastScores) -> tuple[IntArray, list[list[str]]]:
    """Per row, an index into a list of ``steps_changed`` lists (bulk rows only)."""
    hit = fast.memo.get("steps")
    if hit is None:
        hit = fast.memo["steps"] = _compute_steps_changed(ev, fast)
    return hit


def _compute_steps_changed(ev: VQAEvaluation, fast: FastScores) -> tuple[IntArray, list[list[str]]]:
    import numpy as np

    prof = ev.profile
    codes = ev.dataset._answer_codes.codes
    n = len(fast.scores)
    row_bits = np.zeros(n, dtype=np.int64)
    for skipped, side in ((True, 0), (False, 1)):
        sel = fast.vector_rows & (fast.unanimous == skipped)
        if not sel.any():
            continue
        answer_bits = fast.answer_bits[side][codes[sel]]
        row_bits[sel] = (
            np.bitwise_or.reduce(answer_bits, axis=1)
            | fast.prediction_bits[side][fast.raw_prediction[sel]]
        )
    pred_names = [s.name for s in prof.prediction_steps]
    distinct, inverse = np.unique(row_bits, return_inverse=True)
    lists = []
    for b in distinct.tolist():
        steps = {name for name, v in fast.step_bits.items() if b & v}
        lists.append([x for x in pred_names if x in steps] + sorted(steps - set(pred_names)))
    return inverse.reshape(-1), lists


def fast_records(ev: VQAEvaluation, fast: FastScores) -> Iterator[dict[str, Any]]:
    """``VQAEvaluation.per_question`` from the bulk results."""
    import numpy as np

    d = ev.dataset
    n = len(d)
    steps_idx, steps_lists = _steps_changed(ev, fast)
    strings = np.empty(len(fast.strings) + 1, dtype=object)
    strings[:-1] = fast.strings
    tables = fast.tables
    vector = fast.vector_rows.tolist()
    slow = ev._per_question_slow(fast.slow_rows())
    for start in range(0, n, _CHUNK):
        stop = min(n, start + _CHUNK)
        preds = strings[fast.prediction[start:stop]].tolist()
        answers = strings[fast.answers[start:stop]].tolist()
        masks = fast.mask[start:stop].tolist()
        unanimous = fast.unanimous[start:stop].tolist()
        steps = steps_idx[start:stop].tolist()
        for k, i in enumerate(range(start, stop)):
            if not vector[i]:
                yield next(slow)
                continue
            mask = masks[k]
            yield {
                "question_id": d.question_ids[i],
                "prediction": ev.predictions[i],
                "normalized_prediction": preds[k],
                "normalized_answers": answers[k],
                "m": tables.m[mask],
                "leave_one_out": list(tables.loo[mask]),
                "score": ev.scores[i],
                "steps_changed": list(steps_lists[steps[k]]),
                "unanimous_skip": unanimous[k],
                "question_type": d.question_types[i],
                "answer_type": d.answer_types[i],
            }


_CHUNK = 1 << 15


def jsonl_chunks(ev: VQAEvaluation, fast: FastScores) -> Iterator[bytes]:
    """``per_question.jsonl`` as bytes, byte-identical to one ``orjson.dumps`` per record.

    Each line is assembled from fragments that orjson serialized once per distinct value
    (orjson output composes: a dict is ``{``, ``"key":value`` joined by ``,``, then ``}``).
    """
    import numpy as np
    import orjson

    dumps = orjson.dumps
    d = ev.dataset
    n = len(d)

    # fragments are str (orjson's UTF-8 decoded): str.join is far cheaper than bytes.join,
    # which takes a buffer per item; each chunk is encoded back to the same UTF-8 bytes
    def frags(values: Sequence[Any]) -> Any:
        out = np.empty(len(values) + 1, dtype=object)
        out[:-1] = [dumps(v).decode() for v in values]
        out[-1] = ""
        return out

    def typed(keys: Sequence[str | None]) -> Any:
        table: defaultdict[str | None, int] = defaultdict(count().__next__)
        codes = np.array(list(map(table.__getitem__, keys)), dtype=np.int64)
        return frags(list(table))[codes]

    steps_idx, steps_lists = _steps_changed(ev, fast)
    tables = fast.tables
    col_pred = frags(fast.strings)[fast.prediction]
    col_raw = frags(fast.raw_predictions)[fast.raw_prediction]
    col_m = frags(tables.m)[fast.mask]
    col_loo = frags(tables.loo)[fast.mask]
    col_steps = frags(steps_lists)[steps_idx]
    col_skip = np.array(["false", "true"], dtype=object)[fast.unanimous.astype(np.int64)]
    col_qt = typed(d.question_types)
    col_at = typed(d.answer_types)
    values = np.array(ev.scores, dtype=np.float64)
    bits, inverse = np.unique(values.view(np.int64), return_inverse=True)
    col_score = frags(bits.view(np.float64).tolist())[inverse.reshape(-1)]
    qids = d.question_ids
    answer_frags = frags(fast.strings)
    vector = fast.vector_rows
    slow = ev._per_question_slow(fast.slow_rows())
    opt = orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE
    layout: list[str | None] = ['{"question_id":', None, ',"prediction":', None]
    layout += [',"normalized_prediction":', None, ',"normalized_answers":[', None]
    for _ in range(N_ANSWERS - 1):
        layout += [",", None]
    layout += ['],"m":', None, ',"leave_one_out":', None, ',"score":', None]
    layout += [',"steps_changed":', None, ',"unanimous_skip":', None]
    layout += [',"question_type":', None, ',"answer_type":', None, "}\n"]
    slots = [j for j, v in enumerate(layout) if v is None]
    for start in range(0, n, _CHUNK):
        stop = min(n, start + _CHUNK)
        rows = slice(start, stop)
        block = np.empty((stop - start, len(layout)), dtype=object)
        for j, v in enumerate(layout):
            if v is not None:
                block[:, j] = v
        answers = answer_frags[fast.answers[rows]]
        columns = [
            [dumps(q).decode() for q in qids[rows]],
            col_raw[rows],
            col_pred[rows],
            *(answers[:, k] for k in range(N_ANSWERS)),
            col_m[rows],
            col_loo[rows],
            col_score[rows],
            col_steps[rows],
            col_skip[rows],
            col_qt[rows],
            col_at[rows],
        ]
        for j, col in zip(slots, columns, strict=True):
            block[:, j] = col
        for i in np.flatnonzero(~vector[rows]).tolist():
            block[i, :] = ""
            block[i, 0] = dumps(next(slow), option=opt).decode()
        yield "".join(block.ravel().tolist()).encode()


def official_files(ev: VQAEvaluation, fast: FastScores) -> dict[str, bytes] | None:
    """The four official files as bytes, identical to ``orjson.dumps(value, OPT_NON_STR_KEYS)``
    of :meth:`VQAEvaluation.official_outputs`; ``None`` if the question ids are not unique
    ints and strings (then the dicts are built and dumped instead)."""
    import numpy as np
    import orjson

    d = ev.dataset
    qids = d.question_ids
    n = len(qids)
    if len(ev.scores) != n or len(set(qids)) != n:
        return None
    keys = np.empty(n, dtype=object)
    if all(type(q) is int for q in qids):
        keys[:] = [f'"{q}"' for q in qids]  # how orjson writes an int key
    elif all(type(q) is int or type(q) is str for q in qids):
        keys[:] = [f'"{q}"' if type(q) is int else orjson.dumps(q).decode() for q in qids]
    else:
        return None
    values = np.array(ev.scores, dtype=np.float64)
    bits, inverse = np.unique(values.view(np.int64), return_inverse=True)
    rounded = [round(100 * v, ev.digits) for v in bits.view(np.float64).tolist()]
    frags = np.array([":" + orjson.dumps(v).decode() for v in rounded], dtype=object)
    pairs = keys + frags[inverse.reshape(-1)]

    def by(types: Sequence[str | None]) -> bytes:
        parts = [
            orjson.dumps(key).decode() + ":{" + ",".join(pairs[rows].tolist()) + "}"
            for key, rows in _groups(types, fast.groups)
        ]
        return ("{" + ",".join(parts) + "}").encode()

    accuracy = fast_breakdown(ev.scores, d.question_types, d.answer_types, ev.digits, fast.groups)
    return {
        "accuracy": orjson.dumps(accuracy, option=orjson.OPT_NON_STR_KEYS),
        "evalQA": ("{" + ",".join(pairs.tolist()) + "}").encode(),
        "evalQuesType": by(d.question_types),
        "evalAnsType": by(d.answer_types),
    }
