"""Load VQA annotations, results and questions files, and match predictions to questions.

Accepted layouts (spec official-vqa-eval.md §2):

* annotations: the official JSON (``{"annotations": [...]}``), or a flat list / JSONL of
  ``{"question_id", "answers": [...]}`` or ``{"question_id", "answer": [...]}`` (LAVIS/OK-VQA);
  answers are strings or records ``{"answer": str, ...}``; types are optional;
* results: the official list of ``{"question_id", "answer"}``, JSONL, or ``{qid: answer}``;
* questions: the official questions JSON; only validated (its text never affects a score).
"""

from __future__ import annotations

import os
import stat
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Literal, cast

from ..core.answers import answer_groups
from ..core.exceptions import (
    ArgumentTypeError,
    IdTypeWarning,
    InputError,
    MissingPredictionError,
)
from ._bulk import decode_fast, fast_annotations_possible, load_fast
from ._dataset import QuestionId, VQADataset
from ._json import (
    PathLike,
    display_name,
    is_jsonl,
    object_pairs,
    parse_json_or_jsonl,
    read_bytes,
)
from .layouts import item_id

__all__ = [
    "Matched",
    "QuestionId",
    "ReadAhead",
    "VQADataset",
    "load_annotations",
    "load_questions",
    "load_results",
    "match_predictions",
]

OnDuplicate = Literal["error", "last"]

_QUESTION_HEADER = ("info", "task_type", "data_type", "data_subtype", "license")


def _where(name: str, i: int, lines: list[int] | None) -> str:
    return f"{name}: line {lines[i]}" if lines is not None else f"{name}: entry {i + 1}"


def load_annotations(
    path: PathLike,
    *,
    on_duplicate: OnDuplicate = "error",
    meanwhile: Callable[[], object] | None = None,
    answer_tracer: Callable[[list[str]], Any] | None = None,
) -> VQADataset:
    """Load and validate an annotations file (see the module docstring for the layouts).

    Parameters
    ----------
    path : str or os.PathLike
        The official annotations JSON, or a flat list / JSONL of ``{question_id, answers}``.
    on_duplicate : {"error", "last"}, default="error"
        A repeated question id is an error, or the last record is kept.

    Returns
    -------
    VQADataset
        The questions in file order, column by column.

    Raises
    ------
    InputError
        Malformed input; the message names the file and the question id or line.

    *meanwhile* is called while a child process decodes part of a large file (and not at all
    otherwise), for work that can overlap with it, such as a :class:`ReadAhead`.
    *answer_tracer* is called by that child with the distinct answer texts once it has them
    (the scorer's answer side, ``kernels._fast.AnswerTracer``); its result is kept with the
    dataset's answer codes (``AnswerCodes.traces``).
    """
    name = display_name(path)
    jsonl = is_jsonl(path)
    if not jsonl and fast_annotations_possible():
        fast = load_fast(name, path, meanwhile, answer_tracer)
        if fast is not None:
            return fast
    raw = read_bytes(path)
    data, lines = parse_json_or_jsonl(name, raw, jsonl)
    del raw
    if isinstance(data, dict):
        data = official_annotations(data, name)
    data = _nonempty_list(data, name, "a list of questions or the official layout", "questions")
    return _dataset_from_records(name, data, lines, on_duplicate)


def official_annotations(document: Mapping[str, Any], name: str = "<annotations>") -> list[Any]:
    """The question records of the official annotations document (``{"annotations": [...]}``,
    a file's or one already loaded)."""
    if "annotations" not in document:
        keys = ", ".join(sorted(map(str, document))) or "none"
        raise InputError(
            f"{name}: expected the official layout with an 'annotations' list, or a list "
            f"of questions; found an object with keys: {keys}"
        )
    data = document["annotations"]
    if not isinstance(data, list):
        raise InputError(f"{name}: 'annotations' must be a list, got {type(data).__name__}")
    return data


def _nonempty_list(data: Any, name: str, expected: str, what: str) -> list[Any]:
    """*data* when it is a non-empty JSON list; else the one-line error saying what was
    *expected* of the file, or that it holds no *what*."""
    if not isinstance(data, list):
        raise InputError(f"{name}: expected {expected}, got a JSON {type(data).__name__}")
    if not data:
        raise InputError(f"{name}: contains no {what}")
    return data


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
        qid = item_id(rec["question_id"], _where(name, i, lines), "question_id")
        where = f"{name}: question {qid!r}"
        field = "answers" if "answers" in rec else "answer"  # OK-VQA's lists are 'answer'
        raw = rec.get(field)
        if raw is None:
            if field in rec:
                raise InputError(f"{where}: {field!r} is null, expected the list of answers")
            raise InputError(f"{where}: missing 'answers'")
        if isinstance(raw, str) or not isinstance(raw, list):
            raise InputError(f"{where}: {field!r} must be a list, got {raw!r:.60}")
        if not raw:
            raise InputError(f"{where}: has no answers")
        try:
            texts, grp = answer_groups(raw)
        except TypeError as exc:
            raise InputError(f"{where}: {_bad_answer(raw, field) or exc}") from None
        if plain and not isinstance(raw[0], str):
            plain = False
        if qid in index:
            if on_duplicate == "error":
                first = _where(name, index[qid], lines).removeprefix(f"{name}: ")
                raise InputError(
                    f"{where}: duplicate question id (first at {first}); "
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
        images[j] = _opt_image(rec, where)
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


def _bad_answer(raw: list[Any], field: str) -> str | None:
    """The first answer record of *raw* (the *field* list) whose ``answer`` is null or absent,
    said so (the error path only); ``None`` when the problem is another one, which the answer
    reader's own message words."""
    for k, rec in enumerate(raw, 1):
        if isinstance(rec, str):
            continue
        if not isinstance(rec, dict):
            return None  # the first bad answer is of another kind
        value = rec.get("answer")
        if value is None:
            if "answer" not in rec:
                return f"answer record {k} of {field!r} has no 'answer'"
            return f"answer record {k} of {field!r}: its 'answer' is null, expected a string"
        if not isinstance(value, str):
            return None
    return None


def _opt_image(rec: Mapping[str, Any], where: str) -> QuestionId | None:
    """``image_id`` (or the LAVIS ``image`` path): the cluster of the question for intervals."""
    key = "image_id" if "image_id" in rec else "image"
    value = rec.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise InputError(f"{where}: '{key}' must be an integer or a string, got {value!r:.60}")
    return value


def _opt_str(rec: Mapping[str, Any], key: str, where: str) -> str | None:
    value = rec.get(key)
    if value is None or isinstance(value, str):
        return value
    raise InputError(f"{where}: '{key}' must be a string, got {value!r:.60}")


@dataclass(frozen=True, eq=False)
class Results:
    """Predictions as ``(question_id, answer)`` pairs, in file order, duplicates kept."""

    source: str
    #: ``None``: an empty cell or a null answer, a missing prediction (the one rule)
    pairs: Sequence[tuple[QuestionId, str | None]]
    #: the column the answers were read from, as the user's file names it (sheets and logs),
    #: for a message about an empty cell; ``None`` for the official list
    answer_column: str | None = None
    #: the pairs as two columns (ids, answers), where the reader had them so (matching then
    #: need not take the pairs apart again)
    _columns: tuple[list[QuestionId], list[str | None]] | None = field(default=None, repr=False)

    def __repr__(self) -> str:
        return f"<Results {self.source}: {len(self.pairs)} predictions>"


def load_results(path: PathLike, *, ahead: ReadAhead | None = None) -> Results:
    """Load and validate a results file.

    Parameters
    ----------
    path : str or os.PathLike
        The official list of ``{question_id, answer}``, JSONL, or a ``{qid: answer}`` mapping.
    ahead : ReadAhead, optional
        A read-ahead that may have decoded the file already (internal; see ``evaluate_vqa``).

    Returns
    -------
    Results
        The ``(question_id, answer)`` pairs in file order, duplicates kept (matching decides).

    Raises
    ------
    InputError
        Malformed input, or an answer that is not a string; the message names the question.
    """
    name = display_name(path)
    preds = ahead.take("results", path) if ahead is not None else None
    if preds is not None:
        return _fast_results(name, preds)
    return results_from_bytes(name, read_bytes(path), is_jsonl(path))


def results_from_bytes(name: str, raw: bytes, jsonl: bool) -> Results:
    """:func:`load_results` on bytes already read (a pipe, standard input, a gzip stream)."""
    if not jsonl:
        preds = decode_fast(raw, "results")
        if _fast_usable("results", preds):
            return _fast_results(name, preds)
    data, lines = parse_json_or_jsonl(name, raw, jsonl)
    if isinstance(data, dict):
        pairs = []
        for key, answer in object_pairs(raw):  # a repeated key is a duplicate prediction
            if not isinstance(answer, str):
                raise InputError(
                    f"{name}: question {key!r}: answer must be a string, got {answer!r:.60}"
                )
            pairs.append((_int_if_decimal(key), answer))
        if not pairs:
            raise InputError(f"{name}: contains no predictions")
        return Results(name, pairs)
    expected = "a list of {question_id, answer} or a {question_id: answer} object"
    data = _nonempty_list(data, name, expected, "predictions")
    pairs = []
    for i, rec in enumerate(data):
        if not isinstance(rec, dict):
            raise InputError(
                f"{_where(name, i, lines)}: a prediction must be an object with "
                f"'question_id' and 'answer', got {rec!r:.60}"
            )
        if "question_id" not in rec:
            raise InputError(f"{_where(name, i, lines)}: missing 'question_id'")
        qid = item_id(rec["question_id"], _where(name, i, lines), "question_id")
        if "answer" not in rec:
            raise InputError(
                f"{name}: question {qid!r}: prediction has no 'answer' (fields: "
                f"{', '.join(map(str, rec))}); name the answer field with --answer-field"
            )
        answer = rec["answer"]
        if not isinstance(answer, str):
            raise InputError(
                f"{name}: question {qid!r}: answer must be a string, got {answer!r:.60}"
            )
        pairs.append((qid, answer))
    return Results(name, pairs)


def _fast_results(name: str, preds: list[Any]) -> Results:
    """:class:`Results` from the decoded prediction structs."""
    qids = list(map(attrgetter("question_id"), preds))
    answers = list(map(attrgetter("answer"), preds))
    return Results(name, list(zip(qids, answers, strict=True)), _columns=(qids, answers))


def _fast_usable(what: str, decoded: Any) -> bool:
    """Whether the fast decode of a results or questions file is used (if not, the slow path
    reads the file again and words what is wrong, e.g. "contains no predictions")."""
    return bool(decoded) if what == "results" else decoded is not None


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
        item_id(qid, source, "question_id")
        if not isinstance(answer, str):
            raise InputError(
                f"{source}: question {qid!r}: answer must be a string, got {answer!r:.60}"
            )
    return Results(source, items)


def load_questions(
    path: PathLike | Mapping[str, Any],
    dataset: VQADataset | None = None,
    *,
    ahead: ReadAhead | None = None,
) -> int:
    """Validate an official questions file; returns its number of questions.

    The official script copies five header keys from it and fails without them (spec §2); the
    question text never affects a score, so nothing else is kept. *ahead*: a
    :class:`ReadAhead` that may have decoded it already.
    """
    if isinstance(path, Mapping):  # the document, already loaded
        return _question_count("<questions>", path, dataset)
    if not isinstance(path, str | os.PathLike):
        raise ArgumentTypeError(
            "questions must be a path or the official {'questions': [...]} document, got "
            f"{type(path).__name__}"
        )
    name = display_name(path)
    fast = ahead.take("questions", path) if ahead is not None else None
    if fast is not None:
        return _fast_question_count(name, fast, dataset)
    raw = read_bytes(path)
    jsonl = is_jsonl(path)
    if not jsonl:
        fast = decode_fast(raw, "questions")
        if _fast_usable("questions", fast):
            return _fast_question_count(name, fast, dataset)
    data, _ = parse_json_or_jsonl(name, raw, jsonl)
    del raw
    return _question_count(name, data, dataset)


def _question_count(name: str, data: Any, dataset: VQADataset | None) -> int:
    """:func:`load_questions` on the decoded document *data*."""
    if not isinstance(data, Mapping) or not isinstance(data.get("questions"), list):
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
            ids.add(item_id(q["question_id"], f"{name}: entry {i + 1}", "question_id"))
        _check_questions_cover(name, dataset, ids)
    return len(questions)


def _fast_question_count(name: str, fast: Any, dataset: VQADataset | None) -> int:
    """:func:`load_questions` on the decoded ``Questions`` struct."""
    if dataset is not None:
        ids = set(map(attrgetter("question_id"), fast.questions))
        _check_questions_cover(name, dataset, ids)
    return len(fast.questions)


class ReadAhead:
    """The questions and results files, decoded ahead of their turn.

    While a child process decodes a large annotations file, this process has time to spare:
    passed as :func:`load_annotations`'s *meanwhile*, this object decodes the other two files
    then, and :func:`load_questions` and :func:`load_results` take what it decoded (``ahead=``).
    Only a fast decode that they would use is kept, and only of a regular file (a pipe cannot
    be read twice); anything else (a missing file, an error) is left to them, so every check
    and message still comes at its usual turn.
    """

    def __init__(self, questions: PathLike | None, results: PathLike | None) -> None:
        self._paths = {"questions": questions, "results": results}
        self._decoded: dict[str, Any] = {}

    def __call__(self) -> None:
        for what, path in self._paths.items():
            if path is not None and not is_jsonl(path) and _is_regular_file(path):
                try:
                    raw = read_bytes(path)
                except InputError:
                    continue  # worded again at its turn
                decoded = decode_fast(raw, what)
                if _fast_usable(what, decoded):
                    self._decoded[what] = decoded

    def take(self, what: str, path: PathLike) -> Any:
        """The decoded *what* file if it is *path* and was decoded ahead, else ``None``."""
        if self._paths.get(what) is not path:
            return None
        return self._decoded.pop(what, None)


def _is_regular_file(path: PathLike) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _check_questions_cover(name: str, dataset: VQADataset, ids: set[Any]) -> None:
    if ids.issuperset(dataset.question_ids):
        return
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

    def __repr__(self) -> str:
        return (
            f"<Matched {len(self.predictions)} predictions, {len(self.missing)} missing, "
            f"{len(self.extra)} extra, {self.duplicates} duplicates>"
        )


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
    (the script's behaviour: the last one wins) say otherwise. An empty prediction (``None``:
    an empty sheet cell, a null answer) is a missing one, by the rule every task follows. Ids
    spelled ``"1000"`` in one file and ``1000`` in the other are matched with an
    :class:`IdTypeWarning`.
    """
    index = dataset.index
    exact = _exact_match(index, results, len(dataset))
    if exact is not None:
        return Matched(exact, [], [], 0, 0)
    preds: list[str | None] = [None] * len(dataset)
    seen = bytearray(len(dataset))
    extra: list[QuestionId] = []
    duplicates = 0
    fixed = 0
    had_none = False
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
        had_none = had_none or answer is None
    if extra and not ignore_extra:
        raise InputError(
            f"{name}: question {extra[0]!r}: prediction for a question that is not in "
            f"{dataset.source} ({len(extra)} such prediction(s)); pass --ignore-extra to skip them"
        )
    # an empty cell (rare: only sheets and logs have them) is a missing prediction
    empty = [j for j in range(len(dataset)) if seen[j] and preds[j] is None] if had_none else []
    column = f"the {results.answer_column!r} cell; " if results.answer_column else ""
    missing = [dataset.question_ids[j] for j in range(len(dataset)) if preds[j] is None]
    if empty and not allow_missing:
        raise MissingPredictionError(
            f"{name}: question {dataset.question_ids[empty[0]]!r}: empty prediction "
            f"({column}{len(empty)} empty, {len(missing)} of {len(dataset)} question(s) "
            "missing); pass --allow-missing to score them 0"
        )
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


def _exact_match(
    index: Mapping[QuestionId, int], results: Results, n: int
) -> list[str | None] | None:
    """The predictions in question order when *results* name every question once, each with
    its dataset spelling and a non-empty answer (the usual file: nothing to warn or refuse, and
    :func:`match_predictions` need not look at each pair); ``None`` otherwise."""
    pairs = results.pairs
    if len(pairs) != n or not n:
        return None
    columns = results._columns
    qids, answers = columns if columns is not None else zip(*pairs, strict=True)
    found = list(map(index.get, qids))
    if None in answers:
        return None
    if found == list(range(n)):  # the file lists the questions in the dataset's order
        return list(answers)
    if None in found:
        return None
    rows = cast("list[int]", found)
    np = sys.modules.get("numpy")  # imported by the bulk loader for a large file
    if np is not None and n >= _PLACED_BY_NUMPY:
        at = np.array(rows, dtype=np.int64)
        seen = np.zeros(n, dtype=np.bool_)
        seen[at] = True
        if not seen.all():  # n rows of n, but some twice: a duplicate
            return None
        placed = np.empty(n, dtype=object)
        placed[at] = answers if isinstance(answers, list) else list(answers)
        return placed.tolist()  # type: ignore[no-any-return]
    if len(set(rows)) != n:
        return None
    preds: list[str | None] = [None] * n
    for j, answer in zip(rows, answers, strict=True):
        preds[j] = answer
    return preds


#: from this many predictions (with numpy already imported) the rows are placed by numpy:
#: 214k predictions in 10 ms instead of 35
_PLACED_BY_NUMPY = 10_000


def _other_spelling(qid: QuestionId) -> QuestionId | None:
    """The other JSON spelling of an id (``1000`` / ``"1000"``); ``"007"`` has none."""
    if isinstance(qid, int):
        return str(qid)
    value = _int_if_decimal(qid)
    return value if isinstance(value, int) else None


def as_dataset(
    records: Sequence[Mapping[str, Any]],
    source: str = "<annotations>",
    on_duplicate: OnDuplicate = "error",
) -> VQADataset:
    """Build a :class:`VQADataset` from in-memory records (same layouts as the files)."""
    return _dataset_from_records(source, list(records), None, on_duplicate)
