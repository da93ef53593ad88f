"""A task's own judge stage: ask the judge about the items that have no recorded extraction or
verdict, and count the run as every judged run is counted.

A task builds each asked item's prompt and says how the toolkit reads the reply; this module
sends them (cached, bounded: :class:`~vqametrics.judge.JudgeClient`), records one
:class:`~vqametrics.judge.Judgement` per item and names the run in the signature
(``judge:MODEL/prompt:ID``). Items whose call failed fail the run unless ``--allow-unjudged``.

A toolkit that asks again (VLMEvalKit: up to 5 tries at temperature 0, 0.5, 1, 1.5, 2 when the
API gives no answer; lmms-eval: up to 5 tries when the reply is empty) is followed through
:class:`Tries`: each further try is its own request with its own temperature and cache entry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .client import check_judged
from .uses import Judgement, JudgeStats

__all__ = ["ONCE", "StageResult", "Tries", "ask_judge"]


def _no_reply(reply: str | None) -> bool:
    return reply is None


@dataclass(frozen=True)
class Tries:
    """How a toolkit asks about one prompt: the temperature of each try in order (their count
    is the most tries), the ``max_tokens`` it sends (``None``: the client's), and *again*:
    whether a reply (``None``: no answer) calls for the next try."""

    temperatures: tuple[float, ...] = (0.0,)
    max_tokens: int | None = None
    again: Callable[[str | None], bool] = _no_reply


#: one try at temperature 0 with the client's max_tokens
ONCE = Tries()


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
    tries: Tries = ONCE,
) -> StageResult:
    """Send each ``(position, prompt)`` of *asks*, with the toolkit's *tries*; *read_reply*
    turns the last reply into the item's decision (``None``: the reply decides nothing, the
    item stays unjudged). *decided* are the items the toolkit's own rules settle without a
    call (``by="rules"``).

    Raises
    ------
    UnjudgedError
        A call got no reply and the client does not allow unjudged items.
    """
    out: dict[int, Judgement] = {i: Judgement(value, by="rules") for i, value in decided}
    first = tries.temperatures[0]
    replies = client.complete_many(
        [p for _, p in asks], temperature=first, max_tokens=tries.max_tokens
    )
    for (i, prompt), r in zip(asks, replies, strict=True):
        calls, cached = r.calls, r.cached
        for attempt, temperature in enumerate(tries.temperatures[1:], start=1):
            if not tries.again(r.response):
                break
            r = client.complete(
                prompt, attempt=attempt, temperature=temperature, max_tokens=tries.max_tokens
            )
            calls += r.calls
        value = read_reply(r.response) if r.response is not None else None
        out[i] = Judgement(value, prompt, r.response, cached, calls, r.error)
    stats = JudgeStats.of(label, list(out.values()))
    allow = bool(getattr(client, "allow_unjudged", False))
    value = check_judged(label, stats.failed, stats.asked, stats.failures, allow=allow)
    return StageResult(dict(sorted(out.items())), stats, value)
