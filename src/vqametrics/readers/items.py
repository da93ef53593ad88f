"""What a reader hands to a task: the items of one run and the options that read them.

These types live beside the readers (not in ``tasks/``) so one adapter per toolkit layout can
build items for any task; ``tasks._base`` re-exports them under their old names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["Item", "ItemId", "TaskData", "TaskInputs"]

ItemId = str | int


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


@dataclass(frozen=True)
class TaskData:
    """The items of one run, read and joined, with what the reader recognized."""

    items: list[Item]
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
