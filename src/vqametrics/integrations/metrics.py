"""Streaming metrics for evaluation loops: ``update`` per batch, ``merge`` across workers.

The shape of torchmetrics / Hugging Face ``evaluate`` without their dependencies:

    metric = VQAAccuracy(profile="official")
    for batch in loader:
        metric.update(batch_predictions, batch_answers)
    metric.compute()          # percent, as the official aggregate

**Exactness.** The official aggregate is ``100 * S / N`` where ``S`` is a *left-to-right* float
sum over the questions in order. A float sum depends on its order, so a metric keeps every
per-question score and aggregates them only in :meth:`compute`. Two orders:

* without ids, arrival order: ``a.merge(b)`` appends ``b``'s scores after ``a``'s, and equals one
  metric that saw ``a``'s batches, then ``b``'s — to the bit. Merge contiguous shards in file
  order to reproduce the whole-file score.
* with ``update(..., ids=positions)`` (each item's position in the evaluation set, e.g. the
  dataset index), :meth:`compute` sums in ascending id order and counts a repeated id once
  (``DistributedSampler`` pads the last batch by repeating items). Interleaved shards merged in
  any order then give the whole-file score bit for bit.

The state is a plain dict of lists (``state_dict``), picklable and JSON-ready, small enough to
gather across workers (docs/loops.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..aggregate import percent
from ..profiles import Profile, get_profile

__all__ = ["TaskMetric", "VQAAccuracy"]

_STATE_VERSION = 1


def _check_batch(predictions: Sequence[Any], references: Sequence[Any]) -> None:
    if isinstance(predictions, str) or isinstance(references, str):
        raise TypeError("update() takes lists: predictions and references of one batch")
    if len(predictions) != len(references):
        raise ValueError(
            f"update(): {len(predictions)} predictions but {len(references)} references"
        )


class _Streaming:
    """Per-item scores and ids in arrival order; the shared part of every metric here."""

    kind = ""

    def __init__(self) -> None:
        self.scores: list[float] = []
        #: item positions given to ``update(ids=...)``; ``None`` until the first update
        self.ids: list[Any] | None = None

    def __len__(self) -> int:
        return len(self.scores)

    def reset(self) -> None:
        """Forget every score (start a new epoch)."""
        self.scores = []
        self.ids = None

    def _take_ids(self, ids: Sequence[Any] | None, n: int) -> None:
        """Record the batch's ids (all updates give ids, or none does)."""
        had = self.ids is not None if self.scores else None
        if ids is None:
            if had:
                raise ValueError("update(): ids were given before; give them for every batch")
            return
        if had is False:
            raise ValueError("update(): ids were not given before; give them for every batch")
        if isinstance(ids, str) or len(ids) != n:
            raise ValueError(f"update(): ids must be a list of {n} item positions")
        if self.ids is None:
            self.ids = []
        self.ids.extend(ids)

    def _order(self) -> list[int]:
        """Rows to aggregate, in order: arrival order, or ascending id with repeats once."""
        if self.ids is None:
            return list(range(len(self.scores)))
        first: dict[Any, int] = {}
        for row, key in enumerate(self.ids):
            first.setdefault(key, row)
        return [first[k] for k in sorted(first)]

    def _key(self) -> dict[str, Any]:
        raise NotImplementedError

    def _check_compatible(self, other: _Streaming) -> None:
        if type(other) is not type(self) or other._key() != self._key():
            raise ValueError(f"cannot merge {other!r} into {self!r}: different metric or profile")

    def state_dict(self) -> dict[str, Any]:
        """A picklable, JSON-ready snapshot: ``{"kind", "version", ..., "scores": [...]}``."""
        return {"kind": self.kind, "version": _STATE_VERSION, **self._key(), **self._extra_state()}

    def _extra_state(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "ids": None if self.ids is None else list(self.ids)}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Replace this metric's state with *state* (from :meth:`state_dict`)."""
        if state.get("kind") != self.kind or state.get("version") != _STATE_VERSION:
            raise ValueError(
                f"not a {self.kind} state (kind {state.get('kind')!r}, "
                f"version {state.get('version')!r})"
            )
        key = {k: state.get(k) for k in self._key()}
        if key != self._key():
            raise ValueError(f"state was made with {key}, this metric is {self._key()}")
        self._load_extra(state)

    def _load_extra(self, state: Mapping[str, Any]) -> None:
        self.scores = [float(x) for x in state["scores"]]
        ids = state.get("ids")
        self.ids = None if ids is None else list(ids)

    def merge(self, other: _Streaming) -> _Streaming:
        """Append *other*'s scores after this metric's (in place); returns self.

        Order matters for the last bit of the float sum: merge shards in the order the
        whole set would have been scored.
        """
        self._check_compatible(other)
        if self.scores and other.scores and (self.ids is None) != (other.ids is None):
            raise ValueError("cannot merge a metric with ids into one without (or the reverse)")
        if other.ids is not None:
            self.ids = [*(self.ids or []), *other.ids]
        self.scores.extend(other.scores)
        self._merge_extra(other)
        return self

    def _merge_extra(self, other: _Streaming) -> None:
        pass

    def __repr__(self) -> str:
        key = ", ".join(f"{k}={v!r}" for k, v in self._key().items())
        return f"{type(self).__name__}({key}) with {len(self.scores)} item(s)"


class VQAAccuracy(_Streaming):
    """VQA accuracy over a stream of batches; ``compute()`` is the official overall percent.

    ``update(predictions, references)``: *predictions* a list of strings, *references* a list
    of lists of human answers (strings, or answer records as for :func:`vqa_accuracy`). Each
    question is scored by :func:`vqametrics.vqa_accuracy` with the profile.

    >>> m = VQAAccuracy()
    >>> m.update(["crab"], [["crab"] * 3 + ["lobster"] * 7])
    >>> m.update(["Yes"], [["yes"] * 10])
    >>> m.compute()
    45.0
    """

    kind = "vqa-accuracy"

    def __init__(self, profile: str | Profile = "official") -> None:
        super().__init__()
        self.profile = get_profile(profile)

    def _key(self) -> dict[str, Any]:
        return {"profile": self.profile.name}

    def update(
        self,
        predictions: Sequence[str],
        references: Sequence[Sequence[str] | Sequence[Mapping[str, object]]],
        ids: Sequence[Any] | None = None,
    ) -> None:
        """Score one batch and keep its per-question scores, in order (*ids*: each item's
        position in the evaluation set; see the module doc)."""
        from ..kernels.accuracy import vqa_accuracy

        _check_batch(predictions, references)
        single = sum(1 for r in references if len(r) == 1)
        if single:
            import warnings

            from ..core.exceptions import AnswerCountWarning

            warnings.warn(
                f"{single} reference(s) of this batch have one answer: VQA accuracy leaves one "
                "answer out, so those questions score 0 whatever the prediction (pass the "
                "list of human answers)",
                AnswerCountWarning,
                stacklevel=2,
            )
        self._take_ids(ids, len(predictions))
        prof = self.profile
        self.scores.extend(
            vqa_accuracy(p, r, prof) for p, r in zip(predictions, references, strict=True)
        )

    def compute(self, digits: int | None = None) -> float:
        """``100 * S / N`` with ``S`` the left-to-right sum of the scores (unrounded by
        default; ``digits=2`` rounds as the official script prints)."""
        if not self.scores:
            raise ValueError("compute() before any update(): no questions scored")
        return percent([self.scores[i] for i in self._order()], digits)


class TaskMetric(_Streaming):
    """The streaming metric of any registered task (``vqametrics.tasks``).

    ``update(predictions, references, **fields)`` scores each item with the task profile's
    per-item scorer (as :func:`vqametrics.score_answer`); *fields* gives, per item field
    (OCRBench: ``category=``), a list aligned with the batch. ``compute()`` runs
    the profile's own aggregate over every item in order and returns its headline number
    (``aggregate()`` returns all of it, breakdowns included).

    >>> m = TaskMetric("ocrvqa")
    >>> m.update([" Fiction ", "Poetry"], [["fiction"], ["Romance"]])
    >>> m.compute()
    50.0
    """

    kind = "task"

    def __init__(self, task: str, profile: str | None = None) -> None:
        from ..tasks import get_task

        super().__init__()
        self.task = get_task(task)
        self.task_profile = self.task.profile(profile)
        self.references: list[tuple[str, ...]] = []
        self.predictions: list[str] = []
        self.contexts: list[dict[str, Any]] = []

    def _key(self) -> dict[str, Any]:
        return {"task": self.task.name, "profile": self.task_profile.name}

    def reset(self) -> None:
        super().reset()
        self.references, self.predictions, self.contexts = [], [], []

    def update(
        self,
        predictions: Sequence[str],
        references: Sequence[str | Sequence[str]],
        ids: Sequence[Any] | None = None,
        **fields: Sequence[Any],
    ) -> None:
        """Score one batch; keep predictions, references, item fields and scores in order.

        *fields*: per item field, a list aligned with the batch. Those the profile's scorer
        takes (its ``context``, e.g. OCRBench's ``category``) reach the scorer; all reach the
        aggregate as the items' fields (for its breakdowns)."""
        _check_batch(predictions, references)
        self._take_ids(ids, len(predictions))
        prof = self.task_profile
        for key, column in fields.items():
            if isinstance(column, str) or len(column) != len(predictions):
                raise ValueError(f"update(): field {key!r} must be a list aligned with the batch")
        for i, (p, r) in enumerate(zip(predictions, references, strict=True)):
            refs = (r,) if isinstance(r, str) else tuple(r)
            item_fields = {k: v[i] for k, v in fields.items()}
            ctx = {k: item_fields.get(k) for k in prof.context}
            self.scores.append(float(prof.score(p, refs, **ctx)))
            self.predictions.append(p)
            self.references.append(refs)
            self.contexts.append(item_fields)

    def _extra_state(self) -> dict[str, Any]:
        return {
            "scores": list(self.scores),
            "ids": None if self.ids is None else list(self.ids),
            "predictions": list(self.predictions),
            "references": [list(r) for r in self.references],
            "contexts": [dict(c) for c in self.contexts],
        }

    def _load_extra(self, state: Mapping[str, Any]) -> None:
        super()._load_extra(state)
        self.predictions = list(state["predictions"])
        self.references = [tuple(r) for r in state["references"]]
        self.contexts = [dict(c) for c in state["contexts"]]

    def _merge_extra(self, other: _Streaming) -> None:
        assert isinstance(other, TaskMetric)
        self.predictions.extend(other.predictions)
        self.references.extend(other.references)
        self.contexts.extend(other.contexts)

    def aggregate(self) -> Any:
        """The profile's :class:`~vqametrics.tasks.Aggregate` over every item, in order."""
        from ..tasks import Item

        if not self.scores:
            raise ValueError("compute() before any update(): no items scored")
        rows = self._order()
        ids = self.ids
        items = [
            Item(
                row if ids is None else ids[row],
                self.predictions[row],
                self.references[row],
                self.contexts[row],
            )
            for row in rows
        ]
        return self.task_profile.aggregate(items, [self.scores[row] for row in rows])

    def compute(self) -> float:
        """The task's headline number (e.g. accuracy in percent, ANLS, the MME total)."""
        agg = self.aggregate()
        return float(agg.metrics[agg.headline])
