"""``per_question.jsonl`` and the four official files of a large evaluation, as bytes.

Each file is assembled from fragments that orjson serialized once per distinct value, and is
byte-identical to dumping the per-question records and official dicts one by one.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ..aggregate._bulk import fast_breakdown, type_groups
from ..core.answers import N_ANSWERS
from ..core.compiled import ROW_JOINER, compiled
from ..kernels._fast import unique_inverse
from .vqa import steps_changed

if TYPE_CHECKING:
    from ..kernels._fast import FastScores
    from .vqa import VQAEvaluation

__all__ = ["JsonlLines", "join_rows_reference", "jsonl_chunks", "official_files"]

_CHUNK = 1 << 15

#: a column of lines: (table of fragments, codes, step, offset); row i's piece is
#: ``table[codes[i * step + offset]]`` (codes ``None``: index ``i * step + offset``; table
#: ``None``: the code in decimal)
Column = tuple[list[str] | None, Any, int, int]


def jsonl_chunks(ev: VQAEvaluation, fast: FastScores) -> Iterator[bytes]:
    """``per_question.jsonl`` as bytes, byte-identical to one ``orjson.dumps`` per record."""
    lines = JsonlLines(ev, fast)
    return lines.chunks(0, lines.n)


class JsonlLines:
    """The lines of ``per_question.jsonl``, prepared once as columns of JSON fragments, so that
    two processes can each assemble a part of the file (:meth:`chunks`).

    Each line is assembled from fragments that orjson serialized once per distinct value
    (orjson output composes: a dict is ``{``, ``"key":value`` joined by ``,``, then ``}``).
    Fields that vary together share one fragment with the keys between them (``m``,
    ``leave_one_out`` and the ``score`` key by match mask; ``steps_changed`` to the end of the
    line by their combination), so a line is joined from 18 pieces instead of about 40, each
    column a table of fragments and a code per row (:func:`join_rows_reference`). The bytes
    are those of one ``orjson.dumps`` per record.
    """

    def __init__(self, ev: VQAEvaluation, fast: FastScores) -> None:
        import numpy as np
        import orjson

        dumps = orjson.dumps
        self.n = n = len(ev.dataset)

        # fragments are str (orjson's bytes read as latin-1, see _text): str.join is far
        # cheaper than bytes.join, which takes a buffer per item; a table's last fragment is
        # empty, for the code -1
        def frags(values: Sequence[Any], after: str = "") -> list[str]:
            return [_text(dumps(v)) + after for v in values] + [""]

        def codes(values: Any) -> Any:
            return np.ascontiguousarray(values, dtype=np.int64)

        steps_idx, steps_lists = steps_changed(ev, fast)
        tables = fast.tables
        strings = [_text(dumps(v)) for v in fast.strings]  # predictions and answers
        masks = [
            f'{_text(dumps(m))},"leave_one_out":{_text(dumps(loo))},"score":'
            for m, loo in zip(tables.m, tables.loo, strict=True)
        ]
        distinct, score_codes = _score_codes(ev, fast)
        answers = codes(fast.answers)
        answer = [t + "," for t in strings] + [""]
        self._columns: list[Column] = [
            ([',"prediction":'], None, 0, 0),
            (
                frags(fast.raw_predictions, ',"normalized_prediction":'),
                codes(fast.raw_prediction),
                1,
                0,
            ),
            ([t + ',"normalized_answers":[' for t in strings] + [""], codes(fast.prediction), 1, 0),
            *[(answer, answers, N_ANSWERS, k) for k in range(N_ANSWERS - 1)],
            ([t + '],"m":' for t in strings] + [""], answers, N_ANSWERS, N_ANSWERS - 1),
            (masks, codes(fast.mask), 1, 0),
            (frags(distinct), score_codes, 1, 0),
            *_tail_columns(ev, fast, steps_idx, steps_lists, n),
        ]
        self._qids = _int64_ids(ev, fast)
        self._ev = ev
        self._fast = fast

    def chunks(self, start: int, stop: int) -> Iterator[bytes]:
        """The bytes of lines ``start`` to ``stop`` (excluded), a few thousand lines a chunk."""
        import orjson

        ev, fast = self._ev, self._fast
        qids = ev.dataset.question_ids
        slow_rows = fast.slow_rows()
        part = slow_rows[bisect_left(slow_rows, start) : bisect_left(slow_rows, stop)]
        slow = ev._per_question_slow(part)
        opt = orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE
        for lo in range(start, stop, _CHUNK):
            hi = min(stop, lo + _CHUNK)
            ids: list[Column]
            if self._qids is not None:
                ids = [(['{"question_id":'], None, 0, 0), (None, self._qids, 1, 0)]
            else:  # the fragments of this chunk's ids: row i is fragment i - lo
                ids = [
                    (['{"question_id":'], None, 0, 0),
                    (_id_texts(qids[lo:hi]), None, 1, -lo),
                ]
            columns = [*ids, *self._columns]
            rows = part[bisect_left(part, lo) : bisect_left(part, hi)]
            texts = [_text(orjson.dumps(next(slow), option=opt)) for _ in rows]
            yield _join(columns, lo, hi, rows, texts)


def join_rows_reference(
    columns: Sequence[Column], start: int, stop: int, slow_rows: list[int], slow_texts: list[str]
) -> bytes:
    """Rows ``start`` to ``stop`` (excluded) as bytes: each row the pieces of *columns* in
    order, or its text of *slow_texts* where *slow_rows* (ascending) names it; the pieces are
    one-byte str (:func:`_text`), written back as the bytes they were read from.

    The reference of the compiled ``_joinrows.join_rows`` (``pipeline/_joinrows.c``) and its
    fallback: where the compiled one is not sure of its input it returns ``None`` and this
    decides (a wider str raises here, as ``encode("latin-1")`` does)."""
    import numpy as np

    positions = np.arange(start, stop, dtype=np.int64)
    block = np.full((stop - start, max(len(columns), 1)), "", dtype=object)
    for c, (table, codes, step, offset) in enumerate(columns):
        index = positions * step + offset
        if codes is not None:
            index = np.asarray(codes).reshape(-1)[index]
        if table is None:
            block[:, c] = list(map(str, index.tolist()))
        else:
            pieces = np.empty(len(table), dtype=object)
            pieces[:] = table
            block[:, c] = pieces[index]
    slow = np.array(slow_rows, dtype=np.int64) - start
    block[slow, :] = ""
    block[slow, 0] = slow_texts
    return "".join(block.ravel().tolist()).encode("latin-1")


def _text(data: bytes) -> str:
    """orjson's UTF-8 *data* as a one-byte-per-character str (read as latin-1): joined with
    ASCII text it stays one byte per character, so a chunk with any non-ASCII answer is not
    widened to two or four bytes a character, and ``encode("latin-1")`` gives back exactly the
    UTF-8 bytes, with a copy instead of a conversion (measured: a third of the writer's time)."""
    return data.decode("latin-1")


def _id_texts(qids: Sequence[Any]) -> list[str]:
    """Each id as orjson writes it (an int it can write as ``str`` writes it; any other id
    through orjson, which raises for what it cannot write, as one record at a time did)."""
    import orjson

    dumps = orjson.dumps

    if qids and _types(qids) == {int} and min(qids) >= _INT_MIN and max(qids) <= _INT_MAX:
        return list(map(str, qids))

    def text(q: Any) -> str:
        return str(q) if type(q) is int and _INT_MIN <= q <= _INT_MAX else _text(dumps(q))

    return list(map(text, qids))


def _types(values: Sequence[Any]) -> set[type]:
    """The exact types among *values* (one C-level pass; a subclass of int is not int)."""
    return set(map(type, values))


# the ints orjson writes (others raise, as they did one record at a time)
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1
# the ints an int64 code holds (ids beyond them are written by _id_texts)
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _tail_columns(
    ev: VQAEvaluation, fast: FastScores, steps_idx: Any, steps_lists: list[list[str]], n: int
) -> list[Column]:
    """Per row, the end of its line from ``,"steps_changed":`` on: one fragment per distinct
    combination of steps, unanimity skip, question and answer type and ``verbose`` flag (a few
    hundred), then the extraction's columns, if any."""
    import numpy as np
    import orjson

    dumps = orjson.dumps

    def coded(keys: Sequence[Any]) -> tuple[list[Any], Any]:
        """Each row's key as a code into a table of the keys: from the rows of each key that
        the aggregation grouped (``type_groups``; ``None`` is the table's last key)."""
        groups = type_groups(keys, fast.groups)
        codes = np.full(n, len(groups), dtype=np.int64)
        for k, (_, rows) in enumerate(groups):
            codes[rows] = k
        return [key for key, _ in groups] + [None], codes

    d = ev.dataset
    qtypes, qt = coded(d.question_types)
    atypes, at = coded(d.answer_types)
    chat = _extraction_columns(ev, n)
    verbose = ev.diagnostics is not None
    flags = np.zeros(n, dtype=np.int64)
    if verbose:  # a row's reasons: an empty tuple when it is not verbose
        flags = np.fromiter(map(bool, ev.diagnostics.flags), dtype=np.bool_, count=n)
    sizes = (len(steps_lists), 2, len(qtypes), len(atypes), 2)
    parts = (steps_idx, fast.unanimous.astype(np.int64), qt, at, flags.astype(np.int64))
    combined = np.ravel_multi_index(parts, sizes)
    distinct, inverse = unique_inverse(combined)
    end = "" if chat else "}\n"
    texts = []
    for st, sk, q, a, v in zip(*np.unravel_index(distinct, sizes), strict=True):
        text = (
            f',"steps_changed":{_text(dumps(steps_lists[st]))}'
            f',"unanimous_skip":{"true" if sk else "false"}'
            f',"question_type":{_text(dumps(qtypes[q]))}'
            f',"answer_type":{_text(dumps(atypes[a]))}'
        )
        if verbose:
            text += f',"verbose":{"true" if v else "false"}'
        texts.append(text + end)
    out: list[Column] = [(texts, np.ascontiguousarray(inverse, dtype=np.int64), 1, 0)]
    for key, col in chat:
        out += [([f',"{key}":'], None, 0, 0), (col, None, 1, 0)]
    if chat:
        out.append((["}\n"], None, 0, 0))
    return out


def _extraction_columns(ev: VQAEvaluation, n: int) -> list[tuple[str, list[str]]]:
    """Under ``extract``, the raw text and trace columns, as
    :meth:`VQAEvaluation.chat_fields` gives them after ``verbose`` (JSON fragments, one per
    row)."""
    import orjson

    out: list[tuple[str, list[str]]] = []
    if ev.extraction is not None:
        memo: dict[Any, str] = {}

        def frag(value: Any) -> str:
            hit = memo.get(value)
            if hit is None:
                hit = memo[value] = _text(orjson.dumps(value))
            return hit

        traces = ev.extraction.traces
        for key, values in (
            ("raw_prediction", ev.extraction.raw),
            ("extracted", [None if t is None else t.text for t in traces]),
            ("extract_rule", [None if t is None else t.rule for t in traces]),
        ):
            out.append((key, [frag(v) for v in values]))
    return out


def official_files(ev: VQAEvaluation, fast: FastScores) -> dict[str, bytes] | None:
    """The four official files as bytes, identical to ``orjson.dumps(value, OPT_NON_STR_KEYS)``
    of :meth:`VQAEvaluation.official_outputs`; ``None`` if the question ids are not unique
    ints and strings (then the dicts are built and dumped instead). Each file's
    ``"id":score`` pairs are joined as columns (:func:`_join`): the id, and the score's
    fragment by its code."""
    import numpy as np
    import orjson

    d = ev.dataset
    qids: Sequence[Any] = d.question_ids
    n = len(qids)
    if len(ev.scores) != n or len(set(qids)) != n:
        return None
    q64 = _int64_ids(ev, fast)
    keys = None
    if q64 is None:
        if not _types(qids) <= {int, str}:
            return None
        keys = np.empty(n, dtype=object)  # how orjson writes an int key, or the string key
        keys[:] = [f'"{q}"' if type(q) is int else _text(orjson.dumps(q)) for q in qids]
    distinct, codes = _score_codes(ev, fast)
    frags = [":" + _text(orjson.dumps(round(100 * v, ev.digits))) for v in distinct]

    def pairs(rows: Any = None) -> bytes:
        """The comma-separated pairs of *rows* (ascending; ``None``: every row)."""
        m = n if rows is None else len(rows)
        commas = np.ones(m, dtype=np.int64)
        commas[:1] = 0
        ids: list[Column]
        if q64 is not None:
            ids = [(['"'], None, 0, 0), (None, q64 if rows is None else q64[rows], 1, 0)]
            ids.append((['"'], None, 0, 0))
        else:
            assert keys is not None
            ids = [((keys if rows is None else keys[rows]).tolist(), None, 1, 0)]
        column = codes if rows is None else codes[rows]
        return _join([(["", ","], commas, 1, 0), *ids, (frags, column, 1, 0)], 0, m, [], [])

    def by(types: Sequence[str | None]) -> bytes:
        parts = [
            orjson.dumps(key) + b":{" + pairs(rows) + b"}"
            for key, rows in type_groups(types, fast.groups)
        ]
        return b"{" + b",".join(parts) + b"}"

    accuracy = fast_breakdown(ev.scores, d.question_types, d.answer_types, ev.digits, fast.groups)
    return {
        "accuracy": orjson.dumps(accuracy, option=orjson.OPT_NON_STR_KEYS),
        "evalQA": b"{" + pairs() + b"}",
        "evalQuesType": by(d.question_types),
        "evalAnsType": by(d.answer_types),
    }


def _score_codes(ev: VQAEvaluation, fast: FastScores) -> tuple[list[float], Any]:
    """The distinct scores (by their bits) and each row's code among them, found once per
    evaluation for the two writers that need them."""
    import numpy as np

    hit = fast.memo.get("score_codes")
    if hit is None:
        values = np.array(ev.scores, dtype=np.float64)
        bits, inverse = np.unique(values.view(np.int64), return_inverse=True)
        codes = np.ascontiguousarray(inverse.reshape(-1), dtype=np.int64)
        hit = fast.memo["score_codes"] = (bits.view(np.float64).tolist(), codes)
    return hit


def _int64_ids(ev: VQAEvaluation, fast: FastScores) -> Any:
    """The question ids as int64 codes (written in decimal) where they are all ints that fit,
    else ``None``; found once per evaluation."""
    import numpy as np

    if "ids64" not in fast.memo:
        qids: Sequence[Any] = ev.dataset.question_ids
        fits = (
            qids and _types(qids) == {int} and min(qids) >= _INT64_MIN and max(qids) <= _INT64_MAX
        )
        fast.memo["ids64"] = np.array(qids, dtype=np.int64) if fits else None
    return fast.memo["ids64"]


def _join(
    columns: Sequence[Column], start: int, stop: int, slow_rows: list[int], slow_texts: list[str]
) -> bytes:
    """:func:`join_rows_reference` by the compiled joiner where it is built and takes the input,
    else by the reference itself."""
    join = compiled(*ROW_JOINER)
    data = None if join is None else join(list(columns), start, stop, slow_rows, slow_texts)
    return (
        join_rows_reference(columns, start, stop, slow_rows, slow_texts) if data is None else data
    )
