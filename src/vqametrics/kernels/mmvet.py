"""MM-Vet kernels: each toolkit's reading of the judge's 0–1 grade reply, and its aggregation.

Pure functions, no I/O. The judge (GPT-4 class) completes a few-shot table with a correctness
score; the toolkits differ in what reply they accept (spec mcq-reasoning §12):

* official (``yuweihao/MM-Vet`` @ acde843 ``mm-vet_evaluator.py``): the text before the first
  space, stripped, ``float()``-ed; outside [0, 1] or unparseable → asked again (5 tries, then 0.0);
* VLMEvalKit (``vlmeval/dataset/utils/mmvet.py`` ``MMVet_auxeval`` @ e8e78f0): ``float()`` of
  the whole reply; outside [0, 1] or unparseable → asked again (5 tries, then 0.0);
* lmms-eval (``tasks/mmvet/utils.py`` ``mmvet_process_results`` @ 75571cf): the first space-
  separated token; a parse failure raises the temperature by 0.5 (0.0 once it reaches 2), an
  out-of-range value asks again at the same temperature, an empty reply is 0.0 at once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..core.exceptions import InputError

__all__ = [
    "CAPABILITIES",
    "MmvetScoreError",
    "Retry",
    "is_nan",
    "lmms_eval_reply",
    "official_reply",
    "read_replies",
    "vlmevalkit_reply",
]

#: the six capabilities, in the order VLMEvalKit and lmms-eval list them
CAPABILITIES = ("rec", "ocr", "know", "gen", "spat", "math")

Toolkit = Literal["official", "vlmevalkit", "lmms-eval"]


class MmvetScoreError(InputError):
    """The recorded replies do not determine a score, or the reproduced scorer fails."""


@dataclass(frozen=True)
class Retry:
    """A reply the toolkit rejects and asks the judge again about: ``parse`` (not a number)
    or ``range`` (a number outside [0, 1])."""

    reason: Literal["parse", "range"]


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def official_reply(reply: str) -> float | Retry:
    """``float(reply.split(" ")[0].strip())`` when it is in [0, 1].

    QUIRK leading-space: ``" 0.7"`` splits into ``""`` first, so it is rejected; ``0.8 because
    …`` is 0.8. QUIRK nan-passes: ``nan`` is neither ``> 1`` nor ``< 0``, so it is accepted (and
    poisons the mean). Both kept: they are what the recorded official grades were made with.
    """
    score = _float(reply.split(" ")[0].strip())
    if score is None:
        return Retry("parse")
    if score > 1.0 or score < 0.0:
        return Retry("range")
    return score


def vlmevalkit_reply(reply: str) -> float | Retry:
    """``float(reply)`` of the whole reply when it is in [0, 1] (``float`` strips whitespace,
    so ``" 0.7"`` is 0.7 and ``0.8 because …`` is rejected, the opposite of the official rule);
    ``nan`` passes the range test (QUIRK nan-passes)."""
    score = _float(reply)
    if score is None:
        return Retry("parse")
    if score < 0 or score > 1:
        return Retry("range")
    return score


def lmms_eval_reply(reply: str) -> float | Retry:
    """lmms-eval's inline step on the content: ``float(content.split(" ")[0].strip())`` when
    ``0 <= score <= 1`` (so ``nan`` is rejected, unlike the other two); an empty content is
    0.0 at once.

    *reply* is the content as ``get_chat_response`` hands it over, which has already been
    stripped: a raw API reply goes through :func:`read_replies`, which strips it first.
    """
    if reply == "":
        return 0.0
    score = _float(reply.split(" ")[0].strip())
    if score is None:
        return Retry("parse")
    if not 0.0 <= score <= 1.0:
        return Retry("range")
    return score


_TRIES = {"official": 5, "vlmevalkit": 5}


def read_replies(replies: Sequence[str], toolkit: Toolkit) -> tuple[float, int]:
    """The score the toolkit settles on from the judge's successive replies to one item, and
    how many replies it read: the first accepted one; 0.0 when the toolkit gives up (official:
    after 5 replies; VLMEvalKit: after 5; lmms-eval: at the 4th parse failure, temperature 2).

    An lmms-eval reply is stripped first (``get_chat_response`` does). QUIRK discarded-reply:
    after a parse failure lmms-eval fetches a reply in its ``except`` branch and overwrites it
    with the next one before reading it; *replies* are the replies each toolkit READ, so that
    one is not in them. An out-of-range lmms-eval reply is asked again without limit. A list
    that ends before the toolkit settles is an :class:`MmvetScoreError` (the replay needs more).
    """
    parse_failures = 0
    for n, raw in enumerate(replies, start=1):
        if toolkit == "official":
            got = official_reply(raw)
        elif toolkit == "vlmevalkit":
            got = vlmevalkit_reply(raw)
        else:
            got = lmms_eval_reply(raw.strip())
        if not isinstance(got, Retry):
            return got, n
        if toolkit == "lmms-eval":
            if got.reason == "parse":
                parse_failures += 1
                # the failing step asks again at +0.5 and gives up once the temperature is 2
                if parse_failures >= 4:
                    return 0.0, n
            continue
        if n >= _TRIES[toolkit]:
            return 0.0, n
    raise MmvetScoreError(
        f"{len(replies)} recorded judge replies, none accepted by the {toolkit} rule and fewer "
        "than it asks before giving up: the replay needs the next reply"
    )


def is_nan(value: object) -> bool:
    """Whether *value* is a float NaN (a ``nan`` reply the range check let through)."""
    return isinstance(value, float) and math.isnan(value)


# ---------------------------------------------------------------------------- aggregation


def official_capability_scores(
    caps: Sequence[Sequence[str]], runs: Sequence[Sequence[float]]
) -> tuple[dict[str, float], dict[str, tuple[float, int]], list[float]]:
    """``export_result`` of ``mm-vet_evaluator.py`` before its rounding.

    *caps* are the items' capability lists, *runs* their scores per run (all the same length).
    Per run, a capability's score is Σ scores of the items tagged with it / their count × 100
    (left-to-right sums in item order) and ``total`` the same over all items; each value is the
    mean over runs (``np.mean``). Returns ``({capability: value} most common first, then
    "total"}, {capability combination: (value, count)}, [total per run])``; the official
    output rounds every value to 1 decimal (``--decimal_places``).

    QUIRK combination-names: the official names a combination ``"_".join(set(caps))``, whose
    order depends on the string hash seed; here it is joined in the order the capabilities
    were first listed, and combinations are ordered by count (ties: first seen).
    """
    import numpy as np

    n_runs = len(runs[0]) if runs else 0
    counter: dict[str, int] = {}
    combos: list[frozenset[str]] = []
    combo_names: dict[frozenset[str], str] = {}
    combo_count: dict[frozenset[str], int] = {}
    for c in caps:
        cap = frozenset(c)
        for x in dict.fromkeys(c):
            counter[x] = counter.get(x, 0) + 1
        if cap not in combo_count:
            combos.append(cap)
            combo_names[cap] = "_".join(dict.fromkeys(c))
            combo_count[cap] = 0
        combo_count[cap] += 1
    order = sorted(counter, key=lambda k: -counter[k])  # stable: Counter.most_common
    sums = {k: [0.0] * n_runs for k in [*order, "total"]}
    combo_sums = {k: [0.0] * n_runs for k in combos}
    for c, scores in zip(caps, runs, strict=True):
        if len(scores) != n_runs:
            raise MmvetScoreError(f"an item has {len(scores)} runs, another {n_runs}")
        for i in range(n_runs):
            for x in set(c):
                sums[x][i] += scores[i]
            sums["total"][i] += scores[i]
            combo_sums[frozenset(c)][i] += scores[i]
    counts = {**counter, "total": len(caps)}
    per_run = {k: np.array(v) / counts[k] * 100 for k, v in sums.items()}
    values = {k: float(v.mean()) for k, v in per_run.items()}
    by_combo = sorted(combos, key=lambda k: -combo_count[k])
    combo_values = {
        combo_names[k]: (
            float(np.mean(np.array(combo_sums[k]) / combo_count[k] * 100)),
            combo_count[k],
        )
        for k in by_combo
    }
    return values, combo_values, [float(x) for x in per_run["total"]]


def vlmevalkit_acc(
    categories: Sequence[str], scores: Sequence[float]
) -> tuple[dict[str, tuple[float, int]], dict[str, tuple[float, int]]]:
    """``MMVet_acc``: ``({capability: (acc, tot)} for rec … math then Overall, {category:
    (acc, tot)} in first-seen order then Overall})``, acc = Σ score / tot × 100.

    QUIRK substring-membership: an item counts for a capability when its name occurs in the
    ``category`` string (``rec,ocr``); the fine keys are the string with ``,`` → ``_``, so
    ``ocr,rec`` and ``rec,ocr`` are two keys. A capability without items divides by zero there.
    QUIRK shared-counter: the capability and the fine keys share one counter, so an item whose
    category is a single capability (``ocr``) counts twice in that capability's row (Σ and tot),
    once as the capability and once as its fine key. Kept: VLMEvalKit's _score.csv has it.
    """
    tot: dict[str, int] = {}
    score: dict[str, float] = {}
    fine: list[str] = []
    for cate, grade in zip(categories, scores, strict=True):
        cate2 = cate.replace(",", "_")
        if cate2 not in fine:
            fine.append(cate2)
        for capa in CAPABILITIES:
            if capa in cate:
                tot[capa] = tot.get(capa, 0) + 1
                score[capa] = score.get(capa, 0) + grade
        tot["Overall"] = tot.get("Overall", 0) + 1
        tot[cate2] = tot.get(cate2, 0) + 1
        score["Overall"] = score.get("Overall", 0) + grade
        score[cate2] = score.get(cate2, 0) + grade

    def acc(k: str) -> tuple[float, int]:
        if not tot.get(k):
            raise MmvetScoreError(
                f"no item has the capability {k!r}: VLMEvalKit's MMVet_acc divides by zero"
            )
        return score[k] / tot[k] * 100, tot[k]

    return (
        {k: acc(k) for k in (*CAPABILITIES, "Overall")},
        {k: acc(k) for k in (*fine, "Overall")},
    )


def lmms_eval_scores(
    capabilities: Sequence[str | Sequence[str]], scores: Sequence[float]
) -> tuple[float, dict[str, tuple[float, int]]]:
    """``mmvet_aggregate_results``: overall = ``sum(scores) / n × 100`` (what lmms-eval
    reports) and per capability (only logged) Σ / count × 100 by membership in the item's
    ``capabilities`` (a substring test on the string); a capability without items stays 0."""
    overall = sum(scores) / len(scores) * 100
    out: dict[str, tuple[float, int]] = {}
    for cap in CAPABILITIES:
        total: float = 0
        count = 0
        for caps, s in zip(capabilities, scores, strict=True):
            if cap in caps:
                total += s
                count += 1
        out[cap] = (total / count * 100 if count > 0 else total, count)
    return overall, out
