"""MathVision (MATH-V, test 3,040 / testmini 304): the official rule-based scorer, VLMEvalKit's.

The official ``evaluate.py`` needs no judge: it extracts the answer from the response by rules
and compares it with ``is_equal`` (values rounded to 2 decimals; ``score/mathvision.py``, spec
``mcq-reasoning.md`` §10). VLMEvalKit compares its judge's recorded ``res`` with a ``1e-6``
tolerance. Inputs: the official ``outputs/*.jsonl`` (``id``, ``response``, and after scoring
``model_answer``, ``correct``) with the dataset's ``test.jsonl``/``testmini.jsonl`` as
``--annotations`` when the lines lack the problem, or a VLMEvalKit ``<model>_MathVision_<judge>
.xlsx`` (``res``, ``log``). The official ``<file>_result.json`` and VLMEvalKit's ``_score.csv``
are shown beside ours; stored ``correct`` verdicts that differ from ours are named.

New runs (VLMEvalKit's profile only: the official scorer needs no judge): a prediction sheet
without ``res`` and ``--judge-url`` asks the judge as ``MATH_V_auxeval`` does (prefetch first,
then ``build_mathv_gpt4_prompt`` with the user's ``--judge-prompt``; up to 5 tries at
temperature 0, 0.5, 1, 1.5, 2 while the API gives no answer; ``max_tokens`` 128).
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..core.exceptions import InputError
from ..core.toolkits import VLMEVALKIT as VLMEVALKIT_PIN
from ..judge.prompts import (
    MATHVISION_VLMEVALKIT,
    load_prompt_text,
    mathvista_vlmevalkit_prompt,
    prompt_label,
)
from ..judge.stage import ask_judge
from ..kernels.mathvision import (
    official_correct,
    official_model_answer,
    vlmevalkit_post_check,
    vlmevalkit_prefetch,
)
from ..readers.cells import json_answer, named_columns, row_id
from ..readers.join import unique_rows
from ..readers.layouts import is_vlmevalkit
from ..readers.records import Records, column_name, read_records
from . import register_task
from ._base import Aggregate, Item, Task, TaskData, TaskInputs, TaskProfile
from ._common import judged_data, ungrouped_note, unique_items, vlmevalkit_judge_rows
from ._math_read import (
    VLMEVALKIT_AUXEVAL,
    judge_sheet_data,
    read_score_file,
    sheet_index,
    stored_verdict_note,
)

__all__ = ["TASK"]

_STORED = "stored_correct"
_NO_RES = "res_absent"
_RESULT_ENTRY = re.compile(r"^(\d+)/(\d+)=(.*)$")


def _official_score(
    prediction: str,
    references: Sequence[str],
    *,
    options: Sequence[str] | None = None,
) -> float:
    _, correct = official_correct(prediction, references[0], list(options or ()))
    return 1.0 if correct else 0.0


def _vlmevalkit_score(
    prediction: str,
    references: Sequence[str],
    *,
    options: Sequence[str] | None = None,
    res: Any = None,
    res_absent: bool | None = None,
) -> float:
    if res_absent:
        raise InputError(
            "no 'res' (the judge's extraction VLMEvalKit compares): produce it with VLMEvalKit's "
            "MathVision judge step (<model>_MathVision_<judge>.xlsx), or score the responses "
            "with --profile official (rule-based, no judge)"
        )
    given = prediction if res is None else res
    return 1.0 if vlmevalkit_post_check(given, references[0], list(options or ())) else 0.0


def _counts(
    items: Sequence[Item], scores: Sequence[float], key: Callable[[Item], str | None]
) -> dict[str, dict[str, float | int]]:
    counts: dict[str, list[int]] = {}
    for item, s in zip(items, scores, strict=True):
        k = key(item)
        if k is None:
            continue
        c = counts.setdefault(k, [0, 0])
        c[0] += s == 1.0
        c[1] += 1
    return {
        k: {"accuracy": c / t * 100, "correct": c, "total": t}
        for k, (c, t) in sorted(counts.items())
    }


def _level(item: Item) -> str | None:
    level = item.fields.get("level")
    return None if level is None else f"level{level}"


def _subject(item: Item) -> str | None:
    subject = item.fields.get("subject")
    return None if subject is None else str(subject)


def _subject_level(item: Item) -> str | None:
    s, lv = _subject(item), _level(item)
    return None if s is None or lv is None else f"{s}_{lv}"


def _ungrouped(items: Sequence[Item]) -> tuple[str, ...]:
    """Notes naming the problems without a level or a subject, which those breakdowns (and
    ``subject_level``) leave out: test.jsonl gives every problem both."""
    return (
        *ungrouped_note(items, [_level(it) for it in items], "level"),
        *ungrouped_note(items, [_subject(it) for it in items], "subject"),
    )


def _stored_note(items: Sequence[Item], scores: Sequence[float], profile: str) -> tuple[str, ...]:
    return stored_verdict_note(items, scores, profile, _STORED, "correct")


def _official_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``math_level_subject_acc``: correct / total per ``-all``, level, subject and
    subject × level (keys sorted), the accuracy in percent (the file rounds it to 2 dp)."""
    total = len(scores)
    correct = sum(1 for s in scores if s == 1.0)
    return Aggregate(
        metrics={
            "accuracy": correct / total * 100 if total else 0.0,
            "correct": correct,
            "total": total,
        },
        headline="accuracy",
        units="percent",
        digits=2,
        breakdowns={
            "level": _counts(items, scores, _level),
            "subject": _counts(items, scores, _subject),
            "subject_level": _counts(items, scores, _subject_level),
        },
        notes=(
            *_ungrouped(items),
            *_stored_note(items, scores, "official"),
        ),
    )


def _vlmevalkit_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``MATH_V_acc``: per ``Overall`` and category (sorted by name): ``tot``, ``prefetch``,
    ``hit``, ``prefetch_rate``, ``acc`` = hit / tot × 100."""
    rows = vlmevalkit_judge_rows(items, scores, lambda it: ("Overall", _subject(it)), sort=True)
    overall = rows.get("Overall", {"acc": 0.0, "hit": 0, "tot": 0})
    return Aggregate(
        metrics={"Overall": overall["acc"], "hit": overall["hit"], "tot": overall["tot"]},
        headline="Overall",
        units="percent",
        digits=2,
        breakdowns={"Subject": rows},
        notes=(
            *ungrouped_note(items, [_subject(it) for it in items], "subject", "Subject"),
            *_stored_note(items, scores, "vlmevalkit"),
        ),
    )


# -- reading --------------------------------------------------------------------------------


def _options(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value.strip()) if value.strip() else []
        except (ValueError, SyntaxError):
            raise InputError(f"{where}: options is not a list literal: {value[:80]!r}") from None
    if not isinstance(value, list | tuple):
        raise InputError(f"{where}: options is {type(value).__name__}, expected a list")
    return [str(v) for v in value]


def _text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _problem(row: Mapping[str, Any], where: str, options_key: str) -> tuple[str, dict[str, Any]]:
    answer = row.get("answer")
    if answer is None:
        raise InputError(
            f"{where}: no 'answer': pass --annotations with the dataset's data/test.jsonl "
            "(or testmini.jsonl), as evaluate.py reads it"
        )
    fields: dict[str, Any] = {"options": _options(row.get(options_key), where)}
    subject = row.get("subject", row.get("category"))
    if subject is not None:
        fields["subject"] = str(subject)
    level = row.get("level")
    if level is not None:
        fields["level"] = int(level) if isinstance(level, float) and level.is_integer() else level
    return _text(answer), fields


def _annotation_problems(
    inputs: TaskInputs,
) -> tuple[dict[str, Mapping[str, Any]], str, tuple[str, ...]]:
    """``--annotations`` (the dataset's ``test.jsonl``): its problems by id, its name, and the
    note counting the repeated ones kept under ``--on-duplicate last``; a problem given twice
    is an error naming the file, both lines and the id (:func:`unique_rows`)."""
    ann = read_records(inputs.annotations)
    rows = [(i, r) for i, r in enumerate(ann.rows) if r.get("id") is not None]
    keep, note = unique_rows(
        [r["id"] for _, r in rows],
        [ann.where(i) for i, _ in rows],
        what="problem id",
        on_duplicate=inputs.on_duplicate,
    )
    gt: dict[str, Mapping[str, Any]] = {str(rows[k][1]["id"]): rows[k][1] for k in keep}
    return gt, ann.source, (f"{ann.source} (annotations): {note}",) if note else ()


def _official_items(records: Records, inputs: TaskInputs) -> TaskData:
    gt: dict[str, Mapping[str, Any]] = {}
    sources: tuple[str, ...] = (records.source,)
    ann_notes: tuple[str, ...] = ()
    if inputs.annotations is not None:
        gt, ann_source, ann_notes = _annotation_problems(inputs)
        sources = (ann_source, records.source)
    items: list[Item] = []
    missing = 0
    for i, row in enumerate(records.rows):
        where = row_where = records.where(i)
        if row.get("id") is None:
            raise InputError(
                f"{where}: no '{column_name(where, 'id')}' (official MathVision outputs carry one "
                "per line)"
            )
        pid = str(row_id(row["id"], where, "id"))
        response = json_answer(records, row.get("response"), where, "response")
        if gt and pid not in gt:
            raise InputError(f"{where}: id {pid!r} is not in {sources[0]}")
        problem = {**row, **gt[pid]} if gt else row
        where = f"{records.source}: id {pid!r}"
        answer, fields = _problem(problem, where, "options")
        if response is None:
            if not inputs.allow_missing:
                raise InputError(
                    f"{where}: no '{column_name(row_where, 'response')}' (the model output "
                    "evaluate.py extracts the answer from); pass --allow-missing to score it 0"
                )
            missing += 1
        if isinstance(row.get("correct"), bool):
            fields[_STORED] = row["correct"]
        fields[_NO_RES] = True
        pred = None if response is None else _text(response)
        items.append(Item(pid, pred, (answer,), fields))
    items, repeated = unique_items(items, records, "id", inputs)
    if gt:
        absent = len(gt) - len(items)
        if absent > 0 and not inputs.allow_missing:
            raise InputError(
                f"{records.source}: {absent} problem(s) of {sources[0]} have no output line; "
                "pass --allow-missing to score them 0"
            )
    notes = [*ann_notes]
    if missing:
        notes.append(f"{missing} problem(s) had no response and scored 0")
    notes += repeated
    reported = _official_reported(inputs)
    if reported is not None:
        notes.append(
            f"{reported['source']} writes each accuracy as 2-decimal text: its correct/total "
            "counts are set beside ours"
        )
    return TaskData(
        items,
        sources,
        ("mathvision-official-output (jsonl)",),
        tuple(notes),
        reported,
        n_missing=missing,
    )


def _vlmevalkit_items(records: Records, inputs: TaskInputs) -> TaskData:
    has_res = "res" in records.columns
    items: list[Item] = []
    for i, row in enumerate(records.rows):
        where = records.where(i)
        key = sheet_index(row, where)
        answer, fields = _problem(row, where, "choices")
        if row.get("log") is not None:
            fields["log"] = str(row["log"])
        if has_res:
            # an empty res is what VLMEvalKit writes when all judge tries failed: pandas reads
            # it as NaN and post_check compares str(NaN) = "nan"
            res = row.get("res")
            fields["res"] = "nan" if res is None else (res if isinstance(res, str) else _text(res))
        else:
            fields[_NO_RES] = True
            if isinstance(row.get("question"), str):  # what the judge's prompt quotes
                fields["question"] = row["question"]
        pred = row.get("prediction")
        items.append(Item(key, "nan" if pred is None else _text(pred), (answer,), fields))
    items, notes = unique_items(items, records, "index", inputs)
    return judge_sheet_data(items, records, "vlmevalkit-mathvision", notes, inputs)


def _official_reported(inputs: TaskInputs) -> dict[str, Any] | None:
    """``<file>_result.json`` (``--reported`` or beside the output): ``{"-all": "c/t=acc%",
    "-level1": …, subject: …, "<subject>_level<k>": …}``."""
    found = read_score_file(
        inputs,
        lambda res: res.with_name(res.name.removesuffix(".jsonl") + "_result.json"),
        "MathVision result file",
    )
    if found is None:
        return None
    path, data = found
    if not isinstance(data, dict) or "-all" not in data:
        raise InputError(f"{path}: no '-all' entry (not a MathVision <file>_result.json)")
    values: dict[str, dict[str, Any]] = {}
    for key, text in data.items():
        m = _RESULT_ENTRY.match(str(text))
        if m is None:
            raise InputError(f"{path}: entry {key!r} is not 'correct/total=acc%': {text!r}")
        if key.startswith("-level") and "_" in key:
            continue  # "-level<k>_<subject>" repeats "<subject>_level<k>"
        group = "all" if key == "-all" else key.removeprefix("-")
        values[group] = {
            "correct": float(m.group(1)),
            "total": float(m.group(2)),
            "accuracy_text": m.group(3),
        }
    return {
        "source": os.fspath(path),
        "toolkit": "MATH-V",
        "profiles": ("official",),
        "values": values,
    }


def _read(inputs: TaskInputs) -> TaskData:
    records = read_records(inputs.results, format=inputs.format, on_duplicate=inputs.on_duplicate)
    given = inputs.id_field, inputs.answer_field
    if is_vlmevalkit(records, id_field=inputs.id_field, answer_field=inputs.answer_field):
        sheet = named_columns(records, *given, id_column="index", answer_column="prediction")
        return _vlmevalkit_items(sheet, inputs)
    cols = set(records.columns)
    if {"doc_id", "filtered_resps"} <= cols:
        raise InputError(
            f"{records.source}: an lmms-eval samples log; lmms-eval's mathvision task is not "
            "reproduced here (its post-processing was not analysed), so it is not scored; "
            "mathvision reads the official outputs/*.jsonl or a VLMEvalKit MathVision sheet"
        )
    official = named_columns(records, *given, id_column="id", answer_column="response")
    cols = set(official.columns)
    if "id" in cols and ("response" in cols or "model_answer" in cols):
        return _official_items(official, inputs)
    have = ", ".join(sorted(cols)[:15]) or "none"
    raise InputError(
        f"{records.source}: not a MathVision results file (fields: {have}); mathvision reads "
        "the official outputs/*.jsonl (id, response) or a VLMEvalKit MathVision sheet"
    )


def _detail(item: Item) -> Mapping[str, Any]:
    if item.prediction is None:
        return {}
    return {"model_answer": official_model_answer(item.prediction)}


OFFICIAL = TaskProfile(
    name="official",
    description="evaluate.py: rule-based answer extraction, is_equal with values rounded to "
    "2 decimals (3.14159 = 3.14, 2\\pi = 6.28)",
    reproduces="mathllm/MATH-V@a1f5cc3 evaluation/evaluate.py + evaluation/utils.py is_equal",
    toolkit="MATH-V@a1f5cc3",
    score=_official_score,
    aggregate=_official_aggregate,
    context=("options",),
    detail=_detail,
    reads_free_text=True,  # its rules find the answer in the response: no verbose warning
)

VLMEVALKIT = TaskProfile(
    name="vlmevalkit",
    description="VLMEvalKit post_check on the judge's res: can_infer for options, else equal "
    "text or values within 1e-6",
    reproduces=VLMEVALKIT_PIN.at("vlmeval/dataset/utils/mathv.py post_check"),
    toolkit=VLMEVALKIT_PIN.token,
    score=_vlmevalkit_score,
    aggregate=_vlmevalkit_aggregate,
    context=("options", "res", "res_absent"),
    reads_free_text=True,  # the judge's res is scored, not the response
)


def _signature_fields(data: TaskData) -> tuple[tuple[str, Any], ...]:
    # the official scorer uses no judge; VLMEvalKit's res is a recorded judge output
    if "judge" in data.extra:
        return (("judge", data.extra["judge"]),)
    recorded = any("res" in it.fields for it in data.items)
    return (("judge", "recorded" if recorded else None),)


# -- the judge stage (new runs, VLMEvalKit's profile) ----------------------------------------

#: ``MATH_V_auxeval``: 5 tries, ``temperature=i * 0.5``, while the reply is the API failure
#: (no answer); the MathVision judge is built with ``max_tokens=128``


def _with_res(item: Item, res: str | None, log: str) -> Item:
    fields = {k: v for k, v in item.fields.items() if k not in (_NO_RES, "question")}
    if res is None:  # unjudged (--allow-unjudged): no res, scored as a missing answer
        return replace(item, prediction=None, fields={**fields, "log": log})
    return replace(item, fields={**fields, "res": res, "log": log})


def _judge_stage(
    data: TaskData, prof: TaskProfile, client: Any, inputs: TaskInputs
) -> tuple[TaskData, Any, Any]:
    """``res`` for the rows of a VLMEvalKit prediction sheet (no ``res`` column): prefetched by
    ``post_check`` or extracted by the judge; without a judge nothing changes (a row without
    ``res`` is the scorer's error)."""
    if client is not None and prof.name != "vlmevalkit":
        raise InputError(
            f"score mathvision --profile {prof.name}: the official scorer extracts the answer "
            "by rules and asks no judge; drop --judge-url, or use --profile vlmevalkit"
        )
    pending = [i for i, it in enumerate(data.items) if it.fields.get(_NO_RES)]
    if client is None or not pending:
        return data, None, None
    text = load_prompt_text(
        inputs.options.get("judge_prompt"),
        MATHVISION_VLMEVALKIT,
        task="mathvision",
        profile=prof.name,
    )
    source = data.sources[0] if data.sources else "input"
    items = list(data.items)
    decided: list[tuple[int, str]] = []
    asks: list[tuple[int, str]] = []
    for i in pending:
        it = items[i]
        pre = vlmevalkit_prefetch(it.prediction, it.references[0], it.fields.get("options") or [])
        if pre is not None:
            decided.append((i, pre))
            continue
        question = it.fields.get("question")
        if not isinstance(question, str):
            raise InputError(
                f"{source}: index {it.id!r}: no 'question' (VLMEvalKit's extraction prompt "
                "quotes it)"
            )
        asks.append((i, mathvista_vlmevalkit_prompt(text.text, question, it.prediction or "")))
    label = prompt_label(client.model, MATHVISION_VLMEVALKIT, text)
    read, tries = VLMEVALKIT_AUXEVAL
    run = ask_judge(client, asks, read, label, decided=decided, tries=tries)
    prefetched = {i for i, _ in decided}
    for i in pending:
        log = "Prefetch succeed" if i in prefetched else "Succeed"
        items[i] = _with_res(items[i], run.judgements[i].decision, log)
    note = (
        f"{len(asks)} res by judge {run.stats.model} (prompt from {text.source}), "
        f"{len(decided)} prefetched by post_check, {len(items) - len(pending)} recorded"
    )
    return judged_data(data, items, note, run.signature_value), run.judgements, run.stats


TASK = register_task(
    Task(
        name="mathvision",
        kind="mixed",
        title="MathVision (MATH-V)",
        metric="mathvision-acc",
        description="competition math with visual contexts (test 3,040 / testmini 304)",
        profiles=(OFFICIAL, VLMEVALKIT),
        read=_read,
        layouts=(
            "official outputs/*.jsonl (id, response[, model_answer, correct]) + test.jsonl",
            "VLMEvalKit <model>_MathVision_<judge>.xlsx (res, log)",
        ),
        aliases=("math-v", "mathvision-mini", "mathvision_testmini"),
        annotations_optional=True,
        signature_fields=_signature_fields,
        judge=_judge_stage,
        options=(
            (
                "judge-prompt",
                "vlmevalkit with --judge-url: VLMEvalKit's vlmeval/dataset/utils/mathv.py (its "
                "examples are not bundled) or a text file (docs/tasks/mathvision.md)",
            ),
        ),
        note="official: rules, no judge; VLMEvalKit: its judge's recorded res (or asked of "
        "--judge-url with its prompt)",
    )
)
