"""``per_question.jsonl`` and the four official files of a large evaluation, as bytes.

Each file is assembled from fragments that orjson serialized once per distinct value, and is
byte-identical to dumping the per-question records and official dicts one by one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from itertools import count
from typing import TYPE_CHECKING, Any

from .._answers import N_ANSWERS
from ..aggregate._bulk import fast_breakdown, type_groups
from ..pipeline.vqa import steps_changed

if TYPE_CHECKING:
    from ..pipeline.vqa import VQAEvaluation
    from ..score._fast import FastScores

__all__ = ["jsonl_chunks", "official_files"]

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

    steps_idx, steps_lists = steps_changed(ev, fast)
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
    layout += [',"question_type":', None, ',"answer_type":', None]
    chat = _chat_columns(ev, n)
    for key, _ in chat:
        layout += [f',"{key}":', None]
    layout.append("}\n")
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
            *(col[rows] for _, col in chat),
        ]
        for j, col in zip(slots, columns, strict=True):
            block[:, j] = col
        for i in np.flatnonzero(~vector[rows]).tolist():
            block[i, :] = ""
            block[i, 0] = dumps(next(slow), option=opt).decode()
        yield "".join(block.ravel().tolist()).encode()


def _chat_columns(ev: VQAEvaluation, n: int) -> list[tuple[str, Any]]:
    """The ``verbose`` column and, under ``extract``, the raw text and trace columns, as
    :meth:`VQAEvaluation.chat_fields` gives them (JSON fragments, one per row)."""
    import numpy as np
    import orjson

    out: list[tuple[str, Any]] = []
    if ev.diagnostics is not None:
        flags = np.fromiter((bool(f) for f in ev.diagnostics.flags), dtype=np.int64, count=n)
        out.append(("verbose", np.array(["false", "true"], dtype=object)[flags]))
    if ev.extraction is not None:
        memo: dict[Any, str] = {}

        def frag(value: Any) -> str:
            hit = memo.get(value)
            if hit is None:
                hit = memo[value] = orjson.dumps(value).decode()
            return hit

        traces = ev.extraction.traces
        for key, values in (
            ("raw_prediction", ev.extraction.raw),
            ("extracted", [None if t is None else t.text for t in traces]),
            ("extract_rule", [None if t is None else t.rule for t in traces]),
        ):
            col = np.empty(n, dtype=object)
            col[:] = [frag(v) for v in values]
            out.append((key, col))
    return out


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
            for key, rows in type_groups(types, fast.groups)
        ]
        return ("{" + ",".join(parts) + "}").encode()

    accuracy = fast_breakdown(ev.scores, d.question_types, d.answer_types, ev.digits, fast.groups)
    return {
        "accuracy": orjson.dumps(accuracy, option=orjson.OPT_NON_STR_KEYS),
        "evalQA": ("{" + ",".join(pairs.tolist()) + "}").encode(),
        "evalQuesType": by(d.question_types),
        "evalAnsType": by(d.answer_types),
    }
