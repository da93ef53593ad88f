"""What the toolkit reported beside what we recompute: "why does my number not match?".

Two checks on a :class:`~vqametrics.pipeline.vqa.VQAEvaluation` whose results file came with the
toolkit's own numbers:

* **aggregates** — VLMEvalKit's ``_acc.csv``/``_score.csv`` (percent) or lmms-eval's
  ``results.json`` (``"<metric>,<filter>"``, fractions, shown ×100) beside our overall
  accuracy, with the difference in points;
* **per sample** — lmms-eval records each sample's metric (``exact_match``…): the questions
  where it differs from our score are grouped by the rule that causes the difference, with
  the ``profiles`` machinery (:func:`~vqametrics.pipeline.profile_diff.compare_profiles` between
  ``official`` and the toolkit's profile). A question the toolkit's profile does not
  reproduce is grouped as ``unexplained``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.display import text_table
from ..readers.layouts import reported_numbers
from .vqa import VQAEvaluation

__all__ = ["ToolkitCheck", "check_toolkit"]

#: lmms-eval's VQA-style tasks whose per-sample metric ``lmms-eval-textvqa`` reproduces (its
#: OK-VQA, TextVQA and VizWiz tasks share the EvalAI processor); any other is its VQAv2 task
_TEXTVQA_LIKE = ("ok_vqa", "okvqa", "textvqa", "vizwiz")
#: the task in an lmms-eval samples file name (``…_samples_<task>.jsonl``, or older
#: ``samples_<task>_<date>.jsonl``), matched within a file name only
_SAMPLES_NAME = re.compile(r"(?:^|[_/\\ ])samples_([A-Za-z0-9_]+?)(?:_\d[^/\\ ]*)?\.jsonl")


def _toolkit_profile(ev: VQAEvaluation) -> str:
    """The profile reproducing the per-sample metric of *ev*'s log: the chosen one if it is
    an lmms-eval profile, else the one of the lmms-eval task named in its reported results or
    in the samples file's name."""
    if ev.profile.name.startswith("lmms-eval"):
        return ev.profile.name
    rep = ev.reported or {}
    # the task is named by results.json's keys, or by the samples file's own name in a note
    # (``{date}_samples_{task}.jsonl``; never a folder name on its path)
    tasks = [str(k) for k in rep.get("values", {})]
    tasks += _SAMPLES_NAME.findall(" ".join(ev.notes))
    names = " ".join(tasks).lower()
    return "lmms-eval-textvqa" if any(t in names for t in _TEXTVQA_LIKE) else "lmms-eval-vqav2"


@dataclass(frozen=True)
class ToolkitCheck:
    """The toolkit's numbers beside ours, and the per-sample disagreements grouped by rule."""

    source: str | None
    toolkit: str | None
    #: ``[metric, reported, recomputed, difference]`` rows, in percent
    rows: list[list[Any]] = field(default_factory=list)
    #: the per-sample metric compared (lmms-eval), and its disagreements by rule
    sample_metric: str | None = None
    n_compared: int = 0
    groups: list[dict[str, Any]] = field(default_factory=list)
    #: what to try when the reported numbers differ from ours (another profile or command)
    hint: str | None = None

    @property
    def n_disagree(self) -> int:
        return sum(g["n_questions"] for g in self.groups)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "source": self.source,
            "toolkit": self.toolkit,
            "compared": [
                dict(zip(("metric", "reported", "recomputed", "difference"), r, strict=True))
                for r in self.rows
            ],
        }
        if self.hint is not None:
            out["hint"] = self.hint
        if self.sample_metric is not None:
            counts = {"n_compared": self.n_compared, "n_disagree": self.n_disagree}
            out["per_sample"] = {"metric": self.sample_metric, **counts, "by_rule": self.groups}
        return out

    def format(self, digits: int = 2) -> str:
        lines = []
        if self.source is not None:
            head = f"reported by {self.toolkit} ({self.source}) vs recomputed (%)"
            if self.rows:
                lines.append(head + ":")
                lines.append(
                    text_table(
                        self.rows, ["metric", "reported", "recomputed", "difference"], digits
                    )
                )
                if self.hint is not None:
                    lines.append(f"the numbers differ: {self.hint}")
            else:
                lines.append(head + ": no number in common")
        if self.sample_metric is not None:
            lines.append(
                f"per-sample {self.sample_metric!r} recorded by the toolkit: "
                f"{self.n_disagree} of {self.n_compared} question(s) disagree with ours"
            )
            for g in self.groups:
                ex = "; ".join(
                    f"{e['question_id']!r}: {e['prediction']!r} toolkit {e['toolkit']:g} "
                    f"ours {e['ours']:g}"
                    for e in g["examples"]
                )
                lines.append(f"  {g['rule']}: {g['n_questions']} — {g['title']}; e.g. {ex}")
        return "\n".join(lines)


def check_toolkit(ev: VQAEvaluation, examples: int = 3) -> ToolkitCheck | None:
    """The comparison for *ev*, or ``None`` when its file came with no toolkit numbers."""
    rep = ev.reported
    if rep is None and not ev.sample_metrics:
        return None
    rows = _aggregate_rows(ev, rep) if rep is not None else []
    metric, n, groups = _per_sample(ev, examples)
    return ToolkitCheck(
        rep.get("source") if rep else None,
        rep.get("toolkit") if rep else None,
        rows,
        metric,
        n,
        groups,
        _hint(ev, rep, rows),
    )


#: VQA-style datasets whose toolkit score is not the VQA v2 script's: ``vqametrics score``
_OWN_SCORER = {"textvqa": "textvqa", "vizwiz": "vizwiz"}


def _hint(ev: VQAEvaluation, rep: Mapping[str, Any] | None, rows: list[list[Any]]) -> str | None:
    """What to try when a reported number differs from ours: the task's own scorer when the
    file names a dataset that has one, else the toolkit's profile when another was used."""
    if rep is None or not any(r[3] != 0 for r in rows):
        return None
    name = str(rep.get("source", "")).lower().replace("-", "")
    task = next((t for key, t in _OWN_SCORER.items() if key in name), None)
    profile = _toolkit_profile(ev) if rep.get("toolkit") == "lmms-eval" else "vlmevalkit"
    tips = []
    if task is not None:
        tips.append(
            f"this is a {task} file, scored by the VQA v2 script here; its own scorer with "
            f"the toolkit's rule: vqametrics score {task} --profile "
            f"{'lmms-eval' if profile.startswith('lmms-eval') else 'vlmevalkit'}"
        )
    if ev.profile.name != profile:
        tips.append(f"the toolkit's rule is --profile {profile}")
    return "; ".join(tips) or None


def _overall(ev: VQAEvaluation) -> float:
    return 100.0 * math.fsum(ev.scores) / len(ev.scores) if ev.scores else float("nan")


def _aggregate_rows(ev: VQAEvaluation, rep: Mapping[str, Any]) -> list[list[Any]]:
    ours = _overall(ev)
    rows: list[list[Any]] = []
    for group, key, theirs in reported_numbers(rep):
        if rep.get("toolkit") == "lmms-eval":
            name = key.split(",", 1)[0]
            if ev.sample_metrics and name not in ev.sample_metrics:
                continue
            theirs = 100.0 * theirs  # lmms-eval aggregates are fractions
        elif key.lower() not in ("overall", "acc", "accuracy"):
            continue
        label = key if group == "all" else f"{group} / {key}"
        rows.append([label, theirs, ours, ours - theirs])
    return rows


def _per_sample(ev: VQAEvaluation, examples: int) -> tuple[str | None, int, list[dict[str, Any]]]:
    if not ev.sample_metrics:
        return None, 0, []
    name = "exact_match" if "exact_match" in ev.sample_metrics else next(iter(ev.sample_metrics))
    recorded = ev.sample_metrics[name]
    qids = ev.dataset.question_ids
    pairs = [(i, recorded[q]) for i, q in enumerate(qids) if q in recorded]
    differ = [(i, v) for i, v in pairs if v != ev.scores[i]]
    if not differ:
        return name, len(pairs), []
    from .profile_diff import RULES, compare_profiles

    profile = _toolkit_profile(ev)
    by_rule: dict[str, list[int]] = {}
    if profile == ev.profile.name:
        # scored under the toolkit's own profile: no rule separates us, every difference is
        # one the profile does not reproduce
        by_rule["unexplained"] = [i for i, _ in differ]
    else:
        comp = compare_profiles(ev.dataset, ev.predictions, [ev.profile.name, profile])
        theirs = comp.scores[profile]
        for i, v in differ:
            if v != theirs[i]:
                by_rule.setdefault("unexplained", []).append(i)
                continue
            rules = [e.rule.key for e in comp.effects if i in e.questions.get(profile, ())]
            by_rule.setdefault(rules[0] if rules else "unexplained", []).append(i)
    titles = {r.key: r.title for r in RULES}
    order = [r.key for r in RULES] + ["unexplained"]
    groups = []
    for key in sorted(by_rule, key=order.index):
        idx = by_rule[key]
        groups.append(
            {
                "rule": key,
                "title": titles.get(key, f"not reproduced by profile {profile!r} (another cause)"),
                "n_questions": len(idx),
                "examples": [
                    {
                        "question_id": qids[i],
                        "prediction": ev.predictions[i],
                        "toolkit": recorded[qids[i]],
                        "ours": ev.scores[i],
                    }
                    for i in idx[:examples]
                ],
            }
        )
    return name, len(pairs), groups
