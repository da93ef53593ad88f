"""MathVista (testmini): scored from recorded extractions, as each toolkit post-processes them.

MathVista's only judge step is the answer extraction (a GPT call); what follows is
deterministic and differs by toolkit (``score/mathvista.py``, spec ``mcq-reasoning.md`` §9).
The extraction is therefore an input: the official ``output_<model>.json`` (``extraction``),
a VLMEvalKit ``<model>_MathVista_MINI_<judge>.xlsx`` (``res``) or an lmms-eval samples log
(``llm_as_judge_eval.extraction``). The signature says ``judge:recorded``.

The score file written beside the output (the official ``scores_<model>.json``, VLMEvalKit's
``_score.csv``, lmms-eval's ``results.json``) is shown beside ours; the verdicts a file stores
per problem (``true_false``) are checked against the recomputed ones and named where they differ.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.exceptions import InputError
from ..core.toolkits import LMMS_EVAL as LMMS_EVAL_PIN
from ..core.toolkits import VLMEVALKIT as VLMEVALKIT_PIN
from ..judge.prompts import (
    MATHVISTA_LMMS_EVAL,
    MATHVISTA_OFFICIAL,
    MATHVISTA_VLMEVALKIT,
    PromptText,
    load_prompt_text,
    mathvista_official_prompt,
    mathvista_official_reply,
    mathvista_official_rules,
    mathvista_vlmevalkit_prompt,
    prompt_label,
)
from ..judge.stage import ONCE, Tries, ask_judge
from ..kernels.mathvista import (
    MathVistaCrash,
    lmms_eval_equal,
    normalize_lmms_eval,
    normalize_official,
    official_equal,
    vlmevalkit_post_check,
    vlmevalkit_prefetch,
)
from ..readers.cells import json_answer, named_columns, row_id, unused_fields
from ..readers.layouts import is_vlmevalkit
from ..readers.records import Records, column_name, read_records
from . import register_task
from ._base import Aggregate, Item, Task, TaskData, TaskInputs, TaskProfile
from ._common import (
    judged_data,
    reported_scores,
    ungrouped_note,
    unique_items,
    vlmevalkit_judge_rows,
)
from ._lmms import TOOLKIT_SCORE
from ._math_read import (
    VLMEVALKIT_AUXEVAL,
    judge_sheet_data,
    read_score_file,
    sheet_index,
    stored_verdict_note,
)
from ._sizes import size_note

__all__ = ["BREAKDOWN_KEYS", "TASK", "TESTMINI_SIZE"]

#: the official score file's breakdowns, in its order (``skills`` is multi-label)
BREAKDOWN_KEYS = (
    "question_type",
    "answer_type",
    "language",
    "source",
    "category",
    "task",
    "context",
    "grade",
    "skills",
)
#: testmini's problem count (spec mcq-reasoning.md §9; the test split's 5,141 are scored by
#: submission)
TESTMINI_SIZE = 1000
_METADATA = ("split", "language", "source", "category", "task", "context", "grade", "skills")
_CONTEXT = ("question_type", "answer_type", "choices", "precision")
_STORED = "stored_true_false"
_PRODUCE = (
    "produce it with MathVista's evaluation/extract_answer.py (the GPT extraction), score "
    "the VLMEvalKit sheet its judge wrote (<model>_MathVista_MINI_<judge>.xlsx, column 'res'), "
    "or let vqametrics ask a judge: --judge-url URL --judge-model NAME --judge-prompt FILE"
)
#: an item whose extraction is not recorded: the judge stage fills it (or says it is missing)
_PENDING = "extraction_missing"


# -- per-item scorers -----------------------------------------------------------------------


def _crash_hint(exc: MathVistaCrash) -> MathVistaCrash:
    return MathVistaCrash(f"{exc}; --profile lmms-eval scores such a problem (text unchanged)")


def _official_score(round_as_given: bool) -> Callable[..., float]:
    def score(prediction: str, references: Sequence[str], **fields: Any) -> float:
        try:
            pred = normalize_official(
                prediction,
                *_problem(fields),
                ignore_empty_extractions=bool(fields.get("ignore_empty_extractions")),
                round_precision_as_given=round_as_given,
            )
        except MathVistaCrash as exc:
            raise _crash_hint(exc) from None
        return 1.0 if official_equal(pred, references[0]) else 0.0

    return score


def _lmms_score(prediction: str, references: Sequence[str], **fields: Any) -> float:
    pred = normalize_lmms_eval(prediction, *_problem(fields))
    return 1.0 if lmms_eval_equal(pred, references[0]) else 0.0


def _vlmevalkit_score(prediction: str, references: Sequence[str], **fields: Any) -> float:
    choices, question_type, answer_type, _ = _problem(fields)
    ok = vlmevalkit_post_check(
        prediction, references[0], question_type, answer_type, choices, fields.get("answer_option")
    )
    return 1.0 if ok else 0.0


def _detail(
    normalize: Callable[[Item], Any],
) -> Callable[[Item], Mapping[str, Any]]:
    def detail(item: Item) -> Mapping[str, Any]:
        try:
            return {"normalized": normalize(item)}
        except MathVistaCrash:
            return {}

    return detail


def _problem(fields: Mapping[str, Any]) -> tuple[Any, ...]:
    """A problem's ``(choices, question_type, answer_type, precision)``, in the order the
    normalizers take them (a profile's context, or an item's fields)."""
    return tuple(fields.get(k) for k in ("choices", "question_type", "answer_type", "precision"))


# -- aggregation ----------------------------------------------------------------------------


def _values(item: Item, key: str) -> list[str]:
    value = item.fields.get(key)
    if value is None:
        return []
    if key == "skills" and isinstance(value, list | tuple):
        return [str(v) for v in value]
    return [str(value)]


def _official_breakdowns(
    items: Sequence[Item], scores: Sequence[float]
) -> dict[str, dict[str, dict[str, float | int]]]:
    """Per key, ``{value: {accuracy, correct, total}}`` sorted by accuracy, highest first (the
    score file's order; equal accuracies stay in first-seen order)."""
    out: dict[str, dict[str, dict[str, float | int]]] = {}
    for key in BREAKDOWN_KEYS:
        counts: dict[str, list[int]] = {}
        for item, s in zip(items, scores, strict=True):
            for v in _values(item, key):
                c = counts.setdefault(v, [0, 0])
                c[0] += s == 1.0
                c[1] += 1
        if not counts:
            continue
        groups = {
            v: {"accuracy": c / t * 100, "correct": c, "total": t} for v, (c, t) in counts.items()
        }
        out[key] = dict(sorted(groups.items(), key=lambda kv: -kv[1]["accuracy"]))
    return out


def _ungrouped(items: Sequence[Item], keys: Sequence[str]) -> tuple[str, ...]:
    """Notes naming the problems that have no value of a breakdown key (left out of it)."""
    return tuple(
        note
        for key in keys
        for note in ungrouped_note(items, [key if _values(it, key) else None for it in items], key)
    )


def _stored_note(items: Sequence[Item], scores: Sequence[float], profile: str) -> tuple[str, ...]:
    return stored_verdict_note(items, scores, profile, _STORED, "true_false")


def _testmini_like(items: Sequence[Item]) -> bool:
    """Whether *items* are testmini problems: every split they name (``metadata.split``) is
    ``testmini``, or they name none and every pid is one of testmini's, 1 to 1000."""
    splits = {str(it.fields["split"]) for it in items if it.fields.get("split") is not None}
    if splits:
        return splits == {"testmini"}
    return bool(items) and all(_testmini_pid(str(it.id)) for it in items)


def _testmini_pid(pid: str) -> bool:
    return pid.isascii() and pid.isdigit() and 1 <= int(pid) <= TESTMINI_SIZE


def _size_note(items: Sequence[Item], scores: Sequence[float]) -> tuple[str, ...]:
    """A note when a testmini file has other than its 1000 problems (a test-split file, 5141
    problems scored by submission, is left alone): the accuracy is then over fewer problems."""
    if not _testmini_like(items):
        return ()
    return size_note(
        len(scores),
        TESTMINI_SIZE,
        "problems",
        f"MathVista testmini has {TESTMINI_SIZE}: the accuracy is over the problems scored here",
    )


def _official_aggregate(profile: str, lmms: bool = False) -> Callable[..., Aggregate]:
    def aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
        total = len(scores)
        correct = sum(1 for s in scores if s == 1.0)
        acc = correct / total * 100 if total else 0.0
        notes = _stored_note(items, scores, profile) + _size_note(items, scores)
        if lmms and correct == 0:
            notes += ("lmms-eval's aggregate returns None (not 0) when the accuracy is 0",)
        return Aggregate(
            metrics={"accuracy": acc, "correct": correct, "total": total},
            headline="accuracy",
            units="percent",
            digits=2,
            breakdowns=_official_breakdowns(items, scores),
            notes=notes + _ungrouped(items, BREAKDOWN_KEYS),
        )

    return aggregate


def _vlmevalkit_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``MathVista_acc``: per ``Overall``, skill and task (in VLMEvalKit's first-seen order,
    skills before the task of each row): ``tot``, ``prefetch``, ``hit``, ``prefetch_rate``,
    ``acc`` = hit / tot × 100."""

    def keys(item: Item) -> list[str | None]:
        return ["Overall", *_values(item, "skills"), *_values(item, "task")]

    rows = vlmevalkit_judge_rows(items, scores, keys, sort=False)
    overall = rows.get("Overall", {"acc": 0.0, "hit": 0, "tot": 0, "prefetch": 0})
    return Aggregate(
        metrics={
            "Overall": overall["acc"],
            "hit": overall["hit"],
            "tot": overall["tot"],
            "prefetch": overall["prefetch"],
        },
        headline="Overall",
        units="percent",
        digits=2,
        breakdowns={"Task&Skill": rows},
        notes=_stored_note(items, scores, "vlmevalkit")
        + _size_note(items, scores)
        + _ungrouped(items, ("task",)),
    )


# -- reading --------------------------------------------------------------------------------


def _choices(value: Any, where: str) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        # VLMEvalKit writes the list as a Python literal; a literal is parsed, never evaluated
        try:
            value = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            raise InputError(f"{where}: choices is not a list literal: {value[:80]!r}") from None
    if not isinstance(value, list | tuple):
        raise InputError(f"{where}: choices is {type(value).__name__}, expected a list")
    return [str(c) for c in value]


def _skills(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        try:
            parsed = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            return [value]
        value = parsed
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return [str(value)]


_NULL_NOTE = (
    "{n} extraction(s) are null: scored as the text 'None', as the scorers do (str(None) for "
    "choices and lists; int/float refuse it)"
)


def _recorded_text(value: Any) -> str:
    """A recorded extraction as the scorers see it: ``str()`` of a non-string (the official
    code calls ``str(extraction)``; ``float(str(x))`` is ``float(x)`` for a number)."""
    return value if isinstance(value, str) else str(value)


def _flag(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() not in ("", "0", "false", "no")
    return bool(value)


def _text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _problem_fields(problem: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The fields a problem's score and breakdowns need, from a problem record."""
    for key in ("question_type", "answer_type"):
        if not isinstance(problem.get(key), str):
            raise InputError(f"{where}: no {key!r} (every MathVista problem carries it)")
    fields: dict[str, Any] = {
        "question_type": problem["question_type"],
        "answer_type": problem["answer_type"],
        "choices": _choices(problem.get("choices"), where),
        "precision": problem.get("precision"),
    }
    meta = problem.get("metadata")
    source: Mapping[str, Any] = meta if isinstance(meta, Mapping) else problem
    for key in _METADATA:
        value = source.get(key, problem.get(key))
        if key == "skills":
            value = _skills(value)
        if value is not None:
            fields[key] = value
    if fields["question_type"] == "multi_choice" and fields["choices"] is None:
        raise InputError(f"{where}: a multi_choice problem without 'choices'")
    return fields


def _gold(problem: Mapping[str, Any], where: str) -> str:
    answer = problem.get("answer")
    if answer is None:
        raise InputError(
            f"{where}: no 'answer' (MathVista's scorer takes it from the dataset): pass "
            "--annotations with the testmini problems (data/testmini.json)"
        )
    return answer if isinstance(answer, str) else _text(answer)


def _annotation_problems(inputs: TaskInputs) -> dict[str, Mapping[str, Any]]:
    if inputs.annotations is None:
        return {}
    records = read_records(inputs.annotations)
    out: dict[str, Mapping[str, Any]] = {}
    for row in records.rows:
        key = row.get("pid", row.get("question_id"))
        if key is not None:
            out[str(key)] = row
    return out


def _official_items(records: Records, inputs: TaskInputs) -> TaskData:
    """``output_<model>.json``: pid → problem + ``response``, ``extraction`` (and, once scored,
    ``prediction`` and ``true_false``)."""
    gt = _annotation_problems(inputs)
    items: list[Item] = []
    nulls = 0
    for i, row in enumerate(records.rows):
        where = records.where(i)
        column = "pid" if "pid" in row else "question_id"
        pid = row.get(column)
        if pid is None:
            raise InputError(
                f"{where}: no '{column_name(where, 'pid')}' (an official MathVista output is "
                "keyed by pid)"
            )
        pid = str(row_id(pid, where, column))
        extraction = json_answer(records, row.get("extraction"), where, "extraction")
        where = f"{records.source}: pid {pid!r}"
        # the file's own fields win, as calculate_score.py reads the dataset only for a
        # missing answer
        problem = {**gt.get(pid, {}), **row}
        fields = _problem_fields(problem, where)
        if "extraction" not in row:
            fields.update(_pending_fields(row, "response"))
        if isinstance(row.get("true_false"), bool):
            fields[_STORED] = row["true_false"]
        pred = _recorded_text(extraction) if "extraction" in row else None
        nulls += "extraction" in row and extraction is None
        if _flag(inputs.options.get("ignore_empty_extractions")):
            fields["ignore_empty_extractions"] = True
        items.append(Item(pid, pred, (_gold(problem, where),), fields))
    items, repeated = unique_items(items, records, "pid", inputs)
    notes = list(repeated)
    if nulls:
        notes.append(_NULL_NOTE.format(n=nulls))
    reported = _official_reported(inputs)
    if reported is not None and any("accuracy_text" in v for v in reported["values"].values()):
        notes.append(
            f"{reported['source']} writes its accuracies as 2-decimal text: its correct and "
            "total counts are set beside ours (they fix the accuracy)"
        )
    return TaskData(
        items,
        (records.source,),
        ("mathvista-official-output (json)",),
        tuple(notes),
        reported,
    )


def _vlmevalkit_items(records: Records, inputs: TaskInputs) -> TaskData:
    """``<model>_MathVista_MINI_<judge>.xlsx``: the sheet rows plus the judge's ``res``."""
    sheet = "res" in records.columns  # the judge step's sheet; else the prediction sheet
    if not sheet and "question_type" not in records.columns:
        raise InputError(
            f"{records.source}: no 'res' column (the judge's extraction): this is the prediction "
            "sheet; score the <model>_MathVista_MINI_<judge>.xlsx VLMEvalKit's judge step wrote "
            "beside it"
        )
    items: list[Item] = []
    for i, row in enumerate(records.rows):
        where = records.where(i)
        key = sheet_index(row, where)
        fields = _problem_fields(row, where)
        if row.get("answer_option") is not None:
            fields["answer_option"] = str(row["answer_option"])
        if row.get("log") is not None:
            fields["log"] = str(row["log"])
        res = row.get("res")
        # an empty res cell is what VLMEvalKit writes when all five judge tries failed: it
        # is a recorded (failed) extraction, scored as pandas reads it (NaN), never dropped
        pred: str | None = "nan" if res is None else (res if isinstance(res, str) else _text(res))
        if not sheet:
            pred = None
            fields.update(_pending_fields(row, "prediction"))
        items.append(Item(key, pred, (_gold(row, where),), fields))
    items, notes = unique_items(items, records, "index", inputs)
    if "precision" not in records.columns and any(
        it.fields["answer_type"] == "float" for it in items
    ):
        notes += (
            f"{records.source} has no 'precision' column: under the official and lmms-eval "
            "profiles its float problems cannot be rounded and are wrong (VLMEvalKit needs none)",
        )
    return judge_sheet_data(items, records, "vlmevalkit-mathvista-judge", notes, inputs)


def _lmms_items(records: Records, inputs: TaskInputs) -> TaskData:
    """lmms-eval ``--log_samples``: each record's ``llm_as_judge_eval`` holds the problem, the
    ``extraction`` and lmms-eval's own ``true_false``."""
    items: list[Item] = []
    nulls = 0
    for i, row in enumerate(records.rows):
        where = records.where(i)
        rec = row.get("llm_as_judge_eval") or row.get("submission")
        if not isinstance(rec, Mapping):
            raise InputError(
                f"{where}: no 'llm_as_judge_eval' record (the per-sample extraction lmms-eval's "
                "mathvista task writes)"
            )
        raw_doc = row.get("doc")
        doc: Mapping[str, Any] = raw_doc if isinstance(raw_doc, Mapping) else {}
        problem = {**doc, **rec}
        pid = rec.get("question_id", doc.get("pid", row.get("doc_id")))
        where = f"{records.source}: pid {pid!r}"
        if "extraction" not in rec:
            raise InputError(f"{where}: no 'extraction' in llm_as_judge_eval; " + _PRODUCE)
        fields = _problem_fields(problem, where)
        if isinstance(rec.get("true_false"), bool):
            fields[TOOLKIT_SCORE] = float(rec["true_false"])
        pred = _recorded_text(rec["extraction"])
        nulls += rec["extraction"] is None
        item_id = row_id(pid, records.where(i), "question_id")
        items.append(Item(item_id, pred, (_gold(problem, where),), fields))
    rep = reported_scores(inputs)
    if rep is not None and rep.get("toolkit") == "lmms-eval":
        # lmms-eval's mathvista aggregate is already a percentage (round(c / t * 100, 2))
        rep = {**rep, "units": "percent"}
    items, notes = unique_items(items, records, "question_id", inputs)
    notes += (_NULL_NOTE.format(n=nulls),) if nulls else ()
    return TaskData(items, (records.source,), ("lmms-eval-samples (jsonl)",), notes, rep)


def _scores_beside(results: Path) -> Path | None:
    """``scores_<model>.json`` beside ``output_<model>.json``."""
    if not results.name.startswith("output_"):
        return None
    return results.with_name("scores_" + results.name[len("output_") :])


def _official_reported(inputs: TaskInputs) -> dict[str, Any] | None:
    """The official ``scores_<model>.json`` (``--reported`` or beside ``output_<model>.json``),
    as ``{group: {accuracy, correct, total}}`` in percent (the 2023 file writes ``"38.89"``,
    the 2024 file a fraction)."""
    found = read_score_file(inputs, _scores_beside, "MathVista score file")
    if found is None:
        return None
    path, data = found
    if not isinstance(data, dict) or not isinstance(data.get("average"), dict):
        raise InputError(f"{path}: no 'average' (not a MathVista scores_<model>.json)")
    values: dict[str, dict[str, Any]] = {"all": _score_row(data["average"], path)}
    for key in BREAKDOWN_KEYS:
        for group, row in (data.get(key) or {}).items():
            values[str(group)] = _score_row(row, path)
    return {
        "source": os.fspath(path),
        "toolkit": "MathVista",
        "profiles": ("official", "official-2024"),
        "values": values,
    }


def _score_row(row: Any, path: Path) -> dict[str, Any]:
    if not isinstance(row, Mapping):
        raise InputError(f"{path}: a score entry is {type(row).__name__}, expected an object")
    acc = row.get("accuracy")
    out: dict[str, Any] = {
        k: float(row[k]) for k in ("correct", "total") if isinstance(row.get(k), int)
    }
    if isinstance(acc, str):
        # 2023: a percentage as text, "{:.2f}" (the average: str(round(, 2))); kept as text so
        # it is shown, not set beside our unrounded number (correct and total are)
        out["accuracy_text"] = acc
    elif isinstance(acc, int | float):
        out["accuracy"] = float(acc) * 100  # 2024 on: the fraction correct / total
    return out


def _pending_fields(row: Mapping[str, Any], response_key: str) -> dict[str, Any]:
    """What the judge stage needs of a problem with no recorded extraction: the response and
    the text each toolkit's prompt quotes (the official ``query``, VLMEvalKit's ``question``)."""
    out: dict[str, Any] = {_PENDING: True}
    for key, value in (("response", row.get(response_key)), ("query", row.get("query"))):
        if value is not None:
            out[key] = value if isinstance(value, str) else _text(value)
    if isinstance(row.get("question"), str):
        out["question"] = row["question"]
    return out


# -- the judge stage (new runs) -------------------------------------------------------------


def _missing_error(data: TaskData, item: Item) -> InputError:
    source = data.sources[0] if data.sources else "input"
    if any(layout.startswith("vlmevalkit") for layout in data.layouts):
        return InputError(
            f"{source}: no 'res' column (the judge's extraction): this is the prediction sheet; "
            "score the <model>_MathVista_MINI_<judge>.xlsx VLMEvalKit's judge step wrote beside "
            "it, or let vqametrics ask a judge: --judge-url URL --judge-model NAME --judge-prompt "
            "FILE"
        )
    return InputError(
        f"{source}: pid {item.id!r}: no 'extraction' (the GPT extraction every profile scores); "
        + _PRODUCE
    )


def _settled(item: Item, extraction: str | None) -> Item:
    fields = {k: v for k, v in item.fields.items() if k != _PENDING}
    return replace(item, prediction=extraction, fields=fields)


def _ask(item: Item, toolkit: str, text: PromptText, source: str) -> tuple[str | None, str | None]:
    """``(decided, prompt)``: the toolkit's own rules decide an item without a call (the
    official ``extract_answer`` steps, lmms-eval's copy of them, VLMEvalKit's prefetch), else
    the prompt to send."""
    f = item.fields
    response = f.get("response")
    where = f"{source}: pid {item.id!r}"
    if not isinstance(response, str):
        raise InputError(f"{where}: no response to extract the answer from")
    choices, qtype, atype = f.get("choices"), f.get("question_type"), f.get("answer_type")
    if toolkit == "lmms-eval":
        # mathvista_process_results strips the response before extract_answer sees it
        response = response.strip()
    if toolkit != "vlmevalkit":
        ruled = mathvista_official_rules(response, qtype, atype, choices)
        if ruled is not None:
            return ruled, None
        if not isinstance(f.get("query"), str):
            raise InputError(f"{where}: no 'query' (the official extraction prompt quotes it)")
        return None, mathvista_official_prompt(text.text, f["query"], response)
    pre = vlmevalkit_prefetch(
        response, item.references[0], qtype, atype, choices, f.get("answer_option")
    )
    if pre:  # QUIRK falsy-prefetch: a prefetched 0 still goes to the judge, as in VLMEvalKit
        return str(pre), None
    if not isinstance(f.get("question"), str):
        raise InputError(f"{where}: no 'question' (VLMEvalKit's extraction prompt quotes it)")
    return None, mathvista_vlmevalkit_prompt(text.text, f["question"], response)


def _judge_stage(
    data: TaskData, prof: TaskProfile, client: Any, inputs: TaskInputs
) -> tuple[TaskData, Any, Any]:
    """Extractions for the problems that have none recorded: from the judge, with the
    profile's toolkit prompt (official, official-2024: ``extract_answer.py``; vlmevalkit:
    ``MathVista_auxeval``); without a judge, such a problem is an error (or, with
    ``--allow-missing``, scored 0 and counted)."""
    pending = [i for i, it in enumerate(data.items) if it.fields.get(_PENDING)]
    if not pending:
        return data, None, None
    items = list(data.items)
    if client is None:
        if not inputs.allow_missing:
            raise _missing_error(data, items[pending[0]])
        for i in pending:
            items[i] = _settled(items[i], None)
        note = f"{len(pending)} problem(s) had no extraction and scored 0"
        return (
            replace(data, items=items, notes=(note, *data.notes), n_missing=len(pending)),
            None,
            None,
        )
    toolkit = "official" if prof.name in ("official", "official-2024") else prof.name
    kind, read, tries = _STAGES[toolkit]
    text = load_prompt_text(
        inputs.options.get("judge_prompt"), kind, task="mathvista", profile=prof.name
    )
    source = data.sources[0] if data.sources else "input"
    decided: list[tuple[int, str]] = []
    asks: list[tuple[int, str]] = []
    for i in pending:
        value, prompt = _ask(items[i], toolkit, text, source)
        if prompt is not None:
            asks.append((i, prompt))
        elif value is not None:
            decided.append((i, value))
    label = prompt_label(client.model, kind, text)
    run = ask_judge(client, asks, read, label, decided=decided, tries=tries)
    for i in pending:
        items[i] = _settled(items[i], run.judgements[i].decision)
    unjudged = sum(1 for i in pending if run.judgements[i].decision is None)
    note = (
        f"{len(asks)} extraction(s) by judge {run.stats.model} (prompt from {text.source}), "
        f"{len(decided)} by the toolkit's rules before the judge, "
        f"{len(items) - len(pending)} recorded"
        + (f"; {unjudged} got no extraction (unjudged) and scored 0" if unjudged else "")
    )
    return judged_data(data, items, note, run.signature_value), run.judgements, run.stats


def _stripped(reply: str) -> str:
    return reply.strip()


def _empty(reply: str | None) -> bool:
    return reply is None or not reply.strip()


#: per toolkit: its prompt, how it reads the reply, and how it asks again.
#: official: the reply stripped (MathVista's GPT wrapper), one try at temperature 0;
#: VLMEvalKit (``MathVista_auxeval``): the reply as written, 5 tries at temperature
#: ``i * 0.5`` while the API gives no answer, ``max_tokens`` 128;
#: lmms-eval (``get_chat_response``, patience 5): the reply stripped, asked again at
#: temperature 0 while it is empty (then the extraction is ``""``), ``max_tokens`` 256
_STAGES: dict[str, tuple[Any, Callable[[str], str | None], Tries]] = {
    "official": (MATHVISTA_OFFICIAL, mathvista_official_reply, ONCE),
    "vlmevalkit": (MATHVISTA_VLMEVALKIT, *VLMEVALKIT_AUXEVAL),
    "lmms-eval": (
        MATHVISTA_LMMS_EVAL,
        _stripped,
        Tries(temperatures=(0.0,) * 5, max_tokens=256, again=_empty),
    ),
}


def _read(inputs: TaskInputs) -> TaskData:
    records = read_records(inputs.results, format=inputs.format, on_duplicate=inputs.on_duplicate)
    cols = set(records.columns)
    if "llm_as_judge_eval" in cols or {"doc_id", "filtered_resps"} <= cols:
        unused_fields(
            inputs.id_field, inputs.answer_field, "an lmms-eval mathvista log (llm_as_judge_eval)"
        )
        return _lmms_items(records, inputs)
    # --answer-field names the extraction every profile scores: VLMEvalKit's judged 'res',
    # the official output's 'extraction'
    given = inputs.id_field, inputs.answer_field
    if is_vlmevalkit(records, id_field=inputs.id_field):
        return _vlmevalkit_items(
            named_columns(records, *given, id_column="index", answer_column="res"), inputs
        )
    official = named_columns(records, *given, id_column="pid", answer_column="extraction")
    if set(official.columns) & {"extraction", "response", "pid"}:
        return _official_items(official, inputs)
    have = ", ".join(sorted(cols)[:15]) or "none"
    raise InputError(
        f"{records.source}: not a MathVista results file (fields: {have}); mathvista reads the "
        "official output_<model>.json, a VLMEvalKit MathVista _<judge>.xlsx or an lmms-eval "
        "mathvista samples log"
    )


def _signature_fields(data: TaskData) -> tuple[tuple[str, Any], ...]:
    return (("judge", data.extra.get("judge", "recorded")),)


def _official_profile(
    commit: str, round_as_given: bool, *, description: str, reproduces: str
) -> TaskProfile:
    """An official ``calculate_score.py`` profile at *commit*; the two differ only in how
    ``precision`` rounds (*round_as_given*: the 2024 script's ``round(x, precision)``)."""
    name = "official-2024" if round_as_given else "official"
    return TaskProfile(
        name=name,
        description=description,
        reproduces=reproduces,
        toolkit=f"MathVista@{commit}",
        score=_official_score(round_as_given),
        aggregate=_official_aggregate(name),
        context=(*_CONTEXT, "ignore_empty_extractions"),
        detail=_detail(
            lambda it: normalize_official(
                it.prediction, *_problem(it.fields), round_precision_as_given=round_as_given
            )
        ),
    )


OFFICIAL = _official_profile(
    "53d5258",
    False,
    description="calculate_score.py at HEAD: truncate integers, round floats to int(precision), "
    "letter or nearest choice (Levenshtein), plain ==",
    reproduces="lupantech/MathVista@53d5258 evaluation/calculate_score.py (file e999481)",
)

OFFICIAL_2024 = _official_profile(
    "fb7fae1",
    True,
    description="calculate_score.py before its 2024-11 fix: round(x, precision) raises for a "
    "float precision, so every such float problem is wrong",
    reproduces="lupantech/MathVista@fb7fae1 evaluation/calculate_score.py (before e999481)",
)

LMMS_EVAL = TaskProfile(
    name="lmms-eval",
    description="lmms-eval mathvista: the 2023 official normalisation (float precision -> None), "
    "text returned unchanged, str().strip() equality",
    reproduces=LMMS_EVAL_PIN.at("tasks/mathvista/mathvista_evals.py"),
    toolkit=LMMS_EVAL_PIN.token,
    score=_lmms_score,
    aggregate=_official_aggregate("lmms-eval", lmms=True),
    context=_CONTEXT,
    detail=_detail(lambda it: normalize_lmms_eval(it.prediction, *_problem(it.fields))),
)

VLMEVALKIT = TaskProfile(
    name="vlmevalkit",
    description="VLMEvalKit post_check: can_infer for choices, exact int()/float() equality, "
    "every list and text answer wrong",
    reproduces=VLMEVALKIT_PIN.at("vlmeval/dataset/utils/mathvista.py post_check"),
    toolkit=VLMEVALKIT_PIN.token,
    score=_vlmevalkit_score,
    aggregate=_vlmevalkit_aggregate,
    context=(*_CONTEXT, "answer_option"),
)

TASK = register_task(
    Task(
        name="mathvista",
        kind="mixed",
        title="MathVista testmini",
        metric="mathvista-acc",
        description="math reasoning in visual contexts, scored from recorded answer extractions",
        profiles=(OFFICIAL, OFFICIAL_2024, LMMS_EVAL, VLMEVALKIT),
        read=_read,
        layouts=(
            "official output_<model>.json (pid -> problem, response, extraction)",
            "VLMEvalKit <model>_MathVista_MINI_<judge>.xlsx (res, log)",
            "lmms-eval mathvista samples log (llm_as_judge_eval)",
        ),
        aliases=("mathvista-testmini", "mathvista_testmini"),
        annotations_optional=True,
        signature_fields=_signature_fields,
        judge=_judge_stage,
        note="the extraction is a recorded GPT output (or asked of --judge-url with the "
        "toolkit's prompt); everything after it is deterministic",
        options=(
            (
                "judge-prompt",
                "with --judge-url: the toolkit's extraction prompt, not bundled (CC BY-SA): "
                "official: MathVista's evaluation/prompts/ext_ans.py; lmms-eval: its "
                "tasks/mathvista/mathvista_evals.py; vlmevalkit: vlmeval/dataset/utils/"
                "mathvista.py (docs/tasks/mathvista.md)",
            ),
            (
                "ignore-empty-extractions",
                "official profiles: an empty multi_choice extraction is None (wrong), as "
                "calculate_score.py --ignore_empty_extractions",
            ),
        ),
        reported_names={"llm_as_judge_eval": "accuracy"},
    )
)
