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
from dataclasses import dataclass, replace
from typing import Any

from ..aggregate.formulas import group_by
from ..core.arguments import ArgumentTypeError, check
from ..core.exceptions import InputError, MissingPredictionError, UnknownNameError
from ..core.signature import Signature
from ..kernels.choice import get_lineage
from ..kernels.choice.heuristics import DEFAULT_EXTRACTOR, get_extractor
from ..mmbench.circular import (
    _UNPARSED_SHOWN,
    MODES,
    MMBenchResult,
    MMBenchRun,
    Mode,
    _check_unique,
    _Extracted,
    _short,
    mmbench_diagnostics,
    question_records,
    resolve_rows,
)
from ..mmbench.judge import Judge
from ..mmbench.model import CIRCULAR_STRIDE, MMBenchData, MMBenchRow, Predictions
from ..mmbench.report import QuestionRecord
from . import register_task
from ._base import Aggregate, Item, Task, TaskData, TaskInputs, TaskProfile
from ._common import reported_scores, ungrouped_note

__all__ = [
    "CCBENCH_CATEGORIES",
    "MMBENCH_ABILITIES",
    "MMBENCH_VARIANTS",
    "MMBenchVariant",
    "evaluate_mmbench",
    "mmbench_variant",
    "other_task_sheet",
]

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


#: the 20 L3 abilities of MMBench v1.0 and v1.1, EN and CN alike (spec mmbench.md §1)
MMBENCH_ABILITIES = (
    "image_style",
    "image_scene",
    "image_emotion",
    "image_quality",
    "image_topic",
    "object_localization",
    "attribute_recognition",
    "celebrity_recognition",
    "ocr",
    "spatial_relationship",
    "attribute_comparison",
    "action_recognition",
    "physical_property_reasoning",
    "function_reasoning",
    "identity_reasoning",
    "social_relation",
    "physical_relation",
    "nature_relation",
    "future_prediction",
    "structuralized_imagetext_understanding",
)

#: CCBench's 7 categories (no L2 abilities), as VLMEvalKit's CCBench sheet and _acc.csv have them
CCBENCH_CATEGORIES = (
    "calligraphy_painting",
    "cultural_relic",
    "food_clothes",
    "historical_figure",
    "scenery_building",
    "sketch_reasoning",
    "traditional_show",
)


@dataclass(frozen=True)
class MMBenchVariant:
    """One release of the benchmark, named as VLMEvalKit names its TSV (``MMBench_DEV_EN``).

    The variants share the TSV layout, the circular grouping (``index % 1_000_000``) and the
    scoring; they differ in their rows (v1.1 removed low-quality items and added harder ones,
    VLMEvalKit #833), the language of the questions (the judge's prompt is Chinese when a
    question holds a CJK character, spec §3, so CN and CCBench are judged in Chinese) and
    their categories (CCBench has its own 7 and no L2)."""

    dataset: str
    version: str
    split: str
    language: str
    categories: tuple[str, ...]


def _variants() -> dict[str, MMBenchVariant]:
    out = {
        f"mmbench_{split}_{lang}{suffix}": MMBenchVariant(
            f"MMBench_{split.upper()}_{lang.upper()}{suffix.upper()}",
            version,
            split,
            lang,
            MMBENCH_ABILITIES,
        )
        for version, suffix in (("v1.0", ""), ("v1.1", "_v11"))
        for split in ("dev", "test")
        for lang in ("en", "cn")
    }
    out["ccbench"] = MMBenchVariant("CCBench", "v1.0", "test", "cn", CCBENCH_CATEGORIES)
    return out


#: every variant by its alias (the VLMEvalKit dataset name, lower-cased; ``ccbench``)
MMBENCH_VARIANTS = _variants()


def mmbench_variant(name: str) -> MMBenchVariant:
    """The variant *name* (``MMBench_DEV_CN_V11``, ``mmbench-dev-cn-v11``, ``ccbench``)."""
    key = name.lower().replace("-", "_")
    if key not in MMBENCH_VARIANTS:
        raise UnknownNameError(
            f"unknown MMBench variant {name!r}; valid: {', '.join(MMBENCH_VARIANTS)}"
        )
    return MMBENCH_VARIANTS[key]


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
    notes: list[str] = []
    heads = [head for head, _ in hits]
    for key in ("split", "l2_category", "category"):
        keys = [str(g) if (g := head.fields.get(key)) else None for head in heads]
        groups = group_by(keys, [s for _, s in hits])
        if groups:
            breakdowns[key] = {
                g: {"accuracy": sum(v) / len(v), "n": len(v)} for g, v in sorted(groups.items())
            }
            notes += ungrouped_note(heads, keys, key)
    return Aggregate(
        metrics={"Overall": total / len(hits) if hits else float("nan"), "n": len(hits)},
        headline="Overall",
        units="fraction",
        digits=4,
        breakdowns=breakdowns,
        notes=tuple(notes),
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


#: VLMEvalKit names its sheets ``{model}_{dataset}.xlsx``: the dataset names of the other
#: choice benchmarks whose sheets share MMBench's columns, and the task that scores them
_OTHER_SHEETS = (
    ("mmstar", "an MMStar", "mmstar"),
    ("seedbench", "a SEED-Bench", "seedbench"),
    ("realworldqa", "a RealWorldQA", "realworldqa"),
    ("ai2d", "an AI2D", "ai2d"),
    ("scienceqa", "a ScienceQA", "scienceqa"),
)


def other_task_sheet(path: Any) -> str | None:
    """One line naming the task a VLMEvalKit sheet of another benchmark belongs to (by the
    dataset in its file name), or ``None``: its columns are MMBench's, but not its scoring
    (no circular copies; MMStar's and SEED-Bench's own categories)."""
    if not isinstance(path, str | os.PathLike) or os.fspath(path) == "-":
        return None
    stem = os.path.basename(os.fspath(path)).lower()
    tokens = stem.replace("-", "_").replace(".", "_").split("_")
    for token, title, task in _OTHER_SHEETS:
        if any(t.startswith(token) for t in tokens):
            return (
                f"{os.fspath(path)}: this looks like {title} sheet, not MMBench: "
                f"vqametrics score {task} --results {os.fspath(path)}"
            )
    return None


def _benchmark(inputs: TaskInputs, notes: list[str]) -> MMBenchData:
    """The benchmark rows: ``--annotations``, or a VLMEvalKit sheet given as the results."""
    from ..mmbench import load_mmbench_tsv

    ann = inputs.annotations
    for path in (inputs.results, ann):
        hint = other_task_sheet(path)
        if hint is not None:
            raise InputError(hint)
    if isinstance(ann, MMBenchData):
        return ann
    if ann is not None and not isinstance(ann, str | os.PathLike):
        return MMBenchData(tuple(ann), "<data>")
    if ann is not None:
        return load_mmbench_tsv(os.fspath(ann), on_duplicate=inputs.on_duplicate)
    # a VLMEvalKit result sheet carries the benchmark (question, options, answer) beside its
    # predictions: it is its own data file, as for every other task
    if not isinstance(inputs.results, str | os.PathLike) or os.fspath(inputs.results) == "-":
        raise InputError("score mmbench: --annotations (the benchmark TSV) is required")
    from ..mmbench.load import MissingColumnsError

    if os.fspath(inputs.results).lower().endswith((".json", ".json.gz")):  # read as TSV else
        raise InputError(
            f"score mmbench: --annotations (the benchmark TSV) is required: "
            f"{os.fspath(inputs.results)} is JSON, not a VLMEvalKit sheet carrying the benchmark"
        )
    try:  # a fault of a sheet that carries the benchmark is the sheet's, named as it is
        data = load_mmbench_tsv(os.fspath(inputs.results), on_duplicate=inputs.on_duplicate)
    except MissingColumnsError as exc:
        raise InputError(
            f"{exc}: the results file does not carry the benchmark, so --annotations (the "
            "benchmark TSV) is required"
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


def _flag(value: Any, name: str) -> bool:
    """A yes/no option: a bool from the API, ``yes``/``no`` from ``score mmbench --NAME V``."""
    if not isinstance(value, str):
        return bool(value)
    text = value.strip().lower()
    if text in ("yes", "true", "1"):
        return True
    if text in ("no", "false", "0"):
        return False
    raise InputError(f"score mmbench: --{name} {value!r}: expected yes or no")


def _seed(value: Any) -> int | None:
    """The random-fallback seed: an int from the API, its digits from the command line (a
    string seed would draw another sequence than the same number)."""
    if value is None or isinstance(value, int):
        return value
    try:
        seed = int(str(value))
    except ValueError:
        seed = -1
    if not 0 <= seed < 2**64:
        raise InputError(f"score mmbench: --random-fallback {value!r}: expected 0 <= SEED < 2**64")
    return seed


def _coverage(
    preds: Predictions,
    by_index: Mapping[int, MMBenchRow],
    matched: Mapping[int, str | None],
    inputs: TaskInputs,
    data_source: str,
) -> list[str]:
    """The one rule of incomplete input: a data row without a prediction is an error unless
    ``--allow-missing``, a prediction for an index the data does not have (a circular copy of
    a question that does not exist) unless ``--ignore-extra``; allowed, each is said."""
    notes = []
    absent = [i for i in sorted(by_index) if i not in matched]
    if absent:
        more = f" and {len(absent) - 1} more" if len(absent) > 1 else ""
        if not inputs.allow_missing:
            raise MissingPredictionError(
                f"{preds.source}: no prediction for index {absent[0]}{more} of {data_source} "
                "(pass --allow-missing to score them as the reference does)"
            )
        notes.append(
            f"{len(absent)} row(s) of {data_source} have no prediction in {preds.source} "
            f"(e.g. index {absent[0]}): their questions are incomplete (--allow-missing)"
        )
    extra = [i for i in sorted(preds.values) if i not in by_index]
    if extra:
        more = f" and {len(extra) - 1} more" if len(extra) > 1 else ""
        if not inputs.ignore_extra:
            raise InputError(
                f"{preds.source}: prediction for unknown index {extra[0]}{more} (not in "
                f"{data_source}; pass --ignore-extra to skip them)"
            )
        notes.append(
            f"{len(extra)} prediction(s) of {preds.source} are for indices not in "
            f"{data_source} (e.g. {extra[0]}): ignored (--ignore-extra), as VLMEvalKit keeps "
            "only the data's rows"
        )
    return notes


def _read(inputs: TaskInputs) -> TaskData:
    """The benchmark and the predictions joined by ``index``, one item per row to score.

    Strict (default): every row of a question is an item; a row without prediction is one
    (``missing``, a miss) and its question is counted incomplete. Reference-compatible
    (``reference_compatible=True``): rows without prediction are left out, and a question
    without its pass-0 prediction is dropped (spec §2, cases G11/G12). Predictions of rows
    not in the data are ignored and counted, as VLMEvalKit keeps only the data's rows.
    """
    from ..mmbench import load_predictions
    from ..readers.records import workbooks_parsed_once

    opts = inputs.options
    mode = str(opts.get("mode") or "circular")
    if mode not in MODES:
        raise UnknownNameError(f"unknown MMBench mode {mode!r}; valid: {', '.join(MODES)}")
    strict = not _flag(opts.get("reference_compatible"), "reference-compatible")
    notes: list[str] = []
    with workbooks_parsed_once():  # a VLMEvalKit sheet is the data and the predictions
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
    notes += _coverage(preds, by_index, matched, inputs, data_source)
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
        random_fallback=_seed(opts.get("random_fallback")),
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


def _judge_stage(
    data: TaskData, prof: TaskProfile, client: Any, inputs: TaskInputs
) -> tuple[TaskData, None, None]:
    """The judge of ``score mmbench --judge-url`` (a ``JudgeClient``): handed to the run, whose
    ``score_batch`` asks it about the rows the heuristics leave undecided, in VLMEvalKit's
    order; its counts are taken in ``finish``, once scoring has asked it."""
    if client is not None:
        run: MMBenchRun = data.extra["mmbench"]
        run.judge = client.as_callable()
        run.judge_name = client.model
        data = replace(data, extra={**data.extra, "judge_client": client})
    return data, None, None


def _judge_stats(run: MMBenchRun, client: Any) -> Any:
    """The judged run's counts, as every ``--json`` reports them (``judge`` of schema 1)."""
    from ..judge import JudgeStats

    passes = [p for q in run.records for p in q.passes]
    failed = sum(1 for p in passes if p.stage == "judge_failed")
    return JudgeStats(
        client.model,
        judged=run.counts["judged"],
        unjudged=failed,
        judge_calls=client.calls,
        cache_hits=client.cache_hits,
        asked=sum(1 for p in passes if p.judge_calls),
        failed=failed,
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
    signature, stats = evaluation.signature, evaluation.judge_stats
    client = data.extra.get("judge_client")
    if client is not None:
        stats = _judge_stats(run, client)
        # MODEL(unjudged:K/N) when rows got no reply; without --allow-unjudged that fails
        signature = signature.with_fields(judge=client.judged_value())
    # the counts beside the score, as MMMU reports its random answers in its metrics
    counted = {"unparsed": c["unparsed"], "judged": c["judged"]}
    aggregate = replace(evaluation.aggregate, metrics={**evaluation.aggregate.metrics, **counted})
    return replace(
        evaluation,
        data=replace(data, items=items, notes=tuple(notes)),
        scores=[float(q.hit) for q in questions],
        aggregate=aggregate,
        signature=signature,
        judge_stats=stats,
        diagnostics=_question_diagnostics(run, questions),
        extraction=None,
    )


def _question_diagnostics(run: MMBenchRun, questions: Sequence[QuestionRecord]) -> Any:
    """MMBench's verbose-answer diagnostics of the rows (long only beyond twice the longest
    option) laid over the reported questions: counts and warning stay the rows', a question is
    flagged when one of its rows is, and each example points at its question's position."""
    rows = run.diagnostics
    if rows is None:
        return None
    by_row: Mapping[int, tuple[str, ...] | None] = rows.by_index
    position = {p.index: i for i, q in enumerate(questions) for p in q.passes}

    def question_flags() -> list[tuple[str, ...] | None]:
        out: list[tuple[str, ...] | None] = []
        for q in questions:
            seen = [f for f in (by_row.get(p.index) for p in q.passes) if f is not None]
            out.append(tuple(sorted({r for f in seen for r in f})) if seen else None)
        return out

    keys = rows.by_index_keys
    examples = tuple(
        (position[keys[i]], text, reasons)
        for i, text, reasons in rows.diag.examples
        if keys[i] in position
    )
    return replace(rows.diag, examples=examples, _flags=question_flags)


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
        # the short names, then every release as VLMEvalKit names its TSV (MMBENCH_VARIANTS)
        aliases=(
            "mmbench-en",
            "mmbench-dev",
            "mmbench-cn",
            "mmbench-v11",
            *(v.replace("_", "-") for v in MMBENCH_VARIANTS),
            *(v for v in MMBENCH_VARIANTS if "_" in v),  # MMBench_DEV_EN as VLMEvalKit spells it
        ),
        default_profile="vlmevalkit",
        note="same numbers as `vqametrics mmbench` (strict mode, no judge)",
        options=(
            ("mode", "circular (default) or vanilla"),
            ("reference-compatible", "yes: VLMEvalKit's handling of missing rows and empty cells"),
            ("random-fallback", "SEED: the reference's random letter for unparsed answers"),
        ),
        api_options=("choice_judge", "judge_name"),  # a callable, and its name (the signature's)
        signature_for=_signature,
        finish=_finish,
        judge=_judge_stage,
    )
)


def evaluate_mmbench(
    data: MMBenchData | Sequence[MMBenchRow],
    predictions: Predictions | Mapping[int, str | None],
    *,
    mode: Mode = "circular",
    extractor: str = DEFAULT_EXTRACTOR,
    reference_compatible: bool = False,
    judge: Judge | None = None,
    judge_name: str | None = None,
    random_fallback: int | None = None,
    extract: str | None = None,
) -> MMBenchResult:
    r"""Score MMBench predictions with CircularEval or VanillaEval: the earlier entry point,
    a wrapper of ``vqametrics.evaluate("mmbench", ...)`` (the one task runner runs it; prefer
    that entry point) that keeps its own arguments (the loaded data and predictions first,
    ``extractor=`` for ``profile=``) and returns the :class:`MMBenchResult` view, whose
    ``as_dict()`` is its own document (not schema 1); the signature is the runner's.

    .. math::

        \mathrm{CircularEval} = \frac{1}{|G|}\sum_{g} \prod_{k} [\ell_{g,k} = a_{g,k}]
        \qquad
        \mathrm{VanillaEval} = \frac{1}{|R|}\sum_{r} [\ell_r = a_r]

    This is its home on the task floor (``vqametrics.evaluate_mmbench``; it was
    ``vqametrics.mmbench.evaluate_mmbench``). Spec: mmbench.md §2. Each row's letter comes from
    :func:`~vqametrics.mmbench.extract_choice` and, where the heuristics fail, from the optional
    *judge*. Circular groups are decided as in VLMEvalKit HEAD ``mcq_circular_eval``: a
    heuristically extracted wrong letter (``Z`` included) fails the group before any judge call;
    otherwise the unparsed rows go to the judge in pass order, and the first mismatch fails the
    group.

    Parameters
    ----------
    data : MMBenchData or sequence of MMBenchRow
        Every row of the benchmark, circular copies included, with answers.
    predictions : Predictions or Mapping[int, str or None]
        Row index -> raw model output (``None`` = empty cell). Indices not in *data* are
        ignored and counted.
    mode : {"circular", "vanilla"}, default="circular"
        ``"vanilla"`` reports two tables: pass-0 rows only (the paper's VanillaEval, the
        headline) and all rows, each copy counted as its own question.
    extractor : str, default="vlmevalkit"
        Heuristic lineage, see :func:`~vqametrics.mmbench.list_extractors`.
    reference_compatible : bool, default=False
        ``False`` (strict): every question of *data* is reported; a circular group with a
        missing copy, or a vanilla row without prediction, is a miss and counted as
        incomplete; an empty prediction is the empty string; in circular mode a group is the
        copies the data file has (2 to N for N options: the official dev file has 4-option
        questions with 3 copies). ``True`` reproduces the reference: rows without
        prediction are ignored (a group can pass on the rows present), a question whose
        pass-0 row has no prediction is dropped from the report, and an empty prediction cell
        becomes the string ``"nan"`` (pandas NaN through ``str``).
    judge : callable, optional
        ``judge(prompt) -> reply``; see :func:`~vqametrics.mmbench.judge.resolve_choice`.
    judge_name : str, optional
        Shown in the signature (``judge:<name>``); default ``"custom"`` when *judge* is given.
    random_fallback : int, optional
        Seed. Reproduce the reference's uniform random letter (options plus ``Z``; A-E for
        ``lmms-eval``) for a row that neither the heuristics nor 3 judge tries decide; without
        a judge every heuristic failure draws (the reference with a dead judge API). One
        ``random.Random(seed)`` serves the run; rows draw in ascending index order (groups by
        pass-0 index, then pass order), stopping at a group's first mismatch. The reference
        itself is unseeded (HEAD) or seeded globally with 2680 (2023 scripts) and its draw order
        depends on its worker pool, so only the distribution is reproducible, not the draws.
    extract : str, optional
        An answer extractor (``answer``, ``lmms-eval``, ``vlmevalkit``, ``evalscope``) run on
        each prediction before the letter heuristics, e.g. to drop a ``<think>`` block; in the
        signature as ``extract:NAME``. Default: the heuristics see the raw text.

    Returns
    -------
    MMBenchResult
        ``score`` in [0, 1]; per-split ``tables``; ``counts``; ``signature``.

    Raises
    ------
    InputError
        Duplicate indices; predictions that cover none of the data; no scorable question; in
        strict circular mode, a copy without its pass-0 row or a group whose row count differs
        from its option count.
    UnknownNameError
        Unknown *mode* or *extractor*.

    Notes
    -----
    Unparsed answers are never guessed unless *random_fallback* is set: they score as a miss
    (the reference writes ``Z``) and are counted in ``counts["unparsed"]``. The reference's
    dependence on the ``VERBOSE`` environment variable is not reproduced (see
    :func:`~vqametrics.mmbench.explain_choice`).
    """
    _check_arguments(locals())
    if mode not in MODES:
        raise UnknownNameError(f"unknown MMBench mode {mode!r}; valid: {', '.join(MODES)}")
    get_extractor(extractor)  # fail early on a bad name
    from ._run import evaluate

    if not isinstance(data, MMBenchData):
        data = MMBenchData(tuple(data), "<data>")
    if not isinstance(predictions, Predictions):
        predictions = Predictions(predictions, "<predictions>")
    evaluation = evaluate(
        "mmbench",
        predictions,
        annotations=data,
        profile=extractor,
        extract=extract,
        mode=mode,
        reference_compatible=reference_compatible,
        choice_judge=judge,
        judge_name=judge_name,
        random_fallback=random_fallback,
        # this entry point's documented contract: missing rows are counted incomplete and
        # unknown indices ignored and counted (``counts``), not refused
        allow_missing=True,
        ignore_extra=True,
    )
    return MMBenchResult.from_evaluation(evaluation)


def _check_arguments(args: dict[str, Any]) -> None:
    """:func:`evaluate_mmbench`'s arguments of a wrong type: the library's error, up front."""
    where = "evaluate_mmbench"
    data, predictions = args["data"], args["predictions"]
    if not isinstance(data, MMBenchData):
        check(where, "data", data, "sequence", also=(MMBenchData,))
        if not all(isinstance(row, MMBenchRow) for row in data):
            raise ArgumentTypeError(f"{where}: data must be MMBenchRow rows (or MMBenchData)")
    if not isinstance(predictions, Predictions):
        check(where, "predictions", predictions, "mapping", also=(Predictions,))
        if not all(v is None or isinstance(v, str) for v in predictions.values()):
            raise ArgumentTypeError(f"{where}: predictions must map row indices to str or None")
    for name in ("mode", "extractor"):
        check(where, name, args[name], "str")
    check(where, "reference_compatible", args["reference_compatible"], "bool")
    check(where, "judge", args["judge"], "callable", optional=True)
    check(where, "judge_name", args["judge_name"], "str", optional=True)
    check(where, "random_fallback", args["random_fallback"], "int", optional=True)
    check(where, "extract", args["extract"], "str", optional=True)
