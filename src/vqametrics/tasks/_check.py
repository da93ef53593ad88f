"""A task run beside the per-sample scores its toolkit recorded: "why does my number differ?".

lmms-eval writes each sample's metric into its ``--log_samples`` records; the readers keep it in
``Item.fields["toolkit_score"]`` (``tasks/_lmms.py``). Where our score of an item differs from
the recorded one, the difference is put down to a rule:

* ``profile`` — the chosen profile scores differently from the toolkit's: the toolkit's own
  profile reproduces the recorded score (score with ``--profile lmms-eval`` to match);
* ``version`` — only another release's profile reproduces it (e.g. ``lmms-eval-2025``): the
  log was written by that release;
* ``unexplained`` — no profile reproduces it: the log and the profile disagree (a bug, a
  changed dataset, or a toolkit change we do not know of) — the case worth reporting.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ._base import Item, ItemColumns, Task, TaskProfile
from ._lmms import TOOLKIT_SCORE

__all__ = ["SampleCheck", "check_samples"]


@dataclass(frozen=True)
class SampleCheck:
    """How many items carry the toolkit's score, and the disagreements grouped by rule."""

    toolkit_profile: str
    n_compared: int
    #: ``{"rule", "title", "n", "examples": [{id, prediction, toolkit, ours}]}``
    groups: list[dict[str, Any]] = field(default_factory=list)

    @property
    def n_disagree(self) -> int:
        return sum(g["n"] for g in self.groups)

    def as_dict(self) -> dict[str, Any]:
        return {
            "toolkit_profile": self.toolkit_profile,
            "n_compared": self.n_compared,
            "n_disagree": self.n_disagree,
            "by_rule": self.groups,
        }

    def format(self) -> str:
        """A head line with the counts, then one line per rule with up to three examples."""
        lines = [
            f"per-sample scores recorded by the toolkit: {self.n_disagree} of "
            f"{self.n_compared} item(s) disagree with ours"
        ]
        for g in self.groups:
            ex = "; ".join(
                f"{e['id']!r}: {e['prediction']!r:.40} toolkit {e['toolkit']:g} ours {e['ours']:g}"
                for e in g["examples"]
            )
            lines.append(f"  {g['rule']}: {g['n']} — {g['title']}; e.g. {ex}")
        return "\n".join(lines)


def _toolkit_profiles(task: Task, chosen: TaskProfile) -> list[TaskProfile]:
    """The profiles reproducing lmms-eval: the chosen one first if it is one, then the one
    named ``lmms-eval``, then the other releases."""
    lmms = [p for p in task.profiles if p.toolkit.startswith("lmms-eval") or "lmms" in p.name]
    lmms.sort(key=lambda p: (p is not chosen, p.name != "lmms-eval"))
    return lmms


def _may_carry_scores(items: Sequence[Item]) -> bool:
    """Whether an item may carry the toolkit's score: columns hold it or not at all."""
    return not isinstance(items, ItemColumns) or TOOLKIT_SCORE in items.field_names


def check_samples(
    task: Task,
    chosen: TaskProfile,
    items: Sequence[Item],
    scores: Sequence[float],
    examples: int = 3,
) -> SampleCheck | None:
    """Compare *scores* (under *chosen*) with the toolkit's recorded per-item scores;
    ``None`` when no item carries one or the task has no lmms-eval profile (both known before
    any item is looked at when the items are columns without that field: VQA v2's)."""
    profiles = _toolkit_profiles(task, chosen)
    if not profiles or not _may_carry_scores(items):
        return None
    recorded = [
        (i, float(it.fields[TOOLKIT_SCORE]))
        for i, it in enumerate(items)
        if isinstance(it.fields.get(TOOLKIT_SCORE), int | float)
    ]
    if not recorded:
        return None
    main = profiles[0]
    others = profiles[1:]
    groups: dict[str, dict[str, Any]] = {}

    def add(rule: str, title: str, i: int, theirs: float) -> None:
        g = groups.setdefault(rule, {"rule": rule, "title": title, "n": 0, "examples": []})
        g["n"] += 1
        if len(g["examples"]) < examples:
            it = items[i]
            g["examples"].append(
                {"id": it.id, "prediction": it.prediction, "toolkit": theirs, "ours": scores[i]}
            )

    for i, theirs in recorded:
        if scores[i] == theirs:
            continue
        item = items[i]
        if main is not chosen and main.score_item(item) == theirs:
            add(
                f"profile:{main.name}",
                f"profile {chosen.name} scores these differently from {main.name}, which "
                "reproduces the toolkit",
                i,
                theirs,
            )
            continue
        other = next((p for p in others if p.score_item(item) == theirs), None)
        if other is not None:
            add(
                f"version:{other.name}",
                f"reproduced by profile {other.name}: the log was written by that release",
                i,
                theirs,
            )
            continue
        add(
            "unexplained",
            f"no lmms-eval profile reproduces the recorded score ({main.name} tried)",
            i,
            theirs,
        )
    order = sorted(groups.values(), key=lambda g: (g["rule"] == "unexplained", -g["n"]))
    return SampleCheck(main.name, len(recorded), order)
