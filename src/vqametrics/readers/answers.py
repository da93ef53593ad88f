"""The rules every reader applies to a results file's answer cells, whatever its layout: an
answer in JSON is a string or null, a ground truth under another name is pointed out, and the
toolkit's own numbers are looked for beside the file."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..core.exceptions import InputError
from .items import TaskData, TaskInputs
from .layouts import Predictions, locate_reported, predictions_from
from .records import Records

__all__ = [
    "NoGroundTruthError",
    "found_instead",
    "id_key",
    "not_text_error",
    "reported_scores",
    "require_answers",
    "text_predictions",
]


class NoGroundTruthError(InputError):
    """The results file carries no ground truth and no annotations were given."""


#: field names that hold a ground truth in some file, when another name is expected
_TRUTH_NAMES = ("answer", "answers", "label", "labels", "gt", "gt_answer", "gt_answers")


def found_instead(row: Mapping[str, Any], wanted: str) -> str:
    """What a row holds where the field *wanted* was expected: ``"; 'answer' holds a list of
    10: did you mean 'answers'?"`` when another field looks like the ground truth, else
    ``""`` — so a file that has its answers under another name is not told it has none."""
    for key, value in row.items():
        name = str(key)
        if name == wanted or not (name.lower() in _TRUTH_NAMES or "answer" in name.lower()):
            continue
        if value is None:
            continue
        if isinstance(value, list):
            what = f"a list of {len(value)}"
        elif isinstance(value, str):
            what = f"the text {value[:40]!r}"
        else:
            what = f"{type(value).__name__} {str(value)[:40]}"
        return f"; {name!r} holds {what}: did you mean {wanted!r} (rename the field)?"
    return ""


def not_text_error(where: str, column: str, value: Any) -> InputError:
    """The refusal of a JSON answer that is not a string (``"text": 1``)."""
    return InputError(
        f"{where}: {column!r} is {type(value).__name__} {str(value)[:40]}, expected text (a "
        "model's answer is a string; write it in quotes if that is what the model said)"
    )


def text_predictions(records: Records, **options: Any) -> Predictions:
    """:func:`predictions_from` (same options) with the one rule for answer types: in a JSON
    file each answer is a string or null (an lmms-eval ``filtered_resps`` list holds one);
    a number or a boolean there is an error, never text made from it."""
    preds = predictions_from(records, **options)
    if not records.typed:
        return preds
    column = preds.answer_field
    for row, where in zip(records.rows, preds.wheres, strict=True):
        value = row.get(column)
        while isinstance(value, list) and value:
            value = value[0]
        if value is not None and not isinstance(value, str):
            raise not_text_error(where, column, value)
    return preds


def reported_scores(inputs: TaskInputs) -> dict[str, Any] | None:
    """The toolkit's own numbers: ``--reported FILE``, else found beside the results file."""
    return locate_reported(inputs.results, inputs.reported)


#: a tuple, not ``str | int``: the union is built anew at every call of a hot function
_ID_TYPES = (str, int)


def id_key(key: Any) -> Any:
    """An id as compared across files and formats: ``12`` and ``"12"`` are one id."""
    if isinstance(key, _ID_TYPES) and not isinstance(key, bool):
        return str(key).strip()
    return key


def require_answers(data: TaskData, id_field: str = "question_id") -> TaskData:
    """*data* with every item naming itself in *id_field* (the scorers' messages use it),
    after checking that every item has an answer.

    A question without answers is bad input whatever the profile: MMF asserts ten answers,
    lmms-eval's ``statistics.mean`` raises and VLMEvalKit's ``np.mean([])`` is ``nan``.
    """
    items = []
    for it in data.items:
        if not it.references:
            what = "image" if id_field == "image" else "question"
            raise InputError(f"{data.sources[0]}: {what} {it.id!r} has no answers")
        if id_field not in it.fields:
            it = replace(it, fields={**it.fields, id_field: it.id})
        items.append(it)
    return replace(data, items=items)
