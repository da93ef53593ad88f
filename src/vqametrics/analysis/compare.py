r"""Side by side: one set of predictions under VQA accuracy, EM, EM-any and multiple choice.

:func:`compare_vqa` takes a finished :class:`~vqametrics.pipeline.vqa.VQAEvaluation`
(VQA-format data);
:func:`compare_aokvqa` takes A-OKVQA in its original schema (``direct_answers`` × 10,
``choices``, ``correct_choice_idx``) with predictions in the format described in
:func:`load_aokvqa_predictions`. Both return a :class:`Comparison`: the scores, the chance
baselines of the multiple-choice scores, and the *disagreements* — per-question categories where
the metrics tell different stories (EM 0 but VQA accuracy positive, …), each with a count and the
first examples in file order. Nothing here prints; the views are in ``report/text.py`` and
:meth:`Comparison.as_dict`.

Multiple choice (spec mmbench.md §2): vanilla accuracy is the share of questions whose one
multiple-choice answer is the correct choice; chance is :math:`\overline{1/N}`. CircularEval
needs one answer per rotation of the options (copy :math:`k` shows original option
:math:`(j+k) \bmod N` under label :math:`j`) and counts a question only if all :math:`N` answers
are right; chance is :math:`\overline{(1/N)^N}`. With one answer per question it is *not
computable* and is reported as such, never estimated.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from ..aggregate import percent
from ..core.exceptions import InputError
from ..core.signature import Signature
from ..kernels.exact_match import Reference, exact_match_scores
from ..mmbench.circular import rotate_options
from ..profiles import Profile, get_profile
from ..readers.aokvqa import AOKVQAItem, AOKVQAPrediction, load_aokvqa, load_aokvqa_predictions

if TYPE_CHECKING:
    from ..pipeline.vqa import VQAEvaluation
    from ..readers.vqa import QuestionId

__all__ = [
    "AOKVQAItem",
    "AOKVQAPrediction",
    "Comparison",
    "Disagreement",
    "MetricScore",
    "QuestionComparison",
    "compare_aokvqa",
    "compare_vqa",
    "load_aokvqa",
    "load_aokvqa_predictions",
    "match_choice",
]

ChoiceHow = Literal["text", "letter", "normalized text", "extracted", "unmatched"]
McSource = Literal["multiple_choice", "rotation 0", "derived from answer"]


# --------------------------------------------------------------------------- data classes


@dataclass(frozen=True)
class MetricScore:
    """One row of the comparison table.

    Attributes
    ----------
    key : str
        ``vqa``, ``em``, ``em_any``, ``mc_vanilla`` or ``mc_circular``.
    label : str
        Human-readable name.
    value : float or None
        In percent, rounded; ``None`` when the metric is not computable on these inputs.
    n : int
        Number of questions the value averages over.
    chance : float or None
        The chance baseline in percent (multiple choice only).
    note : str or None
        Why the value is missing, or how it was obtained.
    """

    key: str
    label: str
    value: float | None
    n: int
    chance: float | None = None
    note: str | None = None


@dataclass(frozen=True)
class QuestionComparison:
    """Every score of one question, as the disagreement rules see it.

    ``mc_correct`` / ``circular_correct`` are ``None`` when that score does not exist for the
    question (no options, or no per-rotation answers).
    """

    question_id: QuestionId
    prediction: str | None
    answers: tuple[str, ...]
    reference: Reference
    vqa: float
    em: float
    em_any: float
    choices: tuple[str, ...] = ()
    correct_choice: int | None = None
    mc_choice: int | None = None
    mc_source: McSource | None = None
    mc_how: ChoiceHow | None = None
    mc_correct: bool | None = None
    circular_correct: bool | None = None

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready example record."""
        out: dict[str, Any] = {
            "question_id": self.question_id,
            "prediction": self.prediction,
            "reference": self.reference.raw,
            "reference_normalized": self.reference.text,
            "reference_source": self.reference.source,
            "reference_votes": self.reference.votes,
            "answers": dict(Counter(self.answers)),
            "vqa": self.vqa,
            "em": self.em,
            "em_any": self.em_any,
        }
        if self.choices:
            out["choices"] = list(self.choices)
            out["correct_choice"] = (
                None if self.correct_choice is None else self.choices[self.correct_choice]
            )
            out["mc_choice"] = None if self.mc_choice is None else self.choices[self.mc_choice]
            out["mc_source"] = self.mc_source
            out["mc_how"] = self.mc_how
            out["mc_correct"] = self.mc_correct
        if self.circular_correct is not None:
            out["circular_correct"] = self.circular_correct
        return out


@dataclass(frozen=True)
class Disagreement:
    """One category of questions where two metrics disagree."""

    key: str
    description: str
    count: int
    examples: tuple[QuestionComparison, ...]

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: getattr(self, k) for k in ("key", "description", "count")}
        return {**out, "examples": [e.as_dict() for e in self.examples]}


@dataclass(frozen=True, eq=False)
class Comparison:
    """The result of :func:`compare_vqa` / :func:`compare_aokvqa`."""

    profile: Profile
    source: str
    metrics: tuple[MetricScore, ...]
    disagreements: tuple[Disagreement, ...]
    questions: tuple[QuestionComparison, ...] = field(repr=False)
    notes: tuple[str, ...]
    signature: Signature
    #: decimals of the percentages (``--digits``), for the text view
    digits: int = 2

    @property
    def n_questions(self) -> int:
        return len(self.questions)

    def __repr__(self) -> str:
        vals = ", ".join(
            f"{m.label} {m.value:.{self.digits}f}" for m in self.metrics if m.value is not None
        )
        return (
            f"<Comparison {vals} | profile {self.profile.name}, {self.n_questions} questions, "
            f"{len(self.disagreements)} disagreement categories>"
        )

    def metric(self, key: str) -> MetricScore:
        """The row called *key* (``KeyError`` if absent)."""
        for m in self.metrics:
            if m.key == key:
                return m
        raise KeyError(key)

    def as_dict(self) -> dict[str, Any]:
        """The ``compare --json`` payload."""
        return {
            "profile": self.profile.name,
            "source": self.source,
            "n_questions": self.n_questions,
            "metrics": {
                m.key: {
                    "label": m.label,
                    "value": m.value,
                    "n": m.n,
                    "chance": m.chance,
                    "note": m.note,
                }
                for m in self.metrics
            },
            "disagreements": [d.as_dict() for d in self.disagreements],
            "notes": list(self.notes),
            "signature": self.signature.format(),
        }


# --------------------------------------------------------------------------- disagreements


@dataclass(frozen=True)
class _Rule:
    key: str
    description: str
    applies: Callable[[bool, bool], bool]  # (has_mc, has_circular)
    test: Callable[[QuestionComparison], bool]


_RULES = (
    _Rule(
        "em0_vqa_pos",
        "EM = 0 but VQA accuracy > 0: the prediction is not the reference answer but some "
        "annotators gave it (partial credit, answer variants, reference ties)",
        lambda mc, circ: True,
        lambda q: q.em == 0.0 and q.vqa > 0.0,
    ),
    _Rule(
        "em1_vqa_lt1",
        "EM = 1 but VQA accuracy < 1: the reference answer has fewer than 4 votes, or the "
        "official unanimity rule kept the prediction from being normalized",
        lambda mc, circ: True,
        lambda q: q.em == 1.0 and q.vqa < 1.0,
    ),
    _Rule(
        "em_any1_vqa_lt09",
        "EM-any = 1 but VQA accuracy < 0.9: a minority answer (1-2 annotators), or the "
        "unanimity rule",
        lambda mc, circ: True,
        lambda q: q.em_any == 1.0 and q.vqa < 0.9,
    ),
    _Rule(
        "em_any0_vqa_pos",
        "EM-any = 0 but VQA accuracy > 0: the profile normalizes answers differently from EM, "
        "or the prediction matches only answers that normalize to '' (VQA accuracy counts "
        "that match, EM never does)",
        lambda mc, circ: True,
        lambda q: q.em_any == 0.0 and q.vqa > 0.0,
    ),
    _Rule(
        "vqa1_mc_wrong",
        "VQA accuracy = 1 but the multiple-choice answer is wrong",
        lambda mc, circ: mc,
        lambda q: q.vqa == 1.0 and q.mc_correct is False,
    ),
    _Rule(
        "vqa0_mc_right",
        "VQA accuracy = 0 but the multiple-choice answer is right",
        lambda mc, circ: mc,
        lambda q: q.vqa == 0.0 and q.mc_correct is True,
    ),
    _Rule(
        "mc_right_circular_wrong",
        "vanilla multiple choice right but CircularEval wrong (an answer that depends on the "
        "option order)",
        lambda mc, circ: circ,
        lambda q: q.mc_correct is True and q.circular_correct is False,
    ),
)


def _disagreements(
    questions: Sequence[QuestionComparison], has_mc: bool, has_circular: bool, examples: int
) -> tuple[Disagreement, ...]:
    out = []
    for rule in _RULES:
        if not rule.applies(has_mc, has_circular):
            continue
        hits = [q for q in questions if rule.test(q)]
        out.append(Disagreement(rule.key, rule.description, len(hits), tuple(hits[:examples])))
    return tuple(out)


# --------------------------------------------------------------------------- multiple choice


def match_choice(
    text: str,
    choices: Sequence[str],
    profile: str | Profile = "official",
    *,
    letters: bool = True,
    extractor: str = "vlmevalkit",
) -> tuple[int | None, ChoiceHow]:
    """Map a multiple-choice answer (choice text or letter) to the index of a choice.

    In order, the first rule that decides wins:

    1. ``text`` equals a choice exactly (A-OKVQA's own test: ``pred == choices[i]``);
    2. only if *letters*: ``text`` is a bare upper-case option letter (``"B"``, spaces
       allowed). It comes before rule 3 so that ``"C"`` is option C even when an option
       reads ``"c"`` (A-OKVQA val has such a question);
    3. ``text`` equals exactly one option text after the profile's prediction normalizer on
       both sides (``"The Cigarette."`` → ``cigarette``);
    4. only if *letters*: the MMBench reference heuristic
       (:func:`vqametrics.mmbench.extract.extract_choice`, lineage *extractor*) on the options
       labelled A, B, C, …: a letter (``"B"``, ``"(B)"``, ``"The answer is B"``) or exactly one
       option text contained in the answer.

    Parameters
    ----------
    text : str
        The answer, raw.
    choices : sequence of str
        The options in the order they were shown.
    profile : str or Profile, default="official"
    letters : bool, default=True
        Allow rules 2 and 4. Free-text (direct) answers are matched with rules 1 and 3 only,
        so a direct answer ``"B"`` or ``"a"`` is never read as an option letter.
    extractor : str, default="vlmevalkit"

    Returns
    -------
    (int or None, str)
        The index in *choices* (``None`` when unmatched, ambiguous, or a refusal ``Z``) and
        which rule decided: ``"text"``, ``"letter"``, ``"normalized text"``, ``"extracted"``
        or ``"unmatched"``.
        When an option text occurs twice (7 A-OKVQA val questions do), the first index is
        returned; correctness is judged by text (see :func:`compare_aokvqa`).

    Examples
    --------
    >>> choices = ["toothpick", "food", "popsicle stick", "cigarette"]
    >>> match_choice("The Cigarette.", choices)
    (3, 'normalized text')
    >>> match_choice("B", choices)
    (1, 'letter')
    >>> match_choice("The answer is (B).", choices)
    (1, 'extracted')
    >>> match_choice("a cigar", choices, letters=False)
    (None, 'unmatched')
    """
    options = list(choices)
    if text in options:
        return options.index(text), "text"
    bare = text.strip()
    if letters and len(bare) == 1 and 0 <= ord(bare) - ord("A") < len(options):
        return ord(bare) - ord("A"), "letter"
    prof = get_profile(profile)
    p = prof.normalize(text, "prediction")
    if p:
        same = [i for i, c in enumerate(options) if prof.normalize(c, "prediction") == p]
        if same and all(options[i] == options[same[0]] for i in same):
            return same[0], "normalized text"
    if letters:
        from ..mmbench.extract import extract_choice

        labelled = {chr(ord("A") + i): c for i, c in enumerate(choices)}
        letter = extract_choice(text, labelled, extractor)
        if letter is not None and letter in labelled:
            return ord(letter) - ord("A"), "extracted"
    return None, "unmatched"


# --------------------------------------------------------------------------- comparisons


def _question_rows(evaluation: VQAEvaluation) -> list[QuestionComparison]:
    d = evaluation.dataset
    ems = exact_match_scores(d, evaluation.predictions, evaluation.profile)
    return [
        QuestionComparison(
            question_id=d.question_ids[i],
            prediction=evaluation.predictions[i],
            answers=tuple(d.answers[i]),
            reference=ems.references[i],
            vqa=evaluation.scores[i],
            em=ems.em[i],
            em_any=ems.em_any[i],
        )
        for i in range(len(d))
    ]


def _text_metrics(
    evaluation: VQAEvaluation, rows: Sequence[QuestionComparison]
) -> list[MetricScore]:
    n = len(rows)
    digits = evaluation.digits
    refs = Counter(r.reference.source for r in rows)
    ref_note = ", ".join(f"{c} from {s}" for s, c in refs.items())
    return [
        MetricScore("vqa", "VQA accuracy", evaluation.accuracy["overall"], n),
        MetricScore(
            "em", "EM", percent([r.em for r in rows], digits), n, note=f"reference: {ref_note}"
        ),
        MetricScore("em_any", "EM-any", percent([r.em_any for r in rows], digits), n),
    ]


def _signature(
    evaluation: VQAEvaluation, rows: Sequence[QuestionComparison], **extra: Any
) -> Signature:
    sources = {r.reference.source for r in rows}
    ref = (
        "mca"
        if sources == {"multiple_choice_answer"}
        else ("majority" if sources == {"majority"} else "mixed")
    )
    fields: list[tuple[str, Any]] = [
        *evaluation.profile.signature_fields(),
        ("ref", ref),
        ("n", len(rows)),
    ]
    fields += list(extra.items())
    return Signature("compare", tuple(fields))


def compare_vqa(evaluation: VQAEvaluation, *, examples: int = 3) -> Comparison:
    """Compare VQA accuracy, EM and EM-any on a VQA-format evaluation.

    Parameters
    ----------
    evaluation : VQAEvaluation
        From :func:`vqametrics.evaluate_vqa`; its profile and rounding are used for EM too.
    examples : int, default=3
        How many example questions to keep per disagreement category (first in file order).

    Returns
    -------
    Comparison
        The multiple-choice rows are present but ``None``: VQA-format data has no options.
    """
    if examples < 0:
        raise ValueError(f"examples must be >= 0, got {examples}")
    rows = _question_rows(evaluation)
    metrics = _text_metrics(evaluation, rows)
    reason = "not computable: the annotations have no answer options (use --aokvqa)"
    metrics += [
        MetricScore("mc_vanilla", "MC vanilla", None, 0, note=reason),
        MetricScore("mc_circular", "MC circular", None, 0, note=reason),
    ]
    return Comparison(
        profile=evaluation.profile,
        source=evaluation.dataset.source,
        metrics=tuple(metrics),
        disagreements=_disagreements(rows, False, False, examples),
        questions=tuple(rows),
        notes=evaluation.notes,
        signature=_signature(evaluation, rows),
        digits=evaluation.digits,
    )


def compare_aokvqa(
    items: Sequence[AOKVQAItem],
    predictions: Mapping[str, AOKVQAPrediction],
    *,
    profile: str | Profile = "official",
    examples: int = 3,
    digits: int = 2,
    allow_missing: bool = False,
    ignore_extra: bool = False,
    source: str = "<aokvqa>",
    predictions_source: str = "<predictions>",
    extractor: str = "vlmevalkit",
) -> Comparison:
    r"""Compare VQA accuracy, EM, EM-any and multiple-choice accuracy on A-OKVQA.

    The direct answers are scored as VQA data (plain strings: leave-one-out by position; there
    is no ``multiple_choice_answer``, so EM uses the majority reference). The multiple-choice
    answer of a question is, in order of preference: its ``multiple_choice``; rotation 0 of its
    ``multiple_choice_rotations``; else it is *derived* from the free-text answer by
    :func:`match_choice` with ``letters=False`` — the answer must equal one option text,
    exactly or after normalization, otherwise the question counts as wrong ("unmatched"). No
    nearest-option guess is made (allenai/aokvqa's ``remap_predictions.py`` picks the most
    similar option by sentence embedding instead; that always yields a choice and is not
    reproduced here).

    CircularEval: a question is right when each of its *N* rotations resolves to the correct
    option. It is computed only when at least one prediction has
    ``multiple_choice_rotations``; a question without them then counts as wrong (strict, spec
    mmbench.md §2 recommendation) and is counted in the note.

    .. math::

        \mathrm{chance}_{\mathrm{vanilla}} = \frac{1}{Q}\sum_q \frac{1}{N_q}, \qquad
        \mathrm{chance}_{\mathrm{circular}} = \frac{1}{Q}\sum_q \Bigl(\frac{1}{N_q}\Bigr)^{N_q}

    Parameters
    ----------
    items : sequence of AOKVQAItem
        From :func:`load_aokvqa`.
    predictions : mapping question_id -> AOKVQAPrediction
        From :func:`load_aokvqa_predictions`.
    profile : str or Profile, default="official"
    examples : int, default=3
    digits : int, default=2
    allow_missing, ignore_extra : bool, default=False
        As in :func:`vqametrics.evaluate_vqa`; a missing question scores 0 everywhere.
    source, predictions_source : str
        File names used in messages.
    extractor : str, default="vlmevalkit"
        MMBench extraction lineage used for letter answers.

    Raises
    ------
    InputError
        Missing or extra predictions (unless allowed), or a rotation list whose length is not
        the number of options; the message names the file and the question id.
    """
    from ..readers.vqa import Results, as_dataset
    from ..tasks.vqav2 import evaluate_vqa

    if examples < 0:
        raise ValueError(f"examples must be >= 0, got {examples}")
    prof = get_profile(profile)
    dataset = as_dataset(
        [{"question_id": it.question_id, "answers": list(it.direct_answers)} for it in items],
        source=source,
    )
    results = Results(predictions_source, [(q, p.answer) for q, p in predictions.items()])
    evaluation = evaluate_vqa(
        dataset,
        results,
        profile=prof,
        digits=digits,
        allow_missing=allow_missing,
        ignore_extra=ignore_extra,
    )
    rows = _question_rows(evaluation)
    has_rotations = any(p.rotations is not None for p in predictions.values())
    sources: Counter[str] = Counter()
    unmatched = 0
    incomplete = 0
    new_rows = []
    for it, row in zip(items, rows, strict=True):
        pred = predictions.get(it.question_id)
        choice: int | None = None
        how: ChoiceHow | None = None
        src: McSource | None = None
        circ: bool | None = False if has_rotations else None
        if pred is not None:
            n = len(it.choices)
            if pred.rotations is not None and len(pred.rotations) != n:
                raise InputError(
                    f"{predictions_source}: question {it.question_id!r}: "
                    f"multiple_choice_rotations has {len(pred.rotations)} answers, the question "
                    f"has {n} options"
                )
            if pred.multiple_choice is not None:
                src = "multiple_choice"
                choice, how = match_choice(
                    pred.multiple_choice, it.choices, prof, extractor=extractor
                )
            elif pred.rotations is not None:
                src = "rotation 0"
                choice, how = match_choice(pred.rotations[0], it.choices, prof, extractor=extractor)
            else:
                src = "derived from answer"
                choice, how = match_choice(pred.answer, it.choices, prof, letters=False)
            sources[src] += 1
            unmatched += choice is None
            if pred.rotations is not None:
                circ = all(
                    _rotation_hit(text, it, k, prof, extractor)
                    for k, text in enumerate(pred.rotations)
                )
            elif has_rotations:
                incomplete += 1
        elif has_rotations:
            incomplete += 1
        new_rows.append(
            replace(
                row,
                choices=it.choices,
                correct_choice=it.correct_choice_idx,
                mc_choice=choice,
                mc_source=src,
                mc_how=how,
                mc_correct=_is_correct(choice, it),
                circular_correct=circ,
            )
        )
    notes = list(evaluation.notes)
    dup = sum(1 for it in items if len(set(it.choices)) < len(it.choices))
    if dup:
        notes.append(
            f"{dup} question(s) repeat an option text; a multiple-choice answer is right when "
            "its text equals the correct option's text, as allenai/aokvqa scores it"
        )
    metrics = _text_metrics(evaluation, new_rows)
    q = len(new_rows)
    ns = [len(it.choices) for it in items]
    chance_v = percent([1 / n for n in ns], digits)
    chance_c = percent([(1 / n) ** n for n in ns], digits)
    src_note = ", ".join(f"{c} {s}" for s, c in sources.items())
    if unmatched:
        src_note += f"; {unmatched} matched no option (scored wrong)"
    metrics.append(
        MetricScore(
            "mc_vanilla",
            "MC vanilla",
            percent([1.0 if r.mc_correct else 0.0 for r in new_rows], digits),
            q,
            chance_v,
            note=src_note,
        )
    )
    if has_rotations:
        note = (
            f"{incomplete} question(s) without per-rotation answers scored wrong (strict)"
            if incomplete
            else "every question has one answer per rotation"
        )
        value: float | None = percent(
            [1.0 if r.circular_correct else 0.0 for r in new_rows], digits
        )
    else:
        note = (
            "not computable: the predictions give one multiple-choice answer per question; "
            "CircularEval needs one per rotation of the options (multiple_choice_rotations)"
        )
        value = None
    metrics.append(
        MetricScore("mc_circular", "MC circular", value, q if has_rotations else 0, chance_c, note)
    )
    return Comparison(
        profile=prof,
        source=source,
        metrics=tuple(metrics),
        disagreements=_disagreements(new_rows, True, has_rotations, examples),
        questions=tuple(new_rows),
        notes=tuple(notes),
        digits=digits,
        signature=_signature(
            evaluation,
            new_rows,
            choices=_count_field(ns),
            mc="rotations" if has_rotations else "single",
            extractor=extractor,
        ),
    )


def _count_field(ns: Sequence[int]) -> int | str:
    distinct = set(ns)
    return next(iter(distinct)) if len(distinct) == 1 else "var"


def _is_correct(choice: int | None, item: AOKVQAItem) -> bool:
    # by text, as allenai/aokvqa scores (pred == choices[correct_choice_idx]): with a duplicated
    # option either copy is right
    return choice is not None and item.choices[choice] == item.choices[item.correct_choice_idx]


def _rotation_hit(text: str, item: AOKVQAItem, k: int, prof: Profile, extractor: str) -> bool:
    shown = rotate_options(item.choices, k)
    j, _ = match_choice(text, shown, prof, extractor=extractor)
    return _is_correct(None if j is None else (j + k) % len(shown), item)
