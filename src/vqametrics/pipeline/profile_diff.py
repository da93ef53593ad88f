"""Why do two toolkits give the same predictions different scores? Attribute every difference.

:func:`compare_profiles` scores one set of predictions under several profiles and groups the
questions whose score differs between profiles by the *rule* that caused the difference.

How a difference is attributed
------------------------------
Every registered profile is written as the reference profile (``official``) plus an ordered set
of rule changes, its *recipe* (:data:`RECIPES`); each :class:`Rule` knows how to apply its change
to a :class:`~vqametrics.profiles.Profile`. Applying a profile's rules one at a time, in the fixed
order of :data:`RULES`, gives a path of intermediate profiles from ``official`` to that profile::

    official → +rule 1 → +rule 1, 2 → … → the profile

A question's score is computed at every point of the path. Its change from one point to the next
is attributed to the rule added there; since the changes telescope, the rules that moved a
question account for its whole difference, and the per-rule contributions to the overall
accuracy add up to the gap between the two profiles. A question is listed under every rule that
moved its score (when two rules interact, both are listed). The end of the path is the profile
itself; if a recipe ever failed to rebuild its profile exactly (same step functions, flags,
leave-one-out and mean), the rest of the difference would be attributed to the rule ``other``, so
nothing is left unexplained. Profiles without a recipe (registered by a user) are attributed to
``other`` as a whole.

The rule order puts the structural rules first (unanimity, the 2017 answer handling), then the
normalization rules in pipeline order, then the scoring rules (empty prediction, leave-one-out,
mean), so that, e.g., ``Yes`` against ten ``yes`` is attributed to the unanimity rule and a
last-bit difference to the mean.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..aggregate import percent
from ..kernels.question import QuestionNormalizer
from ..kernels.vqa import score_normalized
from ..profiles import Profile, Step, get_profile, list_profiles
from ..profiles import peers as _peer
from ..readers.vqa import QuestionId, VQADataset

__all__ = [
    "RECIPES",
    "RULES",
    "ProfileComparison",
    "Rule",
    "RuleEffect",
    "compare_profiles",
    "derivation",
    "format_comparison",
    "same_rules",
]

REFERENCE = "official"


@dataclass(frozen=True)
class Rule:
    """One way in which a profile departs from ``official``.

    ``apply(current, target)`` returns *current* with this rule changed to *target*'s setting.
    ``example`` is a ``(prediction, answers)`` pair that shows the rule at work (answers as
    records with distinct ``answer_id`` unless they are plain strings).
    """

    key: str
    title: str
    explanation: str
    apply: Callable[[Profile, Profile], Profile]
    example: tuple[str, tuple[Any, ...]] | None = None


def _unconditional(steps: Sequence[Step]) -> tuple[Step, ...]:
    return tuple(Step(s.name, s.fn) if s.conditional else s for s in steps)


def _swap(steps: Sequence[Step], name: str, new: Sequence[Step]) -> tuple[Step, ...]:
    out: list[Step] = []
    for s in steps:
        if s.name == name:
            out.extend(Step(n.name, n.fn, s.conditional) for n in new)
        else:
            out.append(s)
    return tuple(out)


def _both(p: Profile, f: Callable[[tuple[Step, ...]], tuple[Step, ...]]) -> Profile:
    return replace(p, prediction_steps=f(p.prediction_steps), answer_steps=f(p.answer_steps))


def _no_unanimity(p: Profile, t: Profile) -> Profile:
    return replace(_both(p, _unconditional), unanimity_rule=False)


def _gt_punctuation_only(p: Profile, t: Profile) -> Profile:
    answer = tuple(Step(s.name, s.fn, True) for s in p.answer_steps if s.name == "punctuation")
    return replace(p, prediction_steps=_unconditional(p.prediction_steps), answer_steps=answer)


def _swap_step(name: str, new: Sequence[Step]) -> Callable[[Profile, Profile], Profile]:
    def apply(p: Profile, t: Profile) -> Profile:
        return _both(p, lambda steps: _swap(steps, name, new))

    return apply


def _normalizer(new: Sequence[Step]) -> Callable[[Profile, Profile], Profile]:
    def apply(p: Profile, t: Profile) -> Profile:
        steps = tuple(new)
        return replace(p, prediction_steps=steps, answer_steps=steps)

    return apply


def _es_extraction(p: Profile, t: Profile) -> Profile:
    return replace(p, prediction_steps=(_peer.ES_EXTRACT_STEP, *p.prediction_steps))


def _empty_zero(p: Profile, t: Profile) -> Profile:
    return replace(p, empty_prediction_scores_zero=True)


def _position(p: Profile, t: Profile) -> Profile:
    return replace(p, leave_one_out="position")


def _textbook(p: Profile, t: Profile) -> Profile:
    return replace(p, leave_one_out="none")


def _mean(p: Profile, t: Profile) -> Profile:
    return replace(p, mean=t.mean)


def _other(p: Profile, t: Profile) -> Profile:
    return t


def _ids(answers: Sequence[str]) -> tuple[dict[str, object], ...]:
    return tuple({"answer": a, "answer_id": i + 1} for i, a in enumerate(answers))


_SIMPLE_STEPS = get_profile("simple").prediction_steps

#: Every rule, in the order in which a path applies them.
RULES: tuple[Rule, ...] = (
    Rule(
        "unanimity",
        "no unanimity rule",
        "official skips all normalization but whitespace cleanup when the answers are unanimous "
        "(matching is then exact and case-sensitive); this profile always normalizes.",
        _no_unanimity,
        ("Yes", _ids(["yes"] * 10)),
    ),
    Rule(
        "gt-punctuation-only",
        "2017 answer handling",
        "the prediction is always normalized, the answers get the punctuation step only (no "
        "cleanup, lowercasing, number words, articles or contractions) and only when they are not "
        "unanimous.",
        _gt_punctuation_only,
        ("7-eleven", _ids(["7-eleven"] * 10)),
    ),
    Rule(
        "evalai-prep",
        "EvalAI answer-processor prelude",
        "lowercase, delete every comma and question mark and split 's before the official steps.",
        _swap_step("cleanup", _peer.EVALAI_PREP_STEPS),
        ("black and whi,te", tuple(["black and white"] * 3 + ["white"] * 7)),
    ),
    Rule(
        "comma-rule",
        "comma rule (lmms-eval)",
        "the punctuation trigger also fires on two or more commas between digits, deleting all "
        "punctuation (1,,000 → 1000, official 1 000).",
        _swap_step("punctuation", [_peer.PUNCT_LMMS_STEP]),
        ("1,,000", _ids(["1000"] * 3 + ["100"] * 7)),
    ),
    Rule(
        "punct-2017",
        "EvalAI 2017 regex punctuation",
        "punctuation handled by a chain of regexes: punctuation next to a digit or a non-ASCII "
        "letter survives, and so does a character after a final period.",
        _swap_step("punctuation", [_peer.PUNCT_2017_STEP]),
        ("A right!.", _ids(["right"] * 4 + ["red"] * 4 + ["10:00", "2"])),
    ),
    Rule(
        "period-rule",
        "corrected period rule (VLMEvalKit)",
        "a period is removed only with no digit on either side, so 2. keeps its period.",
        _swap_step("punctuation", [_peer.PUNCT_VLM_STEP]),
        ("2.", tuple(["2"] * 9 + ["3"])),
    ),
    Rule(
        "es-normalizer",
        "EvalScope normalizer",
        "all ASCII punctuation but : becomes a space (3.5 → 3 5, don't → don t); no contraction "
        "table, no period limit.",
        _normalizer(_peer.ES_NORM_STEPS),
        ("dont", tuple(["don't"] * 4 + ["no"] * 6)),
    ),
    Rule(
        "simple-normalizer",
        "textbook normalizer",
        "lowercase, keep [a-z0-9'] tokens, number words, no articles; no contraction table.",
        _normalizer(_SIMPLE_STEPS),
        ("dont", tuple(["don't"] * 3 + ["no"] * 7)),
    ),
    Rule(
        "es-extraction",
        "EvalScope answer extraction",
        "the prediction is cut to the text after its last 'ANSWER:', outer quotes stripped.",
        _es_extraction,
        ('Let me think.\nANSWER: "yes"', tuple(["yes"] * 10)),
    ),
    Rule(
        "empty-prediction",
        "empty prediction scores 0",
        "an empty normalized prediction never matches, even empty normalized answers.",
        _empty_zero,
        ("the", tuple(["the"] * 3 + ["cat"] * 7)),
    ),
    Rule(
        "loo-position",
        "leave-one-out by position",
        "annotator i is left out alone; official leaves out every record equal to record i, which "
        "matters only for answer records without distinct answer_id.",
        _position,
        ("cat", tuple({"answer": a} for a in ["cat"] * 3 + ["dog"] * 7)),
    ),
    Rule(
        "textbook-formula",
        "textbook formula min(1, m/3)",
        "no leave-one-out: 3 matching answers give 1.0 instead of 0.9.",
        _textbook,
        ("cat", tuple(["cat"] * 3 + ["dog"] * 7)),
    ),
    Rule(
        "mean",
        "mean of the annotator values (last bits)",
        "the values are averaged by an exact or a numpy pairwise sum instead of a left-to-right "
        "float sum; only the last bits differ.",
        _mean,
        ("cat", tuple(["cat", "dog", "dog", "dog", "dog", "dog", "dog", "dog", "cat", "cat"])),
    ),
    Rule(
        "other",
        "other differences",
        "whatever the named rules do not rebuild (a profile without a recipe).",
        _other,
    ),
)
_RULES = {r.key: r for r in RULES}
_ORDER = {r.key: i for i, r in enumerate(RULES)}

#: Each registered profile as ``official`` plus rules (applied in :data:`RULES` order).
RECIPES: Mapping[str, tuple[str, ...]] = {
    "official": (),
    "official-2017": ("gt-punctuation-only",),
    "simple": ("unanimity", "simple-normalizer", "textbook-formula"),
    "evalai-2017": ("gt-punctuation-only", "punct-2017"),
    "lmms-eval-vqav2": ("unanimity", "comma-rule", "mean"),
    "lmms-eval-textvqa": ("unanimity", "evalai-prep", "comma-rule", "loo-position", "mean"),
    "vlmevalkit": ("unanimity", "period-rule", "loo-position", "mean"),
    "evalscope": (
        "unanimity",
        "es-normalizer",
        "es-extraction",
        "empty-prediction",
        "textbook-formula",
    ),
}


def same_rules(a: Profile, b: Profile) -> bool:
    """True when *a* and *b* score every input identically by construction: the same step
    functions with the same flags, and the same unanimity, leave-one-out, mean and empty rules
    (step names and descriptions do not matter)."""

    def key(p: Profile) -> tuple[object, ...]:
        return (
            tuple((s.fn, s.conditional) for s in p.prediction_steps),
            tuple((s.fn, s.conditional) for s in p.answer_steps),
            p.unanimity_rule,
            p.leave_one_out,
            p.mean if p.leave_one_out != "none" else None,
            p.empty_prediction_scores_zero,
        )

    return key(a) == key(b)


def derivation(profile: str | Profile) -> list[tuple[Rule, Profile]]:
    """The path from ``official`` to *profile*: one ``(rule, profile so far)`` per rule.

    The last profile of the path is *profile* itself; the path is empty for ``official``.
    """
    target = get_profile(profile)
    current = get_profile(REFERENCE)
    if same_rules(current, target):
        return []
    keys = sorted(RECIPES.get(target.name, ()), key=_ORDER.__getitem__)
    path: list[tuple[Rule, Profile]] = []
    done: list[str] = []
    for key in keys:
        done.append(key)
        current = _RULES[key].apply(current, target)
        current = replace(current, name=f"{REFERENCE}+{'+'.join(done)}")
        path.append((_RULES[key], current))
    if path and same_rules(current, target):
        path[-1] = (path[-1][0], target)
    else:
        path.append((_RULES["other"], target))
    return path


@dataclass(frozen=True)
class RuleEffect:
    """The questions one rule moved, per profile, and its share of each accuracy gap."""

    rule: Rule
    #: profile name → indices (in dataset order) of the questions whose score the rule changed
    questions: dict[str, list[int]]
    #: profile name → the rule's contribution to that profile's overall accuracy, in points
    points: dict[str, float]

    @property
    def question_indices(self) -> list[int]:
        """Every question the rule moved under some profile, in dataset order."""
        return sorted({i for v in self.questions.values() for i in v})


@dataclass(frozen=True)
class ProfileComparison:
    """The result of :func:`compare_profiles`."""

    reference: str
    profiles: tuple[str, ...]
    question_ids: list[QuestionId]
    predictions: list[str | None]
    answers: list[list[str]]
    #: profile name → unrounded per-question scores, in dataset order
    scores: dict[str, list[float]]
    #: indices of the questions whose score is not the same under every profile
    differing: list[int]
    #: one entry per rule that moved at least one question, in :data:`RULES` order
    effects: list[RuleEffect]
    #: caveats about the input that affect how to read the comparison
    notes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return (
            f"<ProfileComparison {len(self.profiles)} profiles, {len(self.question_ids)} "
            f"questions, {len(self.differing)} differing, {len(self.effects)} rules>"
        )

    def accuracy(self, profile: str, digits: int | None = 2) -> float:
        """Overall accuracy in percent under *profile* (as the official script rounds it)."""
        return percent(self.scores[profile], digits)

    def example(self, i: int) -> dict[str, Any]:
        """Question *i* as a JSON-ready record with its score under every profile."""
        return {
            "question_id": self.question_ids[i],
            "prediction": self.predictions[i],
            "answers": self.answers[i],
            "scores": {p: self.scores[p][i] for p in self.profiles},
        }

    def as_dict(self, examples: int = 3, digits: int = 2) -> dict[str, Any]:
        """The ``--json`` payload: accuracies, then each rule's counts, points and examples."""
        return {
            "reference": self.reference,
            "n_questions": len(self.question_ids),
            "accuracy": {p: self.accuracy(p, digits) for p in self.profiles},
            "n_differing": len(self.differing),
            "notes": list(self.notes),
            "rules": [
                {
                    "rule": e.rule.key,
                    "title": e.rule.title,
                    "explanation": e.rule.explanation,
                    "n_questions": len(e.question_indices),
                    "questions_per_profile": {p: len(v) for p, v in e.questions.items()},
                    "points_per_profile": {p: round(v, digits + 2) for p, v in e.points.items()},
                    "examples": [self.example(i) for i in e.question_indices[:examples]],
                }
                for e in self.effects
            ],
        }


def _score_subset(
    dataset: VQADataset,
    predictions: Sequence[str | None],
    indices: Sequence[int],
    profile: Profile,
) -> list[float]:
    norm = QuestionNormalizer(profile)
    out = []
    for i in indices:
        raw = predictions[i]
        if raw is None:
            out.append(0.0)
            continue
        pred, ans, _ = norm.question(raw, dataset.answers[i])
        out.append(score_normalized(pred, ans, dataset.groups[i], profile))
    return out


def compare_profiles(
    dataset: VQADataset,
    predictions: Sequence[str | None],
    profiles: Sequence[str | Profile] | None = None,
) -> ProfileComparison:
    """Score *predictions* under every profile and attribute each difference to a rule.

    Parameters
    ----------
    dataset : VQADataset
        The annotations (see :func:`~vqametrics.readers.vqa.load_annotations`).
    predictions : sequence of str or None
        One prediction per question of *dataset*, aligned (``None`` scores 0 everywhere).
    profiles : sequence of names or Profiles, optional
        Default: every registered profile. ``official`` is always included (the reference).

    Returns
    -------
    ProfileComparison
        Per-profile scores, the questions whose score differs between profiles, and for each
        rule the questions it moved and its contribution in accuracy points (see the module
        docstring for the attribution method).
    """
    from .vqa import score_dataset

    if len(predictions) != len(dataset.question_ids):
        raise ValueError(
            f"predictions must be aligned with the dataset: got {len(predictions)} predictions "
            f"for {len(dataset.question_ids)} questions"
        )
    chosen = [get_profile(p) for p in (profiles if profiles is not None else list_profiles())]
    ref = get_profile(REFERENCE)
    if all(p.name != REFERENCE for p in chosen):
        chosen.insert(0, ref)
    names = tuple(dict.fromkeys(p.name for p in chosen))
    by_name = {p.name: p for p in chosen}
    scores = {n: score_dataset(dataset, predictions, by_name[n]) for n in names}
    base = scores[REFERENCE]
    differing = [i for i in range(len(base)) if any(scores[n][i] != base[i] for n in names)]
    n_total = len(base)
    moved: dict[str, dict[str, list[int]]] = {}
    points: dict[str, dict[str, float]] = {}
    for name in names:
        own = scores[name]
        idx = [i for i in differing if own[i] != base[i]]
        if not idx:
            continue
        prev = [base[i] for i in idx]
        for rule, stage in derivation(by_name[name]):
            now = (
                [own[i] for i in idx]
                if stage is by_name[name]
                else _score_subset(dataset, predictions, idx, stage)
            )
            changed = [i for i, a, b in zip(idx, prev, now, strict=True) if a != b]
            if changed:
                moved.setdefault(rule.key, {})[name] = changed
                delta = math.fsum(b - a for a, b in zip(prev, now, strict=True))
                points.setdefault(rule.key, {})[name] = 100 * delta / n_total
            prev = now
    effects = [
        RuleEffect(rule=r, questions=moved[r.key], points=points[r.key])
        for r in RULES
        if r.key in moved
    ]
    notes: tuple[str, ...] = ()
    record_based = [n for n in names if by_name[n].leave_one_out == "records"]
    if dataset.plain_answers and record_based:
        notes = (
            "the answers are plain strings: the record-based profiles ("
            + ", ".join(record_based)
            + ") leave annotators out by position, as for records with distinct answer_id "
            "(the toolkits themselves define no behaviour for plain strings)",
        )
    return ProfileComparison(
        reference=REFERENCE,
        profiles=names,
        question_ids=list(dataset.question_ids),
        predictions=list(predictions),
        answers=[list(a) for a in dataset.answers],
        scores=scores,
        differing=differing,
        effects=effects,
        notes=notes,
    )


def _short_answers(answers: Sequence[str], limit: int = 60) -> str:
    from ..core.display import answer_counts

    text = answer_counts(answers)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _fmt(value: float, exact: bool) -> str:
    return repr(value) if exact else f"{value:.4g}"


def format_comparison(comparison: ProfileComparison, examples: int = 3, digits: int = 2) -> str:
    """The text report of ``vqametrics profiles --annotations A --results R``."""
    c = comparison
    width = max(len(p) for p in c.profiles)
    lines = [f"accuracy under each profile ({len(c.question_ids)} questions):"]
    ref = c.accuracy(c.reference, digits)
    for p in c.profiles:
        acc = c.accuracy(p, digits)
        gap = "" if p == c.reference else f"  ({acc - ref:+.{digits}f} vs {c.reference})"
        lines.append(f"  {p:<{width}}  {acc:6.{digits}f}{gap}")
    lines.extend(f"note: {n}" for n in c.notes)
    lines.append("")
    lines.append(
        f"{len(c.differing)} question(s) score differently under some profile; by rule "
        "(questions moved, and accuracy points, per profile):"
    )
    for e in c.effects:
        lines.append("")
        lines.append(f"[{e.rule.key}] {e.rule.title}: {len(e.question_indices)} question(s)")
        lines.append(f"  {e.rule.explanation}")
        for p, idx in e.questions.items():
            lines.append(f"  {p:<{width}}  {len(idx):5d} question(s)  {e.points[p]:+.4f} points")
        for i in e.question_indices[:examples]:
            pred = c.predictions[i]
            moved = [p for p, v in e.questions.items() if i in v]
            shown = [c.reference, *moved]
            scores = ", ".join(f"{p} {_fmt(c.scores[p][i], e.rule.key == 'mean')}" for p in shown)
            lines.append(
                f"  e.g. {c.question_ids[i]}: {pred!r} vs {_short_answers(c.answers[i])} → {scores}"
            )
    return "\n".join(lines)
