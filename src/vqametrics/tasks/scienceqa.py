"""ScienceQA-IMG (the 2,017 test questions with an image): multiple choice, 2–5 options.

Profiles (spec ``mcq-reasoning.md`` §8):

* ``official`` — ``lupantech/ScienceQA@2cbf831`` ``run_gpt3.py``: ``The answer is X.`` exactly
  once, else a random option from ``random.seed(10)`` after the few-shot draw (QUIRK
  failed-is-random), accuracy × 100 with 2 decimals and the ``evaluate_acc.py`` breakdowns.
* ``llava`` / ``llava-5200b75`` — LLaVA's ``eval_science_qa.py`` (c121f04, main; 5200b75, the
  later variant): a failed answer is −1, a miss; accuracy × 100, 2 decimals.
* ``lmms-eval`` — ``scienceqa_img`` ``sqa_process_results`` (the bare letter in any case, or
  ``X.`` first), ``exact_match`` mean.
* ``vlmevalkit`` / ``vlmevalkit-2025`` / ``vlmevalkit-2024`` — ``ScienceQA_TEST``, generic MCQ
  (``can_infer`` of the era, the recorded judge, ``report_acc``). VILA-1.5-8B's sheet, written in
  2024, is reproduced column for column by ``vlmevalkit-2024``.

Inputs: a VLMEvalKit sheet (its ``_acc.csv`` and ``_{judge}_result.xlsx`` beside it are read);
an lmms-eval ``--log_samples`` file, with ``doc`` (every profile) or without it (only
``target``: the ``lmms-eval`` profile, which needs no options); LLaVA's answer file with
ScienceQA's ``problems.json`` / ``pid_splits.json`` (the whole test split; IMG-Accuracy over the
prompts with ``<image>``); ``run_gpt3.py``'s result JSON with the same folder (its recorded
indices, random draws included, scored as ``evaluate_acc.py`` does).
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.exceptions import InputError
from ..core.toolkits import LLAVA as LLAVA_PIN
from ..core.toolkits import LLAVA_5200B75 as LLAVA_5200B75_PIN
from ..core.toolkits import Pin
from ..kernels.choice import RANDOM, get_lineage
from ..kernels.choice.scienceqa import (
    OFFICIAL_SEED,
    OFFICIAL_SHOTS,
    llava_sqa,
    llava_sqa_5200b75,
    lmms_eval_scienceqa_hit,
    official_rng,
    scienceqa_official,
)
from ..readers.cells import named_columns, unused_fields
from ..readers.join import unique_rows
from ..readers.records import Records, read_records
from . import register_task
from ._base import Aggregate, Item, TaskData, TaskInputs, TaskProfile
from ._common import group_keys, mean_aggregate, reported_scores, ungrouped_note
from ._lmms import (
    TOOLKIT_SCORE,
    lmms_eval_predictions,
    sample_score,
    unique_doc_ids,
    unique_samples,
    without_questions,
)
from ._mcq import (
    ChoiceTask,
    decided_scorer,
    lmms_hit_profile,
    read_mcq_sheet,
    vlmevalkit_profiles,
    with_decisions,
)

__all__: list[str] = []

_FIELDS = ("category", "split", "subject", "grade", "topic", "question", "hint", "image")
#: the problems.json fields the official breakdowns read
_PROBLEM_FIELDS = ("subject", "grade", "topic", "category", "hint", "image")
_GRADES_1_6 = tuple(f"grade{i}" for i in range(1, 7))
_GRADES_7_12 = tuple(f"grade{i}" for i in range(7, 13))


def _gold(references: Sequence[str]) -> str:
    return references[0]


# ----- per-item scorers ----------------------------------------------------------------


#: 1.0 when the official letter (``parsed_pred`` when decided already) is the gold
_official_score = decided_scorer(
    scienceqa_official,
    task="scienceqa: the official rule",
    random_hint="the official rule reads no letter here and draws a random option; parse it "
    "with vqametrics.parse_choice(..., rng=...) or score the whole run (the draws are seeded "
    "there)",
)


def _llava_scorer(rule: Callable[[str, Mapping[str, str]], str | None]) -> Callable[..., float]:
    def score(
        prediction: str, references: Sequence[str], options: Mapping[str, str] | None = None
    ) -> float:
        if not options:
            raise InputError("scienceqa: LLaVA's rule needs options={'A': text, …}")
        letter = rule(prediction, options)
        return 1.0 if letter is not None and letter == _gold(references) else 0.0

    return score


# ----- aggregations --------------------------------------------------------------------


def _percent_of(scores: Sequence[float]) -> float:
    """``len(correct) / len(total) * 100``, as ``evaluate_acc.py`` / LLaVA compute it."""
    return sum(1 for s in scores if s == 1.0) / len(scores) * 100 if scores else float("nan")


#: ``evaluate_acc.py``'s ``topics`` list, in its order (each reported as ``acc_<topic>``)
_TOPICS = (
    "punctuation", "literacy-in-science", "verbs", "pronouns", "civics", "culture",
    "word-study", "economics", "physics", "units-and-measurement",
    "science-and-engineering-practices", "reading-comprehension", "global-studies", "grammar",
    "figurative-language", "us-history", "writing-strategies", "world-history",
    "reference-skills", "biology", "earth-science", "phonological-awareness", "capitalization",
    "chemistry", "vocabulary", "geography",
)  # fmt: skip


def _has(value: Any) -> bool:
    """``True if row[key] else False``: an empty hint or a missing image is no context."""
    return bool(value) and not (isinstance(value, float) and value != value)


def _official_breakdown(items: Sequence[Item], scores: Sequence[float]) -> dict[str, float | int]:
    """``get_scores``' keys, in its order: ``acc_natural`` / ``acc_social`` / ``acc_language``
    (subject, NAT/SOC/LAN), ``acc_has_text`` / ``acc_has_image`` / ``acc_no_context`` (TXT /
    IMG / NO: a non-empty hint, an image, neither; TXT and IMG overlap), ``acc_grade_1_6`` /
    ``acc_grade_7_12``, then ``acc_<topic>`` for each listed topic.

    QUIRK empty-is-minus-one: a condition no item meets reports ``-1``
    (``get_acc_with_contion``); kept, the official table prints it.
    """
    hit = [s == 1.0 for s in scores]

    def acc(keep: Sequence[bool]) -> float | int:
        total = sum(1 for k in keep if k)
        right = sum(1 for k, h in zip(keep, hit, strict=True) if k and h)
        return right / total * 100 if total else -1

    subject = [it.fields.get("subject") for it in items]
    grade = [it.fields.get("grade") for it in items]
    topic = [it.fields.get("topic") for it in items]
    text = [_has(it.fields.get("hint")) for it in items]
    image = [_has(it.fields.get("image")) for it in items]
    out: dict[str, float | int] = {
        "acc_natural": acc([s == "natural science" for s in subject]),
        "acc_social": acc([s == "social science" for s in subject]),
        "acc_language": acc([s == "language science" for s in subject]),
        "acc_has_text": acc(text),
        "acc_has_image": acc(image),
        "acc_no_context": acc([not t and not i for t, i in zip(text, image, strict=True)]),
        "acc_grade_1_6": acc([g in _GRADES_1_6 for g in grade]),
        "acc_grade_7_12": acc([g in _GRADES_7_12 for g in grade]),
    }
    for t in _TOPICS:
        out[f"acc_{t}"] = acc([x == t for x in topic])
    return out


#: the item fields the official breakdowns group by, and the metrics they give
_BREAKDOWN_FIELDS = (
    ("subject", "acc_natural / acc_social / acc_language"),
    ("grade", "acc_grade_*"),
    ("topic", "acc_<topic>"),
)


def _official_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``evaluate_acc.py`` ``get_scores``: ``acc_average`` = right / all × 100 and the
    official breakdowns (:func:`_official_breakdown`), percent, printed ``{:.2f}``; it asserts
    4,241 test rows, the IMG subset is 2,017. The breakdowns need the item's subject, grade,
    topic, hint and image (a VLMEvalKit sheet, a doc, or ``problems.json``); without them
    only ``acc_average`` is given."""
    average = _percent_of(scores)
    metrics: dict[str, float | int] = {"acc_average": average}
    notes: tuple[str, ...] = ()
    if any(it.fields.get("subject") is not None for it in items):
        # get_scores' order: the eight breakdowns, acc_average, then the topics
        parts = list(_official_breakdown(items, scores).items())
        metrics = dict(parts[:8]) | {"acc_average": average} | dict(parts[8:])
        for field, table in _BREAKDOWN_FIELDS:
            notes += ungrouped_note(items, group_keys(items, field), field, table)
        if any(it.fields.get("image_assumed") for it in items):
            notes += (
                "the sheet has no image column: VLMEvalKit's ScienceQA_TEST is the image "
                "subset, so every row counts as has_image (IMG) for acc_has_image / "
                "acc_no_context",
            )
    metrics["n"] = len(scores)
    metrics["random"] = sum(1 for it in items if it.fields.get("decided_at_random"))
    return Aggregate(
        metrics=metrics,
        headline="acc_average",
        units="percent",
        digits=2,
        notes=notes,
    )


def _llava_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``eval_science_qa.py``: ``Accuracy = correct / total * 100`` and ``IMG-Accuracy`` over
    the prompts that contain ``<image>``, printed with 2 decimals. Only LLaVA's own answer file
    carries the prompts; elsewhere every item is an IMG item and only Accuracy is given."""
    metrics: dict[str, float | int] = {"Accuracy": _percent_of(scores), "n": len(scores)}
    flags = [it.fields.get("is_multimodal") for it in items]
    if any(f is not None for f in flags):
        img = [s for f, s in zip(flags, scores, strict=True) if f]
        metrics["IMG-Accuracy"] = _percent_of(img)
        metrics["n_img"] = len(img)
    return Aggregate(metrics=metrics, headline="Accuracy", units="percent", digits=2)


def _letter_detail(rule: Callable[..., str | None]) -> Callable[[Item], Mapping[str, Any]]:
    def detail(item: Item) -> Mapping[str, Any]:
        if "parsed_pred" in item.fields:
            return {"letter": item.fields["parsed_pred"]}
        options = item.fields.get("options")
        if item.prediction is None or not options:
            return {}
        return {"letter": rule(item.prediction, options)}

    return detail


OFFICIAL = TaskProfile(
    name="official",
    description="ScienceQA run_gpt3.py: 'The answer is X.' exactly once, else a random option "
    "(random.seed(10) after the 3-shot draw); accuracy x 100",
    reproduces="lupantech/ScienceQA@2cbf831 models/run_gpt3.py + tools/evaluate_acc.py",
    toolkit="ScienceQA@2cbf831",
    score=_official_score,
    aggregate=_official_aggregate,
    context=("options", "parsed_pred"),
    detail=_letter_detail(scienceqa_official),
    choice=get_lineage("scienceqa_official"),
)


def _llava_profile(
    name: str,
    description: str,
    pin: Pin,
    rule: Callable[[str, Mapping[str, str]], str | None],
    lineage: str,
) -> TaskProfile:
    """A LLaVA ``eval_science_qa.py`` profile at *pin*: its letter *rule* scores the item
    and names the letter in the detail."""
    return TaskProfile(
        name=name,
        description=description,
        reproduces=pin.at("llava/eval/eval_science_qa.py"),
        toolkit=pin.token,
        score=_llava_scorer(rule),
        aggregate=_llava_aggregate,
        context=("options",),
        detail=_letter_detail(rule),
        choice=get_lineage(lineage),
    )


LLAVA = _llava_profile(
    "llava",
    "LLaVA eval_science_qa.py (main): bare A-E, 'X. ', or 'The answer is X.' "
    "once; a failed answer is a miss (-1), options fixed to A-E",
    LLAVA_PIN,
    llava_sqa,
    "llava_eval_science_qa",
)
LLAVA_5200B75 = _llava_profile(
    "llava-5200b75",
    "LLaVA eval_science_qa.py (5200b75): newlines -> '. ', also 'The answer is X' without the dot",
    LLAVA_5200B75_PIN,
    llava_sqa_5200b75,
    "llava_eval_science_qa_5200b75",
)
# sqa_process_results against the target letter (no options needed); lmms-eval's ``mean`` of
# exact_match, sum / len left to right (0.0 for no items, as this profile always gave)
LMMS_EVAL = lmms_hit_profile(
    "scienceqa",
    lmms_eval_scienceqa_hit,
    "lmms_eval_scienceqa_img",
    "lmms-eval scienceqa_img: the letter (any case) or an upper-case 'X.' start equals the "
    "target; exact_match mean",
    mean_aggregate("exact_match"),
)


# ----- reading -------------------------------------------------------------------------


def _lmms_items(inputs: TaskInputs, records: Records) -> TaskData | None:
    """An lmms-eval ``scienceqa_img`` log's items, each ``doc_id`` (the item id) once: a
    repeated record or a doc_id logged again with another doc is an error naming both lines,
    unless ``--on-duplicate last``."""
    preds = lmms_eval_predictions(records, inputs)
    if preds is None:
        return None
    preds, repeated = unique_samples(preds, inputs.on_duplicate)
    preds, redone = unique_doc_ids(preds, inputs.on_duplicate)
    items = []
    no_doc = 0
    for row, text, where in zip(preds.records.rows, preds.texts, preds.wheres, strict=True):
        doc = row.get("doc")
        fields: dict[str, Any] = {}
        recorded = sample_score(row, ("exact_match",))
        if recorded is not None:
            fields[TOOLKIT_SCORE] = recorded
        key = row.get("doc_id")
        if not isinstance(key, int) or isinstance(key, bool):
            raise InputError(f"{where}: 'doc_id' must be an integer")
        if isinstance(doc, dict):
            choices = doc.get("choices")
            answer = doc.get("answer")
            if not isinstance(choices, list) or not all(isinstance(c, str) for c in choices):
                raise InputError(f"{where}: doc 'choices' must be a list of strings")
            if not isinstance(answer, int) or not 0 <= answer < len(choices):
                raise InputError(f"{where}: doc 'answer' {answer!r} is not an index of choices")
            fields["options"] = {chr(ord("A") + i): c for i, c in enumerate(choices)}
            fields.update({f: doc[f] for f in _FIELDS if isinstance(doc.get(f), str)})
            gold = chr(ord("A") + answer)
        else:
            no_doc += 1
            target = row.get("target")
            if not isinstance(target, str) or not target.strip():
                raise InputError(f"{where}: no doc and no 'target' letter")
            gold = target
        items.append(Item(key, text, (gold,), fields))
    notes = [n for n in (repeated, redone) if n]
    if no_doc:
        notes.append(
            f"{records.source} logs no 'doc': each sample is scored against its logged target "
            "letter (the lmms-eval rule needs nothing else); the other profiles need the "
            "options of a log with doc or a VLMEvalKit sheet"
        )
    data = TaskData(
        items,
        (records.source,),
        (preds.layout,),
        tuple(notes),
        reported_scores(inputs),
        extra={"no_doc": no_doc},
    )
    return without_questions(_image_subset(data), inputs)


def _problems(inputs: TaskInputs) -> tuple[dict[str, Any], list[str], str]:
    """ScienceQA's ``problems.json`` and the test ids of ``pid_splits.json`` (LLaVA's
    ``--base-dir``): ``--annotations`` is the folder or ``problems.json`` beside it."""
    base = Path(os.fspath(inputs.annotations))
    problems_path = base / "problems.json" if base.is_dir() else base
    splits_path = problems_path.parent / "pid_splits.json"
    for path in (problems_path, splits_path):
        if not path.is_file():
            raise InputError(
                f"{path}: not found; --annotations is ScienceQA's data folder (problems.json "
                "and pid_splits.json, LLaVA's --base-dir) or its problems.json"
            )
    try:
        problems = json.loads(problems_path.read_text(encoding="utf-8"))
        splits = json.loads(splits_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"{problems_path.parent}: not JSON ({exc.msg})") from None
    if not isinstance(problems, dict) or not isinstance(splits, dict) or "test" not in splits:
        raise InputError(
            f"{problems_path}: expected {{pid: problem}} and pid_splits.json with a 'test' list"
        )
    return problems, [str(p) for p in splits["test"]], str(problems_path)


def _read_llava(inputs: TaskInputs, records: Records) -> TaskData:
    """LLaVA's ``model_vqa_science.py`` answers (``question_id``, ``prompt``, ``text``) scored
    over ScienceQA's test split as ``eval_science_qa.py`` does (all 4,241 problems)."""
    problems, test_ids, source = _problems(inputs)
    wheres = [records.where(i) for i in range(len(records.rows))]
    qids = [str(row.get("question_id")) for row in records.rows]
    keep, repeated = unique_rows(qids, wheres, what="question_id", on_duplicate=inputs.on_duplicate)
    by_id: dict[str, tuple[str, str]] = {}
    for i in keep:
        text, prompt = records.rows[i].get("text"), records.rows[i].get("prompt")
        if not isinstance(text, str):
            raise InputError(f"{wheres[i]}: 'text' must be the model's answer text")
        by_id[qids[i]] = (text, prompt if isinstance(prompt, str) else "")
    items = []
    missing = 0
    for pid in test_ids:
        prob = problems.get(pid)
        if not isinstance(prob, dict):
            raise InputError(f"{source}: test problem {pid!r} is not in problems.json")
        choices, answer = prob.get("choices"), prob.get("answer")
        if not isinstance(choices, list) or not isinstance(answer, int):
            raise InputError(f"{source}: problem {pid!r} needs 'choices' and an 'answer' index")
        fields: dict[str, Any] = {
            "options": {chr(ord("A") + i): str(c) for i, c in enumerate(choices)},
            **{f: prob[f] for f in _PROBLEM_FIELDS if prob.get(f)},
        }
        pred = by_id.get(pid)
        if pred is None:
            missing += 1
            fields["is_multimodal"] = False  # LLaVA: prompt 'Unknown'
        else:
            fields["is_multimodal"] = "<image>" in pred[1]
        gold = "ABCDE"[answer] if 0 <= answer < 5 else str(answer)
        items.append(Item(pid, None if pred is None else pred[0], (gold,), fields))
    if missing and not inputs.allow_missing:
        raise InputError(
            f"{records.source}: no answer for {missing} of the {len(test_ids)} test problems "
            "(LLaVA scores them FAILED, a miss: pass --allow-missing to do the same)"
        )
    extra = set(by_id) - set(test_ids)
    notes = [repeated] if repeated else []
    if extra:
        notes.append(f"{len(extra)} answer(s) for problems outside the test split were ignored")
    if missing:
        notes.append(f"{missing} test problem(s) had no answer and scored 0 (LLaVA: FAILED)")
    return TaskData(
        items,
        (source, records.source),
        ("llava-answers",),
        tuple(notes),
        reported_scores(inputs),
        n_missing=missing,
        n_extra_ignored=len(extra),
    )


def _official_result(inputs: TaskInputs) -> dict[str, Any] | None:
    """``run_gpt3.py``'s result file (``{acc, correct, count, results: {pid: index}, outputs:
    {pid: text}}``), or ``None`` when *inputs.results* is not one."""
    src = inputs.results
    if not isinstance(src, str | os.PathLike) or os.fspath(src) == "-":
        return None
    path = Path(src)
    if path.suffix.lower() != ".json" or not path.is_file():
        return None
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(value, dict) or not {"results", "outputs"} <= set(value):
        return None
    ok = isinstance(value["results"], dict) and isinstance(value["outputs"], dict)
    return value if ok else None


def _read_official(inputs: TaskInputs, value: Mapping[str, Any]) -> TaskData:
    """The official result file with ``--annotations`` ScienceQA's folder: each problem's
    output, and the index ``run_gpt3.py`` decided (its random draws included)."""
    source = os.fspath(inputs.results)
    if inputs.annotations is None:
        raise InputError(
            f"{source}: run_gpt3.py's result file holds predicted indices only; pass "
            "--annotations ScienceQA's data folder (problems.json, pid_splits.json)"
        )
    problems, _, problems_source = _problems(inputs)
    items = []
    for pid, index in value["results"].items():
        prob = problems.get(str(pid))
        if not isinstance(prob, dict):
            raise InputError(f"{source}: problem {pid!r} is not in {problems_source}")
        choices, answer = prob.get("choices"), prob.get("answer")
        if not isinstance(choices, list) or not isinstance(answer, int):
            raise InputError(f"{problems_source}: problem {pid!r} needs choices and an answer")
        if isinstance(index, bool) or not isinstance(index, int):
            raise InputError(f"{source}: results[{pid!r}] is {index!r}, not an option index")
        output = value["outputs"].get(pid)
        if not isinstance(output, str):
            raise InputError(f"{source}: outputs[{pid!r}] is missing or not text")
        fields: dict[str, Any] = {
            "options": {chr(ord("A") + i): str(c) for i, c in enumerate(choices)},
            "recorded_pred": chr(ord("A") + index) if 0 <= index < 26 else str(index),
            **{f: prob[f] for f in _PROBLEM_FIELDS if prob.get(f)},
        }
        items.append(Item(str(pid), output, (chr(ord("A") + answer),), fields))
    return TaskData(
        items,
        (problems_source, source),
        ("scienceqa-official-result",),
        (),
        reported_scores(inputs),
    )


def _read(inputs: TaskInputs) -> TaskData:
    official = _official_result(inputs)
    if official is not None:
        unused_fields(inputs.id_field, inputs.answer_field, "run_gpt3.py's result file")
        return _read_official(inputs, official)
    records = read_records(inputs.results, format=inputs.format, on_duplicate=inputs.on_duplicate)
    lmms = _lmms_items(inputs, records)
    if lmms is not None:
        return lmms
    if inputs.annotations is not None:
        llava = named_columns(
            records,
            inputs.id_field,
            inputs.answer_field,
            id_column="question_id",
            answer_column="text",
        )
        if {"question_id", "text"} <= set(llava.columns):
            return _read_llava(inputs, llava)
    return _image_subset(read_mcq_sheet(inputs, fields=_FIELDS, records=records))


def _image_subset(data: TaskData) -> TaskData:
    """A file of the image subset (VLMEvalKit's ``ScienceQA_TEST``, lmms-eval's
    ``scienceqa_img``) that carries no image column: each item has an image, marked so the
    official ``acc_has_image`` / ``acc_no_context`` count it (and a note says so)."""
    if any(it.fields.get("image") is not None for it in data.items):
        return data
    items = [
        replace(it, fields={**it.fields, "image": True, "image_assumed": True}) for it in data.items
    ]
    return replace(data, items=items)


# ----- the run: the official random draws made explicit --------------------------------


def _seed_option(inputs: TaskInputs) -> tuple[int | None, int]:
    raw = inputs.options.get("fallback_seed")
    shots_raw = inputs.options.get("shots")
    try:
        shots = OFFICIAL_SHOTS if shots_raw in (None, "") else int(shots_raw)
    except (TypeError, ValueError):
        raise InputError(f"--shots must be an integer, got {shots_raw!r}") from None
    if raw is None or raw == "":
        return OFFICIAL_SEED, shots
    if isinstance(raw, str) and raw.lower() == "none":
        return None, shots
    try:
        return int(raw), shots
    except (TypeError, ValueError):
        raise InputError(f"--fallback-seed must be an integer or 'none', got {raw!r}") from None


def _decide_official(data: TaskData, inputs: TaskInputs) -> TaskData:
    """The official profile's letters, decided in file order: the rule, else the result
    file's recorded draw, else one of ``official_rng(--fallback-seed, --shots)``, else
    unresolved (scored 0); a recorded index overrides the rule, as ``evaluate_acc.py``
    scores it. Said in notes; the signature fields go to ``extra["signature"]``."""
    seed, shots = _seed_option(inputs)
    rng: random.Random | None = official_rng(seed, shots) if seed is not None else None
    items = list(data.items)
    drawn = unresolved = replayed = differ = 0
    for i, item in enumerate(items):
        options = item.fields.get("options")
        if item.prediction is None or not options:
            continue
        letter = scienceqa_official(item.prediction, options)
        recorded = item.fields.get("recorded_pred")
        fields = dict(item.fields)
        if letter == RANDOM:
            fields["decided_at_random"] = True
            if isinstance(recorded, str):
                letter = recorded  # run_gpt3.py's own draw, written in its result file
                replayed += 1
            elif rng is not None:
                letter = scienceqa_official(item.prediction, options, rng)
                drawn += 1
            else:
                unresolved += 1
        elif isinstance(recorded, str):
            # evaluate_acc.py scores the recorded index, whatever the output says
            differ += recorded != letter
            letter = recorded
        fields["parsed_pred"] = letter
        items[i] = replace(item, fields=fields)
    notes = list(data.notes)
    if replayed:
        notes.append(
            f"{replayed} output(s) gave no 'The answer is X.' in range: run_gpt3.py drew a "
            "random option for them and its result file records it; that draw was used"
        )
    if differ:
        notes.append(
            f"{differ} recorded prediction(s) differ from the letter the rule reads in the "
            "output; the recorded ones are scored, as evaluate_acc.py does (the file may "
            "come from another version of run_gpt3.py)"
        )
    if drawn:
        notes.append(
            f"{drawn} response(s) gave no 'The answer is X.' in range and were decided at "
            f"random: random.Random({seed}) after the {shots}-shot draw, in file order "
            "(run_gpt3.py's sequence when the file is its whole run in its order)"
        )
    if unresolved:
        notes.append(
            f"{unresolved} response(s) reach the official random fallback, unseeded here: "
            "NOT resolved, scored 0"
        )
    signature = (
        ("fallback-seed", seed if seed is not None else "none"),
        ("shots", shots),
        ("random", drawn + unresolved + replayed),
        ("replayed", replayed or None),
    )
    return with_decisions(data, items, notes, signature)


def _read_for_profile(inputs: TaskInputs) -> TaskData:
    """The items read (:func:`_read`) as the profile being scored (``inputs.profile``) needs
    them: a log without ``doc`` only for the ``lmms-eval`` profile; the official profile's
    letters, random draws included, decided over the whole run (:func:`_decide_official`)."""
    name = TASK.profile(inputs.profile).name
    data = _read(inputs)
    if name != "lmms-eval" and data.extra.get("no_doc"):
        raise InputError(
            f"{data.sources[0]}: an lmms-eval log without 'doc' has no options; profile "
            f"{name!r} needs them (score it with --profile lmms-eval, or give a log "
            "written with its doc)"
        )
    return _decide_official(data, inputs) if name == "official" else data


TASK = register_task(
    ChoiceTask(
        name="scienceqa",
        kind="multiple-choice",
        title="ScienceQA-IMG",
        metric="scienceqa-acc",
        description="science multiple choice with an image (2-5 options)",
        profiles=(OFFICIAL, LLAVA, LLAVA_5200B75, LMMS_EVAL, *vlmevalkit_profiles("ScienceQA")),
        read=_read_for_profile,
        layouts=(
            "VLMEvalKit sheet {model}_ScienceQA_TEST.xlsx (index, question, A-E, answer, "
            "category, prediction), its _acc.csv and _{judge}_result.xlsx beside it",
            "lmms-eval --log_samples JSONL of scienceqa_img (with doc; without doc: "
            "--profile lmms-eval, scored against target)",
            "LLaVA answers JSONL (question_id, prompt, text) + --annotations ScienceQA's "
            "folder (problems.json, pid_splits.json): the whole test split, as LLaVA scores it",
            "run_gpt3.py's result JSON (results: pid -> index, outputs) + --annotations "
            "ScienceQA's folder: its recorded random draws replayed",
        ),
        aliases=("scienceqa-img", "scienceqa_img", "sqa"),
        annotations_optional=True,
        options=(
            ("judge-record", "VLMEvalKit's _{judge}_result.xlsx (default: beside the sheet)"),
            ("fallback-seed", "official profile: seed of the random fallback (default 10)"),
            ("shots", "official profile: few-shot examples drawn first (default 3)"),
        ),
        extract_applies=False,
        reported_names={"exact_match": "exact_match"},
    )
)
