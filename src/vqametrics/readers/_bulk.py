"""Bulk decoding of the official layouts with msgspec, split over two processes when large.

Used by :mod:`vqametrics.readers.vqa`, which always has the last word: every function here returns
``None`` on anything it does not handle, and the validating path then decides.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from itertools import chain, count
from operator import attrgetter
from types import SimpleNamespace
from typing import Any

from ..core.compiled import ANSWER_SCANNER, compiled
from ._dataset import QuestionId, VQADataset
from ._json import PathLike, closing_map, decode_typed, map_file

__all__ = ["SPLIT_MIN_BYTES", "decode_fast", "fast_annotations_possible", "load_fast"]

# The official layouts are decoded with msgspec into structs holding only the fields that are
# kept, every one of them type-checked as the slow path checks it. Anything unusual (a record
# without distinct answer_ids, a duplicate question, a float id, a missing field, an error) makes
# the fast path give up, and the validating path of vqametrics.readers.vqa decides, with its
# precise messages. The fast path never raises an InputError itself, so the messages and their
# order are the validating path's.

#: From this file size on (about 40k questions), where a child process can be forked, the
#: annotations are decoded in two halves on two cores (:func:`_split_annotations`).
SPLIT_MIN_BYTES = 32 << 20


#: questions whose answers are decoded together (:func:`_batched_answers`): about 7 MB of
#: answer records at a time instead of 190 MB. Measured at 214k questions (in-process CPU,
#: best of 5): 1,024 costs about 10 % more than one decode of them all, this size about 2 %;
#: 32,768 costs the same as one decode but raised the run's peak from 267-341 to 370-385 MiB
ANSWER_BATCH = 8192


@cache
def _fast_types() -> SimpleNamespace:
    from . import _schema

    return SimpleNamespace(
        annotations=_schema.ANNOTATIONS_RAW,
        annotations_head=_schema.ANNOTATIONS_HEAD,
        annotations_answers=_schema.ANNOTATIONS_ANSWERS_RAW,
        answer_batch=_schema.ANSWER_BATCH,
        results=_schema.RESULTS,
        questions=_schema.QUESTIONS,
        unset=_schema.UNSET,
    )


def decode_fast(raw: bytes, what: str) -> Any:
    """Decode a results or questions file with its msgspec struct; ``None``: use the slow path."""
    try:
        spec = getattr(_fast_types(), what)
    except ImportError:  # pragma: no cover - a broken install: use the slow path
        return None
    return decode_typed(raw, spec)


def fast_annotations_possible() -> bool:
    """Whether msgspec imports and numpy is installed (imported later: where the loading is
    split, this process imports it while the child decodes)."""
    from importlib.util import find_spec

    try:
        import msgspec  # noqa: F401
    except ImportError:  # pragma: no cover - a broken install: use the slow path
        return False
    return find_spec("numpy") is not None


def _numpy_imports() -> bool:
    """Whether numpy imports (the fast paths' arrays need it)."""
    try:
        import numpy  # noqa: F401
    except ImportError:  # pragma: no cover - a broken install: use the slow path
        return False
    return True


def load_fast(
    name: str,
    path: PathLike,
    meanwhile: Callable[[], object] | None,
    tracer: Callable[[list[str]], Any] | None = None,
) -> VQADataset | None:
    """The official layout with distinct ``answer_id`` in every question, decoded in bulk
    (split over two processes for a large file, whose child then calls *tracer*: see
    ``load_annotations``); ``None``: use the slow path."""
    if _split_worthwhile(path):
        split = _split_annotations(name, path, meanwhile, tracer)
        if split is not None:
            return split
        # irregular input (or the child died): the sequential paths below decide, as always
    if not _numpy_imports():
        return None
    mapped = map_file(path)
    if mapped is None:
        return None
    with closing_map(mapped):  # the raw answers are views of the map: gone before it closes
        parts = _sequential_parts(mapped)
    return None if parts is None else _fast_dataset(name, *parts)


def _sequential_parts(mapped: Any) -> tuple[_Head, Any, list[str], Any] | None:
    """The columns of :func:`load_fast` in this process: the questions decoded with their
    answers left raw, then the answers a batch at a time (:func:`_batched_answers`), so that
    the decoded records never all exist at once (a far lower peak memory)."""
    decoded = decode_typed(mapped, _fast_types().annotations)
    if decoded is None:
        return None
    anns = _questions_of(decoded)
    head = _fast_head(anns)
    if head is None:
        return None
    raws = list(map(attrgetter("answers"), anns))
    del anns, decoded
    answers = _answer_columns(raws)
    return None if answers is None else (head, *answers)


def _split_worthwhile(path: PathLike) -> bool:
    """Whether to split the decoding of an annotations file: it is large and we may fork."""
    from ._fork import fork_worthwhile  # imported here: ``import vqametrics`` stays light

    try:
        size = os.path.getsize(path)
    except OSError:
        return False  # the sequential path words the error
    return size >= SPLIT_MIN_BYTES and fork_worthwhile()


def _split_annotations(
    name: str,
    path: PathLike,
    meanwhile: Callable[[], object] | None,
    tracer: Callable[[list[str]], Any] | None = None,
) -> VQADataset | None:
    """:func:`load_fast` on two cores; ``None``: use the sequential paths.

    Decoding, checking and interning the answer records is about two thirds of the work, so a
    forked child does just that (:func:`_answers_in_child`, which sends back only integer codes
    and the few thousand distinct strings) while this process decodes everything else and
    builds the other columns, then calls *meanwhile*. Together the two decodes accept exactly
    the documents the full struct accepts (see ``_schema``), so the dataset is the same. The
    child's half ends first: it then calls *tracer* on the distinct answer texts.
    """
    from ._fork import Forked

    mapped = map_file(path)
    if mapped is None:
        return None
    with Forked(_answers_in_child, mapped, tracer) as child:  # leaving early kills the child
        if not _numpy_imports():  # here, not before the fork: the child has no use for it
            return None
        with closing_map(mapped):  # closes only this process's view: the child keeps its own
            decoded = decode_typed(mapped, _fast_types().annotations_head)
        if decoded is None:
            return None
        head = _fast_head(_questions_of(decoded))
        del decoded  # free the structs while the child works
        if head is None:
            return None
        if meanwhile is not None:
            meanwhile()
        try:
            got = child.result(reap=False)
        except ChildProcessError:  # killed (e.g. out of memory): retry in this process
            return None
        if got is None:
            return None
        answers, traced = got
        arrays = _as_arrays(answers)
        if arrays is None:
            return None
        traces = None if tracer is None or traced is None else (tracer, traced)
        # built before leaving the block, which reaps the child: meanwhile it frees its memory
        return _fast_dataset(name, head, *arrays, traces=traces)


def _answers_in_child(
    mapped: Any, tracer: Callable[[list[str]], Any] | None = None
) -> tuple[tuple[Any, list[str], Any] | None, Any] | None:
    """The child's half of :func:`_split_annotations`: the answer counts, the distinct texts
    and the code of every answer (:func:`_answer_columns`), with *tracer*'s result on the
    texts (``None`` without one), or ``None`` (the document does not decode)."""
    # the parent checks that the document is valid UTF-8 (on the same bytes)
    decoded = decode_typed(mapped, _fast_types().annotations_answers, check_utf8=False)
    if decoded is None:
        return None
    # the compiled scanner's buffers as they are: the parent reads them as arrays
    answers = _scanned_answers(list(map(attrgetter("answers"), _questions_of(decoded))))
    del decoded
    traced = None if answers is None or tracer is None else tracer(answers[1])
    return answers, traced


def answer_scanner() -> Callable[[list[Any]], Any] | None:
    """The compiled :func:`_batched_answers` (``readers/_answerscan.c``), or ``None`` when it
    is not built or :data:`~vqametrics.core.compiled.PURE_PYTHON_ENV` turns it off.

    Why it exists (issue 23): on one CPU, decoding VQA v2's 2.1M answer records with msgspec,
    checking their answer_ids and interning their texts took about 1.35 s of a 4.4 s run; the
    scanner reads the same raw lists in about 0.17 s, making a str only per distinct text.
    """
    scan: Callable[[list[Any]], Any] | None = compiled(*ANSWER_SCANNER)
    return scan


def _answer_columns(raws: list[Any]) -> tuple[Any, list[str], Any] | None:
    """:func:`_batched_answers` by the compiled scanner where it is built and sure of its
    result, else by the pure-Python reference (which then decides, as always)."""
    return _as_arrays(_scanned_answers(raws))


def _scanned_answers(raws: list[Any]) -> tuple[Any, list[str], Any] | None:
    """:func:`_answer_columns` with the counts and codes as the compiled scanner gives them
    (int64 buffers; numpy is not imported for them), or as the reference's arrays."""
    scan = answer_scanner()
    scanned = None if scan is None else scan(raws)
    return _batched_answers(raws) if scanned is None else scanned


def _as_arrays(answers: tuple[Any, list[str], Any] | None) -> tuple[Any, list[str], Any] | None:
    """The counts and codes of :func:`_scanned_answers` as int64 arrays (views, no copy)."""
    if answers is None:
        return None
    import numpy as np

    counts, strings, codes = answers
    return np.frombuffer(counts, dtype=np.int64), strings, np.frombuffer(codes, dtype=np.int64)


def _batched_answers(raws: list[Any]) -> tuple[Any, list[str], Any] | None:
    """From each question's raw answer list: the answer counts (:func:`_answer_counts`), the
    distinct texts in first-seen order and the code of every answer, in order; ``None`` if a
    list is not a list of answer records, or its answers are irregular.

    The raw lists are decoded :data:`ANSWER_BATCH` questions at a time, each batch checked,
    interned and freed before the next: the same checks as decoding them all at once, in
    a fraction of the memory.
    """
    import numpy as np

    spec = _fast_types().answer_batch
    table: defaultdict[str, int] = defaultdict(count().__next__)  # code = first appearance
    code = table.__getitem__
    counts, codes = [], []
    for start in range(0, len(raws), ANSWER_BATCH):
        batch = b"[" + b",".join(raws[start : start + ANSWER_BATCH]) + b"]"
        # the whole document's UTF-8 is checked by the decode that made the raw lists
        records = decode_typed(batch, spec, check_utf8=False)
        del batch
        if records is None:
            return None
        lens = _answer_counts(records)
        if lens is None:
            return None
        texts = map(attrgetter("answer"), chain.from_iterable(records))
        codes.append(np.fromiter(map(code, texts), dtype=np.int64, count=int(lens.sum())))
        counts.append(lens)
    if not counts:
        return None
    return np.concatenate(counts), list(table), np.concatenate(codes)


def _questions_of(decoded: Any) -> list[Any]:
    """The list of question structs of either official layout (a list, or under 'annotations')."""
    return decoded if isinstance(decoded, list) else decoded.annotations


@dataclass(frozen=True, eq=False)
class _Head:
    """Every column of a decoded annotations file except the answers."""

    question_ids: list[QuestionId]
    index: dict[QuestionId, int]
    question_types: list[str | None]
    answer_types: list[str | None]
    image_ids: list[Any]
    multiple_choice_answers: list[str | None]


def _fast_head(anns: list[Any]) -> _Head | None:
    """The non-answer columns of the decoded questions; ``None`` if there are none or an id
    repeats (the slow path words that error, or resolves it with ``on_duplicate="last"``)."""
    n = len(anns)
    if not n:
        return None
    qids = list(map(attrgetter("question_id"), anns))
    index = dict(zip(qids, range(n), strict=True))
    if len(index) != n:
        return None
    unset = _fast_types().unset
    images = list(map(attrgetter("image_id"), anns))
    if unset in images:  # some question names its image "image" (UNSET equals only itself)
        images = [q.image if q.image_id is unset else q.image_id for q in anns]
    return _Head(
        question_ids=qids,
        index=index,
        # the types are read for every row by the aggregation and the forked writer: shared;
        # the other two are not read in bulk, and sharing them cost 60 ms at 214k questions
        question_types=_shared(map(attrgetter("question_type"), anns)),
        answer_types=_shared(map(attrgetter("answer_type"), anns)),
        image_ids=images,
        multiple_choice_answers=list(map(attrgetter("multiple_choice_answer"), anns)),
    )


def _answer_counts(records: list[list[Any]]) -> Any:
    """The number of answers of each question (a numpy array), or ``None`` if a question has
    none, or answer_ids that are missing or not distinct (the slow path groups equal records)."""
    import numpy as np

    lens = np.fromiter(map(len, records), dtype=np.int64, count=len(records))
    if not lens.all():
        return None
    ids_of = map(attrgetter("answer_id"), chain.from_iterable(records))
    try:
        ids = np.fromiter(ids_of, dtype=np.int64, count=int(lens.sum()))
    except TypeError:
        return None  # a missing answer_id
    return lens if _distinct_ids(ids, lens) else None


def _fast_dataset(
    name: str, head: _Head, lens: Any, strings: list[str], flat_codes: Any, traces: Any = None
) -> VQADataset:
    """Assemble the dataset from its non-answer columns and its interned answers (and their
    *traces*: ``AnswerCodes.traces``)."""
    import numpy as np

    from ..core.answers import codes_from_flat

    codes = codes_from_flat(strings, flat_codes, lens, traces)
    # every answer list holds the shared distinct strings: far less memory than one per record
    objects = np.array(strings, dtype=object)[flat_codes]
    if bool(codes.regular.all()):  # ten answers each: the lists straight from numpy
        answers = objects.reshape(-1, 10).tolist()
    else:
        shared = objects.tolist()
        ends = np.cumsum(lens).tolist()
        answers = [shared[e - k : e] for e, k in zip(ends, lens.tolist(), strict=True)]
    n = len(head.question_ids)
    return VQADataset(
        source=name,
        question_ids=head.question_ids,
        answers=answers,
        groups=[None] * n,
        question_types=head.question_types,
        answer_types=head.answer_types,
        image_ids=head.image_ids,
        multiple_choice_answers=head.multiple_choice_answers,
        plain_answers=False,
        index=head.index,
        _answer_codes=codes,
    )


def _shared(values: Iterable[str | int | None]) -> list[Any]:
    """The values as a list in which equal values are one object (only for str, int and None:
    with floats or bools ``1 == 1.0 == True`` would merge different values).

    The decoder makes a new object for every occurrence; a column like ``question_type`` holds
    a few dozen distinct values among 200k questions. Sharing them saves memory, and later
    passes over the column touch a few memory pages instead of ones scattered all over the
    heap (which matters most in a forked writer, where each page written is copied).
    """
    items = list(values)
    table: dict[Any, Any] = {}
    return list(map(table.setdefault, items, items))


def _distinct_ids(ids: Any, lens: Any) -> bool:
    """Whether every question's answer_ids are pairwise distinct."""
    import numpy as np

    if bool((lens == 10).all()):
        rows = np.sort(ids.reshape(-1, 10), axis=1)
        return not bool((rows[:, 1:] == rows[:, :-1]).any())
    pos = 0
    flat = ids.tolist()
    for k in lens.tolist():
        if len(set(flat[pos : pos + k])) != k:
            return False
        pos += k
    return True
