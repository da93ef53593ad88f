"""MME: 14 yes/no perception and cognition tasks, two questions per image, scored in points.

The official scorer is ``eval_tool/calculation.py`` (BradyFU/Awesome-Multimodal-Large-Language-
Models, branch ``Evaluation`` @ dd29509; spec vqa-family §8). Per task file, ``acc`` is the
share of right answers and ``acc+`` the share of images (consecutive line pairs) with both
right; the task score is ``acc·100 + acc+·100`` (0–200) and the group totals (Perception, 10
tasks, max 2000; Cognition, 4 tasks, max 800) add the task scores in the script's list order.

Official quirks, kept because published MME numbers were computed with them:

* QUIRK newline-in-window: the response is the 4th tab-separated column *with* the line's
  trailing ``\\n``; ``yes``/``no`` are looked for in its first 4 lower-cased characters, so ``y``
  (``"y\\n"``) and ``"  yes"`` are "other", and ``know``/``snow``/``none`` are "no".
* QUIRK pairs-by-position: acc+ pairs consecutive lines, not lines of the same image; a file
  with an odd number of lines fails the script's assertion (an :class:`MmeInputError` here).
* QUIRK tab-splits-response: ``line.split('\\t')`` must give 4 fields, so a tab inside a
  response breaks the script (an error naming the file and line here).
* QUIRK all-other-crash: a task in which every response parses as "other" crashes inside
  scikit-learn (metrics computed but never reported); :class:`MmeScoreError` here.
* Float order: ``0 + acc·100 + acc+·100`` then left-to-right sums in the listed task order,
  which is why LaVIN's perception is 963.6114445778312 here and …311 in lmms-eval.
"""

from __future__ import annotations

import io
import os
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from .._exceptions import InputError
from ..load.layouts import is_vlmevalkit
from ..load.records import Records, cell_text, read_bytes_from, read_records
from . import register_task
from ._base import Aggregate, Item, Task, TaskData, TaskInputs, TaskProfile
from ._common import numpy_mean, read_vlmevalkit
from ._yesno import TO_YES_NO, parsed_detail, yorn_extraction

__all__ = [
    "COGNITION",
    "PERCEPTION",
    "MmeInputError",
    "MmeScoreError",
    "parse_lmms_eval",
    "parse_official",
    "parse_vlmevalkit",
    "read_task_file",
]

#: the official task lists, in ``calculation.py``'s order (the order of its sums)
PERCEPTION = (
    "existence",
    "count",
    "position",
    "color",
    "posters",
    "celebrity",
    "scene",
    "landmark",
    "artwork",
    "OCR",
)
COGNITION = ("commonsense_reasoning", "numerical_calculation", "text_translation", "code_reasoning")
GROUPS = (("perception", PERCEPTION), ("cognition", COGNITION))
TASKS = PERCEPTION + COGNITION
_GROUP_OF = {t: g for g, ts in GROUPS for t in ts}

#: the prompt pieces LLaVA's ``convert_answer_to_mme.py`` removes and re-attaches
_LLAVA_HINT = "Answer the question using a single word or phrase."
_YES_NO = " Please answer yes or no."


class MmeInputError(InputError):
    """An eval_tool file ``calculation.py`` cannot read: odd line count, ≠ 4 fields, bad GT."""


class MmeScoreError(InputError):
    """The reproduced scorer fails here (every response "other"; an image without 2 answers)."""


# ---------------------------------------------------------------------------- parsing


@lru_cache(maxsize=65536)
def parse_official(text: str) -> str:
    """``calculation.py``'s ``parse_pred_ans`` on the lower-cased response: itself when it is
    ``yes``/``no``, else ``yes`` if ``"yes"`` is in its first 4 characters, else ``no`` if
    ``"no"`` is, else ``other`` (QUIRK newline-in-window: pass the ``\\n`` if the file has it).

    >>> parse_official("Yes\\n"), parse_official("know"), parse_official("  yes")
    ('yes', 'no', 'other')
    """
    pred = text.lower()
    if pred in ("yes", "no"):
        return pred
    head = pred[:4]
    if "yes" in head:
        return "yes"
    if "no" in head:
        return "no"
    return "other"


@lru_cache(maxsize=65536)
def parse_lmms_eval(text: str) -> str:
    """lmms-eval's ``parse_pred_ans``: lower, strip, delete every ``.``; exact yes/no; a single
    ``y``/``n`` is yes/no (any other single character is other); then the 4-character rule."""
    pred = text.lower().strip().replace(".", "")
    if pred in ("yes", "no"):
        return pred
    if len(pred) == 1:
        return {"y": "yes", "n": "no"}.get(pred, "other")
    head = pred[:4]
    if "yes" in head:
        return "yes"
    if "no" in head:
        return "no"
    return "other"


def parse_vlmevalkit(text: str) -> str:
    """VLMEvalKit's ``YOrN_Extraction`` as ``yes``/``no``/``other`` (``Unknown`` → other)."""
    return TO_YES_NO[yorn_extraction(text)]


# ---------------------------------------------------------------------------- per item


def _score_official(prediction: str, references: Sequence[str]) -> float:
    """1.0 when the parsed response equals the lower-cased GT (``other`` is wrong)."""
    return 1.0 if parse_official(prediction) == references[0].lower() else 0.0


def _score_lmms(prediction: str, references: Sequence[str]) -> float:
    """1.0 when lmms-eval's parse equals the GT lower-cased, stripped, without ``.``."""
    gt = references[0].lower().strip().replace(".", "")
    return 1.0 if parse_lmms_eval(prediction) == gt else 0.0


def _score_vlm(prediction: str, references: Sequence[str]) -> float:
    """1.0 when ``YOrN_Extraction`` equals the GT (``Unknown`` is wrong without a judge)."""
    return 1.0 if parse_vlmevalkit(prediction) == references[0].strip().lower() else 0.0


# ---------------------------------------------------------------------------- aggregation


def _by_task(items: Sequence[Item]) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {}
    for i, item in enumerate(items):
        groups.setdefault(str(item.fields.get("category")), []).append(i)
    return groups


def official_task_score(
    gts: Sequence[str], parsed: Sequence[str], task: str = "task"
) -> dict[str, float | int]:
    """One task's ``acc``, ``acc_plus`` and ``score = 0 + acc·100 + acc_plus·100``.

    *gts* are the lower-cased GT answers and *parsed* the parsed responses, in file order;
    acc+ pairs consecutive lines (QUIRK pairs-by-position).
    """
    n = len(gts)
    if n % 2:
        raise MmeScoreError(
            f"{task}: {n} questions, an odd number: calculation.py pairs consecutive lines "
            "(two questions per image) and asserts each pair is complete"
        )
    if all(p == "other" for p in parsed):
        raise MmeScoreError(
            f"{task}: every response parses as 'other': the official calculation.py crashes "
            "here (scikit-learn's precision on empty input, a metric it never reports)"
        )
    right = [g == p for g, p in zip(gts, parsed, strict=True)]
    acc = sum(right) / n
    both = sum(1 for i in range(0, n, 2) if right[i] and right[i + 1])
    acc_plus = both / (n // 2)
    score = 0.0
    score += acc * 100
    score += acc_plus * 100
    return {
        "score": score,
        "acc": acc,
        "acc_plus": acc_plus,
        "other": sum(1 for p in parsed if p == "other"),
        "n": n,
    }


def _totals(
    task_scores: Mapping[str, float], groups: Sequence[tuple[str, Sequence[str]]]
) -> tuple[dict[str, float | int], list[str]]:
    """Left-to-right sums of the task scores in each group's order; groups with no task
    present are left out, partial groups are noted."""
    metrics: dict[str, float | int] = {}
    notes = []
    for name, tasks in groups:
        present = [t for t in tasks if t in task_scores]
        if not present:
            continue
        total: float = 0
        for t in present:
            total += task_scores[t]
        metrics[name] = total
        if len(present) < len(tasks):
            missing = ", ".join(t for t in tasks if t not in task_scores)
            notes.append(f"{name} sums {len(present)} of {len(tasks)} tasks (missing: {missing})")
    return metrics, notes


def _split_pairs(items: Sequence[Item], groups: Mapping[str, list[int]]) -> list[str]:
    """A note per task whose consecutive line pairs name two images: QUIRK pairs-by-position
    pairs them anyway, so acc+ is not per image there (lines out of order, or one question of
    an image without an answer)."""
    notes = []
    for task, idx in groups.items():
        images = [items[i].fields.get("image") for i in idx]
        split = [
            k // 2 + 1
            for k in range(0, len(images) - 1, 2)
            if images[k] is not None and images[k] != images[k + 1]
        ]
        if split:
            notes.append(
                f"{task}: {len(split)} line pair(s) name two different images (first: pair "
                f"{split[0]}); calculation.py pairs consecutive lines, so acc+ pairs them anyway"
            )
    return notes


def _aggregate_official(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    groups = _by_task(items)
    per_task: dict[str, dict[str, float | int]] = {}
    for task in [t for t in TASKS if t in groups] + [t for t in groups if t not in _GROUP_OF]:
        idx = groups[task]
        gts = [items[i].references[0].lower() for i in idx]
        parsed = [parse_official(items[i].prediction or "") for i in idx]
        per_task[task] = official_task_score(gts, parsed, task)
    metrics, notes = _totals({t: float(v["score"]) for t, v in per_task.items()}, GROUPS)
    notes.extend(_split_pairs(items, groups))
    unknown = [t for t in per_task if t not in _GROUP_OF]
    if unknown:
        notes.append(f"task(s) {', '.join(unknown)} are in no MME group and in no total")
    return Aggregate(
        metrics=metrics,
        headline="perception" if "perception" in metrics else next(iter(metrics), "perception"),
        units="points",
        digits=2,
        breakdowns={"task": per_task},
        notes=tuple(notes),
    )


def _aggregate_lmms(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``mme_aggregate_results``: per category (first-seen order), per image ``acc_i + acc+_i``
    with ``acc_i = Σscores/2·100``, ``acc+_i = (Σscores == 2)·100``, averaged over images; the
    group score sums the categories in first-seen order."""
    per_cat: dict[str, dict[str, float | int]] = {}
    for cat, idx in _by_task(items).items():
        images: dict[Hashable, list[float]] = {}
        for i in idx:
            images.setdefault(str(items[i].fields.get("image")), []).append(scores[i])
        total = 0.0
        for image, sc in images.items():
            if len(sc) != 2:
                raise MmeScoreError(
                    f"{cat}: image {image} has {len(sc)} answers; lmms-eval asserts exactly 2"
                )
            s = sum(sc)
            acc = s / len(sc) * 100.0
            plus = (s == 2) * 100.0
            total += plus + acc
        per_cat[cat] = {"score": total / len(images), "n": len(idx)}
    metrics: dict[str, float | int] = {}
    for name, tasks in GROUPS:
        present = [c for c in per_cat if c in tasks]
        if present:
            acc_sum: float = 0
            for c in present:
                acc_sum += per_cat[c]["score"]
            metrics[name] = acc_sum
    return Aggregate(
        metrics=metrics,
        headline="perception" if "perception" in metrics else next(iter(metrics), "perception"),
        units="points",
        digits=2,
        breakdowns={"category": per_cat},
    )


#: VLMEvalKit's ``MME_rating`` super-categories; it sums them in this (sorted) order
_VLM_GROUPS = (("perception", tuple(sorted(PERCEPTION))), ("reasoning", tuple(sorted(COGNITION))))


def _aggregate_vlm(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``MME_rating``: per category, rows grouped by ``image_path``; ``np.mean(all)·100 +
    np.mean(first·second per image)·100``; ``perception``/``reasoning`` sum the categories in
    sorted order."""
    per_cat: dict[str, dict[str, float | int]] = {}
    for cat, idx in _by_task(items).items():
        images: dict[Hashable, list[float]] = {}
        for i in idx:
            images.setdefault(str(items[i].fields.get("image")), []).append(scores[i])
        flat = [s for sc in images.values() for s in sc]
        plus = []
        for image, sc in images.items():
            if len(sc) < 2:
                raise MmeScoreError(
                    f"{cat}: image {image} has {len(sc)} answer; VLMEvalKit multiplies the "
                    "first two"
                )
            plus.append(sc[0] * sc[1])
        per_cat[cat] = {"score": numpy_mean(flat) * 100 + numpy_mean(plus) * 100, "n": len(idx)}
    per_cat = {c: per_cat[c] for c in sorted(per_cat)}
    metrics, notes = _totals({c: float(v["score"]) for c, v in per_cat.items()}, _VLM_GROUPS)
    unknown = sum(
        1
        for it in items
        if it.prediction is not None and parse_vlmevalkit(it.prediction) == "other"
    )
    if unknown:
        notes.append(
            f"{unknown} response(s) are neither yes nor no to YOrN_Extraction: VLMEvalKit asks an "
            "LLM judge about them; without one (as here) they are wrong"
        )
    return Aggregate(
        metrics=metrics,
        headline="perception" if "perception" in metrics else next(iter(metrics), "perception"),
        units="points",
        digits=2,
        breakdowns={"category": per_cat},
        notes=tuple(notes),
    )


# ---------------------------------------------------------------------------- reading


def read_task_file(
    path: str | os.PathLike[str], *, need_response: bool
) -> list[tuple[str, str, str, str | None, str]]:
    """The lines of one eval_tool ``<task>.txt`` as ``(image, question, gt, response, where)``.

    The response keeps the line's trailing newline (QUIRK newline-in-window). With
    *need_response*, every line must have 4 tab-separated fields (``calculation.py``'s
    ``split('\\t')``); otherwise 3 (``Your_Results``) or 4. The GT must be yes/no in any case.
    """
    name, data, _ = read_bytes_from(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MmeInputError(f"{name}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    # readlines() in text mode: only \n, \r\n and \r end a line (each read as \n), never the
    # other breaks str.splitlines() knows (\f, \x85, U+2028, …), which stay in the response
    lines = io.StringIO(text, newline=None).readlines()
    out = []
    for n, line in enumerate(lines, 1):
        where = f"{name}: line {n}"
        fields = line.split("\t")
        if len(fields) == 4:
            img, question, gt, response = fields
            resp: str | None = response
        elif len(fields) == 3 and not need_response:
            img, question, gt = fields
            gt = gt.rstrip("\r\n")
            resp = None
        elif len(fields) == 3:
            raise MmeInputError(
                f"{where}: 3 tab-separated fields (image, question, GT) and no response: this "
                "is ground truth (Your_Results); pass it as --annotations with the model's "
                "answers as --results"
            )
        else:
            extra = " (a tab inside the response?)" if len(fields) > 4 else ""
            raise MmeInputError(
                f"{where}: {len(fields)} tab-separated fields{extra}; calculation.py needs "
                "image, question, GT, response"
            )
        if gt.lower() not in ("yes", "no"):
            raise MmeInputError(f"{where}: ground truth {gt!r} is not yes/no")
        out.append((img, question, gt, resp, where))
    if need_response and len(out) % 2:
        raise MmeInputError(
            f"{name}: {len(out)} lines, an odd number: calculation.py pairs consecutive lines "
            "(two questions per image)"
        )
    return out


def _task_files(folder: Path) -> dict[str, Path]:
    files = {p.stem: p for p in sorted(folder.glob("*.txt"))}
    if not files:
        raise MmeInputError(
            f"{folder}: no <task>.txt files (expected the eval_tool layout: existence.txt, "
            "count.txt, …, code_reasoning.txt)"
        )
    return files


def _read(inputs: TaskInputs) -> TaskData:
    src = inputs.results
    if isinstance(src, str | os.PathLike) and Path(src).is_dir():
        return _read_folder(Path(src), inputs)
    if isinstance(src, str | os.PathLike) and Path(src).suffix.lower() in (".xlsx", ".tsv", ".csv"):
        return _read_vlmevalkit(inputs)
    records = read_records(src, format=inputs.format)
    if is_vlmevalkit(records) and "answer" in records.columns:
        return _read_vlmevalkit(inputs, records)
    return _read_llava(records, inputs)


def _read_folder(folder: Path, inputs: TaskInputs) -> TaskData:
    """An eval_tool results folder: ``<task>.txt`` with the response as the 4th column."""
    files = _task_files(folder)
    missing = [t for t in TASKS if t not in files]
    notes: list[str] = []
    if missing and not inputs.allow_missing:
        raise MmeInputError(
            f"{folder}: no {missing[0]}.txt ({len(missing)} of the 14 task files missing: "
            f"{', '.join(missing)}); calculation.py reads all 14; pass --allow-missing to "
            "score the tasks present"
        )
    if missing:
        notes.append(f"task files not found, left out: {', '.join(missing)}")
    unknown = [t for t in files if t not in _GROUP_OF]
    if unknown:
        notes.append(f"files ignored (not MME tasks): {', '.join(t + '.txt' for t in unknown)}")
    items = []
    for task in TASKS:
        if task not in files:
            continue
        for img, question, gt, resp, where in read_task_file(files[task], need_response=True):
            items.append(_item(where, task, img, question, gt, resp))
    if inputs.annotations is not None:
        notes.append("--annotations was not used: the results files carry their ground truth")
    if inputs.questions is not None:
        notes.append("--questions was not used: the results files carry their questions")
    return TaskData(
        items,
        (os.fspath(folder),),
        ("mme-eval-tool",),
        tuple(notes),
        n_missing=0,
    )


def _item(where: str, task: str, img: str, question: str, gt: str, resp: str | None) -> Item:
    return Item(
        where.rsplit("/", 1)[-1],
        resp,
        (gt,),
        {"category": task, "image": img, "question": question, "group": _GROUP_OF.get(task)},
    )


def _read_vlmevalkit(inputs: TaskInputs, records: Records | None = None) -> TaskData:
    data = read_vlmevalkit(
        replace(inputs, annotations=None),
        fields=("category", "image_path", "question"),
        list_answers=False,
        records=records,
    )
    items = []
    for item in data.items:
        for need in ("category", "image_path"):
            if need not in item.fields:
                raise MmeInputError(
                    f"{data.sources[0]}: index {item.id}: no {need!r} (VLMEvalKit's MME file "
                    "names each row's task in 'category' and its image in 'image_path', which "
                    "acc+ pairs by)"
                )
        fields = dict(item.fields)
        fields["image"] = fields["image_path"]
        if item.references[0].strip().lower() not in ("yes", "no"):
            raise MmeInputError(
                f"{data.sources[0]}: index {item.id}: answer {item.references[0]!r} is not Yes/No"
            )
        items.append(Item(item.id, item.prediction, item.references, fields))
    notes = data.notes
    if inputs.annotations is not None:
        notes += ("--annotations was not used: the spreadsheet carries its own ground truth",)
    if inputs.questions is not None:
        notes += ("--questions was not used: the spreadsheet carries its questions",)
    return replace(data, items=items, notes=notes)


def _llava_question(
    prompt: str, key: tuple[str, str], gt: Mapping[tuple[str, str, str], Any]
) -> str:
    """``convert_answer_to_mme.py``'s question: the LLaVA hint removed and stripped,
    ``Please answer yes or no.`` re-attached when absent — with two spaces before it when
    that is how the GT file spells the question."""
    if _LLAVA_HINT in prompt:
        prompt = prompt.replace(_LLAVA_HINT, "").strip()
    if "Please answer yes or no." not in prompt:
        prompt = prompt + _YES_NO
        if (key[0], key[1], prompt) not in gt:
            prompt = prompt.replace(_YES_NO, " " + _YES_NO)
    return prompt


def _read_llava(records: Any, inputs: TaskInputs) -> TaskData:
    """LLaVA answers joined to ``Your_Results`` as ``convert_answer_to_mme.py`` does, then
    written (in memory) as eval_tool lines ``stem.txt, question, GT, text + "\\n"``."""
    if inputs.annotations is None:
        raise InputError(
            f"{records.source}: MME answers need --annotations: the eval_tool Your_Results folder "
            "(<task>.txt with image, question, GT); only eval_tool result folders and VLMEvalKit "
            "spreadsheets carry their ground truth"
        )
    ann = Path(inputs.annotations)
    if not ann.is_dir():
        raise InputError(
            f"{ann}: MME annotations must be the eval_tool Your_Results folder of <task>.txt files"
        )
    files = _task_files(ann)
    gt: dict[tuple[str, str, str], tuple[str, str, str]] = {}
    for task, path in files.items():
        for img, question, answer, _resp, where in read_task_file(path, need_response=False):
            key = (task, img.split(".")[0], question)
            if key in gt:
                raise MmeInputError(f"{where}: the same image and question twice in {path.name}")
            gt[key] = (answer, img, where)
    cols = set(records.columns)
    for need in ("question_id", "prompt", "text"):
        if need not in cols:
            raise InputError(
                f"{records.source}: no {need!r} field: expected LLaVA's answers.jsonl "
                "(question_id, prompt, text), an eval_tool results folder or a VLMEvalKit "
                "spreadsheet"
            )
    by_task: dict[str, list[Item]] = {}
    seen: dict[tuple[str, str, str], str] = {}
    for i, row in enumerate(records.rows):
        where = records.where(i)
        qid = cell_text(row.get("question_id"), where, column="question_id")
        prompt = cell_text(row.get("prompt"), where, column="prompt")
        text = cell_text(row.get("text"), where, column="text")
        assert qid is not None and prompt is not None and text is not None
        task = qid.split("/")[0]
        stem = qid.split("/")[-1].split(".")[0]
        question = _llava_question(prompt, (task, stem), gt)
        key = (task, stem, question)
        if key not in gt:
            raise InputError(
                f"{where}: no line of {task}.txt in {ann} has image {stem} and question "
                f"{question!r} (convert_answer_to_mme.py's lookup)"
            )
        if key in seen:
            raise InputError(f"{where}: a second answer to the question answered at {seen[key]}")
        seen[key] = where
        if "\t" in text or "\n" in text or "\r" in text:
            raise MmeInputError(
                f"{where}: the answer contains a tab or line break; written into the eval_tool "
                "file it would break calculation.py's one-line, four-field format"
            )
        answer, img, _gt_where = gt[key]
        # QUIRK newline-in-window: the converter writes text + "\n" and calculation.py reads it
        by_task.setdefault(task, []).append(
            Item(
                qid + "#" + str(i + 1),
                text + "\n",
                (answer,),
                {
                    "category": task,
                    "image": stem + ".txt",
                    "question": question,
                    "group": _GROUP_OF.get(task),
                },
            )
        )
    missing = [k for k in gt if k not in seen]
    notes: list[str] = []
    if missing and not inputs.allow_missing:
        task, stem, question = missing[0]
        raise InputError(
            f"{records.source}: {len(missing)} question(s) of {ann} have no answer, e.g. "
            f"{gt[missing[0]][2]} ({stem}: {question!r}); pass --allow-missing to leave them "
            "out, as convert_answer_to_mme.py does"
        )
    if missing:
        notes.append(
            f"{len(missing)} question(s) without an answer were left out, as "
            "convert_answer_to_mme.py does (the task files are shorter)"
        )
    items = [it for t in TASKS for it in by_task.get(t, [])]
    items += [it for t, its in by_task.items() if t not in _GROUP_OF for it in its]
    if inputs.questions is not None:
        notes.append("--questions was not used: the join goes through the Your_Results files")
    return TaskData(
        items,
        (records.source, os.fspath(ann)),
        (f"llava-answers ({records.layout})", "mme-your-results"),
        tuple(notes),
        n_missing=len(missing),
    )


OFFICIAL = TaskProfile(
    name="official",
    description="MME eval_tool calculation.py: 4-character rule, acc + acc+ per task, points",
    reproduces="BradyFU/Awesome-Multimodal-Large-Language-Models@dd29509 (Evaluation) "
    "eval_tool/calculation.py",
    toolkit="MME-eval_tool@dd29509",
    score=_score_official,
    aggregate=_aggregate_official,
    parse=parse_official,
    detail=parsed_detail(parse_official),
)

LLAVA = TaskProfile(
    name="llava",
    description="LLaVA: convert_answer_to_mme.py join, then the official calculation.py",
    reproduces="haotian-liu/LLaVA@32cebc3 playground/data/eval/MME/convert_answer_to_mme.py "
    "+ eval_tool/calculation.py",
    toolkit="LLaVA@32cebc3",
    score=_score_official,
    aggregate=_aggregate_official,
    parse=parse_official,
    detail=parsed_detail(parse_official),
)

LMMS_EVAL = TaskProfile(
    name="lmms-eval",
    description="lmms-eval mme: strip + single-letter y/n parse, per-image acc + acc+ averaged",
    reproduces="EvolvingLMMs-Lab/lmms-eval@75571cf lmms_eval/tasks/mme/utils.py",
    toolkit="lmms-eval@0.7.3",
    score=_score_lmms,
    aggregate=_aggregate_lmms,
    parse=parse_lmms_eval,
    detail=parsed_detail(parse_lmms_eval),
)

VLMEVALKIT = TaskProfile(
    name="vlmevalkit",
    description="VLMEvalKit MME_rating: YOrN word membership, no judge; groups by image_path",
    reproduces="open-compass/VLMEvalKit@e8e78f0 vlmeval/dataset/utils/yorn.py MME_rating",
    toolkit="VLMEvalKit@e8e78f0",
    score=_score_vlm,
    aggregate=_aggregate_vlm,
    parse=parse_vlmevalkit,
    detail=parsed_detail(parse_vlmevalkit),
)


def _signature_fields(data: TaskData) -> tuple[tuple[str, Any], ...]:
    tasks = {str(it.fields.get("category")) for it in data.items}
    return (("tasks", len(tasks)),)


TASK = register_task(
    Task(
        name="mme",
        title="MME",
        metric="mme",
        description="14 yes/no tasks, two questions per image: acc + acc+ per task, in points",
        profiles=(OFFICIAL, LLAVA, LMMS_EVAL, VLMEVALKIT),
        read=_read,
        layouts=(
            "eval_tool results folder: <task>.txt lines image\\tquestion\\tGT\\tresponse",
            "LLaVA answers.jsonl + --annotations eval_tool/Your_Results (convert_answer_to_mme.py)",
            "VLMEvalKit spreadsheet (index, category, image_path, question, answer, prediction)",
        ),
        annotations_optional=True,
        signature_fields=_signature_fields,
    )
)
