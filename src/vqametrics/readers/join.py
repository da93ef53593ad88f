"""Join predictions to ground-truth items by id, with the same rules in every task.

Every mismatch is an error unless the user asked otherwise: a question without a prediction
(``allow_missing`` scores it 0), a prediction for an unknown question (``ignore_extra``), a
repeated id, in the predictions or in the ground truth (``on_duplicate="last"`` keeps the
last, as most official scripts' dicts do).
Ids written ``"12"`` in one file and ``12`` in the other are matched, and counted.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from ..core.exceptions import InputError, MissingPredictionError
from .answers import text_predictions
from .items import Item, TaskData
from .lmms_eval import TOOLKIT_SCORE, drop_empty
from .records import Records

if TYPE_CHECKING:
    from .items import TaskInputs
    from .layouts import Predictions

__all__ = [
    "Joined",
    "check_unique",
    "disagreement_note",
    "first_spelling",
    "join_by_id",
    "join_inputs",
    "join_truth",
    "joinable_predictions",
    "keyed_by_doc",
    "logged_disagreement",
    "logged_scores",
    "results_predictions",
    "same_ids",
    "unique_items",
    "unique_rows",
    "unique_truth",
]


class Joined(NamedTuple):
    """Predictions aligned with the ground truth; ``None`` where one is missing (a named
    tuple: a frozen dataclass costs ten times its making at import, issue 23)."""

    predictions: list[str | None]
    missing: list[Hashable]
    extra: list[Hashable]
    duplicates: int
    id_type_fixed: int


def check_unique(
    ids: Sequence[Hashable],
    wheres: Sequence[str],
    *,
    what: str = "question id",
    on_duplicate: Literal["error", "last"] = "error",
    warn: bool = False,
) -> list[int]:
    """The rows to keep of a ground truth: a repeated id is an error naming both places, the
    same rule as for predictions, with the same one escape (``on_duplicate="last"`` keeps the
    last row of each id, at the place of the first; :func:`unique_rows`, which also gives the
    note). *warn*: the note becomes a warning, for a loader that returns no notes."""
    keep, note = unique_rows(ids, wheres, what=what, on_duplicate=on_duplicate)
    if warn and note is not None:
        import warnings

        from ..core.exceptions import VqaMetricsWarning

        warnings.warn(note, VqaMetricsWarning, stacklevel=3)
    return keep


def unique_rows(
    ids: Sequence[Hashable],
    wheres: Sequence[str] | Callable[[int], str],
    *,
    what: str = "question id",
    on_duplicate: Literal["error", "last"] = "error",
) -> tuple[list[int], str | None]:
    """The rows to keep of a file whose rows are its items (ground truth inside), by the one
    rule for repeated ids: an error naming both places, or with ``on_duplicate="last"`` the
    last row of each id, kept at the place of the first; with a note counting them.

    Ids written ``12`` and ``"12"`` are the same item. *wheres* gives row *i*'s place, as a
    sequence or a function (``Records.where``: a place is made only for a message).
    """
    if all(type(k) is int for k in ids) and len(set(ids)) == len(ids):
        return list(range(len(ids))), None  # distinct integers (LLaVA's ids): none repeats
    place = wheres.__getitem__ if isinstance(wheres, Sequence) else wheres
    first: dict[Hashable, int] = {}
    last: dict[int, int] = {}
    for i, key in enumerate(ids):
        text = _text(key)
        norm: Hashable = text if text else key
        j = first.setdefault(norm, i)
        if j != i:
            if on_duplicate == "error":
                raise InputError(
                    f"{place(i)}: duplicate {what} {key!r} (first at {place(j)}; pass "
                    "--on-duplicate last to keep the last one)"
                )
            last[j] = i
    keep = [last.get(j, j) for j in sorted(first.values())]
    if not last:
        return keep, None
    dropped = len(ids) - len(keep)
    return (
        keep,
        f"{dropped} repeated {what} row(s): the last of each was kept (--on-duplicate last)",
    )


def disagreement_note(differ: Sequence[Hashable], what: str, truth: str) -> str | None:
    """The note when a results file's own ground truth differs from the annotations given
    beside it (the annotations win, everywhere): ``None`` when nothing differs, else the count
    and the first three ids of *what* (``"doc answer(s) of log.jsonl"``)."""
    if not differ:
        return None
    shown = ", ".join(repr(q) for q in differ[:3])
    return f"{len(differ)} {what} differ from {truth} (e.g. {shown}); {truth} was used"


def join_by_id(
    gt_ids: Sequence[Hashable],
    pred_ids: Sequence[Hashable],
    pred_texts: Sequence[str | None],
    *,
    source: str,
    wheres: Sequence[str] | None = None,
    allow_missing: bool = False,
    ignore_extra: bool = False,
    on_duplicate: Literal["error", "last"] = "error",
    what: str = "question id",
) -> Joined:
    """Align *pred_texts* (keyed by *pred_ids*) with *gt_ids*.

    *source* names the predictions in messages; *wheres* (one per prediction) says where each
    prediction was read, for the duplicate error.
    """
    by_id: dict[Hashable, int] = {}
    spelled: dict[str, Hashable] = {}
    duplicates = 0
    for i, key in enumerate(pred_ids):
        # 12 and "12" in one file are the same question written two ways
        text = _text(key)
        if text:
            key = spelled.setdefault(text, key)
        if key in by_id:
            if on_duplicate == "error":
                place = wheres[i] if wheres else source
                raise InputError(
                    f"{place}: duplicate prediction for {what} {key!r} "
                    "(pass --on-duplicate last to keep the last one)"
                )
            duplicates += 1
        by_id[key] = i
    gt_set = set(gt_ids)
    fixed = 0
    if not all(k in gt_set for k in by_id):
        # ids spelled "12" in one file and 12 in the other: match them through their text
        gt_text = {_text(k): k for k in gt_ids}
        remapped: dict[Hashable, int] = {}
        for key, i in by_id.items():
            if key not in gt_set and _text(key) in gt_text:
                key = gt_text[_text(key)]
                fixed += 1
            remapped[key] = i
        by_id = remapped
    if by_id and gt_ids and not any(k in gt_set for k in by_id):
        first_pred = next(iter(by_id))
        raise InputError(
            f"{source}: none of its {len(by_id)} {what}s is in the ground truth (it has "
            f"{first_pred!r}, the ground truth {gt_ids[0]!r}): is it the results file of this "
            "task, and are --id-field / --answer-field right?"
        )
    predictions: list[str | None] = []
    missing: list[Hashable] = []
    for key in gt_ids:
        j = by_id.get(key)
        if j is None:
            missing.append(key)
            predictions.append(None)
        else:
            predictions.append(pred_texts[j])
    extra = [k for k in by_id if k not in gt_set]
    if missing and not allow_missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        # a prediction whose id matches nothing is most often the missing one, misspelled
        unknown = (
            f"; {_count(len(extra), 'prediction names', 'predictions name')} an unknown "
            f"{what} (first {extra[0]!r}, at {wheres[by_id[extra[0]]] if wheres else source})"
            if extra
            else ""
        )
        raise MissingPredictionError(
            f"{source}: no prediction for {what} {missing[0]!r}{more} "
            f"(pass --allow-missing to score them 0){unknown}"
        )
    if extra and not ignore_extra:
        more = f" and {len(extra) - 1} more" if len(extra) > 1 else ""
        raise InputError(
            f"{source}: prediction for unknown {what} {extra[0]!r}{more} "
            "(pass --ignore-extra to skip them)"
        )
    return Joined(predictions, missing, extra, duplicates, fixed)


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def same_ids(a: Sequence[Hashable], b: Sequence[Hashable]) -> bool:
    """Whether two files list the same items in the same order, ids compared by value as the
    join compares them (``12`` and ``"12"``: a CSV's text and a spreadsheet's number)."""
    return len(a) == len(b) and all(
        x == y or (_text(x) != "" and _text(x) == _text(y)) for x, y in zip(a, b, strict=True)
    )


def first_spelling(ids: Sequence[Hashable]) -> list[Hashable]:
    """*ids* with every id spelled as its first occurrence, ids compared by value (``12`` and
    ``"12"`` are one item): a file whose rows are its items then gives an id written both
    ways once, as a duplicate, never as two items."""
    first: dict[Hashable, Hashable] = {}
    return [first.setdefault(_by_value(k), k) for k in ids]


#: a tuple, not ``int | str``: the union is built anew at every call of a hot function
_ID_TYPES = (int, str)


def _text(key: Hashable) -> str:
    return str(key).strip() if isinstance(key, _ID_TYPES) and not isinstance(key, bool) else ""


def join_inputs(
    gt_ids: Sequence[Hashable],
    preds: Predictions,
    inputs: TaskInputs,
    *,
    ids: Sequence[Hashable] | None = None,
    what: str = "question id",
) -> Joined:
    """:func:`join_by_id` of *preds* (keyed by their ids, or by *ids*) to *gt_ids* under the
    user's options (``--allow-missing``, ``--ignore-extra``, ``--on-duplicate``): the one join
    of a results file to its annotations."""
    return join_by_id(
        gt_ids,
        preds.ids if ids is None else ids,
        preds.texts,
        source=preds.source,
        wheres=preds.wheres,
        what=what,
        **inputs.join_rules,
    )


def unique_truth(
    items: Sequence[Item],
    wheres: Sequence[str],
    source: str,
    *,
    what: str = "question id",
    on_duplicate: Literal["error", "last"] = "error",
) -> tuple[list[Item], tuple[str, ...]]:
    """A ground truth's items each once by the one rule for repeated ids (:func:`unique_rows`),
    and the note naming *source* that counts the rows dropped under ``--on-duplicate last``."""
    kept, note = unique_items(items, wheres, what=what, on_duplicate=on_duplicate)
    return kept, (f"{source} (ground truth): {note}",) if note else ()


def unique_items(
    items: Sequence[Item],
    wheres: Sequence[str],
    *,
    what: str = "question id",
    on_duplicate: Literal["error", "last"] = "error",
) -> tuple[list[Item], str | None]:
    """*items* (one per row at *wheres*) each once by :func:`unique_rows`, and its note."""
    keep, note = unique_rows([it.id for it in items], wheres, what=what, on_duplicate=on_duplicate)
    return [items[i] for i in keep], note


_KEPT = "{n} repeated prediction(s) for a {what}: the last of each was kept (--on-duplicate last)"


def join_truth(
    truth: Sequence[Item],
    sources: Sequence[str],
    preds: Predictions,
    inputs: TaskInputs,
    *,
    layouts: Sequence[str],
    ids: Sequence[Hashable] | None = None,
    truth_ids: Sequence[Hashable] | None = None,
    what: str = "question id",
    notes: Sequence[str] = (),
    missing: str = "{n} question(s) had no prediction and scored 0",
    extra: str = "{n} prediction(s) for unknown questions were ignored",
    reported: Any = None,
) -> TaskData:
    """The ground-truth items *truth* (read from *sources*) with the predictions of *preds*
    joined by id (:func:`join_inputs`; by *ids* against *truth_ids* when the join key is not
    the item id, as LLaVA's (image, question) pairs): the annotations' answers and fields,
    *notes* first, then the counts of questions without a prediction (*missing*) and of
    predictions for unknown ones (*extra*), each a template with ``{n}``, and of the repeated
    predictions kept under ``--on-duplicate last``. The sources are the annotations',
    then the results file."""
    keys = [it.id for it in truth] if truth_ids is None else truth_ids
    joined = join_inputs(keys, preds, inputs, ids=ids, what=what)
    items = [
        Item(it.id, p, it.references, it.fields)
        for it, p in zip(truth, joined.predictions, strict=True)
    ]
    counts = [
        (missing, len(joined.missing)),
        (extra, len(joined.extra)),
        (_KEPT, joined.duplicates),
    ]
    return TaskData(
        items,
        (*sources, preds.source),
        tuple(layouts),
        (*notes, *(template.format(n=n, what=what) for template, n in counts if n)),
        reported,
        n_missing=len(joined.missing),
        n_extra_ignored=len(joined.extra),
    )


def results_predictions(records: Records, inputs: TaskInputs) -> Predictions:
    """A results file's predictions under the user's ``--id-field`` / ``--answer-field``,
    empty ones kept (``None``) for the caller's rule."""
    return text_predictions(
        records,
        id_field=inputs.id_field,
        answer_field=inputs.answer_field,
        allow_missing_answer=True,
    )


def joinable_predictions(records: Records, inputs: TaskInputs) -> Predictions:
    """:func:`results_predictions` to join to a ground truth: an empty one is an error unless
    ``--allow-missing``, then left out for the join to count (:func:`drop_empty`)."""
    return drop_empty(results_predictions(records, inputs), inputs.allow_missing)


def keyed_by_doc(
    preds: Predictions, key: Callable[[Mapping[str, Any], str], Hashable | None]
) -> Predictions:
    """An lmms-eval log's predictions keyed by the id its ``doc`` holds (``key(doc, where)``,
    the annotations' id) instead of ``doc_id``, to be joined to annotations by id; a record
    whose doc holds none (``None``) keeps its own id."""
    ids: list[Hashable] = []
    for row, own, where in zip(preds.records.rows, preds.ids, preds.wheres, strict=True):
        found = key(row["doc"], where)
        ids.append(own if found is None else found)
    return replace(preds, ids=ids)


def logged_scores(items: Sequence[Item], logged: Sequence[Item]) -> list[Item]:
    """*items* (a log joined to annotations, the annotations winning) with the per-sample
    score the toolkit logged for each (``fields["toolkit_score"]`` of the *logged* item of the
    same id, ids compared by value), for the per-sample check."""
    field = TOOLKIT_SCORE
    recorded = {_by_value(it.id): it.fields[field] for it in logged if field in it.fields}
    return [
        replace(it, fields={**it.fields, field: recorded[_by_value(it.id)]})
        if _by_value(it.id) in recorded
        else it
        for it in items
    ]


def logged_disagreement(
    truth: Sequence[Item],
    logged: Sequence[Item],
    what: str,
    truth_name: str = "the annotations",
    compare: Callable[[Sequence[str]], Any] = tuple,
) -> str | None:
    """The note counting the items whose answers in a results file (*logged*: a log's docs, a
    sheet's cells) differ from the annotations' (*truth*, which win), compared through
    *compare* (a log that logs processed answers is compared after that processing)."""
    own = {_by_value(it.id): compare(it.references) for it in logged}
    differ = [
        it.id
        for it in truth
        if _by_value(it.id) in own and own[_by_value(it.id)] != compare(it.references)
    ]
    return disagreement_note(differ, what, truth_name)


def _by_value(key: Hashable) -> Hashable:
    return _text(key) or key
