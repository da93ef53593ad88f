"""Score a whole results file: predictions → normalization → per-question score → aggregates."""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ._exceptions import AnswerCountWarning, LeaveOneOutWarning
from .aggregate import Breakdown, breakdown, official_outputs
from .load._json import PathLike
from .load.vqa import (
    Matched,
    QuestionId,
    Results,
    VQADataset,
    as_dataset,
    load_annotations,
    load_questions,
    load_results,
    match_predictions,
    results_from_pairs,
)
from .normalize.question import QuestionNormalizer
from .profiles import Profile, get_profile
from .score.vqa import leave_one_out_values, score_normalized
from .signature import Signature

__all__ = ["VQAEvaluation", "evaluate_vqa", "score_dataset"]

Annotations = PathLike | VQADataset | Sequence[Mapping[str, Any]]
Predictions = PathLike | Results | Mapping[QuestionId, str]


@dataclass(frozen=True, eq=False)
class VQAEvaluation:
    """The result of :func:`evaluate_vqa`: per-question scores, aggregates and a signature."""

    profile: Profile
    dataset: VQADataset
    predictions: list[str | None]
    #: unrounded per-question scores in annotation order, bit-identical to the toolkit's
    scores: list[float]
    accuracy: Breakdown
    signature: Signature
    matched: Matched
    digits: int
    notes: tuple[str, ...]

    @property
    def question_ids(self) -> list[QuestionId]:
        return self.dataset.question_ids

    def official_outputs(self) -> dict[str, Any]:
        """``accuracy``, ``evalQA``, ``evalQuesType``, ``evalAnsType`` in the official shapes."""
        d = self.dataset
        return official_outputs(
            d.question_ids, self.scores, d.question_types, d.answer_types, self.digits
        )

    def per_question(self) -> Iterator[dict[str, Any]]:
        """One record per question: what was compared, how it matched, and why it scored so."""
        prof = self.profile
        norm = QuestionNormalizer(prof)
        changed_pred: dict[str, tuple[str, ...]] = {}
        changed_ans: dict[str, tuple[str, ...]] = {}
        d = self.dataset
        for i, qid in enumerate(d.question_ids):
            raw = self.predictions[i]
            answers = d.answers[i]
            rec: dict[str, Any] = {"question_id": qid, "prediction": raw}
            if raw is None:
                rec.update(missing=True, score=0.0)
                yield rec
                continue
            pred, ans, skipped = norm.question(raw, answers)
            matches = [a == pred for a in ans]
            loo = (
                leave_one_out_values(matches, d.groups[i], prof.leave_one_out)
                if prof.leave_one_out != "none"
                else []
            )
            steps = set(_changed(raw, prof, "prediction", skipped, changed_pred))
            for a in answers:
                steps.update(_changed(a, prof, "answer", skipped, changed_ans))
            rec.update(
                normalized_prediction=pred,
                normalized_answers=ans,
                m=sum(matches),
                leave_one_out=loo,
                score=self.scores[i],
                steps_changed=[s.name for s in prof.prediction_steps if s.name in steps]
                + sorted(steps - {s.name for s in prof.prediction_steps}),
                unanimous_skip=skipped,
                question_type=d.question_types[i],
                answer_type=d.answer_types[i],
            )
            yield rec

    def as_dict(self) -> dict[str, Any]:
        """The ``--json`` payload."""
        return {
            "profile": self.profile.name,
            "n_questions": len(self.scores),
            "accuracy": self.accuracy,
            "signature": self.signature.format(),
            "n_missing": len(self.matched.missing),
            "n_extra_ignored": len(self.matched.extra),
            "n_duplicates": self.matched.duplicates,
            "notes": list(self.notes),
        }


def _changed(
    text: str, prof: Profile, role: str, skipped: bool, cache: dict[str, tuple[str, ...]]
) -> tuple[str, ...]:
    key = ("1" if skipped else "0") + text
    hit = cache.get(key)
    if hit is None:
        steps = prof.prediction_steps if role == "prediction" else prof.answer_steps
        names = []
        for step in steps:
            if skipped and step.conditional:
                continue
            new = step.fn(text)
            if new != text:
                names.append(step.name)
            text = new
        hit = cache[key] = tuple(names)
    return hit


def score_dataset(
    dataset: VQADataset, predictions: Sequence[str | None], profile: str | Profile = "official"
) -> list[float]:
    """Unrounded per-question scores of aligned predictions (``None`` scores 0)."""
    prof = get_profile(profile)
    norm = QuestionNormalizer(prof)
    question = norm.question
    scores = []
    for raw, answers, groups in zip(predictions, dataset.answers, dataset.groups, strict=True):
        if raw is None:
            scores.append(0.0)
            continue
        pred, ans, _ = question(raw, answers)
        scores.append(score_normalized(pred, ans, groups, prof))
    return scores


def evaluate_vqa(
    annotations: Annotations,
    results: Predictions,
    *,
    questions: PathLike | None = None,
    profile: str | Profile = "official",
    allow_missing: bool = False,
    ignore_extra: bool = False,
    on_duplicate: Literal["error", "last"] = "error",
    digits: int = 2,
) -> VQAEvaluation:
    """Score a results file against an annotations file, as the official script does.

    Parameters
    ----------
    annotations : path, VQADataset, or list of records
        The official annotations JSON, or a flat list/JSONL of ``{question_id, answers}``.
    results : path, Results, or mapping ``{question_id: answer}``
        The official results list, JSONL, or a mapping.
    questions : path, optional
        The official questions file; validated only (the text never affects a score).
    profile : str or Profile, default="official"
    allow_missing : bool, default=False
        Score questions without a prediction 0 instead of failing.
    ignore_extra : bool, default=False
        Skip predictions for unknown questions instead of failing.
    on_duplicate : {"error", "last"}, default="error"
        ``"last"``: the last of duplicate ids wins, as in the official script.
    digits : int, default=2
        Rounding of the percentages (the script's ``n``).

    Returns
    -------
    VQAEvaluation
        ``accuracy`` holds the official dict in percent; ``scores`` the unrounded values.

    Raises
    ------
    InputError
        Malformed input; the message names the file and the question id or line.
    """
    prof = get_profile(profile)
    if isinstance(annotations, VQADataset):
        dataset = annotations
    elif isinstance(annotations, Sequence) and not isinstance(annotations, str | bytes):
        dataset = as_dataset(annotations)
    else:
        dataset = load_annotations(annotations, on_duplicate=on_duplicate)
    if questions is not None:
        load_questions(questions, dataset)
    if isinstance(results, Results):
        res = results
    elif isinstance(results, Mapping):
        res = results_from_pairs(results)
    else:
        res = load_results(results)
    matched = match_predictions(
        dataset,
        res,
        allow_missing=allow_missing,
        ignore_extra=ignore_extra,
        on_duplicate=on_duplicate,
    )
    scores = score_dataset(dataset, matched.predictions, prof)
    notes = _notes(dataset, prof, matched)
    counts = Counter(len(a) for a in dataset.answers)
    n_answers: int | str = next(iter(counts)) if len(counts) == 1 else "var"
    signature = Signature(
        "vqa-acc",
        (
            ("profile", prof.name),
            ("toolkit", prof.toolkit),
            ("answers", n_answers),
            ("n", len(scores)),
            ("missing", len(matched.missing) or None),
        ),
    )
    return VQAEvaluation(
        profile=prof,
        dataset=dataset,
        predictions=matched.predictions,
        scores=scores,
        accuracy=breakdown(scores, dataset.question_types, dataset.answer_types, digits),
        signature=signature,
        matched=matched,
        digits=digits,
        notes=tuple(notes),
    )


def _notes(dataset: VQADataset, prof: Profile, matched: Matched) -> list[str]:
    notes = []
    if prof.leave_one_out == "records":
        collapsed = sum(1 for g in dataset.groups if g is not None)
        if collapsed:
            msg = (
                f"{collapsed} question(s) in {dataset.source} have answer records without "
                f"distinct answer_id; profile {prof.name!r} leaves equal records out together, "
                "as the official script does, which lowers their scores (spec §4)"
            )
            warnings.warn(msg, LeaveOneOutWarning, stacklevel=3)
            notes.append(msg)
    counts = Counter(len(a) for a in dataset.answers)
    odd = {n: c for n, c in sorted(counts.items()) if n != 10}
    if odd:
        desc = ", ".join(f"{c} with {n}" for n, c in odd.items())
        msg = (
            f"{sum(odd.values())} question(s) do not have 10 answers ({desc}); "
            "scored with the general leave-one-out formula"
        )
        warnings.warn(msg, AnswerCountWarning, stacklevel=3)
        notes.append(msg)
    if matched.missing:
        notes.append(f"{len(matched.missing)} question(s) had no prediction and scored 0")
    if matched.extra:
        notes.append(f"{len(matched.extra)} prediction(s) for unknown questions were ignored")
    if matched.duplicates:
        notes.append(f"{matched.duplicates} duplicate prediction(s): the last one was kept")
    if not dataset.has_question_types or not dataset.has_answer_types:
        notes.append(
            "the annotations have no question_type/answer_type; those breakdowns are empty"
        )
    return notes
