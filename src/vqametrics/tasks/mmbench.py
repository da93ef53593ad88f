"""MMBench: multiple choice with CircularEval, run by the task runner like every task.

``--annotations`` is the benchmark TSV (circular copies included; a VLMEvalKit sheet is its
own benchmark), ``--results`` the predictions (``index`` + ``prediction``, any layout of the
reader), joined by ``index``. Each row is an item: its score is whether the letter the
profile's lineage reads (``vqametrics.kernels.choice``) is the row's answer. CircularEval is the
aggregation: the rows are grouped by ``index % 1_000_000`` and a question is right only when
every row of its group is; ``--mode vanilla`` scores each row on its own (the headline over
the pass-0 rows). The judge (``choice_judge=``, as ``evaluate_mmbench(judge=)`` and
``vqametrics mmbench --judge-url`` pass it) is a stage of the profile's ``score_batch``:
it is asked only about the rows the heuristics leave undecided, in VLMEvalKit's order. The
last step (``finish``) turns the rows into the questions the evaluation reports (``n`` is
the number of questions) and keeps each row's record for ``vqametrics mmbench``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..core.exceptions import InputError, UnknownNameError
from ..core.signature import Signature
from ..kernels.choice import get_lineage
from ..mmbench.circular import (
    _UNPARSED_SHOWN,
    MODES,
    MMBenchRun,
    _check_unique,
    _Extracted,
    _short,
    mmbench_diagnostics,
    question_records,
    resolve_rows,
)
from ..mmbench.model import CIRCULAR_STRIDE, MMBenchData, MMBenchRow, Predictions
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

#: each profile's letter lineage in ``vqametrics.kernels.choice`` (``parse_choice(task="mmbench")``)
_LINEAGES = {
    "vlmevalkit": "vlmevalkit_can_infer",
    "vlmevalkit-2025": "vlmevalkit_can_infer_pre_a67ace5",
    "vlmevalkit-2024": "vlmevalkit_can_infer_2024",
    "lmms-eval": "lmms_eval_mmbench",
}


def _row_scorer(extractor: str) -> Any:
    """``[letter(prediction) == answer]`` for one row, the options passed as ``options=``."""

    def score(prediction: str, references: Sequence[str], options: Any = None) -> float:
        from ..mmbench import extract_choice

        if not isinstance(options, Mapping) or not options:
            raise InputError("mmbench: score_answer needs options={'A': text, 'B': text, …}")
        letter = extract_choice(prediction, options, extractor)
        return 1.0 if letter is not None and letter in references else 0.0

    return score


def _batch(extractor: str) -> Any:
    def score_batch(items: Sequence[Item], data: TaskData) -> list[float]:
        run: MMBenchRun = data.extra["mmbench"]
        rows = [(int(it.id), it.prediction, not it.fields.get("missing")) for it in items]
        resolve_rows(run, extractor, rows)
        out = []
        for it in items:
            p = run.passes[int(it.id)]
            out.append(1.0 if p.letter is not None and p.letter == p.answer else 0.0)
        return out

    score_batch.__doc__ = (
        f"Every row's score under {extractor!r}: the per-row scorer's, except that with a "
        "judge or the random fallback the rows the heuristics leave undecided are decided by "
        "them, in VLMEvalKit's order (``mmbench.circular.resolve_rows``); and an empty cell "
        "(no text) is read as '' (strict) or as str(NaN) = 'nan' (reference-compatible, "
        "QUIRK: 'nan' can match an option), where the per-row scorer scores no text 0."
    )
    return score_batch


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


def _heads(items: Sequence[Item]) -> list[tuple[Item, list[int]]]:
    """The questions: each group (``fields["group"]``) whose pass-0 row is an item, with the
    positions of its rows; a vanilla row is its own group (pass-0 rows are the questions)."""
    groups: dict[int, list[int]] = {}
    for i, item in enumerate(items):
        groups.setdefault(int(item.fields["group"]), []).append(i)
    by_id = {int(item.id): item for item in items}
    return [
        (by_id[g], rows) for g, rows in sorted(groups.items()) if g < CIRCULAR_STRIDE and g in by_id
    ]


def _aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    r"""CircularEval (or VanillaEval pass-0) accuracy as a fraction, per split and category.

    .. math:: \mathrm{acc} = \frac{1}{|G|}\sum_{g \in G} \prod_{r \in g} s_r

    over the questions *G* (rows grouped by ``index % 1_000_000``; a vanilla row alone).
    """
    hits: list[tuple[Item, float]] = [
        (head, 1.0 if all(scores[i] == 1.0 for i in rows) else 0.0) for head, rows in _heads(items)
    ]
    total = 0.0
    for _, s in hits:
        total += s
    breakdowns: dict[str, dict[str, dict[str, float | int]]] = {}
    for key in ("split", "category"):
        groups: dict[str, list[float]] = {}
        for item, s in hits:
            g = item.fields.get(key)
            if g:
                groups.setdefault(str(g), []).append(s)
        if groups:
            breakdowns[key] = {
                g: {"accuracy": sum(v) / len(v), "n": len(v)} for g, v in sorted(groups.items())
            }
    return Aggregate(
        metrics={"Overall": total / len(hits) if hits else float("nan"), "n": len(hits)},
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
            choice=get_lineage(_LINEAGES[name]),
            score_batch=_batch(name),
        )
        for name, text in _EXTRACTORS.items()
    )


def _benchmark(inputs: TaskInputs, notes: list[str]) -> MMBenchData:
    """The benchmark rows: ``--annotations``, or a VLMEvalKit sheet given as the results."""
    from ..mmbench import load_mmbench_tsv

    ann = inputs.annotations
    if isinstance(ann, MMBenchData):
        return ann
    if ann is not None and not isinstance(ann, str | os.PathLike):
        return MMBenchData(tuple(ann), "<data>")
    if ann is not None:
        return load_mmbench_tsv(os.fspath(ann))
    # a VLMEvalKit result sheet carries the benchmark (question, options, answer) beside its
    # predictions: it is its own data file, as for every other task
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
    return data


def _item(row: MMBenchRow, group: int, prediction: str | None, missing: bool) -> Item:
    fields: dict[str, Any] = {
        "group": group,
        "options": row.options,
        "question": row.question,
        "split": row.split,
        "category": row.category,
        "l2_category": row.l2_category,
    }
    if missing:
        fields["missing"] = True
    return Item(row.index, prediction, (row.answer,), fields)


def _read(inputs: TaskInputs) -> TaskData:
    """The benchmark and the predictions joined by ``index``, one item per row to score.

    Strict (default): every row of a question is an item; a row without prediction is one
    (``missing``, a miss) and its question is counted incomplete. Reference-compatible
    (``reference_compatible=True``): rows without prediction are left out, and a question
    without its pass-0 prediction is dropped (spec §2, cases G11/G12). Predictions of rows
    not in the data are ignored and counted, as VLMEvalKit keeps only the data's rows.
    """
    from ..mmbench import load_predictions

    opts = inputs.options
    mode = str(opts.get("mode") or "circular")
    if mode not in MODES:
        raise UnknownNameError(f"unknown MMBench mode {mode!r}; valid: {', '.join(MODES)}")
    strict = not opts.get("reference_compatible")
    notes: list[str] = []
    data = _benchmark(inputs, notes)
    if isinstance(inputs.results, Predictions):
        preds = inputs.results
    else:
        preds = load_predictions(
            inputs.results,
            input_format=inputs.format,
            id_field=inputs.id_field,
            answer_field=inputs.answer_field,
            on_duplicate=inputs.on_duplicate,
        )
    rows, data_source, pred_source = data.rows, data.source, preds.source
    by_index = _check_unique(rows, data_source)
    matched = {i: p for i, p in preds.values.items() if i in by_index}
    if not matched:
        raise InputError(
            f"{pred_source}: the predictions cover none of the {len(by_index)} rows of "
            f"{data_source} (prediction indices start {sorted(preds.values)[:3]}, "
            f"data indices start {sorted(by_index)[:3]})"
        )
    counts = {
        "rows": len(rows),
        "predictions": len(matched),
        "ignored_predictions": len(preds.values) - len(matched),
        "incomplete": 0,
        "dropped": 0,
        "fewer_copies": 0,
    }
    incomplete: set[int] = set()
    items: list[Item] = []
    if mode == "circular":
        groups: dict[int, list[MMBenchRow]] = {}
        for row in sorted(rows, key=lambda r: r.index):
            groups.setdefault(row.g_index, []).append(row)
        for g, members in sorted(groups.items()):
            head = by_index.get(g)
            if head is None:
                if strict:
                    raise InputError(
                        f"{data_source}: index {members[0].index} is a circular copy of question "
                        f"{g}, but there is no row with index {g}"
                    )
                continue  # the reference never scores a group without its pass-0 row
            n_options = len(head.options)
            if strict and (len(members) > n_options or (len(members) == 1 and n_options > 1)):
                raise InputError(
                    f"{data_source}: question {g} has {n_options} options but "
                    f"{len(members)} row(s); CircularEval needs 2 to {n_options} circular "
                    "copies (build them with `vqametrics mmbench-circular`, or use --mode "
                    "vanilla)"
                )
            if len(members) < n_options:
                # the official dev file: some 4-option questions have 3 copies (the fourth
                # rotation was never made); the group is the copies the data file has
                counts["fewer_copies"] += 1
            if not all(r.index in matched for r in members):
                counts["incomplete"] += 1
                incomplete.add(g)
            if not strict and g not in matched:
                counts["dropped"] += 1
                continue
            for r in members:
                if r.index in matched:
                    items.append(_item(r, g, matched[r.index], False))
                elif strict:
                    items.append(_item(r, g, None, True))
    else:
        for row in sorted(rows, key=lambda r: r.index):
            if row.index in matched:
                items.append(_item(row, row.index, matched[row.index], False))
            elif strict:
                items.append(_item(row, row.index, None, True))
                counts["incomplete"] += 1
                incomplete.add(row.index)
    if not _heads(items):
        raise InputError(
            f"{pred_source}: no question can be scored against {data_source} "
            "(no pass-0 row has a prediction)"
        )
    run = MMBenchRun(
        mode=mode,
        strict=strict,
        judge=opts.get("choice_judge"),
        judge_name=opts.get("judge_name"),
        random_fallback=opts.get("random_fallback"),
        rows=by_index,
        counts=counts,
        data_source=data_source,
        predictions_source=pred_source,
        diagnostics=mmbench_diagnostics(matched, by_index),
        incomplete=incomplete,
    )
    return TaskData(
        items,
        (data_source, pred_source),
        ("mmbench-tsv", "index + prediction"),
        tuple(notes),
        reported_scores(inputs),
        extra={"mmbench": run},
        n_missing=counts["incomplete"],
        n_extra_ignored=counts["ignored_predictions"],
        n_duplicates=preds.duplicates,
    )


def _signature(prof: TaskProfile, data: TaskData, extract: str | None) -> Signature:
    """``mmbench|profile:…|mode:…|extractor:…|strict:…|judge:…|n:<questions>|…``: the
    fields of ``vqametrics mmbench``'s signature with the profile first."""
    run: MMBenchRun = data.extra["mmbench"]
    return Signature(
        "mmbench",
        (
            ("profile", prof.name),
            ("mode", run.mode),
            ("extractor", prof.name),
            ("extract", extract),
            ("strict", run.strict),
            ("judge", run.judge_label or "no"),
            ("random", run.random_fallback),
            ("n", len(_heads(data.items))),
        ),
    )


def _finish(evaluation: Any, inputs: TaskInputs) -> Any:
    """The rows become the questions the evaluation reports (one item per question, its
    score the question's hit, its passes kept for ``explain``); the run's counts, records
    and extractions are kept for :class:`~vqametrics.mmbench.MMBenchResult`."""
    data: TaskData = evaluation.data
    run: MMBenchRun = data.extra["mmbench"]
    run.records = records = question_records(run)
    passes = [p for q in records for p in q.passes]
    c = run.counts
    c["questions"] = sum(1 for q in records if q.index < CIRCULAR_STRIDE)
    c["unparsed"] = sum(1 for p in passes if p.letter is None and p.stage != "missing")
    c["judged"] = sum(1 for p in passes if p.stage == "judge")
    c["judge_calls"] = sum(p.judge_calls for p in passes)
    c["random"] = sum(1 for p in passes if p.stage == "random_fallback")
    ex = evaluation.extraction
    if ex is not None:
        run.extract = ex.name
        run.extraction = {
            int(item.id): _Extracted(raw, trace)
            for item, raw, trace in zip(data.items, ex.raw, ex.traces, strict=True)
            if raw is not None and trace is not None
        }
    questions = [q for q in records if q.index < CIRCULAR_STRIDE]
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
    notes = list(data.notes)
    notes.append(
        f"questions: {c['questions']}, incomplete: {c['incomplete']}, unparsed: {c['unparsed']}, "
        f"fewer copies than options: {c.get('fewer_copies', 0)}"
    )
    # which predictions no rule could read, as `vqametrics mmbench` lists them
    unparsed = [p for p in passes if p.letter is None and p.stage != "missing"]
    for p in unparsed[:_UNPARSED_SHOWN]:
        notes.append(f"unparsed prediction {p.index}: {_short(p.prediction)}")
    if len(unparsed) > _UNPARSED_SHOWN:
        notes.append(f"… and {len(unparsed) - _UNPARSED_SHOWN} more unparsed (all in --out)")
    return replace(
        evaluation,
        data=replace(data, items=items, notes=tuple(notes)),
        scores=[float(q.hit) for q in questions],
        diagnostics=None,
        extraction=None,
    )


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
        signature_for=_signature,
        finish=_finish,
    )
)
