"""Score a whole results file: predictions → normalization → per-question score → aggregates."""

from __future__ import annotations

import os
import warnings
import weakref
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..aggregate import Breakdown, breakdown, official_outputs
from ..core.exceptions import (
    AnswerCountWarning,
    ArgumentTypeError,
    InputError,
    LeaveOneOutWarning,
)
from ..core.signature import Signature
from ..kernels.question import QuestionNormalizer
from ..kernels.vqa import leave_one_out_values, score_normalized
from ..profiles import Profile, get_profile
from ..readers._json import PathLike
from ..readers.results import (
    ResultsFile,
    describe_reported,
    ground_truth_disagreements,
    read_results,
    resolve_positions,
)
from ..readers.vqa import (
    Matched,
    QuestionId,
    ReadAhead,
    Results,
    VQADataset,
    as_dataset,
    load_annotations,
    load_questions,
    match_predictions,
    official_annotations,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..aggregate.stats import BootstrapResult
    from ..kernels._fast import FastScores
    from .explanation import Explanation

    IntArray = npt.NDArray[np.int64]

__all__ = [
    "VQA_OUTPUTS",
    "VQAEvaluation",
    "VQARead",
    "bulk_findings",
    "read_vqa",
    "score_dataset",
    "score_question",
    "score_with_findings",
    "steps_changed",
]

#: The files of ``vqametrics vqa --out`` / ``score vqav2 --out`` (besides ``manifest.json``),
#: in the order written (by :mod:`vqametrics.pipeline.vqa_outputs`).
VQA_OUTPUTS = (
    "accuracy.json",
    "evalQA.json",
    "evalQuesType.json",
    "evalAnsType.json",
    "per_question.jsonl",
    "signature.txt",
)

_CHUNK = 1 << 15

Annotations = PathLike | VQADataset | Sequence[Mapping[str, Any]] | Mapping[str, Any] | None
#: a path (any layout of ``load/results.py``), ``"-"``, :class:`Results`, ``{qid: answer}``,
#: a list of ``{question_id, answer}`` records, or a pandas DataFrame
Predictions = PathLike | Results | Mapping[QuestionId, str] | Sequence[Mapping[str, Any]] | Any


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
    #: what the vectorized scorer found (``score._fast.FastScores``), reused by the reports
    _fast: Any = field(default=None, repr=False)
    #: verbose-looking raw predictions (``extract.Diagnostics``); never used by a score
    diagnostics: Any = field(default=None, repr=False)
    #: the ``extract=`` stage (``extract.ExtractionRun``): ``predictions`` hold its output
    extraction: Any = field(default=None, repr=False)

    def chat_fields(self, i: int) -> dict[str, Any]:
        """Row *i*'s ``verbose`` flag and, under ``extract``, its raw text and trace."""
        out: dict[str, Any] = {}
        if self.diagnostics is not None:
            out["verbose"] = bool(self.diagnostics.flags[i])
        if self.extraction is not None:
            out.update(self.extraction.record(i))
        return out

    #: ``evaluate_vqa(metrics=[...])``: ``{"em": Breakdown, "em_any": Breakdown}`` as asked
    extra_metrics: Mapping[str, Breakdown] = field(default_factory=dict)
    #: ``evaluate_vqa(ci=True)``: bootstrap intervals of the overall and per-type accuracies
    intervals: BootstrapResult | None = None

    def __repr__(self) -> str:
        from ._notebook import evaluation_repr

        return evaluation_repr(self, dict(self.extra_metrics), self.intervals)

    def _repr_html_(self) -> str:
        from ._notebook import evaluation_html

        return evaluation_html(self, dict(self.extra_metrics), self.intervals)

    def explain(self, question_id: QuestionId) -> Explanation:
        """:func:`vqametrics.explain` of one question, as this evaluation scored it: the same
        profile and the same leave-one-out records, so its ``score`` equals ``scores[i]``."""
        from .explanation import explain

        i = self._index(question_id)
        pred = self.predictions[i]
        if pred is None:
            raise InputError(f"question {question_id!r} has no prediction (scored 0)")
        answers, groups = self.dataset.answers[i], self.dataset.groups[i]
        records: Sequence[Any] = (
            list(answers)
            if groups is None
            else [{"answer": a, "record": g} for a, g in zip(answers, groups, strict=True)]
        )
        return explain(pred, records, self.profile)

    def _index(self, question_id: Any) -> int:
        """The position of *question_id* (``"7"`` finds the integer id ``7`` and back)."""
        index = self.dataset.index
        for key in (question_id, str(question_id), _as_int(question_id)):
            if key is not None and key in index:
                return index[key]
        raise InputError(f"question {question_id!r} is not in {self.dataset.source}")

    def to_pandas(self) -> Any:
        """One row per question (id, types, raw and normalized prediction, the human
        answers, m, score) as a pandas DataFrame (``pip install 'vqametrics[pandas]'``)."""
        from ._notebook import evaluation_frame

        return evaluation_frame(self)

    #: the results layout recognized (``official (json)``, ``llava-answers (jsonl)``, …)
    layout: str = "official (json)"
    #: the toolkit's own numbers found beside the results file (or given): ``{"source",
    #: "toolkit", "values"}``, else ``None``
    reported: Mapping[str, Any] | None = None
    #: per-sample metrics the toolkit recorded (lmms-eval): name → ``{question_id: value}``
    sample_metrics: Mapping[str, Mapping[QuestionId, float]] = field(
        default_factory=dict, repr=False
    )

    @property
    def question_ids(self) -> list[QuestionId]:
        return self.dataset.question_ids

    def official_outputs(self) -> dict[str, Any]:
        """``accuracy``, ``evalQA``, ``evalQuesType``, ``evalAnsType`` in the official shapes."""
        d = self.dataset
        if self._fast is not None:
            from ..aggregate._bulk import fast_official_outputs

            return fast_official_outputs(
                d.question_ids,
                self.scores,
                d.question_types,
                d.answer_types,
                self.digits,
                self._fast.groups,
            )
        return official_outputs(
            d.question_ids, self.scores, d.question_types, d.answer_types, self.digits
        )

    def per_question(self) -> Iterator[dict[str, Any]]:
        """One record per question: what was compared, how it matched, and why it scored so."""
        if self._fast is not None:
            yield from fast_records(self, self._fast)
            return
        yield from self._per_question_slow(range(len(self.dataset)))

    def _per_question_slow(self, rows: Iterable[int]) -> Iterator[dict[str, Any]]:
        """:meth:`per_question` for the given rows, one question at a time."""
        prof = self.profile
        norm = QuestionNormalizer(prof)
        changed_pred: dict[str, tuple[str, ...]] = {}
        changed_ans: dict[str, tuple[str, ...]] = {}
        d = self.dataset
        for i in rows:
            qid = d.question_ids[i]
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
                **self.chat_fields(i),
            )
            yield rec

    def as_dict(self) -> dict[str, Any]:
        """The ``--json`` payload."""
        out = {
            "profile": self.profile.name,
            "n_questions": len(self.scores),
            "accuracy": self.accuracy,
            "signature": self.signature.format(),
            "n_missing": len(self.matched.missing),
            "n_extra_ignored": len(self.matched.extra),
            "n_duplicates": self.matched.duplicates,
            "notes": list(self.notes),
            "input_layout": self.layout,
            **({} if self.reported is None else {"reported": dict(self.reported)}),
            **dict(self.extra_metrics),
            **(
                {}
                if self.intervals is None
                else {
                    "ci95": self.intervals.ci95,
                    "se": self.intervals.se,
                    "bootstrap": self.intervals.settings(),
                }
            ),
        }
        if self.diagnostics is not None:
            out["diagnostics"] = self.diagnostics.as_dict(self.dataset.question_ids)
        if self.extraction is not None:
            out["extract"] = self.extraction.as_dict()
        return out


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
    """Unrounded per-question scores of aligned predictions (``None`` scores 0).

    Large inputs are scored in bulk (``score/_fast.py``); the values
    are bit-identical to the per-question loop (``tests/test_differential.py``).
    """
    return _score(dataset, predictions, get_profile(profile))[0]


#: the vectorized scorer's findings of the last bulk scoring of each dataset (held weakly by
#: the dataset), for the bulk writers of the same run: see :func:`bulk_findings`
_FINDINGS: weakref.WeakKeyDictionary[VQADataset, Any] = weakref.WeakKeyDictionary()


def score_with_findings(
    dataset: VQADataset, predictions: Sequence[str | None], prof: Profile
) -> list[float]:
    """:func:`score_dataset`, remembering what the vectorized scorer found (its interned
    strings and masks) for the bulk writers of the same scores (:func:`bulk_findings`)."""
    scores, fast = _score(dataset, predictions, prof)
    if fast is None:
        _FINDINGS.pop(dataset, None)
    else:
        _FINDINGS[dataset] = fast
    return scores


def bulk_findings(dataset: VQADataset, scores: Sequence[float]) -> Any:
    """The findings of :func:`score_with_findings` when *scores* is the very list it returned
    for *dataset* (so they describe exactly these scores), else ``None`` (the writers then go
    question by question, with the same output)."""
    fast = _FINDINGS.get(dataset)
    return fast if fast is not None and fast.scores is scores else None


def _score(
    dataset: VQADataset, predictions: Sequence[str | None], prof: Profile
) -> tuple[list[float], Any]:
    """Scores, and the vectorized scorer's findings when it ran (else ``None``)."""
    from ..kernels import _fast

    n = len(dataset)
    if n >= _fast.MIN_QUESTIONS and len(predictions) == n and _fast.have_numpy():
        codes = dataset._answer_codes
        if codes is None:
            codes = _fast.answer_codes(dataset.answers)
            object.__setattr__(dataset, "_answer_codes", codes)
        fast = _fast.score_fast(codes, dataset.groups, predictions, prof)
        scores = fast.scores
        rest = fast.slow_rows()
        if rest:
            _score_rows(dataset, predictions, prof, rest, scores)
        return scores, fast
    scores = [0.0] * n
    _score_rows(dataset, predictions, prof, range(n), scores)
    return scores, None


def score_question(
    prediction: str | None,
    answers: Sequence[str],
    groups: Sequence[int] | None,
    prof: Profile,
) -> float:
    """One question's score: the per-question loop of :func:`score_dataset` for one row
    (*groups*: the answers' leave-one-out records, ``None`` for one per answer)."""
    if prediction is None:
        return 0.0
    norm = _NORMALIZERS.get(prof.name)
    if norm is None or norm[0] is not prof:
        norm = _NORMALIZERS[prof.name] = (prof, QuestionNormalizer(prof))
    pred, ans, _ = norm[1].question(prediction, answers)
    return score_normalized(pred, ans, groups, prof)


_NORMALIZERS: dict[str, tuple[Profile, QuestionNormalizer]] = {}


def _score_rows(
    dataset: VQADataset,
    predictions: Sequence[str | None],
    prof: Profile,
    rows: Iterable[int],
    out: list[float],
) -> None:
    """The per-question loop: score *rows* one by one into *out*."""
    question = QuestionNormalizer(prof).question
    answers, groups = dataset.answers, dataset.groups
    if not len(predictions) == len(answers) == len(groups):
        for _ in zip(predictions, answers, groups, strict=True):  # raise as zip(strict) does
            pass
    for i in rows:
        raw = predictions[i]
        if raw is None:
            out[i] = 0.0
            continue
        pred, ans, _ = question(raw, answers[i])
        out[i] = score_normalized(pred, ans, groups[i], prof)


@dataclass(frozen=True, eq=False)
class VQARead:
    """What :func:`read_vqa` read and joined: the ground truth, the aligned predictions and
    what the reader recognized (the reading half of :func:`evaluate_vqa`)."""

    dataset: VQADataset
    #: one per question of ``dataset``, ``None`` where missing
    predictions: list[str | None]
    matched: Matched
    layout: str
    reported: Mapping[str, Any] | None
    sample_metrics: Mapping[str, Mapping[QuestionId, float]]
    #: the reader's notes (the results layout, a ground truth read from the results file)
    notes: tuple[str, ...]

    def all_notes(self, prof: Profile) -> tuple[str, ...]:
        """The reader's notes, then those of scoring under *prof* (warned as well)."""
        counts = Counter(map(len, self.dataset.answers))
        return (*self.notes, *_notes(self.dataset, prof, self.matched, counts))

    def signature(self, prof: Profile, extract: str | None, n_missing: int) -> Signature:
        """``vqa-acc|profile|toolkit|extract|answers|n|missing``."""
        counts = Counter(map(len, self.dataset.answers))
        n_answers: int | str = next(iter(counts)) if len(counts) == 1 else "var"
        return Signature(
            "vqa-acc",
            (
                *prof.signature_fields(),
                ("extract", extract),
                ("answers", n_answers),
                ("n", len(self.dataset)),
                ("missing", n_missing or None),
            ),
        )


def read_vqa(
    annotations: Annotations,
    results: Predictions,
    *,
    questions: PathLike | Mapping[str, Any] | None = None,
    allow_missing: bool = False,
    ignore_extra: bool = False,
    on_duplicate: Literal["error", "last"] = "error",
    input_format: str | None = None,
    id_field: str | None = None,
    answer_field: str | None = None,
    reported: PathLike | None = None,
    answer_tracer: Callable[[list[str]], Any] | None = None,
) -> VQARead:
    """Read and join a VQA run (arguments as :func:`evaluate_vqa`), without scoring it;
    *answer_tracer*: the scorer's answer side, done by the loader where it can (see
    :func:`~vqametrics.readers.vqa.load_annotations`)."""
    read: dict[str, Any] = {
        "input_format": input_format,
        "id_field": id_field,
        "answer_field": answer_field,
        "reported": reported,
    }
    results_path = results if isinstance(results, str | os.PathLike) else None
    # the other two files are decoded while a child process decodes a large annotations file
    questions_path = questions if isinstance(questions, str | os.PathLike) else None
    ahead = ReadAhead(questions_path, results_path)
    rfile: ResultsFile | None = None
    gt_note: str | None = None
    if annotations is None:
        rfile = read_results(results, **read)
        if rfile.ground_truth is None:
            raise InputError(
                f"{rfile.source}: carries no ground truth (it is {rfile.layout}); "
                f"pass --annotations{describe_reported(rfile)}"
            )
        dataset = as_dataset(rfile.ground_truth, rfile.source, on_duplicate=on_duplicate)
    elif isinstance(annotations, VQADataset):
        dataset = annotations
    elif isinstance(annotations, Sequence) and not isinstance(annotations, str | bytes):
        dataset = as_dataset(annotations, on_duplicate=on_duplicate)
    elif isinstance(annotations, Mapping):  # the official document, already loaded
        dataset = as_dataset(official_annotations(annotations), on_duplicate=on_duplicate)
    elif not isinstance(annotations, str | os.PathLike):
        raise ArgumentTypeError(
            "annotations must be a path, a list of questions, the official "
            f"{{'annotations': [...]}} document or a VQADataset, got {type(annotations).__name__}"
        )
    else:
        dataset = load_annotations(
            annotations, on_duplicate=on_duplicate, meanwhile=ahead, answer_tracer=answer_tracer
        )
    if questions is not None:
        load_questions(questions, dataset, ahead=ahead)
    if rfile is None:
        rfile = read_results(results, ahead=ahead, **read)
        if rfile.positional:
            rfile = resolve_positions(rfile, dataset.question_ids)
        elif rfile.ground_truth is not None:
            gt_note = ground_truth_disagreements(dataset, rfile.ground_truth, rfile.source)
    elif rfile.ground_truth is not None:
        gt_note = f"the ground truth was read from {rfile.source} (no --annotations)"
        if rfile.layout.startswith("lmms-eval"):
            # QUIRK processed-doc: lmms-eval's process_results rewrites doc["answers"] in
            # place (VQAv2: punctuation and digits/articles; OK-VQA, TextVQA, VizWiz: the
            # EvalAI processor) before the record is logged (evaluator.py saves the doc
            # afterwards), so a log's answers are not the dataset's
            gt_note += (
                "; lmms-eval logs the answers AFTER its process_results rewrote them "
                "(punctuation, digits, articles), so a profile that treats raw answers "
                "specially (official: the unanimity rule) can score differently than against "
                "the annotations: pass --annotations for the official number"
            )
    matched = match_predictions(
        dataset,
        rfile.results,
        allow_missing=allow_missing,
        ignore_extra=ignore_extra,
        on_duplicate=on_duplicate,
    )
    return VQARead(
        dataset,
        matched.predictions,
        matched,
        rfile.layout,
        rfile.reported,
        rfile.sample_metrics,
        (*rfile.notes, *([gt_note] if gt_note else [])),
    )


def _breakdown(scores: list[float], dataset: VQADataset, digits: int, fast: Any) -> Breakdown:
    if fast is not None:
        from ..aggregate._bulk import fast_breakdown

        return fast_breakdown(
            scores, dataset.question_types, dataset.answer_types, digits, fast.groups
        )
    return breakdown(scores, dataset.question_types, dataset.answer_types, digits)


def _notes(dataset: VQADataset, prof: Profile, matched: Matched, counts: Counter[int]) -> list[str]:
    notes = []
    if prof.leave_one_out == "records":
        collapsed = len(dataset.groups) - dataset.groups.count(None)
        if collapsed:
            msg = (
                f"{collapsed} question(s) in {dataset.source} have answer records without "
                f"distinct answer_id; profile {prof.name!r} leaves equal records out together, "
                "as the official script does, which lowers their scores (spec §4)"
            )
            warnings.warn(msg, LeaveOneOutWarning, stacklevel=5)
            notes.append(msg)
    odd = {n: c for n, c in sorted(counts.items()) if n != 10}
    if odd:
        desc = ", ".join(f"{c} with {n}" for n, c in odd.items())
        msg = (
            f"{sum(odd.values())} question(s) do not have 10 answers ({desc}); "
            "scored with the general leave-one-out formula"
        )
        warnings.warn(msg, AnswerCountWarning, stacklevel=5)
        notes.append(msg)
    if matched.missing:
        notes.append(f"{len(matched.missing)} question(s) had no prediction and scored 0")
    if matched.extra:
        notes.append(f"{len(matched.extra)} prediction(s) for unknown questions were ignored")
    if matched.duplicates:
        notes.append(f"{matched.duplicates} duplicate prediction(s): the last one was kept")
    if matched.id_type_fixed:
        notes.append(
            f"{matched.id_type_fixed} question id(s) were matched across a string/integer "
            "spelling difference"
        )
    if not dataset.has_question_types or not dataset.has_answer_types:
        notes.append(
            "the annotations have no question_type/answer_type; those breakdowns are empty"
        )
    for key, column in (
        ("question_type", dataset.question_types),
        ("answer_type", dataset.answer_types),
    ):
        untyped = column.count(None)
        if 0 < untyped < len(column):
            notes.append(
                f"{untyped} question(s) have no {key}: they count in the overall score but "
                f"not in the per-{key.replace('_', ' ')} breakdown"
            )
    return notes


# --- the per-question report ------------------------------------------------------------------
# ``VQAEvaluation.per_question`` in bulk: every field comes from a per-string or per-mask table.
# Rows outside the bulk shape come from the per-question loop, in place.


def steps_changed(ev: VQAEvaluation, fast: FastScores) -> tuple[IntArray, list[list[str]]]:
    """Per row, an index into a list of ``steps_changed`` lists (bulk rows only)."""
    hit: tuple[IntArray, list[list[str]]] | None = fast.memo.get("steps")
    if hit is None:
        hit = fast.memo["steps"] = _compute_steps_changed(ev, fast)
    return hit


def _compute_steps_changed(ev: VQAEvaluation, fast: FastScores) -> tuple[IntArray, list[list[str]]]:
    import numpy as np

    from ..kernels._fast import unique_inverse

    prof = ev.profile
    codes = ev.dataset._answer_codes.codes
    n = len(fast.scores)
    row_bits = np.zeros(n, dtype=np.int64)
    for skipped, side in ((True, 0), (False, 1)):
        sel = fast.vector_rows & (fast.unanimous == skipped)
        if not sel.any():
            continue
        answer_bits = fast.answer_bits[side][codes[sel]]
        row_bits[sel] = (
            np.bitwise_or.reduce(answer_bits, axis=1)
            | fast.prediction_bits[side][fast.raw_prediction[sel]]
        )
    pred_names = [s.name for s in prof.prediction_steps]
    distinct, inverse = unique_inverse(row_bits)
    lists = []
    for b in distinct.tolist():
        steps = {name for name, v in fast.step_bits.items() if b & v}
        lists.append([x for x in pred_names if x in steps] + sorted(steps - set(pred_names)))
    return inverse, lists


def fast_records(ev: VQAEvaluation, fast: FastScores) -> Iterator[dict[str, Any]]:
    """``VQAEvaluation.per_question`` from the bulk results."""
    import numpy as np

    d = ev.dataset
    n = len(d)
    steps_idx, steps_lists = steps_changed(ev, fast)
    strings = np.empty(len(fast.strings) + 1, dtype=object)
    strings[:-1] = fast.strings
    tables = fast.tables
    vector = fast.vector_rows.tolist()
    slow = ev._per_question_slow(fast.slow_rows())
    for start in range(0, n, _CHUNK):
        stop = min(n, start + _CHUNK)
        preds = strings[fast.prediction[start:stop]].tolist()
        answers = strings[fast.answers[start:stop]].tolist()
        masks = fast.mask[start:stop].tolist()
        unanimous = fast.unanimous[start:stop].tolist()
        steps = steps_idx[start:stop].tolist()
        for k, i in enumerate(range(start, stop)):
            if not vector[i]:
                yield next(slow)
                continue
            mask = masks[k]
            yield {
                "question_id": d.question_ids[i],
                "prediction": ev.predictions[i],
                "normalized_prediction": preds[k],
                "normalized_answers": answers[k],
                "m": tables.m[mask],
                "leave_one_out": list(tables.loo[mask]),
                "score": ev.scores[i],
                "steps_changed": list(steps_lists[steps[k]]),
                "unanimous_skip": unanimous[k],
                "question_type": d.question_types[i],
                "answer_type": d.answer_types[i],
                **ev.chat_fields(i),
            }


def _as_int(x: Any) -> int | None:
    try:
        return int(x)
    except (TypeError, ValueError):
        return None
