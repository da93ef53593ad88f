"""A task's own judge stage: ask the judge about the items that have no recorded extraction or
verdict, and count the run as every judged run is counted.

A task builds each asked item's prompt and says how the toolkit reads the reply; this module
sends them (cached, bounded: :class:`~vqametrics.judge.JudgeClient`), records one
:class:`~vqametrics.judge.Judgement` per item and names the run in the signature
(``judge:MODEL/prompt:ID``). Items whose call failed fail the run unless ``--allow-unjudged``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .client import check_judged
from .uses import Judgement, JudgeStats

__all__ = ["StageResult", "ask_judge"]


@dataclass(frozen=True)
class StageResult:
    """The judgements by item position, the counts and the signature's ``judge:`` value."""

    judgements: dict[int, Judgement]
    stats: JudgeStats
    signature_value: str


def ask_judge(
    client: Any,
    asks: Sequence[tuple[int, str]],
    read_reply: Callable[[str], Any],
    label: str,
    *,
    decided: Sequence[tuple[int, Any]] = (),
) -> StageResult:
    """Send each ``(position, prompt)`` of *asks*; *read_reply* turns a reply into the item's
    decision (``None``: the reply decides nothing, the item stays unjudged). *decided* are the
    items the toolkit's own rules settle without a call (``by="rules"``).

    Raises
    ------
    UnjudgedError
        A call got no reply and the client does not allow unjudged items.
    """
    out: dict[int, Judgement] = {i: Judgement(value, by="rules") for i, value in decided}
    replies = client.complete_many([p for _, p in asks])
    for (i, _), r in zip(asks, replies, strict=True):
        value = read_reply(r.response) if r.response is not None else None
        out[i] = Judgement(value, r.prompt, r.response, r.cached, r.calls, r.error)
    stats = JudgeStats.of(label, list(out.values()))
    allow = bool(getattr(client, "allow_unjudged", False))
    value = check_judged(label, stats.failed, stats.asked, stats.failures, allow=allow)
    return StageResult(dict(sorted(out.items())), stats, value)
