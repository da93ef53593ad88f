"""MMMU-Pro (1,730 questions, up to 10 options; ``standard`` and ``vision`` settings).

The ``official`` profile is ``MMMU-Benchmark/MMMU@bb0b95a`` ``mmmu-pro/evaluate.py`` (spec
``mcq-reasoning.md`` §3): one letter after the last ``Answer:``, else lmms-eval's MMMU tiers,
else an **unseeded** ``random.choice``; accuracy = right / total × 100, printed with 2 decimals.

QUIRK unseeded-random: the script never seeds its generator, so its number is not reproducible
when a response reaches the fallback. Such items are counted and said, never silently drawn:
a file the script already scored carries its own draw (``pred_indexs``), which is replayed;
``--fallback-seed N`` draws from ``Random(N)``; otherwise they score 0 and a note says how many.
A file the script scored also carries ``if_right``, checked against ours.

Input: the script's ``<model>_<standard|vision>_<cot|direct>.jsonl`` (``id``, ``options``,
``answer``, ``response``; ``pred_indexs`` and ``if_right`` once scored). The script skips a file
whose row count is not 1,730; here it is scored and a note says the script would have skipped it.

The ``lmms-eval`` profile is lmms-eval@75571cf ``tasks/mmmu_pro/utils.py`` (``mmmu_pro_standard``,
``mmmu_pro_vision`` and their ``_cot`` variants), read from its ``--log_samples`` file:

- a ``standard`` doc (it has ``question`` and ``options``) is parsed by lmms-eval's MMMU copy
  (letter-space and letter-dot tiers, then the process's unseeded ``random``: the log's own
  ``mmmu_acc.parsed_pred`` replays that draw);
- QUIRK vision-raw-response: a ``vision`` doc has no ``question``, so ``parsed_pred`` is the raw
  response and is right only when it *equals* the answer letter (``A`` right, ``A.`` or a CoT
  text wrong); kept, lmms-eval's vision numbers are scored that way;
- ``mmmu_acc`` = the subjects' accuracies weighted by their counts (``calculate_ins_level_acc``),
  returned ``round(…, 5)``.

A log without ``doc`` (the pin's form) holds ``mmmu_acc {id, subject, answer, parsed_pred}``; the
options are then read from the logged prompt (``input``: lines ``A. text``, ``B. text``, …), and a
prompt without them is a vision sample.
"""

from __future__ import annotations

import ast
import os
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..core.exceptions import InputError
from ..core.toolkits import LMMS_EVAL as LMMS_EVAL_PIN
from ..kernels.choice import RANDOM, get_lineage
from ..kernels.choice.mmmu import DOMAIN_CAT2SUB_CAT, lmms_eval_mmmu, mmmu_pro_official
from ..readers.cells import named_columns, row_id
from ..readers.join import unique_items
from ..readers.records import Records, column_name, read_records
from . import register_task
from ._base import Aggregate, Item, TaskData, TaskInputs, TaskProfile
from ._common import reported_scores
from ._lmms import TOOLKIT_SCORE, lmms_eval_predictions
from ._mcq import ChoiceTask, decided_scorer, draw_fields, fallback_letter, with_decisions

__all__: list[str] = []

#: the row count ``check_files`` requires (``NUM``)
EXPECTED_ROWS = 1730
_NAME = re.compile(r"(?P<model>.+)_(?P<setting>standard|vision)_(?P<method>cot|direct)\.jsonl$")


#: 1.0 when the letter (``parsed_pred`` when decided already, else evaluate.py's rule) equals
#: the answer; a rule that would draw an unseeded random letter is an error
_score = decided_scorer(
    mmmu_pro_official,
    task="mmmu-pro:",
    random_hint="no rule reads a letter and the script draws an unseeded random one; parse it "
    "with vqametrics.parse_choice(..., rng=...)",
)


def _aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``acc = true_nums / total * 100`` (``{acc:>6.2f}``)."""
    right = sum(1 for s in scores if s == 1.0)
    return Aggregate(
        metrics={
            "Accuracy": right / len(scores) * 100 if scores else 0,
            "n": len(scores),
            "random": sum(1 for it in items if it.fields.get("decided_at_random")),
        },
        headline="Accuracy",
        units="percent",
        digits=2,
    )


OFFICIAL = TaskProfile(
    name="official",
    description="MMMU-Pro evaluate.py: one letter after the last 'Answer:', else lmms-eval's "
    "tiers, else an unseeded random letter (counted); accuracy x 100",
    reproduces="MMMU-Benchmark/MMMU@bb0b95a mmmu-pro/evaluate.py",
    toolkit="MMMU-Pro@bb0b95a",
    score=_score,
    aggregate=_aggregate,
    context=("options", "parsed_pred"),
    detail=lambda item: {"parsed": item.fields.get("parsed_pred")},
    choice=get_lineage("mmmu_pro_official"),
)


#: ``eval_multi_choice``: as :data:`_score` with lmms-eval's tiers; a vision sample (no
#: options) compares the raw response itself (QUIRK vision-raw-response)
_lmms_score = decided_scorer(
    lmms_eval_mmmu,
    task="mmmu-pro:",
    random_hint="no tier reads a letter and lmms-eval draws from the unseeded global random; "
    "score the whole log (its parsed_pred replays the draw) or pass rng=",
    raw_without_options=True,
)


def _lmms_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``mmmu_pro_aggregate_results``: accuracy per ``subject`` (first-seen order), Overall =
    ``sum(acc * n) / sum(n)`` over them, returned ``round(…, 5)``; per discipline the same
    over its subjects present."""
    subjects: dict[str, list[float]] = {}
    for it, s in zip(items, scores, strict=True):
        subjects.setdefault(str(it.fields.get("subject")), []).append(s)
    acc = {k: sum(1 for s in v if s == 1.0) / len(v) for k, v in subjects.items()}

    def weighted(names: Sequence[str]) -> float:
        total, num = 0.0, 0
        for k in names:
            total += acc[k] * len(subjects[k])
            num += len(subjects[k])
        return total / num if num else 0

    domains = {d: weighted([k for k in subs if k in acc]) for d, subs in DOMAIN_CAT2SUB_CAT.items()}
    return Aggregate(
        metrics={
            "mmmu_acc": round(weighted(list(subjects)), 5),
            "n": len(scores),
            "random": sum(1 for it in items if it.fields.get("decided_at_random")),
        },
        headline="mmmu_acc",
        units="fraction",
        digits=5,
        breakdowns={
            "subject": {k: {"acc": acc[k], "num": len(subjects[k])} for k in subjects},
            "discipline": {
                d: {
                    "acc": v,
                    "num": sum(len(subjects[k]) for k in DOMAIN_CAT2SUB_CAT[d] if k in acc),
                }
                for d, v in domains.items()
            },
        },
    )


LMMS_EVAL = TaskProfile(
    name="lmms-eval",
    description="lmms-eval mmmu_pro: lmms-eval's MMMU tiers (standard), the raw response "
    "(vision); subjects instance-weighted, 5 decimals",
    reproduces=LMMS_EVAL_PIN.at("lmms_eval/tasks/mmmu_pro/utils.py"),
    toolkit=LMMS_EVAL_PIN.token,
    score=_lmms_score,
    aggregate=_lmms_aggregate,
    context=("options", "parsed_pred"),
    detail=lambda item: {"parsed": item.fields.get("parsed_pred")},
    choice=get_lineage("lmms_eval_mmmu"),
)


def _options(value: Any, where: str) -> dict[str, str]:
    # evaluate.py: ast.literal_eval(str(results["options"]))
    try:
        parsed = ast.literal_eval(str(value))
    except (ValueError, SyntaxError):
        raise InputError(f"{where}: options {str(value)[:60]!r} is not a list") from None
    if not isinstance(parsed, list | tuple) or not parsed:
        raise InputError(f"{where}: options must be a non-empty list")
    return {chr(ord("A") + i): str(v) for i, v in enumerate(parsed)}


def _check_answer(answer: str, options: Mapping[str, str], where: str, key: Any) -> None:
    """The answer letter must be one of the item's option letters (A, B, … one per option):
    evaluate.py compares the parsed letter with it (``parsed_pred == answer``), and the parse
    returns only an option letter, so the item could never be right; evaluate.py does not check
    it, the MathVision reader refuses the same."""
    if answer not in options:
        letters = f"{min(options)} to {max(options)}"
        raise InputError(
            f"{where}: id {key!r}: answer {answer!r} is not an option letter of its "
            f"{len(options)} options ({letters}): evaluate.py, which never checks it, would "
            "score the item wrong whatever the response"
        )


_PROMPT_OPTION = re.compile(r"^([A-Z])\. (.*)$")


def _prompt_options(prompt: Any) -> dict[str, str]:
    """The options of an lmms-eval prompt (``construct_prompt``: ``question``, then one line
    ``X. text`` per option from A on); ``{}`` when it has none (a vision prompt)."""
    if not isinstance(prompt, str):
        return {}
    found: dict[str, str] = {}
    for line in prompt.split("\n"):
        m = _PROMPT_OPTION.match(line)
        if m and m.group(1) == chr(ord("A") + len(found)):
            found[m.group(1)] = m.group(2)
        elif m and m.group(1) == "A":
            found = {"A": m.group(2)}  # a new run of options (an A. line inside the question)
    return found


def _read_lmms(inputs: TaskInputs, records: Records) -> TaskData | None:
    """An lmms-eval ``--log_samples`` file of ``mmmu_pro_*``: one item per sample (id, subject,
    answer, options; the logged ``mmmu_acc.parsed_pred`` kept to replay a random draw)."""
    preds = lmms_eval_predictions(records, inputs)
    if preds is None:
        return None
    items = []
    from_prompt = 0
    for row, text, where in zip(preds.records.rows, preds.texts, preds.wheres, strict=True):
        doc, rec = row.get("doc"), row.get("mmmu_acc")
        rec = rec if isinstance(rec, dict) else {}
        if isinstance(doc, dict):
            source: Mapping[str, Any] = doc
            options = (
                _options(doc["options"], where) if "question" in doc and "options" in doc else {}
            )
        elif rec:
            source = rec
            options = _prompt_options(row.get("input"))
            from_prompt += 1
        else:
            raise InputError(f"{where}: neither 'doc' nor an 'mmmu_acc' record: no ground truth")
        answer, subject = source.get("answer"), source.get("subject")
        if not isinstance(answer, str) or not isinstance(subject, str):
            raise InputError(f"{where}: needs 'answer' (the letter) and 'subject' as text")
        fields: dict[str, Any] = {"options": options, "subject": subject}
        if isinstance(rec.get("parsed_pred"), str):
            fields["logged_pred"] = rec["parsed_pred"]
            fields[TOOLKIT_SCORE] = float(rec["parsed_pred"] == answer)
        column = "doc.id" if source is doc else "mmmu_acc.id"
        key = row_id(source.get("id"), where, column)
        if options and source is doc:  # the doc's own options (a prompt's may be misread)
            _check_answer(answer, options, where, key)
        items.append(Item(str(key), "" if text is None else text, (answer,), fields))
    items, repeated = unique_items(items, preds.wheres, what="id", on_duplicate=inputs.on_duplicate)
    notes = [repeated] if repeated else []
    if from_prompt:
        notes.append(
            f"{records.source} logs no 'doc': the options of {from_prompt} sample(s) were read "
            "from the logged prompt ('input'); a prompt without 'A. …' lines is a vision sample"
        )
    return TaskData(
        items, (records.source,), (preds.layout,), tuple(notes), reported_scores(inputs)
    )


def _read(inputs: TaskInputs) -> TaskData:
    records = read_records(inputs.results, format=inputs.format, on_duplicate=inputs.on_duplicate)
    lmms = _read_lmms(inputs, records)
    if lmms is not None:
        return lmms
    records = named_columns(
        records, inputs.id_field, inputs.answer_field, id_column="id", answer_column="response"
    )
    need = {"id", "options", "answer", "response"}
    missing = need - set(records.columns)
    if missing:
        raise InputError(
            f"{records.source}: not an MMMU-Pro output file: no {', '.join(sorted(missing))} "
            "(records of id, options, answer, response)"
        )
    items = []
    objects: list[str] = []
    for i, row in enumerate(records.rows):
        where = records.where(i)
        key_id = row_id(row.get("id"), where, "id")
        response = row.get("response")
        if isinstance(response, dict):
            # QUIRK dict-response: evaluate.py reads a dict response (what a failed API call
            # left) as ''; an object is no model's answer, so it is the missing answer rule's
            if not inputs.allow_missing:
                raise InputError(
                    f"{where}: 'response' is a JSON object, not the model's answer (evaluate.py "
                    "reads it as ''); pass --allow-missing to score it so"
                )
            response = ""
            objects.append(where)
        if not isinstance(response, str):
            raise InputError(
                f"{where}: '{column_name(where, 'response')}' must be text, "
                f"got {type(response).__name__}"
            )
        answer = row.get("answer")
        if not isinstance(answer, str):
            raise InputError(f"{where}: 'answer' must be the option letter")
        fields: dict[str, Any] = {"options": _options(row.get("options"), where)}
        _check_answer(answer, fields["options"], where, key_id)
        for key in ("pred_indexs", "if_right"):
            if key in row:
                fields[key] = row[key]
        items.append(Item(str(key_id), response, (answer,), fields))
    wheres = [records.where(i) for i in range(len(records.rows))]
    items, repeated = unique_items(items, wheres, what="id", on_duplicate=inputs.on_duplicate)
    notes = [repeated] if repeated else []
    if objects:
        notes.append(
            f"{len(objects)} response(s) are JSON objects (first at {objects[0]}): read as the "
            "empty answer '', as evaluate.py reads them (--allow-missing)"
        )
    if len(items) != EXPECTED_ROWS:
        notes.append(
            f"{len(items)} rows: evaluate.py skips a file without exactly {EXPECTED_ROWS} "
            "(it prints an error and reports nothing); scored here anyway"
        )
    name = os.path.basename(records.source)
    m = _NAME.search(name)
    if m is None:
        notes.append(
            f"{name} is not named <model>_<standard|vision>_<cot|direct>.jsonl: evaluate.py "
            "would not read it"
        )
    extra = {"setting": m.group("setting"), "method": m.group("method")} if m else {}
    return TaskData(
        items,
        (records.source,),
        ("mmmu-pro jsonl",),
        tuple(notes),
        reported_scores(inputs),
        extra=extra,
        n_missing=len(objects),
    )


def _seed_option(inputs: TaskInputs) -> int | None:
    raw = inputs.options.get("fallback_seed")
    try:
        return None if raw in (None, "", "none") else int(raw)
    except (TypeError, ValueError):
        raise InputError(f"--fallback-seed must be an integer or 'none', got {raw!r}") from None


def _read_decided(inputs: TaskInputs) -> TaskData:
    """The rows read (:func:`_read`) with each letter decided in file order: the rules, else
    the file's recorded draw (``pred_indexs``) or one of ``Random(--fallback-seed)``, else
    unresolved (scored 0); said in notes, the counts in ``extra["signature"]``."""
    data = _read(inputs)
    lmms = TASK.profile(inputs.profile).name == "lmms-eval"
    rule = lmms_eval_mmmu if lmms else mmmu_pro_official
    if lmms != data.layouts[0].startswith("lmms-eval"):
        raise InputError(
            f"{data.sources[0]}: profile {TASK.profile(inputs.profile).name!r} scores "
            + ("an lmms-eval log" if lmms else "evaluate.py's output files")
            + "; this file is "
            + ("an lmms-eval log (use --profile lmms-eval)" if not lmms else "not one")
        )
    seed = _seed_option(inputs)
    rng = random.Random(seed) if seed is not None else None
    items = list(data.items)
    counts = {"drawn": 0, "replayed": 0, "unresolved": 0}
    for i, item in enumerate(items):
        options = item.fields["options"]
        if not options:  # an lmms-eval vision sample: the raw response is scored
            continue
        letter = rule(item.prediction or "", options)
        fields = dict(item.fields)
        if letter == RANDOM:
            fields["decided_at_random"] = True
            recorded = item.fields.get("pred_indexs", item.fields.get("logged_pred"))
            letter = fallback_letter(options, recorded, rng, counts)
        fields["parsed_pred"] = letter
        items[i] = replace(item, fields=fields)
    notes = list(data.notes)
    if counts["drawn"]:
        notes.append(
            f"{counts['drawn']} response(s) matched no rule: drawn from random.Random({seed}) "
            "in file order (the script's own generator is unseeded)"
        )
    if counts["replayed"]:
        notes.append(
            f"{counts['replayed']} response(s) matched no rule: the script's unseeded draw, "
            "recorded in the file (pred_indexs, or lmms-eval's mmmu_acc.parsed_pred), was used"
        )
    if counts["unresolved"]:
        notes.append(
            f"{counts['unresolved']} response(s) matched no rule and the script draws an "
            "UNSEEDED random letter there: not resolved, scored 0; pass --fallback-seed N"
        )
    setting = (("setting", data.extra.get("setting")), ("method", data.extra.get("method")))
    return with_decisions(data, items, notes, (*setting, *draw_fields(seed, counts)))


def _finish(evaluation: Any, inputs: TaskInputs) -> Any:
    """The file's own ``if_right`` (once the script scored it) checked against our scores,
    in a note."""
    data: TaskData = evaluation.data
    theirs = [
        (it.id, bool(it.fields["if_right"]), s == 1.0)
        for it, s in zip(data.items, evaluation.scores, strict=True)
        if isinstance(it.fields.get("if_right"), bool)
    ]
    if not theirs:
        return evaluation
    differ = [i for i, t, o in theirs if t != o]
    note = (
        f"the file's own if_right agrees with ours on all {len(theirs)} rows"
        if not differ
        else f"the file's own if_right differs from ours on {len(differ)} of {len(theirs)} "
        f"rows (e.g. {differ[0]!r})"
    )
    return replace(evaluation, data=replace(data, notes=(*data.notes, note)))


TASK = register_task(
    ChoiceTask(
        name="mmmu-pro",
        kind="multiple-choice",
        title="MMMU-Pro",
        metric="mmmu-pro-acc",
        description="10-option multiple choice (standard / vision settings)",
        profiles=(OFFICIAL, LMMS_EVAL),
        read=_read_decided,
        layouts=(
            "evaluate.py's <model>_<standard|vision>_<cot|direct>.jsonl (id, options, answer, "
            "response; pred_indexs / if_right once scored)",
            "lmms-eval --log_samples of mmmu_pro_standard / _vision (/_cot), with doc or "
            "without (the mmmu_acc record; options from the logged prompt)",
        ),
        aliases=("mmmu_pro",),
        annotations_optional=True,
        options=(("fallback-seed", "seed for the unseeded random letter (default: none)"),),
        extract_applies=False,
        finish=_finish,
    )
)
