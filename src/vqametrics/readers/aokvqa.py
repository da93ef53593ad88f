"""Load A-OKVQA's original schema (direct answers *and* four choices) and its predictions.

A-OKVQA has no verified data licence: vqametrics reads it, never bundles it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeGuard

from ..core.exceptions import InputError
from ._json import PathLike, display_name, object_pairs, read_bytes, read_json_or_jsonl
from .join import check_unique

__all__ = ["AOKVQAItem", "AOKVQAPrediction", "load_aokvqa", "load_aokvqa_predictions"]

_MAX_CHOICES = 25


@dataclass(frozen=True)
class AOKVQAItem:
    """One A-OKVQA question in its original schema."""

    question_id: str
    choices: tuple[str, ...]
    correct_choice_idx: int
    direct_answers: tuple[str, ...]
    difficult_direct_answer: bool = False


@dataclass(frozen=True)
class AOKVQAPrediction:
    """A prediction for :func:`compare_aokvqa`: see :func:`load_aokvqa_predictions`."""

    answer: str
    multiple_choice: str | None = None
    rotations: tuple[str, ...] | None = None


def load_aokvqa(
    path: PathLike, *, on_duplicate: Literal["error", "last"] = "error"
) -> list[AOKVQAItem]:
    """Load A-OKVQA in its original schema (``aokvqa_v1p0_<split>.json``).

    Each record needs ``question_id`` (str), ``direct_answers`` (non-empty list of str),
    ``choices`` (at least 2 str) and ``correct_choice_idx`` (an index into ``choices``). A
    question id given twice is an error naming both records, unless *on_duplicate* is
    ``"last"`` (the one rule for repeated rows, :func:`~vqametrics.readers.join.check_unique`).

    Raises
    ------
    InputError
        One line naming the file and the question id.
    """
    name = display_name(path)
    data, lines = read_json_or_jsonl(path)
    if not isinstance(data, list) or not data:
        raise InputError(
            f"{name}: expected a non-empty list of A-OKVQA questions "
            "(question_id, direct_answers, choices, correct_choice_idx)"
        )
    items = []
    places = []
    for i, rec in enumerate(data):
        place = f"{name}: line {lines[i]}" if lines else f"{name}: entry {i + 1}"
        if not isinstance(rec, dict) or not isinstance(rec.get("question_id"), str):
            raise InputError(f"{place}: expected an object with a string 'question_id'")
        qid = rec["question_id"]
        where = f"{name}: question {qid!r}"
        places.append(place)
        das = rec.get("direct_answers")
        if not _str_list(das, 1):
            raise InputError(f"{where}: 'direct_answers' must be a non-empty list of strings")
        choices = rec.get("choices")
        if not _str_list(choices, 2) or len(choices) > _MAX_CHOICES:
            raise InputError(
                f"{where}: 'choices' must be a list of 2 to {_MAX_CHOICES} strings "
                "(option letters A-Y; Z means 'none of them')"
            )
        idx = rec.get("correct_choice_idx")
        if isinstance(idx, bool) or not isinstance(idx, int) or not 0 <= idx < len(choices):
            raise InputError(
                f"{where}: 'correct_choice_idx' must be an index into the "
                f"{len(choices)} choices, got {idx!r}"
            )
        items.append(
            AOKVQAItem(
                qid, tuple(choices), idx, tuple(das), bool(rec.get("difficult_direct_answer"))
            )
        )
    keep = check_unique(
        [it.question_id for it in items], places, on_duplicate=on_duplicate, warn=True
    )
    return [items[k] for k in keep]


def _str_list(value: object, minimum: int) -> TypeGuard[list[str]]:
    return (
        isinstance(value, list) and len(value) >= minimum and all(isinstance(v, str) for v in value)
    )


def load_aokvqa_predictions(
    path: PathLike, *, on_duplicate: Literal["error", "last"] = "error"
) -> dict[str, AOKVQAPrediction]:
    """Load predictions for :func:`compare_aokvqa`; a question given twice is an error unless
    *on_duplicate* is ``"last"`` (the last one is kept, as for VQA predictions).

    Accepted layouts (JSON or JSONL):

    * a list of ``{"question_id": str, "answer": str, "multiple_choice": str,
      "multiple_choice_rotations": [str, ...]}`` — ``answer`` is the free-text (direct) answer
      and is required (``direct_answer`` is accepted as its alias); the other two are optional;
    * the allenai/aokvqa format ``{question_id: {"direct_answer": str, "multiple_choice": str}}``
      (``answer`` and ``multiple_choice_rotations`` accepted too), or ``{question_id: str}``.

    ``multiple_choice`` is the chosen option's text or its letter (``"B"``);
    ``multiple_choice_rotations[k]`` is the answer given when the options were rotated left by
    *k* (see :func:`vqametrics.mmbench.circular.rotate_options`), so its letters refer to the
    rotated order. See :func:`match_choice` for how each is mapped to a choice. Bad input
    raises ``InputError`` as :func:`load_aokvqa` does.
    """
    name = display_name(path)
    data, lines = read_json_or_jsonl(path)
    entries: list[tuple[str, object, str]] = []
    if isinstance(data, dict):
        for key, value in object_pairs(read_bytes(path)):  # a repeated key is a duplicate
            entries.append((key, value, f"{name}: question {key!r}"))
    elif isinstance(data, list):
        for i, rec in enumerate(data):
            where = f"{name}: line {lines[i]}" if lines else f"{name}: entry {i + 1}"
            if not isinstance(rec, dict) or "question_id" not in rec:
                raise InputError(f"{where}: expected an object with 'question_id' and 'answer'")
            qid = rec["question_id"]
            if not isinstance(qid, str):
                raise InputError(f"{where}: question_id must be a string, got {qid!r}")
            entries.append((qid, rec, f"{name}: question {qid!r}"))
    else:
        raise InputError(
            f"{name}: expected a list of {{question_id, answer, ...}} or an object keyed by "
            f"question id, got a JSON {type(data).__name__}"
        )
    if not entries:
        raise InputError(f"{name}: contains no predictions")
    out: dict[str, AOKVQAPrediction] = {}
    for qid, value, where in entries:
        if qid in out and on_duplicate == "error":
            raise InputError(
                f"{where}: duplicate prediction; pass --on-duplicate last to keep the last one"
            )
        out[qid] = _aokvqa_prediction(value, where)
    return out


def _aokvqa_prediction(value: object, where: str) -> AOKVQAPrediction:
    if isinstance(value, str):
        return AOKVQAPrediction(value)
    if not isinstance(value, dict):
        raise InputError(f"{where}: a prediction must be a string or an object, got {value!r:.60}")
    answer = value.get("answer", value.get("direct_answer"))
    if not isinstance(answer, str):
        raise InputError(
            f"{where}: 'answer' (or 'direct_answer') must be a string, got {answer!r:.60}"
        )
    mc = value.get("multiple_choice")
    if mc is not None and not isinstance(mc, str):
        raise InputError(f"{where}: 'multiple_choice' must be a string, got {mc!r:.60}")
    rot = value.get("multiple_choice_rotations")
    if rot is not None and not _str_list(rot, 1):
        raise InputError(f"{where}: 'multiple_choice_rotations' must be a list of strings")
    return AOKVQAPrediction(answer, mc, None if rot is None else tuple(rot))
