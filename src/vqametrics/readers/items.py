"""What a reader hands to a task: the items of one run and the options that read them.

These types live beside the readers (not in ``tasks/``) so one adapter per toolkit layout can
build items for any task; ``tasks._base`` re-exports them under their old names.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, overload

__all__ = [
    "TOOLKIT_SCORE",
    "Item",
    "ItemColumns",
    "ItemId",
    "TaskData",
    "TaskInputs",
    "item_column",
]

ItemId = str | int
#: the item field holding the per-sample score the toolkit itself recorded
TOOLKIT_SCORE = "toolkit_score"


@dataclass(frozen=True)
class Item:
    """One question: its id, the model's answer, and what that answer is compared with.

    ``fields`` holds everything else a scorer or an aggregation needs (``split``,
    ``category``, ``answer_type``, ``image``, ``question``, ``dataset_name``, …).
    ``prediction`` is ``None`` for a question without one (scored 0 when allowed).
    """

    id: ItemId
    prediction: str | None
    references: tuple[str, ...]
    fields: Mapping[str, Any] = field(default_factory=dict)


class ItemColumns(Sequence[Item]):
    """Items held as columns, each :class:`Item` built only when asked for: the reader of a
    very large run (VQA v2's 214k questions) gives these, and the runner's bulk steps read
    whole columns (:func:`item_column`) instead of building one object per item.

    *fields* maps a field name to its column; an item's ``fields`` hold its non-``None``
    values, so ``items[i]`` equals the :class:`Item` a list-building reader would give.
    """

    __slots__ = ("_fields", "_ids", "_predictions", "_references")

    def __init__(
        self,
        ids: Sequence[ItemId],
        predictions: Sequence[str | None],
        references: Sequence[Sequence[str]],
        fields: Mapping[str, Sequence[Any]],
    ) -> None:
        n = len(ids)
        if (
            len(predictions) != n
            or len(references) != n
            or any(len(c) != n for c in fields.values())
        ):
            raise ValueError("ItemColumns: every column needs one value per item")
        self._ids, self._predictions, self._references = ids, predictions, references
        self._fields = dict(fields)

    def __len__(self) -> int:
        return len(self._ids)

    @overload
    def __getitem__(self, i: int) -> Item: ...
    @overload
    def __getitem__(self, i: slice) -> list[Item]: ...
    def __getitem__(self, i: int | slice) -> Item | list[Item]:
        if isinstance(i, slice):
            return [self._item(j) for j in range(*i.indices(len(self)))]
        j = i + len(self) if i < 0 else i
        if not 0 <= j < len(self):
            raise IndexError("item index out of range")
        return self._item(j)

    def __iter__(self) -> Iterator[Item]:
        return map(self._item, range(len(self)))

    def _item(self, i: int) -> Item:
        fields = {k: v for k, col in self._fields.items() if (v := col[i]) is not None}
        return Item(self._ids[i], self._predictions[i], tuple(self._references[i]), fields)

    @property
    def field_names(self) -> frozenset[str]:
        """The fields held as columns (no item carries any other)."""
        return frozenset(self._fields)

    def column(self, name: str) -> Sequence[Any]:
        """The column *name*: ``id``, ``prediction``, ``references`` (each item's as held, a
        sequence of str) or a field's (``None`` where an item lacks it), as held, not copied."""
        if name == "id":
            return self._ids
        if name == "prediction":
            return self._predictions
        if name == "references":
            return self._references
        col = self._fields.get(name)
        return [None] * len(self) if col is None else col


def item_column(items: Sequence[Item], name: str) -> Sequence[Any]:
    """``id``, ``prediction``, ``references`` or field *name* (``None`` where absent) of every
    item, in order: read from the columns of :class:`ItemColumns` without building items."""
    if isinstance(items, ItemColumns):
        return items.column(name)
    if name in ("id", "prediction", "references"):
        return [getattr(it, name) for it in items]
    return [it.fields.get(name) for it in items]


@dataclass(frozen=True)
class TaskInputs:
    """What the user gave: files (or in-memory data) and the reading options."""

    results: Any
    annotations: Any = None
    questions: Any = None
    format: str | None = None
    id_field: str | None = None
    answer_field: str | None = None
    allow_missing: bool = False
    ignore_extra: bool = False
    on_duplicate: Literal["error", "last"] = "error"
    #: task-specific options (``dataset_name`` for OCRBench, ``choices`` for GQA, …)
    options: Mapping[str, Any] = field(default_factory=dict)
    #: the toolkit's own scores (``--reported FILE``); by default looked for beside the results
    reported: Any = None
    #: the profile being scored (``None``: the default), for a reader whose notes or
    #: decisions depend on it (VQA v2's leave-one-out warning; MMMU, MMMU-Pro and ScienceQA
    #: decide their letters, random draws included, in ``read``)
    profile: str | None = None

    @property
    def join_rules(self) -> dict[str, Any]:
        """The options of every join to the ground truth (missing, extra and repeated items),
        as keyword arguments: ``join_by_id(..., **inputs.join_rules)``."""
        return {
            "allow_missing": self.allow_missing,
            "ignore_extra": self.ignore_extra,
            "on_duplicate": self.on_duplicate,
        }


@dataclass(frozen=True)
class TaskData:
    """The items of one run, read and joined, with what the reader recognized."""

    items: Sequence[Item]
    #: the inputs as named in messages and outputs
    sources: tuple[str, ...]
    #: what the reader recognized, e.g. ``("vlmevalkit-xlsx",)`` or ``("textvqa-json",
    #: "llava-answers")``; shown beside the signature
    layouts: tuple[str, ...]
    notes: tuple[str, ...] = ()
    #: the toolkit's own numbers when the reader found them (VLMEvalKit's ``_acc.csv``)
    reported: Mapping[str, Any] | None = None
    #: task-specific data the aggregation needs beyond the items (GQA's question dict, …)
    extra: Mapping[str, Any] = field(default_factory=dict)
    n_missing: int = 0
    n_extra_ignored: int = 0
    #: predictions given twice for one item, of which the last was kept (``on_duplicate="last"``)
    n_duplicates: int = 0
