"""Load VQA annotations, results and questions files, and match predictions to questions.

Accepted layouts (spec official-vqa-eval.md §2):

* annotations: the official JSON (``{"annotations": [...]}``), or a flat list / JSONL of
  ``{"question_id", "answers": [...]}`` or ``{"question_id", "answer": [...]}`` (LAVIS/OK-VQA);
  answers are strings or records ``{"answer": str, ...}``; types are optional;
* results: the official list of ``{"question_id", "answer"}``, JSONL, or ``{qid: answer}``;
* questions: the official questions JSON; only validated (its text never affects a score).
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import chain, count
from operator import attrgetter
from types import SimpleNamespace
from typing import Any, Literal

from .._exceptions import IdTypeWarning, InputError, MissingPredictionError
from ..score.vqa import answer_groups
from ._json import (
    PathLike,
    decode_typed,
    display_name,
    is_jsonl,
    map_file,
    parse_json_or_jsonl,
    read_bytes,
)

__all__ = [
    "Matched",
    "QuestionId",
    "VQADataset",
    "load_annotations",
    "load_questions",
    "load_results",
    "match_predictions",
]

QuestionId = int | str
OnDuplicate = Literal["error", "last"]

_QUESTION_HEADER = ("info", "task_type", "data_type", "data_subtype", "license")


@dataclass(frozen=True, eq=False)
class VQADataset:
    """Questions with their human answers, column by column, in file order."""

    source: str
    question_ids: list[QuestionId]
    answers: list[list[str]]
    #: per question: record groups of the official leave-one-out, or None (all records differ)
    groups: list[list[int] | None]
    question_types: list[str | None]
    answer_types: list[str | None]
    image_ids: list[Any]
    multiple_choice_answers: list[str | None]
    #: True when answers were plain strings (no records at all)
    plain_answers: bool = False
    index: dict[QuestionId, int] = field(default_factory=dict, repr=False)
    #: the answers interned as integer codes (``score._fast.AnswerCodes``), made on first use;
    #: like ``index`` it assumes the columns are not mutated afterwards
    _answer_codes: Any = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.question_ids)

    @property
    def has_question_types(self) -> bool:
        return any(t is not None for t in self.question_types)

    @property
    def has_answer_types(self) -> bool:
        return any(t is not None for t in self.answer_types)


def _where(name: str, i: int, lines: list[int] | None) -> str:
    return f"{name}: line {lines[i]}" if lines is not None else f"{name}: entry {i + 1}"


def _check_id(value: object, where: str) -> QuestionId:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise InputError(f"{where}: question_id must be an integer or a string, got {value!r}")
    return value


def load_annotations(path: PathLike, *, on_duplicate: OnDuplicate = "error") -> VQADataset:
    """Load and validate an annotations file (see the module docstring for the layouts)."""
    name = display_name(path)
    jsonl = is_jsonl(path)
    if not jsonl and _fast_annotations_possible():
        mapped = map_file(path)
        if mapped is not None:
            with mapped:
                decoded = decode_typed(mapped, _fast_types().annotations)
            if decoded is not None:
                fast = _fast_annotations(name, decoded)
                if fast is not None:
                    return fast
                del decoded
    raw = read_bytes(path)
    data, lines = parse_json_or_jsonl(name, raw, jsonl)
    del raw
    if isinstance(data, dict):
        if "annotations" not in data:
            keys = ", ".join(sorted(map(str, data))) or "none"
            raise InputError(
                f"{name}: expected the official layout with an 'annotations' list, or a list "
                f"of questions; found an object with keys: {keys}"
            )
        data = data["annotations"]
        if not isinstance(data, list):
            raise InputError(f"{name}: 'annotations' must be a list, got {type(data).__name__}")
    elif not isinstance(data, list):
        raise InputError(
            f"{name}: expected a list of questions or the official layout, "
            f"got a JSON {type(data).__name__}"
        )
    if not data:
        raise InputError(f"{name}: contains no questions")
    return _dataset_from_records(name, data, lines, on_duplicate)


# --- fast path -----------------------------------------------------------------------------
# The official layouts are decoded with msgspec into structs holding only the fields that are
# kept, every one of them type-checked as the slow path checks it. Anything unusual (a record
# without distinct answer_ids, a duplicate question, a float id, a missing field, an error) makes
# the fast path give up, and the slow path below decides, with its precise messages.


@cache
def _fast_types() -> SimpleNamespace:
    from . import _schema

    return SimpleNamespace(
        annotations=_schema.ANNOTATIONS,
        results=_schema.RESULTS,
        questions=_schema.QUESTIONS,
        unset=_schema.UNSET,
    )


def _decode_fast(raw: bytes, what: str) -> Any:
    """Decode a results or questions file with its msgspec struct; ``None``: use the slow path."""
    try:
        spec = getattr(_fast_types(), what)
    except ImportError:  # pragma: no cover - msgspec is optional
        return None
    return decode_typed(raw, spec)


def _fast_annotations_possible() -> bool:
    try:
        import msgspec  # noqa: F401
        import numpy  # noqa: F401
    except ImportError:  # pragma: no cover - both are optional
        return False
    return True


def _fast_annotations(name: str, decoded: Any) -> VQADataset | None:
    """The official layout with distinct ``answer_id`` in every question, decoded in bulk."""
    import numpy as np

    from ..score._fast import codes_from_flat

    types = _fast_types()
    anns = decoded if isinstance(decoded, list) else decoded.annotations
    n = len(anns)
    if not n:
        return None
    qids = list(map(attrgetter("question_id"), anns))
    index = dict(zip(qids, range(n), strict=True))
    if len(index) != n:
        return None  # duplicate question ids: the slow path words or resolves them
    records = list(map(attrgetter("answers"), anns))
    lens = np.fromiter(map(len, records), dtype=np.int64, count=n)
    if not lens.all():
        return None
    try:
        ids = np.array(
            list(map(attrgetter("answer_id"), chain.from_iterable(records))), dtype=np.int64
        )
    except TypeError:
        return None  # a missing answer_id: equal records collapse (the slow path groups them)
    if not _distinct_ids(ids, lens):
        return None
    del ids
    # intern the answer strings in one pass: code = order of first appearance
    table: defaultdict[str, int] = defaultdict(count().__next__)
    texts = map(attrgetter("answer"), chain.from_iterable(records))
    flat_codes = np.array(list(map(table.__getitem__, texts)), dtype=np.int64)
    strings = list(table)
    codes = codes_from_flat(strings, flat_codes, lens)
    # every answer list holds the shared distinct strings: far less memory than one per record
    shared = np.array(strings, dtype=object)[flat_codes].tolist()
    if bool(codes.regular.all()):
        answers = [shared[i : i + 10] for i in range(0, len(shared), 10)]
    else:
        ends = np.cumsum(lens).tolist()
        answers = [shared[e - k : e] for e, k in zip(ends, lens.tolist(), strict=True)]
    unset = types.unset
    images = [q.image if q.image_id is unset else q.image_id for q in anns]
    return VQADataset(
        source=name,
        question_ids=qids,
        answers=answers,
        groups=[None] * n,
        question_types=_shared(map(attrgetter("question_type"), anns)),
        answer_types=_shared(map(attrgetter("answer_type"), anns)),
        image_ids=_shared(images),
        multiple_choice_answers=_shared(map(attrgetter("multiple_choice_answer"), anns)),
        plain_answers=False,
        index=index,
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


def _dataset_from_records(
    name: str, records: list[Any], lines: list[int] | None, on_duplicate: OnDuplicate
) -> VQADataset:
    qids: list[QuestionId] = []
    answers: list[list[str]] = []
    groups: list[list[int] | None] = []
    qtypes: list[str | None] = []
    atypes: list[str | None] = []
    images: list[Any] = []
    mcas: list[str | None] = []
    index: dict[QuestionId, int] = {}
    plain = True
    for i, rec in enumerate(records):
        if not isinstance(rec, dict):
            raise InputError(
                f"{_where(name, i, lines)}: a question must be an object, got {rec!r:.60}"
            )
        if "question_id" not in rec:
            raise InputError(f"{_where(name, i, lines)}: missing 'question_id'")
        qid = _check_id(rec["question_id"], _where(name, i, lines))
        where = f"{name}: question {qid!r}"
        raw = rec.get("answers", rec.get("answer"))
        if raw is None:
            raise InputError(f"{where}: missing 'answers'")
        if isinstance(raw, str) or not isinstance(raw, list):
            raise InputError(f"{where}: 'answers' must be a list, got {raw!r:.60}")
        if not raw:
            raise InputError(f"{where}: has no answers")
        try:
            texts, grp = answer_groups(raw)
        except TypeError as exc:
            raise InputError(f"{where}: {exc}") from None
        if plain and not isinstance(raw[0], str):
            plain = False
        if qid in index:
            if on_duplicate == "error":
                raise InputError(
                    f"{where}: duplicate question id (first at entry {index[qid] + 1}); "
                    "pass --on-duplicate last to keep the last one"
                )
            j = index[qid]
        else:
            j = index[qid] = len(qids)
            qids.append(qid)
            answers.append(texts)
            groups.append(grp)
            qtypes.append(None)
            atypes.append(None)
            images.append(None)
            mcas.append(None)
        answers[j] = texts
        groups[j] = grp
        qtypes[j] = _opt_str(rec, "question_type", where)
        atypes[j] = _opt_str(rec, "answer_type", where)
        images[j] = rec.get("image_id", rec.get("image"))
        mcas[j] = _opt_str(rec, "multiple_choice_answer", where)
    return VQADataset(
        source=name,
        question_ids=qids,
        answers=answers,
        groups=groups,
        question_types=qtypes,
        answer_types=atypes,
        image_ids=images,
        multiple_choice_answers=mcas,
        plain_answers=plain,
        index=index,
    )


def _opt_str(rec: Mapping[str, Any], key: str, where: str) -> str | None:
    value = rec.get(key)
    if value is None or isinstance(value, str):
        return value
    raise InputError(f"{where}: '{key}' must be a string, got {value!r:.60}")


@dataclass(frozen=True, eq=False)
class Results:
    """Predictions as ``(question_id, answer)`` pairs, in file order, duplicates kept."""

    source: str
    pairs: list[tuple[QuestionId, str]]


def load_results(path: PathLike) -> Results:
    """Load and validate a results file (list, JSONL or ``{qid: answer}`` mapping)."""
    name = display_name(path)
    raw = read_bytes(path)
    jsonl = is_jsonl(path)
    if not jsonl:
        preds = _decode_fast(raw, "results")
        if preds:
            qids = list(map(attrgetter("question_id"), preds))
            answers = list(map(attrgetter("answer"), preds))
            return Results(name, list(zip(qids, answers, strict=True)))
    data, lines = parse_json_or_jsonl(name, raw, jsonl)
    if isinstance(data, dict):
        pairs = []
        for key, answer in data.items():
            if not isinstance(answer, str):
                raise InputError(
                    f"{name}: question {key!r}: answer must be a string, got {answer!r:.60}"
                )
            pairs.append((_int_if_decimal(key), answer))
        if not pairs:
            raise InputError(f"{name}: contains no predictions")
        return Results(name, pairs)
    if not isinstance(data, list):
        raise InputError(
            f"{name}: expected a list of {{question_id, answer}} or a {{question_id: answer}} "
            f"object, got a JSON {type(data).__name__}"
        )
    if not data:
        raise InputError(f"{name}: contains no predictions")
    pairs = []
    for i, rec in enumerate(data):
        if not isinstance(rec, dict):
            raise InputError(
                f"{_where(name, i, lines)}: a prediction must be an object with "
                f"'question_id' and 'answer', got {rec!r:.60}"
            )
        if "question_id" not in rec:
            raise InputError(f"{_where(name, i, lines)}: missing 'question_id'")
        qid = _check_id(rec["question_id"], _where(name, i, lines))
        if "answer" not in rec:
            raise InputError(f"{name}: question {qid!r}: prediction has no 'answer'")
        answer = rec["answer"]
        if not isinstance(answer, str):
            raise InputError(
                f"{name}: question {qid!r}: answer must be a string, got {answer!r:.60}"
            )
        pairs.append((qid, answer))
    return Results(name, pairs)


def _int_if_decimal(key: str) -> QuestionId:
    # mapping keys are always strings in JSON: ids that look like ints are ints
    if key.isascii() and key.isdecimal() and (key == "0" or not key.startswith("0")):
        return int(key)
    return key


def results_from_pairs(
    pairs: Iterable[tuple[QuestionId, str]] | Mapping[QuestionId, str], source: str = "<results>"
) -> Results:
    """Wrap in-memory predictions (a mapping or ``(qid, answer)`` pairs) as :class:`Results`."""
    items = list(pairs.items() if isinstance(pairs, Mapping) else pairs)
    for qid, answer in items:
        _check_id(qid, source)
        if not isinstance(answer, str):
            raise InputError(
                f"{source}: question {qid!r}: answer must be a string, got {answer!r:.60}"
            )
    return Results(source, items)


def load_questions(path: PathLike, dataset: VQADataset | None = None) -> int:
    """Validate an official questions file; returns its number of questions.

    The official script copies five header keys from it and fails without them (spec §2); the
    question text never affects a score, so nothing else is kept.
    """
    name = display_name(path)
    raw = read_bytes(path)
    jsonl = is_jsonl(path)
    if not jsonl:
        fast = _decode_fast(raw, "questions")
        if fast is not None:
            if dataset is not None:
                ids = set(map(attrgetter("question_id"), fast.questions))
                _check_questions_cover(name, dataset, ids)
            return len(fast.questions)
    data, _ = parse_json_or_jsonl(name, raw, jsonl)
    del raw
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
        raise InputError(f"{name}: expected the official questions layout with a 'questions' list")
    missing = [k for k in _QUESTION_HEADER if k not in data]
    if missing:
        raise InputError(
            f"{name}: missing header key(s) {', '.join(missing)} (the official script needs "
            f"{', '.join(_QUESTION_HEADER)})"
        )
    questions = data["questions"]
    if dataset is not None:
        ids = set()
        for i, q in enumerate(questions):
            if not isinstance(q, dict) or "question_id" not in q:
                raise InputError(f"{name}: entry {i + 1}: a question needs a 'question_id'")
            ids.add(q["question_id"])
        _check_questions_cover(name, dataset, ids)
    return len(questions)


def _check_questions_cover(name: str, dataset: VQADataset, ids: set[Any]) -> None:
    unknown = [q for q in dataset.question_ids if q not in ids]
    if unknown:
        raise InputError(
            f"{name}: {len(unknown)} annotated question(s) are not in the questions file, "
            f"e.g. question {unknown[0]!r}; are the files from the same split?"
        )


@dataclass(frozen=True, eq=False)
class Matched:
    """Predictions aligned with a dataset's questions (``None`` where missing)."""

    predictions: list[str | None]
    missing: list[QuestionId]
    extra: list[QuestionId]
    duplicates: int
    id_type_fixed: int


def match_predictions(
    dataset: VQADataset,
    results: Results,
    *,
    allow_missing: bool = False,
    ignore_extra: bool = False,
    on_duplicate: OnDuplicate = "error",
) -> Matched:
    """Align predictions with questions, enforcing the official set equality of ids.

    A question with no prediction, a prediction for an unknown question and a duplicate
    prediction are errors unless *allow_missing*, *ignore_extra* or ``on_duplicate="last"``
    (the script's behaviour: the last one wins) say otherwise. Ids spelled ``"1000"`` in one
    file and ``1000`` in the other are matched with an :class:`IdTypeWarning`.
    """
    index = dataset.index
    preds: list[str | None] = [None] * len(dataset)
    seen = bytearray(len(dataset))
    extra: list[QuestionId] = []
    duplicates = 0
    fixed = 0
    name = results.source
    for qid, answer in results.pairs:
        j = index.get(qid)
        if j is None:
            alt = _other_spelling(qid)
            j = index.get(alt) if alt is not None else None
            if j is None:
                extra.append(qid)
                continue
            fixed += 1
        if seen[j]:
            duplicates += 1
            if on_duplicate == "error":
                raise InputError(
                    f"{name}: question {qid!r}: duplicate prediction; pass --on-duplicate last "
                    "to keep the last one, as the official script does"
                )
        seen[j] = 1
        preds[j] = answer
    if extra and not ignore_extra:
        raise InputError(
            f"{name}: question {extra[0]!r}: prediction for a question that is not in "
            f"{dataset.source} ({len(extra)} such prediction(s)); pass --ignore-extra to skip them"
        )
    missing = [dataset.question_ids[j] for j in range(len(dataset)) if not seen[j]]
    if missing and not allow_missing:
        raise MissingPredictionError(
            f"{name}: question {missing[0]!r}: no prediction ({len(missing)} of {len(dataset)} "
            "question(s) missing); pass --allow-missing to score them 0"
        )
    if fixed:
        warnings.warn(
            f"{fixed} question id(s) are spelled differently in {name} and {dataset.source} "
            "(string vs integer); they were matched by value",
            IdTypeWarning,
            stacklevel=2,
        )
    return Matched(preds, missing, extra, duplicates, fixed)


def _other_spelling(qid: QuestionId) -> QuestionId | None:
    if isinstance(qid, int):
        return str(qid)
    if qid.isascii() and qid.lstrip("-").isdecimal():
        try:
            return int(qid)
        except ValueError:
            return None
    return None


def as_dataset(records: Sequence[Mapping[str, Any]], source: str = "<annotations>") -> VQADataset:
    """Build a :class:`VQADataset` from in-memory records (same layouts as the files)."""
    return _dataset_from_records(source, list(records), None, "error")
