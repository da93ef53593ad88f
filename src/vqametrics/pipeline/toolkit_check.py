"""What the toolkit reported beside what we recompute, for every task: "why does my number
not match?".

Two checks on a run whose results file came with the toolkit's own numbers:

* **per sample** — lmms-eval records each sample's metric (``exact_match``…) in its
  ``--log_samples`` records. :func:`sample_check` sets every recorded score beside ours and
  groups the items where they differ by the rule that causes the difference, one
  :class:`SampleCheck` (one JSON form) for every task. Its callers only say what causes a
  difference: :func:`check_samples` (every task) by the profile that reproduces the recorded
  score — ``profile:NAME`` (the toolkit's own profile), ``version:NAME`` (another release's);
  VQA v2 (:func:`check_toolkit`) by the normalization rule, with the ``profiles`` machinery
  (:func:`~vqametrics.pipeline.profile_diff.compare_profiles` between the chosen profile and
  the toolkit's). A difference no profile reproduces is ``unexplained`` — the case worth
  reporting (a bug, a changed dataset, or a toolkit change we do not know of).
* **aggregates** — VLMEvalKit's ``_acc.csv``/``_score.csv`` or lmms-eval's ``results.json``
  (``"<metric>,<filter>"``, fractions, scaled to our units) set beside our numbers of the
  same meaning by :func:`compare_reported`, one function for every task, with a hint when
  they differ. What a task's file tells more (VQA v2: compare under any profile, the
  lmms-eval task its log names, a TextVQA sheet read by the VQA v2 script) is data, a
  :class:`ReportedRule`, never a second comparison.

:func:`reported_block` writes both as the ``reported`` block of every task's document.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..readers.items import Item, ItemColumns, item_column
from ..readers.layouts import reported_numbers
from ..readers.lmms_eval import TOOLKIT_SCORE

if TYPE_CHECKING:
    from .vqa import VQAEvaluation

__all__ = [
    "ReportedComparison",
    "ReportedRule",
    "SampleCheck",
    "ToolkitCheck",
    "check_samples",
    "check_toolkit",
    "compare_reported",
    "reported_block",
    "reported_comparable",
    "reported_pairs",
    "reported_rule",
    "sample_check",
    "vlmevalkit_profile",
]

#: a difference's cause: ``(rule, title)``
Cause = tuple[str, str]
#: the rule of a difference no profile reproduces
UNEXPLAINED = "unexplained"


@dataclass(frozen=True)
class SampleCheck:
    """How many items carry the toolkit's recorded score, and the disagreements by rule."""

    #: the profile that reproduces the toolkit's per-sample metric
    toolkit_profile: str
    n_compared: int
    #: ``{"rule", "title", "n", "examples": [{id, prediction, toolkit, ours}]}``, most
    #: frequent first, ``unexplained`` last
    groups: list[dict[str, Any]] = field(default_factory=list)
    #: the toolkit's per-sample metric compared (``exact_match``), where the reader names it
    metric: str | None = None

    @property
    def n_disagree(self) -> int:
        return sum(g["n"] for g in self.groups)

    def as_dict(self) -> dict[str, Any]:
        """The ``reported.per_sample`` block of the evaluation document (schema 1)."""
        counts = {"n_compared": self.n_compared, "n_disagree": self.n_disagree}
        head = {"metric": self.metric, "toolkit_profile": self.toolkit_profile}
        return {**head, **counts, "by_rule": self.groups}

    def format(self, noun: str = "item") -> str:
        """A head line with the counts, then one line per rule with up to three examples."""
        what = repr(self.metric) if self.metric is not None else "scores"
        lines = [
            f"per-sample {what} recorded by the toolkit: {self.n_disagree} of "
            f"{self.n_compared} {noun}(s) disagree with ours"
        ]
        for g in self.groups:
            ex = "; ".join(
                f"{e['id']!r}: {e['prediction']!r:.40} toolkit {e['toolkit']:g} ours {e['ours']:g}"
                for e in g["examples"]
            )
            lines.append(f"  {g['rule']}: {g['n']} — {g['title']}; e.g. {ex}")
        return "\n".join(lines)


def sample_check(
    ids: Sequence[Any],
    predictions: Sequence[Any],
    ours: Sequence[float],
    recorded: Sequence[tuple[int, float]],
    causes: Callable[[Sequence[tuple[int, float]]], Sequence[Cause]],
    toolkit_profile: str,
    *,
    metric: str | None = None,
    examples: int = 3,
) -> SampleCheck:
    """Set each recorded ``(position, toolkit score)`` beside *ours*; the positions where they
    differ are put down to ``causes(differences)`` (one ``(rule, title)`` each, asked once,
    only when something differs) and grouped by rule with up to *examples* items each."""
    differ = [(i, theirs) for i, theirs in recorded if ours[i] != theirs]
    groups: dict[str, dict[str, Any]] = {}
    for (i, theirs), (rule, title) in zip(differ, causes(differ) if differ else (), strict=True):
        g = groups.setdefault(rule, {"rule": rule, "title": title, "n": 0, "examples": []})
        g["n"] += 1
        if len(g["examples"]) < examples:
            example = {"id": ids[i], "prediction": predictions[i], "toolkit": theirs}
            g["examples"].append({**example, "ours": ours[i]})
    order = sorted(groups.values(), key=lambda g: (g["rule"] == UNEXPLAINED, -g["n"]))
    return SampleCheck(toolkit_profile, len(recorded), order, metric)


# --- every task: the profile that reproduces the recorded score ------------------------------


def _toolkit_profiles(task: Any, chosen: Any) -> list[Any]:
    """The profiles reproducing lmms-eval: the chosen one first if it is one, then the one
    named ``lmms-eval``, then the other releases."""
    lmms = [p for p in task.profiles if p.toolkit.startswith("lmms-eval") or "lmms" in p.name]
    lmms.sort(key=lambda p: (p is not chosen, p.name != "lmms-eval"))
    return lmms


def _may_carry_scores(items: Sequence[Item]) -> bool:
    """Whether an item may carry the toolkit's score: columns hold it or not at all."""
    return not isinstance(items, ItemColumns) or TOOLKIT_SCORE in items.field_names


def _profile_causes(
    chosen: Any, profiles: Sequence[Any], items: Sequence[Item]
) -> Callable[[Sequence[tuple[int, float]]], list[Cause]]:
    """Each difference's cause: the toolkit's own profile reproduces it (``profile:``), or
    another release's (``version:``), or none (``unexplained``)."""
    main, others = profiles[0], profiles[1:]

    def cause(i: int, theirs: float) -> Cause:
        item = items[i]
        if main is not chosen and main.score_item(item) == theirs:
            return (
                f"profile:{main.name}",
                f"profile {chosen.name} scores these differently from {main.name}, which "
                "reproduces the toolkit",
            )
        other = next((p for p in others if p.score_item(item) == theirs), None)
        if other is not None:
            return (
                f"version:{other.name}",
                f"reproduced by profile {other.name}: the log was written by that release",
            )
        return (
            UNEXPLAINED,
            f"no lmms-eval profile reproduces the recorded score ({main.name} tried)",
        )

    return lambda differ: [cause(i, theirs) for i, theirs in differ]


def check_samples(
    task: Any,
    chosen: Any,
    items: Sequence[Item],
    scores: Sequence[float],
    examples: int = 3,
) -> SampleCheck | None:
    """Compare *scores* (under profile *chosen* of *task*) with the toolkit's recorded
    per-item scores (``Item.fields["toolkit_score"]``); ``None`` when no item carries one or
    the task has no lmms-eval profile (both known before any item is looked at when the items
    are columns without that field: VQA v2's)."""
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
    return sample_check(
        item_column(items, "id"),
        item_column(items, "prediction"),
        scores,
        recorded,
        _profile_causes(chosen, profiles, items),
        profiles[0].name,
        examples=examples,
    )


# --- every task: the toolkit's aggregates beside ours ------------------------------------------


@dataclass(frozen=True)
class ReportedRule:
    """The options of :func:`compare_reported`, the same for every task: what a results file
    tells about how its toolkit's numbers are set beside ours. The defaults are every task's
    rule; VQA v2's :func:`check_toolkit` gives its own (its results file says more)."""

    #: set the numbers beside ours under any profile, not only the toolkit's: right where every
    #: profile scores the same metric in the same units and only the answer rules differ (VQA
    #: v2), so a difference is the rule, which the hint names
    any_profile: bool = False
    #: the profiles that reproduce the file's toolkit, where the file tells which (VQA v2: the
    #: lmms-eval task its log names); ``None``: every profile of that toolkit
    toolkit_profiles: tuple[str, ...] | None = None
    #: the task whose own scorer the file's dataset has (a TextVQA sheet read as VQA v2)
    own_scorer: str | None = None


@dataclass(frozen=True)
class ReportedComparison:
    """The toolkit's reported numbers beside ours (:func:`compare_reported`): the rows every
    view and the document show, the hint when they differ."""

    source: str | None
    toolkit: str | None
    #: whether the numbers are set beside ours under the chosen profile
    compared: bool
    #: ``(metric, reported, recomputed)`` for every number both have (when ``compared``)
    rows: list[tuple[str, float, float]] = field(default_factory=list)
    #: the toolkit's numbers as it wrote them, ``(metric, reported)`` (when not ``compared``)
    shown: list[tuple[str, float]] = field(default_factory=list)
    #: the profiles to compare them under (when not ``compared``)
    compare_with: tuple[str, ...] = ()
    #: what to try when a number differs: the toolkit's profile, its other releases, or the
    #: dataset's own scorer
    hint: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """``compared`` (and ``hint``) of the document's ``reported`` block."""
        if not self.compared:
            return {}
        out: dict[str, Any] = {
            "compared": [
                {"metric": m, "reported": t, "recomputed": r, "difference": r - t}
                for m, t, r in self.rows
            ]
        }
        if self.hint is not None:
            out["hint"] = self.hint
        return out


def reported_rule(result: Any) -> ReportedRule:
    """The rule *result*'s file came with (VQA v2's ``toolkit_check``), else every task's."""
    return getattr(getattr(result, "toolkit_check", None), "rule", None) or ReportedRule()


def compare_reported(result: Any) -> ReportedComparison | None:
    """*result*'s toolkit numbers (``result.data.reported``) beside ours, for every task, under
    :func:`reported_rule`; ``None`` when its file came with none."""
    reported = result.data.reported
    if not reported:
        return None
    source, toolkit = reported.get("source"), reported.get("toolkit")
    if not reported_comparable(result, reported):
        names = list(reported.get("profiles") or ())
        names = names or [p.name for p in result.task.profiles if vlmevalkit_profile(p)]
        shown = [
            (key if group == "all" else f"{group} / {key}", theirs)
            for group, key, theirs in reported_numbers(reported)
        ]
        return ReportedComparison(source, toolkit, False, shown=shown, compare_with=tuple(names))
    rows = reported_pairs(result, reported)
    differ = any(mine != theirs for _, theirs, mine in rows)
    hint = _hint(result, reported, reported_rule(result)) if differ else None
    return ReportedComparison(source, toolkit, True, rows, hint=hint)


def _hint(result: Any, reported: Mapping[str, Any], rule: ReportedRule) -> str | None:
    """What to try when a reported number differs from ours: the dataset's own scorer when
    the file is another task's, the toolkit's profile when another was chosen, else the
    toolkit's other releases."""
    lmms = reported.get("toolkit") == "lmms-eval"
    tips = []
    if rule.own_scorer is not None:
        tips.append(
            f"this is a {rule.own_scorer} file, scored by the {result.task.title} script here; "
            f"its own scorer with the toolkit's rule: vqametrics score {rule.own_scorer} "
            f"--profile {'lmms-eval' if lmms else 'vlmevalkit'}"
        )
    theirs = _reproducing(result, reported, rule)
    chosen = result.profile.name
    if theirs and all(p.name != chosen for p in theirs):
        tips.append(f"the toolkit's rule is --profile {' or '.join(p.name for p in theirs)}")
    elif len(theirs) > 1:
        alts = "; ".join(
            f"--profile {p.name} ({p.description})" for p in theirs if p.name != chosen
        )
        tips.append(
            f"the file may come from another release of the toolkit; its other profiles here: "
            f"{alts}"
        )
    return "; ".join(tips) or None


def _reproducing(result: Any, reported: Mapping[str, Any], rule: ReportedRule) -> list[Any]:
    """The task's profiles that reproduce the file's toolkit: the rule's, the record's own
    ``profiles``, else those of the toolkit (lmms-eval's or VLMEvalKit's)."""
    named = rule.toolkit_profiles or reported.get("profiles")
    if named is not None:
        return [p for p in result.task.profiles if p.name in named]
    if reported.get("toolkit") == "lmms-eval":
        return [p for p in result.task.profiles if p.toolkit.startswith("lmms-eval")]
    return [p for p in result.task.profiles if vlmevalkit_profile(p)]


def reported_block(result: Any) -> dict[str, Any] | None:
    """The ``reported`` block of *result*'s document (a task evaluation), the same for every
    task: the toolkit's numbers as found, ``compared`` (each number set beside ours, where
    :func:`reported_comparable`) and its ``hint``, and ``per_sample`` (:class:`SampleCheck`);
    ``None`` when the file came with none of them."""
    out: dict[str, Any] = {}
    comparison = compare_reported(result)
    if comparison is not None:
        out.update(result.data.reported)
        out.update(comparison.as_dict())
    if result.sample_check is not None:
        out["per_sample"] = result.sample_check.as_dict()
    return out or None


def reported_comparable(result: Any, reported: Mapping[str, Any]) -> bool:
    """Whether *reported* is set beside *result*'s numbers: a record naming its ``profiles``
    (an official score file) only under those; under any profile when the rule says so (VQA
    v2); lmms-eval's always (its task names its metrics); VLMEvalKit's only under a VLMEvalKit
    profile (else a difference would be the toolkits' disagreement, or their units, not a
    reproduction check)."""
    if reported.get("profiles") is not None:
        return result.profile.name in reported["profiles"]
    if reported_rule(result).any_profile:
        return True
    return reported.get("toolkit") == "lmms-eval" or vlmevalkit_profile(result.profile)


def reported_pairs(result: Any, reported: Mapping[str, Any]) -> list[tuple[str, float, float]]:
    """``(metric, reported, recomputed)`` for every reported number that has a counterpart of
    the same meaning among ours (lmms-eval's fractions scaled to our units)."""
    ours = _flat(result)
    lmms = reported.get("toolkit") == "lmms-eval"
    rows: list[tuple[str, float, float]] = []
    n_groups = len(reported.get("values", {}))
    for group, key, theirs in reported_numbers(reported):
        if lmms:
            # lmms-eval: "<metric>,<filter>" per task, as fractions
            mine = _lmms_counterpart(result, ours, group, key, n_groups)
            if mine is not None:
                # lmms-eval's metrics are fractions, unless the record says they are percent
                percent = result.aggregate.units == "percent" and reported.get("units") != "percent"
                scale = 100.0 if percent else 1.0
                rows.append((f"{group} / {key}", theirs * scale, float(mine)))
            continue
        # VLMEvalKit's own name for one of ours (VQA v2's ``Overall`` is our ``overall``)
        mine = ours.get((group, result.task.reported_names.get(key, key)))
        if mine is None and group == "all":
            mine = ours.get(("all", key)) or ours.get(("*", key))
        if mine is not None:
            label = key if group == "all" else f"{group} / {key}"
            rows.append((label, theirs, float(mine)))
    return rows


def _lmms_counterpart(
    result: Any,
    ours: Mapping[tuple[str, str], float | int],
    group: str,
    key: str,
    n_groups: int,
) -> float | int | None:
    """Our number for lmms-eval's ``results[group]["<metric>,<filter>"]``: the metric of the
    same name without the task prefix (``pope_f1_score`` → ``f1_score``), in the breakdown
    group of that name; for a lone task, the overall metric of that name, or our headline
    when lmms-eval's metric is the task's main one. ``None`` when nothing corresponds (never
    a number set beside the wrong one)."""
    metric = key.split(",", 1)[0]
    names = [metric]
    if metric in result.task.reported_names:
        names.insert(0, result.task.reported_names[metric])
    for prefix in (group, result.task.name):
        if metric.startswith(prefix + "_"):
            names.append(metric[len(prefix) + 1 :])
    for g in ("all", group) if n_groups == 1 else _our_groups(ours, group, result.task.name):
        for name in names:
            if (g, name) in ours:
                return ours[(g, name)]
    headline = result.aggregate.headline
    if n_groups == 1 and any(n in (headline, "exact_match", "relaxed_overall") for n in names):
        value: float | int = result.headline
        return value
    return None


def _our_groups(
    ours: Mapping[tuple[str, str], float | int], group: str, task: str
) -> tuple[str, ...]:
    """Our breakdown group for lmms-eval's subtask *group*: the same name, or the one group
    whose name starts with what follows the task prefix (``pope_adv`` → ``adversarial``)."""
    if any(g == group for g, _ in ours):
        return (group,)
    rest = group[len(task) + 1 :] if group.startswith(task + "_") else ""
    found = {g for g, _ in ours if rest and g.startswith(rest)}
    return tuple(found) if len(found) == 1 else ()


def vlmevalkit_profile(profile: Any) -> bool:
    """A profile reproducing VLMEvalKit (MMBench's profiles are named after the extractor)."""
    return bool(profile.toolkit.startswith("VLMEvalKit") or profile.name.startswith("vlmevalkit"))


def _flat(result: Any) -> dict[tuple[str, str], float | int]:
    """Our numbers keyed by ``(group, metric)``; overall ones under ``("all", metric)``, and
    every breakdown group's under ``("*", group)`` when it has a single accuracy-like value."""
    out: dict[tuple[str, str], float | int] = {}
    for k, v in result.aggregate.metrics.items():
        out[("all", k)] = v
    for groups in result.aggregate.breakdowns.values():
        for g, metrics in groups.items():
            for k, v in metrics.items():
                out[(g, k)] = v
            main = [v for k, v in metrics.items() if k != "n"]
            if len(main) == 1:
                out[("*", g)] = main[0]
    return out


# --- VQA v2: the normalization rule that separates the profiles -------------------------------

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
    """What VQA v2's results file adds to every task's check: its per-sample check (by the
    normalization rule) and the :class:`ReportedRule` its reported numbers are compared by."""

    rule: ReportedRule
    #: the per-sample check (lmms-eval logs), the same form as every task's
    samples: SampleCheck | None = None


def check_toolkit(ev: VQAEvaluation, examples: int = 3) -> ToolkitCheck | None:
    """VQA v2's part of the check for *ev*, or ``None`` when its file came with no toolkit
    numbers."""
    rep = ev.reported
    if rep is None and not ev.sample_metrics:
        return None
    lmms = rep is not None and rep.get("toolkit") == "lmms-eval"
    return ToolkitCheck(
        ReportedRule(
            any_profile=True,
            toolkit_profiles=(_toolkit_profile(ev),) if lmms else None,
            own_scorer=_own_scorer(rep),
        ),
        _vqa_samples(ev, examples),
    )


#: VQA-style datasets whose toolkit score is not the VQA v2 script's: ``vqametrics score``
_OWN_SCORER = {"textvqa": "textvqa", "vizwiz": "vizwiz"}


def _own_scorer(rep: Mapping[str, Any] | None) -> str | None:
    """The task whose own scorer the dataset named in the file's name has (a TextVQA sheet
    read by the VQA v2 script)."""
    name = str((rep or {}).get("source", "")).lower().replace("-", "")
    return next((t for key, t in _OWN_SCORER.items() if key in name), None)


def _vqa_samples(ev: VQAEvaluation, examples: int) -> SampleCheck | None:
    """The per-sample check of a VQA log: its ``exact_match`` (else its first metric) by
    question, the differences put down to the rule that separates the profiles."""
    if not ev.sample_metrics:
        return None
    name = "exact_match" if "exact_match" in ev.sample_metrics else next(iter(ev.sample_metrics))
    by_qid = ev.sample_metrics[name]
    qids = ev.dataset.question_ids
    recorded = [(i, by_qid[q]) for i, q in enumerate(qids) if q in by_qid]
    profile = _toolkit_profile(ev)
    return sample_check(
        qids,
        ev.predictions,
        ev.scores,
        recorded,
        lambda differ: _rule_causes(ev, profile, differ),
        profile,
        metric=name,
        examples=examples,
    )


def _rule_causes(
    ev: VQAEvaluation, profile: str, differ: Sequence[tuple[int, float]]
) -> list[Cause]:
    """Each difference's cause: the first normalization rule by which *profile* (the
    toolkit's) scores the question as recorded where ours does not; ``unexplained`` when
    *profile* does not reproduce the record, or when it is the profile scored with."""
    from .profile_diff import RULES, compare_profiles

    titles = {r.key: r.title for r in RULES}
    other = (UNEXPLAINED, f"not reproduced by profile {profile!r} (another cause)")
    if profile == ev.profile.name:
        # scored under the toolkit's own profile: no rule separates us
        return [other] * len(differ)
    comp = compare_profiles(ev.dataset, ev.predictions, [ev.profile.name, profile])
    theirs = comp.scores[profile]
    out = []
    for i, recorded in differ:
        rules = [e.rule.key for e in comp.effects if i in e.questions.get(profile, ())]
        if recorded != theirs[i] or not rules:
            out.append(other)
        else:
            out.append((rules[0], titles[rules[0]]))
    return out
