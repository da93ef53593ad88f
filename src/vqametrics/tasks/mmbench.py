"""MMBench: multiple choice with CircularEval, through :func:`vqametrics.evaluate_mmbench`.

The task delegates the whole run to ``evaluate_mmbench`` (the same code as ``vqametrics
mmbench``): ``--annotations`` is the benchmark TSV (circular copies included), ``--results``
the predictions (``index`` + ``prediction``, any layout of the reader). Profiles are the
answer-extraction lineages; ``--mode vanilla`` scores VanillaEval. The per-item scorer (for
:func:`~vqametrics.tasks.score_answer`) is one row: the extracted letter equals the answer,
with the options passed as ``options={"A": …, "B": …}``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from .._exceptions import InputError
from . import register_task
from ._base import Aggregate, Item, Task, TaskData, TaskInputs, TaskProfile
from ._common import reported_scores

__all__: list[str] = []

_EXTRACTORS = {
    "vlmevalkit": "VLMEvalKit HEAD: option-letter heuristics (no judge called)",
    "vlmevalkit-2025": "VLMEvalKit 2025 heuristics",
    "vlmevalkit-2024": "VLMEvalKit 2024 heuristics (most published numbers)",
    "lmms-eval": "lmms-eval's MMBench letter parsing",
}


def _row_scorer(extractor: str) -> Any:
    def score(prediction: str, references: Sequence[str], options: Any = None) -> float:
        from ..mmbench import extract_choice

        if not isinstance(options, Mapping) or not options:
            raise InputError("mmbench: score_answer needs options={'A': text, 'B': text, …}")
        letter = extract_choice(prediction, options, extractor)
        return 1.0 if letter is not None and letter in references else 0.0

    return score


def _explain(extractor: str) -> Any:
    """One row with its options: the letter the extractor reads and the stage that decided;
    one question of a run: each circular pass (a question is right only when all are)."""

    def hook(item: Item) -> Mapping[str, Any]:
        options = item.fields.get("options")
        passes = item.fields.get("passes")
        answer = item.references[0] if item.references else None
        if isinstance(options, Mapping) and options:
            from ..mmbench import explain_choice

            got = explain_choice(item.prediction or "", options, extractor)
            right = got.letter is not None and got.letter in item.references
            why = f"the extracted letter {got.letter!r} is {'' if right else 'not '}the answer"
            if got.letter is None:
                why += " (undecided: the toolkit asks its LLM judge; strict scoring counts 0)"
            return {
                "steps": [
                    ["options", "; ".join(f"{k}. {v}" for k, v in options.items())],
                    [f"extract letter ({extractor})", f"{got.letter!r} (stage {got.stage})"],
                    ["answer", repr(answer)],
                ],
                "why": why,
                "letter": got.letter,
                "stage": got.stage,
            }
        if passes:
            rows = [
                [
                    p["index"],
                    repr(p["prediction"]),
                    p["letter"] or "-",
                    p["stage"],
                    p["answer"],
                    "yes" if p["letter"] == p["answer"] else "",
                ]
                for p in passes
            ]
            n = sum(1 for r in rows if r[-1])
            return {
                "table": {
                    "header": ["row", "prediction", "letter", "stage", "answer", "right"],
                    "rows": rows,
                },
                "why": f"CircularEval: the question is right only when every circular pass is "
                f"right ({n} of {len(rows)} are; extractor {extractor})",
                "passes": [dict(p) for p in passes],
            }
        return {"why": f"the letter read by {extractor} against the answer {answer!r}"}

    return hook


def _aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """CircularEval (or VanillaEval pass-0) accuracy as a fraction, per split and category."""
    total = 0.0
    for s in scores:
        total += s
    breakdowns: dict[str, dict[str, dict[str, float | int]]] = {}
    for key in ("split", "category"):
        groups: dict[str, list[float]] = {}
        for item, s in zip(items, scores, strict=True):
            g = item.fields.get(key)
            if g:
                groups.setdefault(str(g), []).append(s)
        if groups:
            breakdowns[key] = {
                g: {"accuracy": sum(v) / len(v), "n": len(v)} for g, v in sorted(groups.items())
            }
    return Aggregate(
        metrics={"Overall": total / len(scores) if scores else float("nan"), "n": len(scores)},
        headline="Overall",
        units="fraction",
        digits=4,
        breakdowns=breakdowns,
    )


def _profiles() -> tuple[TaskProfile, ...]:
    return tuple(
        TaskProfile(
            name=name,
            description=text,
            reproduces="open-compass/VLMEvalKit mcq_circular_eval (spec mmbench.md §2)",
            toolkit=name,
            score=_row_scorer(name),
            aggregate=_aggregate,
            context=("options",),
            explain=_explain(name),
        )
        for name, text in _EXTRACTORS.items()
    )


def _evaluator(
    task: Task, prof: TaskProfile, inputs: TaskInputs, *, extract: str | None, judge: Any
) -> Any:
    from ..mmbench import evaluate_mmbench, load_mmbench_tsv, load_predictions
    from ._run import TaskEvaluation

    mode = str(inputs.options.get("mode") or "circular")
    notes: list[str] = []
    if inputs.annotations is None:
        # a VLMEvalKit result sheet carries the benchmark (question, options, answer) beside
        # its predictions: it is its own data file, as for every other task
        if not isinstance(inputs.results, str | os.PathLike) or os.fspath(inputs.results) == "-":
            raise InputError("score mmbench: --annotations (the benchmark TSV) is required")
        try:
            data = load_mmbench_tsv(os.fspath(inputs.results))
        except InputError as exc:
            raise InputError(
                f"score mmbench: --annotations (the benchmark TSV) is required: the results "
                f"file does not carry the benchmark ({exc})"
            ) from None
        notes.append(f"the questions and answers were read from {os.fspath(inputs.results)}")
    else:
        data = load_mmbench_tsv(inputs.annotations)
    preds = load_predictions(
        inputs.results,
        input_format=inputs.format,
        id_field=inputs.id_field,
        answer_field=inputs.answer_field,
    )
    result = evaluate_mmbench(
        data,
        preds,
        mode=mode,  # type: ignore[arg-type]
        extractor=prof.name,
        extract=extract,
    )
    questions = [q for q in result.questions if mode == "circular" or q.index < 1_000_000]
    items = [
        Item(
            q.index,
            q.passes[0].prediction,
            (q.passes[0].answer,),
            {
                "split": q.split,
                "category": q.category,
                "l2_category": q.l2_category,
                "passes": tuple(p.as_dict() for p in q.passes),  # for explain
            },
        )
        for q in questions
    ]
    scores = [float(q.hit) for q in questions]
    c = result.counts
    notes.append(
        f"questions: {c['questions']}, incomplete: {c['incomplete']}, unparsed: {c['unparsed']}, "
        f"fewer copies than options: {c.get('fewer_copies', 0)}"
    )
    # which predictions no rule could read, as `vqametrics mmbench` lists them
    from ..mmbench.circular import _UNPARSED_SHOWN, _short

    unparsed = [
        p for q in result.questions for p in q.passes if p.letter is None and p.stage != "missing"
    ]
    for p in unparsed[:_UNPARSED_SHOWN]:
        notes.append(f"unparsed prediction {p.index}: {_short(p.prediction)}")
    if len(unparsed) > _UNPARSED_SHOWN:
        notes.append(f"… and {len(unparsed) - _UNPARSED_SHOWN} more unparsed (all in --out)")
    tdata = TaskData(
        items,
        (result.data_source, result.predictions_source),
        ("mmbench-tsv", "index + prediction"),
        tuple(notes),
        reported_scores(inputs),
        n_missing=c["incomplete"],
        n_extra_ignored=c["ignored_predictions"],
    )
    return TaskEvaluation(
        task, prof, tdata, scores, _aggregate(items, scores), result.signature_object
    )


def _read(inputs: TaskInputs) -> TaskData:  # pragma: no cover - the evaluator replaces it
    raise NotImplementedError("MMBench is read by its whole-run evaluator")


TASK = register_task(
    Task(
        name="mmbench",
        kind="multiple-choice",
        title="MMBench",
        metric="mmbench",
        description="multiple choice, CircularEval over the data file's circular copies",
        profiles=_profiles(),
        read=_read,
        layouts=(
            "annotations: the MMBench TSV with circular copies (index % 1,000,000 = question)",
            "results: index + prediction in TSV/CSV/XLSX (VLMEvalKit), JSON, JSONL, gzip, -",
        ),
        aliases=("mmbench-en", "mmbench-dev"),
        default_profile="vlmevalkit",
        note="same numbers as `vqametrics mmbench` (strict mode, no judge)",
        options=(("mode", "circular (default) or vanilla"),),
        evaluator=_evaluator,
    )
)
