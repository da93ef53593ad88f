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

lmms-eval ``--log_samples`` logs (``_mme_read``) carry their ground truth when the records have
``doc`` (lmms-lab/MME's ``answer``, ``category``, and ``question_id``, the image acc+ pairs by),
so ``--annotations`` is optional; without ``doc`` they are joined to Your_Results by position.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

from ..aggregate.formulas import group_by
from ..core.exceptions import InputError
from ..core.toolkits import LLAVA_32CEBC3 as LLAVA_PIN
from ..core.toolkits import LMMS_EVAL as LMMS_EVAL_PIN
from ..kernels.keywords import first_keyword
from . import register_task
from ._base import Aggregate, Aggregator, Item, Task, TaskData, TaskProfile
from ._common import numpy_mean
from ._mme_read import (
    COGNITION,
    GROUP_OF,
    GROUPS,
    LMMS_EVAL_REPORTED,
    PERCEPTION,
    TASKS,
    MmeInputError,
    read_mme,
    read_task_file,
)
from ._yesno import (
    YesNoRule,
    parse_vlmevalkit,
    unjudged_notes,
    vlmevalkit_yes_no_profile,
    yes_no_profile,
)

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
    return _four_characters(pred)


@lru_cache(maxsize=65536)
def parse_lmms_eval(text: str) -> str:
    """lmms-eval's ``parse_pred_ans``: lower, strip, delete every ``.``; exact yes/no; a single
    ``y``/``n`` is yes/no (any other single character is other); then the 4-character rule."""
    pred = text.lower().strip().replace(".", "")
    if pred in ("yes", "no"):
        return pred
    if len(pred) == 1:
        return {"y": "yes", "n": "no"}.get(pred, "other")
    return _four_characters(pred)


def _four_characters(pred: str) -> str:
    """The 4-character rule both parsers end with: ``yes`` if ``"yes"`` is in the first 4
    characters, else ``no`` if ``"no"`` is, else ``other``."""
    return first_keyword(pred[:4], (("yes", "yes"), ("no", "no")), "other")


# ---------------------------------------------------------------------------- per item


def _lmms_truth(gt: str) -> str:
    """The GT as lmms-eval reads it: lower-cased, stripped, ``.`` deleted."""
    return gt.lower().strip().replace(".", "")


def _vlm_truth(gt: str) -> str:
    """The GT as VLMEvalKit reads it: stripped, lower-cased."""
    return gt.strip().lower()


#: how each toolkit reads a response and a GT; a response is right when the two agree
#: (``other`` is never right); VLMEvalKit's rule is yorn.py's, shared with POPE (``_yesno``)
_OFFICIAL_RULE = YesNoRule(
    parse_official,
    str.lower,
    "lower; yes/no as is, else 'yes' or 'no' found in the first 4 characters",
    "lower",
)
_LMMS_RULE = YesNoRule(
    parse_lmms_eval,
    _lmms_truth,
    "lower, strip, delete '.'; y/n; else the 4-character rule",
    "lower, strip, delete '.'",
)


# ---------------------------------------------------------------------------- aggregation


def _by_task(items: Sequence[Item]) -> dict[str, list[int]]:
    return group_by([str(item.fields.get("category")) for item in items], range(len(items)))


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


def _points(
    metrics: dict[str, float | int],
    by: str,
    per: dict[str, dict[str, float | int]],
    notes: Sequence[str] = (),
) -> Aggregate:
    """An MME aggregate: the group totals in points (perception the headline when it is
    there, else the first), the numbers of each task or category in the breakdown *by*."""
    return Aggregate(
        metrics=metrics,
        headline="perception" if "perception" in metrics else next(iter(metrics), "perception"),
        units="points",
        digits=2,
        breakdowns={by: per},
        notes=tuple(notes),
    )


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
    for task in [t for t in TASKS if t in groups] + [t for t in groups if t not in GROUP_OF]:
        idx = groups[task]
        gts = [items[i].references[0].lower() for i in idx]
        parsed = [parse_official(items[i].prediction or "") for i in idx]
        per_task[task] = official_task_score(gts, parsed, task)
    metrics, notes = _totals({t: float(v["score"]) for t, v in per_task.items()}, GROUPS)
    notes.extend(_split_pairs(items, groups))
    unknown = [t for t in per_task if t not in GROUP_OF]
    if unknown:
        notes.append(f"task(s) {', '.join(unknown)} are in no MME group and in no total")
    return _points(metrics, "task", per_task, notes)


def _image_scores(
    items: Sequence[Item], idx: Sequence[int], scores: Sequence[float]
) -> dict[str, list[float]]:
    """The scores of the items *idx* by their ``image`` (first-seen order): the toolkits'
    acc+ pairs an image's questions by it, not by position."""
    return group_by([str(items[i].fields.get("image")) for i in idx], [scores[i] for i in idx])


def _aggregate_lmms(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``mme_aggregate_results``: per category (first-seen order), per image ``acc_i + acc+_i``
    with ``acc_i = Σscores/2·100``, ``acc+_i = (Σscores == 2)·100``, averaged over images; the
    group score sums the categories in first-seen order."""
    per_cat: dict[str, dict[str, float | int]] = {}
    for cat, idx in _by_task(items).items():
        images = _image_scores(items, idx, scores)
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
    # the group sums the categories in first-seen order, not in the official list's
    groups = [(name, [c for c in per_cat if c in tasks]) for name, tasks in GROUPS]
    metrics, _ = _totals({c: float(v["score"]) for c, v in per_cat.items()}, groups)
    return _points(metrics, "category", per_cat)


#: VLMEvalKit's ``MME_rating`` super-categories; it sums them in this (sorted) order
_VLM_GROUPS = (("perception", tuple(sorted(PERCEPTION))), ("reasoning", tuple(sorted(COGNITION))))


def _aggregate_vlm(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``MME_rating``: per category, rows grouped by ``image_path``; ``np.mean(all)·100 +
    np.mean(first·second per image)·100``; ``perception``/``reasoning`` sum the categories in
    sorted order."""
    per_cat: dict[str, dict[str, float | int]] = {}
    for cat, idx in _by_task(items).items():
        images = _image_scores(items, idx, scores)
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
    notes.extend(unjudged_notes(items, "response"))
    return _points(metrics, "category", per_cat, notes)


#: how one answer counts in MME's numbers
_MME_NOTE = "acc counts each question; acc+ counts the image only when both its questions are right"


def _mme_profile(rule: YesNoRule, aggregate: Aggregator, **profile: Any) -> TaskProfile:
    """An MME profile (:func:`yes_no_profile`): explained without a confusion matrix (MME
    counts no TP/FP), with how acc and acc+ count the answer."""
    return yes_no_profile(rule, aggregate, confusion=False, note=_MME_NOTE, **profile)


OFFICIAL = _mme_profile(
    _OFFICIAL_RULE,
    _aggregate_official,
    name="official",
    description="MME eval_tool calculation.py: 4-character rule, acc + acc+ per task, points",
    reproduces="BradyFU/Awesome-Multimodal-Large-Language-Models@dd29509 (Evaluation) "
    "eval_tool/calculation.py",
    toolkit="MME-eval_tool@dd29509",
)

# LLaVA's join feeds the official calculation.py: the official profile but for its source
LLAVA = replace(
    OFFICIAL,
    name="llava",
    description="LLaVA: convert_answer_to_mme.py join, then the official calculation.py",
    reproduces=LLAVA_PIN.at(
        "playground/data/eval/MME/convert_answer_to_mme.py + eval_tool/calculation.py"
    ),
    toolkit=LLAVA_PIN.token,
)

LMMS_EVAL = _mme_profile(
    _LMMS_RULE,
    _aggregate_lmms,
    name="lmms-eval",
    description="lmms-eval mme: strip + single-letter y/n parse, per-image acc + acc+ averaged",
    reproduces=LMMS_EVAL_PIN.at("lmms_eval/tasks/mme/utils.py"),
    toolkit=LMMS_EVAL_PIN.token,
)

VLMEVALKIT = vlmevalkit_yes_no_profile(
    "MME_rating",
    _vlm_truth,
    "strip + lower",
    _aggregate_vlm,
    "groups by image_path",
    confusion=False,
    note=_MME_NOTE,
)


def _signature_fields(data: TaskData) -> tuple[tuple[str, Any], ...]:
    tasks = {str(it.fields.get("category")) for it in data.items}
    return (("tasks", len(tasks)),)


TASK = register_task(
    Task(
        name="mme",
        kind="yes-no",
        datasets=("lmms-lab/MME",),
        title="MME",
        metric="mme",
        description="14 yes/no tasks, two questions per image: acc + acc+ per task, in points",
        profiles=(OFFICIAL, LLAVA, LMMS_EVAL, VLMEVALKIT),
        read=read_mme,
        layouts=(
            "eval_tool results folder: <task>.txt lines image\\tquestion\\tGT\\tresponse",
            "LLaVA answers.jsonl + --annotations eval_tool/Your_Results (convert_answer_to_mme.py)",
            "VLMEvalKit spreadsheet (index, category, image_path, question, answer, prediction)",
            "lmms-eval --log_samples JSONL (doc.question_id, doc.category, doc.answer, "
            "filtered_resps); without doc: + --annotations Your_Results, joined by position",
            "lmms-eval --log_samples JSONL without doc, alone: target + the mme_perception_score / "
            "mme_cognition_score record (question_id, category)",
        ),
        annotations_optional=True,
        signature_fields=_signature_fields,
        reported_names=LMMS_EVAL_REPORTED,
    )
)
