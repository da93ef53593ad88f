"""GQA: compositional questions over scene graphs, scored by ``eval.py`` v1.1.

The official scorer (spec vqa-family §4) compares the raw prediction with the gold answer by
Python ``==`` (case, space and punctuation count) over the *balanced* questions and prints,
in percent, ``avg(l) = sum(l) / len(l)`` (``avg([]) = 0``) × 100 of: binary, open, accuracy,
consistency, validity, plausibility, then the distribution (a chi-square / 100, lower is
better) and accuracy per structural type, semantic type, steps number and words number.
Metrics that need files beyond the questions and predictions (choices, entailed questions,
scene graphs + attention maps) are reported when those are given and otherwise named in a note.

The toolkits only change the per-question match (spec §4.4): LLaVA lower-cases and drops
trailing periods before running its patched eval.py; lmms-eval, VLMEvalKit and Qwen-VL report
one exact-match accuracy with their own clean-ups.

Results files that carry their answers (a VLMEvalKit spreadsheet, an lmms-eval samples log
with ``doc``) can be scored without the questions file, accuracy only (``_gqa_read.py``).
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..aggregate.formulas import group_by
from ..core.toolkits import LLAVA as LLAVA_PIN
from ..core.toolkits import LMMS_EVAL as LMMS_EVAL_PIN
from ..core.toolkits import QWEN_VL as QWEN_VL_PIN
from ..core.toolkits import VLMEVALKIT as VLMEVALKIT_PIN
from . import register_task
from ._base import Aggregate, Item, Task, TaskProfile
from ._common import group_keys, mean, numpy_mean, ungrouped_note, vlmevalkit_breakdown
from ._explain import Steps, per_reference, run_steps
from ._gqa_read import LMMS_EVAL_REPORTED, read_gqa

__all__ = [
    "belongs",
    "chi_square",
    "exact_match_lmms_eval",
    "exact_match_official",
    "exact_match_qwen_vl",
    "exact_match_vlmevalkit",
    "llava_convert",
    "qwen_vl_clean",
]

#: eval.py's ``belongs``: questions whose detailed type contains "Common" accept these
_COMMON_GROUP = ("color", "material", "shape")
#: the metrics eval.py prints, in its order (grounding is never computed here)
_PRINTED = ("binary", "open", "accuracy", "consistency", "validity", "plausibility")
#: the four breakdowns, as eval.py's ``detailedMetrics`` orders them
_BREAKDOWNS = (
    ("structural", "structural"),
    ("semantic", "semantic"),
    ("steps", "steps"),
    ("words", "words"),
)
_GROUNDING_NOTE = (
    "grounding is not computed: it needs the scene graphs ({tier}_sceneGraphs.json) and the "
    "model's attention maps ({tier}_attentions.json), which eval.py reads with --grounding"
)
_CHOICES_NOTE = (
    "validity and plausibility need the choices file ({tier}_choices.json): pass --choices FILE"
)


def _avg(values: Sequence[float]) -> float:
    """eval.py's ``avg``: ``float(sum(l)) / len(l)``, and the integer ``0`` for an empty list
    (so an empty metric prints ``0.00``). Summed left to right, as CPython ≤ 3.11's ``sum``."""
    if not values:
        return 0
    return mean(values)


# -- per-question matches (spec §4.4) ---------------------------------------------------


def exact_match_official(prediction: str, references: Sequence[str]) -> float:
    """``prediction == gold``: raw string equality, nothing normalized (eval.py v1.1).

    So ``Yes`` vs ``yes``, ``yes.`` vs ``yes`` and `` yes`` vs ``yes`` all score 0.
    """
    return 1.0 if any(prediction == r for r in references) else 0.0


def llava_convert(prediction: str) -> str:
    """LLaVA's ``convert_gqa_for_eval.py``: ``text.rstrip('.').lower()`` (idempotent)."""
    return prediction.rstrip(".").lower()


def exact_match_llava(prediction: str, references: Sequence[str]) -> float:
    """LLaVA's converter, then eval.py's raw ``==``: ``Yes.`` matches ``yes``, `` yes`` does not."""
    return exact_match_official(llava_convert(prediction), references)


_PUNCT_TABLE = str.maketrans("", "", string.punctuation)


def _lmms_clean(text: str) -> str:
    return text.lower().translate(_PUNCT_TABLE)


def exact_match_lmms_eval(prediction: str, references: Sequence[str]) -> float:
    """lmms-eval ``gqa``: the prediction stripped, then ``exact_match`` with ``ignore_case``
    and ``ignore_punctuation``: lower-case and delete the 32 ASCII ``string.punctuation``
    characters on both sides. Inner double spaces stay, so ``coffee  table`` is still 0."""
    p = _lmms_clean(prediction.strip())
    return 1.0 if any(p == _lmms_clean(r) for r in references) else 0.0


def exact_match_vlmevalkit(prediction: str, references: Sequence[str]) -> float:
    """VLMEvalKit ``process_line(method='accuracy')``: strip + lower both sides, then ``==``;
    the *mean* over the answers (GQA falls to ``hit_calculate``'s default branch, not the
    max one of OCR-VQA; GQA has one answer, so this is its match). Punctuation counts:
    ``yes.`` vs ``yes`` is 0."""
    p = prediction.strip().lower()
    matches = [1.0 if p == r.strip().lower() else 0.0 for r in references]
    return numpy_mean(matches) if len(matches) > 1 else (matches[0] if matches else 0.0)


def qwen_vl_clean(prediction: str) -> str:
    """Qwen-VL's GQA answer clean-up (``evaluate_vqa.py``).

    Keep the text before the first ``.``, then ``,``, then ``!``; lower-case it; then, in this
    order, for each of ``is ``, ``are ``, ``a ``, ``an ``, ``the `` found *as a substring*,
    keep what lies between its first and second occurrence (``split(x)[1]``); cut before the
    first `` of``; strip. Quirk kept: the substring tests fire inside words, so
    ``sofa table`` becomes ``table`` (``a `` at the end of ``sofa``).
    """
    r = prediction.strip().split(".")[0].split(",")[0].split("!")[0].lower()
    for cue in ("is ", "are ", "a ", "an ", "the "):
        if cue in r:
            r = r.split(cue)[1]
    if " of" in r:
        r = r.split(" of")[0]
    return r.strip()


def exact_match_qwen_vl(prediction: str, references: Sequence[str]) -> float:
    """Qwen-VL: :func:`qwen_vl_clean`, then ``evaluate_exact_match_accuracy`` (strip + lower
    equality, max over the answers)."""
    p = qwen_vl_clean(prediction).strip().lower()
    return 1.0 if any(p == r.strip().lower() for r in references) else 0.0


# -- eval.py's suite ---------------------------------------------------------------------


def belongs(element: str | None, group: Sequence[str], detailed: str) -> bool:
    """eval.py's ``belongs``: *element* in *group*, except that a question whose detailed type
    contains ``Common`` ("what do they have in common?") accepts color, material or shape,
    whatever the choices file lists."""
    if "Common" in detailed:
        group = _COMMON_GROUP
    return element in group


def chi_square(
    gold: Mapping[str, Mapping[str, int]], predicted: Mapping[str, Mapping[str, int]]
) -> float:
    """eval.py's ``chiSquare``: per global group g,
    ``score_g = Σ_{a in gold_g} (pred_g[a] − gold_g[a])² / gold_g[a]``, then
    ``Σ_g score_g · n_g / Σ_g n_g`` with ``n_g`` the group's gold count. Predicted answers
    absent from the gold histogram are ignored. Groups in first-seen order, as eval.py's
    ``defaultdict`` iterates them (the order decides the last bits of the sum)."""
    sum_score: float = 0
    sum_overall = 0
    for group, answers in gold.items():
        score: float = 0
        overall = 0
        pred = predicted.get(group, {})
        for ans, e in answers.items():
            o = pred.get(ans, 0)
            score += float(o - e) ** 2 / e
            overall += e
        sum_score += score * overall
        sum_overall += overall
    return float(sum_score) / sum_overall


def _breakdown(
    items: Sequence[Item], correct: Sequence[float], field: str
) -> dict[str, dict[str, float | int]]:
    """``{key: {"accuracy": avg × 100, "n": count}}`` in eval.py's printed order (sorted keys;
    numbers sort as numbers). Quirk kept: eval.py means to print ``attr`` as ``Attribute`` …
    but tests a stale loop variable (``scores[k]``, a dict after the averaging loop), so it
    prints the raw keys; they are the keys here too."""
    groups: dict[Any, list[float]] = group_by([item.fields[field] for item in items], correct)
    return {
        str(k): {"accuracy": _avg(groups[k]) * 100, "n": len(groups[k])} for k in sorted(groups)
    }


def _suite(
    front: Callable[[str], str] | None, *, patched: bool
) -> Callable[[Sequence[Item], Sequence[float]], Aggregate]:
    """The aggregation of eval.py v1.1 over predictions passed through *front* (LLaVA's
    converter, or ``None``); *patched* is LLaVA's copy, which never computes validity,
    plausibility or consistency."""

    def aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
        if items and "structural" not in items[0].fields:
            # a VLMEvalKit spreadsheet without the questions file: accuracy only
            return Aggregate(
                metrics={"accuracy": _avg(scores) * 100, "n": len(items)},
                headline="accuracy",
                units="percent",
            )
        preds = [
            it.prediction if front is None or it.prediction is None else front(it.prediction)
            for it in items
        ]
        lists: dict[str, list[float]] = {"binary": [], "open": [], "accuracy": []}
        for it, s in zip(items, scores, strict=True):
            lists["accuracy"].append(s)
            lists["open" if it.fields["structural"] == "query" else "binary"].append(s)
        metrics: dict[str, float | int] = {k: _avg(v) * 100 for k, v in lists.items()}
        notes: list[str] = []
        if patched:
            notes.append(
                "LLaVA's patched eval.py also prints 'Validity: 0.00%' and 'Plausibility: "
                "0.00%': its choices load is commented out, so those lines measure nothing "
                "and are left out here; it never computes consistency or grounding"
            )
            if any("valid" in it.fields for it in items):
                notes.append("the choices file is not used by this profile (as in LLaVA's script)")
        else:
            cons, cons_note = _consistency(items, scores)
            if cons is not None:
                metrics["consistency"] = cons
            if cons_note:
                notes.append(cons_note)
            if all("valid" in it.fields for it in items):
                for key, field in (("validity", "valid"), ("plausibility", "plausible")):
                    hits = [
                        1.0 if belongs(p, it.fields[field], it.fields["detailed"]) else 0.0
                        for p, it in zip(preds, items, strict=True)
                    ]
                    metrics[key] = _avg(hits) * 100
            else:
                notes.append(_CHOICES_NOTE)
            notes.append(_GROUNDING_NOTE)
        ordered = {k: metrics[k] for k in _PRINTED if k in metrics}
        dist, dist_note = _distribution(items, preds)
        if dist is not None:
            ordered["distribution"] = dist
        if dist_note:
            notes.append(dist_note)
        ordered["n"] = len(items)
        breakdowns = {name: _breakdown(items, scores, field) for name, field in _BREAKDOWNS}
        return Aggregate(
            metrics=ordered,
            headline="accuracy",
            units="percent",
            breakdowns=breakdowns,
            notes=tuple(notes),
        )

    return aggregate


def _distribution(
    items: Sequence[Item], preds: Sequence[str | None]
) -> tuple[float | None, str | None]:
    gold: dict[str, dict[str, int]] = {}
    predicted: dict[str, dict[Any, int]] = {}
    for it, p in zip(items, preds, strict=True):
        g = it.fields["group"]
        if g is None:
            continue
        answers = gold.setdefault(g, {})
        answers[it.references[0]] = answers.get(it.references[0], 0) + 1
        counts = predicted.setdefault(g, {})
        counts[p] = counts.get(p, 0) + 1
    if not gold:
        return None, (
            "distribution is not computed: no balanced question has a global group "
            "(eval.py's chiSquare would divide by zero)"
        )
    return chi_square(gold, predicted) / 100, None


def _consistency(items: Sequence[Item], scores: Sequence[float]) -> tuple[float | None, str | None]:
    """eval.py's ``updateConsistency`` over the balanced questions answered correctly: the
    average, over those with entailed questions (other than themselves), of the accuracy on
    the entailed questions — raw ``==`` against each entailed question's own answer."""
    if not any(it.fields["entailed"] for it in items):
        return None, ("consistency is not computed: no balanced question lists entailed questions")
    absent = [e for it in items for e, gold, _ in it.fields["entailed"] if gold is None]
    unanswered = [
        e
        for it in items
        for e, gold, pred in it.fields["entailed"]
        if gold is not None and pred is None
    ]
    if absent or unanswered:
        parts = []
        if absent:
            parts.append(
                f"{len(set(absent))} entailed question(s) (e.g. {absent[0]!r}) are not in "
                "the questions file"
            )
        if unanswered:
            parts.append(
                f"{len(set(unanswered))} entailed question(s) (e.g. {unanswered[0]!r}) have "
                "no prediction"
            )
        return None, (
            "consistency is not computed: "
            + "; ".join(parts)
            + ". It needs the questions entailed by the balanced ones and predictions for "
            "them: score {tier}_all_questions.json (e.g. testdev_all_questions.json) with "
            "predictions for all of its questions"
        )
    per_question = []
    for it, s in zip(items, scores, strict=True):
        if s == 1.0 and it.fields["entailed"]:
            per_question.append(
                _avg([1.0 if pred == gold else 0.0 for _, gold, pred in it.fields["entailed"]])
            )
    return _avg(per_question) * 100, None


def _accuracy_only(
    key: str, scale: float, average: Callable[[Sequence[float]], float], digits: int
) -> Callable[[Sequence[Item], Sequence[float]], Aggregate]:
    def aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
        notes: tuple[str, ...] = ()
        if any("valid" in it.fields for it in items):
            notes = ("the choices file is not used by this profile",)
        return Aggregate(
            metrics={key: average(scores) * scale, "n": len(scores)},
            headline=key,
            units="percent" if scale == 100 else "fraction",
            digits=digits,
            notes=notes,
        )

    return aggregate


def _aggregate_vlmevalkit(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """VLMEvalKit ``evaluate_heuristic``: ``Overall = np.mean(hits) × 100``, and the same per
    ``split`` when the spreadsheet has that column, else per ``category`` when it has one."""
    base = _accuracy_only("Overall", 100.0, numpy_mean, 2)(items, scores)
    breakdowns = {}
    notes: tuple[str, ...] = ()
    for field in ("split", "category"):
        if any(field in it.fields for it in items):
            breakdowns[field] = vlmevalkit_breakdown(items, scores, field)
            notes = ungrouped_note(items, group_keys(items, field), field)
            break
    return replace(base, breakdowns=breakdowns, notes=base.notes + notes)


def _fold(text: str) -> str:
    return text.strip().lower()


_EQUAL = "1 when the compared strings are equal, else 0"


def _toolkit_profile(
    name: str,
    description: str,
    reproduces: str,
    toolkit: str,
    score: Callable[[str, Sequence[str]], float],
    aggregate: Callable[[Sequence[Item], Sequence[float]], Aggregate],
    steps: Steps,
    reference: Callable[[str], str] | None = None,
    combine: str = "max",
) -> TaskProfile:
    """A toolkit's profile whose match is ``==`` after *steps* on the prediction (and
    *reference* on the answer): the per-item output shows the compared prediction, the
    explanation each step and each answer."""

    def detail(item: Item) -> Mapping[str, Any]:
        return {"compared": run_steps(item.prediction or "", steps)[0]}

    def explain(item: Item) -> Mapping[str, Any]:
        return per_reference(
            item, score, prediction_steps=steps, reference=reference, rule=_EQUAL, combine=combine
        )

    return TaskProfile(
        name, description, reproduces, toolkit, score, aggregate, detail=detail, explain=explain
    )


def _explain_official(item: Item) -> Mapping[str, Any]:
    return per_reference(item, exact_match_official, rule="raw == (nothing normalized)")


OFFICIAL = TaskProfile(
    name="official",
    description="eval.py v1.1: raw == over balanced questions; the full metric suite",
    reproduces="GQA eval.py v1.1 (gqadataset.org eval.zip)",
    toolkit="gqa-eval@1.1",
    score=exact_match_official,
    aggregate=_suite(None, patched=False),
    explain=_explain_official,
)

LLAVA = _toolkit_profile(
    "llava",
    "LLaVA: convert_gqa_for_eval.py (.rstrip('.').lower()), then its patched eval.py",
    LLAVA_PIN.at("scripts/convert_gqa_for_eval.py + patched eval.py"),
    LLAVA_PIN.token,
    exact_match_llava,
    _suite(llava_convert, patched=True),
    (("rstrip('.') + lower", llava_convert),),
)

LMMS_EVAL = _toolkit_profile(
    "lmms-eval",
    "lmms-eval gqa: strip, exact_match ignoring case and ASCII punctuation; mean",
    LMMS_EVAL_PIN.at("tasks/gqa/gqa.yaml + exact_match_hf_evaluate"),
    LMMS_EVAL_PIN.token,
    exact_match_lmms_eval,
    _accuracy_only("exact_match", 1.0, mean, 4),
    (("strip", str.strip), ("lower, delete ASCII punctuation", _lmms_clean)),
    _lmms_clean,
)

VLMEVALKIT = _toolkit_profile(
    "vlmevalkit",
    "VLMEvalKit GQA_TestDev_Balanced: strip + lower exact match, np.mean × 100",
    VLMEVALKIT_PIN.at("vqa_eval.py process_line(method='accuracy')"),
    VLMEVALKIT_PIN.token,
    exact_match_vlmevalkit,
    _aggregate_vlmevalkit,
    (("strip + lower", _fold),),
    _fold,
    combine="mean",
)

QWEN_VL = _toolkit_profile(
    "qwen-vl",
    "Qwen-VL gqa_testdev: first clause, article/copula substring cuts, exact match",
    QWEN_VL_PIN.at("eval_mm/evaluate_vqa.py"),
    QWEN_VL_PIN.token,
    exact_match_qwen_vl,
    _accuracy_only("accuracy", 1.0, mean, 4),
    (("Qwen-VL clean-up", qwen_vl_clean), ("strip + lower", _fold)),
    _fold,
)

TASK = register_task(
    Task(
        name="gqa",
        datasets=("lmms-lab/GQA",),
        title="GQA",
        metric="gqa-acc",
        description="balanced-question accuracy and eval.py's metric suite (raw ==)",
        profiles=(OFFICIAL, LLAVA, LMMS_EVAL, VLMEVALKIT, QWEN_VL),
        read=read_gqa,
        layouts=(
            "questions: {tier}_questions.json (question id → question), or a folder of chunks",
            "predictions: [{questionId, prediction}] (official), LLaVA answers.jsonl "
            "(question_id, text), Qwen-VL results (questionId, answer), {qid: prediction}",
            "VLMEvalKit spreadsheet (index, answer, prediction): accuracy only, no --questions",
            "lmms-eval --log_samples JSONL (doc.id, doc.answer, filtered_resps): accuracy only "
            "without --questions; joined by doc.id with it, or by position when there is no doc",
            "choices (optional, --choices): {tier}_choices.json, for validity and plausibility",
        ),
        annotations_optional=True,
        note="eval.py v1.1 is a website download (gqadataset.org), not on GitHub",
        options=(("choices", "{tier}_choices.json, for validity and plausibility"),),
        reported_names=LMMS_EVAL_REPORTED,
    )
)
