"""A question's human answers as data: their strings, the official record groups, and the
integer codes the bulk scorer and the loaders share.

This module sits below both the readers (``load/``) and the scorers (``score/``): it knows
nothing about files or scores, only how answers are represented.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, count
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    IntArray = npt.NDArray[np.int64]
    BoolArray = npt.NDArray[np.bool_]

__all__ = [
    "N_ANSWERS",
    "AnswerCodes",
    "answer_codes",
    "answer_groups",
    "codes_from_flat",
    "intern_strings",
]

#: The answers per question of VQA v2 (the shape the bulk scorer handles).
N_ANSWERS = 10


@dataclass(frozen=True, eq=False)
class AnswerCodes:
    """A dataset's answers as integer codes: ``strings[codes[q, i]]`` is answer *i* of *q*.

    Only rows with exactly 10 answers are filled (``regular``); the others are zeros.
    *traces*: ``(tracer, tracer(strings))``, where the loader had the strings traced through a
    profile's answer steps ahead of scoring (``kernels._fast.AnswerTracer``).
    """

    strings: list[str]
    codes: IntArray
    regular: BoolArray
    traces: Any = None


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


def codes_from_flat(
    strings: list[str], flat_codes: IntArray, lens: IntArray, traces: Any = None
) -> AnswerCodes:
    """Build :class:`AnswerCodes` from the codes of all answers in order and the row lengths
    (and the strings' *traces*, if any)."""
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
    return AnswerCodes(strings, codes, regular, traces)


def answer_groups(records: Sequence[object]) -> tuple[list[str], list[int] | None]:
    """Split answers into their strings and the record groups of the official leave-one-out.

    *records* are plain strings (left out by position) or dicts with an ``"answer"`` key. Two
    dict records are equal in the official script when *all* their fields are equal; the
    ``answer`` field is compared after normalization, so only the other fields form the group.
    Returns ``groups=None`` when every record differs in its other fields (e.g. ``answer_id``).
    Raises :class:`TypeError` for an answer that is not a string.
    """
    texts = [_answer_text(r) for r in records]
    if not records or isinstance(records[0], str):
        if any(not isinstance(r, str) for r in records):
            raise TypeError("answers mix plain strings and records")
        return texts, None
    dicts = [r for r in records if isinstance(r, dict)]
    if len(dicts) != len(records):
        raise TypeError("answers mix plain strings and records")
    ids = [d.get("answer_id", _MISSING) for d in dicts]
    if _MISSING not in ids:
        try:
            if len(set(ids)) == len(ids):
                return texts, None
        except TypeError:  # unhashable answer_id
            pass
    groups = _equal_record_groups(dicts)
    if len(set(groups)) == len(groups):
        return texts, None
    return texts, groups


_MISSING = object()


def _equal_record_groups(records: Sequence[dict[object, object]]) -> list[int]:
    """Number the records so that records whose fields other than ``answer`` are equal share a
    group. Quirk kept: equal means Python ``==``, as the script's ``item != gtAnsDatum``
    compares dicts, so ``answer_id`` 1, 1.0 and True are one id, and 0 equals -0.0."""
    try:
        keys: dict[object, int] = {}
        return [keys.setdefault(_frozen(_rest(r)), len(keys)) for r in records]
    except TypeError:  # an in-memory value that cannot be hashed: compare pairwise
        seen: list[dict[object, object]] = []
        groups = []
        for r in records:
            rest = _rest(r)
            g = next((i for i, other in enumerate(seen) if other == rest), len(seen))
            if g == len(seen):
                seen.append(rest)
            groups.append(g)
        return groups


def _rest(record: dict[object, object]) -> dict[object, object]:
    return {k: v for k, v in record.items() if k != "answer"}


def _frozen(value: object) -> object:
    """A hashable value equal (and hashing equal) to another exactly when the JSON values are
    ``==`` in Python: objects become frozensets of their items, arrays tuples."""
    if isinstance(value, dict):
        return frozenset((k, _frozen(v)) for k, v in value.items())
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    hash(value)  # TypeError for an unhashable in-memory value
    return value


def _answer_text(rec: object) -> str:
    if isinstance(rec, str):
        return rec
    if isinstance(rec, dict):
        value = rec.get("answer")
        if isinstance(value, str):
            return value
        raise TypeError(f"answer must be a string, got {type(value).__name__} {value!r}")
    raise TypeError(f"an answer must be a string or a record with 'answer', got {rec!r}")
